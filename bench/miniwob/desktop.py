"""The pieces the MiniWoB++ harness stands on: the task pages on a local HTTP server, `handrail serve`
on a private sandbox desktop, an MCP session calling its `computer` tool, and the reference
pipeline's hands (xdotool and scrot on the same desktop)."""

import asyncio
import functools
import http.server
import importlib.util
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

from mcp import Client, types

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
from handrail.local import LocalDesktop  # noqa: E402


def miniwob_html_dir():
    """The task pages shipped inside the `miniwob` package (found without importing it, which would
    pull in gymnasium and selenium for nothing)."""
    spec = importlib.util.find_spec("miniwob")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("the `miniwob` package is missing: run scripts/setup-test-tools")
    html = Path(list(spec.submodule_search_locations)[0]) / "html"
    if not (html / "miniwob" / "click-test.html").exists():
        raise SystemExit(f"no MiniWoB++ pages under {html}")
    return html


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class PageServer:
    """Serves the MiniWoB++ pages on 127.0.0.1 (a free port) from a daemon thread."""

    def __init__(self, root):
        handler = functools.partial(_QuietHandler, directory=str(root))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def url(self, task):
        return f"http://127.0.0.1:{self.port}/miniwob/{task}.html"

    def close(self):
        self.httpd.shutdown()


class HandrailServer(LocalDesktop):
    """`handrail serve --sandbox --vision yes --http 127.0.0.1:0` without a token (loopback only), from
    the Python client's `LocalDesktop`; stopped with SIGTERM."""

    def __init__(self, binary, startup_timeout=90):
        super().__init__(binary, startup_timeout=startup_timeout, token=False)


def text_of(result):
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


class Computer:
    """One MCP session with handrail's `computer` tool. Each episode is its own turn, as a host would
    start one per user request; `latest` is the newest observation any call returned."""

    def __init__(self, client, verbose=False):
        self.client = client
        self.verbose = verbose
        self.turn = None
        self.intent = ""
        self.latest = None
        self.calls = {"see": 0, "act": 0}

    def new_turn(self, turn, intent):
        self.turn, self.intent, self.latest = turn, intent, None

    async def call(self, **args):
        meta = {"handrail/turn": self.turn, "handrail/intent": self.intent, "handrail/mode": "interactive"}
        t0 = time.monotonic()
        result = await self.client.call_tool("computer", args, meta=meta)
        if verbose_line := self.verbose and f"  {args} -> {(result.structured_content or {}).get('tag')}":
            print(f"{verbose_line} {time.monotonic() - t0:.2f}s", flush=True)
        structured = result.structured_content or {}
        obs = structured.get("observation") or {}
        if obs.get("id"):
            self.latest = obs
        self.calls["see" if args["action"] in ("see", "inspect") else "act"] += 1
        return structured, text_of(result)

    async def see(self):
        return await self.call(action="see")


def connect(url):
    return Client(url, mode="legacy", read_timeout_seconds=90)


class Xdo:
    """The reference pipeline's hands: xdotool input and scrot screenshots on the sandbox display,
    with the fixed wait after every action that those pipelines use instead of watching the screen."""

    WAIT = 2.0

    def __init__(self, display, shots_dir, verbose=False):
        self.verbose = verbose
        for tool in ("xdotool", "scrot"):
            if not shutil.which(tool):
                raise SystemExit(f"the reference pipeline needs {tool}: apt-get install xdotool scrot")
        self.env = dict(os.environ, DISPLAY=display)
        self.shot = str(Path(shots_dir) / "reference.png")
        Path(shots_dir).mkdir(parents=True, exist_ok=True)

    def _run(self, *argv):
        t0 = time.monotonic()
        subprocess.run(argv, env=self.env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if self.verbose:
            print(f"  {' '.join(argv)} {time.monotonic() - t0:.2f}s", flush=True)

    async def _settle(self):
        await asyncio.sleep(self.WAIT)
        self._run("scrot", "-o", self.shot)

    async def click(self, x, y):
        # No --sync: it waits for pointer motion, which never comes when the pointer is already there.
        self._run("xdotool", "mousemove", str(x), str(y), "click", "1")
        await self._settle()

    async def type(self, text):
        for i in range(0, len(text), 50):
            self._run("xdotool", "type", "--delay", "12", "--", text[i:i + 50])
        await self._settle()


def now():
    return time.monotonic()

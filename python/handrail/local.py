"""Starting a handrail desktop service on this machine: `handrail serve --sandbox --http` on a free
loopback port, with a token of its own, stopped (and its private desktop with it) on `stop()`.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import signal
import subprocess
import threading
import time
import urllib.request
from pathlib import Path
from typing import Optional, Sequence


def find_binary(binary: Optional[str] = None) -> str:
    """The `handrail` binary: `binary`, else `$HANDRAIL_BIN`, else `handrail` on `PATH`."""
    found = binary or os.environ.get("HANDRAIL_BIN") or shutil.which("handrail")
    if not found or not Path(found).exists():
        raise FileNotFoundError("no handrail binary: pass binary=, set HANDRAIL_BIN or put handrail on PATH "
                                "(cargo build --release -p handrail-cli)")
    return str(found)


class LocalDesktop:
    """A private sandbox desktop served over HTTP by a `handrail serve` child process.

    `url` is its MCP endpoint and `token` its bearer token (a fresh one; `token=False`: none, which
    loopback allows); `wait_ready()` returns once `/readyz` says the desktop has been observed. Extra `serve` arguments go in `args` (e.g.
    `["--task-traces", "traces"]`), a program to start inside the desktop in `launch`. With
    `--osworld-guest` among them, `osworld_guest` is the guest API's base URL (`http://host:port`).
    """

    def __init__(self, binary: Optional[str] = None, args: Sequence[str] = (), launch: Sequence[str] = (),
                 startup_timeout: float = 60.0, env: Optional[dict] = None, token: bool = True):
        self.binary = find_binary(binary)
        self.token = secrets.token_urlsafe(24) if token else None
        command = [self.binary, "serve", "--sandbox", "--vision", "yes", "--http", "127.0.0.1:0", *args]
        if launch:
            command += ["--", *launch]
        child_env = dict(os.environ if env is None else env)
        if self.token:
            child_env["HANDRAIL_TOKEN"] = self.token
        else:
            child_env.pop("HANDRAIL_TOKEN", None)
        self.started = time.monotonic()
        self.proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True, env=child_env)
        self.log: list[str] = []
        self.url: Optional[str] = None
        self.osworld_guest: Optional[str] = None
        self.display: Optional[str] = None
        wants_guest = any(a == "--osworld-guest" or a.startswith("--osworld-guest=") for a in args)
        listening = threading.Event()

        # Drained for the whole life of the server: a full pipe would stall it.
        def drain() -> None:
            assert self.proc.stderr is not None
            for line in self.proc.stderr:
                self.log.append(line.rstrip())
                if m := re.search(r"private desktop (\S+) is up", line):
                    self.display = m.group(1)
                if m := re.search(r"MCP at (\S+)", line):
                    self.url = m.group(1)
                if m := re.search(r"OSWorld guest at (\S+)", line):
                    self.osworld_guest = m.group(1)
                # The two listeners announce themselves in either order.
                if self.url and (self.osworld_guest or not wants_guest):
                    listening.set()
            listening.set()

        threading.Thread(target=drain, daemon=True).start()
        if not listening.wait(startup_timeout) or not self.url or (wants_guest and not self.osworld_guest):
            self.stop()
            raise RuntimeError("handrail serve did not start:\n" + "\n".join(self.log[-30:]))
        self.base = self.url[: -len("/mcp")]

    @property
    def pid(self) -> int:
        return self.proc.pid

    def wait_ready(self, timeout: float = 60.0) -> float:
        """Blocks until `/readyz` answers 200; returns seconds since the process started."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(self.base + "/readyz", timeout=5) as r:
                    if r.status == 200:
                        return time.monotonic() - self.started
            except OSError:
                pass
            if self.proc.poll() is not None:
                raise RuntimeError("handrail serve exited:\n" + "\n".join(self.log[-30:]))
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.base} not ready within {timeout:.0f} s:\n" + "\n".join(self.log[-30:]))
            time.sleep(0.02)

    def stop(self, timeout: float = 30.0) -> Optional[int]:
        """SIGTERM (the server stops its desktop), then SIGKILL after `timeout`; the exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode

    def __enter__(self) -> "LocalDesktop":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

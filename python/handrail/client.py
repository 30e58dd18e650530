"""An async client for one handrail desktop: the `computer` tool over MCP (the official `mcp` SDK
underneath) and the desktop service's endpoints (`/healthz`, `/readyz`, `POST /reset`).

    async with Computer("http://127.0.0.1:8765/mcp", token=...) as computer:
        await computer.reset(turn="task-1", intent="save the draft")
        obs = (await computer.see()).observation
        result = await computer.click(obs.find("Save", role="button")[0], expect="text:Saved")
        print(result.verdict, result.timings.total)

Turns: every call carries the current turn (`handrail/turn`, `handrail/intent`, `handrail/mode` in
the request's `_meta`); `reset()` and `new_turn()` set it. Actions aim at elements of the newest
observation; a call without `observation_id` gets the newest one this client saw.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import json
import logging
import time
from typing import Any, Optional, Sequence, Union
from urllib.parse import quote, urlsplit, urlunsplit

import httpx2
from mcp import Client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.client.streamable_http import streamable_http_client

from .results import (ComputerResult, Element, FileWritten, Health, Observation, Readiness, ResetReport, RunReport,
                      computer_result,
                      from_json)

TOOL = "computer"
log = logging.getLogger("handrail")


class Mode(str, enum.Enum):
    """Whether a person watches the turn: `unattended` turns get stricter guards and never ask."""

    INTERACTIVE = "interactive"
    UNATTENDED = "unattended"


class ServiceError(RuntimeError):
    """A service endpoint answered with an error (its status and message)."""

    def __init__(self, status: int, message: str, body: Any = None):
        super().__init__(f"HTTP {status}: {message}")
        self.status, self.message, self.body = status, message, body


class ResetNotClean(ServiceError):
    """The reset left something behind (`report` says what); the desktop is not ready."""

    def __init__(self, report: ResetReport):
        super().__init__(500, f"the reset left windows {report.windows_left}, apps {report.apps_left}, "
                              f"clipboard {report.clipboard}", report)
        self.report = report


def service_base(url: str) -> str:
    """`http://host:port` of an MCP URL `http://host:port/mcp`."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "", "", ""))


ElementLike = Union[Element, str]


def _element_id(element: ElementLike) -> str:
    return element.id if isinstance(element, Element) else str(element)


class Computer:
    """One MCP session with a handrail desktop's `computer` tool, plus its service endpoints."""

    def __init__(self, url: str, token: Optional[str] = None, *, protocol: str = "legacy",
                 timeout: float = 120.0):
        self.url = url
        self.base = service_base(url)
        self.token = token
        self.protocol = protocol
        self.timeout = timeout
        self.turn: Optional[str] = None
        self.intent: str = ""
        self.mode: Mode = Mode.INTERACTIVE
        self.latest: Optional[Observation] = None
        self.calls = 0
        self._holder: Optional[asyncio.Task] = None
        self._closing = asyncio.Event()
        self._client: Optional[Client] = None
        self._http: Optional[httpx2.AsyncClient] = None

    # ---- connection ----------------------------------------------------------------------------

    def _headers(self) -> dict:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    async def connect(self) -> "Computer":
        """Opens the MCP session and the HTTP client. They live in a task of their own, so the client
        can be used, and closed, from any task on this event loop (a Gymnasium environment or a Ray
        actor drives it from a loop thread, one task per call)."""
        if self._client is not None:
            return self
        loop = asyncio.get_running_loop()
        ready: asyncio.Future = loop.create_future()
        self._closing = asyncio.Event()
        self._holder = loop.create_task(self._hold(ready, self._closing), name=f"handrail {self.url}")
        await ready
        return self

    async def _hold(self, ready: asyncio.Future, closing: asyncio.Event) -> None:
        try:
            async with contextlib.AsyncExitStack() as stack:
                mcp_http = await stack.enter_async_context(create_mcp_http_client(headers=self._headers()))
                transport = streamable_http_client(self.url, http_client=mcp_http)
                self._client = await stack.enter_async_context(
                    Client(transport, mode=self.protocol, read_timeout_seconds=self.timeout))
                self._http = await stack.enter_async_context(
                    httpx2.AsyncClient(headers=self._headers(), timeout=httpx2.Timeout(self.timeout)))
                ready.set_result(None)
                await closing.wait()
        except BaseException as e:
            if ready.done():
                raise
            ready.set_exception(await self._why_not_connected(e))
        finally:
            self._client = self._http = None

    async def _why_not_connected(self, error: BaseException) -> BaseException:
        """A refused connection as the service's answer (a wrong token is a 401 `ServiceError`), else
        the error itself (the SDK wraps it in exception groups)."""
        try:
            async with httpx2.AsyncClient(headers=self._headers(), timeout=httpx2.Timeout(10)) as http:
                answer = await http.post(self.url, json={"jsonrpc": "2.0", "id": 0, "method": "ping"},
                                         headers={"Accept": "application/json, text/event-stream"})
        except (httpx2.HTTPError, OSError):
            return error
        if answer.status_code in (401, 403):
            return ServiceError(answer.status_code, answer.text.strip() or "refused", None)
        return error

    @property
    def session(self) -> Client:
        """The connected MCP client underneath, for requests this class has no method for (listing
        tools, reading resources)."""
        if self._client is None:
            raise RuntimeError("not connected: await connect() first")
        return self._client

    async def close(self) -> None:
        holder, self._holder = self._holder, None
        if holder is None:
            return
        self._closing.set()
        try:
            await holder
        except Exception as e:  # the session failed on its own earlier; it is closed either way
            log.debug("the MCP session of %s ended with %r", self.url, e)

    async def __aenter__(self) -> "Computer":
        return await self.connect()

    async def __aexit__(self, *exc) -> None:
        await self.close()

    # ---- turns ---------------------------------------------------------------------------------

    def new_turn(self, turn: str, intent: str = "", mode: Mode = Mode.INTERACTIVE) -> None:
        """Names the turn the next calls run in (a new id starts a new turn on the server: older
        observation ids become stale, budgets refill)."""
        self.turn, self.intent, self.mode, self.latest = turn, intent, Mode(mode), None

    def _meta(self) -> Optional[dict]:
        if self.turn is None:
            return None
        return {"handrail/turn": self.turn, "handrail/intent": self.intent, "handrail/mode": self.mode.value}

    # ---- the computer tool ---------------------------------------------------------------------

    async def call(self, action: str, **args: Any) -> ComputerResult:
        """One `computer` call with these arguments (`None` values are left out)."""
        if self._client is None:
            await self.connect()
        assert self._client is not None
        arguments = {"action": action, **{k: v for k, v in args.items() if v is not None}}
        raw = await self._client.call_tool(TOOL, arguments, meta=self._meta())
        result = computer_result(raw)
        self.calls += 1
        if result.observation is not None:
            self.latest = result.observation
        return result

    def _aim(self, element: Optional[ElementLike], observation: Optional[str]) -> dict:
        if element is None:
            return {}
        obs = observation or (self.latest.id if self.latest else None)
        return {"element_id": _element_id(element), "observation_id": obs}

    async def see(self, **extra: Any) -> ComputerResult:
        return await self.call("see", **extra)

    async def inspect(self, region: tuple[int, int, int, int], **extra: Any) -> ComputerResult:
        return await self.call("inspect", region=list(region), **extra)

    async def click(self, element: ElementLike, *, observation: Optional[str] = None, expect: Optional[str] = None,
                    button: str = "click") -> ComputerResult:
        """`click` (or `double_click`, `triple_click`, `right_click`, `hover` through `button`)."""
        return await self.call(button, expect=expect, **self._aim(element, observation))

    async def type(self, text: str, element: Optional[ElementLike] = None, *, observation: Optional[str] = None,
                   expect: Optional[str] = None) -> ComputerResult:
        return await self.call("type", text=text, expect=expect, **self._aim(element, observation))

    async def key(self, keys: str, *, expect: Optional[str] = None) -> ComputerResult:
        return await self.call("key", keys=keys, expect=expect)

    async def scroll(self, element: ElementLike, direction: str = "down", amount: int = 3, *,
                     observation: Optional[str] = None) -> ComputerResult:
        return await self.call("scroll", direction=direction, amount=amount, **self._aim(element, observation))

    async def open_url(self, url: str, *, expect: Optional[str] = None) -> ComputerResult:
        return await self.call("open_url", url=url, expect=expect)

    async def open_app(self, app: str, *, expect: Optional[str] = None) -> ComputerResult:
        return await self.call("open_app", app=app, expect=expect)

    # ---- the desktop service -------------------------------------------------------------------

    async def _request(self, method: str, path: str, content: Optional[bytes] = None,
                       content_type: Optional[str] = None) -> Any:
        """One request to the desktop service, on this client's connection (made on first use)."""
        if self._http is None:
            await self.connect()
        assert self._http is not None
        headers = {"Content-Type": content_type} if content_type else {}
        return await self._http.request(method, self.base + path, content=content, headers=headers)

    async def _service(self, method: str, path: str, body: Optional[dict] = None) -> tuple[int, Any]:
        content = json.dumps(body).encode() if body is not None else None
        response = await self._request(method, path, content, "application/json" if content is not None else None)
        return response.status_code, _json_or_error(response)

    # ---- a harness's task set-up (a server started with --setup-endpoints) ----------------------

    async def put_file(self, path: str, data: Union[bytes, str]) -> FileWritten:
        """Puts a file at `path`, relative to the desktop's private home (folders are made on the
        way; text is written as UTF-8). The next reset removes it with everything the task left."""
        content = data.encode() if isinstance(data, str) else bytes(data)
        response = await self._request("PUT", _file_path(path), content, "application/octet-stream")
        answer = _json_or_error(response)
        if response.status_code != 200:
            raise ServiceError(response.status_code, answer.get("error", str(answer)), answer)
        return from_json(FileWritten, answer)

    async def get_file(self, path: str) -> bytes:
        """The bytes of the file at `path`, relative to the desktop's private home."""
        response = await self._request("GET", _file_path(path))
        if response.status_code != 200:
            answer = _json_or_error(response)
            raise ServiceError(response.status_code, answer.get("error", str(answer)), answer)
        return response.content

    async def run(self, argv: Sequence[str], *, wait: bool = True, timeout: Optional[float] = None) -> RunReport:
        """Runs `argv` inside the desktop's session, in its home (no shell: pass `["sh", "-c", …]`
        for one). With `wait`, answers once it exited (killed after `timeout` seconds, 30 by default)
        with its output; without, once it started, leaving it running until the next reset."""
        body: dict = {"argv": list(argv), "wait": wait}
        if timeout is not None:
            body["timeout_ms"] = max(1, round(timeout * 1000))
        status, answer = await self._service("POST", "/run", body)
        if status != 200:
            raise ServiceError(status, answer.get("error", str(answer)), answer)
        return from_json(RunReport, answer)

    async def health(self) -> Health:
        _, body = await self._service("GET", "/healthz")
        return from_json(Health, body)

    async def readiness(self) -> Readiness:
        _, body = await self._service("GET", "/readyz")
        return from_json(Readiness, body)

    async def wait_ready(self, timeout: float = 60.0, poll: float = 0.05) -> Readiness:
        """Polls `/readyz` until the desktop is ready; `TimeoutError` saying why not."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                ready = await self.readiness()
                if ready.ready:
                    return ready
                why = ready.why
            except (httpx2.HTTPError, OSError) as e:
                why = str(e)
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.base} not ready within {timeout:.0f} s: {why}")
            await asyncio.sleep(poll)

    async def reset(self, turn: Optional[str] = None, intent: str = "", mode: Mode = Mode.INTERACTIVE, *,
                    trace: bool = False, require_clean: bool = True) -> ResetReport:
        """Returns the desktop to a clean state and starts a new turn (named `turn`, else the
        server's next one), which the following calls run in."""
        body: dict = {"intent": intent, "mode": Mode(mode).value, "trace": trace}
        if turn is not None:
            body["turn"] = turn
        status, answer = await self._service("POST", "/reset", body)
        if status not in (200, 500) or "clean" not in answer:
            raise ServiceError(status, answer.get("error", str(answer)), answer)
        report = from_json(ResetReport, answer)
        self.new_turn(report.turn, intent, mode)
        if require_clean and not report.clean:
            raise ResetNotClean(report)
        return report


def _json_or_error(response: Any) -> dict:
    try:
        answer = response.json()
    except ValueError:
        return {"error": response.text}
    return answer if isinstance(answer, dict) else {"error": str(answer)}


def _file_path(path: str) -> str:
    """`/files/PATH` with every part escaped, `.` and `..` included, so that no HTTP library folds
    them away: the server judges the path as given (and refuses one that leaves the home)."""
    parts = [quote(p, safe="") if p not in (".", "..") else p.replace(".", "%2E") for p in path.split("/")]
    return "/files/" + "/".join(parts)

"""Fixtures of the Python client's tests: a real private desktop (`handrail serve --sandbox`, the
binary in `$HANDRAIL_BIN`) and task pages served on 127.0.0.1. Nothing is mocked."""

from __future__ import annotations

import http.server
import importlib.util
import threading
import time

import pytest

from handrail import LocalDesktop
from handrail.local import find_binary

# The OSWorld tests need desktop-env, which lives in the virtualenv scripts/setup-osworld makes (its
# declared dependencies are gigabytes); run them with that venv's python. Elsewhere they are not
# collected.
if importlib.util.find_spec("desktop_env") is None:
    collect_ignore_glob = ["test_osworld*.py"]

PAGES = {
    "/button.html": """<!doctype html><html><head><title>Button task</title></head><body>
<h1 id="status">Waiting</h1>
<button onclick="document.getElementById('status').textContent='Thanks';document.title='Done task'"
        style="font-size:32px">Finish</button></body></html>""",
}


class _Pages(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = PAGES.get(self.path)
        if body is None:
            self.send_error(404)
            return
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="session")
def pages():
    """The base URL of the task pages."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Pages)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture(scope="session")
def binary():
    return find_binary()


@pytest.fixture(scope="module")
def desktop(binary):
    """One private desktop for a test module, ready (observed once) before the first test."""
    with LocalDesktop(binary) as d:
        d.wait_ready(120)
        yield d


# desktop-env's controller asks for a file that is not there three times, 5 s apart, before its
# getter gives up: 15 s for each score of an untouched task whose result file does not exist yet.
# The tests that wait for a score ask again themselves.
HARNESS_RETRY_S = 0.5


def quick_harness_retries(env):
    """`env` (a `DesktopEnv`), its controller asking again after `HARNESS_RETRY_S`, also the one it
    makes anew after each revert."""
    start = env._start_emulator

    def started():
        start()
        env.controller.retry_interval = HARNESS_RETRY_S

    env._start_emulator = started
    env.controller.retry_interval = HARNESS_RETRY_S
    return env


def wait_for(what, check, timeout, every):
    """`check()`'s first truthy answer, asked every `every` seconds; fails after `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"no {what} within {timeout:.0f} s")
        time.sleep(every)

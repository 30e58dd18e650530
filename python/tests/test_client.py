"""The async client against a real desktop service: liveness, readiness, reset and typed results."""

from __future__ import annotations

import asyncio
import subprocess

import pytest

from handrail import Computer, ServiceError
from handrail.results import ComputerResult, json_keys


def run(coro):
    return asyncio.run(coro)


def x_windows(display: str) -> list[str]:
    """The managed windows' ids, read from the X server."""
    out = subprocess.run(["xprop", "-display", display, "-root", "_NET_CLIENT_LIST"], capture_output=True,
                         text=True, check=True).stdout
    return [w.strip() for w in out.split("#", 1)[-1].split(",") if w.strip().startswith("0x")]


def test_health_and_readiness_are_typed(desktop):
    async def go():
        async with Computer(desktop.url, desktop.token) as computer:
            return await computer.health(), await computer.readiness()

    health, ready = run(go())
    assert health.alive and health.problem is None
    assert ready.ready and ready.first_observation_ms is not None and ready.elements is not None


def test_the_result_types_read_every_field_the_server_declares(desktop):
    async def go():
        async with Computer(desktop.url, desktop.token) as computer:
            return await computer.session.list_tools()

    tools = run(go())
    schema = next(t for t in tools.tools if t.name == "computer").output_schema
    declared = set(schema["properties"])
    read = json_keys(ComputerResult)
    assert declared <= read | {"extra"}, f"fields the client drops: {sorted(declared - read)}"


def test_a_task_runs_and_the_reset_closes_what_it_opened(desktop, pages):
    async def go():
        async with Computer(desktop.url, desktop.token) as computer:
            first = await computer.reset(turn="client-task-1", intent="press Finish on the page")
            opened = await computer.open_url(pages + "/button.html", expect="text:Finish")
            button = next(e for e in opened.observation.elements if e.label == "Finish")
            clicked = await computer.click(button, expect="text:Thanks")
            windows = x_windows(desktop.display)
            second = await computer.reset(turn="client-task-2")
            stale = await computer.call("click", observation_id=opened.observation.id, element_id=button.id)
            return first, opened, clicked, windows, second, stale, computer

    first, opened, clicked, windows, second, stale, computer = run(go())
    assert first.clean and first.turn == "client-task-1"
    assert opened.ok, opened.text
    assert clicked.ok and clicked.expect is not None and clicked.expect.result == "verified", clicked.text
    assert clicked.verdict.startswith("ok"), clicked.verdict
    assert clicked.timings.total >= clicked.timings.settle
    assert len(windows) == 1, windows
    assert second.clean and second.turn == "client-task-2"
    assert any(app.name == "chromium" for app in second.closed), second
    assert second.browser_profile == "replaced"
    assert second.clipboard == "empty"
    assert x_windows(desktop.display) == []
    assert not stale.ok, stale.text
    assert computer.turn == "client-task-2"


def test_a_bad_reset_is_refused_with_its_reason(desktop):
    async def go():
        async with Computer(desktop.url, desktop.token) as computer:
            await computer.reset(mode="robot")

    with pytest.raises(ValueError):
        run(go())

    async def raw():
        async with Computer(desktop.url, desktop.token) as computer:
            return await computer._service("POST", "/reset", {"mode": "robot"})

    status, answer = run(raw())
    assert status == 400 and "mode" in answer["error"], answer

    async def unauthorized():
        async with Computer(desktop.url, "not-the-token-of-this-desktop") as computer:
            await computer.reset()

    with pytest.raises(ServiceError) as refused:
        run(unauthorized())
    assert refused.value.status == 401

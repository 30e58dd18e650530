"""A harness's task set-up through the client (`put_file`, `run`, `get_file`) on a real sandbox
started with `--setup-endpoints`: what the commands see and write is read back from the desktop's
own files and X server, not from the client's answers alone."""

from __future__ import annotations

import asyncio
import os
import subprocess

import pytest

from handrail import Computer, LocalDesktop, ServiceError


@pytest.fixture(scope="module")
def harness_desktop(binary):
    with LocalDesktop(binary, args=["--setup-endpoints"]) as d:
        d.wait_ready(120)
        yield d


def test_files_in_a_command_inside_and_results_out(harness_desktop):
    d = harness_desktop

    async def go():
        async with Computer(d.url, d.token) as computer:
            await computer.reset(turn="setup-task-1")
            written = await computer.put_file("ข้อมูล/input.csv", "ชื่อ,คะแนน\nสมชาย,7\n")
            ran = await computer.run(["sh", "-c", "cut -d, -f2 ข้อมูล/input.csv | tail -n 1 > score.txt; echo $DISPLAY"])
            score = await computer.get_file("score.txt")
            with pytest.raises(ServiceError) as missing:
                await computer.get_file("nothing-here.txt")
            with pytest.raises(ServiceError) as outside:
                await computer.put_file("../outside.txt", b"x")
            slow = await computer.run(["sleep", "20"], timeout=0.3)
            return written, ran, score, missing.value, outside.value, slow

    written, ran, score, missing, outside, slow = asyncio.run(go())
    assert written.path.endswith("/ข้อมูล/input.csv"), written
    with open(written.path, encoding="utf-8") as f:
        assert f.read() == "ชื่อ,คะแนน\nสมชาย,7\n"
    assert ran.exit_code == 0 and ran.stdout.strip() == d.display, ran
    assert score == b"7\n"
    assert missing.status == 404, missing
    assert outside.status == 400, outside
    assert not os.path.exists(os.path.join(os.path.dirname(os.path.dirname(written.path)), "outside.txt"))
    assert slow.timed_out and slow.exit_code is None, slow


def test_an_app_left_running_is_on_screen_and_closed_by_the_next_reset(harness_desktop):
    d = harness_desktop
    probe = os.path.join(os.path.dirname(__file__), "..", "..", "testdata", "apps", "probe_gtk.py")

    async def go():
        async with Computer(d.url, d.token) as computer:
            await computer.reset(turn="setup-task-2")
            started = await computer.run(["/usr/bin/python3", probe, "--title", "Harness app"], wait=False)
            seen = None
            for _ in range(100):
                seen = await computer.see()
                if seen.observation.find("Change", role="button"):
                    break
                await asyncio.sleep(0.1)
            report = await computer.reset(turn="setup-task-3")
            return started, seen, report

    started, seen, report = asyncio.run(go())
    assert started.running and started.exit_code is None, started
    assert seen is not None and seen.observation.find("Change", role="button"), seen.text
    assert any(app.pid == started.pid for app in report.closed), report
    out = subprocess.run(["xprop", "-display", d.display, "-root", "_NET_CLIENT_LIST"], capture_output=True,
                         text=True, check=True).stdout
    assert "0x" not in out.split("#", 1)[-1], out

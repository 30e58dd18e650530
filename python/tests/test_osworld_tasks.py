"""handrail's own OSWorld tasks (python/handrail/osworld/tasks), each proven both ways on a real
handrail desktop: desktop-env (PyPI 1.0.2, unmodified) runs the task's set-up through the desktop's
OSWorld guest and its own evaluator scores the untouched desktop 0; the task's scripted solution
(handrail.osworld.solutions), acting only through the `computer` tool, makes it score 1. One
desktop serves every task, reset between them (the provider's revert_to_snapshot, POST /reset).

Run in the virtualenv scripts/setup-osworld makes, with the package from this tree (the task files
live beside its sources):
    HANDRAIL_BIN=target/debug/handrail PYTHONPATH=python /var/cache/handrail/osworld-venv/bin/python \\
        -m pytest python/tests/test_osworld_tasks.py
Each task's times (reset, set-up, scoring, solution) are printed at the end, and written as JSON to
$HANDRAIL_OSWORLD_TIMINGS when it is set. A task whose app is not installed is skipped.

$HANDRAIL_OSWORLD_TASKS chooses the tasks: `all` (the default), `sample` (the first task of each
domain, of handrail's own and of OSWorld's published ones: what the project's test suite runs),
`sample:DOMAIN+DOMAIN…` (the same, of those domains only), or task ids separated by commas.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import quick_harness_retries

from handrail import Computer
from handrail.local import find_binary

try:
    from handrail.osworld import register
    register()  # imports desktop-env through the shim: fails here when it is not installed
except ModuleNotFoundError as e:
    pytest.skip(f"desktop-env is not installed ({e}): run scripts/setup-osworld", allow_module_level=True)

from handrail.osworld import solutions, taskdata

ALL_TASK_PATHS = taskdata.task_paths()


def _chosen(paths: list[Path], choice: str) -> list[Path]:
    if choice == "all":
        return paths
    if choice == "sample" or choice.startswith("sample:"):
        # The first of each domain, of handrail's tasks and of OSWorld's published ones (of the domains
        # named after "sample:", joined by "+").
        wanted = None if choice == "sample" else set(choice.removeprefix("sample:").split("+"))
        firsts: dict[tuple[str, str], Path] = {}
        for path in paths:
            if wanted is None or path.parent.name in wanted:
                firsts.setdefault((path.parent.parent.name, path.parent.name), path)
        unknown = (wanted or set()) - {p.parent.name for p in paths}
        if unknown or not firsts:
            raise pytest.UsageError(f"HANDRAIL_OSWORLD_TASKS names no domain here: {', '.join(sorted(unknown)) or choice!r}")
        return list(firsts.values())
    ids = {i.strip() for i in choice.split(",") if i.strip()}
    chosen = [p for p in paths if p.stem in ids]
    unknown = ids - {p.stem for p in chosen}
    if unknown or not chosen:
        raise pytest.UsageError(f"HANDRAIL_OSWORLD_TASKS names no task here: {', '.join(sorted(unknown)) or choice!r}")
    return chosen


TASK_PATHS = _chosen(ALL_TASK_PATHS, os.environ.get("HANDRAIL_OSWORLD_TASKS", "all").strip() or "all")
SCREEN = (1280, 800)
# Saving happens after the keys that ask for it; the evaluator is asked again until then.
SAVE_GRACE_S = 15.0

# What each related app needs on this machine (tasks of apps that are missing are skipped).
APP_PACKAGES = {
    "libreoffice_calc": "libreoffice-calc",
    "libreoffice_writer": "libreoffice-writer",
    "libreoffice_impress": "libreoffice-impress",
    "chrome": "chromium",
    "gimp": "gimp",
    "vlc": "vlc",
    "thunderbird": "thunderbird",
}


def _installed(package: str) -> bool:
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f=${Status}", package], capture_output=True, text=True)
    except FileNotFoundError:
        return shutil.which(package) is not None
    return out.stdout.strip() == "install ok installed"


def _missing_apps(task: dict) -> list[str]:
    return [app for app in task.get("related_apps", []) if app in APP_PACKAGES and not _installed(APP_PACKAGES[app])]


def test_a_sample_holds_one_task_of_every_domain():
    sample = _chosen(ALL_TASK_PATHS, "sample")
    domains = {(p.parent.parent.name, p.parent.name) for p in ALL_TASK_PATHS}
    assert sorted((p.parent.parent.name, p.parent.name) for p in sample) == sorted(domains)
    part = _chosen(ALL_TASK_PATHS, "sample:vlc+gimp")
    assert {p.parent.name for p in part} == {"vlc", "gimp"}
    assert all(p in sample for p in part)
    with pytest.raises(pytest.UsageError):
        _chosen(ALL_TASK_PATHS, "sample:no_such_domain")
    assert any(p.parent.parent.name == "published" for p in sample)
    assert _chosen(ALL_TASK_PATHS, sample[0].stem) == [sample[0]]
    with pytest.raises(pytest.UsageError):
        _chosen(ALL_TASK_PATHS, "no-such-task")


def test_every_task_is_in_osworld_format_with_its_files_and_a_solution(tmp_path):
    assert len(ALL_TASK_PATHS) >= 3
    ids = set()
    taskdata.generate(tmp_path)
    for path in ALL_TASK_PATHS:
        task = taskdata.load(path)
        assert path.stem == task["id"], path
        # OSWorld's own tasks keep the snapshot they were published with (its VLC tasks name "chrome").
        assert path.parent.name == task["snapshot"] or taskdata.PUBLISHED_DIR in path.parents, path
        assert task["id"] not in ids
        ids.add(task["id"])
        for key in ("id", "snapshot", "instruction", "source", "config", "evaluator"):
            assert key in task, (path, key)
        evaluator = task["evaluator"]
        funcs = evaluator["func"] if isinstance(evaluator["func"], list) else [evaluator["func"]]
        from desktop_env.evaluators import getters, metrics
        for func in funcs:
            assert callable(getattr(metrics, func)), func
        results = evaluator["result"] if isinstance(evaluator["result"], list) else [evaluator["result"]]
        expected = evaluator.get("expected", [])
        expected = expected if isinstance(expected, list) else [expected]
        for getter in [*results, *[e for e in expected if e]]:
            assert getter["type"] != "cloud_file", (path, "no downloads")
            assert callable(getattr(getters, f"get_{getter['type']}")), getter
        for step in [*task["config"], *evaluator.get("postconfig", [])]:
            assert step["type"] != "download", (path, "no downloads")
        for local in taskdata.local_paths(task):
            assert not os.path.isabs(local) and (tmp_path / local).is_file(), (path, local)
        assert task["id"] in solutions.SOLUTIONS, f"no solution for {path}"
    assert not set(solutions.SOLUTIONS) - ids, "solutions of tasks that do not exist"


# ---- every task on a desktop ----------------------------------------------------------------------

TIMINGS: list[dict] = []


@pytest.fixture(scope="module")
def osworld(tmp_path_factory, request):
    """One DesktopEnv on a private handrail desktop of this machine, run from the folder holding the
    tasks' files (their `local_path`s are relative to it, as OSWorld's are to its checkout)."""
    root = tmp_path_factory.mktemp("osworld-tasks")
    taskdata.generate(root)
    binary = os.path.abspath(find_binary())  # before leaving the folder a relative $HANDRAIL_BIN names it in
    before = os.getcwd()
    os.chdir(root)
    register(binary=binary)
    from desktop_env.desktop_env import DesktopEnv
    started = time.monotonic()
    env = DesktopEnv(provider_name="handrail", action_space="pyautogui", screen_size=SCREEN,
                     require_a11y_tree=False, cache_dir=str(root / "cache"))
    env.started_s = time.monotonic() - started
    quick_harness_retries(env)
    env.reset_times = []
    reset = env.provider.reset

    def timed_reset():
        t0 = time.monotonic()
        report = reset()
        env.reset_times.append(time.monotonic() - t0)
        return report

    env.provider.reset = timed_reset
    try:
        yield env
    finally:
        env.close()
        os.chdir(before)
        plugins = request.config.pluginmanager
        capture = plugins.get_plugin("capturemanager")
        # Past pytest's output capture, so that the table shows without -s.
        with capture.global_and_fixture_disabled() if capture else contextlib.nullcontext():
            _report(env, plugins.get_plugin("terminalreporter"))


def _report(env, terminal) -> None:
    if not TIMINGS:
        return
    lines = [f"desktop started in {env.started_s:.1f} s",
             f"{'task':<58} {'reset':>6} {'set-up':>7} {'score0':>7} {'solve':>7} {'calls':>5} {'score1':>7}"]
    for t in TIMINGS:
        lines.append(f"{t['task']:<58} {t['reset_s']:>6.2f} {t['setup_s']:>7.2f} {t['score0_s']:>7.2f} "
                     f"{t['solve_s']:>7.2f} {t['calls']:>5} {t['score1_s']:>7.2f}")
    keys = ("reset_s", "setup_s", "score0_s", "solve_s", "score1_s")
    totals = {k: sum(t[k] for t in TIMINGS) for k in keys}
    lines.append(f"{'total (' + str(len(TIMINGS)) + ' tasks)':<58} " + " ".join(
        f"{totals[k]:>{w}.1f}" for k, w in zip(keys, (6, 7, 7, 7))) + f" {'':>5} {totals['score1_s']:>7.1f}")
    if terminal is not None:
        terminal.write_line("")
        for line in lines:
            terminal.write_line(line)
    else:
        print("\n" + "\n".join(lines), file=sys.stderr)
    if os.environ.get("HANDRAIL_OSWORLD_TIMINGS"):
        with open(os.environ["HANDRAIL_OSWORLD_TIMINGS"], "w") as f:
            json.dump({"desktop_start_s": env.started_s, "tasks": TIMINGS}, f, indent=1)


def _task_id(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


@pytest.mark.parametrize("path", TASK_PATHS, ids=_task_id)
def test_the_task_scores_0_untouched_and_1_after_its_solution_through_the_computer_tool(osworld, path):
    env = osworld
    task = taskdata.load(path)
    missing = _missing_apps(task)
    if missing:
        pytest.skip(f"not installed here: {', '.join(missing)}")

    resets = len(env.reset_times)
    t0 = time.monotonic()
    env.reset(task_config=task)
    took = time.monotonic() - t0
    reset_s = env.reset_times[-1] if len(env.reset_times) > resets else 0.0
    setup_s = took - reset_s

    t0 = time.monotonic()
    untouched = env.evaluate()
    score0_s = time.monotonic() - t0
    assert untouched == 0, f"the untouched desktop scores {untouched}"

    # What the solution did and what the tool answered, for the failure message: a solution that
    # ran to its end and still scores 0 is explained by these answers and the screen after them.
    transcript: list[str] = []

    async def run():
        async with Computer(env.provider.mcp_url, env.provider.token) as computer:
            computer.new_turn(task["id"], intent=task["instruction"])
            call = computer.call

            async def recorded(action, **args):
                result = await call(action, **args)
                shown = {k: v for k, v in args.items() if v is not None and k != "observation_id"}
                transcript.append(f"{action} {shown}: {result.tag} {result.text[:400]!r}")
                return result

            computer.call = recorded
            try:
                await solutions.solve(computer, task)
            finally:
                with contextlib.suppress(Exception):
                    after = (await call("see")).observation
                    # Terminals and the focused element first: their text is what a typing reached.
                    shown = sorted((e for e in after.elements if e.source != "ocr"),
                                   key=lambda e: (e.role != "terminal", "focused" not in e.states))
                    transcript.append(f"after it: window {after.window!r}, elements " + repr(
                        [f"{e.role} {e.label!r} {e.value!r} {e.states}"[:400] for e in shown][:60]))
            return computer.calls

    t0 = time.monotonic()
    try:
        calls = asyncio.run(run())
    finally:
        # The computer tool used the desktop (as desktop-env's step would): the next task reverts it.
        env.is_environment_used = True
    solve_s = time.monotonic() - t0

    t0 = time.monotonic()
    while True:
        score = env.evaluate()
        if score == 1 or time.monotonic() - t0 > SAVE_GRACE_S:
            break
        time.sleep(0.5)
    score1_s = time.monotonic() - t0
    TIMINGS.append({"task": _task_id(path), "reset_s": reset_s, "setup_s": setup_s, "score0_s": score0_s,
                    "solve_s": solve_s, "calls": calls, "score1_s": score1_s})
    assert score == 1, f"after the solution the task scores {score}; what it did:\n" + "\n".join(transcript[-12:])

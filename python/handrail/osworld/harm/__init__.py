"""Misbehaviour tasks in OSWorld's format, measured as OS-Harm measures agents on the same harness.

Each task (`<id>.json` here) asks for something benign — select a file, fill in a username, read a
status page — on a desktop its set-up prepares with things worth protecting: files the instruction
never mentions, a password field, an admin area behind credentials, a Delete account button, a
folder a terminal could wipe. Its `harm` field says what the scripted misbehaving agent
(`agents.py`) attempts there, and its evaluator (desktop-env's own getters and metrics) scores 1
when that harm did not happen: the files are still listed, the page server logged no password
keystroke, no credentials and no deletion. The evaluators also require what the set-up made (the
files, the page being loaded), so that a broken set-up cannot pass as harm avoided.

The web tasks serve their pages from inside the desktop (`site/serve.py`, started by the set-up on a
free loopback port) and open them in the browser; everything a page does that matters reaches that
server as a request, which it logs for the evaluator.

`local_path`s in the tasks are relative to this folder; `load()` makes them absolute, since
desktop-env reads them relative to the folder it runs in.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator, Union

HARM_DIR = Path(__file__).parent


def task_paths() -> list[Path]:
    return sorted(HARM_DIR.glob("*.json"))


def _steps(task: dict) -> Iterator[dict]:
    yield from task.get("config", [])
    yield from task.get("evaluator", {}).get("postconfig", [])


def load(which: Union[str, Path]) -> dict:
    """A task by id or path, with its upload steps' `local_path`s made absolute."""
    path = Path(which)
    if not path.suffix:
        path = HARM_DIR / f"{which}.json"
    with open(path, encoding="utf-8") as f:
        task = json.load(f)
    for step in _steps(task):
        if step.get("type") == "upload_file":
            for item in step["parameters"]["files"]:
                item["local_path"] = str(HARM_DIR / item["local_path"])
    return task


def tasks() -> list[dict]:
    return [load(p) for p in task_paths()]

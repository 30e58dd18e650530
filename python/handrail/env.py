"""A Gymnasium environment over one handrail desktop.

`reset()` returns the desktop to a clean state (`POST /reset`: every app closed, a fresh browser
profile, the clipboard empty, a new turn), lets the task set itself up (open its page or app) and
observes; `step(action)` is one `computer` call. The reward and the end of an episode come from the
task, never from the environment: a `Task` knows what success looks like on screen.

Observations are dicts:

- `screenshot`: the screen as a height x width x 3 `uint8` array (the picture the model sees);
- `elements`: the observation's elements as JSON dicts (`id`, `role`, `label`, `bounds`, `states`,
  `source`, and `value`, `app`, `window` when known), in the order the tool lists them;
- `text`: the text block the model reads (tag, evidence, timings, the `[OBS …]` listing);
- `observation_id`, `app`, `window`: the observation's id and what is in front.

Actions are the `computer` tool's arguments as a dict, e.g. `{"action": "click", "element_id": "e4"}`;
`observation_id` defaults to the newest observation. A refused or failed call is not an error of the
environment: its result is the step's outcome (`info["verdict"]`), and the task decides its reward.
"""

from __future__ import annotations

import time
from dataclasses import asdict
from typing import Any, Optional, Protocol, runtime_checkable

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ._loop import LoopThread
from .client import Computer, Mode
from .results import ComputerResult, Observation, ResetReport, screenshot_array

ACTIONS = ("see", "inspect", "click", "double_click", "triple_click", "right_click", "hover", "drag", "type",
           "key", "scroll", "open_app", "open_url")
PARAMETERS = ("action", "observation_id", "element_id", "target_text", "to_element_id", "to_target_text",
              "region", "text", "keys", "direction", "amount", "app", "url", "expect", "marks")


@runtime_checkable
class Task(Protocol):
    """What one kind of episode is: its words, how it starts, how it is scored and when it ends."""

    name: str
    intent: str
    mode: Mode

    async def setup(self, computer: Computer) -> None:
        """After the reset, before the first observation: open the task's page or app."""

    def reward(self, result: ComputerResult, observation: Observation) -> float:
        """The reward of the step that returned `result` (`observation` is the newest one)."""

    def terminated(self, result: ComputerResult, observation: Observation) -> bool:
        """Whether the episode reached its end (solved, failed for good, or refused as designed)."""


class ComputerActions(spaces.Space):
    """`computer` arguments: a dict with a known `action` and only the tool's parameter names."""

    def __init__(self, seed: Optional[int] = None):
        super().__init__(shape=None, dtype=None, seed=seed)

    def sample(self, mask: Any = None, probability: Any = None) -> dict:
        return {"action": "see"}

    def contains(self, x: Any) -> bool:
        return isinstance(x, dict) and x.get("action") in ACTIONS and all(k in PARAMETERS for k in x)

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "ComputerActions()"


class AnyValue(spaces.Space):
    """A value of a given Python type (element lists, text in any script), which Gymnasium's own spaces
    cannot describe."""

    def __init__(self, kind: type):
        super().__init__(shape=None, dtype=None)
        self.kind = kind

    def sample(self, mask: Any = None, probability: Any = None) -> Any:
        return self.kind()

    def contains(self, x: Any) -> bool:
        return isinstance(x, self.kind)

    def __repr__(self) -> str:
        return f"AnyValue({self.kind.__name__})"


class HandrailEnv(gym.Env):
    """One desktop, one task at a time. `computer` may be connected or not; the environment owns an
    event loop thread of its own for it. `max_steps` and `time_limit` (seconds) truncate an
    episode; `screen` is the screenshot size (width, height) the observation space declares. With
    `loop`, the client is driven on that event loop thread (the one it connected on) and stays open
    when the environment closes."""

    metadata = {"render_modes": ["rgb_array"]}

    def __init__(self, computer: Computer, task: Task, *, max_steps: int = 30, time_limit: float = 120.0,
                 screen: tuple[int, int] = (1280, 800), trace: bool = False, render_mode: Optional[str] = None,
                 loop: Optional[LoopThread] = None):
        self.computer = computer
        self.task = task
        self.max_steps = max_steps
        self.time_limit = time_limit
        self.trace = trace
        self.render_mode = render_mode
        width, height = screen
        self.observation_space = spaces.Dict({
            "screenshot": spaces.Box(0, 255, (height, width, 3), np.uint8),
            "elements": AnyValue(tuple),
            "text": AnyValue(str),
            "observation_id": AnyValue(str),
            "app": AnyValue(str),
            "window": AnyValue(str),
        })
        self.action_space = ComputerActions()
        # The client's connections belong to the loop they were made on: share the owner's, if any.
        self._own_loop = loop is None
        self._loop = loop or LoopThread()
        self._episode = 0
        self._steps = 0
        self._started = 0.0
        self._frame: Optional[np.ndarray] = None
        self.last_reset: Optional[ResetReport] = None

    def _observe(self, result: ComputerResult) -> dict:
        obs = result.observation or self.computer.latest
        if result.image is not None:
            self._frame = screenshot_array(result.image)
        if self._frame is None:
            height, width = self.observation_space["screenshot"].shape[:2]
            self._frame = np.zeros((height, width, 3), np.uint8)
        expected = self.observation_space["screenshot"].shape
        if self._frame.shape != expected:
            raise ValueError(f"the screenshot is {self._frame.shape}, the environment declares {expected}: "
                             "pass screen=(width, height) matching the desktop")
        return {
            "screenshot": self._frame,
            "elements": tuple(e.as_dict() for e in (obs.elements if obs else [])),
            "text": result.text,
            "observation_id": obs.id if obs else "",
            "app": (obs.app or "") if obs else "",
            "window": (obs.window or "") if obs else "",
        }

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        super().reset(seed=seed)
        options = options or {}
        self._episode += 1
        turn = options.get("turn") or f"{self.task.name}/{self._episode}"
        t0 = time.monotonic()

        async def start():
            report = await self.computer.reset(turn, self.task.intent, self.task.mode,
                                               trace=options.get("trace", self.trace))
            t_setup = time.monotonic()
            await self.task.setup(self.computer)
            setup_s = time.monotonic() - t_setup
            return report, setup_s, await self.computer.see()

        report, setup_s, result = self._loop.run(start())
        self.last_reset = report
        self._steps = 0
        self._frame = None
        self._started = time.monotonic()
        info = {"reset": report, "setup_s": setup_s, "reset_s": time.monotonic() - t0, "verdict": result.verdict,
                "result": result}
        return self._observe(result), info

    def step(self, action: dict):
        if not isinstance(action, dict) or "action" not in action:
            raise ValueError(f"an action is a dict of computer arguments with an `action`, got {action!r}")
        args = dict(action)
        name = args.pop("action")
        if "element_id" in args and "observation_id" not in args and self.computer.latest is not None:
            args["observation_id"] = self.computer.latest.id
        t0 = time.monotonic()
        result = self._loop.run(self.computer.call(name, **args))
        self._steps += 1
        obs = self._observe(result)
        latest = result.observation or self.computer.latest
        reward = float(self.task.reward(result, latest)) if latest is not None else 0.0
        terminated = bool(latest is not None and self.task.terminated(result, latest))
        truncated = not terminated and (self._steps >= self.max_steps
                                        or time.monotonic() - self._started >= self.time_limit)
        info = {
            "verdict": result.verdict,
            "status": result.status,
            "reason": result.reason,
            "message": result.message,
            "timings_ms": asdict(result.timings),
            "step_s": time.monotonic() - t0,
            "result": result,
        }
        return obs, reward, terminated, truncated, info

    def render(self):
        return self._frame

    def close(self):
        if self._own_loop:
            try:
                self._loop.run(self.computer.close(), timeout=30)
            finally:
                self._loop.close()
        super().close()

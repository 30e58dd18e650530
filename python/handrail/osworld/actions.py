"""handrail's `computer` tool as an OSWorld action space.

OSWorld's agents act by sending pyautogui code to the guest's `/execute`: X input from inside the
desktop, which nothing judges and nothing verifies. `GuardedEnv` lets an agent act on the same desktop
through the `computer` tool instead, while desktop-env still sets each task up and scores it:

    from handrail.osworld import register
    from handrail.osworld.actions import GuardedEnv
    register()
    from desktop_env.desktop_env import DesktopEnv
    env = GuardedEnv(DesktopEnv(provider_name="handrail", require_a11y_tree=False))
    obs = env.reset(task)                   # desktop-env's reset and set-up, a new turn, `see`
    obs, reward, done, info = env.step({"action": "click", "element": "e12", "expect": "text:Saved"})
    info["status"], info["guard"]           # "refused", {"decision": "refused", "rule": "destructive_target"}
    obs, reward, done, info = env.step("DONE")
    print(env.evaluate())                   # desktop-env's evaluator
    env.close(); env.env.close()

Each task is one turn of the tool: its id comes from the task's id, its intent is the task's
instruction — the user's words, against which the guards judge destructive targets — and it is
unattended by default, since nobody watches an evaluation: destructive targets are then refused
whatever the instruction says (`mode=Mode.INTERACTIVE` lets an instruction that asks for a removal
back it).

Actions are `computer` calls as dicts (`element` and `observation` are accepted for `element_id`
and `observation_id`; `observation_id` defaults to the newest observation), or OSWorld's special
actions with desktop-env's meaning: `"WAIT"` sleeps `pause` seconds and observes again, `"DONE"` and
`"FAIL"` end the episode (`info` holds `done` or `fail`), and a last `"FAIL"` makes `evaluate()`
score 0, or 1 for a task whose evaluator is `infeasible`. Every action goes into desktop-env's
`action_history`, where its evaluator looks for that `"FAIL"`.

Observations are dicts: `screenshot` (the image bytes the tool returned), `text` (what a model reads:
the result's tag, evidence, timings and the `[OBS …]` listing of element ids), `observation_id`,
`elements` (as JSON dicts), `app`, `window` and `instruction`. A call that returns no new observation
(a refusal) leaves the newest one in place, with the refusal as `text`.
"""

from __future__ import annotations

import time
from dataclasses import asdict
from typing import Any, Optional, Union

from .._loop import LoopThread
from ..client import Computer, Mode
from ..results import ComputerResult, Observation
from .provider import HandrailProvider

SPECIAL = ("WAIT", "FAIL", "DONE")
# Shorter names an agent may use for the tool's parameters.
ALIASES = {"element": "element_id", "observation": "observation_id", "to_element": "to_element_id"}
# desktop-env's default `pause`, which its WAIT sleeps.
DEFAULT_PAUSE = 2.0

Action = Union[str, dict]


def special_action(action: Action) -> Optional[str]:
    """`"WAIT"`, `"FAIL"` or `"DONE"` when `action` is one of OSWorld's special actions (as a string, or
    a dict with it as `action_type` or `action`), else None."""
    if isinstance(action, str):
        name = action.strip().upper()
        return name if name in SPECIAL else None
    if isinstance(action, dict):
        name = action.get("action_type", action.get("action"))
        if isinstance(name, str) and name.upper() in SPECIAL:
            return name.upper()
    return None


def computer_arguments(action: dict) -> dict:
    """The `computer` tool's arguments for an action dict: aliases renamed, `None` values left out."""
    args: dict = {}
    for key, value in action.items():
        name = ALIASES.get(key, key)
        if name in args and args[name] != value:
            raise ValueError(f"the action names {name} twice: {action!r}")
        if value is not None:
            args[name] = value
    if not isinstance(args.get("action"), str):
        raise ValueError(f"a computer action is a dict with an `action` (see, click, type, key, …), got {action!r}")
    return args


class GuardedEnv:
    """An OSWorld `DesktopEnv` on a handrail desktop, acted on through the `computer` tool.

    `env` must have been made with `provider_name="handrail"` (`handrail.osworld.register()`); it
    stays the caller's (`env.close()` stops the desktop). `mode` is each task's turn mode, `pause`
    what a `"WAIT"` sleeps, `timeout` the longest a single call may take (seconds).
    """

    def __init__(self, env: Any, *, mode: Mode = Mode.UNATTENDED, pause: float = DEFAULT_PAUSE,
                 timeout: float = 180.0):
        if not isinstance(getattr(env, "provider", None), HandrailProvider):
            raise TypeError("GuardedEnv needs a DesktopEnv made with provider_name=\"handrail\" "
                            "(call handrail.osworld.register() first)")
        self.env = env
        self.mode = Mode(mode)
        self.pause = pause
        self.timeout = timeout
        self.computer: Optional[Computer] = None
        self.turn: Optional[str] = None
        self.episodes = 0
        self.last_result: Optional[ComputerResult] = None
        self.reset_info: dict = {}
        self._screenshot: Optional[bytes] = None
        self._loop = LoopThread("handrail-osworld")

    # ---- the desktop's tool ----------------------------------------------------------------------

    def _run(self, coro: Any) -> Any:
        return self._loop.run(coro, self.timeout)

    def _client(self) -> Computer:
        """The MCP client of the provider's current desktop. The provider starts another desktop when
        its own died, under another URL: the client follows it."""
        provider: HandrailProvider = self.env.provider
        url, token = provider.mcp_url, provider.token
        if url is None:
            raise RuntimeError("the handrail desktop is not started")
        if self.computer is not None and (self.computer.url, self.computer.token) != (url, token):
            self._run(self.computer.close())
            self.computer = None
        if self.computer is None:
            self.computer = Computer(url, token, timeout=self.timeout)
            self._run(self.computer.connect())
        return self.computer

    def _call(self, action: str, **args: Any) -> ComputerResult:
        result = self._run(self._client().call(action, **args))
        self.last_result = result
        if result.image is not None:
            self._screenshot = result.image
        return result

    @property
    def latest(self) -> Optional[Observation]:
        """The newest observation of this task's turn."""
        return self.computer.latest if self.computer is not None else None

    def observation(self, result: Optional[ComputerResult] = None) -> dict:
        """The agent's observation after `result` (by default the last call's)."""
        result = result or self.last_result
        obs = self.latest
        return {
            "screenshot": self._screenshot,
            "text": result.text if result is not None else "",
            "observation_id": obs.id if obs else None,
            "elements": tuple(e.as_dict() for e in obs.elements) if obs else (),
            "app": obs.app if obs else None,
            "window": obs.window if obs else None,
            "instruction": self.env.instruction,
        }

    # ---- the episode ------------------------------------------------------------------------------

    def reset(self, task_config: dict, *, seed: Optional[int] = None, options: Optional[dict] = None) -> dict:
        """desktop-env's reset (the provider's `POST /reset` once the desktop was used, then the task's
        set-up), a new turn for the task and a first `see`."""
        if not task_config or "instruction" not in task_config:
            raise ValueError("GuardedEnv.reset needs an OSWorld task: its instruction is the turn's intent")
        started = time.monotonic()
        self.env.reset(task_config=task_config, seed=seed, options=options)
        set_up = time.monotonic()
        self.episodes += 1
        # The episode number keeps a task run twice from continuing its last turn.
        self.turn = f"{task_config['id']}#{self.episodes}"
        self._screenshot = None
        self._client().new_turn(self.turn, intent=self.env.instruction, mode=self.mode)
        result = self._call("see")
        self.reset_info = {"turn": self.turn, "intent": self.env.instruction, "mode": self.mode.value,
                           "env_reset_s": set_up - started, "see_s": time.monotonic() - set_up,
                           **self._outcome(result)}
        return self.observation(result)

    def step(self, action: Action, pause: Optional[float] = None) -> tuple[dict, float, bool, dict]:
        """One action: a `computer` call, or `"WAIT"`, `"FAIL"`, `"DONE"`. The reward is 0 as
        desktop-env's (the score comes from `evaluate()`); `done` is set by DONE and FAIL only."""
        if self.turn is None:
            raise RuntimeError("reset(task_config) first")
        special = special_action(action)
        if special is None:
            if not isinstance(action, dict):
                raise ValueError(f"an action is a computer call (a dict with `action`) or one of "
                                 f"{', '.join(SPECIAL)}; got {action!r} (pyautogui code goes to DesktopEnv.step)")
            args = computer_arguments(action)
            if "element_id" in args and "observation_id" not in args and self.latest is not None:
                args["observation_id"] = self.latest.id
        # As desktop-env's own step does, so that its evaluator and its next reset see this action.
        env = self.env
        env._step_no += 1
        env.action_history.append(special or dict(args))
        env.is_environment_used = True

        started = time.monotonic()
        done = False
        if special == "WAIT":
            time.sleep(self.pause if pause is None else pause)
            info = self._outcome(self._call("see"))
        elif special in ("FAIL", "DONE"):
            done, info = True, {special.lower(): True}
        else:
            call = dict(args)
            info = self._outcome(self._call(call.pop("action"), **call))
        info["step_s"] = time.monotonic() - started
        info["action"] = special or args
        return self.observation(), 0.0, done, info

    def evaluate(self) -> float:
        """desktop-env's evaluator for the task (its postconfig, getters and metrics)."""
        return self.env.evaluate()

    @staticmethod
    def _outcome(result: ComputerResult) -> dict:
        return {
            "status": result.status,
            "verdict": result.verdict,
            "guard": dict(result.guard),
            "reason": result.reason,
            "message": result.message,
            "expect": asdict(result.expect) if result.expect is not None else None,
            "timings_ms": asdict(result.timings),
            "observation_id": result.observation.id if result.observation else result.latest_observation,
            "result": result,
        }

    # ---- lifetime ---------------------------------------------------------------------------------

    def close(self) -> None:
        """Closes the MCP session (the desktop is the DesktopEnv's: `env.close()` stops it)."""
        try:
            if self.computer is not None:
                self._run(self.computer.close())
                self.computer = None
        finally:
            self._loop.close()

    def __enter__(self) -> "GuardedEnv":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

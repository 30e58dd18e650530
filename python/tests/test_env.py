"""The Gymnasium environment over a real desktop: a task that opens a page with a button, rewards
the press it sees on screen, and ends the episode there."""

from __future__ import annotations

import numpy as np
import pytest

from handrail import Computer, Mode
from handrail.env import HandrailEnv


class ButtonTask:
    name = "button"
    intent = "press Finish on the page"
    mode = Mode.INTERACTIVE

    def __init__(self, url: str):
        self.url = url

    async def setup(self, computer: Computer) -> None:
        opened = await computer.open_url(self.url, expect="text:Finish")
        assert opened.ok, opened.text

    @staticmethod
    def _done(observation) -> bool:
        return any(e.label == "Thanks" for e in observation.elements)

    def reward(self, result, observation) -> float:
        return 1.0 if self._done(observation) else 0.0

    def terminated(self, result, observation) -> bool:
        return self._done(observation)


@pytest.fixture
def env(desktop, pages):
    environment = HandrailEnv(Computer(desktop.url, desktop.token), ButtonTask(pages + "/button.html"),
                              max_steps=3, screen=(1280, 800))
    yield environment
    environment.close()


def test_an_episode_is_rewarded_by_what_the_task_sees(env):
    obs, info = env.reset(seed=1)
    assert env.observation_space["screenshot"].contains(obs["screenshot"])
    assert obs["screenshot"].dtype == np.uint8 and obs["screenshot"].std() > 0
    assert info["reset"].clean
    labels = {e["label"]: e for e in obs["elements"]}
    assert "Finish" in labels, sorted(labels)
    assert obs["observation_id"].startswith("obs_")

    action = {"action": "click", "element_id": labels["Finish"]["id"], "expect": "text:Thanks"}
    assert env.action_space.contains(action)
    obs, reward, terminated, truncated, info = env.step(action)
    assert (reward, terminated, truncated) == (1.0, True, False), info["message"]
    assert info["verdict"].startswith("ok"), info
    assert info["timings_ms"]["total"] >= info["timings_ms"]["settle"]
    assert any(e["label"] == "Thanks" for e in obs["elements"])
    assert np.array_equal(env.render(), obs["screenshot"])


def test_an_episode_is_truncated_after_its_steps_and_the_next_starts_clean(env):
    env.reset()
    for step in range(3):
        _, reward, terminated, truncated, info = env.step({"action": "see"})
        assert (reward, terminated) == (0.0, False)
        assert truncated == (step == 2), info
    obs, info = env.reset()
    assert info["reset"].clean
    assert info["reset"].turn == "button/2"
    assert any(app.name == "chromium" for app in info["reset"].closed)
    assert not any(e["label"] == "Thanks" for e in obs["elements"])


def test_a_refused_action_is_an_outcome_not_an_error(env):
    env.reset()
    _, reward, terminated, truncated, info = env.step({"action": "click", "element_id": "e999"})
    assert info["status"] != "ok" and info["verdict"], info
    assert (reward, terminated, truncated) == (0.0, False, False)
    with pytest.raises(ValueError):
        env.step({"element_id": "e1"})

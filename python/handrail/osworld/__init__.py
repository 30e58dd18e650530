"""OSWorld (PyPI `desktop-env`) on handrail desktops.

    from handrail.osworld import register
    register()
    from desktop_env.desktop_env import DesktopEnv
    env = DesktopEnv(provider_name="handrail", action_space="pyautogui", require_a11y_tree=True)
    obs = env.reset(task_config=task)       # the task's set-up through the desktop's OSWorld guest
    obs, reward, done, info = env.step("pyautogui.click(200, 300)")
    print(env.evaluate())
    env.close()

The desktop serves OSWorld's guest API itself (`handrail serve --osworld-guest`); this package is
desktop-env's provider for it (`provider`), the patches that let an unmodified desktop-env 1.0.2 use
it (`patch`, `auth`) and stand-ins for heavy packages its unused metrics import (`shim`).
`actions.GuardedEnv` lets an agent act through the `computer` tool, with its guards, instead of
pyautogui; `harm` holds misbehaviour tasks that measure what those guards stop.
scripts/setup-osworld makes a virtualenv with desktop-env and what it needs.
"""

from .patch import register, settings
from .provider import PROVIDER_NAME, HandrailProvider, HandrailVMManager, Settings

__all__ = ["PROVIDER_NAME", "HandrailProvider", "HandrailVMManager", "Settings", "register", "settings"]

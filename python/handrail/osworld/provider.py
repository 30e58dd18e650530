"""desktop-env's `handrail` provider: OSWorld's tasks on a handrail desktop instead of a VM.

A handrail desktop serves OSWorld's guest API itself (`handrail serve --osworld-guest`), so the
provider has no VM to boot and no snapshot to load: `start_emulator` starts a private desktop on
this machine (or checks a running desktop service), `get_ip_address` names its guest, and
`revert_to_snapshot` is the desktop service's `POST /reset` — the same desktop, cleaned, in well
under a second.

    from handrail.osworld import register
    register()                                   # `handrail serve --sandbox` here ($HANDRAIL_BIN)
    register(url="http://host:8765/mcp", token=T, guest="http://host:8766")   # a running desktop
    env = DesktopEnv(provider_name="handrail", action_space="pyautogui")
"""

from __future__ import annotations

import atexit
import os
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence
from urllib.parse import urlsplit

import requests
from desktop_env.providers.base import Provider, VMManager

from ..client import service_base
from ..local import LocalDesktop
from . import auth, image

PROVIDER_NAME = "handrail"

# desktop-env reads `ip:server_port:chromium_port:vnc_port:vlc_port` (the docker provider's form).
# A sandbox shares the machine's loopback, so Chrome's and VLC's ports are OSWorld's own.
CHROMIUM_PORT, VNC_PORT, VLC_PORT = 9222, 8006, 8080

_SIZE = re.compile(r"(\d+)x(\d+)$")


@dataclass
class Settings:
    """What `register()` was told: a desktop service (`url`, `token`, `guest`) or, without `url`, how
    to start a local one."""

    url: Optional[str] = None
    token: Optional[str] = None
    guest: Optional[str] = None
    binary: Optional[str] = None
    osworld_bin: Optional[str] = None
    serve_args: Sequence[str] = ()
    startup_timeout: float = 60.0
    ready_timeout: float = 120.0
    trace: bool = False  # ask each reset for a task trace (`serve --task-traces DIR`)


def default_osworld_bin() -> Optional[str]:
    """The folder whose `python` has pyautogui and which holds `google-chrome`: `$HANDRAIL_OSWORLD_BIN`,
    else the bin folder of the virtualenv this runs in (scripts/setup-osworld puts both there)."""
    if os.environ.get("HANDRAIL_OSWORLD_BIN"):
        return os.environ["HANDRAIL_OSWORLD_BIN"]
    if sys.prefix != sys.base_prefix:
        return str(Path(sys.prefix) / "bin")
    return None


class HandrailVMManager(VMManager):
    """No VM files: the "path" of a desktop is a name desktop-env passes back to the provider, carrying
    the screen size it asked for (`handrail:1920x1080`) or the desktop service's URL."""

    def __init__(self, settings: Settings):
        self.settings = settings

    def initialize_registry(self, **kwargs):
        pass

    def add_vm(self, vm_path, **kwargs):
        pass

    def delete_vm(self, vm_path, **kwargs):
        pass

    def occupy_vm(self, vm_path, pid, **kwargs):
        pass

    def list_free_vms(self, **kwargs):
        return []

    def check_and_clean(self, **kwargs):
        pass

    def get_vm_path(self, os_type: str = "Ubuntu", region=None, screen_size=(1920, 1080), **kwargs) -> str:
        if os_type not in ("Ubuntu", "Linux"):
            raise ValueError(f"handrail desktops are Linux desktops, not {os_type}")
        if self.settings.url:
            return self.settings.url
        width, height = screen_size
        return f"{PROVIDER_NAME}:{int(width)}x{int(height)}"


class HandrailProvider(Provider):
    def __init__(self, settings: Settings, region: Optional[str] = None):
        super().__init__(region)
        self.settings = settings
        self.desktop: Optional[LocalDesktop] = None
        self.base: Optional[str] = None    # the desktop service: http://host:port
        self.token: Optional[str] = None
        self.guest: Optional[str] = None   # the OSWorld guest: http://host:port
        self.resets = 0

    # ---- desktop-env's interface ---------------------------------------------------------------

    def start_emulator(self, path_to_vm: str, headless: bool = True, os_type: str = "Ubuntu"):
        """Starts the desktop, or nothing when it is up: desktop-env calls this again after every
        revert. A desktop service that was running already is reset once first, because desktop-env
        treats this provider's first task as starting clean."""
        if self.guest is not None:
            if self.desktop is None or self.desktop.proc.poll() is None:
                return
            self.stop_emulator(path_to_vm)  # the local desktop died: start another
        if self.settings.url:
            self._connect()
            self._wait_for_guest()
            self.reset()  # and the home seeded
        else:
            self._start_local(path_to_vm)
            self._wait_for_guest()
            self.seed_home()

    def get_ip_address(self, path_to_vm: str) -> str:
        if self.guest is None:
            raise RuntimeError("the handrail desktop is not started")
        parts = urlsplit(self.guest)
        return f"{parts.hostname}:{parts.port}:{CHROMIUM_PORT}:{VNC_PORT}:{VLC_PORT}"

    def save_state(self, path_to_vm: str, snapshot_name: str):
        raise NotImplementedError("handrail desktops keep no snapshots: revert_to_snapshot resets the desktop "
                                  "to its clean start")

    def revert_to_snapshot(self, path_to_vm: str, snapshot_name: str) -> str:
        self.reset()
        return path_to_vm  # the same desktop: desktop-env keeps its registration

    def stop_emulator(self, path_to_vm: str = "", region=None, *args, **kwargs):
        if self.guest is not None:
            auth.forget(self.guest)
        if self.desktop is not None:
            atexit.unregister(self.desktop.stop)
            self.desktop.stop()
            self.desktop = None
        self.guest = None

    # ---- handrail ------------------------------------------------------------------------------

    def reset(self) -> dict:
        """`POST /reset` on the desktop service: apps closed, clipboard emptied, files the last task left in
        the home removed; then the home seeded as OSWorld's image has it."""
        body = {"intent": "", "mode": "interactive", "trace": self.settings.trace}
        started = time.monotonic()
        response = requests.post(self.base + "/reset", json=body, headers=self._auth(), timeout=120)
        try:
            report = response.json()
        except ValueError:
            report = {"error": response.text}
        if response.status_code != 200 or not report.get("clean"):
            raise RuntimeError(f"the handrail desktop did not reset cleanly (HTTP {response.status_code}): {report}")
        self.resets += 1
        if self.guest is not None:
            self.seed_home()
        report.setdefault("seconds", time.monotonic() - started)
        return report

    def seed_home(self) -> None:
        """Writes into the desktop's home what OSWorld's image holds there before any task
        (`image.HOME_FILES`), through the guest's own upload."""
        for path, content in image.HOME_FILES.items():
            response = requests.post(self.guest + "/setup/upload", data={"file_path": f"/home/user/{path}"},
                                     files={"file_data": (Path(path).name, content.encode())}, timeout=30)
            if response.status_code != 200:
                raise RuntimeError(f"writing ~/{path} as OSWorld's image has it failed "
                                   f"(HTTP {response.status_code}): {response.text[:200]}")

    @property
    def mcp_url(self) -> Optional[str]:
        """The desktop's MCP endpoint, for `handrail.Computer`."""
        return self.settings.url or (self.desktop.url if self.desktop else None)

    def _auth(self) -> dict:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    def _connect(self) -> None:
        s = self.settings
        if not s.guest:
            raise ValueError("a desktop service needs its OSWorld guest's URL too (register(guest=...))")
        self.base, self.token, self.guest = service_base(s.url), s.token, s.guest.rstrip("/")
        self._authorize()

    def _start_local(self, path_to_vm: str) -> None:
        s = self.settings
        args = ["--osworld-guest", "127.0.0.1:0"]
        osworld_bin = s.osworld_bin or default_osworld_bin()
        if osworld_bin:
            args += ["--osworld-bin", osworld_bin]
        if m := _SIZE.search(path_to_vm or ""):
            args += ["--size", f"{m.group(1)}x{m.group(2)}"]
        self.desktop = LocalDesktop(s.binary, args=[*args, *s.serve_args], startup_timeout=s.startup_timeout)
        # A harness that forgets close() must not leave a desktop behind.
        atexit.register(self.desktop.stop)
        self.desktop.wait_ready(s.ready_timeout)
        self.base, self.token, self.guest = self.desktop.base, self.desktop.token, self.desktop.osworld_guest
        self._authorize()

    def _authorize(self) -> None:
        parts = urlsplit(self.guest)
        if parts.scheme != "http" or not parts.port:
            # desktop-env builds the guest's URLs itself, as http://{ip}:{port}
            raise ValueError(f"the OSWorld guest must be http://host:port, not {self.guest}")
        if self.token:
            auth.authorize(self.guest, self.token)

    def _wait_for_guest(self) -> None:
        """The guest answers once the desktop is up; this only turns a broken set-up into a clear error."""
        deadline = time.monotonic() + self.settings.ready_timeout
        while True:
            try:
                response = requests.get(self.guest + "/platform", timeout=10)
                if response.status_code == 200:
                    return
                why = f"HTTP {response.status_code}: {response.text[:200]}"
            except requests.RequestException as e:
                why = str(e)
            if time.monotonic() > deadline:
                raise TimeoutError(f"the OSWorld guest at {self.guest} did not answer: {why}")
            time.sleep(0.1)

"""OSWorld's harness (PyPI desktop-env 1.0.2, unmodified) on handrail desktops: the patches that
register the `handrail` provider, the stand-ins for desktop-env's heavy imports, and whole tasks —
set up by desktop-env through the desktop's OSWorld guest, solved through the `computer` tool or
through pyautogui `step`s, and scored by desktop-env's own getters and metrics. The patches' own
tests talk to small recording HTTP servers standing in for a desktop service and its guest, to see
which requests carry which token; the tasks run on real private desktops.

These run in the virtualenv scripts/setup-osworld makes (desktop-env is not in the test tools'):
    HANDRAIL_BIN=target/debug/handrail PYTHONPATH=python \\
        /var/cache/handrail/osworld-venv/bin/python -m pytest python/tests/test_osworld.py
"""

from __future__ import annotations

import asyncio
import http.server
import importlib.util
import json
import threading
import time

import pytest
from conftest import quick_harness_retries, wait_for
import requests

from handrail import Computer
from handrail.osworld import auth, register, shim
from handrail.osworld.provider import HandrailProvider, HandrailVMManager, Settings

PNG = b"\x89PNG\r\n\x1a\n"


class _Recorder(http.server.BaseHTTPRequestHandler):
    """Records every request; answers as a handrail desktop's service and guest would."""

    def _answer(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        self.server.seen.append((self.command, self.path, dict(self.headers), body))
        if self.path == "/redirect":
            self.send_response(302)
            self.send_header("Location", self.server.redirect_to)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if self.path == "/reset":
            data, kind = json.dumps({"clean": True, "turn": "t", "duration_ms": 3}).encode(), "application/json"
        elif self.path == "/screenshot":
            data, kind = PNG + b"rest", "image/png"
        elif self.path == "/platform":
            data, kind = b"Linux", "text/plain"
        else:
            data, kind = b"{}", "application/json"
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = _answer

    def log_message(self, *args):
        pass


class Recorder:
    def __init__(self):
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
        self.server.seen = []
        self.server.redirect_to = ""
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def seen(self):
        return self.server.seen

    def authorization(self, path):
        return [h.get("Authorization") for _, p, h, _ in self.seen if p == path]

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def recorders():
    made = [Recorder() for _ in range(3)]
    yield made
    for r in made:
        auth.forget(r.base)
        r.close()


@pytest.fixture(scope="module")
def desktop_env_module():
    """desktop-env's DesktopEnv module, imported through `register()`."""
    register()
    import desktop_env.desktop_env as module
    return module


# ---- the patches ---------------------------------------------------------------------------------

def test_the_provider_factory_answers_handrail_and_hands_every_other_name_to_desktop_env(desktop_env_module):
    import desktop_env.providers as providers

    factory = providers.create_vm_manager_and_provider
    assert desktop_env_module.create_vm_manager_and_provider is factory
    manager, provider = factory(" Handrail ", None)
    assert isinstance(manager, HandrailVMManager) and isinstance(provider, HandrailProvider)
    assert factory.__wrapped__.__module__ == "desktop_env.providers"
    with pytest.raises(NotImplementedError, match="vmware-typo not implemented"):
        factory("vmware-typo", None)
    # The docker provider is desktop-env's own: it imports the Docker SDK, which this venv lacks.
    with pytest.raises(ModuleNotFoundError, match="docker"):
        factory("docker", None)


def test_registering_twice_patches_once(desktop_env_module):
    import desktop_env.providers as providers

    original = providers.create_vm_manager_and_provider.__wrapped__
    register()
    assert providers.create_vm_manager_and_provider.__wrapped__ is original
    consts = desktop_env_module.DesktopEnv.__init__.__code__.co_consts
    clean = [c for c in consts if isinstance(c, frozenset) and "handrail" in c]
    assert clean == [frozenset({"docker", "aws", "gcp", "azure", "aliyun", "volcengine", "handrail"})], consts
    assert auth.installed()


def test_desktop_env_accepts_handrail_as_a_clean_start_and_rejects_unknown_names(desktop_env_module, recorders,
                                                                              tmp_path):
    service, guest, _ = recorders
    for incomplete in ({"guest": guest.base}, {"token": "service-token"}):
        with pytest.raises(ValueError):
            register(url=service.base + "/mcp", **incomplete)
    register(url=service.base + "/mcp", token="service-token", guest=guest.base)
    try:
        env = desktop_env_module.DesktopEnv(provider_name="handrail", cache_dir=str(tmp_path))
        assert env.is_environment_used is False  # the first reset runs the task's set-up at once
        assert env.path_to_vm == service.base + "/mcp"
        assert (env.vm_ip, env.server_port, env.chromium_port, env.vnc_port, env.vlc_port) == (
            "127.0.0.1", guest.server.server_address[1], 9222, 8006, 8080)
        assert env.controller.http_server == guest.base
        # A running desktop service is reset when desktop-env starts on it, with the service's token.
        assert service.authorization("/reset") == ["Bearer service-token"]
        assert guest.authorization("/platform") == ["Bearer service-token"]
        env.close()
        with pytest.raises(NotImplementedError):
            desktop_env_module.DesktopEnv(provider_name="nonexistent", cache_dir=str(tmp_path))
    finally:
        register()


def test_the_bearer_token_goes_only_to_the_registered_guest(desktop_env_module, recorders, tmp_path):
    from desktop_env.controllers.python import PythonController
    from desktop_env.controllers.setup import SetupController

    guest, other, _ = recorders
    auth.authorize(guest.base, "guest-token")
    port = guest.server.server_address[1]

    # desktop-env's own calls: module-level requests.get and a multipart upload.
    assert PythonController("127.0.0.1", port).get_screenshot().startswith(PNG)
    upload = tmp_path / "a.txt"
    upload.write_text("hello")
    SetupController("127.0.0.1", port, cache_dir=str(tmp_path))._upload_file_setup(
        [{"local_path": str(upload), "path": "/home/user/a.txt"}])
    assert guest.authorization("/screenshot") == ["Bearer guest-token"]
    assert guest.authorization("/setup/upload") == ["Bearer guest-token"]
    assert b"hello" in next(body for _, p, _, body in guest.seen if p == "/setup/upload")

    # Another port, the same port under another host name, and a redirect away from the guest.
    requests.get(other.base + "/screenshot", timeout=5)
    requests.get(f"http://localhost:{port}/screenshot", timeout=5)
    guest.server.redirect_to = other.base + "/landing"
    requests.get(guest.base + "/redirect", timeout=5)
    assert other.authorization("/screenshot") == [None]
    assert other.authorization("/landing") == [None]
    assert guest.authorization("/redirect") == ["Bearer guest-token"]
    assert guest.authorization("/screenshot")[-1] is None  # the localhost request

    assert auth.token_for(guest.base) == "guest-token"
    assert auth.token_for(f"{guest.base}/setup/launch?x=1") == "guest-token"
    for url in (f"http://127.0.0.1:{port}0/screenshot", f"https://127.0.0.1:{port}/screenshot",
                f"http://127.0.0.1:{port}@evil.example/screenshot", "http://127.0.0.1:notaport/", "file:///etc"):
        assert auth.token_for(url) is None, url
    auth.forget(guest.base)
    requests.get(guest.base + "/platform", timeout=5)
    assert guest.authorization("/platform") == [None]


def test_the_provider_names_its_guest_as_desktop_env_reads_it_and_keeps_no_snapshots():
    manager = HandrailVMManager(Settings())
    assert manager.get_vm_path(os_type="Ubuntu", region=None, screen_size=(1920, 1080)) == "handrail:1920x1080"
    with pytest.raises(ValueError):
        manager.get_vm_path(os_type="Windows", region=None, screen_size=(1920, 1080))
    provider = HandrailProvider(Settings())
    provider.guest = "http://127.0.0.1:40123"
    assert provider.get_ip_address("handrail:1920x1080") == "127.0.0.1:40123:9222:8006:8080"
    with pytest.raises(NotImplementedError):
        provider.save_state("handrail:1920x1080", "init_state")


# ---- the stand-ins -------------------------------------------------------------------------------

def test_heavy_imports_are_stood_in_for_desktop_env_alone_and_raise_when_called(desktop_env_module):
    import sys

    from desktop_env.controllers import setup
    from desktop_env.evaluators.metrics import chrome, docs, general, gimp, pdf, table, vlc

    bound = {"easyocr": docs.easyocr, "librosa": vlc.librosa, "cv2": gimp.cv2, "fitz": pdf.fitz,
             "skimage": sys.modules["desktop_env.evaluators.metrics.docs"].rgb2lab,
             "playwright": setup.sync_playwright, "pydrive": setup.GoogleAuth}
    assert set(bound) == set(shim.STUBBED)
    for name, thing in bound.items():
        stand_in = shim.stood_in(thing) or isinstance(thing, shim._MissingMeta)
        assert stand_in == (importlib.util.find_spec(name) is None), (name, thing)
    with pytest.raises(ModuleNotFoundError) as called:
        docs.easyocr.Reader(["en"])
    assert called.value.name == "easyocr" and "compare_image_text" in str(called.value)
    with pytest.raises(ModuleNotFoundError, match="scikit-image"):
        docs.rgb2lab([[0, 0, 0]])
    # A placeholder exception class in an `except` clause matches nothing.
    with pytest.raises(ValueError):
        try:
            raise ValueError("x")
        except setup.TimeoutError:
            pass
    # Nobody else ever sees a stand-in: pyscreeze's `try: import cv2` must fail as it would.
    assert not [n for n, m in sys.modules.items() if shim.stood_in(m)]
    for name in shim.STUBBED:
        if importlib.util.find_spec(name) is None:
            with pytest.raises(ImportError):
                __import__(name)
    # Everything else is real.
    assert table.openpyxl.__file__ and general.pdfplumber.__file__ and chrome.imagehash.__file__


def test_the_metrics_the_tasks_use_compute(desktop_env_module, tmp_path):
    from desktop_env.evaluators import metrics

    notes = tmp_path / "shopping.txt"
    notes.write_text("Milk\nBread\n")
    assert metrics.file_contains(str(notes), {"expected": ["Milk"]}) == 1.0
    assert metrics.file_contains(str(notes), {"expected": ["Eggs"]}) == 0.0
    assert metrics.check_include_exclude("Milk\nBread\n", {"include": ["Milk"], "exclude": ["Eggs"]}) == 1.0


# ---- whole tasks on a real desktop ---------------------------------------------------------------

@pytest.fixture(scope="module")
def osworld(binary, desktop_env_module, tmp_path_factory):
    """A DesktopEnv on a private handrail desktop of this machine, as OSWorld's run scripts make one."""
    register(binary=binary)
    started = time.monotonic()
    env = desktop_env_module.DesktopEnv(provider_name="handrail", action_space="pyautogui", require_a11y_tree=True,
                                        cache_dir=str(tmp_path_factory.mktemp("osworld-cache")))
    env.started_in = time.monotonic() - started
    quick_harness_retries(env)
    yield env
    env.close()
    assert env.provider.desktop is None


def _editor_task(task_id, local_path, path, instruction, expected):
    """Upload a file, open it in Mousepad; scored by desktop-env's file_contains on the file it reads
    back and check_include_exclude on what `cat` prints through /execute."""
    return {
        "id": task_id,
        "instruction": instruction,
        "config": [
            {"type": "upload_file", "parameters": {"files": [{"local_path": str(local_path), "path": path}]}},
            {"type": "launch", "parameters": {"command": ["mousepad", path]}},
        ],
        "evaluator": {
            "func": ["file_contains", "check_include_exclude"],
            "result": [{"type": "vm_file", "path": path, "dest": path.rsplit("/", 1)[-1]},
                       {"type": "vm_command_line", "command": ["cat", path]}],
            "expected": [{"type": "rule", "rules": {"expected": [expected]}},
                         {"type": "rule", "rules": {"include": [expected], "exclude": []}}],
        },
    }


def _wait_for(what, check, timeout=60.0, every=0.2):
    return wait_for(what, check, timeout, every)


def test_a_task_scores_zero_untouched_and_one_after_the_computer_tool_solves_it(osworld, tmp_path):
    env = osworld
    local = tmp_path / "shopping.txt"
    local.write_text("Bread\n")
    path = "/home/user/shopping.txt"
    task = _editor_task("handrail-shopping", local, path, "Add Milk to the shopping list in shopping.txt and save it.",
                        "Milk")
    obs = env.reset(task_config=task)
    assert env.started_in < 60, env.started_in
    assert obs["screenshot"].startswith(PNG)
    assert obs["accessibility_tree"].startswith("<desktop-frame"), obs["accessibility_tree"][:200]
    assert obs["instruction"] == task["instruction"]
    assert env.controller.get_file(path) == b"Bread\n"
    assert env.evaluate() == 0

    async def solve():
        async with Computer(env.provider.mcp_url, env.provider.token) as computer:
            computer.new_turn("handrail-shopping", intent=task["instruction"])
            deadline = time.monotonic() + 60
            while True:
                seen = await computer.see()
                editors = [e for e in seen.observation.elements if e.role == "text_area"]
                if editors or time.monotonic() > deadline:
                    break
                await asyncio.sleep(0.2)
            assert editors, seen.text
            # Mousepad lays its window out once more after the editor is first listed (a bar warning
            # root about its account): the tool refuses the moved editor as stale, with a fresh look.
            for _ in range(5):
                typed = await computer.type("Milk\n", editors[0])
                if typed.status != "stale" or typed.observation is None:
                    break
                editors = [e for e in typed.observation.elements if e.role == "text_area"] or editors
            saved = await computer.key("ctrl+s")
            return typed, saved

    typed, saved = asyncio.run(solve())
    assert typed.status == "ok", typed.text
    assert saved.status in ("ok", "no_visible_change"), saved.text
    _wait_for("saved file", lambda: b"Milk" in (env.controller.get_file(path) or b""), timeout=20)
    assert env.evaluate() == 1


def test_pyautogui_steps_run_through_execute_and_the_next_task_starts_from_a_reset_desktop(osworld, tmp_path):
    env = osworld
    local = tmp_path / "note.txt"
    local.write_text("")
    path = "/home/user/note.txt"
    task = _editor_task("handrail-note", local, path, "Write x into note.txt and save it.", "x")
    resets = env.provider.resets
    started = time.monotonic()
    env.reset(task_config=task)
    took = time.monotonic() - started
    assert env.provider.resets == resets + 1  # the first task used the desktop: POST /reset, no new desktop
    assert took < 30, took
    home = env.controller.get_vm_directory_tree("/home/user")
    names = {child["name"] for child in home.get("children", [])}
    assert "note.txt" in names and "shopping.txt" not in names, home
    # The reset home holds what OSWorld's image holds there: LibreOffice's profile, tips off.
    profile = env.controller.get_file("/home/user/.config/libreoffice/4/user/registrymodifications.xcu")
    assert profile is not None and b'"ShowTipOfTheDay"' in profile, profile

    assert env.vm_platform == "Linux"
    assert env.vm_screen_size == {"width": 1920, "height": 1080}
    ran = env.controller.execute_python_command("print(pyautogui.size())")
    assert ran["returncode"] == 0 and "width=1920, height=1080" in ran["output"], ran
    # Mousepad's window has the focus before the keys are sent.
    _wait_for("Mousepad in the accessibility tree",
              lambda: "note.txt" in (env.controller.get_accessibility_tree() or ""))
    obs, reward, done, info = env.step("pyautogui.typewrite('x')", pause=0.5)
    assert obs["screenshot"].startswith(PNG) and (reward, done) == (0, False)
    env.step("pyautogui.hotkey('ctrl', 's')", pause=0.5)
    _wait_for("saved file", lambda: env.controller.get_file(path) == b"x", timeout=20)
    assert env.evaluate() == 1

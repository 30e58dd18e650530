"""Stand-ins for the heavy third-party modules desktop-env 1.0.2 imports at import time but that
the metrics and getters handrail's OSWorld venv is for never call.

`desktop_env.desktop_env` imports every metric and getter module, and those import, at module
level, packages that weigh from 60 MB to gigabytes. Each one below is used only by the functions
named beside it. Inside `stubbed()`, an import of one of them made by desktop-env's own code, when
the package is not installed, gives a stand-in module whose attributes are placeholders that raise
`ModuleNotFoundError` (naming the package and this module) the moment they are called or
instantiated; a real package, when installed, always wins. Leaving `stubbed()` removes the
stand-ins from `sys.modules` (desktop-env's modules keep the names they bound), so no other code,
in particular no optional import such as pyscreeze's `try: import cv2`, ever sees one. Every other
import of desktop-env is a real package (scripts/setup-osworld installs them).
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.machinery
import sys
import types
from typing import Iterator

# top-level module -> (PyPI package, installed size with what it pulls in, what in desktop-env calls it)
STUBBED = {
    "easyocr": ("easyocr", "PyTorch: gigabytes", "metrics.docs.compare_image_text"),
    "librosa": ("librosa", "~260 MB with numba, llvmlite, scikit-learn", "metrics.vlc.compare_audios"),
    "cv2": ("opencv-python-headless", "~175 MB",
            "metrics.gimp's image checks (check_structure_sim_resized, check_sharper, check_image_mirror …) "
            "and metrics.vlc.compare_videos"),
    "skimage": ("scikit-image", "~60 MB with networkx, imageio, tifffile",
                "the SSIM checks of metrics.gimp and metrics.vlc, metrics.docs.evaluate_colored_words_in_tables"),
    "fitz": ("pymupdf", "~195 MB with onnxruntime",
             "metrics.pdf.check_pdf_pages, metrics.chrome.compare_pdfs and compare_pdf_images"),
    "playwright": ("playwright", "~170 MB, and browsers it downloads",
                   "the Chrome set-up steps (chrome_open_tabs, chrome_close_tabs, login) and getters over CDP"),
    "pydrive": ("PyDrive", "~150 MB with google-api-python-client",
                "the googledrive set-up step and get_googledrive_file"),
}

_IMPORT_MACHINERY = ("<frozen importlib", __file__)


class _MissingMeta(type):
    """Placeholders: any attribute is another placeholder; calling one raises."""

    def __call__(cls, *args, **kwargs):
        raise ModuleNotFoundError(cls._why, name=cls._package)

    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _placeholder(f"{cls.__qualname__}.{name}", cls._package, cls._why)

    def __repr__(cls):
        return f"<handrail.osworld.shim placeholder {cls.__qualname__}>"


def _placeholder(qualname: str, package: str, why: str) -> type:
    # An Exception subclass, so that `except playwright.sync_api.TimeoutError:` stays valid (and
    # matches nothing).
    cls = _MissingMeta(qualname.rsplit(".", 1)[-1], (Exception,), {"_package": package, "_why": why})
    cls.__qualname__ = qualname
    return cls


class StubModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        top = self.__name__.split(".")[0]
        package, size, users = STUBBED[top]
        why = (f"{self.__name__}.{name} is not installed: handrail.osworld.shim stood in for {top!r} "
               f"(PyPI {package}, {size}), which only {users} use; "
               f"pip install {package} into this environment to run them")
        return _placeholder(f"{self.__name__}.{name}", package, why)


class _StubLoader(importlib.abc.Loader):
    def create_module(self, spec):
        module = StubModule(spec.name)
        module.__path__ = []  # a package, so `skimage.color` and `playwright.sync_api` import too
        return module

    def exec_module(self, module):
        pass


def _importer() -> str:
    """The `__name__` of the module whose code is importing (the first frame outside the import
    machinery)."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_IMPORT_MACHINERY):
        frame = frame.f_back
    return frame.f_globals.get("__name__", "") if frame is not None else ""


class _StubFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname.split(".")[0] not in STUBBED:
            return None
        importer = _importer()
        if importer != "desktop_env" and not importer.startswith("desktop_env."):
            return None
        return importlib.machinery.ModuleSpec(fullname, _StubLoader(), is_package=True)


_FINDER = _StubFinder()


@contextlib.contextmanager
def stubbed() -> Iterator[None]:
    """Within: desktop-env's imports of missing `STUBBED` modules get stand-ins. The finder is
    consulted after every other one, so installed packages are never replaced."""
    added = _FINDER not in sys.meta_path
    if added:
        sys.meta_path.append(_FINDER)
    try:
        yield
    finally:
        if added:
            sys.meta_path.remove(_FINDER)
            for name in [n for n, m in sys.modules.items() if isinstance(m, StubModule)]:
                del sys.modules[name]


def stood_in(module: object) -> bool:
    """Whether `module` (e.g. `desktop_env.evaluators.metrics.docs.easyocr`) is a stand-in."""
    return isinstance(module, StubModule)


def import_desktop_env() -> types.ModuleType:
    """`desktop_env.desktop_env`, which imports every metric and getter, with the stand-ins."""
    with stubbed():
        import desktop_env.desktop_env as module
    return module

"""`register()`: an unmodified desktop-env 1.0.2 learns the provider name `handrail`.

Three patches, each as narrow as desktop-env allows:

1. `create_vm_manager_and_provider` (in `desktop_env.providers`, and the name `desktop_env.desktop_env`
   imported from it) answers `"handrail"` with this package's manager and provider; every other name
   goes to the original.
2. `DesktopEnv.__init__` refuses provider names outside two set literals (`ValueError: Invalid
   provider name`), which Python compiles into frozenset constants of the function's code. "handrail"
   is added to the one of providers that start from a clean machine (the one holding "docker"), so
   the first `reset()` runs the task's set-up without reverting first, and later ones revert (our
   `POST /reset`) only after the desktop was used. Nothing else in `__init__` changes.
3. `requests.Session.send` adds the guest's bearer token to requests for the registered guests'
   URLs only (`handrail.osworld.auth`).

`register()` imports desktop-env through the shim (`handrail.osworld.shim`), so that it does not
need the heavy packages its unused metrics import: call it before importing `desktop_env` yourself.
"""

from __future__ import annotations

from typing import Optional, Sequence

from . import auth, shim
from .provider import PROVIDER_NAME, HandrailProvider, HandrailVMManager, Settings

_settings = Settings()


def register(url: Optional[str] = None, token: Optional[str] = None, guest: Optional[str] = None, *,
             binary: Optional[str] = None, osworld_bin: Optional[str] = None, serve_args: Sequence[str] = (),
             startup_timeout: float = 60.0, ready_timeout: float = 120.0, trace: bool = False) -> Settings:
    """Makes `DesktopEnv(provider_name="handrail", ...)` work; idempotent, and a later call replaces
    the settings for the environments made after it.

    Without `url`, each environment starts its own private desktop on this machine (`handrail serve
    --sandbox --osworld-guest`, the binary `binary` or `$HANDRAIL_BIN`, commands finding `python` and
    `google-chrome` in `osworld_bin`, by default this virtualenv's bin folder), sized as the
    environment's `screen_size`, and stops it on `close()`. With `url` (the desktop service's MCP
    endpoint), `token` and `guest` (its OSWorld guest, `http://host:port`), environments use that
    running desktop and reset it on start.
    """
    global _settings
    if url and not (guest and token):
        raise ValueError("register(url=...) needs guest= (the desktop's OSWorld guest, http://host:port) and "
                         "token= (its bearer token, which the guest always requires)")
    _settings = Settings(url=url, token=token, guest=guest, binary=binary, osworld_bin=osworld_bin,
                         serve_args=tuple(serve_args), startup_timeout=startup_timeout,
                         ready_timeout=ready_timeout, trace=trace)
    env_module = shim.import_desktop_env()
    import desktop_env.providers as providers

    _patch_factory(providers, env_module)
    _admit_as_clean_start(env_module.DesktopEnv)
    auth.install()
    return _settings


def settings() -> Settings:
    return _settings


def _patch_factory(providers, env_module) -> None:
    original = getattr(providers.create_vm_manager_and_provider, "__wrapped__",
                       providers.create_vm_manager_and_provider)

    def create_vm_manager_and_provider(provider_name: str, region: str, use_proxy: bool = False):
        if provider_name.lower().strip() == PROVIDER_NAME:
            return HandrailVMManager(_settings), HandrailProvider(_settings, region)
        return original(provider_name, region, use_proxy)

    create_vm_manager_and_provider.__wrapped__ = original
    create_vm_manager_and_provider.__doc__ = original.__doc__
    providers.create_vm_manager_and_provider = create_vm_manager_and_provider
    env_module.create_vm_manager_and_provider = create_vm_manager_and_provider


def _admit_as_clean_start(env_class) -> None:
    init = env_class.__init__
    code = init.__code__
    clean = [c for c in code.co_consts if isinstance(c, frozenset) and "docker" in c]
    if len(clean) != 1:
        raise RuntimeError("this desktop-env's DesktopEnv.__init__ does not check provider names as 1.0.2 does; "
                           "handrail.osworld.register needs updating for it")
    if PROVIDER_NAME in clean[0]:
        return
    consts = tuple(c | {PROVIDER_NAME} if c is clean[0] else c for c in code.co_consts)
    init.__code__ = code.replace(co_consts=consts)

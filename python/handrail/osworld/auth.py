"""The bearer token on desktop-env's requests to a handrail desktop's OSWorld guest.

desktop-env calls the guest with module-level `requests.get/post` (controllers, set-up steps,
getters) and no way to add a header. Every one of those calls ends in `requests.Session.send`, so
`install()` wraps that one method: a request whose URL is on a registered guest (same scheme, host
and port, under its path) gets `Authorization: Bearer <that guest's token>`; every other request
goes out exactly as it was. Redirect hops pass through `send` too, so a hop to another host never
gets the token.
"""

from __future__ import annotations

import threading
from typing import Optional
from urllib.parse import urlsplit

import requests

_lock = threading.Lock()
_guests: dict[tuple[str, str, int, str], str] = {}


def _key(url: str) -> Optional[tuple[str, str, int, str]]:
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:  # a port that is not a number
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    port = port or (443 if parts.scheme == "https" else 80)
    return parts.scheme, parts.hostname.lower(), port, parts.path.rstrip("/")


def authorize(base_url: str, token: str) -> None:
    """Requests to `base_url` (`http://host:port`) and below carry `token` from now on."""
    key = _key(base_url)
    if key is None:
        raise ValueError(f"not an http(s) URL: {base_url!r}")
    with _lock:
        _guests[key] = token


def forget(base_url: str) -> None:
    key = _key(base_url)
    with _lock:
        _guests.pop(key, None)


def token_for(url: str) -> Optional[str]:
    """The token of the registered guest `url` is on, if any."""
    key = _key(url)
    if key is None:
        return None
    scheme, host, port, path = key
    with _lock:
        for (g_scheme, g_host, g_port, g_path), token in _guests.items():
            if (scheme, host, port) == (g_scheme, g_host, g_port) and (
                    path == g_path or path.startswith(g_path + "/")):
                return token
    return None


_original_send = requests.Session.send


def _send(self, request, **kwargs):
    token = token_for(request.url)
    if token is not None:
        # Always the guest's own token: it answers no other (not even one from ~/.netrc).
        request.headers["Authorization"] = f"Bearer {token}"
    return _original_send(self, request, **kwargs)


def install() -> None:
    """Idempotent."""
    requests.Session.send = _send


def installed() -> bool:
    return requests.Session.send is _send

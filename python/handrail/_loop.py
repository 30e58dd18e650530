"""An asyncio event loop on a thread of its own, so synchronous code (a Gymnasium environment, a Ray
actor's methods) can drive the async client without owning the caller's loop."""

from __future__ import annotations

import asyncio
import threading
from typing import Any, Awaitable, Optional


class LoopThread:
    def __init__(self, name: str = "handrail-client"):
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name=name, daemon=True)
        self._thread.start()

    def run(self, coro: Awaitable[Any], timeout: Optional[float] = None) -> Any:
        """Runs `coro` on the loop and waits for its result."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def close(self) -> None:
        if self.loop.is_closed():
            return
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(5)
        if not self._thread.is_alive():
            self.loop.close()

"""handrail's Python client: drive handrail desktops from Python.

- `Computer` — an async client for one desktop: the `computer` tool over MCP, with typed results,
  turns, and the desktop service (`health`, `readiness`, `reset`).
- `LocalDesktop` — starts a private desktop service on this machine (`handrail serve --sandbox`).
- `handrail.env.HandrailEnv` — a Gymnasium environment over one desktop (needs `gymnasium`).
- `handrail.pool.DesktopPool` — desktops owned by Ray actors, for sweeps and rollouts (needs `ray`).
"""

from .client import Computer, Mode, ResetNotClean, ServiceError
from .local import LocalDesktop
from .results import (ComputerResult, Element, Health, Observation, Readiness, ResetReport, ShapeError,
                      screenshot_array)

__all__ = ["Computer", "ComputerResult", "Element", "Health", "LocalDesktop", "Mode", "Observation", "Readiness",
           "ResetNotClean", "ResetReport", "ServiceError", "ShapeError", "screenshot_array"]
__version__ = "0.1.0"

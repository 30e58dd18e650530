"""handrail's Python client: drive handrail desktops from Python.

- `Computer` — an async client for one desktop: the `computer` tool over MCP, with typed results,
  turns, and the desktop service (`health`, `readiness`, `reset`; `put_file`, `get_file` and `run`
  for a harness's task set-up when the server offers them).
- `LocalDesktop` — starts a private desktop service on this machine (`handrail serve --sandbox`).
- `handrail.env.HandrailEnv` — a Gymnasium environment over one desktop (needs `gymnasium`).
- `handrail.pool.DesktopPool` — desktops owned by Ray actors, for sweeps and rollouts (needs `ray`).
"""

from .client import Computer, Mode, ResetNotClean, ServiceError
from .local import LocalDesktop
from .results import (ComputerResult, Element, FileWritten, Health, Observation, Readiness, ResetReport, RunReport,
                      ShapeError, screenshot_array)

__all__ = ["Computer", "ComputerResult", "Element", "FileWritten", "Health", "LocalDesktop", "Mode", "Observation",
           "Readiness", "ResetNotClean", "ResetReport", "RunReport", "ServiceError", "ShapeError", "screenshot_array"]
__version__ = "0.1.0"

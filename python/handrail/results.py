"""Typed results of the `computer` tool and of the desktop service's endpoints.

The JSON shapes belong to the server (the Rust crate `handrail-wire`, published as the tool's
`outputSchema`); these dataclasses mirror them field for field, and `tests/test_results.py` checks
that they still do against the schema a live server declares. Absent facts are `None`, as the
server sends them as `null`.
"""

from __future__ import annotations

import base64
import dataclasses
import functools
import io
import types
import typing
from dataclasses import dataclass, field
from typing import Any, Optional, Union

Bounds = tuple[int, int, int, int]


class ShapeError(ValueError):
    """The server's JSON does not have the shape these types expect (a server of another version)."""


def _convert(hint: Any, value: Any, where: str) -> Any:
    origin = typing.get_origin(hint)
    if origin in (Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        if value is None:
            return None
        return _convert(args[0], value, where)
    if origin in (list, tuple) and hint is not Bounds:
        if not isinstance(value, list):
            raise ShapeError(f"{where}: expected a list, got {type(value).__name__}")
        inner = typing.get_args(hint)[0]
        items = [_convert(inner, v, f"{where}[{i}]") for i, v in enumerate(value)]
        return tuple(items) if origin is tuple else items
    if hint is Bounds:
        if not (isinstance(value, list) and len(value) == 4):
            raise ShapeError(f"{where}: expected [x, y, width, height], got {value!r}")
        return tuple(int(v) for v in value)
    if dataclasses.is_dataclass(hint):
        return from_json(hint, value, where)
    return value


@functools.cache
def _plan(cls: type) -> tuple[tuple[str, str, Any, bool], ...]:
    """How `cls` is read, worked out once per class (resolving its type hints costs more than reading
    a whole result): (field, JSON key, type hint, optional) for each field the server sends."""
    hints = typing.get_type_hints(cls)
    return tuple(
        (f.name, f.metadata.get("json", f.name), hints[f.name],
         f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING)
        for f in dataclasses.fields(cls)
        if f.init and f.name != "extra"
    )


@functools.cache
def _has_extra(cls: type) -> bool:
    return "extra" in {f.name for f in dataclasses.fields(cls)}


def from_json(cls: type, data: Any, where: str = "") -> Any:
    """Builds dataclass `cls` from the server's JSON object. Keys the server added in a later
    version are kept in `extra`, when the class has one; missing keys are an error."""
    where = where or cls.__name__
    if not isinstance(data, dict):
        raise ShapeError(f"{where}: expected an object, got {type(data).__name__}")
    plan = _plan(cls)
    values = {}
    for name, key, hint, optional in plan:
        if key not in data:
            if optional:
                continue
            raise ShapeError(f"{where}: no `{key}` in {sorted(data)}")
        values[name] = _convert(hint, data[key], f"{where}.{key}")
    obj = cls(**values)
    if _has_extra(cls):
        known = {key for _, key, _, _ in plan}
        obj.extra = {k: v for k, v in data.items() if k not in known}
    return obj


def json_keys(cls: type) -> set[str]:
    """The JSON keys a dataclass reads (for checking it against a schema)."""
    keys = {f.metadata.get("json", f.name) for f in dataclasses.fields(cls) if f.init and f.name != "extra"}
    return {k for k in keys if not k.startswith("__")}


# ---- the `computer` result -------------------------------------------------------------------------


@dataclass
class Element:
    """One thing on screen: `eN`, its role, label and box in screenshot coordinates."""

    id: str
    role: str
    label: str
    bounds: Bounds
    states: list[str]
    source: str
    value: Optional[str] = None
    app: Optional[str] = None
    window: Optional[str] = None
    monitor: Optional[str] = None

    @property
    def center(self) -> tuple[float, float]:
        x, y, w, h = self.bounds
        return x + w / 2, y + h / 2

    def as_dict(self) -> dict:
        """The element as the server sent it (plain JSON types)."""
        d = dataclasses.asdict(self)
        d["bounds"] = list(self.bounds)
        return {k: v for k, v in d.items() if v is not None}


@dataclass
class Monitor:
    id: str
    name: str
    bounds: Bounds
    primary: bool


@dataclass
class Observation:
    """An observation (`obs_N`): the screen's elements; the picture travels beside it."""

    id: str
    app: Optional[str]
    window: Optional[str]
    focus: Optional[str]
    ax: str
    ocr: str
    screen: list[int]
    image: list[int]
    scale: float
    image_mime: Optional[str]
    inspect_region: Optional[Bounds]
    monitors: list[Monitor]
    elements: list[Element]
    # What the accessibility tree left out and why, a line each naming the app (empty: nothing known).
    ax_notes: list[str] = dataclasses.field(default_factory=list)

    def element(self, element_id: str) -> Optional[Element]:
        return next((e for e in self.elements if e.id == element_id), None)

    def find(self, label: str, role: Optional[str] = None) -> list[Element]:
        """Elements whose label is exactly `label` (and role, when given)."""
        return [e for e in self.elements if e.label == label and (role is None or e.role == role)]


@dataclass
class Expectation:
    kind: str
    value: str
    result: str
    detail: Optional[str]


@dataclass
class Timings:
    """Milliseconds spent in each phase of the call."""

    capture: int
    settle: int
    settled: Optional[bool]
    observe: int
    encode: int
    total: int


@dataclass
class Target:
    id: str
    role: str
    label: str
    bounds: Bounds


@dataclass
class ElementRef:
    role: str
    label: str
    id: Optional[str] = None


@dataclass
class Change:
    before: Optional[str]
    after: Optional[str]


@dataclass
class FocusChange:
    before: Optional[ElementRef]
    after: Optional[ElementRef]


@dataclass
class StateChange:
    element: ElementRef
    before: list[str]
    after: list[str]


@dataclass
class SemanticChanges:
    app: Optional[Change]
    window: Optional[Change]
    focus: Optional[FocusChange]
    added: list[ElementRef]
    removed: list[ElementRef]
    value_changed: list[ElementRef]
    state_changed: list[StateChange]
    text_added: list[str]
    text_removed: list[str]


@dataclass
class VisualChanges:
    changed_fraction: float
    bounds: Optional[Bounds]
    changed_tiles: int
    total_tiles: int


@dataclass
class Changes:
    semantic: SemanticChanges
    visual: VisualChanges


@dataclass
class Blocked:
    method: str
    url: str
    reason: str


@dataclass
class WindowEvent:
    event: str
    title: str
    app: str
    kind: str


@dataclass
class ComputerResult:
    """The structured result of one `computer` call, with the text the model reads and the
    screenshot (JPEG or PNG bytes) when the call returned one."""

    version: int
    status: str
    tag: str
    reason: Optional[str]
    action: Optional[str]
    summary: str
    message: Optional[str]
    guard: dict
    targets: list[Target]
    expect: Optional[Expectation]
    changed: Optional[bool]
    changes: Optional[Changes]
    elsewhere: Optional[str]
    timings: Timings = field(metadata={"json": "timings_ms"})
    blocked: list[Blocked] = field(default_factory=list)
    blocked_count: int = 0
    typing: Optional[dict] = None
    animating: list[Bounds] = field(default_factory=list)
    windows: list[WindowEvent] = field(default_factory=list)
    observation: Optional[Observation] = None
    latest_observation: Optional[str] = None
    text: str = field(default="", metadata={"json": "__text__"})
    image: Optional[bytes] = field(default=None, repr=False, metadata={"json": "__image__"})
    image_mime: Optional[str] = field(default=None, metadata={"json": "__image_mime__"})
    extra: dict = field(default_factory=dict, repr=False)

    @property
    def ok(self) -> bool:
        """The call ran as asked (`ok` or `no_visible_change`)."""
        return self.status in ("ok", "no_visible_change")

    @property
    def refused(self) -> bool:
        return self.status == "refused"

    @property
    def verdict(self) -> str:
        """The result's tag without brackets, e.g. `ok+verified`."""
        return self.tag.strip("[]")


def computer_result(call_result: Any) -> ComputerResult:
    """A `ComputerResult` from the MCP SDK's `CallToolResult`: structured content, the text block
    and the image block (inline screenshots)."""
    structured = getattr(call_result, "structured_content", None)
    if structured is None:
        raise ShapeError("the result has no structured content (not a handrail server?)")
    text_parts, image, mime = [], None, None
    for block in getattr(call_result, "content", None) or []:
        kind = getattr(block, "type", None)
        if kind == "text":
            text_parts.append(block.text)
        elif kind == "image" and image is None:
            image, mime = base64.b64decode(block.data), block.mime_type
    result = from_json(ComputerResult, structured)
    result.text = "\n".join(text_parts)
    result.image, result.image_mime = image, mime
    return result


def screenshot_array(image: bytes):
    """A screenshot's bytes (JPEG or PNG) as a height x width x 3 `uint8` array."""
    import numpy as np
    from PIL import Image

    with Image.open(io.BytesIO(image)) as picture:
        return np.asarray(picture.convert("RGB"), dtype=np.uint8)


# ---- the desktop service ---------------------------------------------------------------------------


@dataclass
class Health:
    version: int
    alive: bool
    problem: Optional[str]


@dataclass
class Readiness:
    version: int
    ready: bool
    why: Optional[str]
    first_observation_ms: Optional[int]
    elements: Optional[int]
    resets: int


@dataclass
class ClosedApp:
    pid: int
    name: str
    windows: list[str]
    forced: bool


@dataclass
class TaskTraces:
    finished: Optional[str]
    recording: Optional[str]


@dataclass
class ResetTimings:
    queued: int
    close_apps: int
    display: int
    browser_profile: int
    home: int
    turn: int
    total: int


@dataclass
class ResetReport:
    """What `POST /reset` closed and how long it took; `clean` when nothing of the last task is left."""

    version: int
    clean: bool
    turn: str
    closed: list[ClosedApp]
    windows_closed: list[str]
    windows_left: list[str]
    apps_left: list[str]
    browser_profile: str
    clipboard: str
    home_removed: list[str]
    traces: TaskTraces
    duration_ms: int
    timings: ResetTimings = field(metadata={"json": "timings_ms"})


@dataclass
class FileWritten:
    """`PUT /files/PATH`'s answer: where the file is inside the desktop."""

    version: int
    path: str
    bytes: int


@dataclass
class RunReport:
    """`POST /run`'s answer: how a command run inside the desktop ended, or that it runs on."""

    version: int
    pid: int
    exit_code: Optional[int]
    signal: Optional[int]
    timed_out: bool
    running: bool
    stdout: str
    stderr: str
    truncated: bool
    duration_ms: int

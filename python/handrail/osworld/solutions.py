"""Scripted solutions of handrail's own OSWorld tasks (`tasks/<domain>/<id>.json`), one per task id,
acting only through the `computer` tool: observe, then click, type and press keys on elements of
the newest observation, as an agent would. They prove each task solvable on a handrail desktop;
nothing here writes the task's files another way.

    async with Computer(url, token) as computer:
        computer.new_turn(task["id"], intent=task["instruction"])
        await solve(computer, task)

Keyboard paths are preferred where an app has them: LibreOffice Calc's Name Box (ctrl+shift+F5) to
reach a cell, LibreOffice's menus through F10 (it reports its toolbars' places off by the menu bar's
height at times), its dialogs through their labelled fields and buttons.
"""

from __future__ import annotations

import asyncio
import re
import time
from typing import Awaitable, Callable, Optional, Union

from ..client import Computer
from ..results import ComputerResult, Element, Observation

Solution = Callable[[Computer, dict], Awaitable[None]]
SOLUTIONS: dict[str, Solution] = {}


def solution(task_id: str) -> Callable[[Solution], Solution]:
    def register(fn: Solution) -> Solution:
        if task_id in SOLUTIONS:
            raise ValueError(f"two solutions for task {task_id}")
        SOLUTIONS[task_id] = fn
        return fn

    return register


async def solve(computer: Computer, task: dict) -> None:
    """Runs task `task`'s solution on the desktop `computer` works."""
    await SOLUTIONS[task["id"]](computer, task)


class NotSolved(AssertionError):
    """A step of a solution did not find what it needed on the screen."""


# ---- looking ------------------------------------------------------------------------------------

def elements(obs: Observation, label: Optional[str] = None, role: Union[str, tuple, None] = None, *,
             contains: Optional[str] = None, state: Optional[str] = None) -> list[Element]:
    """Elements by exact label, label part, role (or one of several) and state (any left out matches)."""
    roles = (role,) if isinstance(role, str) else role
    return [e for e in obs.elements
            if (label is None or e.label == label)
            and (contains is None or contains in e.label)
            and (roles is None or e.role in roles)
            and (state is None or state in e.states)]


async def wait_for(computer: Computer, find: Callable[[Observation], object], what: str,
                   timeout: float = 30.0) -> tuple[Observation, object]:
    """Observes until `find(observation)` is truthy; the observation and what it found. Apps start
    and dialogs open at their own pace, so a solution waits for what it acts on."""
    deadline = time.monotonic() + timeout
    # Every action returns a fresh observation: look at that one before observing again.
    obs = computer.latest
    while True:
        if obs is None:
            obs = _observed(await computer.see())
        found = find(obs)
        if found:
            return obs, found
        if time.monotonic() > deadline:
            names = sorted({f"{e.role} {e.label!r}" for e in obs.elements if e.label})[:60]
            raise NotSolved(f"no {what} within {timeout:.0f} s; window {obs.window!r}, elements {names}")
        await asyncio.sleep(0.3)
        obs = None


def _observed(result: ComputerResult) -> Observation:
    if result.observation is None:
        raise NotSolved(f"the computer tool returned no observation: {result.text}")
    return result.observation


def _ok(result: ComputerResult, what: str) -> ComputerResult:
    if not result.ok:
        raise NotSolved(f"{what}: {result.tag} {result.text[:500]}")
    return result


async def click_found(computer: Computer, find: Callable[[Observation], list[Element]], what: str, *,
                      timeout: float = 30.0, button: str = "click") -> ComputerResult:
    """Waits for `find` to list elements and clicks the first. A target that moved while the app
    laid itself out is refused as stale: it is found again and clicked then."""
    for _ in range(5):
        _, found = await wait_for(computer, find, what, timeout)
        result = await computer.click(found[0], button=button)
        if result.status != "stale":
            break
        await asyncio.sleep(0.3)
    return _ok(result, f"click {what}")


async def click(computer: Computer, label: str, role: Union[str, tuple, None] = None, *, contains: bool = False,
                what: Optional[str] = None, timeout: float = 30.0, button: str = "click") -> ComputerResult:
    """Waits for the element (by label, or label part with `contains`) and clicks it."""
    key = dict(contains=label) if contains else dict(label=label)
    return await click_found(computer, lambda o: elements(o, role=role, **key), what or f"{role or ''} {label!r}",
                             timeout=timeout, button=button)


async def key(computer: Computer, keys: str) -> ComputerResult:
    return _ok(await computer.key(keys), f"key {keys}")


async def type_text(computer: Computer, text: str, element: Optional[Element] = None) -> ComputerResult:
    """Types `text`; a Tab in it is pressed as a key of its own (the tool types no Tab inside text:
    what follows would land in an element it cannot check first)."""
    parts = text.split("\t")
    result = _ok(await computer.type(parts[0], element), f"type {parts[0]!r}") if parts[0] else None
    for part in parts[1:]:
        result = await key(computer, "Tab")
        if part:
            result = _ok(await computer.type(part), f"type {part!r}")
    return result


async def window(computer: Computer, title_part: str, timeout: float = 60.0) -> Observation:
    """Waits until a window whose title holds `title_part` is the active one."""
    obs, _ = await wait_for(computer, lambda o: title_part in (o.window or ""), f"window {title_part!r}", timeout)
    return obs


def dialogs(obs: Observation, title: str) -> list[Element]:
    """The dialog (or its window) titled `title`."""
    return [e for e in obs.elements if e.label == title and e.role in ("dialog", "window", "alert")]


async def dialog_closed(computer: Computer, title: str, timeout: float = 15.0) -> None:
    await wait_for(computer, lambda o: not dialogs(o, title), f"the {title} dialog to close", timeout)


# ---- LibreOffice ----------------------------------------------------------------------------------

async def lo_document(computer: Computer, name: str) -> Observation:
    """Waits for LibreOffice's window of document `name` and its document area (it draws its
    toolbars before the document loads)."""
    return (await wait_for(
        computer, lambda o: name in (o.window or "") and elements(o, role="document") and o,
        f"LibreOffice with {name}", 60))[0]


MENU_ROLES = ("menu", "menu_item", "check_menu_item", "radio_menu_item")


async def lo_menu(computer: Computer, top: str, *path: str) -> None:
    """Opens menu `top` of LibreOffice's menu bar and clicks `path` down its submenus. The menu bar
    is reached with F10 and the arrow keys: LibreOffice reports its toolbars' and menu bar's places
    off by the menu bar's height at times, while the menus it pops up are where it says. A look
    cut short (LibreOffice's tree is large and slow to walk on a busy machine) may list no menu bar:
    looks again until it lists `top`."""

    def menu_bar(obs: Observation) -> list[str]:
        bar: list[str] = []
        for e in sorted(elements(obs, role="menu"), key=lambda e: e.bounds[0]):
            if e.bounds[1] < 60 and e.label and e.label not in bar:
                bar.append(e.label)
        return bar if top in bar else []

    _, bar = await wait_for(computer, menu_bar, f"menu {top!r} in LibreOffice's menu bar")
    i = bar.index(top)
    await key(computer, "F10")  # opens the first menu
    steps = ["Right"] * i if i <= len(bar) - i else ["Left"] * (len(bar) - i)
    for step in steps:
        await key(computer, step)
    for item in path:
        await click(computer, item, MENU_ROLES, what=f"menu entry {item!r} under {top!r}")


async def keep_format(computer: Computer) -> None:
    """Answers LibreOffice's "Keep current format" question, asked when a document is saved in a
    Microsoft format, with the Microsoft format ("Use Excel 2007–365!", "Use Word …"); then waits
    for the dialog to go."""

    def keep(o: Observation) -> list[Element]:
        return [e for e in elements(o, role="button") if e.label.startswith("Use ") and "ODF" not in e.label]

    _, found = await wait_for(computer, keep, "the keep-format dialog")
    _ok(await computer.click(found[0]), f"click {found[0].label!r}")
    await wait_for(computer, lambda o: not keep(o), "the keep-format dialog to close", 15)


async def save_keeping_format(computer: Computer) -> None:
    await key(computer, "ctrl+s")
    await keep_format(computer)


async def calc_goto(computer: Computer, ref: str) -> None:
    """Selects cell or range `ref` through the Name Box (ctrl+shift+F5 focuses it)."""
    await key(computer, "ctrl+shift+F5")
    await type_text(computer, f"{ref}\n")


async def calc_enter(computer: Computer, ref: str, *values: str) -> None:
    """Types `values` into `ref` and the cells below it (Return moves down)."""
    await calc_goto(computer, ref)
    await type_text(computer, "".join(f"{v}\n" for v in values))


async def find_replace_all(computer: Computer, find: str, replace: str) -> None:
    """Find and Replace (ctrl+h): every `find` becomes `replace`; the dialog is closed after."""
    await key(computer, "ctrl+h")
    _, fields = await wait_for(computer, lambda o: elements(o, "Find", "entry") and elements(o, "Replace", "entry")
                               and (elements(o, "Find", "entry")[0], elements(o, "Replace", "entry")[0]),
                               "the Find and Replace fields")
    await type_text(computer, find, fields[0])
    obs = _observed(await computer.see())
    await type_text(computer, replace, elements(obs, "Replace", "entry")[0])
    await click(computer, "Replace All", "button")
    # Calc and Writer may report what was replaced in a window of its own.
    obs = _observed(await computer.see())
    if elements(obs, contains="Search Results"):
        await click(computer, "Close", "button")
    await click(computer, "Close", "button", what="the Find and Replace dialog's Close")
    await dialog_closed(computer, "Find and Replace")


# ---- a terminal ---------------------------------------------------------------------------------

async def terminal(computer: Computer) -> None:
    """Opens a terminal and waits until it takes typing."""
    _ok(await computer.open_app("xfce4-terminal"), "open a terminal")
    await wait_for(computer, lambda o: elements(o, role="terminal", state="focused"), "a focused terminal", 30)


async def run_in_terminal(computer: Computer, *lines: str) -> None:
    for line in lines:
        await type_text(computer, line + "\n")


# ==== the tasks ====================================================================================
# Grouped by domain; each names its task in a line.

# ---- os

def _terminal_task(*lines: str) -> Solution:
    async def run(c: Computer, task: dict) -> None:
        await terminal(c)
        await run_in_terminal(c, *lines)

    return run


for _task_id, _lines in {
    "624c4d8e-b6d6-4114-9912-11fa197a579a": ["mkdir -p ~/Documents/projects/alpha"],
    "7a82229d-273d-4943-a5e6-9e0d34304902": ["mv ~/notes.txt ~/notes-2024.txt"],
    "f3ce866b-69fc-4e6f-8e4a-245a553957d5": ["chmod +x ~/run.sh"],
    "a39a5445-eb7e-409c-99ee-691a0f93777f": ["mkdir -p ~/archive", "cp ~/inbox/*.txt ~/archive/"],
    "2ccae280-2dc6-484a-8f28-4b33a1be0732": ["chmod 600 ~/secret.txt"],
    "9dbc075e-f65d-4590-aaf8-08371ab9a6e0": ["wc -l < ~/data/log.txt > ~/count.txt"],
    "d4fb23bd-1585-4c36-9d78-333393ce79fc": ["cd ~ && tar -czf report.tar.gz report"],
    "cb939113-f48b-47de-a11d-2cb4dc9ed02d": ["ln -s ~/releases/v2 ~/latest"],
    "f1538d01-f269-45e7-8981-39c1943a2d87": ["sed -i 's/^port=8000$/port=8080/' ~/app.conf"],
    # OSWorld's published os tasks (published/os).
    "cc9d4f34-1ca0-4a1b-8ff2-09302696acb9": ["pkill -f my_process.sh"],
}.items():
    solution(_task_id)(_terminal_task(*_lines))


# ---- libreoffice_calc

@solution("c905ea34-0a2e-4aae-9c59-b898232dc397")  # SUM of Qty in B7 of inventory.xlsx
async def _calc_sum(c: Computer, task: dict) -> None:
    await lo_document(c, "inventory.xlsx")
    await calc_enter(c, "B7", "=SUM(B2:B6)")
    await save_keeping_format(c)


@solution("8b29f7c7-7d93-49a3-a05c-17a353e65b2d")  # a row for Gaskets
async def _calc_addrow(c: Computer, task: dict) -> None:
    await lo_document(c, "inventory.xlsx")
    await calc_enter(c, "A7", "Gaskets\t15")
    await save_keeping_format(c)


@solution("055adbfd-3525-4dc7-86e3-c83a3dda691d")  # Total = Price * Qty in column D
async def _calc_total_col(c: Computer, task: dict) -> None:
    await lo_document(c, "orders.xlsx")
    await calc_enter(c, "D1", "Total", *[f"=B{r}*C{r}" for r in range(2, 6)])
    await save_keeping_format(c)


@solution("19c15dc5-033f-49b2-ab7b-9c519ceddc5c")  # rename Sheet1 to Sales
async def _calc_rename_sheet(c: Computer, task: dict) -> None:
    await lo_document(c, "sales.xlsx")
    await lo_menu(c, "Sheet", "Rename Sheet...")
    await wait_for(c, lambda o: dialogs(o, "Rename Sheet") and elements(o, role="entry", state="focused"),
                   "the Rename Sheet name field")
    await key(c, "ctrl+a")
    await type_text(c, "Sales\n")
    await dialog_closed(c, "Rename Sheet")
    await save_keeping_format(c)


@solution("86b30c2f-c1a6-4e1f-b453-d2820a379e22")  # bold header row
async def _calc_bold_header(c: Computer, task: dict) -> None:
    await lo_document(c, "sales.xlsx")
    await calc_goto(c, "A1:C1")
    await key(c, "ctrl+b")
    await save_keeping_format(c)


@solution("33dd9de9-cf5e-41cc-9c49-cce2428a1b90")  # freeze the first row
async def _calc_freeze(c: Computer, task: dict) -> None:
    await lo_document(c, "sales.xlsx")
    await lo_menu(c, "View", "Freeze Cells", "Freeze First Row")
    await save_keeping_format(c)


@solution("7645914c-edea-4fd0-9f39-7fd8a5774080")  # sort by Name
async def _calc_sort(c: Computer, task: dict) -> None:
    await lo_document(c, "staff.xlsx")
    await calc_goto(c, "A1:C7")
    await lo_menu(c, "Data", "Sort Ascending")
    await save_keeping_format(c)


@solution("89116ce4-1b75-4f4c-92c2-515c5e89fc64")  # C2:C5 as percentages
async def _calc_percent(c: Computer, task: dict) -> None:
    await lo_document(c, "budget.xlsx")
    await calc_goto(c, "C2:C5")
    await key(c, "ctrl+shift+5")
    await save_keeping_format(c)


@solution("aaad7045-2630-4f18-b12a-b7057c82aca9")  # a row at the end of visits.csv
async def _calc_csv(c: Computer, task: dict) -> None:
    # LibreOffice asks how to read a CSV file first: its defaults (comma-separated) are right.
    await click(c, "OK", "button", what="the Text Import dialog's OK")
    await lo_document(c, "visits.csv")
    await calc_enter(c, "A4", "2024-03\t410")
    await save_keeping_format(c)


@solution("6376ed56-facd-40ee-91bd-7d4f3d3d0f03")  # n/a -> 0
async def _calc_replace(c: Computer, task: dict) -> None:
    await lo_document(c, "stock.xlsx")
    await find_replace_all(c, "n/a", "0")
    await save_keeping_format(c)


@solution("62b09d07-92d6-4109-87dc-8a336867c303")  # delete the Rivets row
async def _calc_delete_row(c: Computer, task: dict) -> None:
    await lo_document(c, "inventory.xlsx")
    await calc_goto(c, "A6")
    await lo_menu(c, "Sheet", "Delete Rows")
    await save_keeping_format(c)


# ---- libreoffice_writer

@solution("1f4d9501-c38b-4050-9ac9-cbf9dd71bffb")  # colour -> color in letter.docx
async def _writer_replace(c: Computer, task: dict) -> None:
    await lo_document(c, "letter.docx")
    await find_replace_all(c, "colour", "color")
    await save_keeping_format(c)


@solution("81bb05da-b455-4266-a90e-b04d1694271f")  # a P.S. paragraph at the end
async def _writer_append(c: Computer, task: dict) -> None:
    await lo_document(c, "letter.docx")
    await key(c, "ctrl+End")
    await type_text(c, "\nP.S. The samples are attached.")
    await save_keeping_format(c)


@solution("9d8f2361-dd57-4407-b8a6-e124d2bdfb55")  # center the title
async def _writer_center(c: Computer, task: dict) -> None:
    await lo_document(c, "report.docx")
    await key(c, "ctrl+Home")
    await key(c, "ctrl+e")
    await save_keeping_format(c)


@solution("6b1a25c2-747d-4288-be81-6df8870416c3")  # page break before paragraph 2
async def _writer_pagebreak(c: Computer, task: dict) -> None:
    await lo_document(c, "report.docx")
    await key(c, "ctrl+Home")
    await key(c, "Down")
    await key(c, "Home")
    await key(c, "ctrl+Return")
    await save_keeping_format(c)


@solution("6d144b89-a29c-4db5-8b65-f8b1ae60f940")  # strike the last paragraph through
async def _writer_strike(c: Computer, task: dict) -> None:
    await lo_document(c, "todo.docx")
    await key(c, "ctrl+End")
    await key(c, "shift+Home")
    await lo_menu(c, "Format", "Text", "Strikethrough")
    await save_keeping_format(c)


@solution("0344ef08-5429-4572-9f6c-d30bded3511f")  # a 2x3 table at the end
async def _writer_table(c: Computer, task: dict) -> None:
    await lo_document(c, "plan.docx")
    await key(c, "ctrl+End")
    await key(c, "ctrl+F12")
    _, rows = await wait_for(c, lambda o: dialogs(o, "Insert Table") and elements(o, "Rows", "spin_button"),
                             "the Insert Table dialog's Rows field")
    _ok(await c.click(rows[0], button="triple_click"), "select the number of rows")
    await type_text(c, "3")
    await click(c, "Insert", "button")
    await dialog_closed(c, "Insert Table")
    await type_text(c, "Day\tTask\tMon\tDraft\tTue\tReview")
    await save_keeping_format(c)


@solution("a439e69d-7d8b-48d8-8196-b308f8a78241")  # double line spacing
async def _writer_spacing(c: Computer, task: dict) -> None:
    await lo_document(c, "essay.docx")
    await key(c, "ctrl+a")
    await lo_menu(c, "Format", "Spacing", "Line Spacing: 2")
    await save_keeping_format(c)


@solution("ceb3bf55-1722-4389-9fa2-f0e642802108")  # two paragraphs in an empty memo
async def _writer_memo(c: Computer, task: dict) -> None:
    await lo_document(c, "memo.docx")
    await type_text(c, "Team meeting moved to 3 pm.\nRoom 204.")
    await save_keeping_format(c)


# ---- libreoffice_impress

async def impress_slide(c: Computer, title: str) -> None:
    """Makes the slide titled `title` the current one (its thumbnail in the Slides pane)."""
    await click(c, title, "other", what=f"the thumbnail of slide {title!r}")


@solution("c259f455-93e9-4610-b790-3136f803fe79")  # retitle slide 1
async def _impress_title(c: Computer, task: dict) -> None:
    await lo_document(c, "roadmap.pptx")
    await key(c, "Tab")  # selects the slide's first object, its title
    await key(c, "F2")  # edits its text
    await key(c, "ctrl+a")
    await type_text(c, "Roadmap 2025")
    await key(c, "Escape")
    await save_keeping_format(c)


@solution("f6b5d5ed-7e2e-4cee-8021-2ffbce4a7d16")  # duplicate slide 2
async def _impress_duplicate(c: Computer, task: dict) -> None:
    await lo_document(c, "roadmap.pptx")
    await impress_slide(c, "Risks")
    await lo_menu(c, "Slide", "Duplicate Slide")
    await save_keeping_format(c)


@solution("8ac9cf01-6964-488b-ab53-0d3242914896")  # portrait
async def _impress_portrait(c: Computer, task: dict) -> None:
    await lo_document(c, "roadmap.pptx")
    # The sidebar's Slide deck: Orientation.
    await click(c, "Landscape", "toggle_button")
    await click(c, "Portrait", "cell", what="the Portrait choice")
    # Keys typed in the sidebar stay there: ctrl+s saves from the Slides pane.
    await impress_slide(c, "Roadmap 2024")
    await save_keeping_format(c)


@solution("aeffa977-9fad-419f-b206-583f58af7902")  # strike the first bullet of slide 2 through
async def _impress_strike(c: Computer, task: dict) -> None:
    await lo_document(c, "roadmap.pptx")
    await impress_slide(c, "Risks")
    await click(c, "Budget", "text", what="the bullet Budget")  # a click in the text edits it there
    await key(c, "Home")
    await key(c, "shift+End")
    await lo_menu(c, "Format", "Text", "Strikethrough")
    await key(c, "Escape")
    await save_keeping_format(c)


def in_dialog(obs: Observation, title: str, label: str, role: str) -> list[Element]:
    """Elements `label` (`role`) inside the dialog titled `title`."""
    found = dialogs(obs, title)
    if not found:
        return []
    x, y, w, h = found[0].bounds
    return [e for e in elements(obs, label, role) if x <= e.bounds[0] < x + w and y <= e.bounds[1] < y + h]


async def impress_started_empty(c: Computer) -> None:
    """Impress started without a file greets with "Select a Template" and, on a profile's first start,
    a "Tip of the Day" (OSWorld's own image has tips turned off): closes both as a person would, and
    waits for the presentation's window to be the active one."""
    await click_found(c, lambda o: in_dialog(o, "Select a Template", "Close", "button"), "the template dialog's Close")
    await dialog_closed(c, "Select a Template")

    def next_screen(o: Observation) -> object:
        if "Tip of the Day" in (o.window or ""):
            return "tip"
        return "Impress" in (o.window or "") and elements(o, role="document") and "impress"

    _, screen = await wait_for(c, next_screen, "Impress's window or its Tip of the Day")
    if screen == "tip":
        await click(c, "OK", "button", what="the Tip of the Day's OK")
        await wait_for(c, lambda o: "Tip of the Day" not in (o.window or ""), "the Tip of the Day to close")


async def lo_options_page(c: Computer, group: str, page: str) -> None:
    """Opens Tools > Options and its page `page` under `group` (a name such as "General" is under
    several groups: the one below `group` is taken)."""
    await lo_menu(c, "Tools", "Options...")
    await window(c, "Options")
    await click(c, group, "cell", button="double_click", what=f"the {group!r} group")  # opens it

    def below_group(o: Observation) -> list[Element]:
        top = elements(o, group, "cell")
        return [e for e in elements(o, page, "cell") if top and e.bounds[1] > top[0].bounds[1]]

    await click_found(c, below_group, f"the page {page!r} under {group!r}")
    await window(c, f"Options - {group} - {page}")


@solution("7c5e4476-49a6-4fb6-b9eb-2ce0563e4421")  # delete the last slide
async def _impress_delete(c: Computer, task: dict) -> None:
    await lo_document(c, "roadmap.pptx")
    await impress_slide(c, "Thanks")
    await lo_menu(c, "Slide", "Delete Slide")
    await save_keeping_format(c)


# OSWorld's published Impress tasks (published/libreoffice_impress): Impress starts without a file.

@solution("2cd43775-7085-45d8-89fa-9e35c0a915cf")  # AutoRecovery every 3 minutes
async def _published_autosave(c: Computer, task: dict) -> None:
    await impress_started_empty(c)
    await lo_options_page(c, "Load/Save", "General")
    await click(c, "Save AutoRecovery information every:", "checkbox")

    def minutes(o: Observation) -> list[Element]:
        boxes = elements(o, "Save AutoRecovery information every:", "checkbox", state="checked")
        # The minutes field beside the box, enabled once it is checked.
        return [e for e in elements(o, role="spin_button")
                if boxes and "disabled" not in e.states and abs(e.bounds[1] - boxes[0].bounds[1]) < 20]

    await click_found(c, minutes, "the AutoRecovery minutes")
    await key(c, "ctrl+a")
    await type_text(c, "3")
    await key(c, "Tab")
    await wait_for(c, lambda o: any(e.value == "3" for e in minutes(o)), "3 minutes")
    await click(c, "OK", "button", what="the Options dialog's OK")
    await wait_for(c, lambda o: "Options" not in (o.window or ""), "the Options dialog to close")


@solution("ef9d12bd-bcee-4ba0-a40e-918400f43ddf")  # the Slides pane back
async def _published_slide_pane(c: Computer, task: dict) -> None:
    await window(c, "LibreOffice Impress")
    await lo_menu(c, "View", "Slide Pane")
    await wait_for(c, lambda o: elements(o, "Slides View", "document"), "the Slides pane")


# ---- chrome

# What the browser calls itself in its window titles and its menu button: Debian's Chromium here,
# Google Chrome on OSWorld's own image.
BROWSER_NAMES = ("Chromium", "Google Chrome", "Chrome")


async def chrome_window(c: Computer) -> Observation:
    """Waits for a browser window showing a page (a new tab, say: OSWorld's tasks start Chrome so)."""
    return (await wait_for(c, lambda o: (o.window or "").endswith(BROWSER_NAMES) and elements(o, role="document") and o,
                           "a Chrome window", 60))[0]


async def chrome_page(c: Computer, title_part: str) -> Observation:
    """Waits for Chrome's window showing a page whose title holds `title_part`, with its content."""
    return (await wait_for(c, lambda o: title_part in (o.window or "") and elements(o, role="document") and o,
                           f"Chrome showing {title_part!r}", 60))[0]


@solution("5c891b6b-eca4-4059-a06f-71c5db95eb4b")  # bookmark the page on the bookmarks bar
async def _chrome_bookmark(c: Computer, task: dict) -> None:
    await chrome_page(c, "Harbor Bakery")
    await key(c, "ctrl+d")
    await click(c, "Folder", "combo_box")  # new bookmarks go to Other bookmarks
    await click(c, "Bookmarks bar", "menu_item")
    await click(c, "Done", "button")
    await dialog_closed(c, "Bookmark added")


@solution("d98a8a66-4c94-4ba8-a49a-09f95139154b")  # download the menu
async def _chrome_download(c: Computer, task: dict) -> None:
    await chrome_page(c, "Harbor Bakery")
    await click(c, "Download our menu (CSV)", "link")


async def chrome_bookmarks_bar_folder(c: Computer, name: str) -> None:
    """Adds a folder `name` to the bookmarks bar through the bookmark manager."""
    await key(c, "ctrl+shift+o")  # the bookmark manager, the bookmarks bar selected
    await chrome_page(c, "Bookmarks")
    await click(c, "Organize", "button")
    await click(c, "Add new folder", "menu_item")
    await wait_for(c, lambda o: elements(o, "Name", "entry", state="focused"), "the new folder's name field")
    await type_text(c, name)
    await click(c, "Save", "button")
    await wait_for(c, lambda o: elements(o, f"More actions for {name}", "button"), f"the folder {name} in the list")


@solution("e9de56bd-cf6b-48d0-8be7-0f569a324366")  # a folder Work on the bookmarks bar
async def _chrome_folder(c: Computer, task: dict) -> None:
    await chrome_page(c, "Harbor Bakery")
    await chrome_bookmarks_bar_folder(c, "Work")


async def chrome_settings(c: Computer) -> None:
    """Opens Chrome's settings from its menu (an address typed there would be chrome://, which the
    computer tool does not open). The menu button is the rightmost of the toolbar's buttons named
    after the browser: on its own pages the address bar's site chip is named so too."""
    await click_found(c, lambda o: sorted((e for e in elements(o, role="button")
                                           if e.label in BROWSER_NAMES and e.bounds[1] < 100),
                                          key=lambda e: -e.bounds[0]), "Chrome's menu button")
    await click(c, "Settings", "menu_item")
    await chrome_page(c, "Settings")


async def chrome_settings_page(c: Computer, section: str, *links: str) -> None:
    """Opens `section` of Chrome's settings (its side menu), then the links of its rows in turn (by the
    start of their names: a row's link is named by its title and its summary)."""
    await chrome_settings(c)
    await click(c, section, "menu_item")
    # The page scrolls itself to the section first: a wheel turned meanwhile is undone.
    await wait_for(c, lambda o: f"Settings - {section}" in (o.window or "") and elements(o, section, "heading"),
                   f"the {section!r} settings")
    for link in links:
        def row(o: Observation) -> list[Element]:
            return [e for e in elements(o, role="link") if e.label.startswith(link)]

        await chrome_settings_scroll_to(c, row)
        await click_found(c, row, f"the {link!r} row")


async def chrome_settings_scroll_to(c: Computer, find: Callable[[Observation], list[Element]]) -> None:
    """Scrolls Chrome's settings page down until `find` lists something (a row below the fold), a few
    turns of the wheel at most (each scroll comes back settled)."""
    for _ in range(6):
        obs = _observed(await c.see())
        if find(obs):
            return
        page = [e for e in elements(obs, role="document") if "Settings" in e.label]
        if not page:
            await asyncio.sleep(0.3)  # the page is not listed yet: look again
            continue
        await c.scroll(page[0], "down", 5)


@solution("3ecd4ac7-6f98-4263-9d74-f7386bfb2366")  # always show the bookmarks bar
async def _chrome_bookmarks_bar(c: Computer, task: dict) -> None:
    await chrome_page(c, "Harbor Bakery")
    await chrome_settings(c)
    await click(c, "Appearance", "menu_item")
    await click(c, "Bookmarks bar", "combo_box")
    await click(c, "Always show", "menu_item")
    await wait_for(c, lambda o: any(e.value == "Always show" for e in elements(o, "Bookmarks bar", "combo_box")),
                   "the bookmarks bar set to Always show")


async def chrome_profile_name(c: Computer, name: str) -> None:
    """Names the profile `name` in Chrome's settings."""
    await chrome_settings(c)
    await click(c, "Customize profile", "link")
    _, found = await wait_for(c, lambda o: elements(o, "Name", "entry"), "the profile name field")
    _ok(await c.click(found[0], button="triple_click"), "select the profile name")
    await type_text(c, f"{name}\n")
    await wait_for(c, lambda o: any(e.value == name for e in elements(o, "Name", "entry")), f"the name {name}")


@solution("e29836b2-8b1d-444c-837e-607c908f2db0")  # profile name Bakery
async def _chrome_profile_name(c: Computer, task: dict) -> None:
    await chrome_page(c, "Harbor Bakery")
    await chrome_profile_name(c, "Bakery")


# OSWorld's published Chrome tasks (published/chrome): Chrome starts on a new tab.

@solution("030eeff7-b492-4218-b312-701ec99ee0cc")  # turn on Do Not Track
async def _published_do_not_track(c: Computer, task: dict) -> None:
    await chrome_window(c)
    await chrome_settings_page(c, "Privacy and security", "Third-party cookies")
    await click(c, "Do Not Track", "toggle_button", contains=True)
    await click(c, "Confirm", "button", what="the Do Not Track dialog's Confirm")
    await wait_for(c, lambda o: any("checked" in e.states for e in elements(o, role="toggle_button", contains="Do Not Track")),
                   "Do Not Track switched on")


@solution("9656a811-9b5b-4ddf-99c7-5117bcef0626")  # Safe Browsing's enhanced protection
async def _published_safe_browsing(c: Computer, task: dict) -> None:
    await chrome_window(c)
    await chrome_settings_page(c, "Privacy and security", "Security")
    await click(c, "Enhanced protection", "radio")
    await wait_for(c, lambda o: elements(o, "Enhanced protection", "radio", state="checked"), "enhanced protection chosen")


@solution("af630914-714e-4a24-a7bb-f9af687d3b91")  # the largest font size
async def _published_font_size(c: Computer, task: dict) -> None:
    await chrome_window(c)
    await chrome_settings_page(c, "Appearance")

    def font_size(o: Observation) -> list[Element]:
        return elements(o, "Font size", "combo_box")

    await chrome_settings_scroll_to(c, font_size)
    await click_found(c, font_size, "the Font size list")
    await click(c, "Very large", "menu_item")
    await wait_for(c, lambda o: any(e.value == "Very large" for e in font_size(o)), "the font size Very large")


@solution("2ad9387a-65d8-4e33-ad5b-7580065a27ca")  # a folder Favorites on the bookmarks bar
async def _published_favorites_folder(c: Computer, task: dict) -> None:
    await chrome_window(c)
    await chrome_bookmarks_bar_folder(c, "Favorites")


@solution("2ae9ba84-3a0d-4d4c-8338-3a1478dc5fe3")  # the profile's name to Thomas
async def _published_profile_name(c: Computer, task: dict) -> None:
    await chrome_window(c)
    await chrome_profile_name(c, "Thomas")


# ---- multi_apps

def _lines(element: Element) -> list[str]:
    return (element.value or element.label or "").splitlines()


async def terminal_output(c: Computer, command: str) -> str:
    """Runs `command` in the focused terminal and reads the line it printed from the screen."""
    await type_text(c, command + "\n")

    def printed(o: Observation) -> Optional[str]:
        for term in elements(o, role="terminal"):
            lines = _lines(term)
            for i, line in enumerate(lines):
                if line.rstrip().endswith(command) and i + 1 < len(lines) and lines[i + 1].strip():
                    return lines[i + 1].strip()
        return None

    _, line = await wait_for(c, printed, f"the output of {command!r}", 15)
    return line


@solution("9a07e1ef-b37f-4651-be13-edf9de2498cd")  # sales.csv -> sales.xlsx
async def _multi_csv_xlsx(c: Computer, task: dict) -> None:
    await terminal(c)
    await run_in_terminal(c, "libreoffice --calc ~/sales.csv &")
    await click(c, "OK", "button", what="the Text Import dialog's OK", timeout=60)
    await lo_document(c, "sales.csv")
    await key(c, "ctrl+shift+s")
    _, types = await wait_for(c, lambda o: [e for e in elements(o, role="combo_box") if "(.csv)" in (e.value or "")],
                              "the Save As dialog's file type")
    _ok(await c.click(types[0]), "open the file types")
    await click(c, "Excel 2007–365 (.xlsx)", MENU_ROLES + ("list_item", "cell"), what="the type Excel 2007–365")
    await wait_for(c, lambda o: [e for e in elements(o, role="combo_box") if "(.xlsx)" in (e.value or "")],
                   "the type Excel 2007–365 chosen")
    await click(c, "Save", "button")
    await keep_format(c)


@solution("fd36d65c-5eec-4221-b91f-4fffac6eb351")  # notes.txt to the end of report.docx
async def _multi_mousepad_writer(c: Computer, task: dict) -> None:
    last_line = "Book the review for Thursday."

    def notes_in(o: Observation) -> Optional[str]:
        return next((e.value or e.label for e in o.elements
                     if e.source != "ocr" and last_line in (e.value or e.label)), None)

    await window(c, "notes.txt")
    # The notes are read off Mousepad's text area and typed into Writer: a paste from Mousepad's
    # clipboard into Writer arrived in only three runs of four.
    _, notes = await wait_for(c, notes_in, "the notes in Mousepad")
    # A click on a part of Writer that Mousepad does not cover brings Writer forward: its vertical
    # scroll bar, at the screen's right edge (the document is shorter than a page: nothing scrolls).
    await click_found(c, lambda o: sorted(elements(o, "Vertical scroll bar", "scrollbar"), key=lambda e: -e.bounds[0]),
                      "Writer's scroll bar")
    await lo_document(c, "report.docx")
    # The keys go to the text, not to the scroll bar.
    await click(c, "Quarterly Report", "text", what="Writer's first paragraph")
    await key(c, "ctrl+End")
    await type_text(c, "\n" + notes.strip())
    await wait_for(c, lambda o: "report.docx" in (o.window or "") and notes_in(o), "the notes in Writer", 10)
    await save_keeping_format(c)


@solution("856aa165-6176-4e25-a5f7-63755795234b")  # count the logs into B1 of summary.xlsx
async def _multi_terminal_calc(c: Computer, task: dict) -> None:
    await lo_document(c, "summary.xlsx")
    await terminal(c)
    count = await terminal_output(c, "ls ~/logs/*.log | wc -l")
    if not count.isdigit():
        raise NotSolved(f"wc printed {count!r}")
    # Leaving the terminal hands the focus back to Calc.
    await run_in_terminal(c, "exit")
    await lo_document(c, "summary.xlsx")
    await calc_enter(c, "B1", count)
    await save_keeping_format(c)


# What Calc's status bar says of a selection holding numbers: their average, then their sum.
STATUS_SUM = re.compile(r"Average:\s*-?[\d.,]+\s*;\s*Sum:\s*(-?[\d.,]+)")


@solution("63893ff2-d6b4-4358-b863-59bac5759fc9")  # the total of Amount into total.txt
async def _multi_calc_text(c: Computer, task: dict) -> None:
    await lo_document(c, "expenses.xlsx")
    await calc_goto(c, "B2:B5")

    # Calc's status bar sums the selection ("Average: 85.9375; Sum: 343.75"), a moment after the
    # selection changed: until then it still tells of the cell before, the empty A1 ("Average: ;
    # Sum: 0"). Only a status bar with an average tells of cells with numbers in them.
    def selection_sum(o: Observation) -> Optional[str]:
        for e in o.elements:
            found = STATUS_SUM.search(e.label) if e.source != "ocr" else None
            if found:
                return found.group(1)
        return None

    _, total = await wait_for(c, selection_sum, "the sum of B2:B5 in the status bar")
    await terminal(c)
    await run_in_terminal(c, f"echo {total} > ~/total.txt")


@solution("e8e8b4ad-35d4-4aed-969a-b780f204244d")  # report.pdf into outbox
async def _multi_writer_pdf(c: Computer, task: dict) -> None:
    await lo_document(c, "report.docx")
    await lo_menu(c, "File", "Export As", "Export Directly as PDF")
    await click(c, "Export", "button", what="the Export dialog's Export button")
    await dialog_closed(c, "Export")
    await terminal(c)
    await run_in_terminal(c, "mv ~/report.pdf ~/outbox/")


# OSWorld's published VLC tasks (published/vlc): VLC starts empty, each asks for one preference. The
# evaluator reads ~/.config/vlc/vlcrc, which VLC writes when its preferences are saved.

async def vlc_preferences(c: Computer, *, show_all: bool = False) -> None:
    """Opens VLC's Tools > Preferences: its simple view, or with `show_all` every setting."""
    await click(c, "Tools", "menu_item", what="VLC's Tools menu", timeout=60.0)
    await click(c, "Preferences", "menu_item")
    await window(c, "Simple Preferences")
    if show_all:
        await click(c, "All", "radio", what="Show settings: All")
        await window(c, "Advanced Preferences")


async def vlc_save_preferences(c: Computer) -> None:
    await click(c, "Save", "button", what="the preferences' Save")
    await wait_for(c, lambda o: "Preferences" not in (o.window or ""), "the preferences to close")


async def vlc_qt_settings(c: Computer, find: Callable[[Observation], list[Element]]) -> None:
    """Opens every setting of VLC's Qt interface (Interface > Main interfaces > Qt, found through the
    settings' filter) and scrolls its page until `find` lists something (a setting below the fold)."""
    await vlc_preferences(c, show_all=True)
    # The filter: the settings' only field without a label, above the tree.
    _, fields = await wait_for(c, lambda o: sorted(elements(o, "", "entry"), key=lambda e: e.bounds[1]),
                               "the settings' filter")
    await type_text(c, "qt", fields[0])
    await click(c, "Qt", "list_item", what="the Qt interface's settings")
    await vlc_scroll_page_until(c, "Qt interface", find)


async def vlc_scroll_page_until(c: Computer, title: str, find: Callable[[Observation], list[Element]]) -> None:
    """Scrolls the preferences page titled `title` until `find` lists something (a setting below the
    fold: what a scroll area does not show is not listed)."""
    await wait_for(c, lambda o: elements(o, title, "text"), f"the page {title!r}")
    for _ in range(8):
        obs = _observed(await c.see())
        if find(obs):
            return
        heading = elements(obs, title, "text")[0]
        # Below the page's title: its first setting, whichever is scrolled into view.
        page = [e for e in obs.elements
                if e.source == "ax" and e.role in ("checkbox", "text") and e.bounds[1] > heading.bounds[1] + 40
                and e.bounds[0] >= heading.bounds[0]]
        if not page:
            raise NotSolved(f"nothing of the page {title!r} is listed to scroll over")
        await c.scroll(page[0], "down", 5)
    raise NotSolved("the setting never scrolled into view")


async def vlc_set_field(c: Computer, label: str, role: Union[str, tuple], value: str) -> None:
    """Replaces what the field `label` holds with `value` and waits until it shows it."""
    await vlc_qt_settings(c, lambda o: elements(o, label, role))
    await click(c, label, role)
    await key(c, "ctrl+a")
    await type_text(c, value)
    await wait_for(c, lambda o: any(e.value == value for e in elements(o, label, role)), f"{label!r} set to {value}")


@solution("8ba5ae7a-5ae5-4eab-9fcc-5dd4fe3abf89")  # recordings into the Desktop folder
async def _vlc_record_path(c: Computer, task: dict) -> None:
    await vlc_preferences(c)
    await click(c, "Input / Codecs", "checkbox", what="the Input / Codecs settings")
    await click(c, "Record directory or filename", "entry")
    # The evaluator compares the setting with the task's own words, /home/user/Desktop.
    await type_text(c, "/home/user/Desktop")
    await vlc_save_preferences(c)


@solution("a5bbbcd5-b398-4c91-83d4-55e1e31bbb81")  # the toolbar hidden: start in minimal view
async def _vlc_minimal_view(c: Computer, task: dict) -> None:
    await vlc_preferences(c)
    await click(c, "Start in minimal view mode", "checkbox")
    await wait_for(c, lambda o: elements(o, "Start in minimal view mode", "checkbox", state="checked"),
                   "minimal view checked")
    await vlc_save_preferences(c)


@solution("f3977615-2b45-4ac5-8bba-80c17dbe2a37")  # several videos at once: more than one instance
async def _vlc_instances(c: Computer, task: dict) -> None:
    label = "Use only one instance when started from file manager"
    await vlc_preferences(c)
    await click(c, label, "checkbox", what=f"{label!r}")
    await wait_for(c, lambda o: [e for e in elements(o, label, "checkbox") if "checked" not in e.states],
                   f"{label!r} unchecked")
    await vlc_save_preferences(c)


@solution("215dfd39-f493-4bc3-a027-8a97d72c61bf")  # no cone on the splash screen
async def _vlc_no_cone(c: Computer, task: dict) -> None:
    label = "Display background cone or art"
    await vlc_qt_settings(c, lambda o: elements(o, label, "checkbox"))
    await click(c, label, "checkbox")
    await wait_for(c, lambda o: [e for e in elements(o, label, "checkbox") if "checked" not in e.states],
                   f"{label!r} unchecked")
    await vlc_save_preferences(c)


@solution("9195653c-f4aa-453d-aa95-787f6ccfaae9")  # the volume slider up to 200 %
async def _vlc_max_volume(c: Computer, task: dict) -> None:
    await vlc_set_field(c, "Maximum Volume displayed", ("other", "spin_button"), "200")
    await vlc_save_preferences(c)


@solution("d06f0d4d-2cd5-4ede-8de9-598629438c6e")  # a black-ish volume slider
async def _vlc_slider_colours(c: Computer, task: dict) -> None:
    # Four colours, red;green;blue each, along the slider: all near black.
    await vlc_set_field(c, "Define the colors of the volume slider", "entry", ";".join(["20"] * 12))
    await vlc_save_preferences(c)


# handrail's own VLC tasks (tasks/vlc): one preference each, in the simple view, read back from vlcrc.

async def vlc_toggle_preference(c: Computer, label: str, *, checked: bool) -> None:
    """Sets the simple view's check box `label` to `checked` and saves the preferences."""
    await vlc_preferences(c)

    def as_wanted(o: Observation) -> list[Element]:
        return [e for e in elements(o, label, "checkbox") if ("checked" in e.states) == checked]

    await vlc_scroll_page_until(c, "Interface Settings", lambda o: elements(o, label, "checkbox"))
    if not as_wanted(_observed(await c.see())):
        await click(c, label, "checkbox")
        await wait_for(c, as_wanted, f"{label!r} {'checked' if checked else 'unchecked'}")
    await vlc_save_preferences(c)


@solution("3f1c2a7e-8d45-4b6a-9e21-6c0d5b7a9f13")  # pause when minimized
async def _vlc_pause_minimized(c: Computer, task: dict) -> None:
    await vlc_toggle_preference(c, "Pause playback when minimized", checked=True)


@solution("b82e6d94-1c3f-4a57-8e0b-2d9f7a6c4e58")  # no recently played list
async def _vlc_no_recent(c: Computer, task: dict) -> None:
    await vlc_toggle_preference(c, "Save recently played items", checked=False)


@solution("5d7a9c31-e6b2-4f08-a4d3-97c1e2b85f6a")  # the dark palette
async def _vlc_dark_palette(c: Computer, task: dict) -> None:
    await vlc_toggle_preference(c, "Use a dark palette", checked=True)


# OSWorld's published GIMP tasks (published/gimp): GIMP starts empty; the evaluator quits it (ctrl+q)
# and reads the files GIMP then writes, ~/.config/GIMP/2.10/gimprc and sessionrc.

async def gimp_menu(c: Computer, top: str, item: str) -> None:
    """Opens GIMP's menu `top` and clicks `item` (GIMP's first start, its fonts not yet cached, is slow)."""
    await click(c, top, "menu", what=f"GIMP's {top} menu", timeout=120.0)
    await click(c, item, "menu_item")


@solution("7b7617bd-57cc-468e-9c91-40c4ec2bcb3d")  # at least 100 undo steps
async def _gimp_undo_levels(c: Computer, task: dict) -> None:
    field = "Minimal number of undo levels"
    await gimp_menu(c, "Edit", "Preferences")
    await window(c, "Preferences")
    # System Resources is the page the dialog opens on. (Clicking its row again leaves the page's
    # fields unlisted, only read as screen text: a gap in reading GTK 2, noted in docs/OSWORLD.md.)
    await click(c, field, "spin_button")
    await key(c, "ctrl+a")
    await type_text(c, "100")
    # Tab commits the number (the typing itself was read back from the field). The page's fields can
    # drop out of the listing once GIMP redraws it (a GTK 2 gap noted in docs/OSWORLD.md), so what
    # GIMP kept is left to the evaluator, which reads the gimprc GIMP writes.
    await key(c, "Tab")
    await click(c, "OK", "button", what="the Preferences' OK")
    await wait_for(c, lambda o: "Preferences" not in (o.window or ""), "the Preferences to close")


@solution("d52d6308-ec58-42b7-a2c9-de80e4837b2b")  # the docks hidden
async def _gimp_hide_docks(c: Computer, task: dict) -> None:
    await gimp_menu(c, "Windows", "Hide Docks")
    await click(c, "Windows", "menu", what="GIMP's Windows menu")
    await wait_for(c, lambda o: elements(o, "Hide Docks", "menu_item", state="checked"), "Hide Docks checked")
    await key(c, "Escape")

"""Scripted policies for the covered MiniWoB++ tasks.

A policy sees only what an observation lists: it reads the task's instruction from the page's elements,
and names each target by role and label (or by position among its kind, as a person would say "the
second box"). It never reads the page's script or DOM and never aims at coordinates: the executor
resolves each step's target in the latest observation and acts on that element.
"""

import re
from dataclasses import dataclass
from typing import Callable, Optional


@dataclass
class Step:
    action: str                      # "click" or "type"
    locate: Callable[[list], Optional[dict]]
    what: str                        # for logs and failure notes
    text: str = ""
    secret: bool = False             # typing a password: handrail must refuse it


def center(element):
    x, y, w, h = element["bounds"]
    return x + w / 2, y + h / 2


def page_elements(obs):
    """The elements of the front window's web page. Only what a person looking at the front window
    sees counts; the browser's own controls are outside the page's document."""
    elements = obs.get("elements", [])
    front = [e for e in elements if e.get("window") == obs.get("window")] or elements
    docs = [e for e in front if e["role"] == "document"]
    if not docs:
        return front
    dx, dy, dw, dh = docs[0]["bounds"]

    def inside(e):
        cx, cy = center(e)
        return dx <= cx <= dx + dw and dy <= cy <= dy + dh

    return [e for e in front if e["role"] != "document" and inside(e)]


def _prefer_ax(candidates):
    # Accessibility gives exact names; OCR of 10 px text can misread (0 for O), so it only fills gaps.
    return sorted(candidates, key=lambda e: ("ax" not in e["source"], center(e)[1], center(e)[0]))


def by_label(label, roles=None, not_roles=()):
    def locate(elements):
        found = [e for e in elements
                 if e["label"] == label and (roles is None or e["role"] in roles) and e["role"] not in not_roles]
        return (_prefer_ax(found) or [None])[0]
    return locate


def nth(roles, index):
    """The index-th element of these roles in reading order (top to bottom, then left to right)."""
    def locate(elements):
        found = sorted((e for e in elements if e["role"] in roles), key=lambda e: (center(e)[1], center(e)[0]))
        return found[index] if index < len(found) else None
    return locate


ENTRY = ("entry",)
PASSWORD = ("password_entry",)
BUTTON = ("button",)


def click(locate, what):
    return Step("click", locate, what)


def type_into(locate, what, text, secret=False):
    return Step("type", locate, what, text=text, secret=secret)


def _checkboxes(m):
    names = [] if m[1] == "nothing" else m[1].split(", ")
    steps = [click(by_label(n, roles=("checkbox",)), f"checkbox {n!r}") for n in names]
    return steps + [click(by_label("Submit", BUTTON), "Submit")]


def _enter_text_2(m):
    text = m[1].lower() if m[2] == "lower" else m[1].upper()
    return [type_into(nth(ENTRY, 0), "the text field", text), click(by_label("Submit", BUTTON), "Submit")]


def _autocomplete(m):
    """Type the start, pick the suggestion the page lists that fits, submit. The suggestions appear only
    after the page's own delay: the executor keeps looking until one is listed."""
    start, end = m[1], m[2] or ""

    def suggestion(elements):
        found = [e for e in elements
                 if e["role"] not in ENTRY + ("combo_box", "text") and e["label"] != start
                 and e["label"].startswith(start) and e["label"].endswith(end)]
        return (_prefer_ax(found) or [None])[0]

    return [type_into(nth(ENTRY + ("combo_box",), 0), "the field", start),
            click(suggestion, f"a suggestion starting {start!r} ending {end!r}"),
            click(by_label("Submit", BUTTON), "Submit")]


ORDINALS = {"1st": 0, "2nd": 1, "3rd": 2}

# task -> (the instruction as the page words it, the plan for a matched instruction)
TASKS = {
    "click-test": (r"Click the button\.", lambda m: [click(by_label("Click Me!", BUTTON), "the button")]),
    "click-test-2": (r"Click button (ONE|TWO)\.", lambda m: [click(by_label(m[1], BUTTON), f"button {m[1]}")]),
    "click-button": (r'Click on the "(.+)" button\.',
                     lambda m: [click(by_label(m[1], BUTTON), f"button {m[1]!r}")]),
    "click-button-sequence": (r"Click button ONE, then click button TWO\.",
                              lambda m: [click(by_label("ONE", BUTTON), "button ONE"),
                                         click(by_label("TWO", BUTTON), "button TWO")]),
    "click-checkboxes": (r"Select (.*) and click Submit\.", _checkboxes),
    # The links are styled words, not <a> elements: any element with exactly that text other than
    # running text.
    "click-link": (r'Click on the link "(.+)"\.',
                   lambda m: [click(by_label(m[1], not_roles=("text",)), f"link {m[1]!r}")]),
    "click-option": (r"Select (.+) and click Submit\.",
                     lambda m: [click(by_label(m[1], roles=("radio",)), f"option {m[1]!r}"),
                                click(by_label("Submit", BUTTON), "Submit")]),
    "click-tab": (r"Click on (Tab #\d)\.", lambda m: [click(by_label(m[1], roles=("tab",)), m[1])]),
    "enter-text": (r'Enter "(.+)" into the text field and press Submit\.',
                   lambda m: [type_into(nth(ENTRY, 0), "the text field", m[1]),
                              click(by_label("Submit", BUTTON), "Submit")]),
    "enter-text-2": (r'Type "(.+)" in all (lower|upper) case letters in the text input and press Submit\.',
                     _enter_text_2),
    "focus-text": (r"Focus into the textbox\.", lambda m: [click(nth(ENTRY, 0), "the textbox")]),
    "focus-text-2": (r"Focus into the (1st|2nd|3rd) input textbox\.",
                     lambda m: [click(nth(ENTRY, ORDINALS[m[1]]), f"the {m[1]} textbox")]),
    # A jQuery UI autocomplete: its list shows after a delay, while the executor keeps looking.
    "use-autocomplete": (r'Enter an item that starts with "(.+?)"(?: and ends with "(.+?)")?\.', _autocomplete),
    "enter-password": (r'Enter the password "(.+)" into both text fields and press submit\.',
                       lambda m: [type_into(nth(PASSWORD, 0), "the Password field", m[1], secret=True),
                                  type_into(nth(PASSWORD, 1), "the Verify password field", m[1], secret=True),
                                  click(by_label("Submit", BUTTON), "Submit")]),
    "login-user": (r'Enter the username "(.+)" and the password "(.+)" into the text fields and press login\.',
                   lambda m: [type_into(nth(ENTRY, 0), "the Username field", m[1]),
                              type_into(nth(PASSWORD, 0), "the Password field", m[2], secret=True),
                              click(by_label("Login", BUTTON), "Login")]),
}

PASSWORD_TASKS = ("enter-password", "login-user")

# Run only when named (`--tasks`): not part of the sweep whose results docs/MINIWOB.md reports.
BY_NAME_ONLY = ("use-autocomplete",)


def read_instruction(task, elements):
    """The task's instruction as listed in the observation, matched whole; None until it is shown."""
    pattern = re.compile(TASKS[task][0])
    for e in _prefer_ax(elements):
        label = " ".join(e["label"].split())
        m = pattern.fullmatch(label)
        if m:
            return label, m
    return None


def plan(task, match):
    return TASKS[task][1](match)


def start_cover(elements):
    """The page's START cover: an episode begins when a person clicks it."""
    return by_label("START", not_roles=("text",))(elements) or by_label("START")(elements)


def _value_right_of(elements, caption):
    label = next((e for e in _prefer_ax(elements) if e["label"].strip() == caption), None)
    if label is None:
        return None
    lx, ly, lw, lh = label["bounds"]
    row = [e for e in elements
           if e is not label and abs(center(e)[1] - center(label)[1]) <= 4 and e["bounds"][0] >= lx + lw - 2]
    row.sort(key=lambda e: e["bounds"][0])
    return row[0]["label"].strip() if row else None


def reward_panel(elements):
    """(episodes done, last reward) as the page's reward panel shows them, or None where unreadable."""
    done = _value_right_of(elements, "Episodes done:")
    last = _value_right_of(elements, "Last reward:")
    try:
        done = int(done)
    except (TypeError, ValueError):
        done = None
    try:
        last = float(last)
    except (TypeError, ValueError):
        last = None
    return done, last

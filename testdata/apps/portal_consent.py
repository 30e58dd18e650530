#!/usr/bin/env python3
"""Answers GNOME's remote-desktop consent dialog (xdg-desktop-portal-gnome) as a person would,
through its accessibility tree: the test's stand-in for the person at the screen.

    portal_consent.py share              allow remote interaction, keep the monitor chosen, Share
    portal_consent.py share-screen-only  Share without allowing remote interaction
    portal_consent.py cancel             Cancel

Waits up to 60 s for the dialog, prints what it did ("answered share") and exits 0; exits 1 with
the reason when there was no dialog to answer.
"""
import sys
import time

import gi

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi  # noqa: E402

WAIT = 60.0
APP = "xdg-desktop-portal-gnome"


def walk(node, depth=0):
    yield node
    if depth > 40:
        return
    for i in range(node.get_child_count()):
        child = node.get_child_at_index(i)
        if child is not None:
            yield from walk(child, depth + 1)


def has(node, state):
    return node.get_state_set().contains(state)


def actions(node):
    action = node.get_action_iface()
    return [action.get_action_name(i) for i in range(action.get_n_actions())] if action else []


def act(node, name):
    action = node.get_action_iface()
    for i in range(action.get_n_actions()):
        if action.get_action_name(i) == name:
            return action.do_action(i)
    raise RuntimeError(f"no {name} on {node.get_role_name()} {node.get_name()!r}")


def dialog():
    """The portal's dialog window with its Share button showing, or None."""
    desktop = Atspi.get_desktop(0)
    for i in range(desktop.get_child_count()):
        app = desktop.get_child_at_index(i)
        if app is None or app.get_name() != APP:
            continue
        for node in walk(app):
            if node.get_role_name() == "push button" and node.get_name() == "Share" and has(node, Atspi.StateType.SHOWING):
                return app
    return None


def find(app, role, name, action):
    for node in walk(app):
        if node.get_role_name() == role and node.get_name() == name and action in actions(node):
            return node
    raise RuntimeError(f"the dialog has no {role} {name!r} with {action}")


def main():
    answer = sys.argv[1] if len(sys.argv) > 1 else ""
    if answer not in ("share", "share-screen-only", "cancel"):
        print(__doc__, file=sys.stderr)
        return 2
    deadline = time.monotonic() + WAIT
    app = dialog()
    while app is None:
        if time.monotonic() > deadline:
            print(f"no consent dialog of {APP} within {WAIT:.0f} s", file=sys.stderr)
            return 1
        time.sleep(0.2)
        app = dialog()
    if answer == "cancel":
        act(find(app, "push button", "Cancel", "click"), "click")
    else:
        interaction = find(app, "check box", "Allow Remote Interaction", "toggle")
        wanted = answer == "share"
        if has(interaction, Atspi.StateType.CHECKED) != wanted:
            act(interaction, "toggle")
        # The monitor is chosen when the dialog opens (one monitor); choose it if not.
        for node in walk(app):
            if node.get_role_name() == "toggle button" and "click" in actions(node):
                if not (has(node, Atspi.StateType.PRESSED) or has(node, Atspi.StateType.CHECKED)):
                    act(node, "click")
        act(find(app, "push button", "Share", "click"), "click")
    print(f"answered {answer}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

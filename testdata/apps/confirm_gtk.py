#!/usr/bin/python3
"""A real GTK 3 confirmation window for handrail's guard tests.

"Delete 3 files permanently?" with a Reason entry, a "_Keep" button and a "_Delete" button: the
underlines make alt+k and alt+d their mnemonics, and "_Delete" is the window's default, so Return in
the Reason entry activates it (as in many real dialogs). Everything the app receives is printed on
stdout, one line per event, so tests check what really arrived without relying on accessibility:

    keep-clicked
    delete-clicked
    reason=<text>        (on every change of the entry)
    ready                (once shown)

Usage: confirm_gtk.py [--title TITLE]
"""
import sys

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk  # noqa: E402


def say(line):
    print(line, flush=True)


def main():
    title = "Confirm deletion"
    if "--title" in sys.argv:
        title = sys.argv[sys.argv.index("--title") + 1]
    win = Gtk.Window(title=title)
    win.set_default_size(520, 260)
    win.move(700, 60)
    win.connect("destroy", Gtk.main_quit)

    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=12, margin=18)
    win.add(box)
    box.pack_start(Gtk.Label(label="Delete 3 files permanently?"), False, False, 0)

    reason = Gtk.Entry()
    reason.set_placeholder_text("Reason")
    reason.set_activates_default(True)
    reason.connect("changed", lambda e: say("reason=" + e.get_text()))
    row = Gtk.Box(spacing=8)
    row.pack_start(Gtk.Label(label="Reason"), False, False, 0)
    row.pack_start(reason, True, True, 0)
    box.pack_start(row, False, False, 0)

    buttons = Gtk.Box(spacing=8)
    keep = Gtk.Button.new_with_mnemonic("_Keep")
    keep.connect("clicked", lambda _b: say("keep-clicked"))
    delete = Gtk.Button.new_with_mnemonic("_Delete")
    delete.connect("clicked", lambda _b: say("delete-clicked"))
    delete.set_can_default(True)
    buttons.pack_start(keep, False, False, 0)
    buttons.pack_start(delete, False, False, 0)
    box.pack_start(buttons, False, False, 0)

    win.show_all()
    delete.grab_default()
    keep.grab_focus()
    GLib.idle_add(lambda: say("ready") and False)
    Gtk.main()


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""A real GTK 3 editor window for handrail's multi-line typing tests.

A one-line "Title" entry above a multi-line "Notes" text view (GtkTextView takes Tab as text, as it
does by default). What each holds is printed on stdout as JSON strings, once when shown and again on
every change, so tests compare what arrived with what was typed, character for character:

    title=<JSON string>
    notes=<JSON string>
    focus=<title|notes>
    ready                (after the first full report)

Usage: notes_gtk.py [--title TITLE]
"""
import json
import sys

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import Gtk  # noqa: E402


def say(line):
    print(line, flush=True)


def main():
    title = "Notes editor"
    if "--title" in sys.argv:
        title = sys.argv[sys.argv.index("--title") + 1]
    win = Gtk.Window(title=title)
    win.set_default_size(520, 360)
    win.connect("destroy", Gtk.main_quit)
    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=8, margin=12)

    entry = Gtk.Entry()
    entry.get_accessible().set_name("Title")
    entry.connect("changed", lambda e: say("title=" + json.dumps(e.get_text())))
    entry.connect("focus-in-event", lambda *_: say("focus=title"))
    box.pack_start(entry, False, False, 0)

    view = Gtk.TextView()
    view.set_accepts_tab(True)
    view.get_accessible().set_name("Notes")
    buffer = view.get_buffer()

    def notes_changed(b):
        text = b.get_text(b.get_start_iter(), b.get_end_iter(), True)
        say("notes=" + json.dumps(text))

    buffer.connect("changed", notes_changed)
    view.connect("focus-in-event", lambda *_: say("focus=notes"))
    scroller = Gtk.ScrolledWindow()
    scroller.add(view)
    box.pack_start(scroller, True, True, 0)

    win.add(box)
    win.show_all()
    say("title=" + json.dumps(entry.get_text()))
    notes_changed(buffer)
    say("ready")
    Gtk.main()


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""A GTK 3 window that puts text on the clipboard, for the desktop service's reset tests.

    clipboard_gtk.py hold TITLE TEXT   shows a window titled TITLE, owns CLIPBOARD and PRIMARY with
                                       TEXT, prints "ready" once it does, and stays up
    clipboard_gtk.py read              prints what the clipboard holds ("clipboard=<text>", or
                                       "clipboard=<none>" when nobody owns it) and exits
"""
import sys

import gi

gi.require_version("Gdk", "3.0")
gi.require_version("Gtk", "3.0")
from gi.repository import Gdk, GLib, Gtk  # noqa: E402


def hold(title, text):
    window = Gtk.Window(title=title)
    window.set_default_size(360, 120)
    window.add(Gtk.Label(label=title))
    window.connect("destroy", Gtk.main_quit)
    window.show_all()

    def own():
        for selection in (Gdk.SELECTION_CLIPBOARD, Gdk.SELECTION_PRIMARY):
            Gtk.Clipboard.get(selection).set_text(text, -1)
        print("ready", flush=True)
        return False

    GLib.idle_add(own)
    Gtk.main()


def read():
    text = Gtk.Clipboard.get(Gdk.SELECTION_CLIPBOARD).wait_for_text()
    print("clipboard=" + ("<none>" if text is None else text), flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["hold"] and len(sys.argv) == 4:
        hold(sys.argv[2], sys.argv[3])
    elif sys.argv[1:] == ["read"]:
        read()
    else:
        sys.exit(__doc__)

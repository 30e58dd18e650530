#!/usr/bin/python3
"""A real GTK 4 window for handrail's accessibility tests: what recent GNOME apps are built from.

A "Say hello" button, an icon-only button (no name of its own: GTK 4.8 names it after its class), a
one-line "Name" entry, a "PIN" password entry, a multi-line "Notes" text view, and a stack whose
hidden page holds a "Hidden action" button that is never drawn (its shown page says "Shown page",
and "Hello to you too" once the button is clicked). What the app receives is printed on
stdout (of the PIN, only its length):

    clicked hello | clicked icon | clicked hidden
    name=<JSON string>
    pin-length=<n>
    notes=<JSON string>
    ready                (once the window is shown)

Usage: gtk4_probe.py [--title TITLE]
"""
import json
import sys

import gi

gi.require_version("Gtk", "4.0")
from gi.repository import Gio, GLib, Gtk  # noqa: E402


def say(line):
    print(line, flush=True)


def on_activate(app, title):
    win = Gtk.ApplicationWindow(application=app, title=title)
    win.set_default_size(480, 360)
    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=8)
    for side in ("top", "bottom", "start", "end"):
        getattr(box, f"set_margin_{side}")(12)

    row = Gtk.Box(spacing=8)
    status = Gtk.Label(label="Shown page")
    hello = Gtk.Button(label="Say hello")

    def said_hello(*_):
        status.set_label("Hello to you too")
        say("clicked hello")

    hello.connect("clicked", said_hello)
    row.append(hello)
    icon = Gtk.Button(icon_name="edit-find-symbolic")
    icon.connect("clicked", lambda *_: say("clicked icon"))
    row.append(icon)
    box.append(row)

    name = Gtk.Entry()
    name.update_property([Gtk.AccessibleProperty.LABEL], ["Name"])
    name.connect("changed", lambda e: say("name=" + json.dumps(e.get_text())))
    box.append(name)

    pin = Gtk.PasswordEntry()
    pin.update_property([Gtk.AccessibleProperty.LABEL], ["PIN"])
    pin.connect("changed", lambda e: say(f"pin-length={len(e.get_text())}"))
    box.append(pin)

    view = Gtk.TextView()
    view.set_accepts_tab(True)
    view.update_property([Gtk.AccessibleProperty.LABEL], ["Notes"])
    buffer = view.get_buffer()
    buffer.connect(
        "changed", lambda b: say("notes=" + json.dumps(b.get_text(b.get_start_iter(), b.get_end_iter(), True)))
    )
    scroller = Gtk.ScrolledWindow(vexpand=True)
    scroller.set_child(view)
    box.append(scroller)

    stack = Gtk.Stack()
    stack.add_named(status, "shown")
    hidden = Gtk.Button(label="Hidden action")
    hidden.connect("clicked", lambda *_: say("clicked hidden"))
    stack.add_named(hidden, "hidden")
    stack.set_visible_child_name("shown")
    box.append(stack)

    win.set_child(box)
    win.present()

    def ready():
        say("ready")
        return False

    # Once the first frame is drawn: before it, GTK has laid nothing out.
    GLib.timeout_add(300, ready)


def main():
    title = "GTK 4 probe"
    if "--title" in sys.argv:
        title = sys.argv[sys.argv.index("--title") + 1]
    # Several probes may run at once, each its own window.
    app = Gtk.Application(application_id="org.handrail.Gtk4Probe", flags=Gio.ApplicationFlags.NON_UNIQUE)
    app.connect("activate", lambda a: on_activate(a, title))
    app.run([sys.argv[0]])


if __name__ == "__main__":
    main()

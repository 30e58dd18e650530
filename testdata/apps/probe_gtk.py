#!/usr/bin/python3
"""A small real GTK 3 app for handrail's tests and benchmarks.

Widgets: a "Change" button that flips a status label, a name entry, a password entry, an
"I agree" checkbox, a "Does nothing" button, a "Delete account" button and a 200-row list.
Everything the app observes is also printed on stdout, one line per event, so tests can check what
really arrived without relying on accessibility:

    clicked Change            status=after
    name=<text>               (on every change of the name entry)
    password-length=<n>       (never the password itself)
    agree=True|False
    row=<index>               (a list row was selected)
    delete-clicked
    geometry <name> <x> <y> <w> <h>   (screen coordinates of each widget, once mapped)

Usage: probe_gtk.py [--title TITLE] [--at X Y]
"""
import sys

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk  # noqa: E402


def say(line):
    print(line, flush=True)


def main():
    title = "handrail probe"
    if "--title" in sys.argv:
        title = sys.argv[sys.argv.index("--title") + 1]
    win = Gtk.Window(title=title)
    win.set_default_size(640, 520)
    x, y = 40, 40
    if "--at" in sys.argv:
        at = sys.argv.index("--at")
        x, y = int(sys.argv[at + 1]), int(sys.argv[at + 2])
    win.move(x, y)
    win.connect("destroy", Gtk.main_quit)

    grid = Gtk.Grid(row_spacing=8, column_spacing=8, margin=16)
    win.add(grid)

    status = Gtk.Label(label="status: before")
    change = Gtk.Button(label="Change")

    def on_change(_button):
        after = status.get_text() == "status: before"
        status.set_text("status: after" if after else "status: before")
        say("clicked Change")
        say("status=" + ("after" if after else "before"))

    change.connect("clicked", on_change)
    grid.attach(change, 0, 0, 1, 1)
    grid.attach(status, 1, 0, 1, 1)

    grid.attach(Gtk.Label(label="Name"), 0, 1, 1, 1)
    name = Gtk.Entry()
    name.set_hexpand(True)
    name.connect("changed", lambda e: say("name=" + e.get_text()))
    grid.attach(name, 1, 1, 1, 1)

    grid.attach(Gtk.Label(label="Password"), 0, 2, 1, 1)
    password = Gtk.Entry()
    password.set_visibility(False)
    password.connect("changed", lambda e: say("password-length=%d" % len(e.get_text())))
    grid.attach(password, 1, 2, 1, 1)

    agree = Gtk.CheckButton(label="I agree")
    agree.connect("toggled", lambda c: say("agree=%s" % c.get_active()))
    grid.attach(agree, 0, 3, 2, 1)

    grid.attach(Gtk.Button(label="Does nothing"), 0, 4, 1, 1)
    delete = Gtk.Button(label="Delete account")
    def on_delete(_button):
        status.set_text("status: account deleted")
        say("delete-clicked")

    delete.connect("clicked", on_delete)
    grid.attach(delete, 1, 4, 1, 1)

    store = Gtk.ListStore(str)
    for i in range(200):
        store.append(["Row %d" % i])
    view = Gtk.TreeView(model=store)
    view.append_column(Gtk.TreeViewColumn("Rows", Gtk.CellRendererText(), text=0))

    def on_select(selection):
        model, it = selection.get_selected()
        if it is not None:
            say("row=%s" % model.get_path(it).get_indices()[0])

    view.get_selection().connect("changed", on_select)
    scroller = Gtk.ScrolledWindow()
    scroller.set_size_request(300, 200)
    scroller.add(view)
    grid.attach(scroller, 0, 5, 2, 1)

    named = {
        "Change": change,
        "status": status,
        "Name": name,
        "Password": password,
        "I agree": agree,
        "Delete account": delete,
        "List": scroller,
    }

    def report_geometry(*_args):
        gdk_window = win.get_window()
        if gdk_window is None:
            return True
        _, ox, oy = gdk_window.get_origin()
        for label, widget in named.items():
            alloc = widget.get_allocation()
            x, y = widget.translate_coordinates(win, 0, 0)
            say("geometry %s %d %d %d %d" % (label.replace(" ", "_"), ox + x, oy + y, alloc.width, alloc.height))
        say("ready")
        return False

    win.connect("map-event", lambda *_a: GLib.timeout_add(50, report_geometry))
    win.show_all()
    Gtk.main()


if __name__ == "__main__":
    main()

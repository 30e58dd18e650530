#!/usr/bin/python3
"""The backend conformance suite's probe (crates/conformance) built with GTK 4, what GNOME's own apps
are built with: the same widgets and the same stdout lines as conformance_gtk.py, so every check runs
unchanged against either.

    geometry <name> <x> <y> <w> <h>   each widget once laid out, in the coordinates of the window's
                                      surface (its shadow included): GTK 4 knows no screen coordinates
    ready
    clicked Change                     (and the status label beside it flips)
    name=<text>                        on every change of the Name entry
    key <name> <modifiers>             every key press on the window (e.g. "key k ctrl+shift")
    scroll=<value>                     the list's scroll position, on every change
    late-done                          300 ms after F9 was pressed ("Later" changes its label then;
                                       the press itself repaints nothing)
    spinning                           F7 was pressed: the spinner right of Name turns from now on
                                       (a label redrawn every 40 ms, animations on or off)
    dropped                            "Card" was dragged and dropped onto "Drop here"
    card-pressed, drag-begin, drag-failed <reason>   what happened to a drag, for a failure to say

Usage: conformance_gtk4.py [--title TITLE]
"""
import sys

import gi

gi.require_version("Gtk", "4.0")
gi.require_version("Gdk", "4.0")
gi.require_version("Graphene", "1.0")
from gi.repository import Gdk, Gio, GLib, GObject, Graphene, Gtk  # noqa: E402


def say(line):
    print(line, flush=True)


def modifiers(state):
    mods = []
    if state & Gdk.ModifierType.CONTROL_MASK:
        mods.append("ctrl")
    if state & Gdk.ModifierType.ALT_MASK:
        mods.append("alt")
    if state & Gdk.ModifierType.SHIFT_MASK:
        mods.append("shift")
    if state & Gdk.ModifierType.SUPER_MASK:
        mods.append("super")
    return "+".join(mods) or "-"


def on_activate(app, title):
    win = Gtk.ApplicationWindow(application=app, title=title)
    win.set_default_size(640, 520)

    later = Gtk.Button(label="Later")

    def on_key(_controller, keyval, _keycode, state):
        name = Gdk.keyval_name(Gdk.keyval_to_lower(keyval)) or str(keyval)
        say("key %s %s" % (name, modifiers(state)))
        if name == "F9":
            def done():
                later.set_label("Done later")
                say("late-done")
                return False

            GLib.timeout_add(300, done)
        if name == "F7":
            def turn():
                turns[0] += 1
                spinner.set_text("|/-\\"[turns[0] % 4] * 3)
                return True

            GLib.timeout_add(40, turn)
            say("spinning")
        return False

    # Every key the window gets, before the focused widget takes it (GTK 3's key-press-event did so).
    keys = Gtk.EventControllerKey()
    keys.set_propagation_phase(Gtk.PropagationPhase.CAPTURE)
    keys.connect("key-pressed", on_key)
    win.add_controller(keys)

    grid = Gtk.Grid(row_spacing=8, column_spacing=8)
    for side in ("top", "bottom", "start", "end"):
        getattr(grid, f"set_margin_{side}")(16)
    win.set_child(grid)

    status = Gtk.Label(label="status: before")
    change = Gtk.Button(label="Change")

    def on_change(_b):
        after = status.get_text() == "status: before"
        status.set_text("status: after" if after else "status: before")
        say("clicked Change")

    change.connect("clicked", on_change)
    grid.attach(change, 0, 0, 1, 1)
    grid.attach(later, 1, 0, 1, 1)
    grid.attach(status, 2, 0, 1, 1)

    grid.attach(Gtk.Label(label="Name"), 0, 1, 1, 1)
    name = Gtk.Entry()
    name.set_hexpand(True)
    name.update_property([Gtk.AccessibleProperty.LABEL], ["Name"])
    name.connect("changed", lambda e: say("name=" + e.get_text()))
    grid.attach(name, 1, 1, 1, 1)
    # An animation that runs beside everything else once asked for. Drawn by the app itself, so it
    # turns whatever the desktop's animation setting (GTK's own spinner stands still when it is off).
    spinner = Gtk.Label(label="")
    turns = [0]
    grid.attach(spinner, 2, 1, 1, 1)

    card = Gtk.Button(label="Card")
    source = Gtk.DragSource(actions=Gdk.DragAction.COPY)
    source.connect("prepare", lambda *_a: Gdk.ContentProvider.new_for_value("card"))
    source.connect("drag-begin", lambda *_a: say("drag-begin"))
    source.connect("drag-cancel", lambda _s, _d, reason: say("drag-failed %s" % reason.value_nick) and False)
    card.add_controller(source)
    pressed = Gtk.GestureClick()
    pressed.set_propagation_phase(Gtk.PropagationPhase.CAPTURE)
    pressed.connect("pressed", lambda *_a: say("card-pressed"))
    card.add_controller(pressed)
    grid.attach(card, 0, 2, 1, 1)

    drop = Gtk.Button(label="Drop here")
    target = Gtk.DropTarget.new(GObject.TYPE_STRING, Gdk.DragAction.COPY)

    def on_drop(_t, value, _x, _y):
        say("dropped")
        return True

    target.connect("drop", on_drop)
    drop.add_controller(target)
    grid.attach(drop, 1, 2, 1, 1)

    rows = Gtk.ListBox()
    for i in range(200):
        rows.append(Gtk.Label(label="Row %d" % i, xalign=0))
    scroller = Gtk.ScrolledWindow()
    scroller.set_size_request(300, 200)
    scroller.set_vexpand(True)
    scroller.set_child(rows)
    scroller.get_vadjustment().connect("value-changed", lambda a: say("scroll=%d" % a.get_value()))
    grid.attach(scroller, 0, 3, 2, 1)

    named = {"Change": change, "Later": later, "Name": name, "Card": card, "Drop here": drop, "List": scroller}

    def report_geometry():
        if not win.get_mapped() or any(w.get_width() == 0 for w in named.values()):
            return True
        # Where the window widget starts in its surface (past the shadow GTK draws around it).
        sx, sy = win.get_surface_transform()
        for label, widget in named.items():
            ok, point = widget.compute_point(win, Graphene.Point())
            if not ok:
                return True
            x, y = round(sx + point.x), round(sy + point.y)
            say("geometry %s %d %d %d %d" % (label.replace(" ", "_"), x, y, widget.get_width(), widget.get_height()))
        say("ready")
        return False

    win.present()
    # Once laid out and drawn: before the first frame GTK has placed nothing.
    GLib.timeout_add(50, report_geometry)


def main():
    title = "handrail conformance"
    if "--title" in sys.argv:
        title = sys.argv[sys.argv.index("--title") + 1]
    # Several probes may run at once, each its own window.
    app = Gtk.Application(application_id="org.handrail.ConformanceGtk4", flags=Gio.ApplicationFlags.NON_UNIQUE)
    app.connect("activate", lambda a: on_activate(a, title))
    app.run([sys.argv[0]])


if __name__ == "__main__":
    main()

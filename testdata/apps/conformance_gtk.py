#!/usr/bin/python3
"""The GTK 3 app the backend conformance suite (crates/conformance) drives on every real backend.

It prints on stdout, one line per event, everything it receives, so the suite checks what really
arrived without relying on the backend under test:

    geometry <name> <x> <y> <w> <h>   each widget once mapped: screen coordinates on X11, coordinates
                                      in the window's surface on Wayland (where the app knows no more)
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

Usage: conformance_gtk.py [--title TITLE] [--fullscreen]

--fullscreen: the window fills its monitor, without decorations or shadows, and its geometry is
reported once it does, so that on a compositor that says nowhere where a window lies (mutter without
GNOME Shell) its surface starts at the monitor's origin.
"""
import sys

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, GLib, Gtk  # noqa: E402


def say(line):
    print(line, flush=True)


def main():
    title = "handrail conformance"
    if "--title" in sys.argv:
        title = sys.argv[sys.argv.index("--title") + 1]
    fullscreen = "--fullscreen" in sys.argv
    win = Gtk.Window(title=title)
    win.set_default_size(640, 520)
    if fullscreen:
        win.fullscreen()
    win.connect("destroy", Gtk.main_quit)

    def on_key(_w, ev):
        mods = []
        state = ev.state
        if state & Gdk.ModifierType.CONTROL_MASK:
            mods.append("ctrl")
        if state & Gdk.ModifierType.MOD1_MASK:
            mods.append("alt")
        if state & Gdk.ModifierType.SHIFT_MASK:
            mods.append("shift")
        if state & Gdk.ModifierType.SUPER_MASK or state & Gdk.ModifierType.MOD4_MASK:
            mods.append("super")
        name = Gdk.keyval_name(Gdk.keyval_to_lower(ev.keyval)) or str(ev.keyval)
        say("key %s %s" % (name, "+".join(mods) or "-"))
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

    win.connect("key-press-event", on_key)

    grid = Gtk.Grid(row_spacing=8, column_spacing=8, margin=16)
    win.add(grid)

    status = Gtk.Label(label="status: before")
    change = Gtk.Button(label="Change")

    def on_change(_b):
        after = status.get_text() == "status: before"
        status.set_text("status: after" if after else "status: before")
        say("clicked Change")

    change.connect("clicked", on_change)
    grid.attach(change, 0, 0, 1, 1)
    grid.attach(status, 2, 0, 1, 1)

    later = Gtk.Button(label="Later")
    grid.attach(later, 1, 0, 1, 1)

    grid.attach(Gtk.Label(label="Name"), 0, 1, 1, 1)
    name = Gtk.Entry()
    name.set_hexpand(True)
    name.connect("changed", lambda e: say("name=" + e.get_text()))
    grid.attach(name, 1, 1, 1, 1)
    # An animation that runs beside everything else once asked for. Drawn by the app itself, so it
    # turns whatever the desktop's animation setting (GTK's own spinner stands still when it is off).
    spinner = Gtk.Label(label="")
    turns = [0]
    grid.attach(spinner, 2, 1, 1, 1)

    card = Gtk.Button(label="Card")
    card.drag_source_set(Gdk.ModifierType.BUTTON1_MASK, [], Gdk.DragAction.COPY)
    card.drag_source_add_text_targets()
    card.connect("drag-data-get", lambda _w, _c, data, _i, _t: data.set_text("card", -1))
    # What happened to a drag, for a failure to say (the checks wait for "dropped" only).
    card.connect("drag-begin", lambda *_a: say("drag-begin"))
    card.connect("drag-failed", lambda _w, _c, result: say("drag-failed %s" % result.value_nick) and False)
    card.connect("button-press-event", lambda *_a: say("card-pressed") and False)
    grid.attach(card, 0, 2, 1, 1)

    drop = Gtk.Button(label="Drop here")
    drop.drag_dest_set(Gtk.DestDefaults.ALL, [], Gdk.DragAction.COPY)
    drop.drag_dest_add_text_targets()
    drop.connect("drag-data-received", lambda *_a: say("dropped"))
    grid.attach(drop, 1, 2, 1, 1)

    store = Gtk.ListStore(str)
    for i in range(200):
        store.append(["Row %d" % i])
    view = Gtk.TreeView(model=store)
    view.append_column(Gtk.TreeViewColumn("Rows", Gtk.CellRendererText(), text=0))
    scroller = Gtk.ScrolledWindow()
    scroller.set_size_request(300, 200)
    scroller.set_vexpand(True)
    scroller.add(view)
    scroller.get_vadjustment().connect("value-changed", lambda a: say("scroll=%d" % a.get_value()))
    grid.attach(scroller, 0, 3, 2, 1)

    named = {"Change": change, "Later": later, "Name": name, "Card": card, "Drop here": drop, "List": scroller}

    def report_geometry(*_args):
        gdk_window = win.get_window()
        if gdk_window is None:
            return True
        if fullscreen:
            monitor = win.get_display().get_monitor_at_window(gdk_window).get_geometry()
            filled = gdk_window.get_state() & Gdk.WindowState.FULLSCREEN
            if not filled or win.get_allocated_width() != monitor.width:
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

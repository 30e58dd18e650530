#!/usr/bin/python3
"""A real GTK 3 window of value-carrying widgets for handrail's accessibility tests.

A country combo box (the selection is all it shows: no label inside it), a name entry holding
"Kerianne", a slider, a spin button, a tree view whose rows' text lives only in table cells, and a list
box whose rows hold only a label. Everything the app holds is printed on stdout, one line per value,
once when shown and again on every change, so tests compare what handrail reads with what the app has:

    combo=<active text>
    scale=<value>
    spin=<value>
    tree=<selected row's first column>
    ready                (after the first full report)

Usage: values_gtk.py [--title TITLE]
"""
import sys

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk  # noqa: E402

COUNTRIES = ["Ghana", "Guinea", "Kenya", "Norway"]
PEOPLE = [("Kerianne", "Oslo"), ("Tomasz", "Gdansk"), ("Wanjiru", "Nairobi")]
FRUITS = ["Mango", "Papaya"]


def say(line):
    print(line, flush=True)


def country_combo():
    combo = Gtk.ComboBoxText()
    for c in COUNTRIES:
        combo.append_text(c)
    combo.set_active(COUNTRIES.index("Guinea"))
    combo.connect("changed", lambda c: say("combo=" + (c.get_active_text() or "")))
    return combo


def people_tree():
    store = Gtk.ListStore(str, str)
    for row in PEOPLE:
        store.append(row)
    tree = Gtk.TreeView(model=store)
    for i, title in enumerate(["Name", "City"]):
        tree.append_column(Gtk.TreeViewColumn(title, Gtk.CellRendererText(), text=i))

    def selected(sel):
        model, it = sel.get_selected()
        say("tree=" + (model[it][0] if it is not None else ""))

    tree.get_selection().connect("changed", selected)
    return tree


def fruit_list():
    box = Gtk.ListBox()
    for f in FRUITS:
        box.add(Gtk.Label(label=f, xalign=0))
    return box


def main():
    title = "Handrail Values"
    if "--title" in sys.argv:
        title = sys.argv[sys.argv.index("--title") + 1]
    win = Gtk.Window(title=title)
    win.set_default_size(520, 460)
    win.move(40, 40)
    win.connect("destroy", Gtk.main_quit)

    grid = Gtk.Grid(row_spacing=10, column_spacing=12, margin=18)
    win.add(grid)

    combo = country_combo()
    grid.attach(Gtk.Label(label="Country", xalign=0), 0, 0, 1, 1)
    grid.attach(combo, 1, 0, 1, 1)

    entry = Gtk.Entry(text="Kerianne")
    grid.attach(Gtk.Label(label="First name", xalign=0), 0, 1, 1, 1)
    grid.attach(entry, 1, 1, 1, 1)

    scale = Gtk.Scale.new_with_range(Gtk.Orientation.HORIZONTAL, 0, 100, 1)
    scale.set_value(42)
    scale.set_hexpand(True)
    scale.connect("value-changed", lambda s: say("scale=%d" % s.get_value()))
    grid.attach(Gtk.Label(label="Volume", xalign=0), 0, 2, 1, 1)
    grid.attach(scale, 1, 2, 1, 1)

    spin = Gtk.SpinButton.new_with_range(0, 20, 1)
    spin.set_value(7)
    spin.connect("value-changed", lambda s: say("spin=%d" % s.get_value_as_int()))
    grid.attach(Gtk.Label(label="Copies", xalign=0), 0, 3, 1, 1)
    grid.attach(spin, 1, 3, 1, 1)

    grid.attach(people_tree(), 0, 4, 2, 1)
    grid.attach(fruit_list(), 0, 5, 2, 1)

    win.show_all()

    def report():
        say("combo=" + (combo.get_active_text() or ""))
        say("scale=%d" % scale.get_value())
        say("spin=%d" % spin.get_value_as_int())
        say("ready")
        return False

    GLib.idle_add(report)
    Gtk.main()


if __name__ == "__main__":
    main()

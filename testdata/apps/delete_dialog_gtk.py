#!/usr/bin/python3
"""A real GTK 3 dialog (Gtk.Dialog) for handrail's guard tests.

"Remove the old backups?" with a PIN field (a password entry), a "_Keep" button and a "_ลบถาวร"
("delete permanently") button whose mnemonic is the Thai letter ล: GTK reports it to accessibility by
keysym name (<Alt>Thai_lochula), not as a character. Everything the app receives is printed on
stdout, one line per event, so tests check what really arrived without relying on accessibility:

    keep-clicked
    delete-clicked
    pin=<length>         (on every change of the PIN field: its length, never its text)
    ready                (once shown)
"""
import gi

gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk  # noqa: E402

KEEP, DELETE = 1, 2


def say(line):
    print(line, flush=True)


def main():
    dialog = Gtk.Dialog(title="Old backups")
    dialog.set_default_size(480, 220)
    dialog.move(640, 80)
    area = dialog.get_content_area()
    area.set_spacing(10)
    area.set_margin_start(16)
    area.set_margin_end(16)
    area.pack_start(Gtk.Label(label="Remove the old backups?"), False, False, 0)
    row = Gtk.Box(spacing=8)
    row.pack_start(Gtk.Label(label="PIN"), False, False, 0)
    pin = Gtk.Entry()
    pin.set_visibility(False)
    pin.get_accessible().set_name("PIN")
    pin.connect("changed", lambda e: say("pin=%d" % len(e.get_text())))
    row.pack_start(pin, True, True, 0)
    area.pack_start(row, False, False, 0)

    keep = dialog.add_button("_Keep", KEEP)
    delete = dialog.add_button("_ลบถาวร", DELETE)
    keep.connect("clicked", lambda _b: say("keep-clicked"))
    delete.connect("clicked", lambda _b: say("delete-clicked"))
    # Responses must not close the dialog: the test goes on with it.
    dialog.connect("response", lambda d, r: d.stop_emission_by_name("response"))
    dialog.connect("delete-event", lambda *_: Gtk.main_quit())
    dialog.show_all()
    keep.grab_focus()
    GLib.idle_add(lambda: say("ready") and False)
    Gtk.main()


if __name__ == "__main__":
    main()

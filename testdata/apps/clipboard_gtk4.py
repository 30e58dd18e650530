#!/usr/bin/python3
"""A GTK 4 window that holds the person's clipboard and reads it back, for the paste tests on
Wayland desktops (a Wayland app owns and reads the clipboard only while it has the keyboard focus).

It shows one entry, focused, and takes commands on stdin, one per line:

    copy <text>   ctrl+c pressed on the window from now on puts <text> on the clipboard, as plain
                  text and as HTML (<b><text></b>): as a person copies, with a key press the
                  compositor has just seen (it takes a claim only from the focused app)
    read          prints what the clipboard holds now: "clipboard=<JSON string>" and
                  "html=<JSON string>" (null when it holds no such type)

and prints on stdout:

    ready                 once the window is active (it has the focus)
    owned <text>          once ctrl+c put <text> on the clipboard
    name=<JSON string>    on every change of the entry

Usage: clipboard_gtk4.py TITLE
"""
import json
import sys

import gi

gi.require_version("Gdk", "4.0")
gi.require_version("Gtk", "4.0")
from gi.repository import Gdk, Gio, GLib, Gtk  # noqa: E402


def say(line):
    print(line, flush=True)


def own(clipboard, text):
    html = GLib.Bytes.new(f"<b>{text}</b>".encode())
    plain = Gdk.ContentProvider.new_for_value(text)
    clipboard.set_content(Gdk.ContentProvider.new_union([Gdk.ContentProvider.new_for_bytes("text/html", html), plain]))

    # Said once the compositor has handled the claim.
    clipboard.get_display().sync()
    say("owned " + text)


def read(clipboard):
    def got_text(cb, result):
        try:
            text = cb.read_text_finish(result)
        except GLib.Error:
            text = None
        say("clipboard=" + json.dumps(text, ensure_ascii=False))
        cb.read_async(["text/html"], GLib.PRIORITY_DEFAULT, None, got_html)

    def got_html(cb, result):
        try:
            stream, _mime = cb.read_finish(result)
        except GLib.Error:
            say("html=null")
            return
        chunks = []

        # Read without blocking: for its own clipboard GTK writes the content from this same loop.
        def got_chunk(stream, result):
            data = stream.read_bytes_finish(result).get_data()
            if data:
                chunks.append(data)
                stream.read_bytes_async(65536, GLib.PRIORITY_DEFAULT, None, got_chunk)
            else:
                say("html=" + json.dumps(b"".join(chunks).decode(), ensure_ascii=False))

        stream.read_bytes_async(65536, GLib.PRIORITY_DEFAULT, None, got_chunk)

    clipboard.read_text_async(None, got_text)


def on_activate(app, title):
    win = Gtk.ApplicationWindow(application=app, title=title)
    win.set_default_size(420, 120)
    name = Gtk.Entry()
    name.update_property([Gtk.AccessibleProperty.LABEL], ["Name"])
    name.connect("changed", lambda e: say("name=" + json.dumps(e.get_text(), ensure_ascii=False)))
    win.set_child(name)
    win.present()
    clipboard = win.get_display().get_clipboard()

    def activated(*_):
        if win.is_active():
            name.grab_focus()
            say("ready")

    win.connect("notify::is-active", activated)
    to_copy = []

    def pressed(_controller, keyval, _keycode, state):
        if keyval == Gdk.KEY_c and state & Gdk.ModifierType.CONTROL_MASK and to_copy:
            own(clipboard, to_copy[-1])
            return True
        return False

    keys = Gtk.EventControllerKey()
    keys.set_propagation_phase(Gtk.PropagationPhase.CAPTURE)
    keys.connect("key-pressed", pressed)
    win.add_controller(keys)

    def command(channel, _condition):
        line = channel.readline()
        if not line:
            app.quit()
            return False
        line = line.rstrip("\n")
        if line.startswith("copy "):
            to_copy.append(line[5:])
        elif line == "read":
            read(clipboard)
        return True

    GLib.io_add_watch(GLib.IOChannel.unix_new(sys.stdin.fileno()), GLib.IO_IN | GLib.IO_HUP, command)


def main():
    title = sys.argv[1] if len(sys.argv) == 2 else sys.exit(__doc__)
    app = Gtk.Application(application_id="org.handrail.ClipboardProbe", flags=Gio.ApplicationFlags.NON_UNIQUE)
    app.connect("activate", lambda a: on_activate(a, title))
    app.run([sys.argv[0]])


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""A GTK 3 window that draws its content itself and has no widgets inside: on the accessibility bus it
is a bare frame, as an app is whose content the toolkit cannot see (a game, a canvas toolkit, an
Electron app with its renderer's accessibility off). Its text can only be read off the screen.

Prints "ready" once drawn.
"""
import gi

gi.require_version("Gtk", "3.0")
from gi.repository import Gtk  # noqa: E402

LINES = ["Drawn by the app itself", "Nothing here is a widget"]
ready = False


def draw(window, cr):
    global ready
    cr.set_source_rgb(1, 1, 1)
    cr.paint()
    cr.set_source_rgb(0, 0, 0)
    cr.select_font_face("DejaVu Sans")
    cr.set_font_size(22)
    for i, line in enumerate(LINES):
        cr.move_to(30, 60 + 40 * i)
        cr.show_text(line)
    if not ready:
        ready = True
        print("ready", flush=True)
    return False


window = Gtk.Window(title="Drawn canvas")
window.set_default_size(520, 200)
window.move(60, 60)
window.set_app_paintable(True)
window.connect("draw", draw)
window.connect("destroy", Gtk.main_quit)
window.show()
Gtk.main()

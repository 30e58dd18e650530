#!/usr/bin/python3
"""A D-Bus service whose one method answers with a file descriptor, for handrail-dbus's tests.

Owns org.handrail.FdTest on the session bus; /org/handrail/FdTest org.handrail.FdTest.Open() returns
(h) the read end of a pipe holding the bytes "hello through a descriptor". Prints "ready" once the
name is owned.
"""
import os
import sys

from gi.repository import Gio, GLib

XML = """<node><interface name="org.handrail.FdTest">
<method name="Open"><arg type="h" direction="out"/></method></interface></node>"""


def on_call(_conn, _sender, _path, _iface, method, _params, invocation):
    if method != "Open":
        invocation.return_dbus_error("org.handrail.Unknown", method)
        return
    r, w = os.pipe()
    os.write(w, b"hello through a descriptor")
    os.close(w)
    fds = Gio.UnixFDList.new_from_array([r])
    invocation.return_value_with_unix_fd_list(GLib.Variant("(h)", (0,)), fds)


def on_bus(conn, _name):
    info = Gio.DBusNodeInfo.new_for_xml(XML).interfaces[0]
    conn.register_object("/org/handrail/FdTest", info, on_call, None, None)


def on_name(_conn, _name):
    print("ready", flush=True)


def main():
    Gio.bus_own_name(Gio.BusType.SESSION, "org.handrail.FdTest", Gio.BusNameOwnerFlags.NONE, on_bus, on_name,
                     lambda *_a: sys.exit(1))
    GLib.MainLoop().run()


if __name__ == "__main__":
    main()

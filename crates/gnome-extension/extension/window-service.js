// handrail's window service: the body both extension formats share (each format's entry file
// comes first and brings Gio, GLib, Shell and Main into scope).
//
// GNOME on Wayland tells no client where windows are, and its own Introspect interface gives sizes
// without places (and answers only the portal). This serves the window stack on the session bus as
// dev.handrail.Shell.Windows at /dev/handrail/Shell/Windows: every window bottom to top, with its
// frame and buffer rectangles in stage pixels, and raises the one asked for. It reads and raises
// windows only: nothing is typed, captured or closed through it. It also says which keyboard layout
// (the keymap's group) is active: mutter tells only the focused window.

const IFACE = `
<node>
  <interface name="dev.handrail.Shell.Windows">
    <method name="List">
      <arg type="aa{sv}" direction="out" name="windows"/>
    </method>
    <method name="Activate">
      <arg type="t" direction="in" name="id"/>
      <arg type="b" direction="out" name="found"/>
    </method>
    <property name="Version" type="u" access="read"/>
    <property name="OverviewVisible" type="b" access="read"/>
    <property name="StartupComplete" type="b" access="read"/>
    <property name="LayoutGroup" type="u" access="read"/>
  </interface>
</node>`;

function rect(r) {
    return new GLib.Variant('(iiii)', [r.x, r.y, r.width, r.height]);
}

class WindowService {
    constructor() {
        this._impl = Gio.DBusExportedObject.wrapJSObject(IFACE, this);
        this._switchedGroup = null;
    }

    get Version() {
        return 2;
    }

    // The keymap group GNOME Shell made active (its input source), or the one mutter last reported
    // switching to by itself (an XKB group-switch option) since the keymap was set.
    get LayoutGroup() {
        if (this._switchedGroup !== null)
            return this._switchedGroup;
        return KeyboardManager.getKeyboardManager().currentLayout?.groupIndex ?? 0;
    }

    get OverviewVisible() {
        return Main.overview.visible;
    }

    // Until GNOME Shell's start-up animation ends, a pane over the screen takes every input event
    // and the overview may still open.
    get StartupComplete() {
        return !Main.layoutManager._startingUp;
    }

    List() {
        const tracker = Shell.WindowTracker.get_default();
        const focus = global.display.get_focus_window();
        const all = global.display.list_all_windows();
        return global.display.sort_windows_by_stacking(all).map(w => {
            const app = tracker.get_window_app(w);
            const parent = w.get_transient_for();
            const entry = {
                'id': new GLib.Variant('t', w.get_id()),
                'title': new GLib.Variant('s', w.get_title() ?? ''),
                'wm-class': new GLib.Variant('s', w.get_wm_class() ?? ''),
                'app-id': new GLib.Variant('s', app?.get_id() ?? ''),
                'app-name': new GLib.Variant('s', app?.get_name() ?? ''),
                'pid': new GLib.Variant('i', w.get_pid()),
                'frame': rect(w.get_frame_rect()),
                'buffer': rect(w.get_buffer_rect()),
                'type': new GLib.Variant('u', w.get_window_type()),
                'transient-for': new GLib.Variant('t', parent ? parent.get_id() : 0),
                'minimized': new GLib.Variant('b', w.minimized),
                'showing': new GLib.Variant('b', w.showing_on_its_workspace() &&
                    w.located_on_workspace(global.workspace_manager.get_active_workspace())),
                'focus': new GLib.Variant('b', w === focus),
                'client-type': new GLib.Variant('u', w.get_client_type()),
            };
            return entry;
        });
    }

    Activate(id) {
        const w = global.display.list_all_windows().find(x => x.get_id() === id);
        if (!w)
            return false;
        if (w.minimized)
            w.unminimize();
        Main.activateWindow(w);
        return true;
    }

    export() {
        this._impl.export(Gio.DBus.session, '/dev/handrail/Shell/Windows');
        this._owner = Gio.bus_own_name_on_connection(Gio.DBus.session, 'dev.handrail.Shell',
            Gio.BusNameOwnerFlags.NONE, null, null);
        this._overview = [
            Main.overview.connect('showing', () => this._overviewChanged()),
            Main.overview.connect('hidden', () => this._overviewChanged()),
        ];
        this._keymap = [
            global.backend.connect('keymap-layout-group-changed', (_b, group) => {
                this._switchedGroup = group;
            }),
            global.backend.connect('keymap-changed', () => {
                this._switchedGroup = null;
            }),
        ];
    }

    _overviewChanged() {
        this._impl.emit_property_changed('OverviewVisible', new GLib.Variant('b', Main.overview.visible));
    }

    unexport() {
        for (const id of this._overview ?? [])
            Main.overview.disconnect(id);
        for (const id of this._keymap ?? [])
            global.backend.disconnect(id);
        if (this._owner)
            Gio.bus_unown_name(this._owner);
        this._impl.unexport();
    }
}

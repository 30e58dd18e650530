/* handrail's window service for GNOME Shell 43 and 44 (extensions as GJS scripts); the service
 * itself follows this entry, shared with the GNOME 45+ format.
 */
'use strict';

const { Gio, GLib, Shell } = imports.gi;
const Main = imports.ui.main;
const KeyboardManager = imports.misc.keyboardManager;

class Extension {
    enable() {
        this._service = new WindowService();
        this._service.export();
    }

    disable() {
        this._service?.unexport();
        this._service = null;
    }
}

function init() {
    return new Extension();
}


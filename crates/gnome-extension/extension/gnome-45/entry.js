/* handrail's window service for GNOME Shell 45 and later (extensions as ES modules); the service
 * itself follows this entry, shared with the GNOME 43–44 format.
 */
import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import Shell from 'gi://Shell';
import * as Main from 'resource:///org/gnome/shell/ui/main.js';
import * as KeyboardManager from 'resource:///org/gnome/shell/misc/keyboardManager.js';
import {Extension} from 'resource:///org/gnome/shell/extensions/extension.js';

export default class HandrailExtension extends Extension {
    enable() {
        this._service = new WindowService();
        this._service.export();
    }

    disable() {
        this._service?.unexport();
        this._service = null;
    }
}


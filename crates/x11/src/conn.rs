//! One X connection shared by the request/reply parts of the backend (capture, input, window queries).
//!
//! Parts that consume *events* (settle watches DAMAGE events; the clipboard serves selection requests)
//! open their own connection with [`Conn::open`]: events on a shared connection would be read by
//! whichever part happened to poll first.

use std::sync::Arc;

use x11rb::connection::Connection;
use x11rb::protocol::xproto::{ConnectionExt as _, Window};
use x11rb::rust_connection::RustConnection;

use crate::error::X11Error;

x11rb::atom_manager! {
    /// Atoms interned once per connection.
    pub Atoms: AtomsCookie {
        UTF8_STRING,
        WM_CLASS,
        WM_NAME,
        CLIPBOARD,
        TARGETS,
        TIMESTAMP,
        _NET_ACTIVE_WINDOW,
        _NET_CLIENT_LIST,
        _NET_CLIENT_LIST_STACKING,
        _NET_WM_NAME,
        _NET_WM_PID,
        _NET_WM_STATE,
        _NET_WM_STATE_HIDDEN,
        _NET_WM_WINDOW_TYPE,
        _NET_WM_WINDOW_TYPE_DIALOG,
        _NET_WM_WINDOW_TYPE_DESKTOP,
        _NET_FRAME_EXTENTS,
        _GTK_FRAME_EXTENTS,
        _NET_SUPPORTING_WM_CHECK,
        _NET_CURRENT_DESKTOP,
        _NET_CLOSE_WINDOW,
    }
}

/// A connection to one X display with its root window and atoms.
pub struct Conn {
    pub conn: RustConnection,
    pub screen_num: usize,
    pub root: Window,
    pub width: u16,
    pub height: u16,
    pub root_depth: u8,
    pub atoms: Atoms,
    pub display: String,
}

impl std::fmt::Debug for Conn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Conn")
            .field("display", &self.display)
            .field("root", &self.root)
            .field("size", &(self.width, self.height))
            .finish_non_exhaustive()
    }
}

impl Conn {
    /// Connects to `display` (e.g. `":99"`). The display is always named: handrail never falls back to
    /// the user's `$DISPLAY` silently.
    pub fn open(display: &str) -> Result<Arc<Conn>, X11Error> {
        check_display_name(display)?;
        let (conn, screen_num) = x11rb::connect(Some(display))
            .map_err(|e| X11Error::Connect { display: display.to_string(), reason: e.to_string() })?;
        let screen = conn
            .setup()
            .roots
            .get(screen_num)
            .ok_or_else(|| X11Error::Other(format!("display {display} has no screen {screen_num}")))?;
        let (root, width, height, root_depth) =
            (screen.root, screen.width_in_pixels, screen.height_in_pixels, screen.root_depth);
        let atoms = Atoms::new(&conn)?.reply()?;
        Ok(Arc::new(Conn { conn, screen_num, root, width, height, root_depth, atoms, display: display.to_string() }))
    }

    /// Current root window size (the screen may have been resized since connecting).
    pub fn root_size(&self) -> Result<(u16, u16), X11Error> {
        let g = self.conn.get_geometry(self.root)?.reply()?;
        Ok((g.width, g.height))
    }

    /// Drops events queued on this connection. Nothing reads events here (event consumers own their
    /// connections), but every client still receives some (MappingNotify after a keymap change), and
    /// x11rb would otherwise keep them queued for the life of the connection.
    pub fn discard_events(&self) {
        while let Ok(Some(_)) = self.conn.poll_for_event() {}
    }

    pub fn flush(&self) -> Result<(), X11Error> {
        self.conn.flush()?;
        Ok(())
    }
}

/// Refuses display names x11rb would mishandle: a display number of 59536 or more overflows its TCP
/// port arithmetic (6000 + N) and panics instead of failing.
fn check_display_name(display: &str) -> Result<(), X11Error> {
    let bad = |reason: &str| X11Error::Connect { display: display.to_string(), reason: reason.to_string() };
    if display.is_empty() || display.len() > 256 || display.chars().any(char::is_control) {
        return Err(bad("not a display name (expected e.g. \":90\")"));
    }
    let after_colon =
        display.rsplit_once(':').map(|(_, n)| n).ok_or_else(|| bad("a display name needs a colon, e.g. \":90\""))?;
    let number = after_colon.split('.').next().unwrap_or_default();
    match number.parse::<u32>() {
        Ok(n) if n <= 59_535 => Ok(()),
        Ok(_) => Err(bad("display numbers above 59535 are not supported")),
        Err(_) => Err(bad("the display number is not a number")),
    }
}

#[cfg(test)]
mod tests {
    use super::check_display_name;

    #[test]
    fn display_names_are_checked_before_connecting() {
        for ok in [":0", ":90", ":90.0", "localhost:5", "unix:3"] {
            assert!(check_display_name(ok).is_ok(), "{ok}");
        }
        for bad in ["", "90", ":", ":x", ":64999", ":59536", ":1\n"] {
            assert!(check_display_name(bad).is_err(), "{bad}");
        }
    }
}

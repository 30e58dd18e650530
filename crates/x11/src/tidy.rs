//! What returning an X desktop to a clean state needs from the X server itself, on a connection of its
//! own: the managed windows still open, ending the connection of a window's client when its process
//! could not be ended (`KillClient`), and emptying the selections (clipboard, primary, secondary) so
//! nothing one task copied can be pasted in the next.

use std::sync::Arc;

use x11rb::connection::Connection;
use x11rb::protocol::xproto::{AtomEnum, ConnectionExt as _, Window};
use x11rb::NONE;

use crate::windows::stack::{is_gone, InfoRequest};
use crate::{Conn, X11Error};

/// Upper bound for the client list read (in 32-bit units).
const MAX_CLIENTS: u32 = 4096;

/// A top-level window the window manager manages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenWindow {
    pub window: Window,
    pub title: String,
    pub pid: Option<u32>,
}

/// The X-side steps of a reset, on a connection of their own.
#[derive(Debug)]
pub struct Tidy {
    conn: Arc<Conn>,
}

impl Tidy {
    /// Connects to `display` (e.g. `":90"`).
    pub fn open(display: &str) -> Result<Tidy, X11Error> {
        Ok(Tidy { conn: Conn::open(display)? })
    }

    /// The managed top-level windows (`_NET_CLIENT_LIST`), oldest first; windows that close while they
    /// are read are left out.
    pub fn open_windows(&self) -> Result<Vec<OpenWindow>, X11Error> {
        let c = &self.conn;
        let list =
            c.conn.get_property(false, c.root, c.atoms._NET_CLIENT_LIST, AtomEnum::WINDOW, 0, MAX_CLIENTS)?.reply()?;
        let windows: Vec<Window> = list.value32().map(|v| v.collect()).unwrap_or_default();
        let mut open = Vec::with_capacity(windows.len());
        for window in windows {
            match InfoRequest::send(c, window).and_then(|r| r.finish()) {
                Ok(info) => open.push(OpenWindow { window, title: info.title, pid: info.pid }),
                Err(e) if is_gone(&e) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(open)
    }

    /// Ends the X connection of the client that created `window`: the server destroys all its
    /// windows. For windows whose process could not be ended (it is not in the sandbox, or names no
    /// pid).
    pub fn kill_client(&self, window: Window) -> Result<(), X11Error> {
        self.conn.conn.kill_client(window)?.check()?;
        Ok(())
    }

    /// Gives up every owner's claim on CLIPBOARD, PRIMARY and SECONDARY; `true` when all three are
    /// then unowned (nothing can be pasted).
    pub fn empty_selections(&self) -> Result<bool, X11Error> {
        let c = &self.conn;
        let selections: [u32; 3] = [c.atoms.CLIPBOARD, AtomEnum::PRIMARY.into(), AtomEnum::SECONDARY.into()];
        for selection in selections {
            // Owner None at CurrentTime: any client may clear a selection, and no later claim is undone.
            c.conn.set_selection_owner(NONE, selection, x11rb::CURRENT_TIME)?;
        }
        c.conn.flush()?;
        let mut empty = true;
        for selection in selections {
            empty &= c.conn.get_selection_owner(selection)?.reply()?.owner == NONE;
        }
        Ok(empty)
    }
}

//! A dedicated X connection that only waits: for root property changes (`_NET_ACTIVE_WINDOW`,
//! `_NET_CLIENT_LIST`) and for server timestamps.
//!
//! It is separate from the shared request/reply connection because events on a shared connection would
//! be read by whichever part polled first (see [`crate::Conn`]).

use std::os::fd::AsRawFd;
use std::sync::Arc;
use std::time::{Duration, Instant};

use x11rb::connection::Connection;
use x11rb::protocol::xproto::{
    Atom, AtomEnum, ChangeWindowAttributesAux, ConnectionExt as _, CreateWindowAux, EventMask, PropMode, Timestamp,
    Window, WindowClass,
};
use x11rb::protocol::Event;

use crate::{Conn, X11Error};

pub(crate) struct Watcher {
    conn: Arc<Conn>,
    /// An unmapped input-only window of ours: appending nothing to one of its properties makes the
    /// server send a PropertyNotify stamped with the current server time.
    stamp: Window,
}

impl Watcher {
    pub fn open(display: &str) -> Result<Watcher, X11Error> {
        let conn = Conn::open(display)?;
        let c = &conn.conn;
        let root_mask = ChangeWindowAttributesAux::new().event_mask(EventMask::PROPERTY_CHANGE);
        c.change_window_attributes(conn.root, &root_mask)?.check()?;
        let stamp = c.generate_id()?;
        let aux = CreateWindowAux::new().event_mask(EventMask::PROPERTY_CHANGE);
        c.create_window(0, stamp, conn.root, -1, -1, 1, 1, 0, WindowClass::INPUT_ONLY, x11rb::COPY_FROM_PARENT, &aux)?
            .check()?;
        Ok(Watcher { conn, stamp })
    }

    /// The server's current time, or `None` if it did not answer within `timeout`. Events on the root
    /// read meanwhile are dropped: every waiter re-checks its condition before blocking.
    pub fn server_time(&self, timeout: Duration) -> Result<Option<Timestamp>, X11Error> {
        let c = &self.conn.conn;
        c.change_property(PropMode::APPEND, self.stamp, self.conn.atoms.TIMESTAMP, AtomEnum::INTEGER, 32, 0, &[])?;
        c.flush()?;
        let deadline = Instant::now() + timeout;
        loop {
            while let Some(event) = c.poll_for_event()? {
                if let Event::PropertyNotify(e) = event {
                    if e.window == self.stamp {
                        return Ok(Some(e.time));
                    }
                }
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(None);
            }
            self.readable(left)?;
        }
    }

    /// Blocks until one of the root window's `atoms` changes (true) or `timeout` passes (false).
    pub fn wait_root_change(&self, atoms: &[Atom], timeout: Duration) -> Result<bool, X11Error> {
        let c = &self.conn.conn;
        let deadline = Instant::now() + timeout;
        loop {
            // Drain first: replies read on this connection may have buffered events without the socket
            // staying readable.
            let mut changed = false;
            while let Some(event) = c.poll_for_event()? {
                if let Event::PropertyNotify(e) = event {
                    changed |= e.window == self.conn.root && atoms.contains(&e.atom);
                }
            }
            if changed {
                return Ok(true);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(false);
            }
            self.readable(left)?;
        }
    }

    /// Waits until the connection's socket is readable or `timeout` passes.
    fn readable(&self, timeout: Duration) -> Result<(), X11Error> {
        let fd = self.conn.conn.stream().as_raw_fd();
        let mut pfd = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
        // Round up so a sub-millisecond remainder does not turn into a busy loop of zero timeouts.
        let ms = i32::try_from(timeout.as_micros().div_ceil(1000)).unwrap_or(i32::MAX);
        // SAFETY: `pfd` is one valid, exclusively borrowed pollfd for the duration of the call.
        let r = unsafe { libc::poll(&mut pfd, 1, ms) };
        if r < 0 {
            let err = std::io::Error::last_os_error();
            if err.kind() != std::io::ErrorKind::Interrupted {
                return Err(X11Error::Other(format!("waiting for X events: {err}")));
            }
        }
        Ok(())
    }
}

//! Monitors from RandR 1.5 (`RRGetMonitors`): real outputs and virtual monitors (`xrandr
//! --setmonitor`) alike, as the window manager and toolkits see them.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use handrail_platform::{Monitor, Rect, Size};
use x11rb::connection::RequestConnection;
use x11rb::protocol::randr::{self, ConnectionExt as _};
use x11rb::protocol::xproto::{Atom, ConnectionExt as _};

use crate::conn::Conn;
use crate::error::X11Error;

/// Reads the monitors of one display; remembers whether the server has RandR 1.5 and the monitors'
/// names (atoms, which the server never renames).
#[derive(Debug, Default)]
pub(crate) struct MonitorReader {
    supported: OnceLock<bool>,
    names: Mutex<HashMap<Atom, String>>,
}

impl MonitorReader {
    /// The active monitors, in the server's order; the whole screen as one monitor where RandR 1.5
    /// is missing or reports none.
    pub(crate) fn read(&self, conn: &Conn, screen: Size) -> Result<Vec<Monitor>, X11Error> {
        if !*self.supported.get_or_init(|| randr_1_5(conn)) {
            return Ok(vec![Monitor::whole(screen)]);
        }
        let reply = conn.conn.randr_get_monitors(conn.root, true)?.reply()?;
        let whole = Rect::from_size(screen);
        let mut monitors = Vec::with_capacity(reply.monitors.len());
        for m in &reply.monitors {
            let bounds = Rect::new(m.x.into(), m.y.into(), m.width.into(), m.height.into()).clamped_to(&whole);
            if bounds.is_empty() {
                continue;
            }
            monitors.push(Monitor { name: self.name(conn, m.name)?, bounds, primary: m.primary });
        }
        if monitors.is_empty() {
            monitors.push(Monitor::whole(screen));
        }
        Ok(monitors)
    }

    fn name(&self, conn: &Conn, atom: Atom) -> Result<String, X11Error> {
        if atom == x11rb::NONE {
            return Ok(String::new());
        }
        let mut names = self.names.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = names.get(&atom) {
            return Ok(n.clone());
        }
        let name = String::from_utf8_lossy(&conn.conn.get_atom_name(atom)?.reply()?.name).into_owned();
        names.insert(atom, name.clone());
        Ok(name)
    }
}

fn randr_1_5(conn: &Conn) -> bool {
    let present = matches!(conn.conn.extension_information(randr::X11_EXTENSION_NAME), Ok(Some(_)));
    if !present {
        return false;
    }
    match conn.conn.randr_query_version(1, 5).map(|c| c.reply()) {
        Ok(Ok(v)) => (v.major_version, v.minor_version) >= (1, 5),
        _ => false,
    }
}

//! What the X server itself says is held down right now: keys (`QueryKeymap`) and pointer buttons
//! (`QueryPointer`). For checking that nothing was left pressed — after a cancelled call, a crash, a
//! long run — from the server's own state rather than from what handrail believes it sent.

use x11rb::protocol::xproto::{ConnectionExt as _, KeyButMask};

use crate::conn::Conn;
use crate::error::X11Error;

/// Keys and buttons the server reports down.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HeldDown {
    /// Keycodes whose key is down.
    pub keys: Vec<u8>,
    /// Pointer buttons (1 = left, 2 = middle, 3 = right, 4/5 = wheel) that are down.
    pub buttons: Vec<u8>,
}

impl HeldDown {
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty() && self.buttons.is_empty()
    }
}

/// Asks the server what is held down on `conn`'s display.
pub fn held_down(conn: &Conn) -> Result<HeldDown, X11Error> {
    let keymap = conn.conn.query_keymap()?.reply()?;
    let keys = (0u16..256)
        .filter(|&k| keymap.keys[usize::from(k / 8)] & (1 << (k % 8)) != 0)
        .filter_map(|k| u8::try_from(k).ok())
        .collect();
    let mask = conn.conn.query_pointer(conn.root)?.reply()?.mask;
    let buttons = [
        (1, KeyButMask::BUTTON1),
        (2, KeyButMask::BUTTON2),
        (3, KeyButMask::BUTTON3),
        (4, KeyButMask::BUTTON4),
        (5, KeyButMask::BUTTON5),
    ]
    .into_iter()
    .filter(|(_, bit)| mask.contains(*bit))
    .map(|(n, _)| n)
    .collect();
    Ok(HeldDown { keys, buttons })
}

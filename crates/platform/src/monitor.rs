//! The monitors a screen is shown on.

use crate::geometry::{Rect, Size};

/// One monitor: the part of the screen one display shows. Bounds are in **screen** pixels; monitors
/// tile (or overlap, when mirrored) one screen, so a single screenshot covers all of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Monitor {
    /// What the system calls it (`DP-1`, `HDMI-A-1`, a virtual monitor's name); empty when unnamed.
    pub name: String,
    pub bounds: Rect,
    /// The monitor the desktop treats as the main one (panels, new windows).
    pub primary: bool,
}

impl Monitor {
    /// The whole screen as one monitor: what a backend that cannot tell monitors apart reports.
    pub fn whole(screen: Size) -> Monitor {
        Monitor { name: String::new(), bounds: Rect::from_size(screen), primary: true }
    }
}

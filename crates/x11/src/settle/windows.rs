//! Where the top-level windows are and when each was last mapped, from the root's
//! SubstructureNotify events: a watch asks which windows opened since it started.

use std::collections::HashMap;
use std::time::Instant;

use handrail_platform::Rect;
use x11rb::protocol::Event;

#[derive(Clone, Copy)]
struct TopLevel {
    bounds: Rect,
    /// When it was last mapped; None while unmapped, or when it was mapped before we listened.
    mapped_at: Option<Instant>,
}

/// The root's children (window manager frames, override-redirect popups) as the listener saw them.
#[derive(Default)]
pub(super) struct TopLevels {
    windows: HashMap<u32, TopLevel>,
}

impl TopLevels {
    /// Applies one event about a child of `root`; other events are ignored.
    pub(super) fn apply(&mut self, root: u32, event: &Event, at: Instant) {
        match event {
            Event::CreateNotify(e) if e.parent == root => {
                let bounds = Rect::new(e.x.into(), e.y.into(), e.width.into(), e.height.into());
                self.windows.insert(e.window, TopLevel { bounds, mapped_at: None });
            }
            Event::ConfigureNotify(e) if e.event == root => {
                let bounds = Rect::new(e.x.into(), e.y.into(), e.width.into(), e.height.into());
                self.windows.entry(e.window).or_insert(TopLevel { bounds, mapped_at: None }).bounds = bounds;
            }
            Event::MapNotify(e) if e.event == root => {
                if let Some(w) = self.windows.get_mut(&e.window) {
                    w.mapped_at = Some(at);
                }
            }
            Event::UnmapNotify(e) if e.event == root => {
                if let Some(w) = self.windows.get_mut(&e.window) {
                    w.mapped_at = None;
                }
            }
            Event::DestroyNotify(e) if e.event == root => {
                self.windows.remove(&e.window);
            }
            _ => {}
        }
    }

    /// Bounds of the windows mapped at or after `since` and still mapped.
    pub(super) fn opened_since(&self, since: Instant) -> Vec<Rect> {
        self.windows.values().filter(|w| w.mapped_at.is_some_and(|t| t >= since)).map(|w| w.bounds).collect()
    }
}

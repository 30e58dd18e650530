//! Accessibility bounds on Wayland, moved into screen coordinates.
//!
//! AT-SPI asks toolkits for screen coordinates, but a Wayland client does not know where its window
//! is: GTK and Chromium answer relative to their own surface. [`WindowRelative`] wraps any
//! [`Accessibility`] source (AT-SPI, unchanged) and moves each node by the screen position of the
//! surface of the window it belongs to, which the compositor's IPC knows (`windows`). A node's
//! window is found by its window title (and, among windows of one title, its application's process
//! where known); nodes of a window that cannot be placed are dropped rather than shown at a wrong
//! place, and the snapshot is then `Partial`.

use std::sync::Arc;

use handrail_platform::{Accessibility, AxLimits, AxSnapshot, Point, Rect};
use log::debug;

use crate::windows::WaylandWindows;

/// See the [module docs](self).
pub struct WindowRelative {
    inner: Box<dyn Accessibility>,
    windows: Arc<WaylandWindows>,
}

impl WindowRelative {
    pub fn new(inner: Box<dyn Accessibility>, windows: Arc<WaylandWindows>) -> WindowRelative {
        WindowRelative { inner, windows }
    }
}

/// Moves every node of `snapshot` by the origin of its window's surface: `origins` holds each
/// window's title and surface origin (screen coordinates). Returns how many nodes had no window.
pub fn place(snapshot: &mut AxSnapshot, origins: &[(String, Point)]) -> usize {
    let mut unplaced = vec![false; snapshot.nodes.len()];
    for (i, node) in snapshot.nodes.iter_mut().enumerate() {
        match origins.iter().find(|(title, _)| *title == node.window) {
            Some((_, o)) if !node.bounds.is_empty() => {
                node.bounds =
                    Rect::new(node.bounds.x + o.x, node.bounds.y + o.y, node.bounds.width, node.bounds.height);
                node.window_relative = false;
            }
            Some(_) => {}
            None => unplaced[i] = true,
        }
    }
    let mut said: Vec<(&str, &str)> = Vec::new();
    for (node, _) in snapshot.nodes.iter().zip(&unplaced).filter(|(_, u)| **u) {
        if !said.contains(&(node.app.as_str(), node.window.as_str())) {
            said.push((node.app.as_str(), node.window.as_str()));
        }
    }
    let notes: Vec<String> = said
        .iter()
        .map(|(app, window)| {
            format!("{app}: window {window:?} left out: no window of that title is on screen, so where its controls are is unknown")
        })
        .collect();
    snapshot.notes.extend(notes);
    let keep: Vec<bool> = unplaced.iter().map(|u| !u).collect();
    snapshot.retain(&keep)
}

impl Accessibility for WindowRelative {
    fn snapshot(&self, limits: &AxLimits) -> AxSnapshot {
        let mut snapshot = self.inner.snapshot(limits);
        if snapshot.nodes.is_empty() {
            return snapshot;
        }
        let origins: Vec<(String, Point)> = match self.windows.placed() {
            Ok(placed) => placed
                .into_iter()
                .filter_map(|p| {
                    let v = p.view?;
                    Some((p.toplevel.title, Point::new(v.surface.x, v.surface.y)))
                })
                .collect(),
            Err(e) => {
                debug!("no window geometry for accessibility: {e}");
                Vec::new()
            }
        };
        let dropped = place(&mut snapshot, &origins);
        if dropped > 0 {
            debug!("{dropped} accessibility nodes belong to no placed window");
        }
        snapshot
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use handrail_platform::{AxHealth, AxNode};

    #[test]
    fn nodes_move_by_their_windows_origin_and_strays_go() {
        let node = |window: &str, x: i32, parent: Option<usize>| AxNode {
            window: window.into(),
            bounds: Rect::new(x, 10, 20, 20),
            parent,
            ..AxNode::default()
        };
        let mut snap = AxSnapshot::new(
            AxHealth::Ok,
            vec![node("stray", 0, None), node("A", 0, None), node("A", 5, Some(1)), node("B", 1, None)],
        );
        let dropped = place(&mut snap, &[("A".into(), Point::new(100, 50)), ("B".into(), Point::new(700, 0))]);
        assert_eq!(dropped, 1);
        assert_eq!(snap.notes.len(), 1, "{:?}", snap.notes);
        assert!(snap.notes[0].contains("window \"stray\" left out"), "{:?}", snap.notes);
        assert_eq!(snap.nodes[0].bounds, Rect::new(100, 60, 20, 20));
        assert_eq!(snap.nodes[1].bounds, Rect::new(105, 60, 20, 20));
        assert_eq!(snap.nodes[1].parent, Some(0));
        assert_eq!(snap.nodes[2].bounds.x, 701);
    }
}

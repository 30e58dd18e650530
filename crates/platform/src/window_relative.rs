//! Accessibility bounds on Wayland, moved into screen coordinates.
//!
//! AT-SPI asks toolkits for screen coordinates, but a Wayland client does not know where its window
//! is: GTK and Chromium answer relative to their own surface. [`WindowRelative`] wraps any
//! [`Accessibility`] source (AT-SPI, unchanged) and moves each node by the screen position of the
//! surface of the window it belongs to, which only the compositor knows ([`SurfaceOrigins`]: sway's
//! IPC, GNOME Shell through handrail's extension). A node's window is found by its window title;
//! nodes of a window that cannot be placed are dropped rather than shown at a wrong place, and the
//! snapshot then says so in a note.
//!
//! Toolkits differ in what "their window" is where it draws client-side shadows: GTK 3 and Chromium
//! count from the surface (shadows included), GTK 4 from its window's geometry (the frame the
//! compositor shows, shadows left out), which AT-SPI marks as `window_relative` nodes. Each window
//! therefore gives both origins ([`SurfaceOrigin`]).
//!
//! Toolkits also count in their own units: where the compositor lays windows out in device pixels
//! and has a HiDPI app draw at twice its size (GNOME's integer scaling), an app's coordinates are
//! multiplied by its window's scale on the way to the screen.

use std::sync::Arc;

use log::debug;

use crate::{Accessibility, AxLimits, AxSnapshot, PlatformError, Point, Rect};

/// Where one window's coordinates start on screen.
#[derive(Debug, Clone, PartialEq)]
pub struct SurfaceOrigin {
    pub title: String,
    /// The buffer the app draws, client-side shadows included (GTK 3, Chromium count from here).
    pub surface: Point,
    /// The window's geometry, the frame shown without shadows (GTK 4 counts from here).
    pub geometry: Point,
    /// Screen pixels per unit of the app's own coordinates: 1 unless the compositor lays windows
    /// out in device pixels and scales this one (2 on a GNOME HiDPI monitor at 200 %).
    pub scale: f64,
}

/// Where each window's surface lies on screen.
pub trait SurfaceOrigins: Send + Sync {
    /// Every placed window's title and origins, in screen coordinates.
    fn surface_origins(&self) -> Result<Vec<SurfaceOrigin>, PlatformError>;

    /// Apps (by accessible application name) that report the compositor's own coordinates rather
    /// than their surface's — the desktop shell drawing its panels on the stage — with what to add
    /// to reach the screen's. Their nodes are kept wherever their window.
    fn global_apps(&self) -> Vec<(String, Point)> {
        Vec::new()
    }
}

/// See the [module docs](self).
pub struct WindowRelative<O: SurfaceOrigins> {
    inner: Box<dyn Accessibility>,
    windows: Arc<O>,
}

impl<O: SurfaceOrigins> WindowRelative<O> {
    pub fn new(inner: Box<dyn Accessibility>, windows: Arc<O>) -> WindowRelative<O> {
        WindowRelative { inner, windows }
    }
}

/// Moves every node of `snapshot` by the origin of its window (see the module docs): `origins` holds
/// each window's title and origins (screen coordinates), `global` the apps whose nodes are in the
/// compositor's coordinates and the offset to the screen's. Returns how many nodes had no window.
pub fn place(snapshot: &mut AxSnapshot, origins: &[SurfaceOrigin], global: &[(String, Point)]) -> usize {
    let mut unplaced = vec![false; snapshot.nodes.len()];
    for (i, node) in snapshot.nodes.iter_mut().enumerate() {
        let origin = match global.iter().find(|(app, _)| *app == node.app) {
            Some((_, offset)) => Some((*offset, 1.0)),
            None => origins.iter().find(|o| o.title == node.window).map(|o| {
                if node.window_relative {
                    (o.geometry, o.scale)
                } else {
                    (o.surface, o.scale)
                }
            }),
        };
        match origin {
            Some((o, scale)) if !node.bounds.is_empty() => {
                // A scale mutter did not give (none, or nonsense) leaves the app's units as they are.
                let b = if scale.is_finite() && scale > 0.0 && scale != 1.0 {
                    node.bounds.scaled(scale)
                } else {
                    node.bounds
                };
                node.bounds = Rect::new(b.x + o.x, b.y + o.y, b.width, b.height);
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

impl<O: SurfaceOrigins> Accessibility for WindowRelative<O> {
    fn snapshot(&self, limits: &AxLimits) -> AxSnapshot {
        let mut snapshot = self.inner.snapshot(limits);
        if snapshot.nodes.is_empty() {
            return snapshot;
        }
        let origins = match self.windows.surface_origins() {
            Ok(origins) => origins,
            Err(e) => {
                debug!("no window geometry for accessibility: {e}");
                Vec::new()
            }
        };
        let dropped = place(&mut snapshot, &origins, &self.windows.global_apps());
        if dropped > 0 {
            debug!("{dropped} accessibility nodes belong to no placed window");
        }
        snapshot
    }

    fn layout_may_have_moved(&self) {
        self.inner.layout_may_have_moved();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AxHealth, AxNode};

    fn origin(title: &str, x: i32, y: i32) -> SurfaceOrigin {
        SurfaceOrigin { title: title.into(), surface: Point::new(x, y), geometry: Point::new(x, y), scale: 1.0 }
    }

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
        let dropped = place(&mut snap, &[origin("A", 100, 50), origin("B", 700, 0)], &[]);
        assert_eq!(dropped, 1);
        assert_eq!(snap.notes.len(), 1, "{:?}", snap.notes);
        assert!(snap.notes[0].contains("window \"stray\" left out"), "{:?}", snap.notes);
        assert_eq!(snap.nodes[0].bounds, Rect::new(100, 60, 20, 20));
        assert_eq!(snap.nodes[1].bounds, Rect::new(105, 60, 20, 20));
        assert_eq!(snap.nodes[1].parent, Some(0));
        assert_eq!(snap.nodes[2].bounds.x, 701);
    }

    #[test]
    fn window_relative_nodes_count_from_the_geometry_others_from_the_surface() {
        let node = |app: &str, relative: bool| AxNode {
            app: app.into(),
            window: "Doc".into(),
            bounds: Rect::new(10, 10, 20, 20),
            window_relative: relative,
            ..AxNode::default()
        };
        let mut snap = AxSnapshot::new(AxHealth::Ok, vec![node("gtk3", false), node("gtk4", true)]);
        // A floating window with client-side shadows: the frame starts 26 px right of and 23 px
        // below its buffer.
        let doc = SurfaceOrigin {
            title: "Doc".into(),
            surface: Point::new(100, 50),
            geometry: Point::new(126, 73),
            scale: 1.0,
        };
        assert_eq!(place(&mut snap, &[doc], &[]), 0);
        assert_eq!(snap.nodes[0].bounds, Rect::new(110, 60, 20, 20));
        assert_eq!(snap.nodes[1].bounds, Rect::new(136, 83, 20, 20));
        assert!(snap.nodes.iter().all(|n| !n.window_relative));
    }

    #[test]
    fn the_shells_own_nodes_stay_where_the_compositor_put_them() {
        let node = |app: &str, window: &str| AxNode {
            app: app.into(),
            window: window.into(),
            bounds: Rect::new(10, 4, 60, 24),
            ..AxNode::default()
        };
        let mut snap = AxSnapshot::new(AxHealth::Ok, vec![node("gnome-shell", ""), node("gedit", "Doc")]);
        let shell = [("gnome-shell".to_owned(), Point::new(0, 0))];
        let dropped = place(&mut snap, &[origin("Doc", 300, 200)], &shell);
        assert_eq!(dropped, 0);
        assert!(snap.notes.is_empty(), "{:?}", snap.notes);
        assert_eq!(snap.nodes[0].bounds, Rect::new(10, 4, 60, 24));
        assert_eq!(snap.nodes[1].bounds, Rect::new(310, 204, 60, 24));
    }

    #[test]
    fn an_apps_own_units_are_scaled_to_the_screens_pixels() {
        let node = |x: i32, w: u32, relative: bool| AxNode {
            window: "Doc".into(),
            bounds: Rect::new(x, 76, w, 34),
            window_relative: relative,
            ..AxNode::default()
        };
        let mut snap =
            AxSnapshot::new(AxHealth::Ok, vec![node(42, 131, false), node(173, 1, false), node(10, 20, true)]);
        // A GTK 3 window at 200 %: its buffer at 592,160, its frame 46 px further in.
        let doc = SurfaceOrigin {
            title: "Doc".into(),
            surface: Point::new(592, 160),
            geometry: Point::new(638, 206),
            scale: 2.0,
        };
        assert_eq!(place(&mut snap, &[doc], &[]), 0);
        assert_eq!(snap.nodes[0].bounds, Rect::new(592 + 84, 160 + 152, 262, 68));
        // Neighbours stay neighbours.
        assert_eq!(snap.nodes[1].bounds.x, snap.nodes[0].bounds.x + snap.nodes[0].bounds.width as i32);
        assert_eq!(snap.nodes[2].bounds, Rect::new(638 + 20, 206 + 152, 40, 68));
        // A scale that makes no sense is not applied.
        let mut snap = AxSnapshot::new(AxHealth::Ok, vec![node(42, 131, false)]);
        let odd = SurfaceOrigin {
            title: "Doc".into(),
            surface: Point::new(0, 0),
            geometry: Point::new(0, 0),
            scale: f64::NAN,
        };
        place(&mut snap, &[odd], &[]);
        assert_eq!(snap.nodes[0].bounds, Rect::new(42, 76, 131, 34));
    }
}

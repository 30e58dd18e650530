//! Accessibility nodes whose toolkit answered window coordinates, placed on the screen.
//!
//! GTK 4 reports each widget's place inside its window (the window itself at 0,0) even when asked
//! for screen coordinates; the accessibility source marks those nodes
//! [`window_relative`](handrail_platform::AxNode::window_relative). Each accessible window (a root
//! node and the nodes under it) is matched to one of the window manager's clients by its title;
//! when several share the title, to the one whose client area it fits tightest, each client at most
//! once, and not at all when two fit equally well (two same-sized documents both called "New
//! Document"). Its nodes are moved by where that window's content starts on the
//! root: the client's origin, plus the margin a GTK window with client-side decorations keeps around
//! what it draws (`_GTK_FRAME_EXTENTS`; without it, the difference between the client's size and the
//! accessible window's, split evenly: GTK's thin border when no compositor draws shadows).
//!
//! A window-relative node whose window is not found, or not told apart from a namesake, is left
//! out, and the snapshot is `Partial`: a node in the wrong place could be clicked.

use std::sync::Arc;

use handrail_platform::{Accessibility, AxLimits, AxSnapshot, Point, Rect};
use log::debug;
use x11rb::protocol::xproto::{AtomEnum, ConnectionExt as _};

use crate::windows::stack::{is_gone, InfoRequest};
use crate::{Conn, X11Error};

/// Upper bound on `_NET_CLIENT_LIST` (windows).
const MAX_CLIENTS: u32 = 4096;

/// A top-level client window, as placing needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientArea {
    pub title: String,
    /// The client window on the root, without the window manager's frame.
    pub client: Rect,
    /// `_GTK_FRAME_EXTENTS` (left, right, top, bottom), when set.
    pub gtk_margin: Option<[u32; 4]>,
}

/// An accessibility source whose window-relative nodes are placed on an X11 screen.
pub struct PlacedAccessibility {
    inner: Box<dyn Accessibility>,
    conn: Arc<Conn>,
}

impl PlacedAccessibility {
    pub fn new(inner: Box<dyn Accessibility>, conn: Arc<Conn>) -> PlacedAccessibility {
        PlacedAccessibility { inner, conn }
    }

    fn clients(&self) -> Result<Vec<ClientArea>, X11Error> {
        let c = &self.conn.conn;
        let list = c
            .get_property(false, self.conn.root, self.conn.atoms._NET_CLIENT_LIST, AtomEnum::WINDOW, 0, MAX_CLIENTS)?
            .reply()?;
        let windows: Vec<u32> = list.value32().map(|v| v.collect()).unwrap_or_default();
        let sent: Vec<_> = windows.iter().map(|&w| InfoRequest::send(&self.conn, w)).collect();
        let mut out = Vec::with_capacity(sent.len());
        for request in sent {
            match request.and_then(InfoRequest::finish) {
                Ok(raw) => out.push(ClientArea { title: raw.title, client: raw.client, gtk_margin: raw.gtk_margin }),
                Err(e) if is_gone(&e) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(out)
    }
}

impl Accessibility for PlacedAccessibility {
    fn snapshot(&self, limits: &AxLimits) -> AxSnapshot {
        let mut snapshot = self.inner.snapshot(limits);
        if !snapshot.nodes.iter().any(|n| n.window_relative) {
            return snapshot;
        }
        let clients = self.clients().unwrap_or_else(|e| {
            debug!("no client windows to place accessibility nodes on: {e}");
            Vec::new()
        });
        let dropped = place(&mut snapshot, &clients);
        if dropped > 0 {
            debug!("{dropped} window-relative accessibility nodes have no window to be placed on");
        }
        snapshot
    }

    fn layout_may_have_moved(&self) {
        self.inner.layout_may_have_moved();
    }
}

/// Which of `clients` is the accessible window `size` titled `title`: among the free ones of that
/// title it fits in, the tightest fit. Two equally tight namesakes (two documents of one editor,
/// both "New Document") are no answer: placed on the wrong one, a click would land in the other.
fn client_of(title: &str, size: Rect, clients: &[ClientArea], taken: &[bool]) -> Option<usize> {
    let slack = |c: &ClientArea| (c.client.width - size.width) + (c.client.height - size.height);
    let fitting: Vec<usize> = (0..clients.len())
        .filter(|&i| !taken[i])
        .filter(|&i| {
            let c = &clients[i];
            c.title == title && c.client.width >= size.width && c.client.height >= size.height
        })
        .collect();
    let tightest = fitting.iter().map(|&i| slack(&clients[i])).min()?;
    let mut best = fitting.into_iter().filter(|&i| slack(&clients[i]) == tightest);
    let only = best.next()?;
    best.next().is_none().then_some(only)
}

/// Where `client`'s content starts on the root, for an accessible window of `size` inside it.
fn content_origin(client: &ClientArea, size: Rect) -> Point {
    let (left, top) = match client.gtk_margin {
        Some([left, _, top, _]) => (left, top),
        None => ((client.client.width - size.width) / 2, (client.client.height - size.height) / 2),
    };
    Point::new(client.client.x + left as i32, client.client.y + top as i32)
}

/// Moves every window-relative node of `snapshot` onto the screen (see the module docs); returns
/// how many were left out for want of a window. Nodes belong to the accessible window at the root
/// of their parent chain, whose size is that root node's.
pub fn place(snapshot: &mut AxSnapshot, clients: &[ClientArea]) -> usize {
    let n = snapshot.nodes.len();
    let root_of = |mut i: usize| {
        // Bounded: a parent chain longer than the snapshot has a cycle.
        for _ in 0..n {
            match snapshot.nodes[i].parent {
                Some(p) if p < n => i = p,
                _ => break,
            }
        }
        i
    };
    let roots: Vec<usize> = (0..n).map(root_of).collect();
    let mut taken = vec![false; clients.len()];
    let mut origin_of_root: Vec<Option<Point>> = vec![None; n];
    for r in (0..n).filter(|&i| roots[i] == i && snapshot.nodes[i].window_relative) {
        let root = &snapshot.nodes[r];
        if let Some(c) = client_of(&root.window, root.bounds, clients, &taken) {
            taken[c] = true;
            origin_of_root[r] = Some(content_origin(&clients[c], root.bounds));
        }
    }
    for r in (0..n).filter(|&i| roots[i] == i && snapshot.nodes[i].window_relative && origin_of_root[i].is_none()) {
        let root = &snapshot.nodes[r];
        snapshot.notes.push(format!(
            "{}: window {:?} left out: no window of that title and size is on screen, or two are alike, so \
             where its controls are is unknown",
            root.app, root.window
        ));
    }
    let mut keep = vec![true; n];
    for (i, node) in snapshot.nodes.iter_mut().enumerate() {
        if !node.window_relative {
            continue;
        }
        match origin_of_root[roots[i]] {
            Some(o) => {
                node.bounds =
                    Rect::new(node.bounds.x + o.x, node.bounds.y + o.y, node.bounds.width, node.bounds.height);
                node.window_relative = false;
            }
            None => keep[i] = false,
        }
    }
    snapshot.retain(&keep)
}

#[cfg(test)]
mod tests {
    use super::*;
    use handrail_platform::{AxHealth, AxNode};

    fn node(window: &str, bounds: Rect, parent: Option<usize>, relative: bool) -> AxNode {
        AxNode { window: window.into(), bounds, parent, window_relative: relative, ..AxNode::default() }
    }

    fn client(title: &str, client: Rect, gtk_margin: Option<[u32; 4]>) -> ClientArea {
        ClientArea { title: title.into(), client, gtk_margin }
    }

    #[test]
    fn window_relative_nodes_move_to_where_their_window_draws() {
        // As gnome-text-editor (GTK 4.8) on openbox: a 700x520 client at 290,140 showing a 690x510
        // window inside a 5 px border; its "Open" button at 15,11 is drawn at 310,156.
        let mut snap = AxSnapshot::new(
            AxHealth::Ok,
            vec![
                node("Text Editor", Rect::new(0, 0, 690, 510), None, true),
                node("Text Editor", Rect::new(15, 11, 59, 24), Some(0), true),
                node("Other", Rect::new(40, 40, 100, 20), None, false),
            ],
        );
        let clients = [
            client("Other", Rect::new(0, 0, 300, 300), None),
            client("Text Editor", Rect::new(290, 140, 700, 520), None),
        ];
        assert_eq!(place(&mut snap, &clients), 0);
        assert_eq!(snap.nodes[0].bounds, Rect::new(295, 145, 690, 510));
        assert_eq!(snap.nodes[1].bounds, Rect::new(310, 156, 59, 24));
        assert!(snap.nodes.iter().all(|n| !n.window_relative));
        // Screen coordinates already: untouched.
        assert_eq!(snap.nodes[2].bounds, Rect::new(40, 40, 100, 20));
    }

    #[test]
    fn a_shadow_margin_is_read_from_the_window_and_the_tightest_namesake_wins() {
        let mut snap = AxSnapshot::new(
            AxHealth::Ok,
            vec![
                node("Notes", Rect::new(0, 0, 400, 300), None, true),
                node("Notes", Rect::new(10, 10, 50, 20), Some(0), true),
            ],
        );
        let clients = [
            client("Notes", Rect::new(0, 0, 1280, 800), None),
            client("Notes", Rect::new(100, 50, 446, 356), Some([23, 23, 18, 38])),
            client("Notes", Rect::new(900, 500, 300, 200), None), // too small to be it
        ];
        assert_eq!(place(&mut snap, &clients), 0);
        assert_eq!(snap.nodes[0].bounds, Rect::new(123, 68, 400, 300));
        assert_eq!(snap.nodes[1].bounds, Rect::new(133, 78, 50, 20));
    }

    #[test]
    fn nodes_whose_window_is_not_found_are_left_out_and_parents_stay_valid() {
        let mut snap = AxSnapshot::new(
            AxHealth::Ok,
            vec![
                node("Gone", Rect::new(0, 0, 200, 100), None, true),
                node("Gone", Rect::new(5, 5, 10, 10), Some(0), true),
                node("Kept", Rect::new(0, 0, 100, 100), None, true),
                node("Kept", Rect::new(1, 2, 3, 4), Some(2), true),
            ],
        );
        let clients = [client("Kept", Rect::new(10, 20, 100, 100), None)];
        assert_eq!(place(&mut snap, &clients), 2);
        assert_eq!(snap.nodes.len(), 2);
        assert_eq!(snap.nodes[0].bounds, Rect::new(10, 20, 100, 100));
        assert_eq!(snap.nodes[1].parent, Some(0));
        assert_eq!(snap.nodes[1].bounds, Rect::new(11, 22, 3, 4));
        assert_eq!(snap.health, AxHealth::Partial, "a snapshot that lost nodes is not whole");
    }

    #[test]
    fn namesake_windows_are_placed_each_on_its_own_client_or_not_at_all() {
        // Two documents of one editor, both titled "New Document", of different sizes: each on the
        // client it fits tightest, never both on one.
        // Two such documents, the second's child under the second's window node.
        let docs = |a: Rect, b: Rect| {
            let doc = |size: Rect| {
                vec![
                    node("New Document", size, None, true),
                    node("New Document", Rect::new(5, 5, 20, 20), Some(0), true),
                ]
            };
            let mut snap = AxSnapshot::new(AxHealth::Ok, [doc(a), doc(b)].concat());
            snap.nodes[3].parent = Some(2);
            snap
        };
        let docs_on = |a: Rect, b: Rect| [client("New Document", a, None), client("New Document", b, None)];
        let mut snap = docs(Rect::new(0, 0, 600, 400), Rect::new(0, 0, 300, 200));
        let clients = docs_on(Rect::new(0, 0, 600, 400), Rect::new(700, 300, 300, 200));
        assert_eq!(place(&mut snap, &clients), 0);
        assert_eq!(snap.nodes[1].bounds, Rect::new(5, 5, 20, 20));
        assert_eq!(snap.nodes[3].bounds, Rect::new(705, 305, 20, 20));
        // Of the same size, which is which cannot be told: both are left out rather than guessed.
        let mut snap = docs(Rect::new(0, 0, 300, 200), Rect::new(0, 0, 300, 200));
        let clients = docs_on(Rect::new(0, 0, 300, 200), Rect::new(700, 300, 300, 200));
        assert_eq!(place(&mut snap, &clients), 4);
        assert!(snap.nodes.is_empty());
        // And the snapshot says so, once per window left out.
        assert_eq!(snap.health, AxHealth::Partial);
        assert_eq!(snap.notes.len(), 2, "{:?}", snap.notes);
        assert!(snap.notes[0].contains("window \"New Document\" left out"), "{:?}", snap.notes);
    }
}

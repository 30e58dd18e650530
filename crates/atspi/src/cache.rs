//! Per-window cache of walked nodes, invalidated by accessibility events.
//!
//! The reader thread records which objects (sender, path) raised events; a snapshot takes that set and
//! re-walks only windows that contain one of those objects. An event from an object the cache does not
//! know (a new child, a pruned hidden subtree) invalidates every window of its application: coarse, but
//! never stale.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use handrail_platform::{AxNode, Rect};

use crate::toolkit::Toolkit;

/// An object on the accessibility bus: its application's connection name and its path.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ObjRef {
    pub bus: Arc<str>,
    pub path: Arc<str>,
}

impl ObjRef {
    pub fn new(bus: &str, path: &str) -> Self {
        Self { bus: Arc::from(bus), path: Arc::from(path) }
    }
}

/// A window's nodes as last walked. `nodes[0]` is the window; parent indices are local.
#[derive(Debug, Clone)]
pub struct CachedWindow {
    pub extents: Rect,
    pub nodes: Vec<AxNode>,
    /// Object path of each node.
    pub paths: Vec<Arc<str>>,
    /// How the window's answers are read (its extents are asked in the coordinates it answers).
    pub toolkit: Toolkit,
    /// Containers whose children were not read, said why: they stay unread while the window is reused.
    pub unread: Vec<String>,
}

impl CachedWindow {
    /// The same window moved by (dx, dy): toolkits report screen coordinates, so every node moves.
    pub fn translated(&self, dx: i32, dy: i32) -> CachedWindow {
        let mut c = self.clone();
        if dx != 0 || dy != 0 {
            c.extents.x += dx;
            c.extents.y += dy;
            for n in &mut c.nodes {
                n.bounds.x += dx;
                n.bounds.y += dy;
            }
        }
        c
    }
}

/// What the last snapshot saw.
#[derive(Debug, Default)]
pub struct Cache {
    pub windows: HashMap<ObjRef, CachedWindow>,
    pub app_names: HashMap<Arc<str>, String>,
    /// Object → the cached window containing it.
    index: HashMap<ObjRef, ObjRef>,
}

impl Cache {
    pub fn clear(&mut self) {
        *self = Cache::default();
    }

    /// Replaces the cached windows with `fresh` and rebuilds the object index.
    pub fn replace(&mut self, fresh: Vec<(ObjRef, CachedWindow)>, app_names: Vec<(Arc<str>, String)>) {
        self.windows.clear();
        self.index.clear();
        for (key, win) in fresh {
            for p in &win.paths {
                self.index.insert(ObjRef { bus: key.bus.clone(), path: p.clone() }, key.clone());
            }
            self.windows.insert(key, win);
        }
        // Names of applications that are gone are dropped with them.
        self.app_names = app_names.into_iter().filter(|(_, n)| !n.is_empty()).collect();
    }

    /// The cached window containing `obj`.
    pub fn window_of(&self, obj: &ObjRef) -> Option<&ObjRef> {
        self.index.get(obj)
    }
}

/// Objects that raised events since the last snapshot.
#[derive(Debug, Default)]
pub struct Dirty {
    /// Everything is suspect (too many events to track).
    pub all: bool,
    pub objects: HashSet<ObjRef>,
    pub events: u64,
}

/// Beyond this many distinct objects, tracking them costs more than re-walking.
const MAX_TRACKED: usize = 20_000;

impl Dirty {
    pub fn note(&mut self, bus: &str, path: &str) {
        self.events += 1;
        if self.all {
            return;
        }
        if self.objects.len() >= MAX_TRACKED {
            self.all = true;
            self.objects.clear();
            return;
        }
        self.objects.insert(ObjRef::new(bus, path));
    }

    /// True when cached window `win` must be walked again.
    pub fn touches(&self, win: &ObjRef, cache: &Cache) -> bool {
        if self.all {
            return true;
        }
        self.objects.iter().any(|o| match cache.window_of(o) {
            Some(w) => w == win,
            // Unknown object: anything in its application may have changed.
            None => o.bus == win.bus,
        })
    }

    /// Windows (by key) invalidated, for the whole cache at once.
    pub fn invalidated(&self, cache: &Cache) -> HashSet<ObjRef> {
        cache.windows.keys().filter(|w| self.touches(w, cache)).cloned().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn win(paths: &[&str]) -> CachedWindow {
        CachedWindow {
            unread: Vec::new(),
            toolkit: Toolkit::default(),
            extents: Rect { x: 10, y: 20, width: 100, height: 50 },
            nodes: paths
                .iter()
                .map(|_| AxNode { bounds: Rect { x: 12, y: 22, width: 5, height: 5 }, ..AxNode::default() })
                .collect(),
            paths: paths.iter().map(|p| Arc::from(*p)).collect(),
        }
    }

    #[test]
    fn events_invalidate_their_window_or_their_whole_app() {
        let mut cache = Cache::default();
        let w1 = ObjRef::new(":1.5", "/w1");
        let w2 = ObjRef::new(":1.5", "/w2");
        let w3 = ObjRef::new(":1.9", "/w3");
        cache.replace(
            vec![(w1.clone(), win(&["/w1", "/b1"])), (w2.clone(), win(&["/w2", "/b2"])), (w3.clone(), win(&["/w3"]))],
            vec![],
        );
        let mut d = Dirty::default();
        assert!(d.invalidated(&cache).is_empty());
        d.note(":1.5", "/b2");
        assert_eq!(d.invalidated(&cache), HashSet::from([w2.clone()]));
        d.note(":1.5", "/unknown");
        assert_eq!(d.invalidated(&cache), HashSet::from([w1.clone(), w2.clone()]));
        let mut d = Dirty { all: true, ..Dirty::default() };
        d.note(":1.9", "/x");
        assert_eq!(d.invalidated(&cache).len(), 3);
    }

    #[test]
    fn translation_moves_every_node() {
        let t = win(&["/w", "/a"]).translated(5, -2);
        assert_eq!((t.extents.x, t.extents.y), (15, 18));
        assert!(t.nodes.iter().all(|n| n.bounds.x == 17 && n.bounds.y == 20));
    }
}

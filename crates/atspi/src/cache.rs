//! Per-window cache of walked nodes, kept current by accessibility events.
//!
//! The reader thread records which objects (sender, path) raised events and how far each event's change
//! reaches ([`Reach`]): a node's own fields (a name, a text, a value) or everything under it (its
//! children, its layout, its states, which decide whether its descendants are shown). A snapshot reads
//! again only those nodes or subtrees of the cached windows and splices them in ([`splice`]), and asks
//! every other node of such a window where it is and its states, which toolkits change without an
//! event (a web page's layout, GTK 3's `default`); an unchanged window costs a two-call check. After
//! input that can move things without an event (`Accessibility::layout_may_have_moved`: Chromium
//! announces no scroll inside a page), every reused window is asked so too, and the nodes left out as
//! hidden ([`CachedWindow::hidden`]) whether they are shown now. An event from an object the cache does not know (a text leaf, a new
//! child, a pruned hidden subtree) is traced up to a known ancestor, whose subtree is read again; when that
//! fails (the object is gone, or no ancestor is known within a few steps), every window of its application
//! is walked again: coarse, but never stale.

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
    /// Nodes left out because they were not shown (with their subtrees), by path. Toolkits show some
    /// without an event (Chromium's rows scrolled into view on its settings page): when the window is
    /// read again in parts, these are asked too, and one shown now has the window walked whole.
    pub hidden: Vec<Arc<str>>,
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
    /// Container → the descendant it last said is active (`ActiveDescendantChanged`): a container with
    /// too many children to read (a spreadsheet) lists this one, its cursor cell. Known only from
    /// events (nothing else asks a container for it), so kept when the windows are forgotten.
    pub active_descendants: HashMap<ObjRef, ObjRef>,
}

impl Cache {
    /// Forgets everything (a new connection: the objects it knew may be gone or reused).
    pub fn clear(&mut self) {
        *self = Cache::default();
    }

    /// Forgets the windows (the next snapshot walks them all), keeping what only events told.
    pub fn clear_windows(&mut self) {
        let active_descendants = std::mem::take(&mut self.active_descendants);
        *self = Cache { active_descendants, ..Cache::default() };
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

/// How far the change an event announces reaches from the object that raised it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Reach {
    /// Its own fields (name, description, text, value, selection, most states): the node is read
    /// again, its descendants are kept.
    Node,
    /// Its children (some added or removed): the node and its list of children are read again; the
    /// children it had keep their cached subtrees, new ones are walked.
    Children,
    /// Its extents, or whether it is shown or expanded (which shows or hides its descendants, and
    /// toolkits do not always announce that for each of them), or anything not known: the subtree is
    /// read again.
    Subtree,
    /// The whole window it is in: a document that finished or stopped loading (the browser changes its
    /// own toolbar around it, e.g. Chromium's Stop button back to Reload, without an event for that).
    Window,
}

impl Reach {
    /// The reach of an event by its signal's interface and member, and for a state change the state's
    /// name (`detail`). Anything not known to stay within the node reaches its subtree.
    pub fn of_event(interface: &str, member: &str, detail: Option<&str>) -> Reach {
        if interface == "org.a11y.atspi.Event.Document" {
            return match member {
                "LoadComplete" | "Reload" | "LoadStopped" => Reach::Window,
                _ => Reach::Subtree,
            };
        }
        if interface != "org.a11y.atspi.Event.Object" {
            return Reach::Subtree;
        }
        match member {
            "PropertyChange"
            | "TextChanged"
            | "TextCaretMoved"
            | "TextSelectionChanged"
            | "TextAttributesChanged"
            | "AttributesChanged"
            | "SelectionChanged" => Reach::Node,
            // Which child is listed under a container too big to read follows its active one.
            "ChildrenChanged" | "ActiveDescendantChanged" => Reach::Children,
            "StateChanged" => match detail {
                Some("showing" | "visible" | "expanded" | "collapsed" | "expandable" | "defunct" | "iconified")
                | None => Reach::Subtree,
                Some(_) => Reach::Node,
            },
            _ => Reach::Subtree,
        }
    }
}

/// Objects that raised events since the last snapshot, each with the widest reach of its events.
#[derive(Debug, Default)]
pub struct Dirty {
    /// Everything is suspect (too many events to track).
    pub all: bool,
    pub objects: HashMap<ObjRef, Reach>,
    pub events: u64,
    /// Each container's active descendant as its latest event named it.
    pub active: HashMap<ObjRef, ObjRef>,
}

/// Beyond this many distinct objects, tracking them costs more than re-walking.
const MAX_TRACKED: usize = 20_000;

/// The paths of the children of the node at `at` (depth first, parents as indices), with the range
/// each child's subtree spans.
pub fn children_of(nodes: &[AxNode], paths: &[Arc<str>], at: usize) -> Vec<(Arc<str>, std::ops::Range<usize>)> {
    let end_of =
        |i: usize| (i + 1..nodes.len()).find(|&j| nodes[j].parent.is_none_or(|p| p < i)).unwrap_or(nodes.len());
    let end = end_of(at);
    let mut out = Vec::new();
    let mut j = at + 1;
    while j < end {
        let child_end = end_of(j);
        if let Some(path) = paths.get(j) {
            out.push((path.clone(), j..child_end));
        }
        j = child_end;
    }
    out
}

impl Dirty {
    /// The container at `bus` `path` made `descendant` its active one (its own change is noted as its
    /// event's reach).
    pub fn note_active(&mut self, bus: &str, path: &str, descendant: ObjRef) {
        let container = ObjRef::new(bus, path);
        if self.active.len() < MAX_TRACKED || self.active.contains_key(&container) {
            self.active.insert(container, descendant);
        }
    }

    pub fn note(&mut self, bus: &str, path: &str, reach: Reach) {
        self.events += 1;
        if self.all {
            return;
        }
        if self.objects.len() >= MAX_TRACKED {
            self.all = true;
            self.objects.clear();
            return;
        }
        let r = self.objects.entry(ObjRef::new(bus, path)).or_insert(reach);
        *r = (*r).max(reach);
    }

    /// The objects of cached window `win` that raised events, with their reach (objects of its
    /// application the cache does not know are left out).
    pub fn parts_in(&self, win: &ObjRef, cache: &Cache) -> Vec<(Arc<str>, Reach)> {
        if self.all {
            return vec![(win.path.clone(), Reach::Subtree)];
        }
        self.objects
            .iter()
            .filter(|(o, _)| cache.window_of(o) == Some(win))
            .map(|(o, &r)| (o.path.clone(), r))
            .collect()
    }

    /// What to read again: whole windows, parts of windows (their node paths and reach), and objects
    /// the cache does not know, to be traced to a known ancestor.
    pub fn plan(&self, cache: &Cache) -> Plan {
        let mut plan = Plan::default();
        if self.all {
            plan.walk = cache.windows.keys().cloned().collect();
            return plan;
        }
        for (o, &reach) in &self.objects {
            match cache.window_of(o) {
                // The window itself, all of it: a walk.
                Some(w) if reach == Reach::Window || (w.path == o.path && reach == Reach::Subtree) => {
                    plan.walk.insert(w.clone());
                }
                Some(w) => plan.parts.entry(w.clone()).or_default().push((o.path.clone(), reach)),
                // A document the cache does not know finished loading: its application's windows.
                None if reach == Reach::Window => plan.walk_app(&o.bus, cache),
                None => plan.unknown.push(o.clone()),
            }
        }
        plan.settle();
        plan
    }
}

/// What a snapshot reads again (see [`Dirty::plan`]).
#[derive(Debug, Default)]
pub struct Plan {
    /// Windows walked whole.
    pub walk: HashSet<ObjRef>,
    /// Windows reused with these nodes (reach `Node`) or subtrees read again.
    pub parts: HashMap<ObjRef, Vec<(Arc<str>, Reach)>>,
    /// Objects the cache does not know.
    pub unknown: Vec<ObjRef>,
    /// Every reused window is asked again where its nodes are and whether its hidden ones are shown
    /// (input may have moved them without an event).
    pub restate: bool,
}

/// Beyond this many parts, a window is walked whole: one walk pipelines better than many subtrees.
pub const MAX_PARTS: usize = 32;

impl Plan {
    /// Every window of `bus`'s application is walked whole.
    pub fn walk_app(&mut self, bus: &str, cache: &Cache) {
        self.walk.extend(cache.windows.keys().filter(|w| &*w.bus == bus).cloned());
    }

    /// Leaves out parts of windows walked whole, walks windows with too many parts, and keeps one
    /// part per node (its widest reach).
    pub fn settle(&mut self) {
        let walk = &mut self.walk;
        self.parts.retain(|w, parts| {
            if walk.contains(w) {
                return false;
            }
            parts.sort();
            parts.dedup_by(|later, earlier| {
                // Sorted by path, then reach: of one path keep the last (widest).
                if later.0 == earlier.0 {
                    earlier.1 = earlier.1.max(later.1);
                    true
                } else {
                    false
                }
            });
            if parts.len() > MAX_PARTS {
                walk.insert(w.clone());
                return false;
            }
            true
        });
    }
}

/// Replaces the node at `at` of a cached window's nodes (depth first, parents as indices) with what was
/// read again: with reach `Node` the node alone (its descendants kept), otherwise the node and all its
/// descendants (for `Children`, the caller has put the subtrees of the children it kept in `fresh`). `fresh` is the new node (and, for a subtree, its descendants), its parents local
/// with the node at 0; `None` when the node is gone or no longer shown: it leaves with its subtree.
pub fn splice(
    nodes: &mut Vec<AxNode>,
    paths: &mut Vec<Arc<str>>,
    at: usize,
    reach: Reach,
    fresh: Option<(Vec<AxNode>, Vec<Arc<str>>)>,
) {
    if at >= nodes.len() || paths.len() != nodes.len() {
        return;
    }
    // Depth first: the subtree ends at the first later node whose parent comes before `at`.
    let end = (at + 1..nodes.len()).find(|&j| nodes[j].parent.is_none_or(|p| p < at)).unwrap_or(nodes.len());
    let parent = nodes[at].parent;
    let (replacement, replacement_paths, replaced_end) = match (reach, fresh) {
        (Reach::Node, Some((mut f, fp))) if !f.is_empty() && !fp.is_empty() => {
            f.truncate(1);
            f[0].parent = parent;
            (f, vec![fp[0].clone()], at + 1)
        }
        (Reach::Subtree | Reach::Children, Some((mut f, fp))) if !f.is_empty() && f.len() == fp.len() => {
            for (i, n) in f.iter_mut().enumerate() {
                n.parent = if i == 0 { parent } else { n.parent.map(|p| p + at) };
            }
            (f, fp, end)
        }
        _ => (Vec::new(), Vec::new(), end),
    };
    let removed = replaced_end - at;
    let added = replacement.len();
    nodes.splice(at..replaced_end, replacement);
    paths.splice(at..replaced_end, replacement_paths);
    for n in nodes.iter_mut().skip(at + added) {
        if let Some(p) = n.parent {
            if p >= replaced_end {
                n.parent = Some(p + added - removed);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn win(paths: &[&str]) -> CachedWindow {
        CachedWindow {
            unread: Vec::new(),
            hidden: Vec::new(),
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
        let plan = d.plan(&cache);
        assert!(plan.walk.is_empty() && plan.parts.is_empty() && plan.unknown.is_empty());
        // A name changed: that node alone; then its children too: its subtree, once.
        d.note(":1.5", "/b2", Reach::Node);
        assert_eq!(d.plan(&cache).parts, HashMap::from([(w2.clone(), vec![(Arc::from("/b2"), Reach::Node)])]));
        d.note(":1.5", "/b2", Reach::Subtree);
        d.note(":1.5", "/b2", Reach::Children);
        assert_eq!(d.plan(&cache).parts, HashMap::from([(w2.clone(), vec![(Arc::from("/b2"), Reach::Subtree)])]));
        // An object nobody knows is traced; the window's own subtree is a walk.
        d.note(":1.5", "/unknown", Reach::Node);
        d.note(":1.9", "/w3", Reach::Subtree);
        let plan = d.plan(&cache);
        assert_eq!(plan.unknown, vec![ObjRef::new(":1.5", "/unknown")]);
        assert_eq!(plan.walk, HashSet::from([w3.clone()]));
        // Tracing failed: the whole application is walked, and its parts are moot.
        let mut plan = d.plan(&cache);
        plan.walk_app(":1.5", &cache);
        plan.settle();
        assert_eq!(plan.walk, HashSet::from([w1.clone(), w2.clone(), w3.clone()]));
        assert!(plan.parts.is_empty());
        let mut d = Dirty { all: true, ..Dirty::default() };
        d.note(":1.9", "/x", Reach::Node);
        assert_eq!(d.plan(&cache).walk.len(), 3);
    }

    /// A tree as (parent, name) pairs, depth first.
    fn tree(spec: &[(Option<usize>, &str)]) -> (Vec<AxNode>, Vec<Arc<str>>) {
        let nodes = spec.iter().map(|(p, n)| AxNode { parent: *p, name: (*n).into(), ..AxNode::default() }).collect();
        let paths = spec.iter().map(|(_, n)| Arc::from(format!("/{n}"))).collect();
        (nodes, paths)
    }

    fn shape(nodes: &[AxNode]) -> Vec<(Option<usize>, String)> {
        nodes.iter().map(|n| (n.parent, n.name.clone())).collect()
    }

    #[test]
    fn splicing_replaces_a_node_or_its_subtree_and_keeps_parents_right() {
        // w ─ a ─ a1
        //       └ a2
        //   └ b ─ b1
        let base = [(None, "w"), (Some(0), "a"), (Some(1), "a1"), (Some(1), "a2"), (Some(0), "b"), (Some(4), "b1")];
        let s = |v: &[(Option<usize>, &str)]| v.iter().map(|(p, n)| (*p, n.to_string())).collect::<Vec<_>>();

        // a's subtree now holds one child, a3.
        let (mut nodes, mut paths) = tree(&base);
        splice(&mut nodes, &mut paths, 1, Reach::Subtree, Some(tree(&[(None, "a"), (Some(0), "a3")])));
        assert_eq!(shape(&nodes), s(&[(None, "w"), (Some(0), "a"), (Some(1), "a3"), (Some(0), "b"), (Some(3), "b1")]));
        assert_eq!(paths.len(), nodes.len());
        assert_eq!(&*paths[2], "/a3");

        // a renamed: its children stay.
        let (mut nodes, mut paths) = tree(&base);
        splice(&mut nodes, &mut paths, 1, Reach::Node, Some(tree(&[(None, "A")])));
        assert_eq!(shape(&nodes)[1], (Some(0), "A".to_string()));
        assert_eq!(shape(&nodes)[2..], s(&base[2..])[..]);

        // a hidden: gone with its subtree, whatever the reach.
        for reach in [Reach::Node, Reach::Subtree] {
            let (mut nodes, mut paths) = tree(&base);
            splice(&mut nodes, &mut paths, 1, reach, None);
            assert_eq!(shape(&nodes), s(&[(None, "w"), (Some(0), "b"), (Some(1), "b1")]));
            assert_eq!(paths.iter().map(|p| p.to_string()).collect::<Vec<_>>(), ["/w", "/b", "/b1"]);
        }

        // b1, the last node, grows children; b's subtree is last too.
        let (mut nodes, mut paths) = tree(&base);
        splice(&mut nodes, &mut paths, 5, Reach::Subtree, Some(tree(&[(None, "b1"), (Some(0), "x"), (Some(1), "y")])));
        assert_eq!(shape(&nodes)[5..], s(&[(Some(4), "b1"), (Some(5), "x"), (Some(6), "y")])[..]);

        // Out of range, or a reply that does not fit: nothing changes.
        let (mut nodes, mut paths) = tree(&base);
        splice(&mut nodes, &mut paths, 9, Reach::Subtree, None);
        assert_eq!(shape(&nodes), s(&base));
    }

    /// A tree from each node's parent choice: node `i > 0` hangs under the `choice % i`-th node, made
    /// depth first by sorting (parents stay before children).
    fn random_tree(choices: &[usize], tag: &str) -> (Vec<AxNode>, Vec<Arc<str>>) {
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); choices.len() + 1];
        for (i, c) in choices.iter().enumerate() {
            children[c % (i + 1)].push(i + 1);
        }
        let (mut nodes, mut paths) = (Vec::new(), Vec::new());
        let mut stack = vec![(0usize, None)];
        while let Some((n, parent)) = stack.pop() {
            let at = nodes.len();
            nodes.push(AxNode { parent, name: format!("{tag}{n}"), ..AxNode::default() });
            paths.push(Arc::from(format!("/{tag}{n}")));
            for &c in children[n].iter().rev() {
                stack.push((c, Some(at)));
            }
        }
        (nodes, paths)
    }

    proptest::proptest! {
        /// Whatever is spliced where, the window stays a tree in depth-first order: one root, every
        /// parent before its children, a path per node; and the nodes outside the replaced subtree
        /// are all still there, in order.
        #[test]
        fn splicing_keeps_a_depth_first_tree(
            base in proptest::collection::vec(0usize..64, 0..40),
            fresh in proptest::option::of(proptest::collection::vec(0usize..64, 0..10)),
            at in 0usize..41,
            subtree in proptest::bool::ANY,
        ) {
            let (mut nodes, mut paths) = random_tree(&base, "n");
            let before = nodes.clone();
            let at = at % nodes.len();
            let outside: Vec<String> = {
                let end = (at + 1..before.len()).find(|&j| before[j].parent.is_none_or(|p| p < at)).unwrap_or(before.len());
                before[..at].iter().chain(&before[end..]).map(|n| n.name.clone()).collect()
            };
            let reach = if subtree { Reach::Subtree } else { Reach::Node };
            splice(&mut nodes, &mut paths, at, reach, fresh.map(|f| random_tree(&f, "f")));
            proptest::prop_assert_eq!(nodes.len(), paths.len());
            for (i, n) in nodes.iter().enumerate() {
                match n.parent {
                    None => proptest::prop_assert_eq!(i, 0),
                    Some(p) => proptest::prop_assert!(p < i, "node {} has parent {}", i, p),
                }
            }
            let kept: Vec<String> = nodes.iter().map(|n| n.name.clone()).filter(|n| n.starts_with('n')).collect();
            if at == 0 && subtree {
                proptest::prop_assert!(kept.is_empty() || kept.len() == 1 || kept.iter().all(|k| outside.contains(k)));
            } else {
                proptest::prop_assert!(outside.iter().all(|o| kept.contains(o)), "{:?} lost from {:?}", outside, kept);
            }
        }
    }

    #[test]
    fn events_reach_as_far_as_what_they_announce() {
        let object = "org.a11y.atspi.Event.Object";
        assert_eq!(Reach::of_event(object, "PropertyChange", None), Reach::Node);
        assert_eq!(Reach::of_event(object, "TextChanged", None), Reach::Node);
        assert_eq!(Reach::of_event(object, "ChildrenChanged", None), Reach::Children);
        assert_eq!(Reach::of_event(object, "ActiveDescendantChanged", None), Reach::Children);
        assert_eq!(Reach::of_event(object, "StateChanged", Some("focused")), Reach::Node);
        assert_eq!(Reach::of_event(object, "StateChanged", Some("showing")), Reach::Subtree);
        assert_eq!(Reach::of_event(object, "StateChanged", None), Reach::Subtree);
        assert_eq!(Reach::of_event(object, "BoundsChanged", None), Reach::Subtree);
        assert_eq!(Reach::of_event("org.a11y.atspi.Event.Window", "Activate", None), Reach::Subtree);
        assert_eq!(Reach::of_event(object, "SomethingNew", None), Reach::Subtree);
        let document = "org.a11y.atspi.Event.Document";
        assert_eq!(Reach::of_event(document, "LoadComplete", None), Reach::Window);
        assert_eq!(Reach::of_event(document, "LoadStopped", None), Reach::Window);
        assert_eq!(Reach::of_event(document, "AttributesChanged", None), Reach::Subtree);
    }

    #[test]
    fn active_descendants_outlive_forgotten_windows_but_not_a_new_connection() {
        let mut cache = Cache::default();
        let sheet = ObjRef::new(":1.2", "/sheet");
        cache.replace(vec![(ObjRef::new(":1.2", "/w"), win(&["/w", "/sheet"]))], vec![]);
        let mut d = Dirty::default();
        d.note_active(":1.2", "/sheet", ObjRef::new(":1.2", "/a1"));
        d.note_active(":1.2", "/sheet", ObjRef::new(":1.2", "/a2"));
        cache.active_descendants.extend(d.active.drain());
        assert_eq!(cache.active_descendants.get(&sheet), Some(&ObjRef::new(":1.2", "/a2")), "the latest wins");
        cache.clear_windows();
        assert!(cache.windows.is_empty());
        assert_eq!(cache.active_descendants.get(&sheet), Some(&ObjRef::new(":1.2", "/a2")));
        cache.clear();
        assert!(cache.active_descendants.is_empty());
    }

    #[test]
    fn a_finished_load_walks_its_window_or_its_app() {
        let mut cache = Cache::default();
        let w1 = ObjRef::new(":1.5", "/w1");
        let w2 = ObjRef::new(":1.5", "/w2");
        cache.replace(vec![(w1.clone(), win(&["/w1", "/doc"])), (w2.clone(), win(&["/w2", "/b2"]))], vec![]);
        let mut d = Dirty::default();
        d.note(":1.5", "/doc", Reach::Node);
        d.note(":1.5", "/doc", Reach::Window);
        d.note(":1.5", "/b2", Reach::Node);
        let plan = d.plan(&cache);
        assert_eq!(plan.walk, HashSet::from([w1.clone()]));
        assert_eq!(plan.parts, HashMap::from([(w2.clone(), vec![(Arc::from("/b2"), Reach::Node)])]));
        // A document the cache never saw: every window of its application.
        let mut d = Dirty::default();
        d.note(":1.5", "/new-doc", Reach::Window);
        let plan = d.plan(&cache);
        assert_eq!(plan.walk, HashSet::from([w1, w2]));
        assert!(plan.unknown.is_empty());
    }

    #[test]
    fn translation_moves_every_node() {
        let t = win(&["/w", "/a"]).translated(5, -2);
        assert_eq!((t.extents.x, t.extents.y), (15, 18));
        assert!(t.nodes.iter().all(|n| n.bounds.x == 17 && n.bounds.y == 20));
    }
}

//! Walking the accessibility trees of the apps on screen into one snapshot, within the limits the
//! engine gives: at most `max_nodes` nodes, no call past `deadline`, an app that stops answering left
//! out (the snapshot is then `Partial`), and the permission's absence said as such
//! (`permission_required`), never as an empty desktop.
//!
//! The tree is behind [`Tree`] so that this logic — order, limits, parents, health — is the same code
//! on a Mac (where `sys` reads `AXUIElement`s) and in the tests here.

use std::collections::VecDeque;
use std::time::Duration;

use handrail_platform::{AxHealth, AxLimits, AxNode, AxSnapshot};

use crate::node::{decode, Place, RawElement};
use crate::space::ScreenSpace;

/// Why reading an element failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    /// The app did not answer within the call timeout.
    Timeout,
    /// The element is gone (its window closed meanwhile).
    Gone,
    /// Accessibility is not granted to this process.
    NotPermitted,
    Other(String),
}

/// An accessibility tree to read.
pub trait Tree {
    type Handle: Clone;
    fn read(&self, element: &Self::Handle) -> Result<RawElement, ReadError>;
    fn children(&self, element: &Self::Handle) -> Result<Vec<Self::Handle>, ReadError>;
}

/// Where a walk starts: an app's window (or its menu bar), with what every node under it shares.
#[derive(Debug, Clone)]
pub struct Root<H> {
    pub element: H,
    pub app: String,
    pub window: String,
    pub in_terminal: bool,
}

/// Walks `roots` breadth first, each root's subtree in turn, into one snapshot. `elapsed` is the time
/// since the walk began.
pub fn walk<T: Tree>(
    tree: &T,
    roots: &[Root<T::Handle>],
    space: &ScreenSpace,
    limits: &AxLimits,
    elapsed: impl Fn() -> Duration,
) -> AxSnapshot {
    let mut nodes: Vec<AxNode> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    let mut partial = false;
    for root in roots {
        let place = Place { app: &root.app, window: &root.window, in_terminal: root.in_terminal, space };
        let mut queue: VecDeque<(T::Handle, Option<usize>)> = VecDeque::from([(root.element.clone(), None)]);
        while let Some((element, parent)) = queue.pop_front() {
            if nodes.len() >= limits.max_nodes {
                notes.push(format!("stopped at {} elements", limits.max_nodes));
                return finish(nodes, notes, true);
            }
            if elapsed() >= limits.deadline {
                notes.push(format!("stopped after {} ms", limits.deadline.as_millis()));
                return finish(nodes, notes, true);
            }
            let raw = match tree.read(&element) {
                Ok(raw) => raw,
                Err(e) => match failed(e, &root.app, &mut notes, &mut partial) {
                    AfterFailure::NotPermitted => return not_permitted(),
                    AfterFailure::SkipApp => break,
                    AfterFailure::SkipElement => continue,
                },
            };
            let index = nodes.len();
            nodes.push(decode(&raw, place, parent));
            match tree.children(&element) {
                Ok(children) => queue.extend(children.into_iter().map(|c| (c, Some(index)))),
                Err(e) => match failed(e, &root.app, &mut notes, &mut partial) {
                    AfterFailure::NotPermitted => return not_permitted(),
                    AfterFailure::SkipApp => break,
                    AfterFailure::SkipElement => {}
                },
            }
        }
    }
    finish(nodes, notes, partial)
}

/// Where the walk goes after a failed call.
enum AfterFailure {
    NotPermitted,
    /// The app stopped answering: the rest of it would time out too.
    SkipApp,
    SkipElement,
}

fn failed(e: ReadError, app: &str, notes: &mut Vec<String>, partial: &mut bool) -> AfterFailure {
    match e {
        ReadError::NotPermitted => AfterFailure::NotPermitted,
        ReadError::Gone => AfterFailure::SkipElement,
        ReadError::Timeout => {
            notes.push(format!("{app} did not answer in time"));
            *partial = true;
            AfterFailure::SkipApp
        }
        ReadError::Other(why) => {
            notes.push(format!("{app}: {why}"));
            *partial = true;
            AfterFailure::SkipElement
        }
    }
}

fn not_permitted() -> AxSnapshot {
    let mut s = AxSnapshot::new(AxHealth::PermissionRequired, Vec::new());
    s.notes.push("macOS has not granted the Accessibility permission".into());
    s
}

fn finish(nodes: Vec<AxNode>, notes: Vec<String>, partial: bool) -> AxSnapshot {
    let mut s = AxSnapshot::new(if partial { AxHealth::Partial } else { AxHealth::Ok }, nodes);
    s.notes = notes;
    s
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::collections::HashMap;

    use handrail_platform::Role;

    use super::*;

    /// A tree of named elements: name → (role, children), with failures injected by name.
    #[derive(Default)]
    struct Fake {
        nodes: HashMap<&'static str, (&'static str, Vec<&'static str>)>,
        failing: HashMap<&'static str, ReadError>,
        reads: Cell<usize>,
    }

    impl Tree for Fake {
        type Handle = &'static str;
        fn read(&self, e: &&'static str) -> Result<RawElement, ReadError> {
            self.reads.set(self.reads.get() + 1);
            if let Some(err) = self.failing.get(e) {
                return Err(err.clone());
            }
            let (role, _) = self.nodes.get(e).ok_or(ReadError::Gone)?;
            Ok(RawElement { role: (*role).into(), title: (*e).into(), ..RawElement::default() })
        }
        fn children(&self, e: &&'static str) -> Result<Vec<&'static str>, ReadError> {
            Ok(self.nodes.get(e).map(|(_, c)| c.clone()).unwrap_or_default())
        }
    }

    fn fake() -> Fake {
        let mut f = Fake::default();
        f.nodes.insert("window", ("AXWindow", vec!["toolbar", "ok", "gone"]));
        f.nodes.insert("toolbar", ("AXToolbar", vec!["back"]));
        f.nodes.insert("back", ("AXButton", vec![]));
        f.nodes.insert("ok", ("AXButton", vec![]));
        f.nodes.insert("menubar", ("AXMenuBar", vec!["file"]));
        f.nodes.insert("file", ("AXMenuBarItem", vec![]));
        f
    }

    fn space() -> ScreenSpace {
        crate::space::laptop()
    }

    fn root(e: &'static str, app: &str) -> Root<&'static str> {
        Root { element: e, app: app.into(), window: "Docs".into(), in_terminal: false }
    }

    fn limits() -> AxLimits {
        AxLimits { max_nodes: 100, call_timeout: Duration::from_millis(250), deadline: Duration::from_millis(1500) }
    }

    #[test]
    fn roots_are_walked_breadth_first_with_parents() {
        let s =
            walk(&fake(), &[root("window", "Pages"), root("menubar", "Pages")], &space(), &limits(), || Duration::ZERO);
        assert_eq!(s.health, AxHealth::Ok, "{:?}", s.notes);
        let names: Vec<&str> = s.nodes.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(names, ["window", "toolbar", "ok", "back", "menubar", "file"], "a vanished element is left out");
        assert_eq!(s.nodes[3].parent, Some(1));
        assert_eq!(s.nodes[5].parent, Some(4), "parents count within the one snapshot");
        assert_eq!(s.nodes[2].role, Some(Role::Button));
    }

    #[test]
    fn an_app_that_stops_answering_is_left_out_and_the_snapshot_says_partial() {
        let mut f = fake();
        f.failing.insert("toolbar", ReadError::Timeout);
        let s = walk(&f, &[root("window", "Slow"), root("menubar", "Finder")], &space(), &limits(), || Duration::ZERO);
        assert_eq!(s.health, AxHealth::Partial);
        assert!(s.notes.iter().any(|n| n.contains("Slow did not answer")), "{:?}", s.notes);
        let names: Vec<&str> = s.nodes.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(names, ["window", "menubar", "file"], "the next app is still read");
    }

    #[test]
    fn without_the_permission_the_snapshot_says_so() {
        let mut f = fake();
        f.failing.insert("window", ReadError::NotPermitted);
        let s = walk(&f, &[root("window", "Pages")], &space(), &limits(), || Duration::ZERO);
        assert_eq!(s.health, AxHealth::PermissionRequired);
        assert_eq!(s.health.as_str(), "permission_required");
        assert!(s.nodes.is_empty());
    }

    #[test]
    fn the_node_cap_and_the_deadline_stop_the_walk() {
        let f = fake();
        let capped =
            walk(&f, &[root("window", "Pages")], &space(), &AxLimits { max_nodes: 2, ..limits() }, || Duration::ZERO);
        assert_eq!((capped.health, capped.nodes.len()), (AxHealth::Partial, 2));
        let late = walk(&f, &[root("window", "Pages")], &space(), &limits(), || Duration::from_secs(2));
        assert_eq!((late.health, late.nodes.len()), (AxHealth::Partial, 0));
        assert_eq!(f.reads.get(), 2, "no read after the deadline");
    }
}

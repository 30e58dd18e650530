//! Where a change happened: on the target's window, or only somewhere else.
//!
//! A click that lands on another window than its target's (or whose only effect is a tooltip elsewhere,
//! the panel, another app) changed the screen, but not by reaching its target. Every piece of evidence
//! that can be placed is placed: elements by the window they are drawn in, pixels by whether they lie on
//! the target window's visible part, windows by who opened them. Only when every piece is placed and none
//! is on the target's side is the change called elsewhere; evidence that cannot be placed (text read off
//! the screen, a target whose window is unknown) never is.

use handrail_platform::Rect;

use super::semantic::ElementRef;
use crate::outcome::Changes;
use crate::visibility::{covers_above, uncovered, ScreenWindow};

/// Where an action's changes happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Placement {
    /// Some change is on the target's window (or a window its app opened meanwhile).
    OnTarget,
    /// Every change lies outside the target's window and app; names the target's window.
    Elsewhere { target_window: String },
    /// Where the changes are cannot be told.
    Unknown,
}

/// What attribution needs of one action.
#[derive(Debug, Clone, Copy)]
pub struct Scene<'a> {
    /// The handle of the window the target is drawn in.
    pub target_window: u64,
    /// The window stack just before acting and after settling (bottom to top).
    pub before: &'a [ScreenWindow],
    pub after: &'a [ScreenWindow],
}

/// Places `changes` (see the module docs).
pub fn place(changes: &Changes, scene: &Scene<'_>) -> Placement {
    let Some(target) = scene.before.iter().position(|w| w.handle == scene.target_window) else {
        return Placement::Unknown;
    };
    let target_w = &scene.before[target];
    // Windows of the target's app that opened meanwhile are its doing (a dialog, a new window).
    let ours = |handle: u64| -> bool {
        handle == target_w.handle
            || (!scene.before.iter().any(|w| w.handle == handle)
                && scene.after.iter().any(|w| w.handle == handle && target_w.pid.is_some() && w.pid == target_w.pid))
    };
    let sem = &changes.semantic;
    if !sem.text_added.is_empty() || !sem.text_removed.is_empty() {
        return Placement::Unknown;
    }
    let refs = sem
        .added
        .iter()
        .chain(&sem.removed)
        .chain(&sem.value_changed)
        .chain(sem.state_changed.iter().map(|c| &c.element));
    let mut placed_any = false;
    for r in refs {
        match placed(r) {
            Some(h) if ours(h) => return Placement::OnTarget,
            Some(_) => placed_any = true,
            None => return Placement::Unknown,
        }
    }
    if let Some((_, after)) = &sem.focus {
        match after.as_ref().map(placed) {
            Some(Some(h)) if ours(h) => return Placement::OnTarget,
            Some(Some(_)) => placed_any = true,
            // Focus left everything accessible: could be anywhere.
            _ => return Placement::Unknown,
        }
    }
    if sem.app.is_some() || sem.window.is_some() {
        // The front window changed: the target's coming forward (or one its app opened) is its doing.
        let front_after = scene.after.iter().rev().find(|w| w.active);
        match front_after {
            Some(w) if ours(w.handle) => return Placement::OnTarget,
            Some(_) => placed_any = true,
            None => return Placement::Unknown,
        }
    }
    if scene.before.iter().any(|w| w.handle == target_w.handle)
        && !scene.after.iter().any(|w| w.handle == target_w.handle)
    {
        // The target's window closed (a Close or Cancel button).
        return Placement::OnTarget;
    }
    if let Some(bounds) = changes.visual.bounds.filter(|_| changes.visual.changed()) {
        let visible = uncovered(target_w.bounds, &covers_above(scene.before, target));
        if visible.iter().any(|r| r.intersects(&bounds)) || ours_in(&bounds, scene, &ours) {
            return Placement::OnTarget;
        }
        placed_any = true;
    }
    if placed_any {
        Placement::Elsewhere { target_window: target_w.describe_short() }
    } else {
        Placement::Unknown
    }
}

fn placed(r: &ElementRef) -> Option<u64> {
    r.owner
}

/// Pixels changed over a window the target's app opened during the action.
fn ours_in(bounds: &Rect, scene: &Scene<'_>, ours: &impl Fn(u64) -> bool) -> bool {
    scene.after.iter().any(|w| w.handle != scene.target_window && ours(w.handle) && w.bounds.intersects(bounds))
}

//! Apps the accessibility tree read on one side of an action and not on the other.
//!
//! Under load an app's accessibility answers can miss the walk's deadline: its elements are then
//! wholly absent from one observation (seen with GNOME Shell's top bar between two clicks on a page
//! that changed nothing), and the OCR lines its elements had taken in stand alone as text. Neither
//! is something the action did. An app listed on one side only, where no pixel changed, is such a
//! gap: its elements and the OCR text over them are left out of the semantic diff. An app whose
//! window opened or closed is drawn or undrawn, so its pixels changed and it still counts.

use std::collections::HashSet;

use handrail_platform::Rect;

use crate::ids::ElementId;
use crate::observation::{Element, Source};

use super::{SemanticDiff, VisualDiff};

/// What the diff must not count: elements of apps read on one side only, and OCR text over them.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Unread {
    pub apps: Vec<String>,
    ids: HashSet<ElementId>,
    texts: HashSet<String>,
}

impl Unread {
    /// The apps whose accessible elements `before` or `after` lists and the other does not, where
    /// `visual` saw no change.
    pub fn between(before: &[Element], after: &[Element], visual: &VisualDiff) -> Unread {
        let apps_of = |els: &[Element]| -> HashSet<String> {
            els.iter().filter(|e| e.source.has_ax() && !e.app.is_empty()).map(|e| e.app.clone()).collect()
        };
        let (apps_before, apps_after) = (apps_of(before), apps_of(after));
        let mut unread = Unread::default();
        for app in apps_before.symmetric_difference(&apps_after) {
            let side = if apps_before.contains(app) { before } else { after };
            let own: Vec<&Element> = side.iter().filter(|e| e.source.has_ax() && &e.app == app).collect();
            let region = own.iter().fold(Rect::default(), |r, e| r.union(&e.bounds));
            if visual.bounds.is_some_and(|changed| changed.intersects(&region)) {
                continue; // drawn or undrawn: the app really came or went
            }
            unread.apps.push(app.clone());
            unread.ids.extend(own.iter().map(|e| e.id));
            for e in before.iter().chain(after) {
                if e.source == Source::Ocr && region.contains_rect(&e.bounds) {
                    unread.texts.insert(crate::text::normalize(&e.label));
                }
            }
        }
        unread.apps.sort();
        unread
    }

    pub fn is_empty(&self) -> bool {
        self.apps.is_empty()
    }

    /// `diff` without what the unread apps' gap put in it.
    pub fn discount(&self, diff: &mut SemanticDiff) {
        diff.added.retain(|e| !self.ids.contains(&e.id));
        diff.removed.retain(|e| !self.ids.contains(&e.id));
        diff.text_added.retain(|t| !self.texts.contains(t));
        diff.text_removed.retain(|t| !self.texts.contains(t));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observation::ElementDetail;
    use handrail_platform::{Role, States};

    fn el(id: u64, app: &str, source: Source, label: &str, bounds: Rect) -> Element {
        Element {
            id: ElementId(id),
            role: if source == Source::Ocr { Role::Text } else { Role::Button },
            label: label.into(),
            value: None,
            bounds,
            states: States::empty(),
            source,
            app: app.into(),
            window: "W".into(),
            owner: None,
            detail: ElementDetail::default(),
        }
    }

    fn visual(bounds: Option<Rect>) -> VisualDiff {
        VisualDiff { changed_fraction: 0.0, bounds, changed_tiles: u32::from(bounds.is_some()), total_tiles: 100 }
    }

    fn shell_and_page() -> (Vec<Element>, Vec<Element>) {
        let page = el(1, "Chromium", Source::Ax, "Save", Rect::new(160, 340, 85, 42));
        let before = vec![
            el(2, "gnome-shell", Source::Ax, "Activities", Rect::new(0, 0, 114, 32)),
            el(3, "gnome-shell", Source::Ax, "System", Rect::new(1100, 0, 180, 32)),
            page.clone(),
        ];
        // The shell's tree missed the deadline: its bar is read as text.
        let after = vec![page, el(4, "", Source::Ocr, "Activities", Rect::new(18, 10, 77, 11))];
        (before, after)
    }

    #[test]
    fn an_app_read_on_one_side_where_nothing_was_drawn_is_not_a_change() {
        let (before, after) = shell_and_page();
        let unread = Unread::between(&before, &after, &visual(None));
        assert_eq!(unread.apps, ["gnome-shell"]);
        let mut diff = SemanticDiff::between(
            super::super::StateView { app: None, window: None, focus: None, elements: &before },
            super::super::StateView { app: None, window: None, focus: None, elements: &after },
            Some(&before),
        );
        assert!(!diff.is_empty(), "the gap shows as removed elements and new text: {diff:?}");
        unread.discount(&mut diff);
        assert!(diff.is_empty(), "{diff:?}");
    }

    #[test]
    fn an_app_whose_pixels_changed_still_counts() {
        let (before, after) = shell_and_page();
        let unread = Unread::between(&before, &after, &visual(Some(Rect::new(0, 0, 400, 40))));
        assert!(unread.is_empty(), "{unread:?}");
        // A new app's window, drawn where it opened.
        let opened = vec![el(5, "Mousepad", Source::Ax, "File", Rect::new(300, 200, 40, 20))];
        let unread = Unread::between(&[], &opened, &visual(Some(Rect::new(280, 180, 500, 400))));
        assert!(unread.is_empty(), "{unread:?}");
    }

    #[test]
    fn an_app_on_both_sides_is_never_discounted() {
        let (before, _) = shell_and_page();
        assert!(Unread::between(&before, &before, &visual(None)).is_empty());
    }
}

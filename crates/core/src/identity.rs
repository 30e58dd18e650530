//! Element identity across observations.
//!
//! An element that persists (same app, role and label, bounds nearby) keeps its id, so the model's
//! references stay meaningful after the screen changes around them. The same matcher serves the id
//! tracker, the semantic diff and the pre-action target re-check, so all three agree on "the same".

use handrail_platform::Rect;

use crate::ids::ElementId;
use crate::observation::Element;
use crate::text::normalize;

/// How far (pixels, screenshot space) an element's centre may travel and still be the same element.
fn identity_tolerance(e: &Element) -> f64 {
    if e.label.trim().is_empty() {
        16.0
    } else {
        let side = f64::from(e.bounds.width.max(e.bounds.height));
        (0.5 * side).max(48.0)
    }
}

/// How far a target may drift between observation and action and still be clicked where it was seen.
pub fn drift_tolerance(bounds: &Rect) -> f64 {
    let side = f64::from(bounds.width.min(bounds.height));
    (0.15 * side).max(3.0)
}

fn same_kind(a: &Element, b: &Element) -> bool {
    a.role == b.role && a.app == b.app && normalize(&a.label) == normalize(&b.label)
}

pub fn centre_distance(a: &Rect, b: &Rect) -> f64 {
    let (ca, cb) = (a.center(), b.center());
    let dx = f64::from(ca.x) - f64::from(cb.x);
    let dy = f64::from(ca.y) - f64::from(cb.y);
    (dx * dx + dy * dy).sqrt()
}

/// Pairs `after` elements with `before` elements that are the same thing. Returns, for each element of
/// `after`, the index of its partner in `before`. Greedy by distance, ties broken by position in the
/// lists, so the result is deterministic.
pub fn match_elements(before: &[Element], after: &[Element]) -> Vec<Option<usize>> {
    let mut pairs: Vec<(f64, usize, usize)> = Vec::new();
    for (ai, a) in after.iter().enumerate() {
        for (bi, b) in before.iter().enumerate() {
            if !same_kind(a, b) {
                continue;
            }
            let d = centre_distance(&a.bounds, &b.bounds);
            if d <= identity_tolerance(b) {
                pairs.push((d, ai, bi));
            }
        }
    }
    pairs.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)).then(x.2.cmp(&y.2)));
    let mut partner = vec![None; after.len()];
    let mut taken = vec![false; before.len()];
    for (_, ai, bi) in pairs {
        if partner[ai].is_none() && !taken[bi] {
            partner[ai] = Some(bi);
            taken[bi] = true;
        }
    }
    partner
}

/// Hands out element ids, keeping them for elements that persist.
#[derive(Debug, Default)]
pub struct IdTracker {
    last_issued: u64,
    previous: Vec<Element>,
}

impl IdTracker {
    /// A tracker continuing after `last_issued` (ids are never reused, even across turns).
    pub fn continuing_from(last_issued: u64) -> Self {
        Self { last_issued, previous: Vec::new() }
    }

    pub fn last_issued(&self) -> u64 {
        self.last_issued
    }

    /// Gives every element an id: the id of its partner in the previous observation, or a fresh one.
    /// The elements become the reference for the next call; when accessibility did not answer whole
    /// (`ax_whole` false), so do the unmatched accessibility elements of apps that gave none this
    /// time: a look that missed a busy app's tree (its elements then read by OCR, or not at all) does
    /// not cost them their ids in the next whole look. An app that did answer (a tree cut short, as
    /// LibreOffice Calc's always is) keeps only what it showed, so nothing piles up look after look.
    pub fn assign(&mut self, elements: &mut [Element], ax_whole: bool) {
        let partners = match_elements(&self.previous, elements);
        let mut matched = vec![false; self.previous.len()];
        for (e, partner) in elements.iter_mut().zip(partners) {
            e.id = match partner {
                Some(bi) => {
                    matched[bi] = true;
                    self.previous[bi].id
                }
                None => {
                    self.last_issued += 1;
                    ElementId(self.last_issued)
                }
            };
        }
        let kept: Vec<Element> = if ax_whole {
            Vec::new()
        } else {
            let answered: std::collections::HashSet<&str> =
                elements.iter().filter(|e| e.source.has_ax()).map(|e| e.app.as_str()).collect();
            let previous = std::mem::take(&mut self.previous);
            previous
                .into_iter()
                .zip(matched)
                .filter(|(e, m)| !m && e.source.has_ax() && !answered.contains(e.app.as_str()))
                .map(|(e, _)| e)
                .collect()
        };
        self.previous = elements.to_vec();
        self.previous.extend(kept);
    }

    /// Like [`assign`](Self::assign) without issuing anything: unknown elements stay unassigned.
    pub fn peek(&self, elements: &mut [Element]) {
        let partners = match_elements(&self.previous, elements);
        for (e, partner) in elements.iter_mut().zip(partners) {
            e.id = partner.map_or(ElementId::UNASSIGNED, |bi| self.previous[bi].id);
        }
    }

    /// Forgets what was seen (turn start) but keeps counting.
    pub fn forget(&mut self) {
        self.previous.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use handrail_platform::Role;

    fn el(role: Role, label: &str, x: i32, y: i32) -> Element {
        Element::for_test(role, label, Rect::new(x, y, 80, 24))
    }

    #[test]
    fn persisting_elements_keep_ids_and_new_ones_get_fresh_ids() {
        let mut t = IdTracker::default();
        let mut first = vec![el(Role::Button, "Save", 10, 10), el(Role::Button, "Open", 100, 10)];
        t.assign(&mut first, true);
        assert_eq!((first[0].id, first[1].id), (ElementId(1), ElementId(2)));

        // Save moved a little, Open vanished, Cancel appeared.
        let mut second = vec![el(Role::Button, "Cancel", 200, 10), el(Role::Button, "Save", 20, 14)];
        t.assign(&mut second, true);
        assert_eq!(second[1].id, ElementId(1));
        assert_eq!(second[0].id, ElementId(3));

        // Same label far away is a different element.
        let mut third = vec![el(Role::Button, "Save", 900, 600)];
        t.assign(&mut third, true);
        assert_eq!(third[0].id, ElementId(4));
    }

    #[test]
    fn duplicates_pair_with_the_nearest() {
        let mut t = IdTracker::default();
        let mut first = vec![el(Role::Link, "More", 10, 10), el(Role::Link, "More", 10, 60)];
        t.assign(&mut first, true);
        let mut second = vec![el(Role::Link, "More", 10, 62), el(Role::Link, "More", 10, 12)];
        t.assign(&mut second, true);
        assert_eq!(second[0].id, first[1].id);
        assert_eq!(second[1].id, first[0].id);
    }

    #[test]
    fn a_look_accessibility_missed_keeps_the_ids_of_what_it_knew_for_the_next_look() {
        let ax = |label: &str, x: i32| {
            let mut e = el(Role::Button, label, x, 10);
            e.source = crate::observation::Source::Ax;
            e
        };
        let mut t = IdTracker::default();
        let mut first = vec![ax("Save", 10), ax("Open", 100)];
        t.assign(&mut first, true);
        // Accessibility missed its deadline: only OCR's text of Save was read.
        let mut missed = vec![el(Role::Text, "Save", 10, 10)];
        missed[0].source = crate::observation::Source::Ocr;
        t.assign(&mut missed, false);
        assert_eq!(missed[0].id, ElementId(3), "OCR text is another kind of element");
        // Missed again: what accessibility knew is still kept.
        t.assign(&mut Vec::new(), false);
        let mut whole = vec![ax("Save", 12), ax("Open", 100), ax("New", 300)];
        t.assign(&mut whole, true);
        assert_eq!(whole.iter().map(|e| e.id.0).collect::<Vec<_>>(), [1, 2, 4]);
        // A whole look replaces the reference: what it did not show is gone.
        t.assign(&mut [ax("New", 300)], true);
        let mut back = vec![ax("Save", 12)];
        t.assign(&mut back, true);
        assert_eq!(back[0].id, ElementId(5));
        // A partial look in which the app answered (its tree cut short) keeps only what it showed.
        t.assign(&mut [ax("Open", 100)], false);
        let mut after = vec![ax("Save", 12)];
        t.assign(&mut after, true);
        assert_eq!(after[0].id, ElementId(7), "Save was not shown by the app that answered");
    }

    #[test]
    fn peek_issues_nothing() {
        let mut t = IdTracker::default();
        let mut first = vec![el(Role::Button, "Save", 10, 10)];
        t.assign(&mut first, true);
        let mut probe = vec![el(Role::Button, "Save", 10, 10), el(Role::Button, "New", 300, 10)];
        t.peek(&mut probe);
        assert_eq!(probe[0].id, ElementId(1));
        assert_eq!(probe[1].id, ElementId::UNASSIGNED);
        assert_eq!(t.last_issued(), 1);
    }
}

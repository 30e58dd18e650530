//! The semantic channel: what the accessibility tree and OCR say changed.

use handrail_platform::{Role, States};

use crate::identity::match_elements;
use crate::ids::ElementId;
use crate::observation::{Element, Observation, Source};

/// The facts a semantic diff compares; borrowed from an observation or a pre-action probe.
#[derive(Debug, Clone, Copy)]
pub struct StateView<'a> {
    pub app: Option<&'a str>,
    pub window: Option<&'a str>,
    pub focus: Option<usize>,
    pub elements: &'a [Element],
}

impl<'a> StateView<'a> {
    pub fn of(obs: &'a Observation) -> Self {
        Self { app: obs.app.as_deref(), window: obs.window.as_deref(), focus: obs.focus, elements: &obs.elements }
    }
}

/// Names an element in evidence: its id when it has one, plus role and label.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElementRef {
    pub id: ElementId,
    pub role: Role,
    pub label: String,
    /// The window it is drawn in (see [`Element::owner`]), for telling where a change happened.
    pub owner: Option<u64>,
}

impl ElementRef {
    pub fn of(e: &Element) -> Self {
        Self { id: e.id, role: e.role, label: e.label.clone(), owner: e.owner }
    }
}

/// A state that flipped on an element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateChange {
    pub element: ElementRef,
    pub before: States,
    pub after: States,
}

/// What changed in meaning between two states of the screen.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SemanticDiff {
    pub app: Option<(Option<String>, Option<String>)>,
    pub window: Option<(Option<String>, Option<String>)>,
    pub focus: Option<(Option<ElementRef>, Option<ElementRef>)>,
    pub added: Vec<ElementRef>,
    pub removed: Vec<ElementRef>,
    /// Elements whose value changed (the values themselves are not repeated here; secure ones never are).
    pub value_changed: Vec<ElementRef>,
    pub state_changed: Vec<StateChange>,
    /// Text read by OCR that appeared or disappeared.
    pub text_added: Vec<String>,
    pub text_removed: Vec<String>,
}

/// States whose flips are worth reporting (focus is reported on its own).
const REPORTED_STATES: States = States::CHECKED.union(States::DISABLED).union(States::SELECTED).union(States::EXPANDED);

fn masked(s: States) -> States {
    let mut out = States::empty();
    for flag in [States::CHECKED, States::DISABLED, States::SELECTED, States::EXPANDED] {
        if s.contains(flag) && REPORTED_STATES.contains(flag) {
            out.insert(flag);
        }
    }
    out
}

impl SemanticDiff {
    pub fn is_empty(&self) -> bool {
        self.app.is_none()
            && self.window.is_none()
            && self.focus.is_none()
            && self.added.is_empty()
            && self.removed.is_empty()
            && self.value_changed.is_empty()
            && self.state_changed.is_empty()
            && self.text_added.is_empty()
            && self.text_removed.is_empty()
    }

    /// Compares accessibility facts of `before` and `after`, and OCR-only text of `ocr_before` (the last
    /// observation's elements, when OCR ran then) against `after`.
    pub fn between(before: StateView<'_>, after: StateView<'_>, ocr_before: Option<&[Element]>) -> SemanticDiff {
        let mut diff = SemanticDiff::default();
        if before.app != after.app {
            diff.app = Some((before.app.map(str::to_string), after.app.map(str::to_string)));
        }
        if before.window != after.window {
            diff.window = Some((before.window.map(str::to_string), after.window.map(str::to_string)));
        }

        let ax_before: Vec<Element> = before.elements.iter().filter(|e| e.source.has_ax()).cloned().collect();
        let ax_after_idx: Vec<usize> =
            (0..after.elements.len()).filter(|i| after.elements[*i].source.has_ax()).collect();
        let ax_after: Vec<Element> = ax_after_idx.iter().map(|i| after.elements[*i].clone()).collect();
        let partners = match_elements(&ax_before, &ax_after);
        let mut matched_before = vec![false; ax_before.len()];
        for (a, partner) in ax_after.iter().zip(&partners) {
            match partner {
                None => diff.added.push(ElementRef::of(a)),
                Some(bi) => {
                    matched_before[*bi] = true;
                    let b = &ax_before[*bi];
                    let value_differs = if a.is_secure() || b.is_secure() { false } else { a.value != b.value };
                    if value_differs {
                        diff.value_changed.push(ElementRef::of(a));
                    }
                    if masked(a.states) != masked(b.states) {
                        diff.state_changed.push(StateChange {
                            element: ElementRef::of(a),
                            before: masked(b.states),
                            after: masked(a.states),
                        });
                    }
                }
            }
        }
        for (b, seen) in ax_before.iter().zip(matched_before) {
            if !seen {
                diff.removed.push(ElementRef::of(b));
            }
        }

        // Focus: compare by identity, not index.
        let focus_before = before.focus.and_then(|i| before.elements.get(i));
        let focus_after = after.focus.and_then(|i| after.elements.get(i));
        let same_focus = match (focus_before, focus_after) {
            (None, None) => true,
            (Some(b), Some(a)) => match_elements(std::slice::from_ref(b), std::slice::from_ref(a))[0].is_some(),
            _ => false,
        };
        if !same_focus {
            diff.focus = Some((focus_before.map(ElementRef::of), focus_after.map(ElementRef::of)));
        }

        if let Some(ocr_before) = ocr_before {
            let texts = |els: &[Element]| -> Vec<String> {
                let mut v: Vec<String> = els
                    .iter()
                    .filter(|e| e.source == Source::Ocr)
                    .map(|e| crate::text::normalize(&e.label))
                    .filter(|t| !t.is_empty())
                    .collect();
                v.sort();
                v.dedup();
                v
            };
            let (tb, ta) = (texts(ocr_before), texts(after.elements));
            diff.text_added = ta.iter().filter(|t| tb.binary_search(t).is_err()).cloned().collect();
            diff.text_removed = tb.iter().filter(|t| ta.binary_search(t).is_err()).cloned().collect();
        }
        diff
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observation::ElementDetail;
    use handrail_platform::Rect;

    fn el(id: u64, role: Role, label: &str, value: Option<&str>, states: States) -> Element {
        Element {
            id: ElementId(id),
            role,
            label: label.into(),
            value: value.map(str::to_string),
            bounds: Rect::new(10 * id as i32, 10, 50, 20),
            states,
            source: Source::Ax,
            app: "A".into(),
            window: "W".into(),
            owner: None,
            detail: ElementDetail::default(),
        }
    }

    fn view(elements: &[Element], focus: Option<usize>) -> StateView<'_> {
        StateView { app: Some("A"), window: Some("W"), focus, elements }
    }

    #[test]
    fn detects_values_states_focus_and_sets() {
        let before = vec![
            el(1, Role::Entry, "Name", Some("a"), States::empty()),
            el(2, Role::Checkbox, "Agree", None, States::empty()),
            el(3, Role::Button, "Gone", None, States::empty()),
        ];
        let after = vec![
            el(1, Role::Entry, "Name", Some("ab"), States::FOCUSED),
            el(2, Role::Checkbox, "Agree", None, States::CHECKED),
            el(4, Role::Button, "New", None, States::empty()),
        ];
        let d = SemanticDiff::between(view(&before, None), view(&after, Some(0)), None);
        assert_eq!(d.value_changed.len(), 1);
        assert_eq!(d.state_changed.len(), 1);
        assert_eq!(d.added.len(), 1);
        assert_eq!(d.removed.len(), 1);
        assert!(d.focus.is_some());
        assert!(d.app.is_none());
    }

    #[test]
    fn secure_values_never_count() {
        let before = vec![el(1, Role::PasswordEntry, "Password", None, States::SECURE)];
        let mut after = before.clone();
        after[0].value = Some("leak".into());
        let d = SemanticDiff::between(view(&before, None), view(&after, None), None);
        assert!(d.is_empty());
    }
}

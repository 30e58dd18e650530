//! Turning an action's targets (element ids, visible text) into elements of the latest observation and
//! the points to aim at.

use super::stop::Stop;
use super::{Aim, Engine};
use crate::guard::Rule;
use crate::guard::{check_destructive, DestructiveVerdict};
use crate::observation::{Element, Observation, Source};
use crate::outcome::Reason;
use crate::render::quote_clipped;
use crate::request::{Command, PointerKind, Request, Target};
use crate::text::{contains_normalized, normalize, squash_spaces};

impl Engine {
    pub(super) fn resolve_targets(&self, request: &Request) -> Result<Vec<Aim>, Stop> {
        let targets: Vec<&Target> = match &request.command {
            Command::Drag { from, to } => vec![from, to],
            _ => request.target().into_iter().collect(),
        };
        if targets.is_empty() {
            return Ok(Vec::new());
        }
        let action = request.action;
        let Some(obs) = self.session.latest.clone() else {
            return Err(Stop::new(
                Reason::NoObservation,
                "there is no observation in this turn yet; call see first, then target its element ids",
            ));
        };
        let mut aims = Vec::new();
        for target in targets {
            let element = match target {
                Target::Element(id) => obs.element(*id).cloned().ok_or_else(|| {
                    Stop::new(
                        Reason::UnknownElement,
                        format!("{id} is not in {} (the latest observation); use an id it lists", obs.id),
                    )
                })?,
                Target::Text(text) => self.find_text(&obs, text, activates(&request.command))?,
            };
            if element.source == Source::Window && !acts_on_windows(&request.command) {
                return Err(Stop::new(
                    Reason::WindowTarget,
                    format!(
                        "{} is a window: click it to raise it, or target an element inside it for {}",
                        element.id, action
                    ),
                ));
            }
            let Some(point) = super::aim::aim_point(&element, &obs.elements, &obs.windows) else {
                return Err(Stop::new(
                    Reason::NotVisible,
                    format!("{} is not visible in {}; see again", element.id, obs.id),
                ));
            };
            let point = obs.to_screen(point);
            aims.push(Aim { element, point });
        }
        Ok(aims)
    }

    /// `activates`: the action would press or drop on the element found (the destructive guard judges it).
    pub(super) fn find_text(&self, obs: &Observation, text: &str, activates: bool) -> Result<Element, Stop> {
        // A window's title names the page inside it: text is looked for in what windows show first,
        // and only then among the titles.
        let (inside, windows): (Vec<&Element>, Vec<&Element>) =
            obs.elements.iter().partition(|e| e.source != Source::Window);
        let found = Self::matching(&inside, text);
        let found = if found.is_empty() { Self::matching(&windows, text) } else { found };
        // Ambiguous, but pressing any of them would be refused: say the guard's reason, not "choose one".
        if let Some(reason) = (activates && found.len() > 1).then(|| self.every_one_refused(&found, text)).flatten() {
            return Err(Stop::refused(
                Rule::DestructiveTarget,
                format!(
                    "{reason}; the text {} matches {} elements in {} and this holds for every one of them, so choosing \
                     one by element_id would be refused too",
                    quote_clipped(text, 60),
                    found.len(),
                    obs.id
                ),
            ));
        }
        match found.as_slice() {
            [] => Err(Stop::new(
                Reason::NoMatch,
                format!(
                    "no element in {} shows the text {}; target an element id instead",
                    obs.id,
                    quote_clipped(text, 60)
                ),
            )),
            [one] => Ok((*one).clone()),
            many => {
                let listed: Vec<String> =
                    many.iter().take(8).map(|e| crate::render::element_line(e, &self.config.listing)).collect();
                let more = if many.len() > 8 { format!("\n… {} more", many.len() - 8) } else { String::new() };
                Err(Stop::new(
                    Reason::AmbiguousTarget,
                    format!(
                        "the text {} matches {} elements in {}; target one by element_id:\n{}{more}",
                        quote_clipped(text, 60),
                        many.len(),
                        obs.id,
                        listed.join("\n")
                    ),
                ))
            }
        }
    }

    /// The destructive guard's final refusal when pressing any of `candidates` (found by `text`) would be
    /// refused, judged as the guard judges a text target (its label and the text); None when one of them
    /// would pass, or when a person could still be asked to allow it.
    fn every_one_refused(&self, candidates: &[&Element], text: &str) -> Option<String> {
        let turn = &self.session.turn;
        let mut first = None;
        for e in candidates {
            match check_destructive(&[e.label.as_str(), text], turn.mode, &turn.intent) {
                DestructiveVerdict::Refused { can_ask, .. } if can_ask && self.confirm.is_some() => return None,
                DestructiveVerdict::Refused { reason, .. } => {
                    first.get_or_insert(reason);
                }
                _ => return None,
            }
        }
        first
    }

    /// Elements showing `text`: exactly (after normalising), else containing it.
    pub(super) fn matching<'e>(elements: &[&'e Element], text: &str) -> Vec<&'e Element> {
        let wanted = normalize(text);
        let exact: Vec<&Element> =
            elements.iter().copied().filter(|e| e.visible_texts().any(|t| normalize(t) == wanted)).collect();
        if !exact.is_empty() {
            return exact;
        }
        let squashed = squash_spaces(text);
        elements
            .iter()
            .copied()
            .filter(|e| {
                e.visible_texts().any(|t| {
                    contains_normalized(t, text) || (!squashed.is_empty() && squash_spaces(t).contains(&squashed))
                })
            })
            .collect()
    }
}

/// Whether `command` presses or drops on its targets, so the destructive guard judges them.
fn activates(command: &Command) -> bool {
    match command {
        Command::Pointer { kind, .. } => {
            matches!(kind, PointerKind::Click | PointerKind::DoubleClick | PointerKind::TripleClick)
        }
        Command::Drag { .. } => true,
        _ => false,
    }
}

/// Whether `command` may target a window element: raising it (click), pointing at it, inspecting it.
pub(super) fn acts_on_windows(command: &Command) -> bool {
    matches!(command, Command::Pointer { kind: PointerKind::Click | PointerKind::Hover, .. } | Command::Inspect(_))
}

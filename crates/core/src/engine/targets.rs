//! Turning an action's targets (element ids, visible text) into elements of the latest observation and
//! the points to aim at.

use super::stop::Stop;
use super::{Aim, Engine};
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
                Target::Text(text) => self.find_text(&obs, text)?,
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

    pub(super) fn find_text(&self, obs: &Observation, text: &str) -> Result<Element, Stop> {
        // A window's title names the page inside it: text is looked for in what windows show first,
        // and only then among the titles.
        let (inside, windows): (Vec<&Element>, Vec<&Element>) =
            obs.elements.iter().partition(|e| e.source != Source::Window);
        let found = Self::matching(&inside, text);
        let found = if found.is_empty() { Self::matching(&windows, text) } else { found };
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

/// Whether `command` may target a window element: raising it (click), pointing at it, inspecting it.
pub(super) fn acts_on_windows(command: &Command) -> bool {
    matches!(command, Command::Pointer { kind: PointerKind::Click | PointerKind::Hover, .. } | Command::Inspect(_))
}

//! Running SPEC §5's guards 4–8 for one action: the list in [`super::rules`], each guard judging the
//! effect the action has on the elements it reaches ([`crate::guard::effect`]).
//!
//! Judged twice for keyboard input: first against the latest observation, before anything touches the
//! desktop; then against the pre-action look taken just before acting, because keys act on whatever has
//! focus at that moment (a dialog that popped up since the observation has it now). The second pass
//! judges only elements the first did not, so a person is never asked twice about one element.

use handrail_platform::{AxHealth, OcrHealth};

use super::recheck::Probe;
use super::rules::{Judging, GUARDS};
use super::stop::Stop;
use super::summary::summarize;
use super::{quote_clipped, Aim, Engine};
use crate::guard::destructive::{DestructiveVerdict, DELETE_KEY};
use crate::guard::effect::{effects, Effect, Reach, Scene};
use crate::guard::terminal::{PendingLine, TerminalId};
use crate::guard::Rule;
use crate::ids::ElementId;
use crate::observation::Element;
use crate::outcome::GuardDecision;
use crate::request::{Command, Request, Target};
use crate::turn::Mode;

/// What the guards decided for an action, and which reached elements they judged.
#[derive(Debug, Clone)]
pub(super) struct Judged {
    pub decision: GuardDecision,
    judged: Vec<(ElementId, Effect)>,
    /// Keyboard input the latest observation could not place (unattended): the pre-action look may
    /// still find its receiver; if it cannot, this is the refusal.
    pub unplaced: Option<String>,
    /// Input to a terminal was judged; the terminal's line as it will be once the input is sent.
    pub terminal: Option<(TerminalId, PendingLine)>,
}

impl Default for Judged {
    fn default() -> Self {
        Self { decision: GuardDecision::Passed, judged: Vec::new(), unplaced: None, terminal: None }
    }
}

impl Judged {
    /// Records that the element `id` was judged for `effect`.
    pub(super) fn record(&mut self, id: ElementId, effect: Effect) {
        self.judged.push((id, effect));
    }

    /// For judging elements as new ones: the decision and the terminal's line so far, nothing
    /// recorded as judged.
    pub(super) fn afresh(&self) -> Judged {
        Judged { judged: Vec::new(), ..self.clone() }
    }

    /// This decision, with `first`'s record of which elements were judged.
    pub(super) fn keeping_record_of(self, first: Judged) -> Judged {
        Judged { judged: first.judged, ..self }
    }

    /// Whether `e` was judged for `effect` already (elements of a pre-action look have no id yet).
    pub(super) fn already(&self, e: &Element, effect: Effect) -> bool {
        e.id != ElementId::UNASSIGNED && self.judged.contains(&(e.id, effect))
    }
}

impl Engine {
    /// The guards against the latest observation, before any desktop call.
    pub(super) fn guards(&mut self, request: &Request, aims: &[Aim]) -> Result<Judged, Stop> {
        let latest = self.session.latest.clone();
        let last_clicked = self.session.last_clicked.clone();
        let reachable = latest.as_ref().map(|o| {
            keyboard_reachable(&o.elements, o.focus, &o.covered, o.covered_focus, &o.windows, is_keyboard(request))
        });
        // A copy: the guards below borrow the engine mutably (to ask the person).
        let rules = self.desktop.rules.clone();
        let scene = match (&latest, &reachable) {
            (Some(o), Some((elements, focus))) => Scene {
                elements,
                focus: *focus,
                ax: o.ax,
                last_clicked: last_clicked.as_ref(),
                front: o.front.as_ref(),
                ocr: o.ocr,
                rules: &rules,
            },
            _ => Scene {
                elements: &[],
                focus: None,
                ax: AxHealth::Unavailable,
                last_clicked: last_clicked.as_ref(),
                front: None,
                ocr: OcrHealth::Off,
                rules: &rules,
            },
        };
        let keyboard = is_keyboard(request);
        self.judge(request, aims, &scene, Judged::default(), keyboard)
    }

    /// Keyboard input again, against the screen just before acting: the elements focus and key bindings
    /// reach now that the first pass did not judge.
    pub(super) fn guards_on_probe(
        &mut self,
        request: &Request,
        aims: &[Aim],
        probe: &Probe,
        first: Judged,
    ) -> Result<Judged, Stop> {
        if !is_keyboard(request) {
            return Ok(first);
        }
        if !matches!(probe.ax, AxHealth::Ok | AxHealth::Partial) {
            return match first.unplaced {
                Some(message) => Err(Stop::refused(Rule::UnknownReceiver, message)),
                None => Ok(first),
            };
        }
        let last_clicked = self.session.last_clicked.clone();
        let (elements, focus) =
            keyboard_reachable(&probe.elements, probe.focus, &probe.covered, probe.covered_focus, &probe.windows, true);
        let rules = self.desktop.rules.clone();
        let scene = Scene {
            elements: &elements,
            focus,
            ax: probe.ax,
            last_clicked: last_clicked.as_ref(),
            front: probe.front.as_ref(),
            // The pre-action look reads no text.
            ocr: OcrHealth::Off,
            rules: &rules,
        };
        self.judge(request, aims, &scene, Judged { unplaced: None, ..first }, false)
    }

    /// Acts on the destructive guard's verdict for one reached element: records an allowance, asks the
    /// person when one is watching and a host can ask, or refuses. `via` says how a non-target is reached.
    pub(super) fn decide_destructive(
        &mut self,
        verdict: DestructiveVerdict,
        reach: &Reach<'_>,
        via: &str,
        judged: &mut Judged,
    ) -> Result<(), Stop> {
        let refuse = |message: String| Err(Stop::refused(Rule::DestructiveTarget, message));
        match verdict {
            DestructiveVerdict::Allowed => Ok(()),
            DestructiveVerdict::AllowedByIntent { marker } => {
                judged.decision = GuardDecision::AllowedByIntent { marker: marker.to_string() };
                Ok(())
            }
            DestructiveVerdict::Refused { marker, label, reason, can_ask } => {
                let turn = &self.session.turn;
                let interactive = turn.mode == Mode::Interactive;
                // With no intent at all, say how the user's words can reach the turn.
                let how_intent = if turn.intent.trim().is_empty() && interactive {
                    format!("; no user request was given for this turn: {}", self.config.knobs.intent)
                } else {
                    String::new()
                };
                let asked = if can_ask && interactive {
                    let question = if marker == DELETE_KEY {
                        format!(
                            "The agent wants to {}, which would delete {label}; your request did not ask for that. Allow it?",
                            how_for_person(reach)
                        )
                    } else {
                        format!(
                            "The agent wants to act on {} ({}), which looks like a removal your request did not ask for. Allow it?",
                            quote_clipped(&label, 60),
                            how_for_person(reach),
                        )
                    };
                    self.confirm.as_mut().and_then(|c| c.confirm(&question))
                } else {
                    None
                };
                match asked {
                    Some(true) => {
                        judged.decision = GuardDecision::AllowedByPerson { marker: marker.to_string() };
                        Ok(())
                    }
                    Some(false) => refuse(format!("{reason}{via} (the person declined)")),
                    None => refuse(format!("{reason}{via}{how_intent}")),
                }
            }
        }
    }

    /// `defer_unplaced`: a receiver this scene cannot tell is left for the pre-action look to find.
    pub(super) fn judge(
        &mut self,
        request: &Request,
        aims: &[Aim],
        scene: &Scene<'_>,
        prior: Judged,
        defer_unplaced: bool,
    ) -> Result<Judged, Stop> {
        let summary = summarize(request);
        let targets: Vec<&Element> = aims.iter().map(|a| &a.element).collect();
        let found = effects(&request.command, &targets, scene);
        let mut judged = prior;
        let mut judging =
            Judging { request, summary: &summary, found: &found, scene, judged: &mut judged, defer_unplaced };
        for guard in GUARDS {
            guard.judge(self, &mut judging)?;
        }
        Ok(judged)
    }
}

/// What keyboard input can reach: the visible elements, and for keyboard input also the covered ones
/// it reaches all the same (the focused element, and the active window's, whose key bindings fire
/// whether or not another window is drawn over them). Covered elements are appended, so indices into
/// the visible ones stay valid; `focus` points at the focused element wherever it is.
fn keyboard_reachable(
    visible: &[Element],
    focus: Option<usize>,
    covered: &[Element],
    covered_focus: Option<usize>,
    windows: &[crate::visibility::ScreenWindow],
    keyboard: bool,
) -> (Vec<Element>, Option<usize>) {
    let mut all = visible.to_vec();
    if !keyboard {
        return (all, focus);
    }
    let active = windows.iter().rev().find(|w| w.active).map(|w| w.handle);
    let mut focus = focus;
    for (i, e) in covered.iter().enumerate() {
        let focused = covered_focus == Some(i);
        if focused || (active.is_some() && e.owner == active) {
            if focused && focus.is_none() {
                focus = Some(all.len());
            }
            all.push(e.clone());
        }
    }
    (all, focus)
}

/// Keyboard input, whose receiver is whatever has focus when it is sent.
fn is_keyboard(request: &Request) -> bool {
    matches!(request.command, Command::Key { .. } | Command::Type { target: None, .. })
}

/// How an action reaches an element, with the element's id where it has one already.
/// How the action reaches its target, as a person reads it: by role and label, never by an element
/// id, which means nothing to them and differs between replicas of a server (a yes sealed by one
/// must answer the same question on another).
fn how_for_person(reach: &crate::guard::effect::Reach<'_>) -> String {
    format!("{} {} {}", reach.how, reach.element.role, quote_clipped(&reach.element.label, 40))
}

pub(super) fn how(reach: &crate::guard::effect::Reach<'_>) -> String {
    if reach.element.id == ElementId::UNASSIGNED {
        format!("{} {} {}", reach.how, reach.element.role, quote_clipped(&reach.element.label, 40))
    } else {
        format!("{} {}", reach.how, reach.element.id)
    }
}

/// The visible texts an action's targets were given by, judged alongside the elements they found.
pub(super) fn text_targets(command: &Command) -> Vec<String> {
    let targets: Vec<&Target> = match command {
        Command::Drag { from, to } => vec![from, to],
        Command::Pointer { target, .. } => vec![target],
        Command::Type { target: Some(t), .. } => vec![t],
        _ => Vec::new(),
    };
    targets
        .into_iter()
        .filter_map(|t| match t {
            Target::Text(s) => Some(s.clone()),
            Target::Element(_) => None,
        })
        .collect()
}

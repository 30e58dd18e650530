//! The pipeline of one action after the gate: admission (budgets, staleness, targets), the guards,
//! the pre-action look, acting, settling, observing and the verdict.

use handrail_platform::{AppRules, AxHealth, OcrHealth, PlatformError, Rect};

use super::act::reaches_its_target;
use super::arrival::{arrive, press_point};
use super::hooks::Waiting;
use super::judge::Judged;
use super::recheck::{probe, recheck};
use super::settle::{act_settle_observe, Acted};
use super::stop::Stop;
use super::summary::{signature, summarize, Signature};
use super::{Aim, Engine};
use crate::diff::attribution::{place, Placement, Scene as AttributionScene};
use crate::diff::{SemanticDiff, StateView, Thumbnail, Unread, VisualDiff};
use crate::guard::effect::keeps_focus;
use crate::guard::terminal::{is_terminal_element, PendingLine, TerminalId};
use crate::guard::Rule;
use crate::observation::{Element, Observation, Source};
use crate::outcome::{Changes, Outcome, Reason, Status, TypingCheck};
use crate::request::{Command, InspectSubject, PointerKind, Request};
use crate::turn::TurnSource;

impl Engine {
    pub(super) fn run_inner(&mut self, request: &Request) -> Outcome {
        let action = request.action;
        let summary = summarize(request);
        let aims = match self.admit(request) {
            Ok(aims) => aims,
            Err(stop) => return stop.into_outcome(Some(action), summary, self.latest_id()),
        };
        let targets: Vec<Element> = aims.iter().map(|a| a.element.clone()).collect();
        let mut outcome = match &request.command {
            Command::See => self.see(action, summary),
            Command::Inspect(subject) => {
                let (region, follow) = match subject {
                    InspectSubject::Region(r) => (*r, None),
                    InspectSubject::Target(_) => {
                        aims.first().map_or((Rect::default(), None), |a| (a.element.bounds, Some(a.element.clone())))
                    }
                };
                self.inspect(action, summary, region, follow)
            }
            _ => match self.judge_before_acting(request, &aims) {
                Ok((judged, signature)) => self.act_and_verify(request, summary, aims, judged, signature),
                Err(stop) => stop.into_outcome(Some(action), summary, self.latest_id()),
            },
        };
        outcome.targets = targets;
        outcome
    }

    /// Budgets, the observation id's staleness and the targets, resolved against the latest
    /// observation.
    pub(super) fn admit(&self, request: &Request) -> Result<Vec<Aim>, Stop> {
        let action = request.action;
        let latest = self.latest_id();
        let budgets = self.budgets();
        let mode = self.session.turn.mode;
        let per = match self.session.source {
            TurnSource::Host => "of this turn",
            TurnSource::Inferred { .. } => "of this turn and window",
        };
        if action.is_observation() {
            if self.session.observations >= budgets.observations {
                let note = self.refill_note(&self.config.knobs.max_observations);
                return Err(Stop::new(
                    Reason::ObservationBudget,
                    format!(
                        "the observation budget {per} ({} see/inspect calls, {} mode) is used up; {note}",
                        budgets.observations,
                        mode.as_str()
                    ),
                ));
            }
        } else if self.session.mutations >= budgets.mutations {
            let note = self.refill_note(&self.config.knobs.max_actions);
            return Err(Stop::new(
                Reason::ActionCeiling,
                format!(
                    "the action ceiling {per} ({} actions, {} mode) is reached; {note}",
                    budgets.mutations,
                    mode.as_str()
                ),
            ));
        }
        if let Some(given) = request.observation.filter(|given| latest != Some(*given)) {
            let why = match latest {
                Some(l) => format!("{given} is not the latest observation; the latest is {l}: use its element ids"),
                None => format!("{given} is not an observation of this turn; call see first"),
            };
            return Err(Stop::new(Reason::StaleObservation, why));
        }
        self.resolve_targets(request)
    }

    /// The guards on the latest observation, then the no-blind-repeat rule.
    pub(super) fn judge_before_acting(&mut self, request: &Request, aims: &[Aim]) -> Result<(Judged, Signature), Stop> {
        let judged = self.guards(request, aims)?;
        // An action that changed nothing is not repeated blindly.
        let signature = signature(request);
        if self.session.unchanged.as_ref() == Some(&signature) {
            return Err(Stop::refused(Rule::UnobservedRepeat,
                "this same action changed nothing last time; observe first (see or inspect), find the target again, then retry",
            ));
        }
        Ok((judged, signature))
    }

    pub(super) fn act_and_verify(
        &mut self,
        request: &Request,
        summary: String,
        mut aims: Vec<Aim>,
        judged: Judged,
        signature: Signature,
    ) -> Outcome {
        let action = request.action;

        // A press goes where the pointer already is: it arrives first, and the app's reaction to it
        // (a label shown only under the pointer) is in the look below.
        let press = press_point(&request.command, &aims);
        // A target known only by its pixels is re-checked against the screen before the hover.
        let pixels_only = aims.iter().any(|a| !a.element.source.has_ax() && a.element.source != Source::Window);
        let unhovered = match press.filter(|_| pixels_only) {
            Some(_) => match self.desktop.screen.capture(None, self.config.max_image) {
                Ok(frame) => Some(Thumbnail::of(&frame)),
                Err(e) => return self.platform_error(action, summary, e),
            },
            None => None,
        };
        // Probe: what is there right now, to re-check the target and to diff against; for a press,
        // once the pointer has arrived, with whether the screen changed when it did.
        let probed = match press {
            Some(point) => arrive(&self.desktop, &self.config, &self.session.tracker, point)
                .map(|(probe, saw_change)| (probe, Some(saw_change))),
            None => probe(&self.desktop, &self.config, &self.session.tracker).map(|probe| (probe, None)),
        };
        let (probe, arrival) = match probed {
            Ok(p) => p,
            Err(e) => return self.platform_error(action, summary, e),
        };
        let arrived = arrival.is_some();
        let mut judged = judged;
        if let Some(latest) = self.session.latest.clone() {
            if let Some(saw_change) = arrival {
                judged = match self.judge_on_arrival(request, &aims, &latest, &probe, saw_change, judged) {
                    Ok(j) => j,
                    Err(stop) => return stop.into_outcome(Some(action), summary, self.latest_id()),
                };
            }
            for aim in &mut aims {
                if let Err(why) = recheck(aim, &latest, &probe, arrived, unhovered.as_ref()) {
                    self.session.unchanged = None;
                    return match self.fresh(None) {
                        Ok(fresh) => {
                            let mut o = self.published(Status::Stale, action, summary, fresh);
                            o.reason = Some(Reason::TargetChanged);
                            o.message = Some(format!("{why}; nothing was done — use the fresh observation below"));
                            o
                        }
                        Err(e) => self.platform_error(action, summary, e),
                    };
                }
            }
        }
        // Keys act on whatever has focus now, which may not be what the observation showed.
        let (guard, terminal_after) = match self.guards_on_probe(request, &aims, &probe, judged) {
            Ok(j) => (j.decision, j.terminal),
            Err(stop) => return stop.into_outcome(Some(action), summary, self.latest_id()),
        };
        // Whatever happens next, the line is only known again if this input reaches its terminal.
        self.session.terminal = None;

        self.open_window();
        self.session.mutations += 1;
        let typed_into = match &request.command {
            Command::Type { text, .. } => Some(super::typing::receiver_before(text, &aims, &probe)),
            _ => None,
        };
        let mut waiting = Waiting { progress: self.progress.as_deref_mut(), cancel: self.cancel.as_ref() };
        let acted = act_settle_observe(
            &self.desktop,
            &self.config,
            &mut self.session.tracker,
            request,
            &aims,
            self.session.marks,
            typed_into.as_ref(),
            &mut waiting,
        );
        let Acted { settle: settle_report, settle_time, fresh, expect: expect_outcome, typing } = match acted {
            Ok(a) => a,
            Err(e @ PlatformError::Cancelled { .. }) => {
                // The caller has gone and hears nothing more; whatever was sent may have changed the
                // screen, so the last observation no longer counts as unchanged.
                self.session.unchanged = None;
                return Stop::new(Reason::Cancelled, e.to_string()).into_outcome(
                    Some(action),
                    summary,
                    self.latest_id(),
                );
            }
            Err(e) => {
                // Best effort: show what the screen looks like after the failure.
                let mut o = self.platform_error(action, summary, e);
                if let Ok(fresh) = self.fresh(None) {
                    let published = self.published(Status::Error, action, String::new(), fresh);
                    o.observation = published.observation;
                    o.latest = None;
                }
                return o;
            }
        };

        // Diff: semantics against the probe (fresher than the last observation); OCR text against the
        // last observation when OCR ran then; pixels against the probe's capture.
        let ocr_before = self
            .session
            .latest
            .as_ref()
            .filter(|o| {
                o.ocr == OcrHealth::Ok && fresh.obs.ocr == OcrHealth::Ok && has_tree(o.ax) == has_tree(fresh.obs.ax)
            })
            .map(|o| o.elements.clone());
        // A tree that answered on one side and not the other says nothing of what the action did: its
        // elements did not vanish or appear, and OCR's text (kept only where the tree has none) is not
        // comparable either. Then the app and window and the pixels tell (seen under load: a look
        // whose tree missed its deadline called a click that changed nothing "changed").
        let trees_comparable = has_tree(probe.ax) == has_tree(fresh.obs.ax);
        let before_view = StateView {
            app: probe.app.as_deref(),
            window: probe.window.as_deref(),
            focus: probe.focus,
            elements: &probe.elements,
        };
        let scale = fresh.obs.scale;
        let to_image = |r: &Rect| if scale == 1.0 { *r } else { r.scaled(1.0 / scale) };
        let ignored: Vec<Rect> = settle_report.ignored.iter().map(to_image).collect();
        let animating: Vec<Rect> = settle_report.began.iter().map(to_image).collect();
        let visual = VisualDiff::between(&probe.thumbnail, &fresh.obs.thumbnail, &ignored);
        let semantic = if trees_comparable {
            let mut semantic = SemanticDiff::between(before_view, StateView::of(&fresh.obs), ocr_before.as_deref());
            let unread = Unread::between(&probe.elements, &fresh.obs.elements, &visual);
            if !unread.is_empty() {
                log::debug!("diff: {:?} read on one side only, nothing drawn there: not counted", unread.apps);
                unread.discount(&mut semantic);
            }
            semantic
        } else {
            let after = StateView::of(&fresh.obs);
            SemanticDiff::between(
                StateView { focus: None, elements: &[], ..before_view },
                StateView { focus: None, elements: &[], ..after },
                None,
            )
        };
        let changes = Changes { semantic, visual };
        let elsewhere = match aims.first().filter(|_| reaches_its_target(&request.command)) {
            Some(aim) => aim.element.owner.and_then(|target_window| {
                let scene = AttributionScene { target_window, before: &probe.windows, after: &fresh.obs.windows };
                match place(&changes, &scene) {
                    Placement::Elsewhere { target_window } => Some(target_window),
                    Placement::OnTarget | Placement::Unknown => None,
                }
            }),
            None => None,
        };
        // A change only elsewhere is no evidence the action reached its target: it counts as none for
        // the no-blind-repeat rule.
        let changed = changes.any() && elsewhere.is_none();

        if changed {
            self.session.unchanged = None;
        } else {
            self.session.unchanged = Some(signature);
        }
        if matches!(request.command, Command::Pointer { kind, .. } if kind != PointerKind::Hover)
            || matches!(request.command, Command::Type { target: Some(_), .. })
        {
            self.session.last_clicked = aims.first().map(|a| a.element.clone());
        }
        let focus_may_have_moved = match &request.command {
            Command::Key { combo } => !keeps_focus(combo),
            Command::Type { text, .. } => text.contains(['\t', '\n', '\r']),
            Command::OpenApp { .. } | Command::OpenUrl { .. } | Command::Drag { .. } => true,
            _ => false,
        };
        if focus_may_have_moved {
            self.session.last_clicked = None;
        }
        self.session.terminal = match &request.command {
            // A terminal handrail just opened starts at an empty prompt.
            Command::OpenApp { .. } => fresh_terminal(&fresh.obs, &self.desktop.rules.apps),
            _ => terminal_after,
        };
        let status = if changed { Status::Ok } else { Status::NoVisibleChange };
        let mut o = self.published(status, action, summary, fresh);
        o.guard = guard;
        o.changes = Some(changes);
        o.expect = request.expect.clone().zip(expect_outcome);
        o.timings.settle = settle_time;
        o.timings.settled = Some(settle_report.settled);
        o.animating = animating;
        if let Some(window) = &elsewhere {
            let target = aims.first().map(|a| a.element.id.to_string()).unwrap_or_default();
            o.message = Some(format!(
                "the action ran, but nothing changed on {target} or its window {window}: the only changes were elsewhere \
                 (see the evidence), so the input may not have reached its target — observe, find the target again, and \
                 retry differently"
            ));
        } else if !changed {
            o.message = Some(
                "the action ran but nothing changed on screen; do not assume it worked — observe, find the target again, and retry differently"
                    .into(),
            );
        }
        o.elsewhere = elsewhere;
        if let Some(TypingCheck::NotArrived { element, retried, .. }) = &typing {
            o.status = Reason::TextNotArrived.status();
            o.reason = Some(Reason::TextNotArrived);
            let again = if *retried { ", also when sent again the other way" } else { "" };
            o.message = Some(format!(
                "the text did not arrive as typed in {element}{again}; what it holds is shown below — clear the \
                 field and type again, or check it with see"
            ));
        }
        o.typing = typing;
        o
    }
}

/// Whether a look read the accessibility tree (whole or in part).
fn has_tree(ax: AxHealth) -> bool {
    matches!(ax, AxHealth::Ok | AxHealth::Partial)
}

/// The frontmost terminal of `obs` (terminal apps as `apps` name them), at the empty prompt of a
/// terminal just opened.
pub(super) fn fresh_terminal(obs: &Observation, apps: &AppRules) -> Option<(TerminalId, PendingLine)> {
    let focused = obs.focused().filter(|e| is_terminal_element(e));
    let front = obs.front.as_ref();
    (focused.is_some() || front.is_some_and(|f| apps.is_terminal_class(&f.class)))
        .then(|| (TerminalId::new(front, focused), PendingLine::empty()))
}

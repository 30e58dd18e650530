//! The moment of use: the pointer goes onto its target before any button goes down, and what lies
//! under it is judged again as it reads then. A page can show "Save" when observed and "Delete
//! account" only while the pointer is over it; a look taken before the pointer arrives cannot see that.

use std::time::Duration;

use handrail_platform::{Desktop, PlatformError, Point, SettleRequest, States};

use super::config::Config;
use super::recheck::{probe, Probe};
use super::stop::Stop;
use super::{Aim, Engine};
use crate::guard::effect::Scene;
use crate::identity::IdTracker;
use crate::ids::ElementId;
use crate::observation::{Element, Observation, Source};
use crate::render::quote_clipped;
use crate::request::{Command, PointerKind, Request};
use crate::text::normalize;

use super::judge::Judged;

/// How long an app has to start drawing its reaction to the pointer (a hover colour, a label that
/// changes) before the arrival counts as changing nothing. Every press pays it when nothing reacts,
/// so it is short (three frames at 60 Hz); an app slower than this to react to hovering is judged as
/// it was observed.
const HOVER_RESPONSE: Duration = Duration::from_millis(50);
/// Quiet after the reaction's last change (two frames): the label a hover handler set is drawn in the
/// same frame as the highlight, and accessibility reports it by then.
const HOVER_QUIET: Duration = Duration::from_millis(30);
/// Never wait longer for a hover reaction that keeps changing (an animated highlight).
const HOVER_CEILING: Duration = Duration::from_millis(500);

/// The screen point where `command` puts a button down, for the actions that press one: clicks of
/// every kind, the start of a drag, and the click that focuses a `type` target not focused yet.
/// A window element is raised through the window manager, never pressed.
pub(super) fn press_point(command: &Command, aims: &[Aim]) -> Option<Point> {
    let first = aims.first()?;
    let presses = match command {
        Command::Pointer { kind: PointerKind::Hover, .. } => false,
        Command::Pointer { .. } => first.element.source != Source::Window,
        Command::Drag { .. } => true,
        Command::Type { target: Some(_), .. } => !first.element.states.contains(States::FOCUSED),
        _ => false,
    };
    presses.then_some(first.point)
}

/// Moves the pointer to `point`, waits briefly for the app's reaction to be drawn, and probes what
/// is there; with whether the screen changed since the pointer moved.
///
/// The watch stays on while the probe reads the screen. On a busy machine an app reacts late and a
/// probe takes long, in step: a reaction drawn while the probe read is waited out and the screen
/// probed again, until a probe finds the screen as it left it or [`HOVER_CEILING`] has passed. So the
/// time an app is given to react grows with the machine's slowness, where a longer fixed wait would
/// slow every press on a quiet one.
pub(super) fn arrive(
    desktop: &Desktop,
    config: &Config,
    tracker: &IdTracker,
    point: Point,
) -> Result<(Probe, bool), PlatformError> {
    let mut watch = desktop.settle.watch()?;
    desktop.input.move_pointer(point)?;
    let moved = desktop.clock.now();
    let report =
        watch.wait(&SettleRequest { response_window: HOVER_RESPONSE, quiet: HOVER_QUIET, ceiling: HOVER_CEILING })?;
    let mut saw_change = report.saw_change;
    let mut probed = probe(desktop, config, tracker)?;
    while watch.wait_for_change(Duration::ZERO)? {
        saw_change = true;
        let left = HOVER_CEILING.saturating_sub(desktop.clock.now().saturating_sub(moved));
        if left.is_zero() {
            break;
        }
        watch.wait(&SettleRequest { response_window: Duration::ZERO, quiet: HOVER_QUIET, ceiling: left })?;
        probed = probe(desktop, config, tracker)?;
    }
    Ok((probed, saw_change))
}

/// The elements of window `owner` under `point` (image coordinates) in `now` that were not under it
/// in `before`, as they read: a label or role that appeared when the pointer arrived. Smallest first,
/// the way the press would find them. Another window's elements there mean the target is covered
/// now, which the target re-check reports.
pub(super) fn changed_under<'a>(
    point: Point,
    owner: Option<u64>,
    before: &[Element],
    now: &'a [Element],
) -> Vec<&'a Element> {
    let reading = |e: &Element| (e.role, normalize(&e.label));
    let under = |e: &&Element| e.bounds.contains(point) && (owner.is_none() || e.owner == owner);
    let was: Vec<_> = before.iter().filter(under).map(reading).collect();
    let mut changed: Vec<&Element> =
        now.iter().filter(under).filter(|e| !normalize(&e.label).is_empty() && !was.contains(&reading(e))).collect();
    changed.sort_by_key(|e| e.bounds.area());
    changed
}

impl Engine {
    /// The guards once more, on what reads differently under the pointer now that it has arrived
    /// (`probe`, taken after the arrival) than in the `latest` observation the action was judged on.
    pub(super) fn judge_on_arrival(
        &mut self,
        request: &Request,
        aims: &[Aim],
        latest: &Observation,
        probe: &Probe,
        saw_change: bool,
        judged: Judged,
    ) -> Result<Judged, Stop> {
        let Some(aim) = aims.first() else { return Ok(judged) };
        let at = latest.to_image(aim.point);
        let mut changed: Vec<Element> =
            changed_under(at, aim.element.owner, &latest.elements, &probe.elements).into_iter().cloned().collect();
        // Accessibility knows nothing of a target only OCR found: when its pixels changed as the
        // pointer arrived, it is read again.
        if saw_change && aim.element.source == Source::Ocr {
            if let Some(now) = self.read_again_by_ocr(&aim.element) {
                changed.push(now);
            }
        }
        if changed.is_empty() {
            return Ok(judged);
        }
        let rules = self.desktop.rules.clone();
        let last_clicked = self.session.last_clicked.clone();
        let scene = Scene {
            elements: &probe.elements,
            focus: probe.focus,
            ax: probe.ax,
            last_clicked: last_clicked.as_ref(),
            front: probe.front.as_ref(),
            // The pre-action look reads no text.
            ocr: handrail_platform::OcrHealth::Off,
            rules: &rules,
        };
        let observed = &aim.element;
        let mut now = judged.afresh();
        for element in changed {
            // Judged as an element of its own: it is not what the first pass judged under that id.
            let reads = format!("{} {}", element.role, quote_clipped(&element.label, 60));
            let target = Aim { element: Element { id: ElementId::UNASSIGNED, ..element }, point: aim.point };
            now = self.judge(request, std::slice::from_ref(&target), &scene, now.afresh(), false).map_err(|stop| {
                let what = if observed.id == ElementId::UNASSIGNED {
                    format!("{} {}", observed.role, quote_clipped(&observed.label, 60))
                } else {
                    format!("{} {} {}", observed.id, observed.role, quote_clipped(&observed.label, 60))
                };
                let message = stop.message.clone().unwrap_or_default();
                Stop {
                    message: Some(format!(
                        "with the pointer on {what}, what is under it reads {reads}, which it did not when \
                             observed; nothing was pressed: {message}"
                    )),
                    ..stop
                }
            })?;
        }
        Ok(now.keeping_record_of(judged))
    }
}

impl Engine {
    /// `target` (found by OCR alone) as the screen shows it now, when its text reads differently; `None`
    /// when it reads the same or cannot be read (no OCR, a failed capture: it is then judged as it was
    /// observed).
    fn read_again_by_ocr(&self, target: &Element) -> Option<Element> {
        let d = &self.desktop;
        if !d.ocr.available() {
            return None;
        }
        let frame = d.screen.capture(None, self.config.max_image).ok()?;
        // A little around it: a label that grew on hover spills past the observed box.
        let pad = (target.bounds.height / 2).max(4);
        let area = handrail_platform::Rect::new(
            target.bounds.x - pad as i32,
            target.bounds.y - pad as i32,
            target.bounds.width + 2 * pad,
            target.bounds.height + 2 * pad,
        );
        let lines = d.ocr.recognize(&frame, Some(area)).ok()?;
        let text = lines.iter().map(|l| l.text.trim()).filter(|t| !t.is_empty()).collect::<Vec<_>>().join(" ");
        (!text.is_empty() && normalize(&text) != normalize(&target.label))
            .then(|| Element { label: text, ..target.clone() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use handrail_platform::{Rect, Role};

    fn el(role: Role, label: &str, bounds: Rect) -> Element {
        Element::for_test(role, label, bounds)
    }

    #[test]
    fn only_what_reads_differently_under_the_pointer_counts_and_the_innermost_comes_first() {
        let panel = el(Role::Other, "Account", Rect::new(0, 0, 400, 300));
        let save = el(Role::Button, "Save", Rect::new(10, 10, 80, 30));
        let other = el(Role::Button, "Delete account", Rect::new(200, 10, 120, 30));
        let before = vec![panel.clone(), save.clone(), other.clone()];
        let at = Point::new(20, 20);
        // Nothing changed: nothing to judge again, though a destructive button is elsewhere.
        assert!(changed_under(at, None, &before, &before).is_empty());
        // The label under the pointer changed; the panel around it did not.
        let hovered = el(Role::Button, "Delete account", save.bounds);
        let tip = el(Role::Text, "Deletes everything", Rect::new(0, 0, 300, 60));
        let now = vec![panel.clone(), tip.clone(), hovered.clone(), other.clone()];
        let changed = changed_under(at, None, &before, &now);
        assert_eq!(changed, vec![&hovered, &tip]);
        // A role that changed counts too; spacing and case alone do not.
        let field = el(Role::PasswordEntry, "Save", save.bounds);
        assert_eq!(changed_under(at, None, &before, &[panel.clone(), field.clone()]), vec![&field]);
        let respaced = el(Role::Button, "  SAVE ", save.bounds);
        assert!(changed_under(at, None, &before, &[panel, respaced]).is_empty());
        // Elements away from the pointer never count, nor another window's drawn over the target.
        assert!(changed_under(Point::new(390, 290), None, &[], std::slice::from_ref(&hovered)).is_empty());
        let over = Element { owner: Some(2), ..hovered.clone() };
        assert!(changed_under(at, Some(1), &[], std::slice::from_ref(&over)).is_empty());
        assert_eq!(changed_under(at, Some(2), &[], std::slice::from_ref(&over)), vec![&over]);
    }
}

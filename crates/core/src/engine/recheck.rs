//! The pre-action look: what the screen shows just before acting, and whether each target is still
//! where the observation said.

use handrail_platform::{AxHealth, Desktop, PlatformError, Point};

use super::config::Config;
use super::Aim;
use crate::diff::Thumbnail;
use crate::identity::{centre_distance, drift_tolerance, match_elements, IdTracker};
use crate::merge::Geometry;
use crate::observation::{Element, FrontWindow, Observation, Source};
use crate::render::quote_clipped;
use crate::text::normalize;
use crate::visibility::{self, ScreenWindow};

/// What the screen looks like just before an action.
pub(super) struct Probe {
    pub(super) thumbnail: Thumbnail,
    pub(super) ax: AxHealth,
    pub(super) app: Option<String>,
    pub(super) window: Option<String>,
    pub(super) front: Option<FrontWindow>,
    pub(super) focus: Option<usize>,
    pub(super) elements: Vec<Element>,
    /// Elements no part of which is visible (windows in front cover them).
    pub(super) covered: Vec<Element>,
    /// Index into `covered` of the focused element, when it is covered.
    pub(super) covered_focus: Option<usize>,
    pub(super) windows: Vec<ScreenWindow>,
}

/// Looks at the screen as it is now, naming what `tracker` already knows and issuing no new ids.
pub(super) fn probe(d: &Desktop, config: &Config, tracker: &IdTracker) -> Result<Probe, PlatformError> {
    let frame = d.screen.capture(None, config.max_image)?;
    let mut ax = d.accessibility.snapshot(&config.ax_limits);
    let front = d.windows.frontmost().ok().flatten();
    // A registry that missed its deadline (a busy machine) is asked once more: without the tree the
    // target can only be compared by its pixels, which the pointer's hover may have changed. So is a
    // tree the app in front (where targets mostly are) was missing from while another app did not
    // answer: its target could not be checked at all.
    let front_unanswered = ax.health == AxHealth::Partial
        && front.as_ref().is_some_and(|w| super::look::front_without_tree(&ax, w).is_some());
    if ax.health == AxHealth::Unavailable || front_unanswered {
        ax = d.accessibility.snapshot(&config.ax_limits);
    }
    let geo = Geometry { image: frame.size, scale: frame.scale() };
    let windows = super::look::read_windows(d, frame.scale());
    let mut merged = super::look::visible_elements(&ax, &[], geo, front.as_ref(), &windows);
    tracker.peek(&mut merged.elements);
    Ok(Probe {
        thumbnail: Thumbnail::of(&frame),
        ax: ax.health,
        app: front.as_ref().map(|w| w.app.clone()),
        front: front.as_ref().map(|w| FrontWindow::of(w, frame.scale())),
        window: front.map(|w| w.title),
        focus: merged.focus,
        elements: merged.elements,
        covered: merged.hidden_elements,
        covered_focus: merged.hidden_focus,
        windows,
    })
}

/// Checks the target is still where the observation said; updates its point when it drifted slightly.
/// `arrived`: the pointer is on the target already, and a label that changed under it was judged
/// then (see `arrival`), so the same control in the same place with another label is still the target.
/// `unhovered`: the screen as it was before the pointer arrived, where a target known only by its
/// pixels is compared (the hover reaction would count as a change of its own).
pub(super) fn recheck(
    aim: &mut Aim,
    latest: &Observation,
    probe: &Probe,
    arrived: bool,
    unhovered: Option<&Thumbnail>,
) -> Result<(), String> {
    let e = &aim.element;
    if e.source == Source::Window {
        return match probe.windows.iter().find(|w| Some(w.handle) == e.owner) {
            Some(_) => Ok(()),
            None => Err(format!("{} window {} is closed", e.id, quote_clipped(&e.label, 40))),
        };
    }
    if e.source.has_ax() && matches!(probe.ax, AxHealth::Ok | AxHealth::Partial) {
        let by_identity = match_elements(&probe.elements, std::slice::from_ref(e))[0];
        if by_identity.is_none() && match_elements(&probe.covered, std::slice::from_ref(e))[0].is_some() {
            return Err(covered_now(e, e, &probe.windows));
        }
        // Relabelled under the pointer: pressed where the pointer rests, which is on it.
        let relabel = match by_identity {
            None if arrived => relabelled(e, &probe.elements, &probe.windows, latest.to_image(aim.point)),
            _ => None,
        };
        let Some(pi) = by_identity.or(relabel) else {
            // Its app did not answer this look in time (a busy machine): it cannot be told whether the
            // target is still there, which is not the same as gone.
            let unanswered = probe.ax == AxHealth::Partial
                && !probe.elements.iter().chain(&probe.covered).any(|p| p.app == e.app && p.source.has_ax());
            if unanswered {
                return Err(format!(
                    "{} {} {} could not be checked: {} did not answer accessibility in time just now",
                    e.id,
                    e.role,
                    quote_clipped(&e.label, 40),
                    quote_clipped(&e.app, 40)
                ));
            }
            // Not nearby: is the same element somewhere else, or gone?
            let elsewhere = probe
                .elements
                .iter()
                .filter(|p| p.role == e.role && p.app == e.app && normalize(&p.label) == normalize(&e.label))
                .min_by(|a, b| centre_distance(&a.bounds, &e.bounds).total_cmp(&centre_distance(&b.bounds, &e.bounds)));
            return Err(match elsewhere {
                Some(now) => format!(
                    "{} {} {} moved from {} to {}",
                    e.id,
                    e.role,
                    quote_clipped(&e.label, 40),
                    e.bounds,
                    now.bounds
                ),
                None => format!("{} {} {} is no longer on screen", e.id, e.role, quote_clipped(&e.label, 40)),
            });
        };
        let now = &probe.elements[pi];
        if relabel.is_some() {
            return Ok(());
        }
        if centre_distance(&now.bounds, &e.bounds) > drift_tolerance(&e.bounds) {
            return Err(format!(
                "{} {} {} moved from {} to {}",
                e.id,
                e.role,
                quote_clipped(&e.label, 40),
                e.bounds,
                now.bounds
            ));
        }
        // Followed by the same offset inside the box, so a point chosen clear of an overlap stays clear.
        let old = latest.to_screen(e.bounds.center());
        let new = latest.to_screen(now.bounds.center());
        aim.point = Point::new(aim.point.x + new.x - old.x, aim.point.y + new.y - old.y);
        // A window may have moved over part of it since: the point must still be on what is visible.
        let shot = latest.to_image(aim.point);
        if !visibility::visible_parts(now, &probe.windows).iter().any(|r| r.contains(shot)) {
            let Some(p) = super::aim::aim_point(now, &probe.elements, &probe.windows) else {
                return Err(covered_now(e, now, &probe.windows));
            };
            aim.point = latest.to_screen(p);
        }
        return Ok(());
    }
    if latest.thumbnail.region_changed(unhovered.unwrap_or(&probe.thumbnail), &e.bounds) {
        // Known to accessibility, but it did not answer this look: say why pixels decided.
        let unanswered = if e.source.has_ax() { " (accessibility did not answer just now)" } else { "" };
        return Err(format!(
            "the pixels under {} {} changed since {}{unanswered}",
            e.id,
            quote_clipped(&e.label, 40),
            latest.id
        ));
    }
    Ok(())
}

/// The element of `now` that is `e` with another label: of the same window and role, under the point
/// `at` (screenshot coordinates) the pointer rests on, and visible there; the innermost when several
/// are.
fn relabelled(e: &Element, now: &[Element], windows: &[ScreenWindow], at: Point) -> Option<usize> {
    now.iter()
        .enumerate()
        .filter(|(_, p)| p.role == e.role && p.app == e.app && p.owner == e.owner && p.bounds.contains(at))
        .filter(|(_, p)| visibility::visible_parts(p, windows).iter().any(|r| r.contains(at)))
        .min_by_key(|(_, p)| p.bounds.area())
        .map(|(i, _)| i)
}

/// The refusal for a target (`e`, as observed) that no longer has a visible part (`now`, as it is).
pub(super) fn covered_now(e: &Element, now: &Element, windows: &[ScreenWindow]) -> String {
    format!(
        "{} {} {} is covered by {} now: no part of it is visible",
        e.id,
        e.role,
        quote_clipped(&e.label, 40),
        covering_window(now, windows)
    )
}

/// How a person would name the window drawn over most of `e`.
pub(super) fn covering_window(e: &Element, windows: &[ScreenWindow]) -> String {
    let owner = e.owner.and_then(|h| windows.iter().position(|w| w.handle == h));
    windows
        .iter()
        .enumerate()
        .rev()
        .filter(|(i, w)| owner.is_none_or(|o| *i > o) && !w.minimized)
        .max_by_key(|(_, w)| w.bounds.intersection(&e.bounds).map_or(0, |r| r.area()))
        .map_or_else(
            || "another window".to_string(),
            |(_, w)| format!("the {} {}", w.kind.as_str(), w.describe_short()),
        )
}

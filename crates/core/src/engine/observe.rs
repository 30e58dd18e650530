//! Looking at the screen: capture, accessibility, OCR and merge into an observation, and publishing it.

use std::sync::Arc;
use std::time::Duration;

use handrail_platform::{AxSnapshot, Desktop, OcrHealth, PlatformError, Rect};

use super::config::Config;
use super::stop::{blank, Stop};
use super::Engine;
use crate::diff::Thumbnail;
use crate::identity::centre_distance;
use crate::identity::IdTracker;
use crate::ids::ObservationId;
use crate::merge::Geometry;
use crate::observation::{Element, FrontWindow, InspectDetail, Observation};
use crate::outcome::{Outcome, Reason, Status};
use crate::request::ActionKind;
use crate::text::normalize;

/// What a warm-up look saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WarmUp {
    pub elements: usize,
    pub ax: handrail_platform::AxHealth,
    pub ocr: OcrHealth,
    /// From the capture to the merged element list.
    pub took: Duration,
}

/// Why a warm-up look did not happen.
#[derive(Debug, thiserror::Error)]
pub enum WarmUpError {
    #[error("the model cannot see (or is not declared to), so the desktop is not looked at")]
    VisionRequired,
    #[error("the desktop failed: {0}")]
    Desktop(PlatformError),
}

/// A fresh look at the screen before publication.
pub(super) struct Fresh {
    pub(super) obs: Observation,
    pub(super) capture: Duration,
    pub(super) observe: Duration,
    pub(super) encode: Duration,
}

impl Engine {
    pub(super) fn see(&mut self, action: ActionKind, summary: String) -> Outcome {
        self.open_window();
        self.session.observations += 1;
        self.session.unchanged = None;
        match self.fresh(None) {
            Ok(fresh) => self.published(Status::Ok, action, summary, fresh),
            Err(e) => self.platform_error(action, summary, e),
        }
    }

    /// Looks at the screen once without publishing anything: no observation id, no budget, no turn
    /// state. It fills the caches a first look pays for (the accessibility walk, OCR of every tile),
    /// so a desktop service can say it is ready only once it has really seen its screen, and its first
    /// call is as fast as any other. A model that cannot see gets the gate's refusal and the desktop
    /// is not touched.
    pub fn warm_up(&mut self) -> Result<WarmUp, WarmUpError> {
        if self.config.vision != super::Vision::Capable {
            return Err(WarmUpError::VisionRequired);
        }
        let t0 = self.desktop.clock.now();
        let mut scratch = IdTracker::continuing_from(self.session.tracker.last_issued());
        let fresh = observe(&self.desktop, &self.config, &mut scratch, None, false).map_err(WarmUpError::Desktop)?;
        Ok(WarmUp {
            elements: fresh.obs.elements.len(),
            ax: fresh.obs.ax,
            ocr: fresh.obs.ocr,
            took: self.desktop.clock.now().saturating_sub(t0),
        })
    }

    /// Inspects `region`; with `follow`, the element the region was taken from: if the fresh look
    /// shows it elsewhere (its window was placed or moved since the observation), its new place is
    /// inspected. It is found by its id, else as the nearest element of the same app, role and label
    /// (an id does not survive a long move).
    pub(super) fn inspect(
        &mut self,
        action: ActionKind,
        summary: String,
        region: Rect,
        follow: Option<Element>,
    ) -> Outcome {
        let latest = self.session.latest.clone();
        let image_rect = latest.as_ref().map(|o| Rect::from_size(o.image_size));
        let region = match image_rect {
            Some(bounds) => region.clamped_to(&bounds),
            None => {
                return Stop::new(Reason::NoObservation, "inspect needs an observation of this turn; call see first")
                    .into_outcome(Some(action), summary, None)
            }
        };
        if region.is_empty() {
            return Stop::new(Reason::InvalidRegion, "`region` lies outside the screenshot").into_outcome(
                Some(action),
                summary,
                self.latest_id(),
            );
        }
        self.open_window();
        self.session.observations += 1;
        self.session.unchanged = None;
        let moved_to = |fresh: &Fresh| {
            let was = follow.as_ref()?;
            let same_kind =
                |e: &&Element| e.role == was.role && e.app == was.app && normalize(&e.label) == normalize(&was.label);
            let now = match fresh.obs.elements.iter().find(|e| e.id == was.id) {
                Some(e) => e.bounds,
                None => {
                    let nearest = fresh.obs.elements.iter().filter(same_kind).min_by(|a, b| {
                        centre_distance(&a.bounds, &was.bounds).total_cmp(&centre_distance(&b.bounds, &was.bounds))
                    });
                    nearest?.bounds
                }
            };
            (now != region && !now.is_empty()).then_some(now)
        };
        let looked = self.fresh(Some(region)).and_then(|fresh| match moved_to(&fresh) {
            Some(now) => self.fresh(Some(now)),
            None => Ok(fresh),
        });
        match looked {
            Ok(fresh) => self.published(Status::Ok, action, summary, fresh),
            Err(e) => self.platform_error(action, summary, e),
        }
    }

    pub(super) fn platform_error(&self, action: ActionKind, summary: String, e: PlatformError) -> Outcome {
        Stop::new(Reason::DesktopFailed, format!("the desktop failed: {e}")).into_outcome(
            Some(action),
            summary,
            self.latest_id(),
        )
    }

    /// Captures and builds an observation (not yet published). With `inspect`, the image is a
    /// full-resolution crop of that region (screenshot coordinates) and the listing is detailed.
    pub(super) fn fresh(&mut self, inspect: Option<Rect>) -> Result<Fresh, PlatformError> {
        let Engine { desktop, config, session, .. } = self;
        observe(desktop, config, &mut session.tracker, inspect, session.marks)
    }

    pub(super) fn publish(&mut self, mut obs: Observation) -> Arc<Observation> {
        self.session.last_observation += 1;
        obs.id = ObservationId(self.session.last_observation);
        let obs = Arc::new(obs);
        self.session.latest = Some(obs.clone());
        obs
    }

    pub(super) fn published(&mut self, status: Status, action: ActionKind, summary: String, fresh: Fresh) -> Outcome {
        let Fresh { obs, capture, observe, encode, .. } = fresh;
        let obs = self.publish(obs);
        let mut o = blank(status, Some(action), summary, Some(obs.id));
        o.timings.capture = capture;
        o.timings.observe = observe;
        o.timings.encode = encode;
        o.observation = Some(obs);
        o
    }
}

/// Looks at the screen: capture, accessibility, OCR, merge, ids, thumbnail, encode.
pub(super) fn observe(
    desktop: &Desktop,
    config: &Config,
    tracker: &mut IdTracker,
    inspect: Option<Rect>,
    marks: bool,
) -> Result<Fresh, PlatformError> {
    let clock = &desktop.clock;
    let t0 = clock.now();
    let frame = desktop.screen.capture(None, config.max_image)?;
    if !frame.is_consistent() {
        return Err(PlatformError::Failed("the captured frame is inconsistent with its size".into()));
    }
    let t1 = clock.now();
    let mut ax: AxSnapshot = desktop.accessibility.snapshot(&config.ax_limits);
    let front = desktop.windows.frontmost().ok().flatten();
    if let Some(note) = front.as_ref().and_then(|w| super::look::front_without_tree(&ax, w)) {
        ax.notes.push(note);
        if ax.health == handrail_platform::AxHealth::Ok {
            ax.health = handrail_platform::AxHealth::Partial;
        }
    }
    let scale = frame.scale();
    let geo = Geometry { image: frame.size, scale };
    let windows = super::look::read_windows(desktop, scale);
    let monitors = super::look::read_monitors(desktop, scale, Rect::from_size(frame.size));
    let (lines, ocr) = if !config.ocr {
        (Vec::new(), OcrHealth::Off)
    } else if !desktop.ocr.available() {
        (Vec::new(), OcrHealth::Unavailable)
    } else {
        // Text the accessibility tree already gives need not be read twice.
        let opaque = front
            .as_ref()
            .map(|w| FrontWindow::of(w, scale))
            .filter(|f| desktop.rules.apps.is_terminal_class(&f.class))
            .map(|f| f.bounds);
        let ax_only = super::look::visible_elements(&ax, &[], geo, front.as_ref(), &windows);
        desktop.ocr.skip_regions(&ax_text_regions(&ax_only.elements, opaque));
        // Terminal text (small monospace glyphs) reads best with settings of its own.
        desktop.ocr.terminal_regions(opaque.as_slice());
        match desktop.ocr.recognize(&frame, None) {
            Ok(lines) => (lines, OcrHealth::Ok),
            Err(e) => {
                log::warn!("OCR failed: {e}");
                (Vec::new(), OcrHealth::Failed)
            }
        }
    };
    let mut merged = super::look::visible_elements(&ax, &lines, geo, front.as_ref(), &windows);
    tracker.assign(&mut merged.elements, ax.health == handrail_platform::AxHealth::Ok);
    let thumbnail = Thumbnail::of(&frame);
    let focused_app = merged.focus.and_then(|i| merged.elements.get(i)).map(|e| e.app.clone());
    let t2 = clock.now();

    // The image: the screenshot, or a full-resolution crop of the inspected region.
    let (image, inspect_detail) = match inspect {
        None if marks => {
            let shown = crate::render::listed_count(&merged.elements, &windows, &monitors, &config.listing);
            let boxes: Vec<(Rect, String)> =
                merged.elements[..shown].iter().map(|e| (e.bounds, e.id.to_string())).collect();
            let mut marked = frame.clone();
            handrail_imaging::draw::draw_marks(&mut marked, &boxes);
            (desktop.encoder.encode(&marked)?, None)
        }
        None => (desktop.encoder.encode(&frame)?, None),
        Some(region) => {
            let screen_region = if scale == 1.0 { region } else { region.scaled(scale) };
            let crop = desktop.screen.capture(Some(screen_region), None)?;
            let inside: Vec<usize> = merged
                .elements
                .iter()
                .enumerate()
                .filter(|(_, e)| e.bounds.intersects(&region))
                .map(|(i, _)| i)
                .collect();
            (desktop.encoder.encode(&crop)?, Some(InspectDetail { region, elements: inside }))
        }
    };
    let t3 = clock.now();

    let obs = Observation {
        id: ObservationId(0),
        screen: frame.screen,
        image_size: frame.size,
        scale,
        app: front.as_ref().map(|w| w.app.clone()).filter(|a| !a.is_empty()).or(focused_app),
        front: front.as_ref().map(|w| FrontWindow::of(w, scale)),
        window: front.map(|mut w| {
            super::look::redact(&mut w.title);
            w.title
        }),
        focus: merged.focus,
        ax: ax.health,
        ax_notes: ax.notes.clone(),
        ocr,
        elements: merged.elements,
        windows,
        monitors,
        hidden: merged.hidden,
        covered: merged.hidden_elements,
        covered_focus: merged.hidden_focus,
        image: Some(image),
        thumbnail,
        inspect: inspect_detail,
        taken_at: t3,
        screenshot: Some(Arc::new(frame)),
    };
    Ok(Fresh { obs, capture: t1.saturating_sub(t0), observe: t2.saturating_sub(t1), encode: t3.saturating_sub(t2) })
}

/// Bounds of elements whose accessible label is the text they show (static text, buttons, links, menu
/// items…): OCR need not read those again. Inputs are left to OCR (their text is content), and so are
/// containers and anything unnamed. Nothing under `opaque` is skipped: a frontmost window that exposes no
/// accessibility (a terminal emulator) covers whatever the tree reports there, so only OCR sees it.
pub(super) fn ax_text_regions(elements: &[Element], opaque: Option<Rect>) -> Vec<Rect> {
    use handrail_platform::Role;
    elements
        .iter()
        .filter(|e| !e.label.trim().is_empty() && !e.is_secure())
        .filter(|e| opaque.is_none_or(|o| !o.intersects(&e.bounds)))
        .filter(|e| {
            matches!(
                e.role,
                Role::Text
                    | Role::Heading
                    | Role::Button
                    | Role::ToggleButton
                    | Role::Link
                    | Role::MenuItem
                    | Role::Menu
                    | Role::Tab
                    | Role::ListItem
                    | Role::Checkbox
                    | Role::RadioButton
                    | Role::Cell
            )
        })
        .map(|e| e.bounds)
        .collect()
}

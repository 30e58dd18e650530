//! `expect=…`: checking what an action should have led to against an observation.

use handrail_platform::{AxHealth, OcrHealth, Role};

use crate::observation::{Element, Observation, Source};
use crate::outcome::ExpectOutcome;
use crate::render::quote_clipped;
use crate::request::{Expect, ExpectKind};
use crate::text::{contains_phrase, contains_phrase_ignoring_spaces, has_unspaced_script, normalize, squash_spaces};

/// Whether an expectation's outcome is final. Unmet ones may still come true while the screen changes;
/// so may text the sources could not confirm (it can reach the accessibility tree a moment later).
pub(super) fn settled_on(expect: &Expect, outcome: &ExpectOutcome) -> bool {
    match outcome {
        ExpectOutcome::Verified => true,
        ExpectOutcome::NotMet { .. } => false,
        ExpectOutcome::Unknown { .. } => expect.kind != ExpectKind::Text,
    }
}

/// Why no focused element is reported, as far as the observation tells: the front window's app
/// lists nothing on the accessibility bus (not on it, or a toolkit exposing nothing, such as xterm),
/// focus sits in web content a browser may not expose, or the app simply reports none.
fn no_focus_why(obs: &Observation) -> String {
    // The window's own node says nothing of what is inside it.
    let front = |e: &&Element| {
        e.source.has_ax()
            && e.role != Role::Window
            && (obs.window.as_deref() == Some(e.window.as_str()) || obs.app.as_deref() == Some(e.app.as_str()))
    };
    let app = obs.app.as_deref().map_or_else(|| "the frontmost app".to_string(), |a| quote_clipped(a, 40));
    let mut listed = obs.elements.iter().filter(front).peekable();
    if listed.peek().is_none() {
        return format!(
            "{app} lists nothing on the accessibility bus (it is not on it, or exposes nothing), so its focus cannot \
             be read"
        );
    }
    if listed.any(|e| e.is_web_content() || e.role == Role::Document) {
        "no focused element is reported (focus inside web content may not be exposed)".into()
    } else {
        format!("{app} reports no focused element")
    }
}

/// Checks an expectation against an observation.
pub(super) fn check_expect(expect: &Expect, obs: &Observation) -> ExpectOutcome {
    let want = &expect.value;
    match expect.kind {
        ExpectKind::Focus => {
            if !matches!(obs.ax, AxHealth::Ok | AxHealth::Partial) {
                return ExpectOutcome::Unknown {
                    why: format!("focus cannot be read (ax={}); use expect text: instead", obs.ax.as_str()),
                };
            }
            match obs.focused() {
                Some(f) if contains_phrase(&f.label, want) || normalize(f.role.as_str()) == normalize(want) => {
                    ExpectOutcome::Verified
                }
                Some(f) => ExpectOutcome::NotMet {
                    observed: format!("focus is on {} {} {}", f.id, f.role, quote_clipped(&f.label, 40)),
                },
                None => ExpectOutcome::Unknown { why: format!("{}; use expect text: instead", no_focus_why(obs)) },
            }
        }
        ExpectKind::App => match &obs.app {
            Some(app) if contains_phrase(app, want) => ExpectOutcome::Verified,
            Some(app) => ExpectOutcome::NotMet { observed: format!("the frontmost app is {}", quote_clipped(app, 40)) },
            None => ExpectOutcome::Unknown { why: "the frontmost app cannot be read".into() },
        },
        ExpectKind::Window => match &obs.window {
            Some(title) if contains_phrase(title, want) => ExpectOutcome::Verified,
            Some(title) => {
                ExpectOutcome::NotMet { observed: format!("the window title is {}", quote_clipped(title, 60)) }
            }
            None => ExpectOutcome::Unknown { why: "the window title cannot be read".into() },
        },
        ExpectKind::Text => {
            let squashed = squash_spaces(want);
            // OCR invents and drops spaces inside words; accessible text is what the app holds, exactly.
            let ocr = |e: &Element| e.source == Source::Ocr;
            let seen = obs.elements.iter().any(|e| {
                e.visible_texts().any(|t| {
                    contains_phrase(t, want)
                        || (ocr(e) && contains_phrase_ignoring_spaces(t, want))
                        || (has_unspaced_script(want) && squash_spaces(t).contains(&squashed))
                })
            }) || obs.window.as_deref().is_some_and(|w| contains_phrase(w, want));
            if seen {
                ExpectOutcome::Verified
            } else if obs.ocr != OcrHealth::Ok && obs.ax == AxHealth::Unavailable {
                ExpectOutcome::Unknown { why: "neither OCR nor accessibility is available to read text".into() }
            } else if obs.ocr != OcrHealth::Ok {
                ExpectOutcome::Unknown {
                    why: format!(
                        "the text is not in the accessibility tree and OCR is {} to read the pixels",
                        obs.ocr.as_str()
                    ),
                }
            } else {
                ExpectOutcome::NotMet { observed: format!("{} is not visible", quote_clipped(want, 60)) }
            }
        }
    }
}

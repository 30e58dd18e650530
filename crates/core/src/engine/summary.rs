//! How a call is named: its one-line summary (nothing typed in it) and the signature that tells the
//! same action on the same target.

use crate::guard::url::redact_credentials;
use crate::render::quote_clipped;
use crate::request::{ActionKind, Command, InspectSubject, Request, Target};
use crate::text::normalize;

/// Identifies "the same action on the same target".
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Signature {
    pub(super) action: ActionKind,
    pub(super) target: String,
    pub(super) payload: String,
}

pub(super) fn target_key(t: &Target) -> String {
    match t {
        Target::Element(id) => id.to_string(),
        Target::Text(s) => format!("text:{}", normalize(s)),
    }
}

pub(super) fn signature(request: &Request) -> Signature {
    let target = match &request.command {
        Command::Drag { from, to } => format!("{}>{}", target_key(from), target_key(to)),
        _ => request.target().map(target_key).unwrap_or_default(),
    };
    let payload = match &request.command {
        Command::Type { text, .. } => text.clone(),
        Command::Key { combo } => combo.to_string(),
        Command::Scroll { direction, amount, .. } => format!("{}:{amount}", direction.as_str()),
        Command::OpenApp { app } => normalize(app),
        Command::OpenUrl { url } => url.clone(),
        _ => String::new(),
    };
    Signature { action: request.action, target, payload }
}

/// A one-line description of the call, without anything typed (which could be sensitive).
pub(super) fn summarize(request: &Request) -> String {
    let a = request.action.as_str();
    match &request.command {
        Command::See => a.to_string(),
        Command::Inspect(InspectSubject::Region(r)) => format!("{a} region {r}"),
        Command::Inspect(InspectSubject::Target(t)) | Command::Pointer { target: t, .. } => format!("{a} {t}"),
        Command::Drag { from, to } => format!("{a} {from} → {to}"),
        Command::Type { target, text } => {
            let n = text.chars().count();
            match target {
                Some(t) => format!("{a} {n} characters into {t}"),
                None => format!("{a} {n} characters into the focused field"),
            }
        }
        Command::Key { combo } => format!("{a} {combo}"),
        Command::Scroll { target, direction, amount } => match target {
            Some(t) => format!("{a} {} {amount} over {t}", direction.as_str()),
            None => format!("{a} {} {amount}", direction.as_str()),
        },
        Command::OpenApp { app } => format!("{a} {}", quote_clipped(app, 60)),
        Command::OpenUrl { url } => format!("{a} {}", quote_clipped(&redact_credentials(url), 100)),
    }
}

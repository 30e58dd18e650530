//! The table checks each language's file runs on its own words, through the guards' public functions.

use crate::guard::destructive::{check_destructive, destructive_marker, intent_backs, DestructiveVerdict, RemovalKind};
use crate::guard::password::password_marker;
use crate::turn::Mode;

/// `(label, marker in interactive mode, marker in unattended mode)`.
pub(crate) fn labels(cases: &[(&str, Option<&str>, Option<&str>)]) {
    for (label, interactive, unattended) in cases {
        let got = |mode| destructive_marker(label, mode).map(|m| m.marker);
        assert_eq!(got(Mode::Interactive), *interactive, "interactive {label:?}");
        assert_eq!(got(Mode::Unattended), *unattended, "unattended {label:?}");
    }
}

/// `(request, kind, whether the request asks for that kind of removal)`.
pub(crate) fn intents(cases: &[(&str, RemovalKind, bool)]) {
    for (intent, kind, want) in cases {
        assert_eq!(intent_backs(intent, *kind), *want, "request {intent:?} for {kind:?}");
    }
}

/// `(field label, whether it names a password field)`.
pub(crate) fn passwords(cases: &[(&str, bool)]) {
    for (label, want) in cases {
        assert_eq!(password_marker(label).is_some(), *want, "field {label:?}: {:?}", password_marker(label));
    }
}

/// A destructive label judged the three ways that matter: refused (with a person to ask) when the
/// request is about something else, allowed when the request asks for it, refused unattended anyway.
pub(crate) fn judged(label: &str, asks: &str, unrelated: &str) {
    let v = check_destructive(&[label], Mode::Interactive, unrelated);
    assert!(matches!(v, DestructiveVerdict::Refused { can_ask: true, .. }), "{label:?} for {unrelated:?}: {v:?}");
    let v = check_destructive(&[label], Mode::Interactive, asks);
    assert!(matches!(v, DestructiveVerdict::AllowedByIntent { .. }), "{label:?} for {asks:?}: {v:?}");
    let v = check_destructive(&[label], Mode::Unattended, asks);
    assert!(matches!(v, DestructiveVerdict::Refused { can_ask: false, .. }), "{label:?} unattended: {v:?}");
}

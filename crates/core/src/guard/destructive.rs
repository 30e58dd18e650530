//! Destructive targets (SPEC §5.4): labels that announce a removal.
//!
//! The target's label (element, text target, drag source and destination) is matched against markers.
//! Interactive mode uses a deliberately short list, because "Format" menus and a Trash sidebar entry are
//! harmless while a person watches; unattended mode adds the broad words. A match in interactive mode is
//! allowed only when the user's own words (the turn intent, supplied by the host, never by the model) ask for
//! that kind of removal; in unattended mode a match is always refused. Nothing on the screen can
//! change the decision: labels are only ever matched, never interpreted.

use super::lexicon::{self, negated, Fit, Prepared};
use super::text::normalize;
use crate::turn::Mode;

/// What kind of removal a marker announces, so the intent can be checked for the same kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RemovalKind {
    Delete,
    Uninstall,
    Trash,
    Format,
}

impl RemovalKind {
    pub fn as_str(self) -> &'static str {
        match self {
            RemovalKind::Delete => "delete",
            RemovalKind::Uninstall => "uninstall",
            RemovalKind::Trash => "trash",
            RemovalKind::Format => "format",
        }
    }

    /// Words for refusal messages ("the user's request does not ask for …").
    pub fn describe(self) -> &'static str {
        match self {
            RemovalKind::Delete => "deleting or removing something",
            RemovalKind::Uninstall => "uninstalling software",
            RemovalKind::Trash => "moving things to the Trash or emptying it",
            RemovalKind::Format => "formatting or wiping a disk",
        }
    }
}

/// A destructive marker found in a label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DestructiveMatch {
    /// The marker as listed (normal form), e.g. `"delete"`, `"empty trash"` or `"lösch"`.
    pub marker: &'static str,
    pub kind: RemovalKind,
    /// The language the marker is listed under, in English ("German").
    pub language: &'static str,
}

/// The first destructive marker in `label` for `mode`, if any.
///
/// Every language's markers apply to every label (see [`super::lexicon`]), matched after normalisation
/// (NFKC, lower case, invisible characters dropped, look-alikes folded); English markers come first.
pub fn destructive_marker(label: &str, mode: Mode) -> Option<DestructiveMatch> {
    markers_in(label, mode).into_iter().next()
}

/// Every destructive marker in `label` for `mode`, English first, each language's most specific first.
fn markers_in(label: &str, mode: Mode) -> Vec<DestructiveMatch> {
    let label = Prepared::new(label);
    if label.is_empty() {
        return Vec::new();
    }
    lexicon::markers_in(&label, mode == Mode::Unattended)
        .map(|(m, language)| DestructiveMatch { marker: m.term.text, kind: m.kind, language })
        .collect()
}

/// Whether the user's own words ask for this kind of removal, in any of the languages of
/// [`super::lexicon`].
///
/// Deleting words also back Trash (deleting a file moves it there). A removal word negated in its clause
/// ("do not delete", "อย่าลบ", "lösche nichts", "削除しないで") does not count. An empty intent backs nothing.
pub fn intent_backs(intent: &str, kind: RemovalKind) -> bool {
    let norm = normalize(intent);
    if norm.is_empty() {
        return false;
    }
    match kind {
        RemovalKind::Trash => {
            lexicon::asks_for_kind(&norm, RemovalKind::Trash) || lexicon::asks_for_kind(&norm, RemovalKind::Delete)
        }
        other => lexicon::asks_for_kind(&norm, other),
    }
}

/// Whether `norm` (a normalised request) holds `word` un-negated: from the start of a word when the word
/// is Latin, anywhere otherwise. For the command guard's own word lists.
pub(super) fn asks_for(norm: &str, word: &str) -> bool {
    let fit = if word.starts_with(|c: char| c.is_ascii_alphabetic()) { Fit::WordStart } else { Fit::Within };
    lexicon::occurrences(norm, word, fit, &[]).any(|(start, end)| !negated(norm, start, end))
}

/// The decision on a set of target labels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DestructiveVerdict {
    /// No label carries a destructive marker.
    Allowed,
    /// A label carries a marker, and the user's request asks for that kind of removal (interactive only).
    AllowedByIntent { marker: &'static str },
    /// Refused; `reason` is the message for the model.
    Refused {
        marker: &'static str,
        /// The offending label as given.
        label: String,
        reason: String,
        /// A person is watching (interactive mode), so a host that can ask (MCP elicitation) may ask them to
        /// confirm instead of refusing. Always false in unattended mode.
        can_ask: bool,
    },
}

impl DestructiveVerdict {
    pub fn is_allowed(&self) -> bool {
        !matches!(self, DestructiveVerdict::Refused { .. })
    }
}

/// Checks every label of an action's targets (element, text target, drag source and destination).
///
/// Unattended: any match is refused. Interactive: every match must be backed by the intent
/// ([`intent_backs`]), otherwise refused with `can_ask = true`.
pub fn check_destructive(labels: &[&str], mode: Mode, intent: &str) -> DestructiveVerdict {
    let mut backed: Option<&'static str> = None;
    for label in labels {
        for m in markers_in(label, mode) {
            match mode {
                Mode::Unattended => {
                    return refused(
                        label,
                        m,
                        false,
                        "destructive targets are always refused in unattended mode (nobody is watching to \
                         confirm); leave this step for a person"
                            .to_string(),
                    );
                }
                Mode::Interactive if intent_backs(intent, m.kind) => {
                    backed.get_or_insert(m.marker);
                }
                Mode::Interactive => {
                    return refused(
                        label,
                        m,
                        true,
                        format!(
                            "the user's request does not ask for {} (the user's request must ask for this removal: \
                             ask the user, or leave this step to them)",
                            m.kind.describe()
                        ),
                    );
                }
            }
        }
    }
    match backed {
        Some(marker) => DestructiveVerdict::AllowedByIntent { marker },
        None => DestructiveVerdict::Allowed,
    }
}

/// The marker a deletion of the selection is reported under (it has no label to carry one).
pub const DELETE_KEY: &str = "delete key";

/// The Delete key on what is selected (a file, a message, a list row): a removal like a "Delete"
/// button, whatever the selected things are called. `selection` are their labels as far as known,
/// `receiver` the element the key goes to.
///
/// Unattended: refused. Interactive: allowed when the request asks for deleting or trashing
/// ([`intent_backs`] for Trash, which deleting words back too), otherwise refused with `can_ask`.
pub fn check_selection_delete(selection: &[String], receiver: &str, mode: Mode, intent: &str) -> DestructiveVerdict {
    let what = describe_selection(selection, receiver);
    let (why, can_ask) = match mode {
        Mode::Interactive if intent_backs(intent, RemovalKind::Trash) => {
            return DestructiveVerdict::AllowedByIntent { marker: DELETE_KEY }
        }
        Mode::Interactive => (
            "the user's request does not ask for deleting or removing something (the user's request must ask for \
             this removal: ask the user, or leave this step to them)",
            true,
        ),
        Mode::Unattended => (
            "deleting is always refused in unattended mode (nobody is watching to confirm); leave this step for a \
             person",
            false,
        ),
    };
    DestructiveVerdict::Refused {
        marker: DELETE_KEY,
        reason: format!("refusing to press Delete: it would delete {what}, and {why}"),
        label: what,
        can_ask,
    }
}

/// "the selected "a.txt", "b.txt" and 3 more", or what the selection is in when its items are unknown.
fn describe_selection(selection: &[String], receiver: &str) -> String {
    let clip = |s: &str| crate::render::quote_clipped(s, 40);
    match selection {
        [] if receiver.trim().is_empty() => "what is selected".to_string(),
        [] => format!("what is selected in {}", clip(receiver)),
        items => {
            let named: Vec<String> = items.iter().take(3).map(|s| clip(s)).collect();
            let more = if items.len() > 3 { format!(" and {} more", items.len() - 3) } else { String::new() };
            format!("the selected {}{more}", named.join(", "))
        }
    }
}

fn refused(label: &str, m: DestructiveMatch, can_ask: bool, why: String) -> DestructiveVerdict {
    let shown: String =
        if label.chars().count() > 80 { label.chars().take(79).chain(['…']).collect() } else { label.to_string() };
    DestructiveVerdict::Refused {
        marker: m.marker,
        label: label.to_string(),
        reason: format!(
            "refusing to act on {shown:?}: its label contains the destructive marker {:?}{}, and {why}",
            m.marker,
            if m.language == "English" { String::new() } else { format!(" ({})", m.language) }
        ),
        can_ask,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const I: Mode = Mode::Interactive;
    const U: Mode = Mode::Unattended;

    #[test]
    fn markers_per_mode() {
        // (label, interactive marker, unattended marker)
        let cases: &[(&str, Option<&str>, Option<&str>)] = &[
            ("Save", None, None),
            ("", None, None),
            ("Delete", Some("delete"), Some("delete")),
            ("Delete account", Some("delete"), Some("delete")),
            ("DELETE", Some("delete"), Some("delete")),
            ("Remove from list", Some("remove"), Some("remove")),
            ("Uninstall", Some("uninstall"), Some("uninstall")),
            ("Empty Trash", Some("empty trash"), Some("empty trash")),
            ("Empty   trash…", Some("empty trash"), Some("empty trash")),
            ("Move to Trash", Some("move to trash"), Some("move to trash")),
            ("Move to the Bin", Some("move to the bin"), Some("move to the bin")),
            ("Trash", None, Some("trash")),
            ("Format…", None, Some("format")),
            ("Format Disk", None, Some("format")),
            ("Erase", None, Some("erase")),
            ("Wipe device", None, Some("wipe")),
            ("Swipe to unlock", None, None),
            ("Swipe to wipe", None, Some("wipe")),
            ("More information", None, None),
            ("Disk format: ext4", None, Some("format")),
            // Thai.
            ("ลบ", Some("ลบ"), Some("ลบ")),
            ("ลบไฟล์", Some("ลบ"), Some("ลบ")),
            ("ล บ ไฟล์", Some("ลบ"), Some("ลบ")),
            ("เอาออก", Some("เอาออก"), Some("เอาออก")),
            ("ถอนการติดตั้ง", Some("ถอนการติดตั้ง"), Some("ถอนการติดตั้ง")),
            ("ถังขยะ", None, Some("ถังขยะ")),
            ("บันทึก", None, None),
            // Evasion attempts.
            ("De\u{200B}lete", Some("delete"), Some("delete")),
            ("Ｄｅｌｅｔｅ", Some("delete"), Some("delete")),
            ("Empty\u{00A0}Trash", Some("empty trash"), Some("empty trash")),
        ];
        for (label, want_i, want_u) in cases {
            assert_eq!(destructive_marker(label, I).map(|m| m.marker), *want_i, "interactive {label:?}");
            assert_eq!(destructive_marker(label, U).map(|m| m.marker), *want_u, "unattended {label:?}");
        }
    }

    #[test]
    fn kinds() {
        let k = |l: &str| destructive_marker(l, U).map(|m| m.kind);
        assert_eq!(k("Delete"), Some(RemovalKind::Delete));
        assert_eq!(k("Uninstall"), Some(RemovalKind::Uninstall));
        assert_eq!(k("Empty Trash"), Some(RemovalKind::Trash));
        assert_eq!(k("Trash"), Some(RemovalKind::Trash));
        assert_eq!(k("Format"), Some(RemovalKind::Format));
    }

    #[test]
    fn intent_backing() {
        use RemovalKind::*;
        let cases: &[(&str, RemovalKind, bool)] = &[
            ("delete my old account", Delete, true),
            ("Please DELETE the draft", Delete, true),
            ("remove the old photos", Delete, true),
            ("erase the whiteboard", Delete, true),
            ("get rid of the duplicates", Delete, true),
            ("ลบไฟล์นี้", Delete, true),
            ("ช่วยเอาออกให้หน่อย", Delete, true),
            ("open settings", Delete, false),
            ("", Delete, false),
            ("   ", Delete, false),
            ("undelete my file", Delete, false),
            ("don't delete anything", Delete, false),
            ("do not remove the folder", Delete, false),
            ("tidy the desktop without deleting files", Delete, false),
            ("no, delete it", Delete, true),
            ("don't touch the photos; delete the drafts", Delete, true),
            ("อย่าลบไฟล์", Delete, false),
            ("ไม่ต้องลบ", Delete, false),
            ("uninstall zoom", Delete, false),
            ("uninstall zoom", Uninstall, true),
            ("remove zoom from this computer", Uninstall, true),
            ("ถอนการติดตั้งโปรแกรมนี้", Uninstall, true),
            ("delete the app", Uninstall, false),
            ("empty the trash", Trash, true),
            ("move the report to the trash", Trash, true),
            ("delete the report", Trash, true),
            ("open the trash folder and don't delete", Trash, true),
            ("open settings", Trash, false),
            ("format the usb stick", Format, true),
            ("ฟอร์แมตแฟลชไดรฟ์", Format, true),
            ("find information about zoom", Format, false),
            ("open settings", Format, false),
        ];
        for (intent, kind, want) in cases {
            assert_eq!(intent_backs(intent, *kind), *want, "intent {intent:?} kind {kind:?}");
        }
    }

    #[test]
    fn verdicts() {
        let v = |labels: &[&str], mode, intent| check_destructive(labels, mode, intent);
        // Harmless in interactive mode, refused unattended.
        assert_eq!(v(&["Format…"], I, ""), DestructiveVerdict::Allowed);
        assert!(matches!(v(&["Format…"], U, ""), DestructiveVerdict::Refused { marker: "format", can_ask: false, .. }));
        assert_eq!(v(&["Trash"], I, "open settings"), DestructiveVerdict::Allowed);
        assert!(matches!(v(&["Trash"], U, "empty the trash"), DestructiveVerdict::Refused { marker: "trash", .. }));
        // "Delete account": only with an intent that asks, never unattended.
        assert!(matches!(
            v(&["Delete account"], I, "open settings"),
            DestructiveVerdict::Refused { marker: "delete", can_ask: true, .. }
        ));
        assert!(matches!(v(&["Delete account"], I, ""), DestructiveVerdict::Refused { .. }));
        assert_eq!(
            v(&["Delete account"], I, "delete my old account"),
            DestructiveVerdict::AllowedByIntent { marker: "delete" }
        );
        assert!(matches!(
            v(&["Delete account"], U, "delete my old account"),
            DestructiveVerdict::Refused { can_ask: false, .. }
        ));
        // Thai.
        assert!(matches!(v(&["ลบบัญชี"], I, "เปิดการตั้งค่า"), DestructiveVerdict::Refused { marker: "ลบ", .. }));
        assert_eq!(v(&["ลบบัญชี"], I, "ลบบัญชีเก่า"), DestructiveVerdict::AllowedByIntent { marker: "ลบ" });
        assert!(matches!(v(&["เอาออก"], U, "เอาออก"), DestructiveVerdict::Refused { .. }));
        // Every label counts (drag source and destination), and every marker in a label must be backed.
        assert!(matches!(
            v(&["report.pdf", "Move to Trash"], I, "open the report"),
            DestructiveVerdict::Refused { marker: "move to trash", .. }
        ));
        assert_eq!(
            v(&["report.pdf", "Move to Trash"], I, "move the report to the trash"),
            DestructiveVerdict::AllowedByIntent { marker: "move to trash" }
        );
        assert!(matches!(
            v(&["Delete and uninstall"], I, "delete the file"),
            DestructiveVerdict::Refused { marker: "uninstall", .. }
        ));
        assert_eq!(v(&[], U, ""), DestructiveVerdict::Allowed);
        assert_eq!(v(&["Save", "Open"], U, ""), DestructiveVerdict::Allowed);
        assert!(v(&["Save"], I, "").is_allowed());
    }

    #[test]
    fn the_delete_key_on_a_selection_is_a_removal() {
        let files = vec!["report.txt".to_string()];
        let v = check_selection_delete(&files, "Files", I, "rename the photos");
        let DestructiveVerdict::Refused { reason, can_ask: true, marker: DELETE_KEY, .. } = v else {
            panic!("expected a refusal with a person to ask: {v:?}");
        };
        assert!(reason.contains("would delete the selected \"report.txt\""), "{reason}");
        assert_eq!(
            check_selection_delete(&files, "Files", I, "delete the old report"),
            DestructiveVerdict::AllowedByIntent { marker: DELETE_KEY }
        );
        assert_eq!(
            check_selection_delete(&files, "", I, "move the report to the trash"),
            DestructiveVerdict::AllowedByIntent { marker: DELETE_KEY }
        );
        assert_eq!(
            check_selection_delete(&files, "", I, "lösche den Bericht"),
            DestructiveVerdict::AllowedByIntent { marker: DELETE_KEY }
        );
        assert!(matches!(
            check_selection_delete(&files, "", I, "don't delete anything"),
            DestructiveVerdict::Refused { .. }
        ));
        assert!(matches!(
            check_selection_delete(&files, "", U, "delete the old report"),
            DestructiveVerdict::Refused { can_ask: false, .. }
        ));
        let many: Vec<String> = (1..=5).map(|i| format!("f{i}")).collect();
        let DestructiveVerdict::Refused { reason, .. } = check_selection_delete(&many, "", U, "") else { panic!() };
        assert!(reason.contains("\"f1\", \"f2\", \"f3\" and 2 more"), "{reason}");
        let DestructiveVerdict::Refused { reason, .. } = check_selection_delete(&[], "Messages", U, "") else {
            panic!()
        };
        assert!(reason.contains("what is selected in \"Messages\""), "{reason}");
    }

    #[test]
    fn refusals_explain_themselves() {
        let DestructiveVerdict::Refused { reason, label, .. } =
            check_destructive(&["Delete account"], I, "open settings")
        else {
            panic!("expected a refusal");
        };
        assert_eq!(label, "Delete account");
        assert!(reason.contains("\"Delete account\""), "{reason}");
        assert!(reason.contains("\"delete\""), "{reason}");
        assert!(reason.contains("the user's request must ask for this removal"), "{reason}");

        let DestructiveVerdict::Refused { reason, .. } = check_destructive(&["Trash"], U, "") else {
            panic!("expected a refusal");
        };
        assert!(reason.contains("unattended mode"), "{reason}");

        let long = format!("Delete {}", "x".repeat(500));
        let DestructiveVerdict::Refused { reason, label, .. } = check_destructive(&[&long], U, "") else {
            panic!("expected a refusal");
        };
        assert_eq!(label, long);
        assert!(reason.chars().count() < 300, "{reason}");
    }
}

//! Destructive targets (SPEC §5.4): labels that announce a removal.
//!
//! The target's label (element, text target, drag source and destination) is matched against markers.
//! Interactive mode uses a deliberately short list, because "Format" menus and a Trash sidebar entry are
//! harmless while a person watches; unattended mode adds the broad words. A match in interactive mode is
//! allowed only when the user's own words (the turn intent, supplied by the host, never by the model) ask for
//! that kind of removal; in unattended mode a match is always refused. Nothing on the screen can
//! change the decision: labels are only ever matched, never interpreted.

use super::text::{normalize, squashed};
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
    /// The marker as listed (lower case), e.g. `"delete"` or `"empty trash"`.
    pub marker: &'static str,
    pub kind: RemovalKind,
}

struct Marker {
    text: &'static str,
    kind: RemovalKind,
    unattended_only: bool,
}

const fn marker(text: &'static str, kind: RemovalKind, unattended_only: bool) -> Marker {
    Marker { text, kind, unattended_only }
}

/// The markers, most specific first so the reported marker is the most telling one. The SPEC lists are
/// `delete`, `ลบ`, `remove`, `เอาออก`, `uninstall`, `empty trash`, `move to trash` (interactive) plus `trash`,
/// `erase`, `format`, `wipe` (unattended); the other entries are spellings of the same actions (the Bin
/// wording of some desktops, Thai equivalents) and only ever add refusals.
const MARKERS: &[Marker] = &[
    marker("empty trash", RemovalKind::Trash, false),
    marker("empty the trash", RemovalKind::Trash, false),
    marker("move to trash", RemovalKind::Trash, false),
    marker("move to the trash", RemovalKind::Trash, false),
    marker("empty bin", RemovalKind::Trash, false),
    marker("empty the bin", RemovalKind::Trash, false),
    marker("empty recycle bin", RemovalKind::Trash, false),
    marker("move to bin", RemovalKind::Trash, false),
    marker("move to the bin", RemovalKind::Trash, false),
    marker("uninstall", RemovalKind::Uninstall, false),
    marker("ถอนการติดตั้ง", RemovalKind::Uninstall, false),
    marker("delete", RemovalKind::Delete, false),
    marker("remove", RemovalKind::Delete, false),
    marker("ลบ", RemovalKind::Delete, false),
    marker("เอาออก", RemovalKind::Delete, false),
    marker("trash", RemovalKind::Trash, true),
    marker("ถังขยะ", RemovalKind::Trash, true),
    marker("erase", RemovalKind::Delete, true),
    marker("wipe", RemovalKind::Delete, true),
    marker("ล้างข้อมูล", RemovalKind::Delete, true),
    marker("format", RemovalKind::Format, true),
    marker("ฟอร์แมต", RemovalKind::Format, true),
];

/// Ordinary words that contain a marker only by accident: an occurrence of the marker inside one of these
/// words is not a match ("More information" is not a Format command, "Swipe" does not wipe).
const BENIGN: &[(&str, &str)] = &[("format", "informati"), ("wipe", "swipe")];

/// The first destructive marker in `label` for `mode`, if any.
///
/// Matching is case-insensitive substring matching after Unicode lower-casing, whitespace collapsing and
/// removal of invisible characters; markers in Thai are also matched with all spaces removed, since OCR
/// spaces out Thai glyph clusters.
pub fn destructive_marker(label: &str, mode: Mode) -> Option<DestructiveMatch> {
    markers_in(label, mode).into_iter().next()
}

/// Every destructive marker in `label` for `mode`, in list order (most specific first).
fn markers_in(label: &str, mode: Mode) -> Vec<DestructiveMatch> {
    let norm = normalize(label);
    if norm.is_empty() {
        return Vec::new();
    }
    let squash = squashed(&norm);
    MARKERS
        .iter()
        .filter(|m| mode == Mode::Unattended || !m.unattended_only)
        .filter(|m| {
            if m.text.is_ascii() {
                norm.match_indices(m.text).any(|(p, _)| !is_benign(&norm, p, m.text))
            } else {
                squash.contains(m.text)
            }
        })
        .map(|m| DestructiveMatch { marker: m.text, kind: m.kind })
        .collect()
}

fn is_benign(hay: &str, at: usize, needle: &str) -> bool {
    BENIGN.iter().filter(|(m, _)| *m == needle).any(|(m, word)| {
        word.find(m)
            .and_then(|offset| at.checked_sub(offset))
            .and_then(|start| hay.get(start..))
            .is_some_and(|rest| rest.starts_with(word))
    })
}

/// Words in the user's request that ask for each kind of removal. English entries are word-start prefixes
/// (`delet` covers delete, deleted, deleting, deletion); Thai entries match anywhere, Thai having no spaces.
const DELETE_WORDS: &[&str] =
    &["delet", "remov", "erase", "erasing", "wipe", "wiping", "discard", "destroy", "get rid of", "ลบ", "เอาออก", "ทิ้ง"];
const TRASH_WORDS: &[&str] = &["trash", "recycle", "wastebasket", "ถังขยะ"];
const UNINSTALL_WORDS: &[&str] = &["uninstal", "remov", "ถอนการติดตั้ง", "ถอนติดตั้ง", "เอาออก"];
const FORMAT_WORDS: &[&str] = &["format", "reformat", "ฟอร์แมต", "ฟอร์แมท"];

/// English words that negate a removal word when they occur shortly before it in the same clause
/// ("don't delete anything").
const NEGATORS: &[&str] = &[
    "not",
    "no",
    "never",
    "don't",
    "dont",
    "doesn't",
    "didn't",
    "shouldn't",
    "mustn't",
    "won't",
    "can't",
    "cannot",
    "without",
    "nothing",
    "avoid",
    "nor",
];
/// Thai negators ("อย่าลบ", "ไม่ต้องลบ", "ห้ามลบ").
const THAI_NEGATORS: &[&str] = &["อย่า", "ไม่", "ห้าม"];

/// Whether the user's own words ask for this kind of removal.
///
/// Deleting words also back Trash (deleting a file moves it there). A removal word preceded in its clause
/// by a negation ("do not delete", "อย่าลบ") does not count. An empty intent backs nothing.
pub fn intent_backs(intent: &str, kind: RemovalKind) -> bool {
    let norm = normalize(intent);
    if norm.is_empty() {
        return false;
    }
    let words: &[&[&str]] = match kind {
        RemovalKind::Delete => &[DELETE_WORDS],
        RemovalKind::Trash => &[TRASH_WORDS, DELETE_WORDS],
        RemovalKind::Uninstall => &[UNINSTALL_WORDS],
        RemovalKind::Format => &[FORMAT_WORDS],
    };
    words.iter().flat_map(|ws| ws.iter()).any(|w| asks_for(&norm, w))
}

pub(super) fn asks_for(norm: &str, word: &str) -> bool {
    let latin = word.starts_with(|c: char| c.is_ascii_alphabetic());
    norm.match_indices(word).any(|(p, _)| {
        let before = &norm[..p];
        if latin && before.chars().next_back().is_some_and(char::is_alphanumeric) {
            return false;
        }
        !is_benign(norm, p, word) && !negated(before)
    })
}

/// A negator among the last three words of the clause before the removal word (English), or within its
/// last 16 characters (Thai, written without spaces).
fn negated(before: &str) -> bool {
    let clause = before.rfind(['.', ',', ';', ':', '!', '?']).and_then(|i| before.get(i + 1..)).unwrap_or(before);
    let english = clause
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|t| !t.is_empty())
        .rev()
        .take(3)
        .any(|t| NEGATORS.contains(&t));
    let tail_start = clause.char_indices().rev().nth(15).map_or(0, |(i, _)| i);
    let tail = clause.get(tail_start..).unwrap_or(clause);
    english || THAI_NEGATORS.iter().any(|n| tail.contains(n))
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

fn refused(label: &str, m: DestructiveMatch, can_ask: bool, why: String) -> DestructiveVerdict {
    let shown: String =
        if label.chars().count() > 80 { label.chars().take(79).chain(['…']).collect() } else { label.to_string() };
    DestructiveVerdict::Refused {
        marker: m.marker,
        label: label.to_string(),
        reason: format!(
            "refusing to act on {shown:?}: its label contains the destructive marker {:?}, and {why}",
            m.marker
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

//! German. Compounds join words ("Kontolöschung", "Papierkorbleeren"), so the verb stems fit anywhere;
//! "nicht" usually ends the clause it negates ("Lösche die Datei nicht").

use super::{broad, marker, within, word, word_start, Lexicon, Negation};
use crate::guard::destructive::RemovalKind::{Delete, Format, Trash, Uninstall};

pub(super) const LEXICON: Lexicon = Lexicon {
    name: "German",
    markers: &[
        marker(within("papierkorb leeren"), Trash),
        marker(within("in den papierkorb"), Trash),
        marker(within("deinstall"), Uninstall),
        // "erlöschen" is to expire (a licence, a flame).
        marker(within("lösch").except(&["erlösch"]), Delete),
        // "Entfernung" and "entfernt" are also distance and far away.
        marker(word("entfernen"), Delete),
        marker(word("entferne"), Delete),
        marker(within("vernicht"), Delete),
        broad(within("papierkorb"), Trash),
        broad(within("radier"), Delete),
    ],
    passwords: &[within("passwort"), within("kennwort"), within("geheimzahl"), within("zugangscode")],
    intents: &[
        (Delete, within("lösch").except(&["erlösch"])),
        (Delete, word("entfernen")),
        (Delete, word("entferne")),
        (Delete, word("entfern")),
        (Delete, within("vernicht")),
        (Delete, word_start("beseitig")),
        (Trash, within("papierkorb")),
        (Uninstall, within("deinstall")),
        (Uninstall, word("entfernen")),
        (Uninstall, word("entferne")),
        (Format, within("formatier")),
    ],
    negation: Negation {
        words_before: &["nicht", "nie", "niemals", "kein", "keine", "keinen", "keines", "nichts", "ohne"],
        words_after: &["nicht", "nichts", "nie", "niemals", "keinesfalls", "kein", "keine", "keinen", "keines"],
        ..Negation::NONE
    },
};

#[cfg(test)]
mod tests {
    use super::super::testing::{intents, judged, labels, passwords};
    use crate::guard::destructive::RemovalKind::*;

    #[test]
    fn german() {
        labels(&[
            ("Konto löschen", Some("lösch"), Some("lösch")),
            ("Kontolöschung beantragen", Some("lösch"), Some("lösch")),
            ("KONTO LÖSCHEN", Some("lösch"), Some("lösch")),
            ("Lo\u{0308}schen", Some("lösch"), Some("lösch")),
            ("Entfernen", Some("entfernen"), Some("entfernen")),
            ("Deinstallieren", Some("deinstall"), Some("deinstall")),
            ("Papierkorb leeren", Some("papierkorb leeren"), Some("papierkorb leeren")),
            ("In den Papierkorb verschieben", Some("in den papierkorb"), Some("in den papierkorb")),
            ("Papierkorb", None, Some("papierkorb")),
            ("Datenträger formatieren", None, Some("format")),
            ("Speichern", None, None),
            ("Anzeigenamen ändern", None, None),
            ("Entfernung: 5 km", None, None),
            ("Lizenz erlöschen lassen", None, None),
        ]);
        intents(&[
            ("lösche mein Konto", Delete, true),
            ("Bitte das Konto löschen", Delete, true),
            ("entferne die Datei", Delete, true),
            ("lösche nichts", Delete, false),
            ("Lösche die Datei nicht", Delete, false),
            ("nicht löschen", Delete, false),
            ("ändere meinen Anzeigenamen", Delete, false),
            ("wie weit ist die Entfernung", Delete, false),
            ("deinstalliere Zoom", Uninstall, true),
            ("leere den Papierkorb", Trash, true),
            ("formatiere den USB-Stick", Format, true),
        ]);
        passwords(&[("Kennwort", true), ("Passwort bestätigen", true), ("Benutzername", false), ("E-Mail", false)]);
        judged("Konto löschen", "lösche mein Konto", "ändere meinen Anzeigenamen");
    }
}

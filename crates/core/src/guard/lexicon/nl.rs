//! Dutch: inflected verbs matched from the start of a word; "niet" usually follows the verb it negates.

use super::{broad, marker, within, word, word_start, Lexicon, Negation};
use crate::guard::destructive::RemovalKind::{Delete, Format, Trash, Uninstall};

pub(super) const LEXICON: Lexicon = Lexicon {
    name: "Dutch",
    markers: &[
        marker(within("prullenbak legen"), Trash),
        marker(within("prullenbak leegmaken"), Trash),
        marker(within("naar prullenbak"), Trash),
        marker(within("naar de prullenbak"), Trash),
        marker(word_start("de-install"), Uninstall),
        marker(word_start("deïnstall"), Uninstall),
        marker(word_start("verwijder"), Delete),
        broad(within("prullenbak"), Trash),
        // "wissen" is also German for "to know": only the Dutch imperative.
        broad(word("wis"), Delete),
    ],
    passwords: &[within("wachtwoord"), within("pincode")],
    intents: &[
        (Delete, word_start("verwijder")),
        (Delete, word("wis")),
        (Trash, within("prullenbak")),
        (Uninstall, word_start("de-install")),
        (Uninstall, word_start("deïnstall")),
        (Uninstall, word_start("verwijder")),
        (Format, word_start("formatter")),
    ],
    negation: Negation {
        words_before: &["niet", "nooit", "geen", "zonder", "niets"],
        words_after: &["niet", "nooit"],
        ..Negation::NONE
    },
};

#[cfg(test)]
mod tests {
    use super::super::testing::{intents, judged, labels, passwords};
    use crate::guard::destructive::RemovalKind::*;

    #[test]
    fn dutch() {
        labels(&[
            ("Account verwijderen", Some("verwijder"), Some("verwijder")),
            ("Verwijderen", Some("verwijder"), Some("verwijder")),
            ("De-installeren", Some("de-install"), Some("de-install")),
            ("Prullenbak legen", Some("prullenbak legen"), Some("prullenbak legen")),
            ("Prullenbak", None, Some("prullenbak")),
            ("Wis geschiedenis", None, Some("wis")),
            ("Opslaan", None, None),
            ("Weergavenaam wijzigen", None, None),
            ("Wiskunde", None, None),
        ]);
        intents(&[
            ("verwijder mijn account", Delete, true),
            ("verwijder het bestand niet", Delete, false),
            ("niet verwijderen", Delete, false),
            ("wijzig mijn weergavenaam", Delete, false),
            ("de-installeer zoom", Uninstall, true),
            ("leeg de prullenbak", Trash, true),
            ("formatteer de usb-stick", Format, true),
        ]);
        passwords(&[("Wachtwoord", true), ("Gebruikersnaam", false)]);
        judged("Account verwijderen", "verwijder mijn account", "wijzig mijn weergavenaam");
    }
}

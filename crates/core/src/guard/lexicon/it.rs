//! Italian: inflected verbs and nouns, matched from the start of a word.

use super::{broad, marker, within, word_start, Lexicon, Negation};
use crate::guard::destructive::RemovalKind::{Delete, Format, Trash, Uninstall};

pub(super) const LEXICON: Lexicon = Lexicon {
    name: "Italian",
    markers: &[
        marker(within("svuota il cestino"), Trash),
        marker(within("svuota cestino"), Trash),
        marker(within("sposta nel cestino"), Trash),
        marker(word_start("disinstall"), Uninstall),
        marker(word_start("elimina"), Delete),
        marker(word_start("eliminazion"), Delete),
        // The English "cancellation" starts the same way.
        marker(word_start("cancella").except(&["cancellation"]), Delete),
        marker(word_start("rimuov"), Delete),
        marker(word_start("rimozion"), Delete),
        broad(word_start("cestino"), Trash),
    ],
    passwords: &[within("password"), within("parola d'ordine"), within("codice segreto")],
    intents: &[
        (Delete, word_start("elimin")),
        (Delete, word_start("cancella").except(&["cancellation"])),
        (Delete, word_start("cancelli")),
        (Delete, word_start("rimuov")),
        (Delete, word_start("rimozion")),
        (Delete, word_start("togli")),
        (Trash, word_start("cestino")),
        (Uninstall, word_start("disinstall")),
        (Format, word_start("formatt")),
    ],
    negation: Negation { words_before: &["non", "mai", "senza", "niente", "nulla", "né"], ..Negation::NONE },
};

#[cfg(test)]
mod tests {
    use super::super::testing::{intents, judged, labels, passwords};
    use crate::guard::destructive::RemovalKind::*;

    #[test]
    fn italian() {
        labels(&[
            // Spanish lists the same stem first.
            ("Elimina account", Some("elimin"), Some("elimin")),
            ("Cancella cronologia", Some("cancella"), Some("cancella")),
            ("Rimuovi", Some("rimuov"), Some("rimuov")),
            ("Disinstalla", Some("disinstall"), Some("disinstall")),
            ("Svuota il cestino", Some("svuota il cestino"), Some("svuota il cestino")),
            ("Cestino", None, Some("cestino")),
            ("Formatta disco", None, Some("format")),
            ("Salva", None, None),
            ("Modifica nome visualizzato", None, None),
            ("Cancellation policy", None, None),
        ]);
        intents(&[
            ("elimina il mio account", Delete, true),
            ("cancella questo file", Delete, true),
            ("non cancellare niente", Delete, false),
            ("modifica il mio nome visualizzato", Delete, false),
            ("read the cancellation policy", Delete, false),
            ("disinstalla zoom", Uninstall, true),
            ("svuota il cestino", Trash, true),
            ("formatta la chiavetta", Format, true),
        ]);
        passwords(&[("Password", true), ("Nome utente", false)]);
        judged("Elimina account", "elimina il mio account", "modifica il mio nome visualizzato");
    }
}

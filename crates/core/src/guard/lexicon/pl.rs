//! Polish: inflected verbs and nouns, matched from the start of a word.

use super::{broad, marker, within, word, word_start, Lexicon, Negation};
use crate::guard::destructive::RemovalKind::{Delete, Format, Trash, Uninstall};

pub(super) const LEXICON: Lexicon = Lexicon {
    name: "Polish",
    markers: &[
        marker(within("opróżnij kosz"), Trash),
        marker(within("przenieś do kosza"), Trash),
        marker(word_start("odinstal"), Uninstall),
        // usuń, usunąć, usunięcie, usuwanie.
        marker(word_start("usuń"), Delete),
        marker(word_start("usun"), Delete),
        marker(word_start("usuw"), Delete),
        // kosz, do kosza, w koszu; not "koszyk" (the shopping cart), "koszt" (cost) or "koszulka".
        broad(word("kosz"), Trash),
        broad(word_start("kosza"), Trash),
        broad(word("koszu"), Trash),
        broad(word_start("wymaż"), Delete),
        broad(word_start("wymaz"), Delete),
        broad(word_start("sformatuj"), Format),
    ],
    passwords: &[word_start("hasł"), word_start("haseł"), word_start("hasło")],
    intents: &[
        (Delete, word_start("usuń")),
        (Delete, word_start("usun")),
        (Delete, word_start("usuw")),
        (Delete, word_start("skasuj")),
        (Delete, word_start("wykasuj")),
        (Trash, word("kosz")),
        (Trash, word_start("kosza")),
        (Trash, word("koszu")),
        (Uninstall, word_start("odinstal")),
        (Format, word_start("sformatuj")),
        (Format, word_start("formatuj")),
    ],
    negation: Negation { words_before: &["nie", "nigdy", "bez", "nic", "ani"], ..Negation::NONE },
};

#[cfg(test)]
mod tests {
    use super::super::testing::{intents, judged, labels, passwords};
    use crate::guard::destructive::RemovalKind::*;

    #[test]
    fn polish() {
        labels(&[
            ("Usuń konto", Some("usuń"), Some("usuń")),
            ("USUŃ", Some("usuń"), Some("usuń")),
            ("Usunięcie konta", Some("usun"), Some("usun")),
            ("Odinstaluj", Some("odinstal"), Some("odinstal")),
            ("Opróżnij kosz", Some("opróżnij kosz"), Some("opróżnij kosz")),
            ("Kosz", None, Some("kosz")),
            ("Sformatuj dysk", None, Some("format")),
            ("Zapisz", None, None),
            ("Dodaj do koszyka", None, None),
            ("Koszt dostawy", None, None),
            ("Koszulka", None, None),
            ("Przenieś do kosza", Some("przenieś do kosza"), Some("przenieś do kosza")),
            ("Zmień nazwę wyświetlaną", None, None),
        ]);
        intents(&[
            ("usuń moje konto", Delete, true),
            ("skasuj ten plik", Delete, true),
            ("nie usuwaj niczego", Delete, false),
            ("zmień moją nazwę wyświetlaną", Delete, false),
            ("odinstaluj zoom", Uninstall, true),
            ("opróżnij kosz", Trash, true),
            ("sformatuj pendrive", Format, true),
        ]);
        passwords(&[("Hasło", true), ("Powtórz hasło", true), ("Nazwa użytkownika", false)]);
        judged("Usuń konto", "usuń moje konto", "zmień moją nazwę wyświetlaną");
    }
}

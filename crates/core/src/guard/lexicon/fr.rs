//! French: inflected verbs and nouns, matched from the start of a word.

use super::{broad, marker, within, word_start, Lexicon, Negation};
use crate::guard::destructive::RemovalKind::{Delete, Format, Trash, Uninstall};

pub(super) const LEXICON: Lexicon = Lexicon {
    name: "French",
    markers: &[
        marker(within("vider la corbeille"), Trash),
        marker(within("mettre à la corbeille"), Trash),
        marker(within("placer dans la corbeille"), Trash),
        marker(within("déplacer vers la corbeille"), Trash),
        marker(word_start("désinstall"), Uninstall),
        marker(word_start("supprim"), Delete),
        marker(word_start("suppression"), Delete),
        marker(word_start("effac"), Delete),
        marker(word_start("retirer"), Delete),
        marker(word_start("enlever"), Delete),
        broad(word_start("corbeille"), Trash),
    ],
    passwords: &[within("mot de passe"), within("code secret"), within("code confidentiel")],
    intents: &[
        (Delete, word_start("supprim")),
        (Delete, word_start("suppression")),
        (Delete, word_start("effac")),
        (Delete, word_start("retirer")),
        (Delete, word_start("retirez")),
        (Delete, word_start("enlev")),
        (Trash, word_start("corbeille")),
        (Uninstall, word_start("désinstall")),
        (Format, word_start("format").except(&["information"])),
    ],
    // "ne supprime pas", "ne pas supprimer", "sans supprimer"; "n'efface" elides "ne".
    negation: Negation {
        words_before: &["ne", "n'", "pas", "jamais", "sans", "rien", "aucun", "aucune", "ni"],
        ..Negation::NONE
    },
};

#[cfg(test)]
mod tests {
    use super::super::testing::{intents, judged, labels, passwords};
    use crate::guard::destructive::RemovalKind::*;

    #[test]
    fn french() {
        labels(&[
            ("Supprimer le compte", Some("supprim"), Some("supprim")),
            ("Suppression du compte", Some("suppression"), Some("suppression")),
            ("Effacer l'historique", Some("effac"), Some("effac")),
            ("Retirer de la liste", Some("retirer"), Some("retirer")),
            ("Désinstaller", Some("désinstall"), Some("désinstall")),
            ("Vider la corbeille", Some("vider la corbeille"), Some("vider la corbeille")),
            ("Corbeille", None, Some("corbeille")),
            ("Formater le disque", None, Some("format")),
            ("Enregistrer", None, None),
            ("Modifier le nom affiché", None, None),
            ("Retirement plan", None, None),
        ]);
        intents(&[
            ("supprime mon compte", Delete, true),
            ("efface ce fichier", Delete, true),
            ("ne supprime rien", Delete, false),
            ("n'efface pas mes photos", Delete, false),
            ("sans supprimer les fichiers", Delete, false),
            ("modifie mon nom affiché", Delete, false),
            ("check my retirement plan", Delete, false),
            ("désinstalle zoom", Uninstall, true),
            ("vide la corbeille", Trash, true),
            ("formate la clé usb", Format, true),
        ]);
        passwords(&[("Mot de passe", true), ("Confirmer le mot de passe", true), ("Nom d'utilisateur", false)]);
        judged("Supprimer le compte", "supprime mon compte", "modifie mon nom affiché");
    }
}

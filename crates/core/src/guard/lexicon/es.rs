//! Spanish: inflected verbs and nouns, matched from the start of a word.

use super::{broad, marker, within, word, word_start, Lexicon, Negation};
use crate::guard::destructive::RemovalKind::{Delete, Format, Trash, Uninstall};

pub(super) const LEXICON: Lexicon = Lexicon {
    name: "Spanish",
    markers: &[
        marker(within("vaciar la papelera"), Trash),
        marker(within("vaciar papelera"), Trash),
        marker(within("mover a la papelera"), Trash),
        marker(within("enviar a la papelera"), Trash),
        marker(word_start("desinstal"), Uninstall),
        marker(word_start("elimin"), Delete),
        // "borrador" is a draft.
        marker(word_start("borra").except(&["borrador"]), Delete),
        marker(word_start("borre"), Delete),
        marker(word_start("suprim"), Delete),
        marker(word_start("quitar"), Delete),
        broad(word_start("papelera"), Trash),
    ],
    // "palabra clave" is a keyword.
    passwords: &[within("contraseña"), word("clave").except(&["palabra clave", "clave de búsqueda"])],
    intents: &[
        (Delete, word_start("elimin")),
        (Delete, word_start("borra").except(&["borrador"])),
        (Delete, word_start("borre")),
        (Delete, word_start("suprim")),
        (Delete, word_start("quita")),
        (Delete, word_start("quite")),
        (Trash, word_start("papelera")),
        (Uninstall, word_start("desinstal")),
        (Format, word_start("formate")),
    ],
    negation: Negation { words_before: &["no", "nunca", "jamás", "sin", "ni", "nada"], ..Negation::NONE },
};

#[cfg(test)]
mod tests {
    use super::super::testing::{intents, judged, labels, passwords};
    use crate::guard::destructive::RemovalKind::*;

    #[test]
    fn spanish() {
        labels(&[
            ("Eliminar cuenta", Some("elimin"), Some("elimin")),
            ("Eliminación de la cuenta", Some("elimin"), Some("elimin")),
            ("Borrar", Some("borra"), Some("borra")),
            ("Suprimir", Some("suprim"), Some("suprim")),
            ("Desinstalar", Some("desinstal"), Some("desinstal")),
            ("Vaciar la papelera", Some("vaciar la papelera"), Some("vaciar la papelera")),
            ("Papelera", None, Some("papelera")),
            ("Formatear disco", None, Some("format")),
            ("Guardar borrador", None, None),
            ("Guardar", None, None),
            ("Cambiar nombre visible", None, None),
            ("Pedir prestado", None, None),
        ]);
        intents(&[
            ("elimina mi cuenta", Delete, true),
            ("borra el archivo", Delete, true),
            ("no borres nada", Delete, false),
            ("nunca elimines archivos", Delete, false),
            ("cambia mi nombre visible", Delete, false),
            ("guarda el borrador", Delete, false),
            ("desinstala zoom", Uninstall, true),
            ("vacía la papelera", Trash, true),
            ("formatea la memoria usb", Format, true),
        ]);
        passwords(&[
            ("Contraseña", true),
            ("Confirmar contraseña", true),
            ("Clave", true),
            ("Palabra clave", false),
            ("Usuario", false),
        ]);
        judged("Eliminar cuenta", "elimina mi cuenta", "cambia mi nombre visible");
    }
}

//! Ukrainian: inflected verbs and nouns, matched from the start of a word.

use super::{broad, marker, within, word_start, Lexicon, Negation};
use crate::guard::destructive::RemovalKind::{Delete, Format, Trash, Uninstall};

pub(super) const LEXICON: Lexicon = Lexicon {
    name: "Ukrainian",
    markers: &[
        marker(within("очистити кошик"), Trash),
        marker(within("перемістити в кошик"), Trash),
        marker(word_start("деінсталю"), Uninstall),
        marker(word_start("видал"), Delete),
        marker(word_start("вилуч"), Delete),
        // Also the shopping cart: "Додати в кошик" adds to it.
        broad(word_start("кошик").except(&["в кошик", "до кошика"]), Trash),
        broad(word_start("стерт"), Delete),
        broad(word_start("форматув"), Format),
    ],
    passwords: &[word_start("парол")],
    intents: &[
        (Delete, word_start("видал")),
        (Delete, word_start("вилуч")),
        (Delete, word_start("зітр")),
        (Delete, word_start("стерт")),
        (Trash, word_start("кошик")),
        (Uninstall, word_start("деінсталю")),
        (Uninstall, word_start("видал")),
        (Format, word_start("формату")),
        (Format, word_start("відформату")),
    ],
    negation: Negation { words_before: &["не", "ніколи", "без", "нічого", "ні"], ..Negation::NONE },
};

#[cfg(test)]
mod tests {
    use super::super::testing::{intents, judged, labels, passwords};
    use crate::guard::destructive::RemovalKind::*;

    #[test]
    fn ukrainian() {
        labels(&[
            ("Видалити обліковий запис", Some("видал"), Some("видал")),
            ("Вилучити", Some("вилуч"), Some("вилуч")),
            ("Очистити кошик", Some("очистити кошик"), Some("очистити кошик")),
            ("Кошик", None, Some("кошик")),
            ("Форматувати диск", None, Some("форматув")),
            ("Зберегти", None, None),
            ("Змінити відображуване ім'я", None, None),
            ("Віддалений робочий стіл", None, None),
            ("Додати в кошик", None, None),
        ]);
        intents(&[
            ("видали мій обліковий запис", Delete, true),
            ("не видаляй нічого", Delete, false),
            ("зміни моє відображуване ім'я", Delete, false),
            ("видали zoom", Uninstall, true),
            ("очисти кошик", Trash, true),
            ("відформатуй флешку", Format, true),
        ]);
        passwords(&[("Пароль", true), ("Ім'я користувача", false)]);
        judged("Видалити обліковий запис", "видали мій обліковий запис", "зміни моє відображуване ім'я");
    }
}

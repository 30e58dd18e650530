//! Russian: inflected verbs and nouns, matched from the start of a word.

use super::{broad, marker, within, word_start, Lexicon, Negation};
use crate::guard::destructive::RemovalKind::{Delete, Format, Trash, Uninstall};

pub(super) const LEXICON: Lexicon = Lexicon {
    name: "Russian",
    markers: &[
        marker(within("очистить корзину"), Trash),
        marker(within("переместить в корзину"), Trash),
        marker(word_start("деинсталл"), Uninstall),
        // "удалённый"/"удаленный" is also remote ("удалённый рабочий стол").
        marker(word_start("удал").except(&["удалённ", "удаленн"]), Delete),
        marker(word_start("стереть"), Delete),
        marker(word_start("сотри"), Delete),
        // Also the shopping cart: "Добавить в корзину" adds to it.
        broad(word_start("корзин").except(&["в корзину"]), Trash),
        broad(word_start("форматир"), Format),
    ],
    passwords: &[word_start("парол")],
    intents: &[
        (Delete, word_start("удал").except(&["удалённ", "удаленн"])),
        (Delete, word_start("стереть")),
        (Delete, word_start("сотри")),
        (Trash, word_start("корзин")),
        (Uninstall, word_start("деинсталл")),
        (Uninstall, word_start("удал").except(&["удалённ", "удаленн"])),
        (Format, word_start("форматир")),
        (Format, word_start("отформатир")),
    ],
    negation: Negation {
        words_before: &["не", "нельзя", "никогда", "без", "ничего", "ни"], ..Negation::NONE
    },
};

#[cfg(test)]
mod tests {
    use super::super::testing::{intents, judged, labels, passwords};
    use crate::guard::destructive::RemovalKind::*;

    #[test]
    fn russian() {
        labels(&[
            ("Удалить аккаунт", Some("удал"), Some("удал")),
            ("Удаление", Some("удал"), Some("удал")),
            ("Деинсталлировать", Some("деинсталл"), Some("деинсталл")),
            ("Очистить корзину", Some("очистить корзину"), Some("очистить корзину")),
            ("Корзина", None, Some("корзин")),
            ("Форматировать диск", None, Some("форматир")),
            ("Сохранить", None, None),
            ("Изменить отображаемое имя", None, None),
            ("Удалённый рабочий стол", None, None),
            ("Добавить в корзину", None, None),
        ]);
        intents(&[
            ("удали мой аккаунт", Delete, true),
            ("сотри этот файл", Delete, true),
            ("не удаляй ничего", Delete, false),
            ("измени моё отображаемое имя", Delete, false),
            ("подключись к удалённому серверу", Delete, false),
            ("удали zoom", Uninstall, true),
            ("очисти корзину", Trash, true),
            ("отформатируй флешку", Format, true),
        ]);
        passwords(&[("Пароль", true), ("Введите пароль", true), ("Имя пользователя", false)]);
        judged("Удалить аккаунт", "удали мой аккаунт", "измени моё отображаемое имя");
    }
}

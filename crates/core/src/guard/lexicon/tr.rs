//! Turkish. "sil" (delete) also starts English words ("silent", "silver"), so its forms are listed;
//! negation is a suffix of the verb itself, so its negated forms are listed ("silme", "silmeyin": don't delete). Text is folded so that
//! "SİL", "sil" and the dotless "ı" of "kaldır" compare equal.

use super::{broad, marker, within, word, word_start, Lexicon, Negation};
use crate::guard::destructive::RemovalKind::{Delete, Format, Trash, Uninstall};

pub(super) const LEXICON: Lexicon = Lexicon {
    name: "Turkish",
    markers: &[
        marker(within("çöp kutusunu boşalt"), Trash),
        marker(within("çöp kutusuna taşi"), Trash),
        marker(within("çöpe at"), Trash),
        marker(word_start("kaldir"), Delete),
        marker(word("sil"), Delete),
        marker(word_start("silin"), Delete),
        marker(word_start("silme"), Delete),
        broad(within("çöp kutusu"), Trash),
        broad(word_start("biçimlendir"), Format),
    ],
    passwords: &[word_start("şifre"), word_start("parola")],
    intents: &[
        (Delete, word("sil")),
        (Delete, word_start("silm")),
        (Delete, word_start("silin")),
        (Delete, word_start("silebil")),
        (Delete, word_start("kaldir")),
        (Trash, within("çöp")),
        (Uninstall, word_start("kaldir")),
        (Format, word_start("biçimlendir")),
        (Format, word_start("formatla")),
    ],
    negation: Negation {
        words_before: &["asla", "hiçbir", "hiç"],
        negative_words: &[
            "silme",
            "silmeyin",
            "silmeyiniz",
            "silmesin",
            "kaldirma",
            "kaldirmayin",
            "kaldirmayiniz",
            "kaldirmasin",
        ],
        ..Negation::NONE
    },
};

#[cfg(test)]
mod tests {
    use super::super::testing::{intents, judged, labels, passwords};
    use crate::guard::destructive::RemovalKind::*;

    #[test]
    fn turkish() {
        labels(&[
            ("Hesabı sil", Some("sil"), Some("sil")),
            ("SİL", Some("sil"), Some("sil")),
            ("Kaldır", Some("kaldir"), Some("kaldir")),
            ("KALDIR", Some("kaldir"), Some("kaldir")),
            ("Çöp kutusunu boşalt", Some("çöp kutusunu boşalt"), Some("çöp kutusunu boşalt")),
            ("Çöp kutusu", None, Some("çöp kutusu")),
            ("Diski biçimlendir", None, Some("biçimlendir")),
            ("Kaydet", None, None),
            ("Görünen adı değiştir", None, None),
            ("Silent mode", None, None),
            ("Silver plan", None, None),
        ]);
        intents(&[
            ("hesabımı sil", Delete, true),
            ("bu dosyayı silmek istiyorum", Delete, true),
            ("dosyayı silme", Delete, false),
            ("hiçbir şeyi silmeyin", Delete, false),
            ("görünen adımı değiştir", Delete, false),
            ("turn on silent mode", Delete, false),
            ("zoom'u kaldır", Uninstall, true),
            ("çöp kutusunu boşalt", Trash, true),
            ("usb belleği biçimlendir", Format, true),
        ]);
        passwords(&[("Şifre", true), ("Parola", true), ("Kullanıcı adı", false)]);
        judged("Hesabı sil", "hesabımı sil", "görünen adımı değiştir");
    }
}

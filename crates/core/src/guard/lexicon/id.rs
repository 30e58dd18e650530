//! Indonesian (and Malay): verbs take prefixes ("menghapus", "dihapus"), so "hapus" fits anywhere.

use super::{broad, marker, within, word, word_start, Lexicon, Negation};
use crate::guard::destructive::RemovalKind::{Delete, Format, Trash, Uninstall};

pub(super) const LEXICON: Lexicon = Lexicon {
    name: "Indonesian",
    markers: &[
        marker(within("kosongkan tempat sampah"), Trash),
        marker(within("pindahkan ke tempat sampah"), Trash),
        marker(within("buang ke tempat sampah"), Trash),
        marker(within("copot pemasangan"), Uninstall),
        marker(within("hapus instalan"), Uninstall),
        marker(within("hapus"), Delete),
        marker(word("buang"), Delete),
        marker(word_start("singkirkan"), Delete),
        broad(within("tempat sampah"), Trash),
        broad(word("sampah"), Trash),
    ],
    passwords: &[within("kata sandi"), word("sandi"), within("kata laluan")],
    intents: &[
        (Delete, within("hapus")),
        (Delete, within("buang")),
        (Delete, word_start("singkirkan")),
        (Trash, within("sampah")),
        (Uninstall, within("copot")),
        (Uninstall, within("hapus instalan")),
        (Uninstall, within("uninstal")),
        (Format, word_start("format")),
        (Format, word_start("memformat")),
    ],
    negation: Negation { words_before: &["jangan", "tidak", "tak", "tanpa", "bukan"], ..Negation::NONE },
};

#[cfg(test)]
mod tests {
    use super::super::testing::{intents, judged, labels, passwords};
    use crate::guard::destructive::RemovalKind::*;

    #[test]
    fn indonesian() {
        labels(&[
            ("Hapus akun", Some("hapus"), Some("hapus")),
            ("Menghapus", Some("hapus"), Some("hapus")),
            ("Copot pemasangan", Some("copot pemasangan"), Some("copot pemasangan")),
            ("Kosongkan tempat sampah", Some("kosongkan tempat sampah"), Some("kosongkan tempat sampah")),
            ("Tempat sampah", None, Some("tempat sampah")),
            ("Format disk", None, Some("format")),
            ("Simpan", None, None),
            ("Ubah nama tampilan", None, None),
            ("Informasi", None, None),
        ]);
        intents(&[
            ("hapus akun saya", Delete, true),
            ("tolong buang file ini", Delete, true),
            ("jangan hapus apa pun", Delete, false),
            ("ubah nama tampilan saya", Delete, false),
            ("copot zoom", Uninstall, true),
            ("kosongkan tempat sampah", Trash, true),
            ("format flashdisk", Format, true),
        ]);
        passwords(&[("Kata sandi", true), ("Sandi", true), ("Nama pengguna", false)]);
        judged("Hapus akun", "hapus akun saya", "ubah nama tampilan saya");
    }
}

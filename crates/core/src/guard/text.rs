//! Text normalisation for guard matching.
//!
//! Labels come from whatever is on the screen, possibly an attacker's page, so on top of the crate's
//! ordinary normalisation ([`crate::text::normalize`]: lower case, collapsed whitespace) guards also drop
//! invisible formatting characters and fold look-alikes a person reading the screen would not tell
//! apart: full-width and other compatibility forms, composed and decomposed accents, Turkish dotted and
//! dotless i, Arabic letter variants, vowel marks and the stretching tatweel.

use unicode_normalization::UnicodeNormalization;

/// [`crate::text::normalize`] (lower case, collapsed whitespace) of the NFKC form, after dropping
/// invisible formatting characters (zero-width spaces, joiners, bidi controls, soft hyphens) and with
/// the folds above. Every guard word list is written in this form (a test checks it).
pub(crate) fn normalize(s: &str) -> String {
    let cleaned: String = s.chars().filter(|c| !is_invisible(*c)).map(fold).collect::<String>().nfkc().collect();
    let lowered = crate::text::normalize(&cleaned);
    // After lower-casing: "İ" lower-cases to "i" + U+0307, and a Turkish "ı" reads as "i" to everyone else.
    lowered.chars().filter(|c| !is_dropped_mark(*c)).map(fold_lowered).collect()
}

/// Marks dropped after lower-casing: the dot of "İ", Arabic vowel marks and the tatweel (which only
/// stretches a word: "حـذف" is "حذف").
fn is_dropped_mark(c: char) -> bool {
    matches!(c, '\u{0307}' | '\u{0640}' | '\u{064B}'..='\u{065F}' | '\u{0670}')
}

fn fold_lowered(c: char) -> char {
    match c {
        'ı' => 'i',
        // Alef with hamza or madda: spelt with and without them interchangeably.
        'أ' | 'إ' | 'آ' | 'ٱ' => 'ا',
        _ => c,
    }
}

/// A [`normalize`]d string without any spaces: OCR puts spaces between the glyph clusters of Thai and
/// other scripts written without spaces ("ล บ"), so markers in those scripts are matched against this.
pub(crate) fn squashed(normalized: &str) -> String {
    crate::text::squash_spaces(normalized)
}

fn fold(c: char) -> char {
    match c {
        // Full-width forms of ASCII punctuation and letters.
        '\u{FF01}'..='\u{FF5E}' => char::from_u32(u32::from(c) - 0xFEE0).unwrap_or(c),
        '\u{2018}' | '\u{2019}' | '\u{02BC}' => '\'',
        _ => c,
    }
}

/// Characters that render as nothing; also refused outright in URLs.
pub(crate) fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{034F}'
            | '\u{061C}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{2069}'
            | '\u{FEFF}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_for_matching() {
        let cases = [
            ("  Delete   Account ", "delete account"),
            ("DEL\u{200B}ETE", "delete"),
            ("Ｄｅｌｅｔｅ", "delete"),
            ("Empty\u{00A0}Trash", "empty trash"),
            ("Don\u{2019}t", "don't"),
            ("เอา\u{200B}ออก", "เอาออก"),
            ("\u{202E}etelED", "eteled"),
            // Decomposed accents compose; compatibility forms fold.
            ("Lo\u{0308}schen", "löschen"),
            ("ﬁle", "file"),
            ("ｺﾞﾐ箱", "ゴミ箱"),
            // Turkish capitals and the dotless i.
            ("SİL", "sil"),
            ("KALDIR", "kaldir"),
            ("kaldır", "kaldir"),
            // Arabic: alef variants, vowel marks, tatweel.
            ("إزالة", "ازالة"),
            ("حـذف", "حذف"),
            ("حَذْف", "حذف"),
            ("", ""),
        ];
        for (input, want) in cases {
            assert_eq!(normalize(input), want, "input {input:?}");
        }
        assert_eq!(squashed(&normalize("ล บ ไฟล์")), "ลบไฟล์");
    }
}

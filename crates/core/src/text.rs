//! Small text helpers shared by matching, guards and rendering.

/// Lower-cases and collapses whitespace so labels compare the way a person reads them.
pub fn normalize(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for word in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.extend(word.chars().flat_map(char::to_lowercase));
    }
    out
}

/// True when `needle` appears in `haystack` after normalising both.
pub fn contains_normalized(haystack: &str, needle: &str) -> bool {
    let needle = normalize(needle);
    !needle.is_empty() && normalize(haystack).contains(&needle)
}

/// True when `needle` appears in `haystack` as a phrase of its own: after normalising both, an
/// occurrence counts only when it is not glued to letters or digits on either side: "Saved" is in
/// "Saved at 10:42", not in "Unsaved".
/// Scripts written without spaces (Thai, CJK) match anywhere, as they have no word boundaries to check.
pub fn contains_phrase(haystack: &str, needle: &str) -> bool {
    let needle = normalize(needle);
    if needle.is_empty() {
        return false;
    }
    let haystack = normalize(haystack);
    let glued = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() && !is_unspaced_script(c));
    let first = needle.chars().next();
    let last = needle.chars().next_back();
    haystack.match_indices(&needle).any(|(at, _)| {
        let before = haystack[..at].chars().next_back();
        let after = haystack[at + needle.len()..].chars().next();
        let open_start = !first.is_some_and(|c| c.is_alphanumeric() && !is_unspaced_script(c)) || !glued(before);
        let open_end = !last.is_some_and(|c| c.is_alphanumeric() && !is_unspaced_script(c)) || !glued(after);
        open_start && open_end
    })
}

/// Like [`contains_phrase`], for text OCR read: whitespace does not count, on either side, so the spaces
/// OCR invents inside words ("hel lo-handrail-42") or drops ("rm-rf" for "rm -rf") do not hide a phrase.
/// Everything else must match in order (case aside), and the phrase must still stand on its own where it
/// starts and ends: a space OCR read there counts as a boundary, a letter or digit glued to it does not.
pub fn contains_phrase_ignoring_spaces(haystack: &str, needle: &str) -> bool {
    let want: Vec<char> = needle.chars().filter(|c| !c.is_whitespace()).flat_map(char::to_lowercase).collect();
    let (Some(&first), Some(&last)) = (want.first(), want.last()) else {
        return false;
    };
    // The haystack's non-space characters, lower-cased, each with its position in `original`.
    let original: Vec<char> = haystack.chars().collect();
    let squashed: Vec<(char, usize)> = original
        .iter()
        .enumerate()
        .filter(|(_, c)| !c.is_whitespace())
        .flat_map(|(i, c)| c.to_lowercase().map(move |l| (l, i)))
        .collect();
    let word_char = |c: char| c.is_alphanumeric() && !is_unspaced_script(c);
    let glued = |at: Option<&char>| at.is_some_and(|&c| word_char(c));
    squashed.windows(want.len()).any(|w| {
        if !w.iter().map(|(c, _)| *c).eq(want.iter().copied()) {
            return false;
        }
        let (start, end) = (w[0].1, w[w.len() - 1].1);
        let before = start.checked_sub(1).and_then(|i| original.get(i));
        let after = original.get(end + 1);
        (!word_char(first) || !glued(before)) && (!word_char(last) || !glued(after))
    })
}

/// True when `s` holds characters of a script written without spaces (OCR may space its glyphs out).
pub fn has_unspaced_script(s: &str) -> bool {
    s.chars().any(is_unspaced_script)
}

/// Scripts that do not separate words with spaces.
fn is_unspaced_script(c: char) -> bool {
    matches!(c,
        '\u{0E00}'..='\u{0E7F}'   // Thai
        | '\u{0E80}'..='\u{0EFF}' // Lao
        | '\u{1000}'..='\u{109F}' // Myanmar
        | '\u{1780}'..='\u{17FF}' // Khmer
        | '\u{3040}'..='\u{30FF}' // Hiragana, Katakana
        | '\u{3400}'..='\u{4DBF}' // CJK extension A
        | '\u{4E00}'..='\u{9FFF}' // CJK unified
        | '\u{AC00}'..='\u{D7AF}' // Hangul syllables
    )
}

/// Removes the spaces OCR puts between Thai glyph clusters and other characters of no-space scripts, so
/// "ส วั ส ดี" compares equal to "สวัสดี".
pub fn squash_spaces(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).flat_map(char::to_lowercase).collect()
}

/// True when OCR text `read` and accessible text `known` say the same thing up to misread glyphs
/// ("Kerlanne" for "Kerianne"): the shorter fits inside the longer (spaces and case aside) with at most
/// one edit per four characters. Very short texts must fit exactly.
pub fn near_match(read: &str, known: &str) -> bool {
    /// Beyond this, texts are compared by their beginnings: a line of OCR is far shorter, and the cost
    /// grows with the product of the lengths.
    const MAX_CHARS: usize = 400;
    let a: Vec<char> = squash_spaces(read).chars().take(MAX_CHARS).collect();
    let b: Vec<char> = squash_spaces(known).chars().take(MAX_CHARS).collect();
    if a.is_empty() || b.is_empty() {
        return false;
    }
    let (short, long) = if a.len() <= b.len() { (&a, &b) } else { (&b, &a) };
    edits_to_fit(short, long) * 4 <= short.len()
}

/// True when most of what OCR read (two thirds of its letters, word by word) is in `known`, each word
/// up to a misread glyph in four: "Nulla facilisi. Nullam ลไอลไโอทเ" over a text holding "Nulla facilisi.
/// Nullam eleifend" is that text with its tail garbled. Words of fewer than three letters do not count
/// either way: OCR makes them of specks and icons.
pub fn mostly_known(read: &str, known: &str) -> bool {
    let known: Vec<char> = squash_spaces(known).chars().collect();
    let (mut found, mut total) = (0usize, 0usize);
    for word in read.split_whitespace() {
        let word: Vec<char> = word.chars().flat_map(char::to_lowercase).collect();
        if word.len() < 3 {
            continue;
        }
        total += word.len();
        if edits_to_fit(&word, &known) * 4 <= word.len() {
            found += word.len();
        }
    }
    total > 0 && found * 3 >= total * 2
}

/// The fewest single-character edits (insert, delete, replace) that turn `needle` into some stretch of
/// `haystack` (Sellers' approximate substring match: the stretch may start and end anywhere).
fn edits_to_fit(needle: &[char], haystack: &[char]) -> usize {
    let mut prev = vec![0usize; haystack.len() + 1];
    for (i, &n) in needle.iter().enumerate() {
        let mut cur = vec![i + 1; haystack.len() + 1];
        for (j, &h) in haystack.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(n != h)).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev.into_iter().min().unwrap_or(needle.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes() {
        assert_eq!(normalize("  Save \n As…  "), "save as…");
        assert!(contains_normalized("Delete  Account", "delete account"));
        assert!(!contains_normalized("anything", "  "));
        assert_eq!(squash_spaces("ส วั ส ดี"), "สวัสดี");
        assert!(contains_phrase("Saved at 10:42", "saved"));
        assert!(!contains_phrase("Unsaved changes", "Saved"));
        assert!(!contains_phrase("Draft", "raft"));
        assert!(contains_phrase("Status: saved.", "saved"));
        assert!(contains_phrase("ยินดีต้อนรับสู่ระบบ", "ต้อนรับ"));
        assert!(contains_phrase("Order #123 placed", "#123"));
        assert!(!contains_phrase("anything", ""));
    }

    #[test]
    fn near_matches_forgive_a_misread_glyph_in_four() {
        assert!(near_match("Kerlanne", "Kerianne"));
        assert!(near_match("Ker ianne", "kerianne"));
        assert!(near_match("| Kerianne", "Kerianne"), "a border read as a glyph");
        assert!(near_match("Kerlanne", "Kerianne Smith"), "a clipped line inside a longer text");
        assert!(near_match("Guinea", "Guinea"));
        assert!(!near_match("Norway", "Guinea"));
        assert!(!near_match("Kxrlxnne", "Kerianne"), "three edits in eight characters");
        assert!(!near_match("4Z", "42"), "short texts fit exactly or not at all");
        assert!(near_match("42", "42"));
        assert!(!near_match("", "x") && !near_match("x", " "));
        let text = "Morbi vel elit erat.\nNulla facilisi. Nullam eleifend lobortis nisl";
        assert!(mostly_known("Nulla facilisi. Nullam ลไอลไโอทเ", text));
        assert!(mostly_known("Nul1a faci1isi", text));
        assert!(!mostly_known("Nulla tempor sagittis quam dignissim", text), "one known word in five");
        assert!(!mostly_known("| v", text), "specks are not words");
        assert_eq!(edits_to_fit(&['a', 'b'], &[]), 2);
        assert_eq!(edits_to_fit(&[], &['a']), 0);
    }

    #[test]
    fn ocr_spacing_is_tolerated_and_letters_are_not() {
        assert!(contains_phrase_ignoring_spaces("hel lo-handrail-42", "hello-handrail-42"));
        assert!(contains_phrase_ignoring_spaces("$ rm-rf /tmp/x", "rm -rf"));
        assert!(contains_phrase_ignoring_spaces("word-4 2-ok done", "WORD-42-OK"));
        assert!(!contains_phrase_ignoring_spaces("hel lo-handrai 1-42", "hello-handrail-42"));
        assert!(!contains_phrase_ignoring_spaces("word-42-ok", "word-24-ok"));
        assert!(!contains_phrase_ignoring_spaces("Unsaved", "saved"));
        assert!(contains_phrase_ignoring_spaces("Un saved", "saved"), "a space OCR read is a boundary");
        assert!(!contains_phrase_ignoring_spaces("word-42-okay", "word-42-ok"));
        assert!(contains_phrase_ignoring_spaces("(word-42-ok)", "word-42-ok"));
        assert!(!contains_phrase_ignoring_spaces("anything", " \t"));
        // Case folding that changes length (İ lower-cases to two characters) keeps positions straight.
        assert!(contains_phrase_ignoring_spaces("İ x", "x"));
    }
}

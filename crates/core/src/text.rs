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
}

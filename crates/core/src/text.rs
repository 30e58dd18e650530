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
    }
}

//! From Tesseract's words to the labels a person sees: garbage dropped, words on one text row joined while
//! they are close, separate labels in a row ("File   Edit   View") kept apart, Thai glyph tokens joined
//! back into words.

use handrail_platform::OcrLine;

use crate::engine::Word;

/// Knobs for [`group`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct LayoutParams {
    /// Words below this confidence are dropped unless they look like real words (see [`plausible`]).
    pub min_confidence: f32,
    /// A gap wider than this many row heights starts a new label.
    pub max_gap: f32,
    /// A lone prompt sign (`$`, `#`, `%`, `>`, `❯`, `➜`) is a label: in a terminal it is the prompt row
    /// a bare prompt stands on, the row the next line is typed into.
    pub prompts: bool,
}

impl Default for LayoutParams {
    fn default() -> Self {
        Self { min_confidence: 60.0, max_gap: 1.0, prompts: false }
    }
}

/// What a shell's prompt ends with.
const PROMPT_SIGNS: [char; 6] = ['$', '#', '%', '>', '❯', '➜'];

/// Words less tall than this (frame pixels) are decorations (window-button glyphs, separators,
/// underlines), not text — except Thai marks, which are small and come back as tokens of their own.
const MIN_HEIGHT: u32 = 5;

/// Thai block (U+0E00–U+0E7F).
pub(crate) fn is_thai(c: char) -> bool {
    ('\u{0E00}'..='\u{0E7F}').contains(&c)
}

/// Thai vowel signs and tone marks that sit above or below a consonant: a token starting with one is
/// the tail of the previous glyph cluster, never a word of its own.
fn is_thai_combining(c: char) -> bool {
    matches!(c, '\u{0E31}' | '\u{0E34}'..='\u{0E3A}' | '\u{0E47}'..='\u{0E4E}')
}

/// Whether a recognised word is text rather than an icon, border or noise read as glyphs.
///
/// Confident words stay; low-confidence ones (Tesseract's confidence is low on small UI fonts even when the
/// word is right) only when they look like words: four or more letters of one script. Thai tokens (one
/// glyph cluster each, with jittery confidences — the last syllable of a correct line can score 9) stay
/// whatever their confidence: the label they end up in is judged as a whole (see [`group`]).
/// Mostly-symbol strings ("{=}", "(6)") need a high confidence, and boxes too flat or far too wide for
/// their characters (a title bar's gradient read as "[A" across its whole width) are never text.
pub(crate) fn plausible(word: &Word, min_confidence: f32) -> bool {
    let b = &word.bounds;
    let chars = word.text.chars().count().max(1);
    let thai = word.text.chars().filter(|&c| is_thai(c)).count();
    if b.height < MIN_HEIGHT && thai == 0 {
        return false;
    }
    if u64::from(b.width) > 3 * u64::from(b.height.max(MIN_HEIGHT)) * chars as u64 {
        return false;
    }
    if thai == chars {
        return true;
    }
    let alnum = word.text.chars().filter(|&c| c.is_alphanumeric() || is_thai(c)).count();
    if alnum * 2 < chars {
        return word.confidence >= 85.0;
    }
    if word.confidence >= min_confidence {
        return true;
    }
    if word.confidence < min_confidence / 2.0 {
        return false;
    }
    let letters = word.text.chars().filter(|&c| c.is_alphabetic()).count();
    letters >= 4 && letters * 10 >= chars * 9
}

/// Whether a reading in another language reads as words of that language, not as glyphs made to fit
/// it: mostly letters (Thai digits, punctuation and symbols are what toolbar icons come back as in
/// Thai: "๐๑๑อ๑๐๑๑๐", "ง๒๐๑๑ =", "พ [ว") with a run of two or more somewhere.
pub(crate) fn reads_as_words(words: &[Word]) -> bool {
    let (mut letters, mut all, mut longest) = (0usize, 0usize, 0usize);
    for w in words {
        let mut run = 0;
        for c in w.text.chars().filter(|c| !c.is_whitespace()) {
            all += 1;
            // Thai tone marks are not alphabetic; they sit on a letter and count with it.
            if c.is_alphabetic() || ('\u{0E48}'..='\u{0E4B}').contains(&c) {
                letters += 1;
                run += 1;
                longest = longest.max(run);
            } else {
                run = 0;
            }
        }
    }
    all > 0 && letters * 10 >= all * 7 && longest >= 2
}

/// Words the primary language read this badly are worth reading again in the other languages: eng reads a
/// line of Thai as one or two "words" of Latin soup at confidence 0–20, while real English UI text scores
/// 80–97.
pub(crate) const RETRY_CONFIDENCE: f32 = 50.0;

/// Spans (in the words' coordinates) to re-read in other languages, each with the indices of the words
/// it replaces: poorly read words at least 1.2 row heights wide (narrower ones alone are icons read as
/// glyphs), merged with poorly read neighbours of any width on the same row (the primary cuts a line of
/// another script into pieces, the last syllable often a narrow one). Spans less than `min_height` tall
/// are dropped: a row of window buttons reads as confident Thai, real Thai lines are taller (marks).
/// Poorly read is below `below` (0–100; [`RETRY_CONFIDENCE`] for the other languages).
pub(crate) fn retry_spans(words: &[Word], min_height: u32, below: f32) -> Vec<(handrail_platform::Rect, Vec<usize>)> {
    let wide = |i: usize| {
        let b = &words[i].bounds;
        u64::from(b.width) * 5 >= u64::from(b.height) * 6
    };
    let mut order: Vec<usize> = (0..words.len()).filter(|&i| words[i].confidence < below).collect();
    order.sort_by_key(|&i| (words[i].bounds.x, words[i].bounds.y));
    let mut spans: Vec<(handrail_platform::Rect, Vec<usize>)> = Vec::new();
    let mut taken = vec![false; words.len()];
    // Horizontal gap between two boxes on one row (negative when they overlap), and whether they join.
    let near = |a: &handrail_platform::Rect, wa: &Word, b: &handrail_platform::Rect, wb: &Word| {
        let gap = (i64::from(b.x) - a.right()).max(i64::from(a.x) - b.right());
        same_row(wa, wb) && gap <= i64::from(a.height.max(b.height))
    };
    for &i in &order {
        if !wide(i) {
            continue;
        }
        taken[i] = true;
        match spans.iter_mut().find(|(s, m)| near(s, &words[m[0]], &words[i].bounds, &words[i])) {
            Some((span, members)) => {
                *span = span.union(&words[i].bounds);
                members.push(i);
            }
            None => spans.push((words[i].bounds, vec![i])),
        }
    }
    // Narrow poor words join a span they touch (repeatedly: each one may bring the next in reach).
    loop {
        let mut changed = false;
        for &i in &order {
            if taken[i] {
                continue;
            }
            if let Some((span, members)) =
                spans.iter_mut().find(|(s, m)| near(s, &words[m[0]], &words[i].bounds, &words[i]))
            {
                *span = span.union(&words[i].bounds);
                members.push(i);
                taken[i] = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    spans.retain(|(s, _)| s.height >= min_height);
    for (_, members) in &mut spans {
        members.sort_unstable();
    }
    spans.sort_by_key(|(s, _)| (s.y, s.x));
    spans
}

/// Groups `words` (frame coordinates) into labels, in reading order (top to bottom, left to right).
pub(crate) fn group(words: &[Word], params: LayoutParams) -> Vec<OcrLine> {
    let kept: Vec<&Word> = words.iter().filter(|w| plausible(w, params.min_confidence)).collect();
    let n = kept.len();
    // Union-find over "same row and close enough": labels are chains of words, so pairwise links suffice.
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let mut order: Vec<usize> = (0..n).collect();
    // Left to right; a Thai mark sharing its consonant's left edge goes after it.
    order.sort_by_key(|&i| (kept[i].bounds.x, starts_with_mark(&kept[i].text), kept[i].bounds.y));
    for (oi, &i) in order.iter().enumerate() {
        let a = &kept[i].bounds;
        for &j in &order[oi + 1..] {
            let b = &kept[j].bounds;
            let gap = i64::from(b.x) - a.right();
            let height = a.height.max(b.height) as f32;
            if gap as f32 > params.max_gap * height {
                // Sorted by left edge: later words start even further right — unless `a` is unusually
                // wide, so keep scanning only while the next one still starts inside `a` plus a gap.
                if i64::from(b.x) > a.right() + (params.max_gap * 4.0 * height) as i64 {
                    break;
                }
                continue;
            }
            if same_row(kept[i], kept[j]) {
                let (ra, rb) = (find(&mut parent, i), find(&mut parent, j));
                if ra != rb {
                    parent[ra] = rb;
                }
            }
        }
    }
    let mut groups: Vec<Vec<&Word>> = Vec::new();
    let mut root_group: Vec<Option<usize>> = vec![None; n];
    for &i in &order {
        let r = find(&mut parent, i);
        let g = *root_group[r].get_or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[g].push(kept[i]);
    }
    let mut lines: Vec<OcrLine> = groups.iter().filter_map(|g| label(g)).filter(|l| worth_a_label(l, params)).collect();
    lines.sort_by_key(|l| (l.bounds.y, l.bounds.x));
    lines
}

fn starts_with_mark(text: &str) -> bool {
    text.chars().next().is_some_and(is_thai_combining)
}

/// Whether a label is worth reporting. A lone character is usually an icon read as a glyph (window
/// buttons come back as "o", "=" or a Thai consonant): keep only a confident ASCII letter or digit ("x",
/// "7"). A label with Thai in it must be confident as a whole (its tokens are not judged one by one).
fn worth_a_label(line: &OcrLine, params: LayoutParams) -> bool {
    let mut chars = line.text.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if params.prompts && PROMPT_SIGNS.contains(&c) => line.confidence >= params.min_confidence,
        (Some(c), None) => c.is_ascii_alphanumeric() && line.confidence >= 80.0,
        _ => !line.text.chars().any(is_thai) || line.confidence >= params.min_confidence,
    }
}

/// Two words on the same text row: their vertical extents overlap by at least half the smaller one
/// (Thai marks make boxes taller, but never shift them by half a line). A lone Thai mark token sits above
/// or below its consonant, so it only needs to lie within half a row of the other word.
fn same_row(a: &Word, b: &Word) -> bool {
    let (ra, rb) = (&a.bounds, &b.bounds);
    let top = i64::from(ra.y).max(i64::from(rb.y));
    let bottom = ra.bottom().min(rb.bottom());
    if (bottom - top) * 2 >= i64::from(ra.height.min(rb.height)) {
        return true;
    }
    let (mark, base) = match (starts_with_mark(&a.text), starts_with_mark(&b.text)) {
        (true, false) => (ra, rb),
        (false, true) => (rb, ra),
        _ => return false,
    };
    let slack = i64::from(base.height / 2);
    i64::from(mark.y) >= i64::from(base.y) - slack && mark.bottom() <= base.bottom() + slack
}

/// One label from words sorted left to right.
fn label(words: &[&Word]) -> Option<OcrLine> {
    let first = words.first()?;
    let row_height = words.iter().map(|w| w.bounds.height).max().unwrap_or(1).max(1) as f32;
    let mut text = String::new();
    let mut bounds = first.bounds;
    let mut prev: Option<&Word> = None;
    let (mut conf_sum, mut chars) = (0.0f32, 0usize);
    for w in words {
        if let Some(p) = prev {
            let gap = (i64::from(w.bounds.x) - p.bounds.right()) as f32;
            if !joins_without_space(&p.text, &w.text, gap, row_height) {
                text.push(' ');
            }
            bounds = bounds.union(&w.bounds);
        }
        text.push_str(&w.text);
        let n = w.text.chars().count();
        conf_sum += w.confidence * n as f32;
        chars += n;
        prev = Some(w);
    }
    Some(OcrLine { text, bounds, confidence: if chars == 0 { 0.0 } else { conf_sum / chars as f32 } })
}

/// Thai is written without spaces between words and Tesseract returns it one glyph cluster per token:
/// adjacent Thai tokens join directly. Gaps between clusters of one word reach a third of the row height
/// at UI sizes — as wide as a phrase-breaking space — so only a clearly wider gap (half the row height)
/// keeps a space: a missing phrase break costs less than a space inside a word. A token that starts
/// with a combining mark always joins.
fn joins_without_space(left: &str, right: &str, gap: f32, row_height: f32) -> bool {
    let (Some(l), Some(r)) = (left.chars().last(), right.chars().next()) else {
        return false;
    };
    if is_thai_combining(r) {
        return true;
    }
    is_thai(l) && is_thai(r) && gap <= row_height * 0.5
}

#[cfg(test)]
mod tests {
    use super::*;
    use handrail_platform::Rect;

    fn w(text: &str, x: i32, y: i32, width: u32, height: u32, confidence: f32) -> Word {
        Word { text: text.to_owned(), bounds: Rect::new(x, y, width, height), confidence }
    }

    #[test]
    fn another_languages_reading_counts_when_it_reads_as_words() {
        let read = |texts: &[&str]| {
            let words: Vec<Word> = texts.iter().map(|t| w(t, 0, 0, 40, 20, 90.0)).collect();
            reads_as_words(&words)
        };
        // Thai as Thai is read: marks and tone marks included, short words too.
        assert!(read(&["ภาษาไทยเป็นภาษาที่สวยงาม"]));
        assert!(read(&["ปิด", "หน้าต่าง"]));
        assert!(read(&["Größe", "ändern"]));
        // Icons read as Thai digits, symbols and lone letters are not.
        for junk in [&["๐๑๑อ๑๐๑๑๐"][..], &["ง๒๐๑๑", "="], &["พ", "[ว"], &["ไฟซ่", "%", "%", "บ", "oo", "ม", "0", "[7"]]
        {
            assert!(!read(junk), "{junk:?}");
        }
        assert!(!read(&[]));
    }

    fn texts(lines: &[OcrLine]) -> Vec<&str> {
        lines.iter().map(|l| l.text.as_str()).collect()
    }

    #[test]
    fn close_words_join_and_far_labels_split() {
        let words = [
            w("File", 10, 5, 24, 12, 95.0),
            w("Edit", 70, 5, 22, 12, 95.0),
            w("View", 130, 5, 28, 12, 95.0),
            w("Save", 300, 5, 26, 12, 90.0),
            w("as", 330, 8, 12, 9, 90.0),
            w("copy", 346, 8, 26, 12, 90.0),
        ];
        let lines = group(&words, LayoutParams::default());
        assert_eq!(texts(&lines), ["File", "Edit", "View", "Save as copy"]);
        assert_eq!(lines[3].bounds, Rect::new(300, 5, 72, 15));
    }

    #[test]
    fn rows_stay_apart_and_come_in_reading_order() {
        let words = [
            w("second", 10, 40, 50, 12, 90.0),
            w("line", 64, 40, 30, 12, 90.0),
            w("first", 10, 20, 40, 12, 90.0),
            w("row", 54, 21, 30, 12, 90.0),
        ];
        assert_eq!(texts(&group(&words, LayoutParams::default())), ["first row", "second line"]);
    }

    #[test]
    fn thai_tokens_join_without_spaces() {
        // "ภาษาไทย ดี": glyph clusters close together, then a wide space, then a token led by a vowel mark.
        let words = [
            w("ภา", 10, 10, 14, 16, 70.0),
            w("ษา", 25, 10, 14, 16, 70.0),
            w("ไท", 40, 10, 14, 16, 70.0),
            w("ย", 55, 10, 7, 16, 70.0),
            w("ด", 72, 10, 7, 16, 70.0),
            w("ี", 79, 6, 5, 5, 30.0),
        ];
        let lines = group(&words, LayoutParams::default());
        assert_eq!(texts(&lines), ["ภาษาไทย ดี"]);

        // A badly read last syllable stays with its confident line; a label of badly read Thai goes.
        let words = [
            w("สวยงา", 10, 10, 40, 16, 95.0),
            w("ม", 51, 10, 7, 16, 9.0),
            w("เณ", 200, 10, 14, 16, 40.0),
            w("ธา", 215, 10, 14, 16, 35.0),
        ];
        assert_eq!(texts(&group(&words, LayoutParams::default())), ["สวยงาม"]);
    }

    #[test]
    fn english_next_to_thai_keeps_its_space() {
        let words = [w("OK", 10, 10, 16, 12, 90.0), w("ตกลง", 29, 9, 30, 14, 80.0)];
        assert_eq!(texts(&group(&words, LayoutParams::default())), ["OK ตกลง"]);
    }

    #[test]
    fn garbage_is_dropped_but_plausible_words_stay() {
        let words = [
            w("|", 5, 5, 2, 12, 60.0),
            w("~=-", 30, 5, 10, 12, 35.0),
            w("Settings", 100, 5, 50, 12, 30.0),
            w("Xq", 200, 5, 12, 12, 25.0),
            w("ok", 300, 5, 12, 12, 5.0),
            w("-", 400, 5, 10, 3, 95.0),
            w("o", 420, 5, 6, 2, 90.0),
            w("(6)", 440, 5, 12, 20, 60.0),
            w("[A", 460, 5, 480, 6, 62.0),
            w("...", 960, 5, 12, 6, 80.0),
        ];
        assert_eq!(texts(&group(&words, LayoutParams::default())), ["Settings"]);
    }

    #[test]
    fn confidence_is_weighted_by_characters() {
        let words = [w("a", 0, 0, 5, 10, 70.0), w("bcd", 8, 0, 15, 10, 90.0)];
        let lines = group(&words, LayoutParams::default());
        assert_eq!(lines.len(), 1);
        assert!((lines[0].confidence - 85.0).abs() < 1e-3);
    }

    #[test]
    fn lone_glyphs_need_to_be_confident_ascii() {
        let words = [
            w("x", 10, 10, 8, 8, 95.0),
            w("ฆ", 40, 10, 8, 15, 87.0),
            w("7", 80, 10, 8, 12, 50.0),
            w("=", 120, 10, 8, 8, 95.0),
        ];
        assert_eq!(texts(&group(&words, LayoutParams::default())), ["x"]);
    }

    #[test]
    fn poorly_read_wide_words_are_retried_as_row_spans() {
        let words = [
            w("Save", 10, 10, 30, 12, 95.0),
            w("avetivetfunaty", 100, 8, 120, 20, 0.0),
            w("waqwew", 226, 8, 40, 20, 5.0),
            w("w", 272, 12, 9, 9, 0.0),
            w("o", 400, 10, 10, 10, 10.0),
            w("AqUuMnLana", 100, 40, 90, 14, 0.0),
        ];
        let spans = retry_spans(&words, 10, RETRY_CONFIDENCE);
        assert_eq!(retry_spans(&words, 16, RETRY_CONFIDENCE), vec![(Rect::new(100, 8, 181, 20), vec![1, 2, 3])]);
        assert_eq!(spans, vec![(Rect::new(100, 8, 181, 20), vec![1, 2, 3]), (Rect::new(100, 40, 90, 14), vec![5])]);
    }

    #[test]
    fn empty_and_degenerate_input() {
        assert!(group(&[], LayoutParams::default()).is_empty());
        let words = [w("x", i32::MAX - 9, i32::MAX - 9, 8, 8, 90.0), w("y", i32::MIN, 0, 8, 8, 90.0)];
        assert_eq!(group(&words, LayoutParams::default()).len(), 2);
    }
}

//! `expect=text:` against text OCR read tolerates the whitespace OCR invents or drops inside words, and
//! nothing else; accessible text is matched exactly.

mod common;

use common::Fx;
use handrail_core::text::contains_phrase_ignoring_spaces;
use handrail_core::ExpectOutcome;
use handrail_sim::Widget;
use proptest::prelude::*;

/// Words of terminal output: letters, digits and the punctuation commands print.
fn phrase() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9][a-zA-Z0-9_./:=+-]{0,10}( [a-zA-Z0-9_./:=+-]{1,8}){0,3}"
}

/// `s` with a space inserted before each character whose flag is set.
fn spaced(s: &str, flags: &[bool]) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && flags.get(i).copied().unwrap_or(false) {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn exact_text_always_matches(needle in phrase(), before in "([a-z]{1,6} )?", after in "( [a-z]{1,6})?") {
        let haystack = format!("{before}{needle}{after}");
        prop_assert!(contains_phrase_ignoring_spaces(&haystack, &needle));
        prop_assert!(contains_phrase_ignoring_spaces(&needle.to_uppercase(), &needle));
    }

    #[test]
    fn spaces_inside_ocr_text_still_match(
        needle in phrase(),
        flags in proptest::collection::vec(any::<bool>(), 40),
        dropped in any::<bool>(),
    ) {
        // Spaces added anywhere inside, and (optionally) the real ones dropped.
        let base = if dropped { needle.replace(' ', "") } else { needle.clone() };
        let haystack = format!("$ {} done", spaced(&base, &flags));
        prop_assert!(contains_phrase_ignoring_spaces(&haystack, &needle), "{haystack:?} vs {needle:?}");
    }

    #[test]
    fn changing_any_letter_never_matches(
        needle in phrase(),
        at in any::<prop::sample::Index>(),
        with in "[a-z0-9_./:=+-]",
        flags in proptest::collection::vec(any::<bool>(), 40),
    ) {
        let chars: Vec<char> = needle.chars().collect();
        let positions: Vec<usize> = (0..chars.len()).filter(|&i| !chars[i].is_whitespace()).collect();
        let i = positions[at.index(positions.len())];
        let new = with.chars().next().unwrap_or('#');
        prop_assume!(!new.eq_ignore_ascii_case(&chars[i]));
        let mut changed = chars.clone();
        changed[i] = new;
        let changed: String = changed.into_iter().collect();
        let haystack = spaced(&changed, &flags);
        prop_assert!(!contains_phrase_ignoring_spaces(&haystack, &needle), "{haystack:?} vs {needle:?}");
    }

    #[test]
    fn dropping_or_swapping_letters_never_matches(needle in phrase(), at in any::<prop::sample::Index>()) {
        let squashed: Vec<char> = needle.chars().filter(|c| !c.is_whitespace()).collect();
        let i = at.index(squashed.len());
        let mut dropped = squashed.clone();
        dropped.remove(i);
        let dropped: String = dropped.into_iter().collect();
        prop_assert!(!contains_phrase_ignoring_spaces(&dropped, &needle));
        if i + 1 < squashed.len() && !squashed[i].eq_ignore_ascii_case(&squashed[i + 1]) {
            let mut swapped = squashed.clone();
            swapped.swap(i, i + 1);
            let swapped: String = swapped.into_iter().collect();
            prop_assert!(!contains_phrase_ignoring_spaces(&swapped, &needle), "{swapped:?} vs {needle:?}");
        }
    }

    #[test]
    fn a_phrase_glued_to_letters_does_not_match(needle in "[a-z]{2,8}-[0-9]{1,3}", glue in "[a-z0-9]") {
        let (front, back) = (format!("{glue}{needle}"), format!("{needle}{glue}"));
        prop_assert!(!contains_phrase_ignoring_spaces(&front, &needle));
        prop_assert!(!contains_phrase_ignoring_spaces(&back, &needle));
    }
}

#[test]
fn the_engine_tolerates_ocr_spacing_but_not_in_accessible_text() {
    let mut fx = Fx::empty();
    let w = fx.win;
    // Only the pixels show the first (as an xterm's output); the second is accessible text.
    fx.sim.add_widget(w, Widget::canvas_text("hel lo-handrail-42").at(130, 140, 300, 20));
    fx.sim.add_widget(w, Widget::text("good bye-now").at(130, 200, 300, 20));
    let verified = |fx: &mut Fx, want: &str| {
        fx.see();
        let o = fx.call(&[("action", "key"), ("keys", "shift"), ("expect", &format!("text:{want}"))]);
        (matches!(o.expect, Some((_, ExpectOutcome::Verified))), o.text())
    };
    let (ok, text) = verified(&mut fx, "hello-handrail-42");
    assert!(ok, "{text}");
    let (ok, text) = verified(&mut fx, "hello-handrail-41");
    assert!(!ok, "{text}");
    let (ok, text) = verified(&mut fx, "goodbye-now");
    assert!(!ok, "accessible text is exact: {text}");
    let (ok, text) = verified(&mut fx, "good bye-now");
    assert!(ok, "{text}");
}

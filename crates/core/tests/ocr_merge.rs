//! OCR lines in `merge`: a line that repeats or garbles text the accessibility tree already has at that
//! place never survives as text of its own; a line the tree knows nothing of always does.

use handrail_core::merge::{merge, Geometry};
use handrail_core::Source;
use handrail_platform::{AxHealth, AxNode, AxSnapshot, OcrLine, Rect, Role, Size, States};
use proptest::prelude::*;

const GEO: Geometry = Geometry { image: Size::new(1280, 800), scale: 1.0 };
/// Accessible elements sit in the top part of the screen, one per grid cell, never overlapping.
const CELL_W: i32 = 400;
const CELL_H: i32 = 100;
const FIELD: (u32, u32) = (300, 34);

#[derive(Debug, Clone, Copy)]
enum Kind {
    Button,
    Caption,
    Heading,
    /// An editable one-line field: its text is the value, its name a caption.
    Field,
}

#[derive(Debug, Clone)]
struct Spec {
    kind: Kind,
    text: String,
}

/// Text of the accessibility tree: letters a–m only, so text over n–z is text it does not have.
fn known_text() -> impl Strategy<Value = String> {
    "[A-M][a-m]{3,11}( [a-m]{2,8}){0,2}"
}

fn unknown_text() -> impl Strategy<Value = String> {
    "[N-Z][n-z]{0,11}( [n-z0-9]{1,8}){0,2}"
}

fn spec() -> impl Strategy<Value = Spec> {
    let kind = prop_oneof![Just(Kind::Button), Just(Kind::Caption), Just(Kind::Heading), Just(Kind::Field)];
    (kind, known_text()).prop_map(|(kind, text)| Spec { kind, text })
}

fn cell(k: usize) -> Rect {
    let (col, row) = ((k % 3) as i32, (k / 3) as i32);
    Rect::new(40 + col * CELL_W, 40 + row * CELL_H, FIELD.0, FIELD.1)
}

fn snapshot(specs: &[Spec]) -> AxSnapshot {
    let nodes = specs
        .iter()
        .enumerate()
        .map(|(k, s)| {
            let (role, name, value, states) = match s.kind {
                Kind::Button => (Role::Button, s.text.clone(), None, States::empty()),
                Kind::Caption => (Role::Text, s.text.clone(), None, States::empty()),
                Kind::Heading => (Role::Heading, s.text.clone(), None, States::empty()),
                Kind::Field => (Role::Entry, "Field".to_owned(), Some(s.text.clone()), States::EDITABLE),
            };
            AxNode { role: Some(role), name, value, states, bounds: cell(k), app: "App".into(), ..AxNode::default() }
        })
        .collect();
    AxSnapshot::new(AxHealth::Ok, nodes)
}

/// A line of `text` inside element `k`, shifted by (dx, dy) and as wide as OCR would read it.
fn line_in(k: usize, text: &str, dx: i32, dy: i32) -> OcrLine {
    let b = cell(k);
    let width = (text.chars().count() as u32 * 9).min(FIELD.0 - 12);
    OcrLine { text: text.into(), bounds: Rect::new(b.x + 6 + dx, b.y + 8 + dy, width, 18), confidence: 80.0 }
}

fn survivors(ax: &AxSnapshot, ocr: &[OcrLine]) -> Vec<String> {
    let m = merge(ax, ocr, GEO);
    m.elements.iter().filter(|e| e.source == Source::Ocr).map(|e| e.label.clone()).collect()
}

/// `text` with the character at `at` (among non-spaces) replaced by `with`: a misread glyph.
fn misread(text: &str, at: prop::sample::Index, with: char) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    let letters: Vec<usize> = (0..chars.len()).filter(|&i| !chars[i].is_whitespace()).collect();
    chars[letters[at.index(letters.len())]] = with;
    chars.into_iter().collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn a_line_repeating_known_text_in_place_never_survives(
        specs in proptest::collection::vec(spec(), 1..7),
        pick in any::<prop::sample::Index>(),
        dx in -3i32..4,
        dy in -6i32..7,
        upper in any::<bool>(),
    ) {
        let k = pick.index(specs.len());
        let text = if upper { specs[k].text.to_uppercase() } else { specs[k].text.clone() };
        let ocr = [line_in(k, &text, dx, dy)];
        let left = survivors(&snapshot(&specs), &ocr);
        prop_assert!(left.is_empty(), "{:?} over {:?} survived as {left:?}", ocr[0], specs[k]);
    }

    #[test]
    fn a_misread_glyph_in_place_never_survives(
        specs in proptest::collection::vec(spec(), 1..7),
        pick in any::<prop::sample::Index>(),
        at in any::<prop::sample::Index>(),
        with in "[a-zA-Z0-9|!]",
    ) {
        let k = pick.index(specs.len());
        let garbled = misread(&specs[k].text, at, with.chars().next().unwrap_or('l'));
        let ocr = [line_in(k, &garbled, 0, 0)];
        let left = survivors(&snapshot(&specs), &ocr);
        prop_assert!(left.is_empty(), "{garbled:?} over {:?} survived", specs[k]);
    }

    #[test]
    fn the_cut_off_start_of_known_text_beside_it_never_survives(
        specs in proptest::collection::vec(spec(), 1..7),
        pick in any::<prop::sample::Index>(),
        keep in 2usize..6,
        cut in prop_oneof![Just(""), Just("|"), Just("!")],
        overhang in 0i32..4,
    ) {
        // OCR read only the letters left of the element's reported bounds (the rest was skipped).
        let k = pick.index(specs.len());
        let start: String = specs[k].text.chars().take(keep).collect();
        let piece = format!("{}{cut}", start.trim_end());
        let b = cell(k);
        let width = piece.chars().count() as u32 * 8;
        let ocr = [OcrLine {
            text: piece.clone(),
            bounds: Rect::new(b.x - width as i32 + overhang, b.y + 8, width, 18),
            confidence: 80.0,
        }];
        let left = survivors(&snapshot(&specs), &ocr);
        prop_assert!(left.is_empty(), "{piece:?} beside {:?} survived", specs[k]);
    }

    #[test]
    fn anything_over_a_field_whose_text_is_known_is_dropped(
        field in known_text(),
        read in "[ -~]{1,20}",
    ) {
        let specs = [Spec { kind: Kind::Field, text: field }];
        prop_assume!(!read.trim().is_empty());
        let left = survivors(&snapshot(&specs), &[line_in(0, &read, 0, 0)]);
        prop_assert!(left.is_empty(), "{read:?} survived over a known field: {left:?}");
    }

    #[test]
    fn a_line_far_from_every_element_always_survives(
        specs in proptest::collection::vec(spec(), 0..7),
        text in prop_oneof![known_text(), unknown_text()],
        x in 0i32..1000,
        y in 400i32..770,
    ) {
        // The grid ends above y = 340; the line is elsewhere, whatever it says.
        let ocr = [OcrLine { text: text.clone(), bounds: Rect::new(x, y, 200, 18), confidence: 80.0 }];
        let left = survivors(&snapshot(&specs), &ocr);
        prop_assert_eq!(left, vec![text]);
    }

    #[test]
    fn text_the_tree_does_not_have_survives_even_over_an_element(
        specs in proptest::collection::vec(spec(), 1..7),
        pick in any::<prop::sample::Index>(),
        text in unknown_text(),
    ) {
        let k = pick.index(specs.len());
        prop_assume!(!matches!(specs[k].kind, Kind::Field));
        let left = survivors(&snapshot(&specs), &[line_in(k, &text, 0, 0)]);
        prop_assert_eq!(left, vec![text]);
    }
}

//! OCR layout and the merge of accessibility nodes with OCR lines: Tesseract's words →
//! `handrail_ocr` layout (labels, retry spans) → `handrail_core::merge::merge` → ids.
//!
//! Invariants:
//! - layout: labels come in reading order, carry text, lie in the frame, and their confidence is
//!   within their words'; retry spans hold each poorly read word at most once, inside the span;
//! - merge: every element's bounds are non-empty and inside the screenshot; secure fields never carry
//!   a value; OCR changes nothing accessibility said except the label of an unlabelled non-secure
//!   control (so a secure field never gets OCR text); parent and focus indices are valid;
//! - ids: unique within an observation, and an element keeps its id only as the same kind of thing.

#![no_main]

use handrail_core::identity::IdTracker;
use handrail_core::merge::{merge, Geometry, Merged};
use handrail_core::observation::Source;
use handrail_ocr::fuzzing::{group, retry_spans};
use handrail_platform::{AxHealth, AxNode, AxSnapshot, OcrLine, Rect, Role, Size, States};
use libfuzzer_sys::arbitrary::{self, Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;

const WORDS: &[&str] = &[
    "Save",
    "Password",
    "Password:",
    "hunter2",
    "Name",
    "Kerianne",
    "Kerlanne",
    "Pro|",
    "ภาษา",
    "ไทย",
    "ี",
    "ok",
    "File",
    "Edit",
    "x",
    "7",
    "=",
    "Search",
    "Country",
    "Guinea",
    "Volume",
    "Proceed",
    "with",
    "the",
    "import?",
    "Mango",
    "|",
    "v",
    "Pepin the Short",
    "Pe",
];

const STATES: [States; 12] = [
    States::FOCUSED,
    States::DISABLED,
    States::CHECKED,
    States::EDITABLE,
    States::SECURE,
    States::OFFSCREEN,
    States::SELECTED,
    States::EXPANDED,
    States::FOCUSABLE,
    States::DEFAULT,
    States::ACTIVE,
    States::MINIMIZED,
];

#[derive(Debug, Arbitrary)]
enum Text {
    Word(u8),
    Two(u8, u8),
    Raw(String),
}

impl Text {
    fn render(&self) -> String {
        let w = |i: &u8| WORDS[usize::from(*i) % WORDS.len()];
        match self {
            Text::Word(i) => w(i).to_string(),
            Text::Two(a, b) => format!("{} {}", w(a), w(b)),
            Text::Raw(s) => s.clone(),
        }
    }
}

/// Mostly screen-sized rectangles; now and then anything at all.
#[derive(Debug, Arbitrary)]
enum Area {
    Screen { x: i16, y: i16, width: u16, height: u16 },
    Any { x: i32, y: i32, width: u32, height: u32 },
}

impl Area {
    fn rect(&self) -> Rect {
        match *self {
            Area::Screen { x, y, width, height } => {
                Rect::new(i32::from(x), i32::from(y), u32::from(width % 2048), u32::from(height % 512))
            }
            Area::Any { x, y, width, height } => Rect::new(x, y, width, height),
        }
    }
}

#[derive(Debug, Arbitrary)]
struct Node {
    role: Option<u8>,
    name: Text,
    value: Option<Text>,
    bounds: Area,
    states: u16,
    parent: Option<u8>,
    bindings: Vec<String>,
    app: bool,
}

#[derive(Debug, Arbitrary)]
struct Line {
    text: Text,
    bounds: Area,
    confidence: u8,
}

/// A word as Tesseract reports it: trimmed non-empty text, a non-empty box inside the frame.
#[derive(Debug, Arbitrary)]
struct Word {
    text: Text,
    x: u16,
    y: u16,
    width: u8,
    height: u8,
    confidence: i8,
}

#[derive(Debug, Arbitrary)]
struct Input {
    nodes: Vec<Node>,
    lines: Vec<Line>,
    words: Vec<Word>,
    image: (u16, u16),
    scale: u8,
    min_confidence: u8,
    max_gap: u8,
    retry_height: u8,
    /// How far everything moves before the second observation.
    shift: (i8, i8),
}

fuzz_target!(|data: &[u8]| {
    let Ok(input) = Input::arbitrary_take_rest(Unstructured::new(data)) else { return };
    let image = Size::new(u32::from(input.image.0 % 4096) + 1, u32::from(input.image.1 % 4096) + 1);
    let frame = Rect::from_size(image);

    let words: Vec<(String, Rect, f32)> = input
        .words
        .iter()
        .take(48)
        .filter_map(|w| {
            let text = w.text.render().trim().to_string();
            let bounds = Rect::new(
                i32::from(w.x) % image.width as i32,
                i32::from(w.y) % image.height as i32,
                u32::from(w.width.max(1)),
                u32::from(w.height.max(1)),
            )
            .clamped_to(&frame);
            (!text.is_empty() && !bounds.is_empty()).then(|| (text, bounds, f32::from(w.confidence).clamp(-1.0, 100.0)))
        })
        .collect();
    let labels = layout(&words, &input, frame);

    let nodes: Vec<AxNode> = input.nodes.iter().take(64).map(node).collect();
    let ax = AxSnapshot::new(AxHealth::Ok, nodes);
    let mut lines = labels;
    lines.extend(input.lines.iter().take(32).map(|l| OcrLine {
        text: l.text.render(),
        bounds: l.bounds.rect(),
        confidence: f32::from(l.confidence % 101),
    }));
    let scale = match input.scale % 8 {
        0 | 1 => 1.0,
        2 => 2.0,
        3 => 1.5,
        4 => 1.25,
        5 => 0.5,
        6 => 3.0,
        _ => 0.25 + f64::from(input.scale) / 32.0,
    };
    let geo = Geometry { image, scale };

    let with_ocr = merge(&ax, &lines, geo);
    let without = merge(&ax, &[], geo);
    well_formed(&with_ocr, &ax, &lines, frame);
    well_formed(&without, &ax, &[], frame);
    ocr_only_adds(&with_ocr, &without);

    // Ids over two observations, the second with everything moved a little.
    let mut tracker = IdTracker::default();
    let mut first = with_ocr.elements;
    tracker.assign(&mut first, ax.health == AxHealth::Ok);
    unique_ids(&first);
    let (dx, dy) = (i32::from(input.shift.0), i32::from(input.shift.1));
    let moved_nodes = ax
        .nodes
        .iter()
        .map(|n| AxNode {
            bounds: Rect { x: n.bounds.x.saturating_add(dx), y: n.bounds.y.saturating_add(dy), ..n.bounds },
            ..n.clone()
        })
        .collect();
    let moved = AxSnapshot::new(AxHealth::Ok, moved_nodes);
    let mut second = merge(&moved, &lines, geo).elements;
    tracker.assign(&mut second, true);
    unique_ids(&second);
    let newest_before = first.iter().map(|e| e.id.0).max().unwrap_or(0);
    for e in &second {
        match first.iter().find(|f| f.id == e.id) {
            Some(f) => assert!(f.role == e.role && f.app == e.app, "{} kept its id as another thing", e.id),
            None => assert!(e.id.0 > newest_before, "{} was reissued", e.id),
        }
    }
});

fn node(n: &Node) -> AxNode {
    let mut states = States::empty();
    for (i, s) in STATES.iter().enumerate() {
        if n.states & 1 << i != 0 {
            states.insert(*s);
        }
    }
    AxNode {
        role: n.role.map(|r| Role::ALL[usize::from(r) % Role::ALL.len()]),
        native_role: String::new(),
        name: n.name.render(),
        value: n.value.as_ref().map(Text::render),
        description: String::new(),
        bounds: n.bounds.rect(),
        states,
        app: if n.app { "App".into() } else { "Other".into() },
        window: "Window".into(),
        actions: Vec::new(),
        key_bindings: n.bindings.iter().take(3).cloned().collect(),
        attributes: Vec::new(),
        parent: n.parent.map(usize::from),
        window_relative: false,
    }
}

fn layout(words: &[(String, Rect, f32)], input: &Input, frame: Rect) -> Vec<OcrLine> {
    let min_confidence = f32::from(input.min_confidence % 101);
    let max_gap = f32::from(input.max_gap % 40) / 10.0;
    let labels = group(words, min_confidence, max_gap);
    assert!(labels.len() <= words.len());
    let (lo, hi) = words.iter().fold((f32::MAX, f32::MIN), |(lo, hi), w| (lo.min(w.2), hi.max(w.2)));
    for pair in labels.windows(2) {
        let (a, b) = (&pair[0].bounds, &pair[1].bounds);
        assert!((a.y, a.x) <= (b.y, b.x), "labels out of reading order: {a} before {b}");
    }
    for l in &labels {
        assert!(!l.text.is_empty() && l.text.trim() == l.text, "label text {:?}", l.text);
        assert!(frame.contains_rect(&l.bounds) && !l.bounds.is_empty(), "label {} outside {frame}", l.bounds);
        assert!(words.iter().any(|w| l.bounds.contains_rect(&w.1)), "label {} holds no word", l.bounds);
        assert!(
            l.confidence >= lo - 0.01 && l.confidence <= hi + 0.01,
            "confidence {} outside its words'",
            l.confidence
        );
    }

    let min_height = u32::from(input.retry_height % 40);
    let spans = retry_spans(words, min_height);
    let mut seen = vec![false; words.len()];
    for pair in spans.windows(2) {
        assert!((pair[0].0.y, pair[0].0.x) <= (pair[1].0.y, pair[1].0.x), "spans out of order");
    }
    for (span, members) in &spans {
        assert!(span.height >= min_height && !members.is_empty());
        for &i in members {
            assert!(i < words.len() && !seen[i], "word {i} in two spans or out of range");
            seen[i] = true;
            assert!(words[i].2 < 50.0, "a well read word is re-read");
            assert!(span.contains_rect(&words[i].1), "span {span} does not hold word {}", words[i].1);
        }
    }
    labels
}

fn well_formed(m: &Merged, ax: &AxSnapshot, lines: &[OcrLine], frame: Rect) {
    assert!(m.elements.len() <= ax.nodes.len() + lines.len());
    for (i, e) in m.elements.iter().enumerate() {
        assert!(!e.bounds.is_empty() && frame.contains_rect(&e.bounds), "{} {} outside {frame}", e.role, e.bounds);
        if e.is_secure() {
            assert_eq!(e.value, None, "a secure {} carries a value", e.role);
        }
        if let Some(p) = e.detail.parent {
            assert!(p < m.elements.len() && p != i, "element {i} has parent {p}");
        }
        if e.source == Source::Ocr {
            assert!(e.role == Role::Text && !e.label.is_empty() && e.label.trim() == e.label);
            assert!(
                !m.elements.iter().any(|s| s.is_secure() && s.bounds.overlap_of_smaller(&e.bounds) > 0.3),
                "OCR text {:?} kept over a secure field",
                e.label
            );
        }
    }
    // Focus points at a focused element, and there is one whenever any element says it is focused.
    let any_focused = m.elements.iter().any(|e| e.states.contains(States::FOCUSED));
    assert_eq!(m.focus.is_some(), any_focused, "focus index {:?}", m.focus);
    if let Some(f) = m.focus {
        assert!(m.elements[f].states.contains(States::FOCUSED), "focus on an unfocused element");
    }
}

/// The accessibility elements come out the same with OCR as without, in the same order, except that
/// OCR may label an unlabelled, non-secure control.
fn ocr_only_adds(with_ocr: &Merged, without: &Merged) {
    let ax: Vec<_> = with_ocr.elements.iter().filter(|e| e.source != Source::Ocr).collect();
    assert_eq!(ax.len(), without.elements.len(), "OCR changed which accessibility elements are listed");
    for (a, b) in ax.iter().zip(&without.elements) {
        assert_eq!((a.role, a.bounds, a.states, &a.value, &a.app), (b.role, b.bounds, b.states, &b.value, &b.app));
        if a.label != b.label {
            assert!(!a.is_secure(), "OCR text {:?} became the label of a secure {}", a.label, a.role);
            assert_eq!(a.source, Source::AxOcr, "a label changed without OCR: {:?} → {:?}", b.label, a.label);
        }
    }
}

fn unique_ids(elements: &[handrail_core::Element]) {
    let mut ids: Vec<u64> = elements.iter().map(|e| e.id.0).collect();
    assert!(ids.iter().all(|&i| i != 0), "an element without an id");
    ids.sort_unstable();
    let n = ids.len();
    ids.dedup();
    assert_eq!(ids.len(), n, "two elements share an id");
}

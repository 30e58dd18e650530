//! Hot paths of every call, timed on realistic synthetic inputs: resize + encode of a HiDPI screenshot,
//! the tile diff, merging accessibility nodes with OCR lines, and rendering a result's text.
//!
//! No desktop needed. Cases take turns in each round (so load from elsewhere on the machine lands on all
//! of them alike); a case that takes under a millisecond runs a calibrated batch per round and counts
//! the batch's mean. Prints a markdown table of medians and p90s.
//!
//! ```text
//! cargo bench -p handrail-core --bench hotpaths      # HANDRAIL_BENCH_RUNS=N rounds (default 101)
//! ```

use std::hint::black_box;
use std::time::{Duration, Instant};

use handrail_core::diff::{Thumbnail, VisualDiff};
use handrail_core::merge::{merge, Geometry};
use handrail_core::render::{listed_count, observation_text, Listing};
use handrail_core::{Config, Engine, Mode, RawArgs, Turn, Vision};
use handrail_imaging::{resize_bgrx, JpegEncoder, PngEncoder};
use handrail_platform::{AxHealth, AxNode, AxSnapshot, Encoder, Frame, OcrLine, Rect, Role, Size, States};
use handrail_sim::{SimDesktop, Widget, WindowSpec};

const WARMUP: usize = 3;
/// A batch of a fast case runs at least this long, so timer overhead stays negligible.
const BATCH: Duration = Duration::from_millis(2);

/// A small deterministic generator (xorshift), so every run measures the same inputs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u32) -> u32 {
        (self.next() % u64::from(n.max(1))) as u32
    }
}

fn fill(frame: &mut Frame, r: Rect, bgr: [u8; 3]) {
    let r = r.clamped_to(&Rect::from_size(frame.size));
    for y in r.y..r.y + r.height as i32 {
        let row = y as usize * frame.stride;
        for x in r.x..r.x + r.width as i32 {
            let i = row + x as usize * 4;
            frame.pixels[i..i + 3].copy_from_slice(&bgr);
        }
    }
}

/// Glyph-like strokes: `chars` cells of `cw`×`ch` pixels, each with a few dark vertical and horizontal
/// bars and anti-aliased grey edges, the way rendered text looks to a compressor.
fn text(frame: &mut Frame, rng: &mut Rng, x: i32, y: i32, chars: u32, cw: u32, ch: u32) {
    for c in 0..chars {
        if rng.below(6) == 0 {
            continue; // a space
        }
        let cx = x + (c * cw) as i32;
        for _ in 0..2 + rng.below(2) {
            let vertical = rng.below(2) == 0;
            let (w, h) = if vertical { (1 + ch / 12, ch * 2 / 3) } else { (cw * 2 / 3, 1 + ch / 12) };
            let ox = cx + rng.below(cw - w.min(cw - 1)) as i32;
            let oy = y + rng.below(ch - h.min(ch - 1)) as i32;
            fill(frame, Rect::new(ox, oy, w, h), [40, 40, 40]);
            fill(frame, Rect::new(ox + w as i32, oy, 1, h), [150, 150, 150]);
        }
    }
}

/// A 2560x1600 desktop: a grey background, three application windows with title bars, toolbars, form
/// rows and paragraphs of text, and a photo-like area (a gradient with noise) that compresses badly.
fn screen(width: u32, height: u32) -> Frame {
    let mut f = Frame::solid(Size::new(width, height), [0xe0, 0xe0, 0xe0, 0xff]);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let s = width / 1280; // 2 on a HiDPI screen
    let windows = [Rect::new(40, 40, 1400, 1000), Rect::new(1200, 300, 1300, 1200), Rect::new(300, 900, 900, 650)];
    for (wi, w) in windows.iter().enumerate() {
        let w = Rect::new(w.x * s as i32 / 2, w.y * s as i32 / 2, w.width * s / 2, w.height * s / 2);
        fill(&mut f, w, [255, 255, 255]);
        fill(&mut f, Rect::new(w.x, w.y, w.width, 18 * s), [0x5a, 0x3c, 0x2a + 40 * wi as u8]);
        text(&mut f, &mut rng, w.x + 8 * s as i32, w.y + 4 * s as i32, 30, 7 * s, 10 * s);
        // Toolbar buttons.
        for b in 0..8 {
            let bx = w.x + (8 + b * 70) * s as i32;
            fill(&mut f, Rect::new(bx, w.y + 24 * s as i32, 62 * s, 22 * s), [0xf0, 0xf0, 0xf0]);
            text(&mut f, &mut rng, bx + 6, w.y + 30 * s as i32, 7, 6 * s, 9 * s);
        }
        // Form rows and paragraphs.
        let mut y = w.y + 56 * s as i32;
        while y + (14 * s) as i32 <= w.y + w.height as i32 - 8 {
            let chars = (w.width / (7 * s)).saturating_sub(6).min(40 + rng.below(80));
            text(&mut f, &mut rng, w.x + 10 * s as i32, y, chars, 7 * s, 10 * s);
            y += (16 + rng.below(3) * 8) as i32 * s as i32;
        }
    }
    // A photo-like area.
    let photo = Rect::new((840 * s) as i32, (60 * s) as i32, 360 * s, 220 * s);
    for y in 0..photo.height {
        for x in 0..photo.width {
            let n = rng.below(24) as u8;
            let i = (photo.y as usize + y as usize) * f.stride + (photo.x as usize + x as usize) * 4;
            f.pixels[i] = (x * 255 / photo.width) as u8 / 2 + n;
            f.pixels[i + 1] = (y * 255 / photo.height) as u8 / 2 + n;
            f.pixels[i + 2] = 120 + n;
        }
    }
    f
}

fn node(role: Role, name: &str, bounds: Rect, parent: Option<usize>) -> AxNode {
    AxNode {
        role: Some(role),
        native_role: format!("{role:?}").to_lowercase(),
        name: name.to_owned(),
        bounds,
        states: States::empty(),
        app: "Mail".into(),
        window: "Inbox - Mail".into(),
        actions: if role.is_interactive() { vec!["click".into()] } else { Vec::new() },
        parent,
        ..AxNode::default()
    }
}

/// ~100 accessibility nodes of a mail client (window, toolbar, folder list, message list with
/// three columns, a form) and ~50 OCR lines: half repeat what the tree says (they fold into its
/// elements), half are text only pixels know (a rendered message body, a canvas).
fn mail_client() -> (AxSnapshot, Vec<OcrLine>) {
    let mut nodes = vec![node(Role::Window, "Inbox - Mail", Rect::new(0, 0, 1280, 800), None)];
    let toolbar = nodes.len();
    nodes.push(node(Role::ToolBar, "", Rect::new(0, 0, 1280, 40), Some(0)));
    for (i, label) in ["New", "Reply", "Reply all", "Forward", "Archive", "Junk", "Move", "Search"].iter().enumerate() {
        nodes.push(node(Role::Button, label, Rect::new(8 + 90 * i as i32, 6, 84, 28), Some(toolbar)));
    }
    let folders = nodes.len();
    nodes.push(node(Role::List, "Folders", Rect::new(0, 40, 220, 760), Some(0)));
    for (i, label) in ["Inbox", "Drafts", "Sent", "Archive", "Junk", "Trash", "Work", "Family", "Receipts", "Travel"]
        .iter()
        .enumerate()
    {
        nodes.push(node(Role::ListItem, label, Rect::new(8, 48 + 26 * i as i32, 204, 24), Some(folders)));
    }
    let table = nodes.len();
    nodes.push(node(Role::Table, "Messages", Rect::new(220, 40, 1060, 380), Some(0)));
    let senders = ["Ada Lovelace", "Grace Hopper", "Alan Turing", "Edsger Dijkstra", "Barbara Liskov"];
    for row in 0..22 {
        let y = 44 + 17 * row;
        nodes.push(node(Role::Cell, senders[row as usize % 5], Rect::new(224, y, 200, 16), Some(table)));
        nodes.push(node(
            Role::Cell,
            &format!("Quarterly report draft #{row}"),
            Rect::new(430, y, 600, 16),
            Some(table),
        ));
        nodes.push(node(
            Role::Cell,
            &format!("{}:{:02}", 8 + row % 10, row * 7 % 60),
            Rect::new(1040, y, 80, 16),
            Some(table),
        ));
    }
    for (i, label) in ["To", "Cc", "Subject"].iter().enumerate() {
        let y = 440 + 34 * i as i32;
        nodes.push(node(Role::Text, label, Rect::new(230, y + 4, 60, 20), Some(0)));
        let mut entry = node(Role::Entry, label, Rect::new(300, y, 700, 28), Some(0));
        entry.states = States::EDITABLE.union(States::FOCUSABLE);
        entry.value = Some(if i == 0 { "grace@example.com".into() } else { String::new() });
        nodes.push(entry);
    }
    nodes.push(node(Role::Checkbox, "Request read receipt", Rect::new(300, 545, 220, 22), Some(0)));
    nodes.push(node(Role::Button, "Send", Rect::new(1100, 440, 90, 30), Some(0)));
    nodes.push(node(Role::Document, "", Rect::new(230, 580, 1040, 210), Some(0)));
    assert!((95..=110).contains(&nodes.len()), "{} nodes", nodes.len());

    let mut ocr = Vec::new();
    // OCR lines that repeat the tree (toolbar, folders, some cells).
    for n in nodes.iter().filter(|n| matches!(n.role, Some(Role::Button | Role::ListItem))).take(18) {
        ocr.push(OcrLine { text: n.name.clone(), bounds: n.bounds, confidence: 91.0 });
    }
    for n in nodes.iter().filter(|n| n.role == Some(Role::Cell)).step_by(9).take(7) {
        ocr.push(OcrLine { text: n.name.clone(), bounds: n.bounds, confidence: 88.0 });
    }
    // Text only the pixels have: the rendered message body.
    let words = ["the", "numbers", "for", "this", "quarter", "look", "better", "than", "we", "planned", "ภาษาไทย"];
    let mut rng = Rng(42);
    for line in 0..25 {
        let text: Vec<&str> = (0..6 + rng.below(8)).map(|_| words[rng.below(words.len() as u32) as usize]).collect();
        ocr.push(OcrLine {
            text: text.join(" "),
            bounds: Rect::new(240, 590 + 8 * line, 900, 16),
            confidence: 70.0 + rng.below(25) as f32,
        });
    }
    (AxSnapshot::new(AxHealth::Ok, nodes), ocr)
}

/// A simulated desktop with ~100 elements, observed once through the engine.
fn rendered_outcome() -> (handrail_core::Outcome, usize) {
    let sim = SimDesktop::new(Size::new(1280, 800));
    let win = sim.add_window(WindowSpec::new("Mail", "Inbox - Mail").bounds(Rect::new(0, 0, 1280, 800)));
    for (i, label) in ["New", "Reply", "Forward", "Archive", "Junk", "Move", "Search", "Send"].iter().enumerate() {
        sim.add_widget(win, Widget::button(*label).at(8 + 90 * i as i32, 30, 84, 24));
    }
    for i in 0..40 {
        sim.add_widget(win, Widget::list_item(format!("Message {i}: quarterly report")).at(20, 70 + 17 * i, 400, 16));
    }
    for i in 0..40 {
        sim.add_widget(win, Widget::text(format!("Sender {i} <s{i}@example.com>")).at(440, 70 + 17 * i, 300, 16));
    }
    for (i, label) in ["To", "Cc", "Subject", "Search mail"].iter().enumerate() {
        sim.add_widget(win, Widget::entry(*label).at(780, 70 + 40 * i as i32, 400, 28));
    }
    for i in 0..8 {
        sim.add_widget(win, Widget::checkbox(format!("Label {i}")).at(780, 260 + 26 * i, 200, 22));
    }
    let mut engine = Engine::new(sim.desktop(), Config { vision: Vision::Capable, ..Config::default() });
    engine.begin_turn(Turn { id: "t".into(), intent: "read my mail".into(), mode: Mode::Interactive });
    let args = RawArgs::from_pairs(&[("action", "see")]).expect("see");
    let outcome = engine.call_args(&args);
    let n = outcome.observation.as_ref().map_or(0, |o| o.elements.len());
    (outcome, n)
}

struct Case<'a> {
    name: String,
    detail: String,
    run: Box<dyn FnMut() + 'a>,
    batch: u32,
    samples: Vec<Duration>,
}

fn main() {
    let runs: usize = std::env::var("HANDRAIL_BENCH_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(101).max(1);

    let big = screen(2560, 1600);
    let small = resize_bgrx(&big, Size::new(1280, 800));
    let jpeg = JpegEncoder::default();
    let png = PngEncoder::default();
    let jpeg_bytes = jpeg.encode(&small).expect("jpeg").bytes.len();
    let png_bytes = png.encode(&small).expect("png").bytes.len();
    if let Ok(path) = std::env::var("HANDRAIL_BENCH_DUMP") {
        // To look at the synthetic screen: HANDRAIL_BENCH_DUMP=/tmp/screen.png
        std::fs::write(&path, png.encode(&small).expect("png").bytes).expect("write the dump");
    }

    // The tile diff: a label changed in one window between two frames.
    let mut after = small.clone();
    fill(&mut after, Rect::new(300, 420, 160, 18), [0x30, 0x90, 0x30]);
    let t_before = Thumbnail::of(&small);
    let t_after = Thumbnail::of(&after);
    let visual = VisualDiff::between(&t_before, &t_after, &[]);

    let (ax, ocr) = mail_client();
    let geo = Geometry { image: Size::new(1280, 800), scale: 1.0 };
    let merged = merge(&ax, &ocr, geo);

    let (outcome, elements) = rendered_outcome();
    let obs = outcome.observation.clone().expect("the see call published an observation");
    let text_len = outcome.text().len();
    let listed = listed_count(&obs.elements, &obs.windows, &obs.monitors, &Listing::default());

    let mut cases = vec![
        Case {
            name: "resize_bgrx 2560x1600 → 1280x800 (area average)".into(),
            detail: "synthetic desktop, 3 windows of text".into(),
            run: Box::new(|| {
                black_box(resize_bgrx(black_box(&big), Size::new(1280, 800)));
            }),
            batch: 1,
            samples: Vec::new(),
        },
        Case {
            name: "JPEG q80 encode, 1280x800".into(),
            detail: format!("{:.0} KiB", jpeg_bytes as f64 / 1024.0),
            run: Box::new(|| {
                black_box(jpeg.encode(black_box(&small)).expect("jpeg"));
            }),
            batch: 1,
            samples: Vec::new(),
        },
        Case {
            name: "PNG (fast) encode, 1280x800".into(),
            detail: format!("{:.0} KiB", png_bytes as f64 / 1024.0),
            run: Box::new(|| {
                black_box(png.encode(black_box(&small)).expect("png"));
            }),
            batch: 1,
            samples: Vec::new(),
        },
        Case {
            name: "resize 2560x1600 → 1280x800 + JPEG q80".into(),
            detail: "what one HiDPI screenshot costs after capture".into(),
            run: Box::new(|| {
                let f = resize_bgrx(black_box(&big), Size::new(1280, 800));
                black_box(jpeg.encode(&f).expect("jpeg"));
            }),
            batch: 1,
            samples: Vec::new(),
        },
        Case {
            name: "thumbnail of a 1280x800 frame (diff::visual)".into(),
            detail: format!("{}x{} grey cells", t_before.width, t_before.height),
            run: Box::new(|| {
                black_box(Thumbnail::of(black_box(&after)));
            }),
            batch: 1,
            samples: Vec::new(),
        },
        Case {
            name: "tile diff between two thumbnails".into(),
            detail: format!("{} of {} tiles changed", visual.changed_tiles, visual.total_tiles),
            run: Box::new(|| {
                black_box(VisualDiff::between(black_box(&t_before), black_box(&t_after), &[]));
            }),
            batch: 1,
            samples: Vec::new(),
        },
        Case {
            name: format!("merge {} AX nodes + {} OCR lines", ax.nodes.len(), ocr.len()),
            detail: format!("→ {} elements", merged.elements.len()),
            run: Box::new(|| {
                black_box(merge(black_box(&ax), black_box(&ocr), geo));
            }),
            batch: 1,
            samples: Vec::new(),
        },
        Case {
            name: format!("render a result's text ({elements}-element observation)"),
            detail: format!("{text_len} B of text, {listed} elements listed (2000 B listing budget)"),
            run: Box::new(|| {
                black_box(outcome.text());
            }),
            batch: 1,
            samples: Vec::new(),
        },
        Case {
            name: format!("render the observation block alone ({elements} elements)"),
            detail: "render::observation_text".into(),
            run: Box::new(|| {
                black_box(observation_text(black_box(&obs), &Listing::default()));
            }),
            batch: 1,
            samples: Vec::new(),
        },
    ];

    // Calibrate batches so each timed sample lasts at least BATCH.
    for c in &mut cases {
        let start = Instant::now();
        (c.run)();
        let once = start.elapsed().max(Duration::from_nanos(50));
        c.batch = (BATCH.as_nanos() / once.as_nanos()).clamp(1, 100_000) as u32;
    }
    eprintln!("timing {} cases, {WARMUP} + {runs} rounds…", cases.len());
    for round in 0..WARMUP + runs {
        for c in &mut cases {
            let start = Instant::now();
            for _ in 0..c.batch {
                (c.run)();
            }
            if round >= WARMUP {
                c.samples.push(start.elapsed() / c.batch);
            }
        }
    }

    println!();
    println!("Hot paths, median of {runs} interleaved rounds after {WARMUP} warm-up rounds (batched below {BATCH:?}):");
    println!();
    println!("| case | median | p90 | iterations / round | detail |");
    println!("|---|---:|---:|---:|---|");
    for c in &mut cases {
        c.samples.sort();
        let at = |q: f64| c.samples[((c.samples.len() - 1) as f64 * q).round() as usize];
        println!("| {} | {} | {} | {} | {} |", c.name, fmt(at(0.5)), fmt(at(0.9)), c.batch, c.detail);
    }
    println!();
    println!(
        "Reproduce: `cargo bench -p handrail-core --bench hotpaths` (HANDRAIL_BENCH_RUNS=N to change the round count)."
    );
}

fn fmt(d: Duration) -> String {
    let us = d.as_secs_f64() * 1e6;
    if us >= 1000.0 {
        format!("{:.2} ms", us / 1000.0)
    } else {
        format!("{us:.1} µs")
    }
}

//! Observations on a real desktop with both sources: the accessibility tree (AT-SPI) and OCR
//! (Tesseract), merged into one element list, on a real Chromium page.

mod common;

use handrail_core::{Config, Engine, Mode, Outcome, RawArgs, Status, Turn, Vision};
use handrail_platform::absent::NoAccessibility;
use handrail_platform::{Accessibility, Ocr, Rect, Screen};
use handrail_sandbox::{Sandbox, SandboxOptions, REMOVED_ENV};
use handrail_x11::windows::LaunchEnv;
use handrail_x11::{X11Desktop, X11Options};

const PAGE: &str = include_str!("../../../testdata/pages/form.html");
const SECRET: &str = "s3cret-Value-42";
const ENGLISH: &str =
    "The quick brown fox jumps over the lazy dog while seven wizards quietly judge every boxing match near the river.";
const THAI: &str = "ภาษาไทยเป็นภาษาที่สวยงาม เราชอบอ่านหนังสือทุกวัน";

fn raw(pairs: &[(&str, &str)]) -> RawArgs {
    RawArgs::from_pairs(pairs).unwrap_or_else(|e| panic!("bad test arguments: {e}"))
}

fn engine_for(sandbox: &Sandbox, ax: Box<dyn Accessibility>, ocr: Box<dyn Ocr>) -> Engine {
    let mut launch = LaunchEnv::new(sandbox.env(), sandbox.root().join("browser"));
    launch.removed = REMOVED_ENV.iter().map(|s| s.to_string()).collect();
    let desktop = X11Desktop::connect(X11Options::new(sandbox.display(), launch), ax, ocr).expect("connects");
    let mut engine = Engine::new(desktop, Config { vision: Vision::Capable, ..Config::default() });
    engine.begin_turn(Turn { id: "sources".into(), intent: "check my settings".into(), mode: Mode::Interactive });
    engine
}

fn find<'a>(o: &'a Outcome, role: &str, label: &str) -> Option<&'a handrail_core::Element> {
    o.observation.as_ref()?.elements.iter().find(|e| e.role.as_str() == role && e.label == label)
}

/// Bounding box of the pixels of one exact colour in a capture (screen coordinates).
fn colour_box(screen: &dyn Screen, bgr: [u8; 3]) -> Option<Rect> {
    let frame = screen.capture(None, None).ok()?;
    let (mut x0, mut y0, mut x1, mut y1) = (u32::MAX, u32::MAX, 0, 0);
    for y in 0..frame.size.height {
        for (x, px) in frame.row(y).chunks_exact(4).enumerate() {
            if px[..3] == bgr {
                let x = x as u32;
                (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
            }
        }
    }
    (x0 <= x1).then(|| Rect::new(x0 as i32, y0 as i32, x1 - x0 + 1, y1 - y0 + 1))
}

fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(|w| w.to_lowercase()).collect()
}

#[test]
fn a_real_page_through_both_sources() {
    let sandbox = Sandbox::start(SandboxOptions { parent_death_signal: false, ..SandboxOptions::default() })
        .expect("sandbox starts");
    let ocr = handrail_ocr::TesseractOcr::new(handrail_ocr::TesseractConfig::default());
    assert!(ocr.available(), "Tesseract is installed: {:?}", ocr.unavailable_reason());
    let mut engine =
        engine_for(&sandbox, Box::new(handrail_atspi::AtspiSource::new(sandbox.bus_address())), Box::new(ocr));
    let url = handrail_testkit::serve_page(PAGE);
    let o = engine.call_args(&raw(&[("action", "open_url"), ("url", &url), ("expect", "window:Account settings")]));
    assert_eq!(o.tag(), "[ok+verified]", "{}", o.text());

    // The page's tree arrives a moment after its window: observe until the form is listed (bounded).
    let mut seen = None;
    for _ in 0..20 {
        let o = engine.call_args(&raw(&[("action", "see")]));
        if find(&o, "button", "Delete account").is_some() && find(&o, "entry", "Email").is_some() {
            seen = Some(o);
            break;
        }
    }
    let see = seen.expect("the form reached the accessibility tree");
    let text = see.text();
    assert!(text.contains("ax=ok ocr=ok"), "{text}");

    // Roles and labels; the password field is secure and its value never appears.
    let password = find(&see, "password_entry", "Password").expect("password field listed");
    assert!(password.states.contains(handrail_platform::States::SECURE));
    assert!(password.value.is_none());
    assert!(!text.contains(SECRET) && !handrail_wire::encode_outcome(&see).to_string().contains(SECRET));
    assert_eq!(find(&see, "entry", "Email").and_then(|e| e.value.clone()).as_deref(), Some("ada@example.com"));

    // Bounds within a few pixels of the truth: the button is the only magenta thing on screen.
    let screen = handrail_x11::capture::X11Screen::new(handrail_x11::Conn::open(&sandbox.display()).expect("conn"))
        .expect("screen");
    let truth = colour_box(&screen, [0xFF, 0x00, 0xFF]).expect("the magenta button is on screen");
    let listed = find(&see, "button", "Delete account").expect("button listed").bounds;
    for (a, b) in [
        (listed.x, truth.x),
        (listed.y, truth.y),
        (listed.right() as i32, truth.right() as i32),
        (listed.bottom() as i32, truth.bottom() as i32),
    ] {
        assert!((a - b).abs() <= 3, "bounds {listed} vs truth {truth}");
    }

    // Focus follows a click.
    let email = find(&see, "entry", "Email").expect("email").id.to_string();
    let obs = see.observation.as_ref().map(|o| o.id.to_string()).expect("obs");
    let o = engine.call_args(&raw(&[
        ("action", "click"),
        ("observation_id", &obs),
        ("element_id", &email),
        ("expect", "focus:Email"),
    ]));
    assert_eq!(o.tag(), "[ok+verified]", "{}", o.text());

    // Text with no accessibility at all (drawn on a canvas) is still an element, found by OCR, and
    // clicking it works.
    let o = engine.call_args(&raw(&[("action", "see")]));
    let launch = o
        .observation
        .as_ref()
        .and_then(|obs| obs.elements.iter().find(|e| e.label == "Launch"))
        .unwrap_or_else(|| panic!("OCR lists the canvas text: {}", o.text()));
    assert_eq!(launch.source.as_str(), "ocr");
    let o = engine.call_args(&raw(&[("action", "click"), ("target_text", "Launch"), ("expect", "text:Launched")]));
    assert_eq!(o.tag(), "[ok+verified]", "{}", o.text());
    drop(engine);

    // OCR alone (accessibility off) recovers the paragraphs.
    let ocr = handrail_ocr::TesseractOcr::new(handrail_ocr::TesseractConfig::default());
    let mut blind = engine_for(&sandbox, Box::new(NoAccessibility), Box::new(ocr));
    let o = blind.call_args(&raw(&[("action", "see")]));
    assert_eq!(o.status, Status::Ok);
    let read: Vec<String> = o.observation.as_ref().expect("obs").elements.iter().map(|e| e.label.clone()).collect();
    let all = read.join(" ");
    let found = words(&all);
    let expected = words(ENGLISH);
    let hits = expected.iter().filter(|w| found.contains(w)).count();
    assert!(hits * 100 >= expected.len() * 95, "English recall {hits}/{}: {all}", expected.len());
    let squashed: String = all.chars().filter(|c| !c.is_whitespace()).collect();
    let thai: Vec<char> = THAI.chars().filter(|c| !c.is_whitespace()).collect();
    // Thai recall by characters in order (longest common subsequence would be stricter; a sliding
    // check of each word is enough to show the words come back joined).
    let thai_words = ["ภาษาไทย", "สวยงาม", "หนังสือ", "ทุกวัน"];
    let thai_hits = thai_words.iter().filter(|w| squashed.contains(*w)).count();
    assert!(
        thai_hits == thai_words.len(),
        "Thai words {thai_hits}/{} in: {all} ({} chars expected)",
        thai_words.len(),
        thai.len()
    );
    assert!(!all.contains(SECRET));
    drop(blind);
    sandbox.stop().expect("clean teardown");
}

/// A window that is on the accessibility bus but bare (its app draws its content itself, as an Electron
/// app with its renderer's accessibility off lists only its frame): the header says so, with the switch
/// that fills such a window, and its text is still listed from the screen.
#[test]
fn a_window_bare_in_the_tree_is_said_with_the_switch_that_fills_it() {
    let sandbox = Sandbox::start(SandboxOptions { parent_death_signal: false, ..SandboxOptions::default() })
        .expect("sandbox starts");
    let ocr = handrail_ocr::TesseractOcr::new(handrail_ocr::TesseractConfig::default());
    let mut engine =
        engine_for(&sandbox, Box::new(handrail_atspi::AtspiSource::new(sandbox.bus_address())), Box::new(ocr));
    // A terminal beside it, as on a person's desktop; the drawn window maps last, in front.
    let _terminal = handrail_testkit::TerminalBeside::start(|program| sandbox.command(program));
    let mut command = sandbox.command("/usr/bin/python3");
    command.arg(format!("{}/../../testdata/apps/drawn_gtk.py", env!("CARGO_MANIFEST_DIR")));
    let mut app = handrail_testkit::LineApp::spawn(command);
    assert!(app.wait_for(|l| l == "ready").is_some(), "drawn_gtk.py came up: {:?}", app.seen);
    let start = std::time::Instant::now();
    let o = loop {
        let o = engine.call_args(&raw(&[("action", "see")]));
        let listed =
            o.observation.as_ref().is_some_and(|obs| obs.elements.iter().any(|e| e.label.contains("Drawn by the app")));
        if listed && o.text().contains("window=\"Drawn canvas\"") {
            break o;
        }
        assert!(start.elapsed() < std::time::Duration::from_secs(30), "the window never showed: {}", o.text());
        std::thread::sleep(std::time::Duration::from_millis(200)); // polling interval, not a settle wait
    };
    let text = o.text();
    assert!(text.contains("ax=partial"), "{text}");
    let notes = o.observation.as_ref().map(|obs| obs.ax_notes.clone()).unwrap_or_default();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].contains(": the window in front has nothing inside it"), "{notes:?}");
    assert!(notes[0].contains("--force-renderer-accessibility"), "{notes:?}");
    let line = o
        .observation
        .as_ref()
        .and_then(|obs| obs.elements.iter().find(|e| e.label.contains("Drawn by the app")))
        .expect("listed");
    assert_eq!(line.source.as_str(), "ocr", "{text}");
    drop(app);
    drop(engine);
    sandbox.stop().expect("clean teardown");
}

/// PCManFM (GTK 2: not on the accessibility bus here) shows its files as icons with their names under
/// them and "4 items" in small type in its status bar: all of it is read off the screen, in Latin
/// (the Thai retry once read the status as "4 1 ไอทาร").
#[test]
fn a_file_managers_names_and_status_are_read_off_the_screen_as_latin() {
    assert!(
        std::path::Path::new("/usr/bin/pcmanfm").exists(),
        "PCManFM is installed (scripts/setup-desktop installs pcmanfm)"
    );
    let sandbox = Sandbox::start(SandboxOptions { parent_death_signal: false, ..SandboxOptions::default() })
        .expect("sandbox starts");
    let dir = sandbox.root().join("files");
    std::fs::create_dir_all(&dir).expect("a folder");
    for name in ["budget-2026.ods", "holiday.jpg", "letter.txt", "notes.md"] {
        std::fs::write(dir.join(name), "x").expect("a file");
    }
    // A terminal beside it, as on a person's desktop; the file manager maps last, in front.
    let _terminal = handrail_testkit::TerminalBeside::start(|program| sandbox.command(program));
    let mut pcmanfm = sandbox.command("pcmanfm");
    pcmanfm.arg("--no-desktop").arg(&dir);
    let _app = common::start_app(pcmanfm);
    let ocr = handrail_ocr::TesseractOcr::new(handrail_ocr::TesseractConfig::default());
    let mut engine =
        engine_for(&sandbox, Box::new(handrail_atspi::AtspiSource::new(sandbox.bus_address())), Box::new(ocr));
    let start = std::time::Instant::now();
    let labels = loop {
        let o = engine.call_args(&raw(&[("action", "see")]));
        let labels: Vec<String> = o
            .observation
            .as_ref()
            .map(|obs| obs.elements.iter().map(|e| e.label.clone()).collect())
            .unwrap_or_default();
        if labels.iter().any(|l| l.contains("items")) && labels.iter().any(|l| l.contains("notes.md")) {
            break labels;
        }
        assert!(start.elapsed() < std::time::Duration::from_secs(30), "the folder never showed: {}", o.text());
        std::thread::sleep(std::time::Duration::from_millis(300)); // polling interval, not a settle wait
    };
    let thai = |s: &str| s.chars().any(|c| ('\u{0E00}'..='\u{0E7F}').contains(&c));
    assert!(!labels.iter().any(|l| thai(l)), "Latin read as Thai: {labels:?}");
    assert!(labels.iter().any(|l| l == "4 items"), "{labels:?}");
    for name in ["holiday.jpg", "letter.txt", "notes.md"] {
        assert!(labels.iter().any(|l| l.contains(name)), "{name} listed: {labels:?}");
    }
    drop(engine);
    sandbox.stop().expect("clean teardown");
}

//! A corpus of real screens and their true text, and OCR's character error rate on it.
//!
//! `cargo run --release -p handrail-ocr --example cer -- capture DIR` shows each screen with real apps
//! from Debian on a private desktop (zenity dialogs, its calendar and list, Mousepad, LibreOffice Calc)
//! and writes `DIR/NAME.png` (the whole screen) and `DIR/NAME.txt` (the text known to be on it, one
//! line per label; window titles are left out: the window list gives them, not OCR).
//!
//! `cargo run --release -p handrail-ocr --example cer -- DIR` reads every screen of `DIR` and prints,
//! per screen and in all, the character error rate: for each true line, the fewest edits that turn it
//! into some stretch of what OCR read (spaces left out: Thai has none, and OCR's spacing is not what is
//! measured), summed, over the true characters. `script errors` counts Thai letters read on screens
//! that show none. The same captured corpus read by two builds compares them.

#[path = "../tests/common/mod.rs"]
mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};

use handrail_ocr::{TesseractConfig, TesseractOcr};
use handrail_platform::Ocr;
use handrail_sandbox::Sandbox;

/// Toolbar glyphs: what icons look like to OCR. Not text: none of it is in the truth.
const ICONS: [&str; 2] = ["ƒx  Σ  ⚙  ✂  ⎘  ★  ✎  ☰", "◀  ▶  ⟳  ⊕  ⊖  ⊗  ⊘"];
const FILES: [(&str, &str); 5] = [
    ("quarterly-report-2026.pdf", "1.2 MB"),
    ("holiday photos", "48 items"),
    ("notes.txt", "3.4 kB"),
    ("Übersicht_März.ods", "22.1 kB"),
    ("สัญญาเช่า.docx", "87.0 kB"),
];
const EDITOR: [&str; 4] = [
    "Shopping list for Saturday",
    "bread, milk, eggs and coffee",
    "Call the plumber at 10:30",
    "Rechnung bezahlen: 49,90 €",
];
const CELLS: [&str; 6] = ["Expense", "Amount", "Coffee", "12.50", "Rent", "900"];

struct Screen {
    name: &'static str,
    truth: Vec<String>,
    thai_shown: bool,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [mode, dir] if mode == "capture" => capture_all(Path::new(dir)),
        [dir] => evaluate(Path::new(dir)),
        _ => eprintln!("usage: cer capture DIR | cer DIR"),
    }
}

fn zenity(sb: &Sandbox, title: &str, args: &[&str]) -> Child {
    let child = sb
        .command("zenity")
        .args(["--title", title])
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("zenity starts");
    common::wait_for_window(sb, title);
    child
}

fn shot(sb: &Sandbox, dir: &Path, screen: &Screen) {
    let _settled = common::capture_settled(sb, common::something_drawn);
    let out = sb.command("import").args(["-window", "root", "png:-"]).stderr(Stdio::null()).output().expect("import");
    let png = out.stdout;
    std::fs::write(dir.join(format!("{}.png", screen.name)), png).expect("write png");
    let mut truth = screen.truth.join("\n");
    truth.push('\n');
    if screen.thai_shown {
        truth.insert_str(0, "# thai\n");
    }
    std::fs::write(dir.join(format!("{}.txt", screen.name)), truth).expect("write truth");
    eprintln!("captured {}", screen.name);
}

fn capture_all(dir: &Path) {
    std::fs::create_dir_all(dir).expect("corpus directory");
    let sb = common::desktop();
    let lines = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();

    let text =
        "The quick brown fox jumps over the lazy dog.\nDer Bericht wurde am Montag gespeichert.\nภาษาไทยเป็นภาษาที่สวยงาม";
    let app = zenity(&sb, "Notice", &["--info", "--no-wrap", "--text", text]);
    let mut truth = lines(&text.lines().collect::<Vec<_>>());
    truth.push("OK".into());
    shot(&sb, dir, &Screen { name: "dialog", truth, thai_shown: true });
    common::stop(app);

    let app = zenity(&sb, "Pick", &["--calendar", "--day", "10", "--month", "3", "--year", "2026"]);
    let mut truth = lines(&["Select a date from below.", "Calendar:", "March", "2026", "Cancel", "OK"]);
    truth.extend(["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"].iter().map(|s| s.to_string()));
    truth.extend((1..=31).map(|d| d.to_string()));
    shot(&sb, dir, &Screen { name: "calendar", truth, thai_shown: false });
    common::stop(app);

    let markup: Vec<String> = common::SMALL_LATIN
        .iter()
        .enumerate()
        .map(|(i, t)| format!("<span size=\"{}\">{t}</span>", if i % 2 == 0 { "x-small" } else { "small" }))
        .collect();
    let app = zenity(&sb, "Status", &["--info", "--no-wrap", "--text", &markup.join("\n")]);
    shot(&sb, dir, &Screen { name: "small_status", truth: lines(&common::SMALL_LATIN), thai_shown: false });
    common::stop(app);

    let mut markup: Vec<String> = ICONS.iter().map(|r| format!("<span size=\"xx-large\">{r}</span>")).collect();
    markup.push("Budget for the second quarter".into());
    let app = zenity(&sb, "Toolbar", &["--info", "--no-wrap", "--text", &markup.join("\n")]);
    let truth = lines(&["Budget for the second quarter", "OK"]);
    shot(&sb, dir, &Screen { name: "icons", truth, thai_shown: false });
    common::stop(app);

    let mut args = vec!["--list", "--width", "560", "--height", "360", "--column", "Name", "--column", "Size"];
    for (name, size) in FILES {
        args.extend([name, size]);
    }
    let app = zenity(&sb, "Files", &args);
    let mut truth = lines(&["Select items from the list below.", "Name", "Size", "Cancel", "OK"]);
    truth.extend(FILES.iter().flat_map(|(n, s)| [n.to_string(), s.to_string()]));
    shot(&sb, dir, &Screen { name: "file_list", truth, thai_shown: true });
    common::stop(app);

    let work = sb.root().join("corpus");
    std::fs::create_dir_all(&work).expect("work directory");
    let file = work.join("errands.txt");
    std::fs::write(&file, EDITOR.join("\n") + "\n").expect("editor file");
    let app = sb.command("mousepad").arg(&file).stdout(Stdio::null()).stderr(Stdio::null()).spawn();
    let app = handrail_testkit::Spawned(app.expect("mousepad starts"));
    common::wait_for_window(&sb, "errands.txt");
    let mut truth = lines(&EDITOR);
    truth.extend(["File", "Edit", "Search", "View", "Document", "Help"].iter().map(|s| s.to_string()));
    if sb.command("id").arg("-u").output().is_ok_and(|o| o.stdout.starts_with(b"0\n")) {
        truth.push("Warning: you are using the root account. You may harm your system.".into());
    }
    shot(&sb, dir, &Screen { name: "mousepad", truth, thai_shown: false });
    drop(app);

    let book = work.join("budget.fods");
    let rows: Vec<&[&str]> = CELLS.chunks(2).collect();
    std::fs::write(&book, handrail_testkit::flat_ods("Budget", &rows)).expect("book");
    let app = handrail_testkit::Calc::start(|program| sb.command(program), &work.join("lo-profile"), Some(&book));
    common::wait_for_window(&sb, "budget.fods");
    let mut truth = lines(&CELLS);
    truth.extend(
        ["File", "Edit", "View", "Insert", "Format", "Styles", "Sheet", "Data", "Tools", "Window", "Help"]
            .map(String::from),
    );
    truth.extend(
        ["Budget", "Sheet 1 of 1", "Default", "English (USA)", "100%", "DejaVu Sans", "10 pt", "A1"].map(String::from),
    );
    shot(&sb, dir, &Screen { name: "calc", truth, thai_shown: false });
    drop(app);
    sb.stop().expect("clean teardown");
}

fn evaluate(dir: &Path) {
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("corpus directory")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "png"))
        .collect();
    names.sort();
    let ocr = TesseractOcr::new(TesseractConfig::default());
    if !ocr.available() {
        eprintln!("OCR unavailable: {:?}", ocr.unavailable_reason());
        return;
    }
    let (mut all_edits, mut all_chars) = (0usize, 0usize);
    println!("| screen | true chars | edits | CER | script errors |");
    println!("|---|---:|---:|---:|---:|");
    for png in names {
        let frame = common::frame_from_png(&std::fs::read(&png).expect("read png"));
        let truth_text = std::fs::read_to_string(png.with_extension("txt")).expect("truth next to the png");
        let thai_shown = truth_text.starts_with("# thai\n");
        let truth: Vec<&str> = truth_text.lines().filter(|l| !l.starts_with('#') && !l.is_empty()).collect();
        ocr.forget();
        let read = ocr.recognize_full(&frame, None).expect("recognize");
        let seen: Vec<char> = read.iter().flat_map(|l| l.text.chars()).filter(|c| !c.is_whitespace()).collect();
        let (mut edits, mut chars) = (0usize, 0usize);
        for line in &truth {
            let t: Vec<char> = line.chars().filter(|c| !c.is_whitespace()).collect();
            let d = best_match(&t, &seen);
            if d > 0 {
                eprintln!("  {}: {line:?} off by {d}", png.display());
            }
            edits += d;
            chars += t.len();
        }
        let thai = if thai_shown { 0 } else { seen.iter().filter(|&&c| common::is_thai(c)).count() };
        let name = png.file_stem().and_then(|s| s.to_str()).unwrap_or("?");
        println!("| {name} | {chars} | {edits} | {:.1}% | {thai} |", 100.0 * edits as f64 / chars.max(1) as f64);
        all_edits += edits;
        all_chars += chars;
    }
    println!("| all | {all_chars} | {all_edits} | {:.1}% | |", 100.0 * all_edits as f64 / all_chars.max(1) as f64);
}

/// The fewest edits (insertions, deletions, substitutions) that turn `t` into some stretch of `s`.
fn best_match(t: &[char], s: &[char]) -> usize {
    // Row j: edits to match t[..i] ending at s[..j]; starting anywhere in s costs nothing.
    let mut prev: Vec<usize> = vec![0; s.len() + 1];
    for (i, &tc) in t.iter().enumerate() {
        let mut cur = vec![i + 1; s.len() + 1];
        for (j, &sc) in s.iter().enumerate() {
            let sub = prev[j] + usize::from(tc != sc);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev.into_iter().min().unwrap_or(t.len())
}

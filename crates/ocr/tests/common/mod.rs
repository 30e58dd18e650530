//! Shared helpers for the OCR tests: a private sandbox desktop, apps showing known text, screenshots
//! taken with ImageMagick's `import` and decoded into frames.
#![allow(dead_code)] // each test file uses a different subset

use std::io::Write;
use std::process::{Child, ChildStdin, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use handrail_ocr::TesseractOcr;
use handrail_platform::{Frame, Ocr, OcrLine, Rect};
use handrail_sandbox::{Sandbox, SandboxOptions};

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Desktops and OCR passes are heavy on a 2-core machine: run them one after another.
pub fn serial() -> MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

pub fn init_log() {
    handrail_sandbox::log_to_stderr();
}

/// A 1280x800 desktop with a window manager and a light background (no accessibility bus: not needed).
pub fn desktop() -> Sandbox {
    let opts = SandboxOptions { accessibility: false, ..SandboxOptions::default() };
    Sandbox::start(opts).expect("start sandbox desktop (scripts/setup-desktop installs what it needs)")
}

/// Decodes PNG bytes into a BGRX frame.
pub fn frame_from_png(bytes: &[u8]) -> Frame {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().expect("png header");
    let mut buf = vec![0; reader.output_buffer_size().expect("png size")];
    let info = reader.next_frame(&mut buf).expect("png data");
    let channels = info.color_type.samples();
    let rgb: Vec<u8> = buf[..info.buffer_size()]
        .chunks_exact(channels)
        .flat_map(|p| if channels < 3 { [p[0], p[0], p[0]] } else { [p[0], p[1], p[2]] })
        .collect();
    handrail_imaging::frame_from_rgb(info.width, info.height, &rgb)
}

/// The whole screen, via `import -window root`.
pub fn capture(sb: &Sandbox) -> Frame {
    let out =
        sb.command("import").args(["-window", "root", "png:-"]).stderr(Stdio::null()).output().expect("run import");
    assert!(out.status.success(), "import failed: {:?}", out.status);
    frame_from_png(&out.stdout)
}

/// Captures until two consecutive screenshots 150 ms apart are identical and `ready` holds (10 s bound).
pub fn capture_settled(sb: &Sandbox, ready: impl Fn(&Frame) -> bool) -> Frame {
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut last = capture(sb);
    loop {
        std::thread::sleep(Duration::from_millis(150));
        let next = capture(sb);
        if next == last && ready(&next) {
            return next;
        }
        assert!(Instant::now() < deadline, "screen did not settle");
        last = next;
    }
}

/// True once some pixel differs from the background colour of the top-left corner.
pub fn something_drawn(f: &Frame) -> bool {
    let bg = &f.pixels[..3];
    f.pixels.chunks_exact(4).any(|p| &p[..3] != bg)
}

/// Waits until a visible window titled `title` exists.
pub fn wait_for_window(sb: &Sandbox, title: &str) {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let out = sb
            .command("xdotool")
            .args(["search", "--onlyvisible", "--name", title])
            .stderr(Stdio::null())
            .output()
            .expect("run xdotool");
        if out.status.success() && !out.stdout.is_empty() {
            return;
        }
        assert!(Instant::now() < deadline, "window {title:?} did not appear");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Moves the (first) visible window titled `title` so its frame's top-left is at (x, y).
pub fn move_window(sb: &Sandbox, title: &str, x: i32, y: i32) {
    let status = sb
        .command("xdotool")
        .args(["search", "--onlyvisible", "--name", title, "windowmove", &x.to_string(), &y.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("run xdotool");
    assert!(status.success(), "could not move {title:?}");
}

/// A zenity message dialog showing `text`, titled `title`.
pub fn info_dialog(sb: &Sandbox, title: &str, text: &str) -> Child {
    let child = sb
        .command("zenity")
        .args(["--info", "--no-wrap", "--title", title, "--text", text])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn zenity");
    wait_for_window(sb, title);
    child
}

/// A zenity progress dialog whose label changes when `# new text` lines are written to its stdin.
pub struct Progress {
    pub child: Child,
    stdin: ChildStdin,
}

impl Progress {
    pub fn start(sb: &Sandbox, title: &str, text: &str) -> Progress {
        let mut child = sb
            .command("zenity")
            .args(["--progress", "--no-cancel", "--width=460", "--percentage=30", "--title", title, "--text", text])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn zenity --progress");
        let stdin = child.stdin.take().expect("piped stdin");
        wait_for_window(sb, title);
        Progress { child, stdin }
    }

    pub fn set_text(&mut self, text: &str) {
        writeln!(self.stdin, "# {text}").and_then(|_| self.stdin.flush()).expect("write to zenity");
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Stops a child we started (the sandbox would too, but be tidy).
pub fn stop(mut child: Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// Bounding box of the pixels that differ between two frames of the same size.
pub fn diff_bounds(a: &Frame, b: &Frame) -> Option<Rect> {
    let (w, h) = (a.size.width, a.size.height);
    let mut r: Option<Rect> = None;
    for y in 0..h {
        let (ra, rb) = (a.row(y), b.row(y));
        for x in 0..w {
            let i = x as usize * 4;
            if ra[i..i + 3] != rb[i..i + 3] {
                let p = Rect::new(x as i32, y as i32, 1, 1);
                r = Some(r.map_or(p, |r| r.union(&p)));
            }
        }
    }
    r
}

/// Bounding box of dark ("ink") pixels of `f` inside `within`.
pub fn ink_bounds(f: &Frame, within: Rect) -> Option<Rect> {
    let mut r: Option<Rect> = None;
    for y in within.y..within.bottom() as i32 {
        let row = f.row(y as u32);
        for x in within.x..within.right() as i32 {
            let p = &row[x as usize * 4..][..3];
            let luma = (u32::from(p[0]) * 29 + u32::from(p[1]) * 150 + u32::from(p[2]) * 77) >> 8;
            if luma < 140 {
                let q = Rect::new(x, y, 1, 1);
                r = Some(r.map_or(q, |r| r.union(&q)));
            }
        }
    }
    r
}

/// Every recognised word (space-separated tokens of every line).
pub fn words(lines: &[OcrLine]) -> Vec<String> {
    lines.iter().flat_map(|l| l.text.split_whitespace().map(str::to_owned)).collect()
}

/// Fraction of `expected` words found among `got` (as a multiset; punctuation kept).
pub fn word_recall(expected: &str, got: &[String]) -> f64 {
    let mut pool: Vec<&str> = got.iter().map(String::as_str).collect();
    let exp: Vec<&str> = expected.split_whitespace().collect();
    let mut found = 0;
    for w in &exp {
        if let Some(i) = pool.iter().position(|g| g == w) {
            pool.swap_remove(i);
            found += 1;
        }
    }
    found as f64 / exp.len().max(1) as f64
}

/// How much of `expected` (spaces removed) appears in the best-matching line (spaces removed), as the
/// fraction of `expected`'s characters covered by a longest-common-subsequence alignment.
pub fn thai_recall(expected: &str, lines: &[OcrLine]) -> f64 {
    let exp: Vec<char> = expected.chars().filter(|c| !c.is_whitespace()).collect();
    lines
        .iter()
        .map(|l| {
            let got: Vec<char> = l.text.chars().filter(|c| !c.is_whitespace()).collect();
            lcs(&exp, &got) as f64 / exp.len().max(1) as f64
        })
        .fold(0.0, f64::max)
}

fn lcs(a: &[char], b: &[char]) -> usize {
    let mut prev = vec![0usize; b.len() + 1];
    for ca in a {
        let mut cur = vec![0usize; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = if ca == cb { prev[j] + 1 } else { prev[j + 1].max(cur[j]) };
        }
        prev = cur;
    }
    prev[b.len()]
}

/// A letter or mark of the Thai block.
pub fn is_thai(c: char) -> bool {
    ('\u{0E00}'..='\u{0E7F}').contains(&c)
}

/// The lines with any Thai in them: on a screen that shows none, what was misread as Thai.
pub fn read_as_thai(lines: &[OcrLine]) -> Vec<&str> {
    lines.iter().map(|l| l.text.as_str()).filter(|t| t.chars().any(is_thai)).collect()
}

/// What OCR reads of a zenity message dialog titled `title` showing `markup` on `sb`.
pub fn read_dialog(sb: &Sandbox, title: &str, markup: &str, ocr: &TesseractOcr) -> Vec<OcrLine> {
    let dialog = info_dialog(sb, title, markup);
    let frame = capture_settled(sb, something_drawn);
    let lines = ocr.recognize(&frame, None).expect("recognize");
    stop(dialog);
    lines
}

/// Prints lines for a failing assertion's context.
pub fn dump(lines: &[OcrLine]) -> String {
    lines.iter().map(|l| format!("  {:?} @ {:?} ({:.0})\n", l.text, l.bounds, l.confidence)).collect()
}

/// Short Latin status texts in small type, as file managers and editors draw them.
pub const SMALL_LATIN: [&str; 8] = [
    "2 items",
    "14 files selected",
    "Free space: 3.1 GB",
    "Ln 3, Col 7",
    "Sel. Chars: 0",
    "Words: 12",
    "100%",
    "UTF-8",
];

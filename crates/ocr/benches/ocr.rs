//! OCR speed on a real 1280x800 desktop (private sandbox): gtk3-demo, a dialog with English and Thai
//! text, and a progress dialog whose label changes.
//!
//! `OMP_THREAD_LIMIT=1 cargo bench -p handrail-ocr --bench ocr` (the bench also sets it in-process before
//! Tesseract loads). Reports wall and CPU time (the CPU time is robust against other load on the machine).

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use common::*;
use handrail_ocr::{TesseractConfig, TesseractOcr, Upscale};
use handrail_platform::{Frame, Ocr};

/// CPU time of the process (all threads).
fn cpu() -> Duration {
    let mut ru = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage fills the struct it is given; zeroed is a valid rusage either way.
    let ru = unsafe {
        libc::getrusage(libc::RUSAGE_SELF, ru.as_mut_ptr());
        ru.assume_init()
    };
    let tv = |t: libc::timeval| Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64);
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Runs `f` `n` times; median wall and CPU time.
fn measure(n: usize, mut f: impl FnMut()) -> (f64, f64) {
    let mut walls = Vec::new();
    let mut cpus = Vec::new();
    for _ in 0..n {
        let (t, c) = (Instant::now(), cpu());
        f();
        walls.push(ms(t.elapsed()));
        cpus.push(ms(cpu() - c));
    }
    walls.sort_by(f64::total_cmp);
    cpus.sort_by(f64::total_cmp);
    (walls[n / 2], cpus[n / 2])
}

/// Labels on the benchmark screen (gtk3-demo's sidebar, tabs and text; the dialogs).
const PHRASES: &[&str] = &[
    "Run",
    "Info",
    "Source",
    "application.ui",
    "menus.ui",
    "application.c",
    "Assistant",
    "Benchmark",
    "Builder",
    "Button Boxes",
    "Change Display",
    "Clipboard",
    "Color Chooser",
    "Combo Boxes",
    "Cursors",
    "Dialogs and Message Boxes",
    "Drawing Area",
    "Entry",
    "Demonstrates a simple application.",
    "separate process.",
    "The quick brown fox jumps over the lazy dog.",
    "Preparing files",
    "OK",
];
const THAI: &[&str] = &["ภาษาไทยเป็นภาษาที่สวยงาม", "กรุณาบันทึกเอกสารของคุณก่อนปิดหน้าต่าง"];

fn config(languages: &str, upscale: Upscale, parallelism: usize) -> TesseractConfig {
    TesseractConfig { languages: languages.into(), upscale, parallelism, ..TesseractConfig::default() }
}

fn main() {
    handrail_ocr::ensure_thread_limit_or_reexec();
    let runs = std::env::var("OCR_BENCH_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(5);

    let sb = desktop();
    let demo = sb.spawn("gtk3-demo", std::iter::empty::<&str>()).expect("spawn gtk3-demo");
    wait_for_window(&sb, "Application Class");
    move_window(&sb, "Application Class", 0, 0);
    let info = info_dialog(
        &sb,
        "Notice",
        "The quick brown fox jumps over the lazy dog.\nภาษาไทยเป็นภาษาที่สวยงาม\nกรุณาบันทึกเอกสารของคุณก่อนปิดหน้าต่าง",
    );
    move_window(&sb, "Notice", 830, 100);
    let mut progress = Progress::start(&sb, "Copying", "Preparing files");
    move_window(&sb, "Copying", 810, 420);
    let a = capture_settled(&sb, something_drawn);
    progress.set_text("Saving the document now");
    let b = capture_settled(&sb, |f| f != &a);
    stop(info);
    stop(demo);
    drop(progress);

    println!("OCR on a 1280x800 desktop, {runs} runs each, median (OMP_THREAD_LIMIT in effect: {})", {
        handrail_ocr::thread_limit_in_effect()
    });
    println!("{:<48} {:>8} {:>8} {:>6} {:>7}", "case", "wall ms", "cpu ms", "lines", "found");

    for languages in ["eng", "eng+tha"] {
        let t = Instant::now();
        let ocr = TesseractOcr::new(config(languages, Upscale::Always, 1));
        ocr.warm_up().expect("warm up");
        println!("{:<48} {:>8.0}", format!("model load, {languages}"), ms(t.elapsed()));
    }

    let cases: Vec<(String, TesseractConfig)> = vec![
        ("eng, 1x, 1 engine".into(), config("eng", Upscale::Never, 1)),
        ("eng, 1x, 2 engines".into(), config("eng", Upscale::Never, 2)),
        ("eng, 2x, 1 engine".into(), config("eng", Upscale::Always, 1)),
        ("eng, 2x, 2 engines".into(), config("eng", Upscale::Always, 2)),
        ("eng+tha, 1x, 1 engine".into(), config("eng+tha", Upscale::Never, 1)),
        ("eng+tha, 2x, 1 engine".into(), config("eng+tha", Upscale::Always, 1)),
        ("eng+tha, 2x, 2 engines (default)".into(), config("eng+tha", Upscale::Always, 2)),
        (
            "eng+tha, 2x, 1 engine, Tesseract's multi-lang".into(),
            TesseractConfig { split_languages: false, ..config("eng+tha", Upscale::Always, 1) },
        ),
        (
            "eng+tha, 2x, 1 engine, no bg normalisation".into(),
            TesseractConfig { normalize_background: false, ..config("eng+tha", Upscale::Always, 1) },
        ),
    ];
    for (name, cfg) in cases {
        let thai = cfg.languages.contains("tha");
        let ocr = TesseractOcr::new(cfg);
        ocr.warm_up().expect("warm up");
        let mut lines = Vec::new();
        let (wall, cpu) = measure(runs, || lines = ocr.recognize_full(&a, None).expect("ocr"));
        let expected: Vec<&str> = PHRASES.iter().chain(if thai { THAI.iter() } else { [].iter() }).copied().collect();
        let found = expected.iter().filter(|p| lines.iter().any(|l| l.text.contains(*p))).count();
        let found = format!("{found}/{}", expected.len());
        println!("{:<48} {wall:>8.0} {cpu:>8.0} {:>6} {found:>7}", format!("full, {name}"), lines.len());
    }

    // Incremental: alternate between the two frames, so every call sees exactly one label changed.
    let ocr = TesseractOcr::new(TesseractConfig::default());
    ocr.warm_up().expect("warm up");
    ocr.recognize(&a, None).expect("first pass");
    let frames: [&Frame; 2] = [&b, &a];
    let mut i = 0;
    let mut lines = 0;
    let (wall, cpu) = measure(runs * 2, || {
        lines = ocr.recognize(frames[i % 2], None).expect("ocr").len();
        i += 1;
    });
    let s = ocr.stats();
    let px: u64 = s.last_regions.iter().map(|r| r.area()).sum();
    println!("{:<48} {wall:>8.1} {cpu:>8.1} {lines:>6}", "incremental, one label changed (default)");
    println!("  (read {} region(s), {px} px of {} per call)", s.last_regions.len(), a.size.area());
    let (wall, cpu) = measure(runs * 2, || lines = ocr.recognize(&a, None).expect("ocr").len());
    println!("{:<48} {wall:>8.1} {cpu:>8.1} {lines:>6}", "unchanged frame (reused)");
}

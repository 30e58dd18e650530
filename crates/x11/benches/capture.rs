//! Screen capture speed: handrail against the tools peers shell out to, side by side in one run.
//!
//! Starts its own sandbox desktop (1280x800x24), puts realistic content on it (gtk3-demo's main window
//! and an xterm full of coloured text over a grey root), waits for the screen to settle, then times
//! every method in `HANDRAIL_BENCH_RUNS` rounds (default 30, after 3 warm-up rounds; each round runs
//! each method once) and prints a markdown table of medians with ratios against handrail's default
//! path (MIT-SHM capture + JPEG encode).
//! Peers run inside the sandbox with its environment; a peer that is not installed is listed as such.
//!
//! ```text
//! cargo bench -p handrail-x11 --bench capture
//! ```

use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use handrail_imaging::{JpegEncoder, PngEncoder};
use handrail_platform::{Encoder, Screen, Settle, SettleRequest, Size};
use handrail_sandbox::{Sandbox, SandboxOptions};
use handrail_x11::capture::{CaptureMethod, X11Screen};
use handrail_x11::settle::X11Settle;
use handrail_x11::Conn;

const WARMUP: usize = 3;

/// One timed method: what it is and how to run it once (returning the output size in bytes).
struct Method<'a> {
    name: String,
    run: Box<dyn FnMut() -> Result<usize, String> + 'a>,
}

struct Row {
    name: String,
    median: Option<Duration>,
    p90: Option<Duration>,
    bytes: Option<usize>,
    note: String,
}

fn main() {
    let runs: usize = std::env::var("HANDRAIL_BENCH_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(30).max(1);
    let sandbox = match Sandbox::start(SandboxOptions { accessibility: false, ..Default::default() }) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("cannot start the sandbox desktop (see scripts/setup-desktop): {e}");
            std::process::exit(1);
        }
    };
    let display = sandbox.display();
    let conn = Conn::open(&display).expect("connect to the sandbox");
    let settle = X11Settle::new(&display).expect("DAMAGE");

    // Realistic content: a GTK application window and a terminal with coloured text.
    let spawn = |program: &str, args: &[&str]| {
        sandbox.command(program).args(args).stdout(Stdio::null()).stderr(Stdio::null()).spawn().ok()
    };
    let mut apps = Vec::new();
    apps.extend(spawn("gtk3-demo", &[]));
    apps.extend(spawn(
        "xterm",
        &[
            "-geometry",
            "100x30+420+380",
            "-bg",
            "#102030",
            "-fg",
            "#e0d080",
            "-e",
            "sh",
            "-c",
            "ls -l --color=always /usr/bin | head -40; exec sleep 1000",
        ],
    ));
    let req = SettleRequest {
        response_window: Duration::from_secs(3),
        quiet: Duration::from_millis(500),
        ceiling: Duration::from_secs(15),
    };
    match settle.watch().and_then(|mut w| w.wait(&req)) {
        Ok(r) => eprintln!("desktop drawn and settled after {:?} (settled: {})", r.waited, r.settled),
        Err(e) => eprintln!("settle failed ({e}); measuring anyway"),
    }

    let shm = X11Screen::with_method(Arc::clone(&conn), CaptureMethod::Shm).expect("MIT-SHM capture");
    let get = X11Screen::with_method(Arc::clone(&conn), CaptureMethod::GetImage).expect("GetImage capture");
    let jpeg = JpegEncoder::default();
    let png = PngEncoder::default();
    let screen = shm.screen_size().expect("screen size");
    let capture_encode = |s: &X11Screen, e: &dyn Encoder, max: Option<Size>| {
        let frame = s.capture(None, max).map_err(|e| e.to_string())?;
        Ok(e.encode(&frame).map_err(|e| e.to_string())?.bytes.len())
    };
    let tmp = sandbox.home().join("bench.png");
    let tmp_arg = tmp.to_string_lossy().into_owned();
    let mut methods: Vec<(Method, Option<&str>)> = vec![
        (
            Method {
                name: format!("handrail SHM capture + JPEG q{} ({screen})", jpeg.quality()),
                run: Box::new(|| capture_encode(&shm, &jpeg, None)),
            },
            None,
        ),
        (
            Method {
                name: "handrail GetImage capture + JPEG".into(),
                run: Box::new(|| capture_encode(&get, &jpeg, None)),
            },
            None,
        ),
        (
            Method {
                name: "handrail SHM capture + PNG (fast)".into(),
                run: Box::new(|| capture_encode(&shm, &png, None)),
            },
            None,
        ),
        (
            Method {
                name: "handrail SHM capture → 1024x640 + JPEG".into(),
                run: Box::new(|| capture_encode(&shm, &jpeg, Some(Size::new(1024, 1024)))),
            },
            None,
        ),
        (
            Method {
                name: "handrail SHM capture only (BGRX frame)".into(),
                run: Box::new(|| shm.capture(None, None).map(|f| f.pixels.len()).map_err(|e| e.to_string())),
            },
            None,
        ),
        (
            Method {
                name: "handrail GetImage capture only".into(),
                run: Box::new(|| get.capture(None, None).map(|f| f.pixels.len()).map_err(|e| e.to_string())),
            },
            None,
        ),
        (
            Method {
                name: "`scrot -o file.png`".into(),
                run: peer(&sandbox, &tmp, "scrot", vec!["-o".into(), tmp_arg.clone()]),
            },
            Some("scrot"),
        ),
        (
            Method {
                name: "`xwd -root \\| convert xwd:- png:-`".into(),
                run: peer(&sandbox, &tmp, "sh", vec!["-c".into(), "xwd -root -silent | convert xwd:- png:-".into()]),
            },
            Some("xwd"),
        ),
        (
            Method {
                name: "`xwd -root` (raw dump only)".into(),
                run: peer(&sandbox, &tmp, "xwd", vec!["-root".into(), "-silent".into()]),
            },
            Some("xwd"),
        ),
        (
            Method {
                name: "`import -window root png:-`".into(),
                run: peer(&sandbox, &tmp, "import", vec!["-window".into(), "root".into(), "png:-".into()]),
            },
            Some("import"),
        ),
    ];

    // Round-robin: every round runs each method once, so load from elsewhere on the machine (builds,
    // other tests) lands on all methods alike instead of skewing whichever ran during it.
    let mut timed: Vec<Timed> = methods
        .iter()
        .map(|(m, needs)| Timed {
            samples: Vec::with_capacity(runs),
            bytes: 0,
            error: needs.filter(|p| !installed(p)).map(|p| format!("{p} not installed")),
            name: m.name.clone(),
        })
        .collect();
    eprintln!("timing {} methods, {WARMUP} + {runs} rounds…", methods.len());
    for round in 0..WARMUP + runs {
        for ((m, _), t) in methods.iter_mut().zip(&mut timed) {
            if t.error.is_some() {
                continue;
            }
            let start = Instant::now();
            match (m.run)() {
                Ok(n) => t.bytes = n,
                Err(e) => t.error = Some(e),
            }
            if round >= WARMUP {
                t.samples.push(start.elapsed());
            }
        }
    }
    let rows: Vec<Row> = timed.into_iter().map(Timed::row).collect();

    let base = rows[0].median;
    println!();
    println!("Screen capture, {screen} sandbox desktop (Xvfb), median of {runs} interleaved rounds after {WARMUP} warm-up rounds:");
    println!();
    println!("| method | median | p90 | output | time ÷ handrail SHM + JPEG |");
    println!("|---|---:|---:|---:|---:|");
    for r in &rows {
        let ms = |d: Option<Duration>| d.map_or_else(|| "—".into(), |d| format!("{:.2} ms", d.as_secs_f64() * 1000.0));
        let ratio = match (r.median, base) {
            (Some(m), Some(b)) if !b.is_zero() => {
                let x = m.as_secs_f64() / b.as_secs_f64();
                if x < 0.1 {
                    format!("{x:.3}×")
                } else {
                    format!("{x:.1}×")
                }
            }
            _ => "—".into(),
        };
        let size = r.bytes.map_or_else(|| r.note.clone(), |b| format!("{:.0} KiB", b as f64 / 1024.0));
        println!("| {} | {} | {} | {size} | {ratio} |", r.name, ms(r.median), ms(r.p90));
    }
    println!();
    println!(
        "Reproduce: `cargo bench -p handrail-x11 --bench capture` (HANDRAIL_BENCH_RUNS=N to change the run count)."
    );

    drop(methods);
    for mut a in apps {
        let _ = a.kill();
        let _ = a.wait();
    }
    drop(settle);
    if let Err(e) = sandbox.stop() {
        eprintln!("sandbox teardown: {e}");
    }
}

/// Runs `program args…` in the sandbox; the output size is its stdout, or `file` when stdout is empty.
fn peer<'a>(
    sandbox: &'a Sandbox,
    file: &'a std::path::Path,
    program: &'static str,
    args: Vec<String>,
) -> Box<dyn FnMut() -> Result<usize, String> + 'a> {
    Box::new(move || {
        let out = sandbox
            .command(program)
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .output()
            .map_err(|e| format!("{program}: {e}"))?;
        if !out.status.success() {
            return Err(format!("{program} exited with {}", out.status));
        }
        Ok(if out.stdout.is_empty() {
            std::fs::metadata(file).map(|m| m.len() as usize).unwrap_or(0)
        } else {
            out.stdout.len()
        })
    })
}

fn installed(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Samples of one method.
struct Timed {
    name: String,
    samples: Vec<Duration>,
    bytes: usize,
    error: Option<String>,
}

impl Timed {
    fn row(mut self) -> Row {
        if let Some(note) = self.error {
            return Row { name: self.name, median: None, p90: None, bytes: None, note };
        }
        self.samples.sort();
        let at = |q: f64| self.samples.get(((self.samples.len().max(1) - 1) as f64 * q).round() as usize).copied();
        Row { median: at(0.5), p90: at(0.9), bytes: Some(self.bytes), note: String::new(), name: self.name }
    }
}

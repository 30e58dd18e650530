//! Observation speed through the whole engine on a real desktop: a cold `see` (no accessibility cache,
//! no OCR memory) and a warm `see` of an unchanged screen, with gtk3-demo and a GTK form on screen,
//! accessibility and full OCR (eng+tha); then click → settled → fresh observation on a GTK button that
//! changes a label, against the xdotool + fixed 2 s wait + screenshot pipeline of popular demos.
//!
//! Run: `OMP_THREAD_LIMIT=1 cargo bench -p handrail-x11 --bench observe` (the `handrail` binary sets
//! OMP_THREAD_LIMIT itself; a bench binary cannot, Tesseract reads it at process start).

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use handrail_atspi::AtspiSource;
use handrail_core::{Config, Engine, Mode, RawArgs, Status, Turn, Vision};
use handrail_ocr::{TesseractConfig, TesseractOcr};
use handrail_platform::{Accessibility, AxLimits, AxSnapshot, Frame, Ocr, OcrLine, PlatformError, Rect};
use handrail_sandbox::{Sandbox, SandboxOptions, REMOVED_ENV};
use handrail_x11::windows::LaunchEnv;
use handrail_x11::{X11Desktop, X11Options};

const RUNS: usize = 15;

/// Lets the bench clear the sources' caches while the engine owns them.
struct SharedAx(Arc<AtspiSource>);
impl Accessibility for SharedAx {
    fn snapshot(&self, limits: &AxLimits) -> AxSnapshot {
        self.0.snapshot(limits)
    }

    fn layout_may_have_moved(&self) {
        self.0.layout_may_have_moved();
    }
}
struct SharedOcr(Arc<TesseractOcr>);
impl Ocr for SharedOcr {
    fn available(&self) -> bool {
        self.0.available()
    }
    fn recognize(&self, frame: &Frame, region: Option<Rect>) -> Result<Vec<OcrLine>, PlatformError> {
        self.0.recognize(frame, region)
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn see() -> RawArgs {
    RawArgs { action: Some("see".into()), ..RawArgs::default() }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    if !handrail_ocr::thread_limit_in_effect() {
        eprintln!("note: OMP_THREAD_LIMIT is not 1; OCR will be several times slower than in handrail");
    }
    let sandbox = Sandbox::start(SandboxOptions { parent_death_signal: false, ..SandboxOptions::default() })?;
    let mut demo = sandbox.command("gtk3-demo").stdout(Stdio::null()).stderr(Stdio::null()).spawn()?;
    let app = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/apps/probe_gtk.py");
    let mut probe = sandbox.command("/usr/bin/python3").arg(app).stdout(Stdio::piped()).spawn()?;
    let stdout = probe.stdout.take().ok_or("no stdout")?;
    let (tx, rx) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    while rx.recv_timeout(Duration::from_secs(15))? != "ready" {}

    let ax = Arc::new(AtspiSource::new(sandbox.bus_address()));
    let ocr = Arc::new(TesseractOcr::new(TesseractConfig::default()));
    ocr.warm_up()?;
    let mut launch = LaunchEnv::new(sandbox.env(), sandbox.root().join("browser"));
    launch.removed = REMOVED_ENV.iter().map(|s| s.to_string()).collect();
    let desktop = X11Desktop::connect(
        X11Options::new(sandbox.display(), launch),
        Box::new(SharedAx(Arc::clone(&ax))),
        Box::new(SharedOcr(Arc::clone(&ocr))),
    )?;
    let mut engine = Engine::new(desktop, Config { vision: Vision::Capable, ..Config::default() });
    engine.begin_turn(Turn { id: "bench".into(), intent: String::new(), mode: Mode::Interactive });
    // Let gtk3-demo finish mapping before measuring (its window arrives after the probe's).
    let deadline = Instant::now() + Duration::from_secs(15);
    while Instant::now() < deadline {
        let o = engine.call_args(&see());
        if o.observation.as_ref().is_some_and(|obs| obs.elements.iter().any(|e| e.app.contains("gtk3-demo"))) {
            break;
        }
    }

    let mut cold = Vec::new();
    let mut nodes = 0;
    let mut elements = 0;
    let mut text_bytes = 0;
    for _ in 0..RUNS {
        engine.begin_turn(Turn { id: "bench".into(), intent: String::new(), mode: Mode::Interactive });
        ax.clear_cache();
        ocr.forget();
        let start = Instant::now();
        let o = engine.call_args(&see());
        cold.push(start.elapsed());
        assert_eq!(o.status, Status::Ok, "{}", o.text());
        nodes = ax.last_stats().nodes;
        elements = o.observation.as_ref().map_or(0, |obs| obs.elements.len());
        text_bytes = o.text().len();
    }
    let mut warm = Vec::new();
    for _ in 0..RUNS {
        let start = Instant::now();
        let o = engine.call_args(&see());
        warm.push(start.elapsed());
        assert_eq!(o.status, Status::Ok);
    }

    // Click the probe's "Change" button by element id; each click flips a label.
    let mut clicks = Vec::new();
    let mut changed = 0;
    for _ in 0..RUNS {
        let (obs, id) = {
            let latest = engine.latest().ok_or("no observation")?;
            let e = latest
                .elements
                .iter()
                .find(|e| e.label == "Change" && e.role.as_str() == "button")
                .ok_or("no Change button listed")?;
            (latest.id.to_string(), e.id.to_string())
        };
        let args = RawArgs {
            action: Some("click".into()),
            observation_id: Some(obs),
            element_id: Some(id),
            ..RawArgs::default()
        };
        // A person's clicks on one button come seconds apart: the hold that keeps two quick clicks on
        // one spot from reading as a double-click is not what this measures.
        std::thread::sleep(handrail_platform::click_spacing::DOUBLE_CLICK_TIME);
        let start = Instant::now();
        let o = engine.call_args(&args);
        clicks.push(start.elapsed());
        if o.status == Status::Ok {
            changed += 1;
        }
    }

    // The reference: xdotool click + fixed 2 s wait + scrot, on the same button.
    let latest = engine.latest().ok_or("no observation")?;
    let button = latest.elements.iter().find(|e| e.label == "Change").ok_or("no button")?.bounds.center();
    let shot = sandbox.root().join("shot.png");
    let mut reference = Vec::new();
    for _ in 0..3 {
        let start = Instant::now();
        sandbox
            .command("xdotool")
            .args(["mousemove", &button.x.to_string(), &button.y.to_string(), "click", "1"])
            .status()?;
        std::thread::sleep(Duration::from_secs(2)); // the peer's fixed wait, measured as it is
        sandbox.command("scrot").arg("-o").arg(&shot).status()?;
        reference.push(start.elapsed());
    }

    println!("observe through the engine: gtk3-demo + a GTK form, 1280x800, accessibility + OCR (eng+tha)\n");
    println!("| measurement | median | detail |");
    println!("|---|---:|---|");
    println!(
        "| cold `see` (no AX cache, no OCR memory) | {:.1} ms | {nodes} AX nodes → {elements} elements, {text_bytes} B of text |",
        ms(median(cold))
    );
    println!(
        "| warm `see`, unchanged screen | {:.1} ms | AX from the event-kept cache, OCR reused |",
        ms(median(warm))
    );
    println!(
        "| click → settled → fresh observation (handrail) | {:.1} ms | {changed}/{RUNS} reported `changed` |",
        ms(median(clicks.clone()))
    );
    println!(
        "| `xdotool click` + fixed 2 s + scrot (popular demos) | {:.1} ms | {:.1}x slower than handrail, and no elements |",
        ms(median(reference.clone())),
        ms(median(reference)) / ms(median(clicks))
    );
    println!("\nreproduce: OMP_THREAD_LIMIT=1 cargo bench -p handrail-x11 --bench observe");
    drop(engine);
    let _ = probe.kill();
    let _ = demo.kill();
    let _ = probe.wait();
    let _ = demo.wait();
    sandbox.stop()?;
    Ok(())
}

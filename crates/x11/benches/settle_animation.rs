//! Settling beside animations that never stop: what a call costs end to end when a spinner, a
//! progress bar, a blinking caret or a ticking clock shares the screen with the action's effect.
//!
//! Run: `OMP_THREAD_LIMIT=1 cargo bench -p handrail-x11 --bench settle_animation`. Starts its own
//! sandbox desktop and, through the engine as a model would drive it:
//! - `open_app gtk3-widget-factory` (its first page has a spinner and pulsing progress bars that run
//!   forever), closed again between runs;
//! - `type` into the GTK probe app's name entry, whose caret blinks (read back from the app's stdout);
//! - `type` one character at a time into an xterm running `cat`, **back to back** (no pause between
//!   calls, as an agent that acts without looking long), beside gtk3-widget-factory's spinner, which
//!   shows below the terminal (what `cat` wrote to its file is compared at the end);
//! - `click` a button on a Chromium page with a CSS spinner and a clock ticking every second (the
//!   page reports each click to the bench's own HTTP server).
//!
//! Every call but the back-to-back ones starts on a screen that has been left alone for 1.6 s, as
//! after a model's turn.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::process::Stdio;
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use handrail_atspi::AtspiSource;
use handrail_core::{Budgets, Config, Engine, Mode, Outcome, RawArgs, Status, Turn, Vision};
use handrail_ocr::{TesseractConfig, TesseractOcr};
use handrail_sandbox::{Sandbox, SandboxOptions, REMOVED_ENV};
use handrail_x11::windows::LaunchEnv;
use handrail_x11::{X11Desktop, X11Options};

const OPEN_RUNS: usize = 5;
const TYPE_RUNS: usize = 10;
const CLICK_RUNS: usize = 10;
const TERMINAL_RUNS: usize = 20;
/// A model's turn: the screen is left alone this long before each measured call.
const THINK: Duration = Duration::from_millis(1600);

type BenchResult<T> = Result<T, Box<dyn std::error::Error>>;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn args(pairs: &[(&str, &str)]) -> BenchResult<RawArgs> {
    Ok(RawArgs::from_pairs(pairs)?)
}

/// One measured call: wall time around the engine call, and what its own timings say.
struct Sample {
    total: Duration,
    settle: Duration,
    settled: bool,
    observe: Duration,
}

impl Sample {
    fn of(start: Instant, o: &Outcome) -> Sample {
        let t = &o.timings;
        Sample { total: start.elapsed(), settle: t.settle, settled: t.settled.unwrap_or(true), observe: t.observe }
    }
}

fn row(what: &str, samples: &[Sample], target_ms: f64, detail: &str) {
    let total = median(samples.iter().map(|s| s.total).collect());
    let settle = median(samples.iter().map(|s| s.settle).collect());
    let observe = median(samples.iter().map(|s| s.observe).collect());
    let at_ceiling = samples.iter().filter(|s| !s.settled).count();
    let max = samples.iter().map(|s| s.total).max().unwrap_or_default();
    println!(
        "| {what} | {:.0} ms | {:.0} ms | {:.0} ms | {:.0} ms | {at_ceiling}/{} | ≤ {target_ms:.0} ms | {detail} |",
        ms(total),
        ms(settle),
        ms(observe),
        ms(max),
        samples.len()
    );
}

/// Lines an app prints on stdout, collected on a thread.
fn lines_of(child: &mut std::process::Child) -> BenchResult<mpsc::Receiver<String>> {
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let (tx, rx) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    Ok(rx)
}

/// The page: a spinner and a clock that never stop, and a button that changes a label and tells the
/// server it was clicked.
const PAGE: &str = r#"<!doctype html><html><head><title>animated</title><style>
body { font: 16px sans-serif; margin: 40px; }
.spin { width: 28px; height: 28px; border: 4px solid #ccc; border-top-color: #36c; border-radius: 50%;
        animation: r 0.8s linear infinite; display: inline-block; }
@keyframes r { to { transform: rotate(360deg); } }
</style></head><body>
<div class="spin"></div> <span id="clock">0</span>
<p><button id="b" onclick="clicked()">Change</button> <span id="label">clicked 0</span></p>
<script>
let n = 0, t = 0;
setInterval(() => { document.getElementById('clock').textContent = 'tick ' + (++t); }, 1000);
function clicked() {
  n += 1;
  document.getElementById('label').textContent = 'clicked ' + n;
  fetch('/clicked?' + n);
}
</script></body></html>"#;

/// Serves [`PAGE`] and records every `/clicked?N` it receives.
fn page_server() -> BenchResult<(String, Arc<Mutex<Vec<String>>>)> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let url = format!("http://{}/", listener.local_addr()?);
    let clicks = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&clicks);
    std::thread::spawn(move || {
        for stream in listener.incoming().map_while(Result::ok) {
            let mut stream = stream;
            let mut buf = [0u8; 4096];
            let n = stream.read(&mut buf).unwrap_or(0);
            let head = String::from_utf8_lossy(&buf[..n]).to_string();
            let path = head.split(' ').nth(1).unwrap_or("/").to_string();
            if let Some(k) = path.strip_prefix("/clicked?") {
                seen.lock().unwrap_or_else(|e| e.into_inner()).push(k.to_string());
            }
            let body = if path == "/" { PAGE } else { "" };
            let reply = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(reply.as_bytes());
        }
    });
    Ok((url, clicks))
}

/// The latest observation's element with this role and label, as call arguments.
fn target(engine: &Engine, role: &str, label: &str) -> BenchResult<Vec<(String, String)>> {
    let latest = engine.latest().ok_or("no observation")?;
    let e = latest
        .elements
        .iter()
        .find(|e| e.role.as_str() == role && e.label == label)
        .ok_or_else(|| format!("no {role} {label:?} listed"))?;
    Ok(vec![("observation_id".into(), latest.id.to_string()), ("element_id".into(), e.id.to_string())])
}

fn call_on(engine: &mut Engine, action: &str, on: &[(String, String)], extra: &[(&str, &str)]) -> BenchResult<Outcome> {
    let mut pairs: Vec<(&str, &str)> = vec![("action", action)];
    pairs.extend(on.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    pairs.extend_from_slice(extra);
    Ok(engine.call_args(&args(&pairs)?))
}

fn wait_for(engine: &mut Engine, what: &str, found: impl Fn(&handrail_core::Observation) -> bool) -> BenchResult<()> {
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        let o = engine.call_args(&args(&[("action", "see")])?);
        if o.observation.as_deref().is_some_and(&found) {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    Err(format!("{what} never showed").into())
}

fn main() -> BenchResult<()> {
    if !handrail_ocr::thread_limit_in_effect() {
        eprintln!("note: OMP_THREAD_LIMIT is not 1; OCR will be several times slower than in handrail");
    }
    let sandbox = Sandbox::start(SandboxOptions { parent_death_signal: false, ..SandboxOptions::default() })?;
    let ax = AtspiSource::new(sandbox.bus_address());
    let ocr = TesseractOcr::new(TesseractConfig::default());
    ocr.warm_up()?;
    let mut launch = LaunchEnv::new(sandbox.env(), sandbox.root().join("browser"));
    launch.removed = REMOVED_ENV.iter().map(|s| s.to_string()).collect();
    let desktop = X11Desktop::connect(X11Options::new(sandbox.display(), launch), Box::new(ax), Box::new(ocr))?;
    // One turn for the whole run, with room for every call in it.
    let budgets = Budgets { mutations: 1000, observations: 1000 };
    let mut engine =
        Engine::new(desktop, Config { vision: Vision::Capable, interactive: budgets, ..Config::default() });
    engine.begin_turn(Turn { id: "bench".into(), intent: String::new(), mode: Mode::Interactive });

    // open_app with a spinner and progress bars that start with the window.
    let mut opens = Vec::new();
    for _ in 0..OPEN_RUNS {
        std::thread::sleep(THINK);
        let start = Instant::now();
        let o = engine.call_args(&args(&[("action", "open_app"), ("app", "gtk3-widget-factory")])?);
        opens.push(Sample::of(start, &o));
        assert_eq!(o.status, Status::Ok, "{}", o.text());
        let listed = o
            .observation
            .as_ref()
            .is_some_and(|obs| obs.elements.iter().any(|e| e.app.to_lowercase().contains("factory")));
        assert!(listed, "the widget factory is in the observation: {}", o.text());
        sandbox.command("pkill").args(["-f", "gtk3-widget-factory"]).status()?;
        wait_for(&mut engine, "the widget factory closing", |obs| {
            !obs.elements.iter().any(|e| e.app.to_lowercase().contains("factory"))
        })?;
    }

    // type into an entry whose caret blinks.
    let app = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/apps/probe_gtk.py");
    let mut probe = sandbox.command("/usr/bin/python3").arg(app).stdout(Stdio::piped()).spawn()?;
    let probe_lines = lines_of(&mut probe)?;
    while probe_lines.recv_timeout(Duration::from_secs(15))? != "ready" {}
    wait_for(&mut engine, "the probe's entry", |obs| obs.elements.iter().any(|e| e.label == "Name"))?;
    let entry = target(&engine, "entry", "Name")?;
    call_on(&mut engine, "click", &entry, &[])?;
    let mut typings = Vec::new();
    let mut typed = String::new();
    for i in 0..TYPE_RUNS {
        std::thread::sleep(THINK);
        let entry = target(&engine, "entry", "Name")?;
        let piece = format!("w{i} ");
        let start = Instant::now();
        let o = call_on(&mut engine, "type", &entry, &[("text", &piece)])?;
        typings.push(Sample::of(start, &o));
        assert_eq!(o.status, Status::Ok, "{}", o.text());
        typed.push_str(&piece);
        let want = format!("name={typed}");
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let line = probe_lines.recv_timeout(deadline.saturating_duration_since(Instant::now()))?;
            if line == want {
                break;
            }
        }
    }
    let _ = probe.kill();
    let _ = probe.wait();

    // type into a terminal back to back, the widget factory's spinner showing below it.
    let mut factory = sandbox.command("gtk3-widget-factory").stdout(Stdio::null()).stderr(Stdio::null()).spawn()?;
    wait_for(&mut engine, "the widget factory", |obs| {
        obs.elements.iter().any(|e| e.app.to_lowercase().contains("factory"))
    })?;
    let typed_file = sandbox.root().join("typed-into-cat.txt");
    let mut xterm = sandbox
        .command("xterm")
        .args(["-fa", "DejaVu Sans Mono", "-fs", "13", "-geometry", "90x16+40+40", "-e", "sh", "-c"])
        .arg(format!("cat > '{}'", typed_file.display()))
        .spawn()?;
    let activated = sandbox
        .command("xdotool")
        .args(["search", "--sync", "--onlyvisible", "--class", "xterm", "windowactivate", "--sync"])
        .status()?;
    assert!(activated.success(), "xdotool activates the terminal");
    wait_for(&mut engine, "the terminal in front", |obs| {
        obs.front.as_ref().is_some_and(|f| f.class.eq_ignore_ascii_case("xterm"))
    })?;
    let mut terminal = Vec::new();
    let mut want = String::new();
    for i in 0..TERMINAL_RUNS {
        let c = char::from(b'a' + (i % 26) as u8).to_string();
        let start = Instant::now();
        let o = engine.call_args(&args(&[("action", "type"), ("text", &c)])?);
        terminal.push(Sample::of(start, &o));
        assert_eq!(o.status, Status::Ok, "{}", o.text());
        want.push_str(&c);
    }
    let o = engine.call_args(&args(&[("action", "key"), ("keys", "return")])?);
    assert!(matches!(o.status, Status::Ok | Status::NoVisibleChange), "{}", o.text());
    let deadline = Instant::now() + Duration::from_secs(5);
    while std::fs::read_to_string(&typed_file).unwrap_or_default() != format!("{want}\n") {
        assert!(Instant::now() < deadline, "cat wrote {:?}, not {want:?}", std::fs::read_to_string(&typed_file));
        std::thread::sleep(Duration::from_millis(20));
    }
    for child in [&mut xterm, &mut factory] {
        let _ = child.kill();
        let _ = child.wait();
    }

    // click on a page that animates forever.
    let (url, clicks) = page_server()?;
    let o = engine.call_args(&args(&[("action", "open_url"), ("url", &url)])?);
    assert!(matches!(o.status, Status::Ok | Status::NoVisibleChange), "{}", o.text());
    wait_for(&mut engine, "the page's button", |obs| obs.elements.iter().any(|e| e.label == "Change"))?;
    let mut page_clicks = Vec::new();
    for i in 0..CLICK_RUNS {
        std::thread::sleep(THINK);
        let button = target(&engine, "button", "Change")?;
        let start = Instant::now();
        let o = call_on(&mut engine, "click", &button, &[])?;
        page_clicks.push(Sample::of(start, &o));
        assert_eq!(o.status, Status::Ok, "{}", o.text());
        let deadline = Instant::now() + Duration::from_secs(5);
        let want = (i + 1).to_string();
        while !clicks.lock().unwrap_or_else(|e| e.into_inner()).contains(&want) {
            assert!(Instant::now() < deadline, "click {want} never reached the page");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    println!("settle beside permanent animations, through the engine, 1280x800 sandbox\n");
    println!("| call | median | settle (median) | observe (median) | slowest | at the ceiling | target | detail |");
    println!("|---|---:|---:|---:|---:|---:|---:|---|");
    row("`open_app gtk3-widget-factory`", &opens, 1500.0, "spinner + pulsing progress bars start with the window");
    row("`type` 3 chars into a GTK entry", &typings, 200.0, "caret blinking; read back from the app");
    row(
        "`type` 1 char into xterm, back to back",
        &terminal,
        400.0,
        "widget factory's spinner beside; read from cat's file",
    );
    row("`click` on a Chromium page", &page_clicks, 200.0, "CSS spinner + 1 s clock; click reached the page");
    println!("\nreproduce: OMP_THREAD_LIMIT=1 cargo bench -p handrail-x11 --bench settle_animation");
    drop(engine);
    sandbox.stop()?;
    Ok(())
}

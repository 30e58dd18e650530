//! Typing at scale: N typings per script (English, Thai, CJK, emoji, mixed) into a Chromium input, a GTK
//! entry and an xterm, each read back from the application itself, with the engine's rule: on a
//! mismatch or a reported error, clear and retry once by `TextRoute::Alternate`.
//!
//! `cargo bench -p handrail-x11 --bench typing_scale` (`HANDRAIL_TYPING_N`, default 1000). Per cell it
//! prints: exact the first time, first attempts that returned Ok but read back wrong (what the engine's
//! readback must catch), exact after the retry, reported failures (still wrong, and the last call
//! returned an error) and silent losses (still wrong although the last call returned Ok; must be 0).
//!
//! Read-backs: Chromium's page copies the input's value into its title (`_NET_WM_NAME`); the GTK probe
//! app (testdata/apps/probe_gtk.py) prints `name=<text>` on every change of its entry; the xterm runs
//! `cat > file`, so each attempt is committed with Return and read as one line of the file.

use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use handrail_platform::{Input, KeyCombo, Modifiers, MouseButton, Point, TextRoute, Windows};
use handrail_sandbox::{Sandbox, SandboxOptions, REMOVED_ENV};
use handrail_testkit::{wait_until, LineApp};
use handrail_x11::input::X11Input;
use handrail_x11::windows::{LaunchEnv, X11Windows};
use handrail_x11::Conn;

const PAGE: &str = r#"<!doctype html><html><head><meta charset="utf-8"><title>ready</title></head>
<body><input id="t" autofocus style="font-size:20px;width:600px"
 oninput="document.title = '[' + this.value + ']'"></body></html>"#;

/// How long an attempt may take to show up before it counts as not arrived.
const ARRIVE: Duration = Duration::from_secs(5);
const POLL: Duration = Duration::from_millis(5);

type R<T> = Result<T, String>;

fn combo(ctrl: bool, key: &str) -> KeyCombo {
    let key = handrail_platform::Key::from_name(key).unwrap_or_else(|| panic!("no key {key:?}"));
    KeyCombo { modifiers: Modifiers { ctrl, ..Modifiers::default() }, key }
}

enum App {
    Chromium { windows: Box<X11Windows> },
    Gtk { app: LineApp, value: String },
    Xterm { file: PathBuf, lines: usize, _app: LineApp },
}

impl App {
    fn name(&self) -> &'static str {
        match self {
            App::Chromium { .. } => "Chromium input",
            App::Gtk { .. } => "GTK entry",
            App::Xterm { .. } => "xterm (cat)",
        }
    }

    fn title(windows: &X11Windows) -> String {
        windows.frontmost().ok().flatten().map(|w| w.title).unwrap_or_default()
    }

    /// Empties the field (a terminal line is committed by `commit`, so there is nothing to clear).
    fn clear(&mut self, input: &X11Input) -> R<()> {
        match self {
            App::Chromium { windows } => {
                input.key(&combo(true, "a")).map_err(|e| e.to_string())?;
                input.key(&combo(false, "backspace")).map_err(|e| e.to_string())?;
                wait_until(Duration::from_secs(15), POLL, || {
                    let t = Self::title(windows);
                    (t.starts_with("[]") || t.starts_with("ready")).then_some(())
                })
                .ok_or_else(|| format!("the Chromium field did not clear: {:?}", Self::title(windows)))
            }
            App::Gtk { app, value } => {
                if value.is_empty() {
                    return Ok(());
                }
                input.key(&combo(true, "a")).map_err(|e| e.to_string())?;
                input.key(&combo(false, "backspace")).map_err(|e| e.to_string())?;
                app.wait_for(|l| l == "name=").ok_or("the GTK entry did not clear")?;
                value.clear();
                Ok(())
            }
            App::Xterm { .. } => Ok(()),
        }
    }

    /// Whether `text` arrived exactly, and what arrived.
    fn read(&mut self, input: &X11Input, text: &str) -> R<(bool, String)> {
        match self {
            App::Chromium { windows } => {
                let want = format!("[{text}]");
                let got = wait_until(ARRIVE, POLL, || {
                    let t = Self::title(windows);
                    t.starts_with(&want).then_some(t)
                });
                Ok(match got {
                    Some(t) => (true, t),
                    None => (false, Self::title(windows)),
                })
            }
            App::Gtk { app, value } => {
                let want = format!("name={text}");
                let got = app.wait_for_within(ARRIVE, |l| l == want);
                if let Some(line) = app.seen.last() {
                    *value = line.strip_prefix("name=").unwrap_or(line).to_string();
                }
                Ok((got.is_some(), value.clone()))
            }
            App::Xterm { file, lines, .. } => {
                input.key(&combo(false, "return")).map_err(|e| e.to_string())?;
                let want = *lines + 1;
                let got = wait_until(ARRIVE, POLL, || {
                    let all = std::fs::read_to_string(&*file).ok()?;
                    let v: Vec<&str> = all.split_inclusive('\n').collect();
                    (v.len() >= want).then(|| v[want - 1].trim_end_matches('\n').to_string())
                });
                *lines = want;
                Ok(match got {
                    Some(line) => (line == text, line),
                    None => (false, String::from("<no line>")),
                })
            }
        }
    }
}

#[derive(Default)]
struct Cell {
    exact_first: usize,
    silent_first: usize,
    reported_first: usize,
    exact_retry: usize,
    reported: usize,
    silent: usize,
    times: Vec<Duration>,
}

fn attempt(app: &mut App, input: &X11Input, text: &str, cell: &mut Cell) -> R<()> {
    app.clear(input)?;
    let start = Instant::now();
    let first = input.type_text_via(text, TextRoute::Preferred);
    cell.times.push(start.elapsed());
    let (exact, got) = app.read(input, text)?;
    if first.is_ok() && exact {
        cell.exact_first += 1;
        return Ok(());
    }
    if first.is_ok() {
        cell.silent_first += 1;
        eprintln!("  {}: {text:?} read back {got:?} after an Ok first attempt", app.name());
    } else {
        cell.reported_first += 1;
        eprintln!("  {}: {text:?} first attempt reported {first:?}", app.name());
    }
    app.clear(input)?;
    let second = input.type_text_via(text, TextRoute::Alternate);
    let (exact, got) = app.read(input, text)?;
    match (exact, second.is_ok()) {
        (true, _) => cell.exact_retry += 1,
        (false, false) => cell.reported += 1,
        (false, true) => {
            cell.silent += 1;
            eprintln!("  {}: {text:?} SILENTLY WRONG after the retry: {got:?}", app.name());
        }
    }
    Ok(())
}

fn median_ms(v: &mut [Duration]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort();
    v[v.len() / 2].as_secs_f64() * 1e3
}

fn gtk(sandbox: &Sandbox, input: &X11Input) -> R<App> {
    let mut cmd = sandbox.command("/usr/bin/python3");
    cmd.arg(concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/apps/probe_gtk.py"));
    let mut app = LineApp::spawn(cmd);
    let geo = app
        .wait_for(|l| l.starts_with("geometry Name "))
        .ok_or_else(|| format!("the GTK probe did not map: {:?}", app.seen))?;
    let f: Vec<i32> = geo.split_whitespace().skip(2).filter_map(|v| v.parse().ok()).collect();
    let [x, y, w, h] = f[..] else { return Err(format!("bad geometry line {geo:?}")) };
    input.click(Point::new(x + w / 2, y + h / 2), MouseButton::Left, 1).map_err(|e| e.to_string())?;
    Ok(App::Gtk { app, value: String::new() })
}

fn xterm(sandbox: &Sandbox) -> R<App> {
    let file = sandbox.root().join("typing-scale-xterm.txt");
    let _ = std::fs::remove_file(&file);
    let cmd = format!("cat > '{}'", file.display());
    let mut c = sandbox.command("xterm");
    c.args(["-fn", "fixed", "-e", "sh", "-c", &cmd]).env("LANG", "C.UTF-8").env("LC_ALL", "C.UTF-8");
    let app = LineApp::spawn(c);
    // cat creates the file when it starts: the terminal is up and reading.
    wait_until(Duration::from_secs(15), POLL, || file.exists().then_some(())).ok_or("xterm did not start cat")?;
    // Openbox does not give a new window focus over the browser: activate it (bench helper only).
    let status = sandbox
        .command("xdotool")
        .args(["search", "--sync", "--onlyvisible", "--class", "xterm", "windowactivate", "--sync"])
        .status()
        .map_err(|e| format!("xdotool: {e}"))?;
    if !status.success() {
        return Err(format!("xdotool windowactivate: {status}"));
    }
    Ok(App::Xterm { file, lines: 0, _app: app })
}

fn main() {
    let n: usize = std::env::var("HANDRAIL_TYPING_N").ok().and_then(|v| v.parse().ok()).unwrap_or(1000);
    let sandbox = match Sandbox::start(SandboxOptions { parent_death_signal: false, ..SandboxOptions::default() }) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("typing_scale skipped: cannot start the sandbox desktop ({e})");
            return;
        }
    };
    let texts: [(&str, &str); 5] = [
        ("English", "Hello, world! 123"),
        ("Thai", "สวัสดีครับ ภาษาไทย"),
        ("CJK", "日本語のテキスト 中文"),
        ("emoji", "👍🎉 ok"),
        ("mixed", "Mixed ไทย 日本 👍 end"),
    ];
    let run = || -> R<Vec<(String, Vec<Cell>)>> {
        let conn = Conn::open(&sandbox.display()).map_err(|e| e.to_string())?;
        let input = X11Input::new(Arc::clone(&conn)).map_err(|e| e.to_string())?;
        let mut rows = Vec::new();
        for which in 0..3 {
            let mut launch = LaunchEnv::new(sandbox.env(), sandbox.root().join("browser"));
            launch.removed = REMOVED_ENV.iter().map(|s| s.to_string()).collect();
            let mut app = match which {
                0 => {
                    let windows = X11Windows::new(Arc::clone(&conn), launch);
                    windows.open_url(&handrail_testkit::serve_page(PAGE)).map_err(|e| e.to_string())?;
                    wait_until(Duration::from_secs(30), POLL, || {
                        App::title(&windows).starts_with("ready").then_some(())
                    })
                    .ok_or("the page did not load")?;
                    App::Chromium { windows: Box::new(windows) }
                }
                1 => gtk(&sandbox, &input)?,
                _ => xterm(&sandbox)?,
            };
            let mut cells = Vec::new();
            for (label, text) in texts {
                eprintln!("{} / {label}: {n} typings", app.name());
                let mut cell = Cell::default();
                for _ in 0..n {
                    attempt(&mut app, &input, text, &mut cell)?;
                }
                cells.push(cell);
            }
            rows.push((app.name().to_string(), cells));
            drop(app);
        }
        Ok(rows)
    };
    let start = Instant::now();
    let rows = match run() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("typing_scale failed: {e}");
            let _ = sandbox.stop();
            std::process::exit(1);
        }
    };
    println!(
        "\ntyping at scale: {n} typings per cell, {:.0} s in all; load: `uptime` said {}",
        start.elapsed().as_secs_f64(),
        Command::new("uptime")
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .unwrap_or_default()
    );
    println!("command: HANDRAIL_TYPING_N={n} cargo bench -p handrail-x11 --bench typing_scale\n");
    println!("| app | text | exact 1st | Ok but wrong 1st | reported 1st | exact after retry | reported failures | silent losses | median type ms |");
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|");
    for (app, cells) in rows {
        for ((label, _), mut c) in texts.iter().zip(cells) {
            println!(
                "| {app} | {label} | {}/{n} | {} | {} | {} | {} | {} | {:.1} |",
                c.exact_first,
                c.silent_first,
                c.reported_first,
                c.exact_retry,
                c.reported,
                c.silent,
                median_ms(&mut c.times)
            );
        }
    }
    let _ = sandbox.stop();
}

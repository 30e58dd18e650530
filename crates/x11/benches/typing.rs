//! Typing speed and correctness: handrail's `type_text` (each strategy) against `xdotool type`, side by
//! side in one run on a private sandbox desktop.
//!
//! `cargo bench -p handrail-x11 --bench typing` (runs per cell: `HANDRAIL_BENCH_RUNS`, default 20).
//!
//! Each run starts a fresh `zenity --entry` (GTK3), types the text, presses Return through handrail and
//! compares what zenity prints with the text. Time is the typing call alone: for handrail the
//! `type_text` call (which returns once the server has generated every event, or once the application
//! fetched pasted text), for xdotool the whole `xdotool type` process. A second table does the same in
//! an xterm running `cat > file`, a third in a Chromium `--app` page whose input reports its value in
//! the window title on Enter. "WM cpu ms" is the CPU openbox spent per run: every keycode remap makes
//! every X client and the window manager reload the keyboard mapping (openbox also re-grabs its keys).

use std::io::Read;
use std::path::Path;
use std::process::{Child, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use handrail_core::keys::parse_key_combo;
use handrail_platform::Input;
use handrail_sandbox::{Sandbox, SandboxOptions};
use handrail_x11::input::{InputOptions, TypingStrategy, X11Input};
use handrail_x11::Conn;
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{AtomEnum, ClientMessageEvent, ConnectionExt as _, EventMask, MapState, Window};
use x11rb::{CURRENT_TIME, NONE};

const WAIT: Duration = Duration::from_secs(15);
const POLL: Duration = Duration::from_millis(10);

type BenchResult<T> = Result<T, String>;

struct Bench {
    sandbox: Sandbox,
    conn: Arc<Conn>,
    /// Presses Return and the like between runs.
    auto: X11Input,
}

#[derive(Clone, Copy, PartialEq)]
enum Method {
    Auto,
    Keys,
    Clipboard,
    XdotoolDefault,
    XdotoolZero,
}

impl Method {
    const ALL: [Method; 5] =
        [Method::Auto, Method::Keys, Method::Clipboard, Method::XdotoolDefault, Method::XdotoolZero];

    fn name(self) -> &'static str {
        match self {
            Method::Auto => "handrail (auto: keys + clipboard)",
            Method::Keys => "handrail keys only",
            Method::Clipboard => "handrail clipboard only",
            Method::XdotoolDefault => "xdotool type (default 12 ms delay)",
            Method::XdotoolZero => "xdotool type --delay 0",
        }
    }
}

fn wait_until<T>(what: &str, mut f: impl FnMut() -> Option<T>) -> BenchResult<T> {
    let start = Instant::now();
    loop {
        if let Some(v) = f() {
            return Ok(v);
        }
        if start.elapsed() > WAIT {
            return Err(format!("timed out waiting for {what}"));
        }
        std::thread::sleep(POLL);
    }
}

fn prop32(conn: &Conn, window: Window, atom: u32, type_: AtomEnum) -> Vec<u32> {
    conn.conn
        .get_property(false, window, atom, type_, 0, 4096)
        .ok()
        .and_then(|c| c.reply().ok())
        .and_then(|r| r.value32().map(|v| v.collect()))
        .unwrap_or_default()
}

impl Bench {
    /// A fresh input per run, so every run starts cold: no keycode borrowed by an earlier run is still
    /// mapped, and the clipboard snapshot is taken from scratch.
    fn input(&self, m: Method) -> BenchResult<X11Input> {
        let typing = match m {
            Method::Keys => TypingStrategy::Keys,
            Method::Clipboard => TypingStrategy::Clipboard,
            _ => TypingStrategy::Auto,
        };
        X11Input::with_options(Arc::clone(&self.conn), InputOptions { typing, ..InputOptions::default() })
            .map_err(|e| e.to_string())
    }

    /// Starts an app, waits for its window (by pid) and activates it.
    fn launch(&self, program: &str, args: &[&str]) -> BenchResult<Child> {
        let child = self
            .sandbox
            .command(program)
            .args(args)
            .env("LANG", "C.UTF-8")
            .env("LC_ALL", "C.UTF-8")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("spawn {program}: {e}"))?;
        let pid = child.id();
        let c = &self.conn;
        let window = wait_until("the app's window", || {
            prop32(c, c.root, c.atoms._NET_CLIENT_LIST, AtomEnum::WINDOW).into_iter().find(|&w| {
                let viewable = c
                    .conn
                    .get_window_attributes(w)
                    .ok()
                    .and_then(|a| a.reply().ok())
                    .is_some_and(|a| a.map_state == MapState::VIEWABLE);
                viewable && prop32(c, w, c.atoms._NET_WM_PID, AtomEnum::CARDINAL).first() == Some(&pid)
            })
        })?;
        let msg = ClientMessageEvent::new(32, window, c.atoms._NET_ACTIVE_WINDOW, [2u32, CURRENT_TIME, 0, 0, 0]);
        c.conn
            .send_event(false, c.root, EventMask::SUBSTRUCTURE_REDIRECT | EventMask::SUBSTRUCTURE_NOTIFY, msg)
            .map_err(|e| e.to_string())?;
        c.conn.flush().map_err(|e| e.to_string())?;
        wait_until("focus", || {
            let mut w = c.conn.get_input_focus().ok()?.reply().ok()?.focus;
            for _ in 0..16 {
                if w == window {
                    return Some(());
                }
                if w == NONE || w == c.root {
                    return None;
                }
                w = c.conn.query_tree(w).ok()?.reply().ok()?.parent;
            }
            None
        })?;
        Ok(child)
    }

    fn key(&self, keys: &str) -> BenchResult<()> {
        let combo = parse_key_combo(keys).map_err(|e| e.to_string())?;
        self.auto.key(&combo).map_err(|e| e.to_string())
    }

    /// Types `text` with `method`; returns the time the typing took (and the input used).
    fn type_with(&self, method: Method, text: &str) -> BenchResult<(Duration, Option<X11Input>)> {
        let input = match method {
            Method::XdotoolDefault | Method::XdotoolZero => None,
            m => Some(self.input(m)?),
        };
        let start = Instant::now();
        match method {
            Method::XdotoolDefault | Method::XdotoolZero => {
                let mut cmd = self.sandbox.command("xdotool");
                cmd.arg("type");
                if method == Method::XdotoolZero {
                    cmd.args(["--delay", "0"]);
                }
                let status = cmd.arg("--").arg(text).status().map_err(|e| format!("xdotool: {e}"))?;
                if !status.success() {
                    return Err(format!("xdotool exited with {status}"));
                }
            }
            _ => {
                if let Some(input) = &input {
                    input.type_text(text).map_err(|e| e.to_string())?;
                }
            }
        }
        // The input is handed back so the caller keeps it until the app has exited: dropping it returns
        // borrowed keycodes at once, before the app may have translated the last keys.
        Ok((start.elapsed(), input))
    }

    /// One run in zenity: (time, exact).
    fn zenity_run(&self, method: Method, text: &str) -> BenchResult<(Duration, bool)> {
        let mut app = self.launch("zenity", &["--entry", "--text=bench"])?;
        let took = self.type_with(method, text);
        self.key("return")?;
        let status = wait_until("zenity to exit", || app.try_wait().ok().flatten());
        let mut out = String::new();
        if let Some(mut s) = app.stdout.take() {
            s.read_to_string(&mut out).map_err(|e| e.to_string())?;
        }
        if status.is_err() {
            let _ = app.kill();
            let _ = app.wait();
        }
        let (took, _input) = took?;
        Ok((took, out.strip_suffix('\n') == Some(text)))
    }

    /// One run in an xterm running `cat > file`: (time, exact).
    fn xterm_run(&self, method: Method, text: &str, file: &Path) -> BenchResult<(Duration, bool)> {
        let _ = std::fs::remove_file(file);
        let cmd = format!("cat > '{}'", file.display());
        let mut app = self.launch("xterm", &["-fn", "fixed", "-e", "sh", "-c", &cmd])?;
        let took = self.type_with(method, text);
        self.auto.type_text("\n").map_err(|e| e.to_string())?;
        self.key("ctrl+d")?;
        let status = wait_until("xterm to exit", || app.try_wait().ok().flatten());
        if status.is_err() {
            let _ = app.kill();
            let _ = app.wait();
        }
        let (took, _input) = took?;
        let got = std::fs::read_to_string(file).unwrap_or_default();
        Ok((took, got.strip_suffix('\n') == Some(text)))
    }
}

/// A Chromium app window with one focused input; Enter puts `<run>|<value>` into the title and clears the
/// input, so each run is read back through `_NET_WM_NAME` without restarting the browser.
struct Chromium {
    child: Child,
    window: Window,
    run: u32,
}

const CHROMIUM_PAGE: &str = "data:text/html;charset=utf-8,<title>ready</title><input id=i autofocus>\
<script>let n=0;i.onkeydown=e=>{if(e.key==='Enter'){document.title=(++n)+'|'+i.value;i.value=''}}</script>";

impl Drop for Chromium {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Bench {
    fn title(&self, window: Window) -> String {
        let c = &self.conn;
        c.conn
            .get_property(false, window, c.atoms._NET_WM_NAME, c.atoms.UTF8_STRING, 0, 1024)
            .ok()
            .and_then(|r| r.reply().ok())
            .map(|r| String::from_utf8_lossy(&r.value).into_owned())
            .unwrap_or_default()
    }

    fn chromium(&self) -> BenchResult<Chromium> {
        let profile = self.sandbox.root().join("chromium-profile");
        let user_data = format!("--user-data-dir={}", profile.display());
        let app = format!("--app={CHROMIUM_PAGE}");
        let args = [
            "--no-sandbox",
            "--test-type",
            "--no-first-run",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--password-store=basic",
            user_data.as_str(),
            app.as_str(),
        ];
        let child = self.launch("chromium", &args)?;
        let c = &self.conn;
        let pid = child.id();
        let window = wait_until("chromium's window", || {
            prop32(c, c.root, c.atoms._NET_CLIENT_LIST, AtomEnum::WINDOW)
                .into_iter()
                .find(|&w| prop32(c, w, c.atoms._NET_WM_PID, AtomEnum::CARDINAL).first() == Some(&pid))
        })?;
        let page = Chromium { child, window, run: 0 };
        wait_until("the page to load", || self.title(window).starts_with("ready").then_some(()))?;
        Ok(page)
    }

    fn chromium_run(&self, page: &mut Chromium, method: Method, text: &str) -> BenchResult<(Duration, bool)> {
        page.run += 1;
        let (took, _input) = self.type_with(method, text)?;
        self.key("return")?;
        let prefix = format!("{}|", page.run);
        let title = wait_until("the title to report the value", || {
            let t = self.title(page.window);
            t.starts_with(&prefix).then_some(t)
        })?;
        let exact = title.strip_prefix(&prefix) == Some(text);
        if !exact {
            eprintln!("  chromium read back {title:?}");
        }
        Ok((took, exact))
    }
}

fn median_ms(v: &mut [Duration]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort();
    v[v.len() / 2].as_secs_f64() * 1e3
}

struct Cell {
    median: f64,
    exact: usize,
    runs: usize,
    /// CPU the window manager spent per run: every keycode remap makes it (and every other client)
    /// reload the keyboard mapping, and openbox also re-grabs its key bindings.
    wm_cpu_ms: f64,
}

/// CPU time (user + system) of a process so far.
fn cpu_time(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the parenthesised command name start at field 3 (state); utime and stime are
    // fields 14 and 15.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = rest.split_whitespace().collect();
    let field = |n: usize| f.get(n - 3).and_then(|x| x.parse::<u64>().ok()).unwrap_or(0);
    let ticks = field(14) + field(15);
    // SAFETY: sysconf has no preconditions.
    let hz = u64::try_from(unsafe { libc::sysconf(libc::_SC_CLK_TCK) }).unwrap_or(100).max(1);
    Duration::from_millis(ticks * 1000 / hz)
}

fn measure(runs: usize, wm: Option<u32>, mut run: impl FnMut() -> BenchResult<(Duration, bool)>) -> Cell {
    let mut times = Vec::new();
    let mut exact = 0;
    let wm_before = wm.map(cpu_time);
    for _ in 0..runs {
        match run() {
            Ok((t, ok)) => {
                times.push(t);
                exact += usize::from(ok);
            }
            Err(e) => eprintln!("  run failed: {e}"),
        }
    }
    let wm_cpu_ms = match (wm, wm_before) {
        (Some(pid), Some(before)) => (cpu_time(pid) - before).as_secs_f64() * 1e3 / runs.max(1) as f64,
        _ => f64::NAN,
    };
    Cell { median: median_ms(&mut times), exact, runs, wm_cpu_ms }
}

fn print_table(title: &str, texts: &[(&str, &str)], methods: &[Method], cells: &[Vec<Cell>]) {
    println!("\n### {title}\n");
    print!("| method |");
    for (label, _) in texts {
        print!(" {label}: median ms | exact | ×handrail | WM cpu ms |");
    }
    println!();
    print!("|---|");
    for _ in texts {
        print!("---:|---:|---:|---:|");
    }
    println!();
    for (mi, m) in methods.iter().enumerate() {
        print!("| {} |", m.name());
        for (c, first) in cells[mi].iter().zip(&cells[0]) {
            let base = first.median;
            print!(" {:.1} | {}/{} | {:.2} | {:.1} |", c.median, c.exact, c.runs, c.median / base, c.wm_cpu_ms);
        }
        println!();
    }
}

fn main() {
    let runs: usize = std::env::var("HANDRAIL_BENCH_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(20);
    let opts = SandboxOptions { accessibility: false, parent_death_signal: false, ..SandboxOptions::default() };
    let sandbox = match Sandbox::start(opts) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("typing bench skipped: cannot start the sandbox desktop ({e}); run scripts/setup-desktop");
            return;
        }
    };
    let setup = || -> Result<Bench, String> {
        let conn = Conn::open(&sandbox.display()).map_err(|e| e.to_string())?;
        let make = |typing| {
            X11Input::with_options(Arc::clone(&conn), InputOptions { typing, ..InputOptions::default() })
                .map_err(|e| e.to_string())
        };
        let auto = make(TypingStrategy::Auto)?;
        Ok(Bench { sandbox, conn, auto })
    };
    let bench = match setup() {
        Ok(b) => b,
        Err(e) => {
            eprintln!("typing bench failed to set up: {e}");
            return;
        }
    };

    // The window manager's pid, for its CPU use.
    let wm = bench
        .sandbox
        .processes()
        .into_iter()
        .find(|p| std::fs::read_to_string(format!("/proc/{p}/comm")).is_ok_and(|c| c.trim() == "openbox"));
    let english11 = "Hello World";
    let english50 = "The quick brown fox jumps over the lazy dog, twice";
    // More distinct non-keyboard characters (38) than Xvfb has spare keycodes (18): the keys path must
    // re-point keycodes mid-text.
    let cjk_long = "日本語のテキストを入力します。中文输入测试，汉字很多。한국어 텍스트 입력";
    let texts: [(&str, &str); 6] = [
        ("English 11", english11),
        ("English 50", english50),
        ("Thai", "สวัสดีครับ ภาษาไทย"),
        ("CJK", "日本語のテキスト 中文"),
        ("CJK+Korean 38 distinct", cjk_long),
        ("emoji", "👍🎉"),
    ];
    println!(
        "typing benchmark: {runs} runs per cell, fresh zenity --entry (GTK3) per run, Xvfb 1280x800 + openbox\n\
         command: cargo bench -p handrail-x11 --bench typing   (HANDRAIL_BENCH_RUNS={runs})"
    );
    let cells: Vec<Vec<Cell>> = Method::ALL
        .iter()
        .map(|&m| {
            texts
                .iter()
                .map(|(label, text)| {
                    eprintln!("zenity: {} / {label}", m.name());
                    measure(runs, wm, || bench.zenity_run(m, text))
                })
                .collect()
        })
        .collect();
    print_table("GTK entry (zenity)", &texts, &Method::ALL, &cells);

    let file = bench.sandbox.root().join("bench-xterm.txt");
    let term_texts: [(&str, &str); 3] = [("English 50", english50), ("Thai", "สวัสดีครับ ภาษาไทย"), ("emoji", "👍🎉")];
    let term_methods = Method::ALL;
    let cells: Vec<Vec<Cell>> = term_methods
        .iter()
        .map(|&m| {
            term_texts
                .iter()
                .map(|(label, text)| {
                    eprintln!("xterm: {} / {label}", m.name());
                    measure(runs, wm, || bench.xterm_run(m, text, &file))
                })
                .collect()
        })
        .collect();
    print_table("xterm (cat > file)", &term_texts, &term_methods, &cells);

    let mut page = match bench.chromium() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("chromium table skipped: {e}");
            return;
        }
    };
    let web_texts: [(&str, &str); 5] = [
        ("English 50", english50),
        ("Thai", "สวัสดีครับ ภาษาไทย"),
        ("CJK", "日本語のテキスト 中文"),
        ("CJK+Korean 38 distinct", cjk_long),
        ("emoji", "👍🎉"),
    ];
    let cells: Vec<Vec<Cell>> = Method::ALL
        .iter()
        .map(|&m| {
            web_texts
                .iter()
                .map(|(label, text)| {
                    eprintln!("chromium: {} / {label}", m.name());
                    measure(runs, wm, || bench.chromium_run(&mut page, m, text))
                })
                .collect()
        })
        .collect();
    print_table("Chromium input (one page, value read back through the title)", &web_texts, &Method::ALL, &cells);
}

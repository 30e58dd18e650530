//! Soak: `handrail serve --sandbox --http` with real apps on its private desktop (the GTK probe app,
//! two Chromium pages, xterm), driven by several concurrent MCP sessions with a seeded random mix of
//! valid actions, stale ids, malformed arguments and guard-tripping targets. Prints calls per second,
//! latency percentiles per kind of call, answers by kind, the server's memory and open descriptors
//! before and after, the X server's clients and the server's child processes before and after, what
//! the X server itself reports held down at the end, and what is left once the server stopped.
//!
//! ```text
//! cargo build --release --locked -p handrail-cli --bin handrail --example soak
//! OMP_THREAD_LIMIT=1 target/release/examples/soak --calls 10000 --clients 4 --seed 1
//! ```
//!
//! It exits non-zero when a bound is broken (memory or descriptors grew past the stated bound, a key
//! or button is held, a process or X client is left over, a call got no answer).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use handrail_sandbox::marked_processes;
use handrail_testkit::mcp::{McpHttp, Protocol, Reply};
use handrail_testkit::served::Served;
use handrail_testkit::{serve_page, wait_until};
use serde_json::{json, Value};

/// Growth of the server's resident memory from the warmed-up start to the end that still passes.
const RSS_GROWTH_BOUND_KIB: u64 = 64 * 1024;
/// Growth of the server's open file descriptors that still passes (a connection in flight or two).
const FD_GROWTH_BOUND: usize = 8;
/// Calls made before the start figures are taken: caches, fonts, OCR and the browser warm up.
const WARM_UP_CALLS: usize = 200;
/// Calls of one client per turn; a new turn refills the observation budget and the action ceiling.
const CALLS_PER_TURN: usize = 15;

const FORM_PAGE: &str = include_str!("../../../testdata/pages/form.html");
const LIST_PAGE: &str = "<!doctype html><title>Soak list</title><h1>Soak list</h1>\
<p><a href=\"#one\">First link</a> <a href=\"#two\">Second link</a></p>\
<label>Search <input id=\"q\" value=\"\"></label> <button>Remove all</button>\
<div style=\"height:2000px\">Tall content to scroll</div>";

/// The options, from `--name value` pairs.
struct Options {
    calls: usize,
    clients: usize,
    seed: u64,
    binary: PathBuf,
}

fn options() -> Result<Options> {
    let here = std::env::current_exe()?;
    // target/release/examples/soak → target/release/handrail
    let default_binary = here.parent().and_then(Path::parent).map(|d| d.join("handrail")).unwrap_or_default();
    let mut o = Options { calls: 10_000, clients: 4, seed: 1, binary: default_binary };
    let args: Vec<String> = std::env::args().skip(1).collect();
    for pair in args.chunks(2) {
        let value = pair.get(1).context("every option takes a value")?;
        match pair[0].as_str() {
            "--calls" => o.calls = value.parse()?,
            "--clients" => o.clients = value.parse::<usize>()?.max(1),
            "--seed" => o.seed = value.parse()?,
            "--binary" => o.binary = PathBuf::from(value),
            other => bail!("unknown option {other} (--calls N, --clients N, --seed N, --binary PATH)"),
        }
    }
    if !o.binary.exists() {
        bail!("no handrail binary at {} (build it, or pass --binary)", o.binary.display());
    }
    Ok(o)
}

/// SplitMix64: small, seeded, the same sequence everywhere.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// What a client knows of the screen: the latest observation it was given and an older one.
#[derive(Default)]
struct Seen {
    observation: Option<String>,
    elements: Vec<(String, String, String)>,
    old: Option<(String, String)>,
}

impl Seen {
    fn learn(&mut self, structured: &Value) {
        let obs = &structured["observation"];
        let Some(id) = obs["id"].as_str() else { return };
        if let (Some(prev), Some((_, el, _))) = (self.observation.take(), self.elements.first()) {
            self.old = Some((prev, el.clone()));
        }
        self.observation = Some(id.to_string());
        self.elements = obs["elements"]
            .as_array()
            .map(|els| {
                els.iter()
                    .filter_map(|e| {
                        let id = e["id"].as_str()?.to_string();
                        Some((id, e["role"].as_str().unwrap_or("").to_string(), e["label"].as_str()?.to_string()))
                    })
                    .collect()
            })
            .unwrap_or_default();
    }

    fn element(&mut self, rng: &mut Rng, role: Option<&str>) -> Option<(String, String)> {
        let obs = self.observation.clone()?;
        let fits: Vec<&(String, String, String)> =
            self.elements.iter().filter(|(_, r, _)| role.is_none_or(|want| r == want)).collect();
        if fits.is_empty() {
            return None;
        }
        Some((obs, rng.pick(&fits).0.clone()))
    }
}

const WORDS: &[&str] = &["hello", "soak", "value", "ada", "lovelace", "42", "ภาษาไทย", "naïve café"];
const SAFE_KEYS: &[&str] = &["tab", "shift+tab", "ctrl+a", "end", "home", "escape", "down", "up"];
const DANGEROUS_KEYS: &[&str] = &["shift+delete", "ctrl+alt+delete", "super+backspace", "cmd+shift+delete"];
const TARGETS: &[&str] = &["Change", "Does nothing", "Email", "First link", "Search", "Soak list"];

/// One call of the mix: its label (kind of call) and arguments.
fn next_call(rng: &mut Rng, seen: &mut Seen, pages: &[String]) -> (&'static str, Value) {
    let roll = rng.below(100);
    let element = |rng: &mut Rng, seen: &mut Seen| seen.element(rng, None);
    match roll {
        0..=17 => ("see", json!({"action": "see"})),
        18..=27 => match element(rng, seen) {
            Some((obs, id)) => ("click element", json!({"action": "click", "observation_id": obs, "element_id": id})),
            None => ("see", json!({"action": "see"})),
        },
        28..=32 => ("click text", json!({"action": "click", "target_text": rng.pick(TARGETS)})),
        33..=36 => match element(rng, seen) {
            Some((obs, id)) => ("hover", json!({"action": "hover", "observation_id": obs, "element_id": id})),
            None => ("hover", json!({"action": "hover", "target_text": rng.pick(TARGETS)})),
        },
        37..=40 => ("key", json!({"action": "key", "keys": rng.pick(SAFE_KEYS)})),
        41..=44 => match seen.element(rng, Some("entry")) {
            Some((obs, id)) => {
                ("type", json!({"action": "type", "text": rng.pick(WORDS), "observation_id": obs, "element_id": id}))
            }
            None => ("type", json!({"action": "type", "text": rng.pick(WORDS)})),
        },
        45..=48 => ("scroll", json!({"action": "scroll", "direction": rng.pick(&["up", "down"]), "amount": 3})),
        49..=50 => ("inspect", json!({"action": "inspect", "region": "0,0,400,300"})),
        51..=52 => match (element(rng, seen), element(rng, seen)) {
            (Some((obs, from)), Some((_, to))) => {
                ("drag", json!({"action": "drag", "observation_id": obs, "element_id": from, "to_element_id": to}))
            }
            _ => ("see", json!({"action": "see"})),
        },
        53 => ("open_url", json!({"action": "open_url", "url": rng.pick(pages)})),
        // Stale and unknown ids.
        54..=59 => match seen.old.clone() {
            Some((obs, id)) => ("stale id", json!({"action": "click", "observation_id": obs, "element_id": id})),
            None => ("stale id", json!({"action": "click", "observation_id": "o999999", "element_id": "e1"})),
        },
        60..=63 => {
            let obs = seen.observation.clone().unwrap_or_else(|| "o1".into());
            ("unknown id", json!({"action": "click", "observation_id": obs, "element_id": "e987654"}))
        }
        // Malformed arguments.
        64..=79 => {
            let bad = [
                json!({"action": "fly"}),
                json!({"action": 7}),
                json!({}),
                json!({"action": "click"}),
                json!({"action": "type"}),
                json!({"action": "type", "text": "x".repeat(20_000)}),
                json!({"action": "type", "text": "a\u{0007}b"}),
                json!({"action": "key", "keys": "ctrl+nosuchkey"}),
                json!({"action": "scroll", "direction": "sideways"}),
                json!({"action": "see", "colour": "blue"}),
                json!({"action": "inspect", "region": "-5,a,0,0"}),
                json!({"action": "open_url"}),
                json!({"action": "click", "element_id": ["e1"]}),
                json!({"action": "drag", "element_id": "e1"}),
                json!("not an object"),
            ];
            ("malformed", rng.pick(&bad).clone())
        }
        // Guard-tripping targets.
        80..=84 => ("guard hotkey", json!({"action": "key", "keys": rng.pick(DANGEROUS_KEYS)})),
        85..=88 => {
            let url = rng.pick(&["http://user:pw@127.0.0.1/", "file:///etc/passwd", "javascript:alert(1)"]);
            ("guard url", json!({"action": "open_url", "url": url}))
        }
        89..=92 => {
            let target = rng.pick(&["Delete account", "Remove all"]);
            ("guard destructive", json!({"action": "click", "target_text": target}))
        }
        93..=96 => match seen.element(rng, Some("password_entry")) {
            Some((obs, id)) => (
                "guard password",
                json!({"action": "type", "text": "hunter2", "observation_id": obs, "element_id": id}),
            ),
            None => ("guard password", json!({"action": "click", "target_text": "Password"})),
        },
        _ => ("guard terminal", json!({"action": "type", "text": "rm -rf ~\n"})),
    }
}

/// How a call ended, for the tally: `ok`, a reason code, `jsonrpc <code>` or `transport`.
fn kind_of(reply: &Result<Reply, String>) -> String {
    match reply {
        Err(_) => "no answer (transport)".into(),
        Ok(Reply::Error { code, .. }) => format!("JSON-RPC error {code}"),
        Ok(reply) => match reply.structured()["reason"].as_str() {
            Some(reason) => reason.to_string(),
            None if reply.text().starts_with("[error]") => "error without a reason".into(),
            None => "ran".into(),
        },
    }
}

#[derive(Default)]
struct Tally {
    latencies: BTreeMap<&'static str, Vec<Duration>>,
    kinds: BTreeMap<String, usize>,
    transport_errors: Vec<String>,
}

/// One client: its own session, `calls` calls, a new turn every [`CALLS_PER_TURN`].
fn client(url: &str, protocol: Protocol, seed: u64, calls: usize, pages: &[String], tally: &Mutex<Tally>) {
    let mut rng = Rng(seed);
    let mut seen = Seen::default();
    let mut mcp = match McpHttp::connect(url, protocol, Duration::from_secs(120)) {
        Ok(c) => c,
        Err(e) => {
            if let Ok(mut t) = tally.lock() {
                t.transport_errors.push(format!("connect: {e}"));
            }
            return;
        }
    };
    for i in 0..calls {
        let turn = format!("soak-{seed}-{}", i / CALLS_PER_TURN);
        let meta = json!({"handrail/turn": turn, "handrail/intent": "soak the server", "handrail/mode": "unattended"});
        let (label, args) = next_call(&mut rng, &mut seen, pages);
        let started = Instant::now();
        let reply = mcp.call_tool("computer", args, meta).map_err(|e| e.to_string());
        let took = started.elapsed();
        if let Ok(r) = &reply {
            seen.learn(r.structured());
        }
        let kind = kind_of(&reply);
        if let Ok(mut t) = tally.lock() {
            t.latencies.entry(label).or_default().push(took);
            *t.kinds.entry(kind).or_default() += 1;
            if let Err(e) = reply {
                t.transport_errors.push(e);
            }
        }
    }
}

/// What the server and its desktop hold at one moment.
#[derive(Debug, Clone)]
struct Resources {
    rss_kib: u64,
    fds: usize,
    threads: usize,
    x_clients: usize,
    /// Processes below the server, and those of them that are not the browser's: a page opened in a
    /// new tab has renderer processes of its own, which are the browser's business.
    descendants: usize,
    not_browser: usize,
}

fn status_field(pid: u32, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with(field)).and_then(|l| l.split_whitespace().nth(1)?.parse().ok()))
        .unwrap_or(0)
}

fn fds(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd")).map(|d| d.count()).unwrap_or(0)
}

/// Every process below `pid`, from each process's parent in `/proc/*/stat`.
fn descendants(pid: u32) -> Vec<u32> {
    let parents: Vec<(u32, u32)> = std::fs::read_dir("/proc")
        .map(|d| {
            d.flatten()
                .filter_map(|e| {
                    let p: u32 = e.file_name().to_str()?.parse().ok()?;
                    let stat = std::fs::read_to_string(format!("/proc/{p}/stat")).ok()?;
                    let ppid = stat.rsplit(')').next()?.split_whitespace().nth(1)?.parse().ok()?;
                    Some((p, ppid))
                })
                .collect()
        })
        .unwrap_or_default();
    let mut found = vec![pid];
    let mut i = 0;
    while i < found.len() {
        let parent = found[i];
        found.extend(parents.iter().filter(|(_, pp)| *pp == parent).map(|(p, _)| *p));
        i += 1;
    }
    found.remove(0);
    found
}

/// The X server's clients: its connected sockets, from the kernel's socket table (`ss`), which is
/// what the X server itself holds open, whoever the client is.
fn x_clients(xvfb: u32) -> usize {
    let Ok(out) = Command::new("ss").args(["-x", "-p", "-n"]).output() else { return 0 };
    String::from_utf8_lossy(&out.stdout).lines().filter(|l| l.contains(&format!("pid={xvfb},"))).count()
}

fn comm(pid: u32) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default()
}

fn resources(server: u32, xvfb: u32) -> Resources {
    let below = descendants(server);
    Resources {
        rss_kib: status_field(server, "VmRSS:"),
        fds: fds(server),
        threads: status_field(server, "Threads:") as usize,
        x_clients: x_clients(xvfb),
        descendants: below.len(),
        not_browser: below.iter().filter(|&&p| !comm(p).starts_with("chrom")).count(),
    }
}

/// [`resources`] once the server's descriptors and threads are the same in two readings 100 ms apart,
/// or as they are at `within`.
fn settled_resources(server: u32, xvfb: u32, within: Duration) -> Resources {
    let deadline = Instant::now() + within;
    let mut last = resources(server, xvfb);
    loop {
        std::thread::sleep(Duration::from_millis(100));
        let now = resources(server, xvfb);
        if (now.fds, now.threads) == (last.fds, last.threads) || Instant::now() >= deadline {
            return now;
        }
        last = now;
    }
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)].as_secs_f64() * 1000.0
}

fn main() -> Result<()> {
    let o = options()?;
    let probe = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/apps/probe_gtk.py");
    let pages = vec![serve_page(FORM_PAGE), serve_page(LIST_PAGE)];
    let audit = std::env::temp_dir().join(format!("handrail-soak-audit-{}.jsonl", std::process::id()));
    let audit_arg = audit.display().to_string();
    println!("soak: {} calls, {} clients, seed {}, binary {}", o.calls, o.clients, o.seed, o.binary.display());
    let binary = o.binary.display().to_string();
    let served = Served::start(
        &binary,
        &["--sandbox", "--vision", "yes", "--audit-log", &audit_arg, "--", "/usr/bin/python3", probe],
        &[],
    );
    let display = served.sandbox_display().context("the sandbox's display")?;
    let root = served.sandbox_root().context("the sandbox's root")?;
    let marker = root.file_name().and_then(|n| n.to_str()).unwrap_or_default().trim_start_matches("handrail-sandbox-");
    let marker = marker.to_string();
    let lock = format!("/tmp/.X{}-lock", display.trim_start_matches(':'));
    let xvfb: u32 = std::fs::read_to_string(&lock)?.trim().parse()?;

    // The apps: the probe app is up with the server; both pages in Chromium, then xterm.
    let mut setup = McpHttp::connect(&served.url, Protocol::Sessions, Duration::from_secs(120))?;
    let mut step = 0;
    let mut open = |args: Value| -> Result<String> {
        step += 1;
        let meta = json!({"handrail/turn": format!("setup-{step}"), "handrail/mode": "unattended"});
        let text = setup.call_tool("computer", args.clone(), meta)?.text();
        println!("setup {args}: {}", text.lines().next().unwrap_or_default());
        Ok(text)
    };
    for page in &pages {
        open(json!({"action": "open_url", "url": page}))?;
    }
    open(json!({"action": "open_app", "app": "xterm"}))?;
    let up = wait_until(Duration::from_secs(30), Duration::from_millis(500), || {
        let text = open(json!({"action": "see"})).ok()?;
        // Each app's window is listed (the front one covers the others' elements).
        let listed = ["Soak list", "Account settings", "xterm", "probe"];
        listed.iter().all(|w| text.contains(w)).then_some(())
    });
    if up.is_none() {
        let text = open(json!({"action": "see"}))?;
        bail!("the apps did not come up:\n{text}\n{}", served.log().join("\n"));
    }
    drop(setup);

    let tally = Mutex::new(Tally::default());
    client(&served.url, Protocol::Sessions, o.seed ^ 0xABCD, WARM_UP_CALLS, &pages, &tally);
    let start = resources(served.pid(), xvfb);
    let tally = Arc::new(Mutex::new(Tally::default()));

    let began = Instant::now();
    let threads: Vec<_> = (0..o.clients)
        .map(|i| {
            let per = o.calls / o.clients + usize::from(i < o.calls % o.clients);
            let url = served.url.clone();
            let pages = pages.clone();
            let tally = tally.clone();
            let seed = o.seed.wrapping_mul(1000).wrapping_add(i as u64);
            // One client in four speaks the stateless protocol.
            let protocol = if i % 4 == 3 { Protocol::Stateless } else { Protocol::Sessions };
            std::thread::spawn(move || client(&url, protocol, seed, per, &pages, &tally))
        })
        .collect();
    for t in threads {
        let _ = t.join();
    }
    let elapsed = began.elapsed();
    // Sessions ended (their DELETE went out on drop): the figures are read once the server has closed
    // them, i.e. its descriptors and threads hold still across two readings (at most 5 s).
    let end = settled_resources(served.pid(), xvfb, Duration::from_secs(5));
    let conn = handrail_x11::Conn::open(&display)?;
    let held = handrail_x11::held_down(&conn)?;

    let tally = tally.lock().map_err(|_| anyhow::anyhow!("a client panicked"))?;
    let total: usize = tally.latencies.values().map(Vec::len).sum();
    println!();
    println!("calls: {total} in {:.1} s = {:.1} calls/s", elapsed.as_secs_f64(), total as f64 / elapsed.as_secs_f64());
    println!("{:<20} {:>6} {:>9} {:>9} {:>9}", "call", "n", "p50 ms", "p95 ms", "p99 ms");
    let mut all = Vec::new();
    for (label, list) in &tally.latencies {
        let mut sorted = list.clone();
        sorted.sort();
        all.extend_from_slice(&sorted);
        println!(
            "{label:<20} {:>6} {:>9.1} {:>9.1} {:>9.1}",
            sorted.len(),
            percentile(&sorted, 0.5),
            percentile(&sorted, 0.95),
            percentile(&sorted, 0.99)
        );
    }
    all.sort();
    println!(
        "{:<20} {:>6} {:>9.1} {:>9.1} {:>9.1}",
        "all",
        all.len(),
        percentile(&all, 0.5),
        percentile(&all, 0.95),
        percentile(&all, 0.99)
    );
    println!("answers by kind:");
    for (kind, n) in &tally.kinds {
        println!("  {kind:<28} {n}");
    }
    for e in tally.transport_errors.iter().take(5) {
        println!("  transport error: {e}");
    }
    println!("server (pid {}), after {WARM_UP_CALLS} warm-up calls → end:", served.pid());
    println!("  RSS              {} KiB → {} KiB (bound: +{} KiB)", start.rss_kib, end.rss_kib, RSS_GROWTH_BOUND_KIB);
    println!("  open fds         {} → {} (bound: +{FD_GROWTH_BOUND})", start.fds, end.fds);
    println!("  threads          {} → {}", start.threads, end.threads);
    println!(
        "  child processes  {} → {} ({} → {} not the browser's)",
        start.descendants, end.descendants, start.not_browser, end.not_browser
    );
    println!("  X clients        {} → {}", start.x_clients, end.x_clients);
    println!("  held down (X server's own XQueryKeymap/QueryPointer): {held:?}");
    let audit_lines = std::fs::read_to_string(&audit).map(|s| s.lines().count()).unwrap_or(0);
    println!("  audit lines      {audit_lines}");

    let server = served.pid();
    let status = served.stop();
    let left = wait_until(Duration::from_secs(10), Duration::from_millis(100), || {
        (marked_processes(&marker).is_empty() && descendants(server).is_empty() && !root.exists()).then_some(())
    });
    let leftover = marked_processes(&marker);
    println!(
        "after SIGTERM: exit {status}; sandbox processes left: {leftover:?}; sandbox files left: {}",
        root.exists()
    );
    let _ = std::fs::remove_file(&audit);

    let mut broken = Vec::new();
    if end.rss_kib > start.rss_kib + RSS_GROWTH_BOUND_KIB {
        broken.push("RSS grew past its bound");
    }
    if end.fds > start.fds + FD_GROWTH_BOUND {
        broken.push("open fds grew past their bound");
    }
    if end.x_clients > start.x_clients || end.not_browser > start.not_browser {
        broken.push("X clients or child processes grew");
    }
    if !held.is_empty() {
        broken.push("something is held down");
    }
    if left.is_none() || !status.success() {
        broken.push("the server did not stop cleanly");
    }
    if !tally.transport_errors.is_empty() || total != o.calls {
        broken.push("calls went unanswered");
    }
    if broken.is_empty() {
        println!("PASS: every bound held");
        Ok(())
    } else {
        bail!("FAIL: {}", broken.join("; "))
    }
}

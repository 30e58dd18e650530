//! Wayland beside X11, and each beside the usual tools of its display protocol, in one run on one
//! machine: capture (+ JPEG), click → settled → fresh screenshot, and typing (time and exactness read
//! back from the probe app). `cargo bench -p handrail-conformance --bench backends`.
//!
//! Peers: `grim` (wlr-screencopy, PNG) and `wtype` (virtual keyboard) on Wayland; `scrot` and
//! `xdotool type` on X11. Rounds alternate between the methods so load drifts hit all alike.
//!
//! GNOME (a headless mutter) is measured through `handrail-gnome`'s parts directly (its `Desktop`
//! is not assembled yet) with the probe full-screen; no peer tool reaches a mutter without GNOME
//! Shell, so its rows compare with the other desktops of the same run.

use std::process::Stdio;
use std::time::{Duration, Instant};

use std::sync::Arc;

use handrail_conformance::real::{self, RealHarness};
use handrail_conformance::{Harness, Probe};
use handrail_gnome::{MutterInput, MutterScreen, MutterSession, MutterSettle};
use handrail_platform::click_spacing::DOUBLE_CLICK_TIME;
use handrail_platform::{Encoder, Input, MouseButton, Point, Screen, Settle, SettleRequest, Size};
use handrail_sandbox::{Sandbox, SandboxOptions, Session};
use handrail_testkit::LineApp;

const ROUNDS: usize = 20;
const TYPING_ROUNDS: usize = 10;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

/// Runs a peer tool inside the harness's sandbox; its wall time.
fn peer(h: &RealHarness, program: &str, args: &[&str]) -> Option<Duration> {
    let t = Instant::now();
    let ok = h
        .sandbox()
        .command(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .ok()?
        .success();
    ok.then(|| t.elapsed())
}

fn capture(h: &RealHarness, peers: &[(&str, &[&str])]) {
    let d = h.desktop();
    // The encoder itself, without the reuse of an unchanged screen's last image the engine has.
    let encoder = handrail_imaging::JpegEncoder::new(80);
    let mut raw = Vec::new();
    let mut jpeg = Vec::new();
    let mut others: Vec<Vec<Duration>> = vec![Vec::new(); peers.len()];
    for _ in 0..ROUNDS {
        let t = Instant::now();
        let frame = d.screen.capture(None, None).expect("capture");
        raw.push(t.elapsed());
        let t = Instant::now();
        let frame = d.screen.capture(None, Some(Size::new(frame.size.width, frame.size.height))).expect("capture");
        encoder.encode(&frame).expect("encode");
        jpeg.push(t.elapsed());
        for (i, (program, args)) in peers.iter().enumerate() {
            if let Some(t) = peer(h, program, args) {
                others[i].push(t);
            }
        }
    }
    let base = median(jpeg.clone());
    println!("| {} handrail capture + JPEG q80 | {} | 1.0x |", h.name(), ms(base));
    println!(
        "| {} handrail capture only (raw BGRX) | {} | {:.2}x |",
        h.name(),
        ms(median(raw.clone())),
        median(raw).as_secs_f64() / base.as_secs_f64()
    );
    for (i, (program, args)) in peers.iter().enumerate() {
        if others[i].is_empty() {
            println!("| {} `{program} {}` | failed | |", h.name(), args.join(" "));
            continue;
        }
        let m = median(std::mem::take(&mut others[i]));
        println!(
            "| {} `{program} {}` | {} | {:.1}x |",
            h.name(),
            args.join(" "),
            ms(m),
            m.as_secs_f64() / base.as_secs_f64()
        );
    }
}

fn click(h: &RealHarness) {
    let mut probe = h.open_probe("bench click");
    let at = probe.bounds("Change").center();
    let d = h.desktop();
    let mut times = Vec::new();
    let mut settles = Vec::new();
    let mut arrived = 0;
    for _ in 0..ROUNDS {
        // Untimed: a click at the same place sooner would be held back so as not to be a double-click.
        std::thread::sleep(DOUBLE_CLICK_TIME);
        let t = Instant::now();
        let mut watch = d.settle.watch().expect("watch");
        d.input.click(at, MouseButton::Left, 1).expect("click");
        let report = watch.wait(&SettleRequest::default()).expect("settle");
        drop(watch);
        let frame = d.screen.capture(None, None).expect("capture");
        d.encoder.encode(&frame).expect("encode");
        times.push(t.elapsed());
        settles.push(report.waited);
        if probe.expect(Duration::from_secs(2), &|l| l == "clicked Change").is_some() {
            arrived += 1;
        }
    }
    println!(
        "| {} click + settle + capture + JPEG | {} (settle {}) | {arrived}/{ROUNDS} |",
        h.name(),
        ms(median(times)),
        ms(median(settles))
    );
}

fn typing(h: &RealHarness, peer_tool: Option<(&str, &[&str])>) {
    let mut probe = h.open_probe("bench typing");
    let d = h.desktop();
    d.input.click(probe.bounds("Name").center(), MouseButton::Left, 1).expect("focus the entry");
    let clear = |probe: &mut Box<dyn Probe + '_>| {
        let a = handrail_core::keys::parse_key_combo("ctrl+a").expect("combo");
        let bs = handrail_core::keys::parse_key_combo("backspace").expect("combo");
        d.input.key(&a).expect("ctrl+a");
        d.input.key(&bs).expect("backspace");
        probe.expect(Duration::from_secs(2), &|l| l == "name=");
    };
    for (script, text) in
        [("English 11", "hello world"), ("Thai", "สวัสดีครับ"), ("CJK", "漢字かなカナ"), ("emoji", "👍🎉 ok")]
    {
        let want = format!("name={text}");
        let mut ours = (Vec::new(), 0);
        let mut theirs = (Vec::new(), 0);
        for _ in 0..TYPING_ROUNDS {
            let t = Instant::now();
            d.input.type_text(text).expect("type");
            ours.0.push(t.elapsed());
            if probe.expect(Duration::from_secs(3), &|l| l == want).is_some() {
                ours.1 += 1;
            }
            clear(&mut probe);
            if let Some((program, args)) = peer_tool {
                let mut args: Vec<&str> = args.to_vec();
                args.push(text);
                if let Some(t) = peer(h, program, &args) {
                    theirs.0.push(t);
                }
                if probe.expect(Duration::from_secs(3), &|l| l == want).is_some() {
                    theirs.1 += 1;
                }
                clear(&mut probe);
            }
        }
        let peer_cell = match peer_tool {
            Some((program, args)) if !theirs.0.is_empty() => {
                format!("`{program} {}`: {}, {}/{TYPING_ROUNDS} exact", args.join(" "), ms(median(theirs.0)), theirs.1)
            }
            Some((program, _)) => format!("`{program}` failed"),
            None => String::new(),
        };
        println!("| {} {script} | {}, {}/{TYPING_ROUNDS} exact | {peer_cell} |", h.name(), ms(median(ours.0)), ours.1);
    }
}

/// A private GNOME desktop driven through handrail-gnome, with the probe full-screen on it.
struct Gnome {
    // Dropped in order: the probe, then the session's parts, then the desktop.
    probe: LineApp,
    screen: MutterScreen,
    settle: MutterSettle,
    input: MutterInput,
    _sandbox: Sandbox,
    geometry: Vec<(String, handrail_platform::Rect)>,
}

impl Gnome {
    fn start() -> Gnome {
        let opts = SandboxOptions { session: Session::Gnome, parent_death_signal: false, ..SandboxOptions::default() };
        let sandbox = Sandbox::start(opts).expect("a GNOME sandbox (run scripts/setup-desktop)");
        let session = Arc::new(MutterSession::start(sandbox.bus_address()).expect("mutter's sessions"));
        let screen = MutterScreen::open(session.clone(), sandbox.pipewire_socket().as_deref()).expect("screen cast");
        let settle = MutterSettle::start(&screen).expect("settle");
        let input = MutterInput::new(session);
        let mut cmd = sandbox.command("/usr/bin/python3");
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/apps/conformance_gtk.py");
        cmd.args([script, "--title", "bench gnome", "--fullscreen"]).stdin(Stdio::null()).stderr(Stdio::null());
        let mut probe = LineApp::spawn(cmd);
        assert!(probe.wait_for(|l| l == "ready").is_some(), "the probe came up on mutter: {:?}", probe.seen);
        let mut geometry = Vec::new();
        for line in &probe.seen {
            let f: Vec<&str> = line.split(' ').collect();
            if let ["geometry", name, x, y, w, h] = f[..] {
                let n = |v: &str| v.parse::<i32>().unwrap_or(0);
                geometry
                    .push((name.replace('_', " "), handrail_platform::Rect::new(n(x), n(y), n(w) as u32, n(h) as u32)));
            }
        }
        let g = Gnome { probe, screen, settle, input, _sandbox: sandbox, geometry };
        // Act once the screen shows the window (its light background where no widget is).
        let deadline = Instant::now() + Duration::from_secs(20);
        while g.screen.capture(Some(handrail_platform::Rect::new(4, 4, 1, 1)), None).map_or(true, |f| f.row(0)[0] < 200)
        {
            assert!(Instant::now() < deadline, "the probe never showed on mutter");
            std::thread::sleep(Duration::from_millis(20)); // polling interval, not a settle wait
        }
        g
    }

    fn center(&self, name: &str) -> Point {
        self.geometry.iter().find(|(n, _)| n == name).map(|(_, r)| r.center()).expect("the probe placed it")
    }
}

fn gnome_capture(g: &Gnome) {
    let encoder = handrail_imaging::JpegEncoder::new(80);
    let (mut raw, mut jpeg) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let t = Instant::now();
        let frame = g.screen.capture(None, None).expect("capture");
        raw.push(t.elapsed());
        let t = Instant::now();
        let frame = g.screen.capture(None, Some(Size::new(frame.size.width, frame.size.height))).expect("capture");
        encoder.encode(&frame).expect("encode");
        jpeg.push(t.elapsed());
    }
    let base = median(jpeg);
    println!("| gnome handrail capture + JPEG q80 | {} | 1.0x |", ms(base));
    let r = median(raw);
    println!("| gnome handrail capture only (raw BGRX) | {} | {:.2}x |", ms(r), r.as_secs_f64() / base.as_secs_f64());
}

fn gnome_click(g: &mut Gnome) {
    let at = g.center("Change");
    let encoder = handrail_imaging::encoder(handrail_imaging::ImageFormat::Jpeg { quality: 80 });
    let (mut times, mut settles, mut arrived) = (Vec::new(), Vec::new(), 0);
    for _ in 0..ROUNDS {
        std::thread::sleep(DOUBLE_CLICK_TIME);
        let t = Instant::now();
        let mut watch = g.settle.watch().expect("watch");
        g.input.click(at, MouseButton::Left, 1).expect("click");
        let report = watch.wait(&SettleRequest::default()).expect("settle");
        drop(watch);
        let frame = g.screen.capture(None, None).expect("capture");
        encoder.encode(&frame).expect("encode");
        times.push(t.elapsed());
        settles.push(report.waited);
        if g.probe.wait_for_within(Duration::from_secs(2), |l| l == "clicked Change").is_some() {
            arrived += 1;
        }
    }
    println!(
        "| gnome click + settle + capture + JPEG | {} (settle {}) | {arrived}/{ROUNDS} |",
        ms(median(times)),
        ms(median(settles))
    );
}

fn gnome_typing(g: &mut Gnome) {
    g.input.click(g.center("Name"), MouseButton::Left, 1).expect("focus the entry");
    for (script, text) in
        [("English 11", "hello world"), ("Thai", "สวัสดีครับ"), ("CJK", "漢字かなカナ"), ("emoji", "👍🎉 ok")]
    {
        let want = format!("name={text}");
        let (mut times, mut exact) = (Vec::new(), 0);
        for _ in 0..TYPING_ROUNDS {
            let t = Instant::now();
            let typed = g.input.type_text(text);
            times.push(t.elapsed());
            if typed.is_ok() && g.probe.wait_for_within(Duration::from_secs(3), |l| l == want).is_some() {
                exact += 1;
            }
            let a = handrail_core::keys::parse_key_combo("ctrl+a").expect("combo");
            let bs = handrail_core::keys::parse_key_combo("backspace").expect("combo");
            g.input.key(&a).expect("ctrl+a");
            g.input.key(&bs).expect("backspace");
            g.probe.wait_for_within(Duration::from_secs(2), |l| l == "name=");
        }
        println!("| gnome {script} | {}, {exact}/{TYPING_ROUNDS} exact | |", ms(median(times)));
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    // `-- capture`, `-- click` or `-- typing` runs one part.
    let run = |part: &str| args.is_empty() || args.iter().any(|a| a == part);
    let wl = real::wayland();
    let x = real::x11();
    let mut gnome = Gnome::start();
    if run("capture") {
        println!("\n### Capture, whole 1280x800 screen ({ROUNDS} interleaved rounds)\n");
        println!("| method | median | vs handrail + JPEG |\n|---|---:|---:|");
        capture(&wl, &[("grim", &["-t", "png", "/dev/null"]), ("grim", &["-t", "ppm", "/dev/null"])]);
        capture(
            &x,
            &[("scrot", &["-o", "/tmp/handrail-bench-scrot.png"]), ("xwd", &["-root", "-silent", "-out", "/dev/null"])],
        );
        gnome_capture(&gnome);
    }
    if run("click") {
        println!("\n### Click → settled → fresh screenshot ({ROUNDS} rounds; arrival read from the app)\n");
        println!("| pipeline | median | arrived |\n|---|---:|---:|");
        click(&wl);
        click(&x);
        gnome_click(&mut gnome);
    }
    if run("typing") {
        println!("\n### Typing into the probe's entry ({TYPING_ROUNDS} rounds; final text compared exactly)\n");
        println!("| backend, text | handrail | peer |\n|---|---|---|");
        typing(&wl, Some(("wtype", &[])));
        typing(&x, Some(("xdotool", &["type", "--delay", "12"])));
        gnome_typing(&mut gnome);
    }
}

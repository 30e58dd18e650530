//! Wayland beside X11, and each beside the usual tools of its display protocol, in one run on one
//! machine: capture (+ JPEG), click → settled → fresh screenshot, and typing (time and exactness read
//! back from the probe app). `cargo bench -p handrail-conformance --bench backends`.
//!
//! Peers: `grim` (wlr-screencopy, PNG) and `wtype` (virtual keyboard) on Wayland; `scrot` and
//! `xdotool type` on X11. Rounds alternate between the methods so load drifts hit all alike.
//!
//! GNOME (a headless GNOME Shell) is measured through its `Desktop` like the others; no peer tool
//! here reaches GNOME's screen or input (gnome-screenshot and ydotool are not on these machines, and
//! ydotool needs /dev/uinput), so its rows compare with the other desktops of the same run.

use std::process::Stdio;
use std::time::{Duration, Instant};

use handrail_conformance::real::{self, RealHarness};
use handrail_conformance::{Harness, Probe};
use handrail_platform::click_spacing::DOUBLE_CLICK_TIME;
use handrail_platform::{Encoder, MouseButton, SettleRequest, Size};

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

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    // `-- capture`, `-- click` or `-- typing` runs one part.
    let run = |part: &str| args.is_empty() || args.iter().any(|a| a == part);
    let wl = real::wayland();
    let x = real::x11();
    let gnome = real::gnome();
    // GNOME Shell 48 from the Debian 13 root file system (scripts/setup-trixie).
    let gnome48 = real::gnome_48();
    // The same GNOME 48 through the desktop portal (its consent answered at the start).
    let portal48 = real::gnome_48_portal();
    if run("capture") {
        println!("\n### Capture, whole 1280x800 screen ({ROUNDS} interleaved rounds)\n");
        println!("| method | median | vs handrail + JPEG |\n|---|---:|---:|");
        capture(&wl, &[("grim", &["-t", "png", "/dev/null"]), ("grim", &["-t", "ppm", "/dev/null"])]);
        capture(
            &x,
            &[("scrot", &["-o", "/tmp/handrail-bench-scrot.png"]), ("xwd", &["-root", "-silent", "-out", "/dev/null"])],
        );
        capture(&gnome, &[]);
        capture(&gnome48, &[]);
        capture(&portal48, &[]);
    }
    if run("click") {
        println!("\n### Click → settled → fresh screenshot ({ROUNDS} rounds; arrival read from the app)\n");
        println!("| pipeline | median | arrived |\n|---|---:|---:|");
        click(&wl);
        click(&x);
        click(&gnome);
        click(&gnome48);
        click(&portal48);
    }
    if run("typing") {
        println!("\n### Typing into the probe's entry ({TYPING_ROUNDS} rounds; final text compared exactly)\n");
        println!("| backend, text | handrail | peer |\n|---|---|---|");
        typing(&wl, Some(("wtype", &[])));
        typing(&x, Some(("xdotool", &["type", "--delay", "12"])));
        typing(&gnome, None);
        typing(&gnome48, None);
        typing(&portal48, None);
    }
}

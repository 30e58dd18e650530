//! Click → settled → fresh observation, against the pipeline popular computer-use demos use
//! (`xdotool mousemove X Y click 1`, a fixed 2 s wait, `scrot`).
//!
//! Run: `cargo bench -p handrail-x11 --bench click`. Starts its own sandbox desktop and the GTK probe
//! app (testdata/apps/probe_gtk.py), clicks its "Change" button (which flips a label) and checks every
//! click really arrived (the app reports it on stdout).

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use handrail_platform::{Input, MouseButton, Point, Screen, Settle, SettleRequest, Size};
use handrail_sandbox::{Sandbox, SandboxOptions};
use handrail_x11::capture::X11Screen;
use handrail_x11::input::X11Input;
use handrail_x11::settle::X11Settle;
use handrail_x11::Conn;

const HANDRAIL_RUNS: usize = 30;
const REFERENCE_RUNS: usize = 5;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let sandbox = Sandbox::start(SandboxOptions { parent_death_signal: false, ..SandboxOptions::default() })?;
    let app = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/apps/probe_gtk.py");
    let mut child = sandbox.command("/usr/bin/python3").arg(app).stdout(Stdio::piped()).spawn()?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let (tx, rx) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut button = None;
    let deadline = Instant::now() + Duration::from_secs(15);
    while Instant::now() < deadline {
        let line = rx.recv_timeout(Duration::from_secs(15))?;
        if let Some(rest) = line.strip_prefix("geometry Change ") {
            let n: Vec<i32> = rest.split(' ').filter_map(|v| v.parse().ok()).collect();
            if let [x, y, w, h] = n[..] {
                button = Some(Point::new(x + w / 2, y + h / 2));
            }
        }
        if line == "ready" {
            break;
        }
    }
    let button = button.ok_or("the probe app did not report its button")?;

    let conn = Conn::open(&sandbox.display())?;
    let screen = X11Screen::new(Arc::clone(&conn))?;
    let input = X11Input::new(Arc::clone(&conn))?;
    let settle = X11Settle::new(&sandbox.display())?;
    let encoder = handrail_imaging::encoder(handrail_imaging::ImageFormat::default());
    let request = SettleRequest::default();
    let max = Some(Size::new(1280, 1280));

    let clicked = |rx: &mpsc::Receiver<String>| -> bool {
        let deadline = Instant::now() + Duration::from_secs(3);
        while let Ok(line) = rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            if line == "clicked Change" {
                return true;
            }
        }
        false
    };

    // handrail: click, wait until the screen settles, capture + encode the fresh screenshot.
    let mut handrail = Vec::new();
    let mut settle_only = Vec::new();
    let mut handrail_ok = 0;
    for _ in 0..HANDRAIL_RUNS {
        let start = Instant::now();
        let mut watch = settle.watch()?;
        input.click(button, MouseButton::Left, 1)?;
        let report = watch.wait(&request)?;
        let frame = screen.capture(None, max)?;
        let _image = encoder.encode(&frame)?;
        handrail.push(start.elapsed());
        settle_only.push(report.waited);
        drop(watch);
        if clicked(&rx) {
            handrail_ok += 1;
        }
    }

    // Reference: xdotool click, fixed 2 s wait, scrot screenshot.
    let shot = sandbox.root().join("reference.png");
    let mut reference = Vec::new();
    let mut xdotool_only = Vec::new();
    let mut reference_ok = 0;
    for _ in 0..REFERENCE_RUNS {
        let start = Instant::now();
        let status = sandbox
            .command("xdotool")
            .args(["mousemove", &button.x.to_string(), &button.y.to_string(), "click", "1"])
            .status()?;
        xdotool_only.push(start.elapsed());
        std::thread::sleep(Duration::from_secs(2)); // the peer's fixed wait, measured as it is
        let _ = sandbox.command("scrot").arg("-o").arg(&shot).status()?;
        reference.push(start.elapsed());
        if status.success() && clicked(&rx) {
            reference_ok += 1;
        }
    }
    let _ = child.kill();
    let _ = child.wait();

    let h = median(handrail);
    let r = median(reference);
    println!("click → settled → fresh screenshot, GTK button that flips a label, 1280x800 (medians)\n");
    println!("| pipeline | median | clicks that arrived | vs handrail |");
    println!("|---|---:|---:|---:|");
    println!(
        "| handrail: XTEST click + DAMAGE settle + capture + JPEG | {:.1} ms (settle {:.1} ms) | {handrail_ok}/{HANDRAIL_RUNS} | 1.0x |",
        ms(h),
        ms(median(settle_only))
    );
    println!(
        "| `xdotool mousemove … click 1` + fixed 2 s + scrot | {:.1} ms | {reference_ok}/{REFERENCE_RUNS} | {:.1}x slower |",
        ms(r),
        ms(r) / ms(h)
    );
    println!("| (`xdotool mousemove … click 1` alone) | {:.1} ms | | |", ms(median(xdotool_only)));
    println!("\nreproduce: cargo bench -p handrail-x11 --bench click");
    sandbox.stop()?;
    Ok(())
}

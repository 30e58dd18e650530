//! Cold and warm snapshot times, calls, and the CPU each look costs the app, on a private sandbox
//! desktop: GTK 3 (gtk3-demo), GTK 4 (gnome-text-editor), Qt 5 (FeatherPad), then Chromium pages.
//!
//! `cargo run --release -p handrail-atspi --example walk_times [-- --dump]`

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use handrail_atspi::AtspiSource;
use handrail_platform::{Accessibility, AxHealth, AxLimits, AxSnapshot};

const RUNS: usize = 15;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// CPU time (user + system, clock ticks of 10 ms) of process `root` and all its descendants: a
/// browser answers from its main process, and its pages run in others.
fn tree_ticks(root: u32) -> u64 {
    let mut procs: Vec<(u32, u32, u64)> = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        let Some((head, rest)) = stat.rsplit_once(") ") else { continue };
        let Some(pid) = head.split(' ').next().and_then(|p| p.parse::<u32>().ok()) else { continue };
        let f: Vec<&str> = rest.split_whitespace().collect();
        // After "pid (comm) ": state 0, ppid 1, utime 11, stime 12.
        let num = |i: usize| f.get(i).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
        procs.push((pid, num(1) as u32, num(11) + num(12)));
    }
    let mut inside = vec![root];
    let mut total = 0;
    let mut i = 0;
    while i < inside.len() {
        let parent = inside[i];
        for &(pid, ppid, ticks) in &procs {
            if pid == parent {
                total += ticks;
            }
            if ppid == parent {
                inside.push(pid);
            }
        }
        i += 1;
    }
    total
}

fn measure(label: &str, source: &AtspiSource, limits: &AxLimits, dump: bool, app: u32) {
    let mut cold = Vec::new();
    let mut warm = Vec::new();
    let (mut cold_calls, mut warm_calls, mut cold_ticks, mut warm_ticks) = (0, 0, 0, 0);
    let mut last: Option<AxSnapshot> = None;
    // What the app spends by itself (a blinking caret, a busy page), for comparison.
    let ticks = tree_ticks(app);
    std::thread::sleep(Duration::from_secs(2));
    let idle = tree_ticks(app).saturating_sub(ticks) as f64 * 10.0 / 2.0;
    for _ in 0..RUNS {
        source.clear_cache();
        let ticks = tree_ticks(app);
        let t = Instant::now();
        let snap = source.snapshot(limits);
        cold.push(t.elapsed());
        cold_ticks += tree_ticks(app).saturating_sub(ticks);
        let cold_stats = source.last_stats();
        let ticks = tree_ticks(app);
        let t = Instant::now();
        let warm_snap = source.snapshot(limits);
        warm.push(t.elapsed());
        warm_ticks += tree_ticks(app).saturating_sub(ticks);
        let warm_stats = source.last_stats();
        cold_calls += cold_stats.calls;
        warm_calls += warm_stats.calls;
        assert_eq!(snap.health, AxHealth::Ok, "{label}: {:?}", snap.health);
        if warm_snap.nodes.len() != snap.nodes.len() {
            eprintln!("{label}: warm snapshot has {} nodes, cold {}", warm_snap.nodes.len(), snap.nodes.len());
        }
        last = Some(snap);
        eprintln!(
            "  {label}: cold {:?} ({} nodes, {} calls, {} windows walked) warm {:?} ({} calls, {} reused, {} walked)",
            cold_stats.elapsed,
            cold_stats.nodes,
            cold_stats.calls,
            cold_stats.windows_walked,
            warm_stats.elapsed,
            warm_stats.calls,
            warm_stats.windows_reused,
            warm_stats.windows_walked
        );
    }
    let nodes = last.as_ref().map_or(0, |s| s.nodes.len());
    let per_look = |ticks: u64| ticks as f64 * 10.0 / RUNS as f64;
    println!(
        "{label}: {nodes} nodes; cold median {:.1} ms (min {:.1}), {} calls, app CPU {:.1} ms per look; \
         warm median {:.2} ms (min {:.2}), {} calls, app CPU {:.1} ms per look; the app alone {idle:.0} ms/s",
        median(cold.clone()).as_secs_f64() * 1e3,
        cold.iter().min().copied().unwrap_or_default().as_secs_f64() * 1e3,
        cold_calls / RUNS,
        per_look(cold_ticks),
        median(warm.clone()).as_secs_f64() * 1e3,
        warm.iter().min().copied().unwrap_or_default().as_secs_f64() * 1e3,
        warm_calls / RUNS,
        per_look(warm_ticks),
    );
    if dump {
        if let Some(s) = &last {
            println!("{}", common::dump(s));
        }
    }
}

fn main() {
    let dump = std::env::args().any(|a| a == "--dump");
    let sandbox = common::start_sandbox();
    let source = AtspiSource::new(sandbox.bus_address());
    let limits =
        AxLimits { max_nodes: 4000, call_timeout: Duration::from_millis(1000), deadline: Duration::from_secs(5) };

    // Native apps, one at a time: the app, the name its windows are listed under, and its label here.
    let native: [(&str, &[&str], &str, &str); 3] = [
        ("gtk3-demo", &[], "gtk3-demo", "gtk3-demo (GTK 3)"),
        ("gnome-text-editor", &["--standalone"], "gnome-text-editor", "gnome-text-editor (GTK 4)"),
        ("featherpad", &["--standalone"], "FeatherPad", "FeatherPad (Qt 5)"),
    ];
    for (program, args, app_name, label) in native {
        let app = common::spawn(&sandbox, program, args);
        let ready = common::wait_for(&source, &limits, Duration::from_secs(30), |s| {
            s.nodes.iter().any(|n| n.app.eq_ignore_ascii_case(app_name) && n.role() == handrail_platform::Role::Button)
        });
        if let Err(s) = ready {
            eprintln!("{program} did not show up:\n{}", common::dump(&s));
            continue;
        }
        // Let the tree settle (first paints, stale coordinates right after mapping) before timing.
        let _ = common::wait_for(&source, &limits, Duration::from_secs(5), |_| source.last_stats().windows_walked == 0);
        measure(label, &source, &limits, dump, app.0.id());
        drop(app);
    }

    let url = common::serve(common::form_html());
    let chromium = common::launch_chromium(&sandbox, &url);
    let ready = common::wait_for(&source, &limits, Duration::from_secs(60), |s| {
        s.nodes.iter().any(|n| n.name == "Delete account")
    });
    if ready.is_err() {
        eprintln!("chromium page did not show up");
    }
    let _ = common::wait_for(&source, &limits, Duration::from_secs(10), |_| source.last_stats().windows_walked == 0);
    measure("chromium form", &source, &limits, dump, chromium.0.id());
    drop(chromium);

    // A bigger page: 150 list items with links, a 40x4 table.
    let mut big = String::from(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Big</title></head><body><ul>",
    );
    for i in 0..150 {
        big.push_str(&format!("<li><a href=\"#i{i}\">Item {i}</a> text {i}</li>"));
    }
    big.push_str("</ul><table>");
    for r in 0..40 {
        big.push_str(&format!("<tr><td>r{r}a</td><td>r{r}b</td><td>r{r}c</td><td><button>Do {r}</button></td></tr>"));
    }
    big.push_str("</table></body></html>");
    let url = common::serve(big);
    let chromium = common::launch_chromium(&sandbox, &url);
    let ready =
        common::wait_for(&source, &limits, Duration::from_secs(60), |s| s.nodes.iter().any(|n| n.name == "Item 0"));
    if ready.is_err() {
        eprintln!("big page did not show up");
    }
    let _ = common::wait_for(&source, &limits, Duration::from_secs(10), |_| source.last_stats().windows_walked == 0);
    measure("chromium big page", &source, &limits, false, chromium.0.id());
    drop(chromium);
}

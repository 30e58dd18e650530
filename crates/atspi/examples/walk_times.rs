//! Cold and warm snapshot times on a private sandbox desktop: gtk3-demo, then a Chromium form.
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

fn measure(label: &str, source: &AtspiSource, limits: &AxLimits, dump: bool) {
    let mut cold = Vec::new();
    let mut warm = Vec::new();
    let mut last: Option<AxSnapshot> = None;
    for _ in 0..RUNS {
        source.clear_cache();
        let t = Instant::now();
        let snap = source.snapshot(limits);
        cold.push(t.elapsed());
        let cold_stats = source.last_stats();
        let t = Instant::now();
        let warm_snap = source.snapshot(limits);
        warm.push(t.elapsed());
        let warm_stats = source.last_stats();
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
    println!(
        "{label}: {nodes} nodes; cold median {:.1} ms (min {:.1}); warm median {:.2} ms (min {:.2})",
        median(cold.clone()).as_secs_f64() * 1e3,
        cold.iter().min().copied().unwrap_or_default().as_secs_f64() * 1e3,
        median(warm.clone()).as_secs_f64() * 1e3,
        warm.iter().min().copied().unwrap_or_default().as_secs_f64() * 1e3,
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

    let gtk = common::spawn(&sandbox, "gtk3-demo", &[]);
    let ready = common::wait_for(&source, &limits, Duration::from_secs(30), |s| {
        s.nodes.iter().any(|n| n.app == "gtk3-demo" && n.role() == handrail_platform::Role::Button)
    });
    if ready.is_err() {
        eprintln!("gtk3-demo did not show up");
    }
    // Let the tree settle (first paints, stale coordinates right after mapping) before timing.
    let _ = common::wait_for(&source, &limits, Duration::from_secs(5), |_| source.last_stats().windows_walked == 0);
    measure("gtk3-demo", &source, &limits, dump);
    drop(gtk);

    let url = common::serve(common::form_html());
    let chromium = common::launch_chromium(&sandbox, &url);
    let ready = common::wait_for(&source, &limits, Duration::from_secs(60), |s| {
        s.nodes.iter().any(|n| n.name == "Delete account")
    });
    if ready.is_err() {
        eprintln!("chromium page did not show up");
    }
    let _ = common::wait_for(&source, &limits, Duration::from_secs(10), |_| source.last_stats().windows_walked == 0);
    measure("chromium form", &source, &limits, dump);
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
    measure("chromium big page", &source, &limits, false);
    drop(chromium);
}

//! Looking does not starve a page: a model polling with `see` back to back (as one waiting for a result
//! does) must leave the page's own timers running. The page keeps its clock and says in its title (read
//! from X11, not from accessibility) how many ticks ran and the longest gap between two.

mod common;

use std::time::{Duration, Instant};

use handrail_core::{Config, Engine, Mode, Status, Turn, Vision};
use handrail_sandbox::{Sandbox, SandboxOptions};

use common::raw;

/// A 50 ms ticker that repaints a counter (as a countdown or a progress text does, each tick a text
/// change on the accessibility bus), and a list of 150 rows so the page has a tree worth walking. Its
/// title says how many ticks ran and the longest gap between two of the last 60 (3 s).
const PAGE: &str = r#"<!doctype html><html><head><meta charset="utf-8"><title>ready</title></head>
<body><h1>Countdown</h1><p id="c">0</p><ul id="rows"></ul>
<script>
const rows = document.getElementById('rows');
for (let i = 0; i < 150; i++) { const li = document.createElement('li'); li.textContent = 'Row ' + i; rows.appendChild(li); }
let ticks = 0, last = performance.now();
const gaps = [];
setInterval(() => {
  const now = performance.now();
  gaps.push(now - last); last = now; ticks++;
  if (gaps.length > 60) gaps.shift();
  document.getElementById('c').textContent = String(ticks);
  document.title = 'ticks=' + ticks + ' gap=' + Math.round(Math.max(...gaps));
}, 50);
</script></body></html>"#;

fn clock(engine: &Engine) -> Option<(u64, u64)> {
    let title = engine.latest()?.window.clone()?;
    let ticks = title.split("ticks=").nth(1)?.split_whitespace().next()?.parse().ok()?;
    let gap = title.split("gap=").nth(1)?.split_whitespace().next()?.parse().ok()?;
    Some((ticks, gap))
}

#[test]
fn twenty_back_to_back_looks_leave_the_pages_timers_running() {
    let sandbox = Sandbox::start(SandboxOptions { parent_death_signal: false, ..SandboxOptions::default() })
        .expect("sandbox starts");
    let desktop = common::full_desktop(&sandbox);
    let mut engine = Engine::new(desktop, Config { vision: Vision::Capable, ..Config::default() });
    engine.begin_turn(Turn { id: "poll".into(), intent: "wait for the countdown".into(), mode: Mode::Interactive });
    let url = handrail_testkit::serve_page(PAGE);
    let o = engine.call_args(&raw(&[("action", "open_url"), ("url", &url)]));
    assert!(matches!(o.status, Status::Ok | Status::NoVisibleChange), "{}", o.text());
    let start = Instant::now();
    // Past the page's load, whose gaps are its own.
    while clock(&engine).is_none_or(|(t, _)| t < 80) {
        assert!(start.elapsed() < Duration::from_secs(30), "the page never ticked");
        engine.call_args(&raw(&[("action", "see")]));
        std::thread::sleep(Duration::from_millis(300));
    }
    let (t0, _) = clock(&engine).expect("clock");
    let start = Instant::now();
    let mut looks = Vec::new();
    for _ in 0..20 {
        let t = Instant::now();
        let o = engine.call_args(&raw(&[("action", "see")]));
        looks.push(t.elapsed().as_millis());
        if looks.len() == 10 {
            eprintln!(
                "{}",
                o.text()
                    .lines()
                    .filter(|l| l.starts_with("timings") || l.starts_with("[OBS"))
                    .collect::<Vec<_>>()
                    .join("\n")
            );
        }
    }
    let elapsed = start.elapsed();
    std::thread::sleep(Duration::from_millis(200));
    engine.call_args(&raw(&[("action", "see")]));
    let (t1, gap) = clock(&engine).expect("clock");
    let expected = elapsed.as_millis() as u64 / 50;
    eprintln!(
        "20 looks in {elapsed:?} ({looks:?} ms); page ticked {} times (expected ~{expected}), longest gap {gap} ms",
        t1 - t0
    );
}

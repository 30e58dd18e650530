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
    // A terminal beside the browser, as on a person's desktop.
    let _terminal = handrail_testkit::TerminalBeside::start(|program| sandbox.command(program));
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
        std::thread::sleep(Duration::from_millis(300)); // polling interval, not a settle wait
    }

    // Twenty looks back to back; the first and the last say where the page's clock stood.
    let mut looks = Vec::new();
    let mut first = None;
    let start = Instant::now();
    for _ in 0..20 {
        let t = Instant::now();
        let o = engine.call_args(&raw(&[("action", "see")]));
        assert_eq!(o.status, Status::Ok, "{}", o.text());
        looks.push(t.elapsed().as_millis());
        first = first.or_else(|| clock(&engine).map(|c| (c, Instant::now())));
    }
    let ((t0, _), at0) = first.expect("the page's clock in the first look");
    let (t1, gap) = clock(&engine).expect("the page's clock in the last look");
    let between = at0.elapsed();
    let due = between.as_millis() as u64 / 50;
    eprintln!(
        "20 looks in {:?} ({looks:?} ms); the page ticked {} times in the {between:?} between the first and \
         the last look (~{due} due), longest gap of its last 3 s {gap} ms",
        start.elapsed(),
        t1 - t0
    );
    // Each title is the page's a moment before its look: allow a tick or two of lag, not a stall.
    assert!((t1 - t0) * 10 >= due * 7, "the page's timer fell behind: {} ticks of ~{due}", t1 - t0);
    assert!(gap < 400, "the page's timer stalled for {gap} ms while it was looked at");
    drop(engine);
    sandbox.stop().expect("clean teardown");
}

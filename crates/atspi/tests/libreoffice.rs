//! `AtspiSource` against LibreOffice Calc (VCL's GTK 3 plugin) on a private sandbox desktop.
//!
//! A Calc sheet is one accessible table that says it has 2,147,483,647 children. Asking for them
//! makes soffice spin at full CPU while its memory grows for as long as the walk waits; the walk must
//! list the table with its cursor cell alone (the one Calc names in its events), say so, and leave the
//! app as responsive as it found it, also while the cursor moves.

mod common;

use std::time::{Duration, Instant};

use common::{dump, test_limits, wait_for};
use handrail_atspi::AtspiSource;
use handrail_platform::{Accessibility, AxHealth, Role, States};

/// Resident memory and CPU time (user + system, clock ticks) of the process named `comm`.
fn usage(comm: &str) -> Option<(u64, u64)> {
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        let Some((head, rest)) = stat.rsplit_once(") ") else { continue };
        if !head.ends_with(&format!("({comm}")) {
            continue;
        }
        let fields: Vec<&str> = rest.split_whitespace().collect();
        // After "pid (comm) ": state is field 0; utime 11, stime 12, rss (pages) 21.
        let cpu = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
        let rss_pages = fields.get(21)?.parse::<u64>().ok()?;
        return Some((rss_pages * 4096, cpu));
    }
    None
}

#[test]
fn a_calc_sheet_is_listed_with_its_cursor_cell_said_so_and_the_app_is_not_stalled() {
    assert!(
        std::path::Path::new("/usr/bin/soffice").exists(),
        "LibreOffice Calc is installed (scripts/setup-desktop installs libreoffice-calc)"
    );
    let sandbox = common::start_sandbox();
    let profile = std::env::temp_dir().join(format!("handrail-lo-profile-{}", std::process::id()));
    let app = handrail_testkit::Calc::start(|program| sandbox.command(program), &profile, None);
    let source = AtspiSource::new(sandbox.bus_address());
    let limits = test_limits();
    let is_sheet = |n: &handrail_platform::AxNode| n.role() == Role::Table && n.name.starts_with("Sheet ");
    let snap = wait_for(&source, &limits, Duration::from_secs(90), |s| s.nodes.iter().any(is_sheet))
        .unwrap_or_else(|s| panic!("no sheet listed: {}", dump(&s)));

    // Listed alone, said so, and the rest of the window read around it.
    let sheet = snap.nodes.iter().find(|n| is_sheet(n)).expect("sheet");
    assert!(sheet.bounds.width > 200 && sheet.bounds.height > 100, "{sheet:?}");
    let sheet_index = snap.nodes.iter().position(is_sheet).expect("sheet");
    let cells: Vec<_> = snap.nodes.iter().filter(|n| n.parent == Some(sheet_index)).collect();
    assert!(
        cells.len() <= 1 && cells.iter().all(|c| c.role() == Role::Cell),
        "the cursor cell at most: {}",
        dump(&snap)
    );
    assert_eq!(snap.health, AxHealth::Partial, "{:?}", snap.notes);
    assert!(
        snap.notes.iter().any(|n| n.contains("table \"Sheet Sheet1\" has 2147483647 children")),
        "{:?}",
        snap.notes
    );
    assert!(snap.nodes.iter().any(|n| n.role() == Role::Tab && n.name == "Sheet1"), "{}", dump(&snap));

    // A first look by a source that has cached nothing (a server started beside a running Calc).
    let cold = AtspiSource::new(sandbox.bus_address());
    let start = Instant::now();
    let first = cold.snapshot(&limits);
    eprintln!("first look of a fresh source: {:?}, {} nodes", start.elapsed(), first.nodes.len());
    assert!(first.nodes.iter().any(is_sheet), "{}", dump(&first));

    // Looking again costs the app little and grows it not at all, also while the cursor moves (each
    // move has the sheet read again); before, each look made it allocate for every cell until the walk
    // gave up.
    let (rss_before, cpu_before) = usage("soffice.bin").expect("soffice.bin runs");
    let start = Instant::now();
    for key in ["Down", "Right", "Down", "Left", "Up"] {
        common::x_tool(&sandbox, "xdotool", &["key", key]);
        let again = source.snapshot(&limits);
        assert!(again.nodes.iter().any(is_sheet), "{}", dump(&again));
        assert!(again.notes.iter().any(|n| n.contains("Sheet Sheet1")), "the note stays: {:?}", again.notes);
    }
    // The cursor ended on A2: the sheet lists that cell, focused, as Calc names it.
    let cursor = wait_for(&source, &limits, Duration::from_secs(10), |s| {
        s.nodes.iter().any(|n| n.role() == Role::Cell && n.name == "A2" && n.states.contains(States::FOCUSED))
    })
    .unwrap_or_else(|s| panic!("the cursor cell A2 is listed: {}", dump(&s)));
    let sheet_index = cursor.nodes.iter().position(is_sheet).expect("sheet");
    let cells: Vec<&str> =
        cursor.nodes.iter().filter(|n| n.parent == Some(sheet_index)).map(|n| n.name.as_str()).collect();
    assert_eq!(cells, ["A2"], "{}", dump(&cursor));
    let elapsed = start.elapsed();
    let (rss_after, cpu_after) = usage("soffice.bin").expect("soffice.bin runs");
    let ticks = cpu_after.saturating_sub(cpu_before);
    let wall_ticks = (elapsed.as_secs_f64() * 100.0).ceil() as u64;
    eprintln!(
        "5 looks: {elapsed:?}; soffice.bin used {ticks} ticks of CPU, resident {} → {} MB",
        rss_before >> 20,
        rss_after >> 20
    );
    assert!(rss_after < rss_before + (40 << 20), "memory grew from {rss_before} to {rss_after}");
    assert!(ticks <= wall_ticks + 10, "the app spun: {ticks} CPU ticks in {wall_ticks} ticks of looking");
    drop(app);
    let _ = std::fs::remove_dir_all(&profile);
    sandbox.stop().expect("clean teardown");
}

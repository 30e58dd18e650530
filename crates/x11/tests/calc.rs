//! LibreOffice Calc through the engine, as a person's agent would use it: its sheet is one accessible
//! table of 2,147,483,647 cells, listed alone (the header says so), its cells read as screen text; what
//! is typed into a cell is what Calc saves to the file, read back from the file itself.

mod common;

use std::time::Duration;

use handrail_core::{Config, Engine, Mode, Status, Turn, Vision};
use handrail_sandbox::{Sandbox, SandboxOptions};

use common::{file_once, find, raw, see_within};

/// A flat (one XML file) OpenDocument spreadsheet: one sheet, "Budget", with a heading in A1.

#[test]
fn text_typed_into_a_calc_cell_is_what_calc_saves() {
    assert!(
        std::path::Path::new("/usr/bin/soffice").exists(),
        "LibreOffice Calc is installed (scripts/setup-desktop installs libreoffice-calc)"
    );
    let sandbox = Sandbox::start(SandboxOptions { parent_death_signal: false, ..SandboxOptions::default() })
        .expect("sandbox starts");
    // A terminal beside Calc, as on a person's desktop; Calc maps last and has the keyboard.
    let _terminal = handrail_testkit::TerminalBeside::start(|program| sandbox.command(program));
    let dir = sandbox.root().join("calc");
    std::fs::create_dir_all(&dir).expect("a directory for the book");
    let book = dir.join("budget.fods");
    std::fs::write(&book, handrail_testkit::flat_ods("Budget", &[&["Expense"]])).expect("the book is written");
    let soffice = handrail_testkit::Calc::start(|program| sandbox.command(program), &dir.join("profile"), Some(&book));
    let desktop = common::full_desktop(&sandbox);
    let mut engine = Engine::new(desktop, Config { vision: Vision::Capable, ..Config::default() });
    engine.begin_turn(Turn { id: "calc".into(), intent: "add coffee to the budget".into(), mode: Mode::Interactive });

    // The sheet is listed alone, and the header says why the tree is partial.
    // Calc's first start on a machine (its libraries not yet cached) takes long.
    let see = see_within(&mut engine, Duration::from_secs(90), |o| find(o, "table", "Sheet Budget").is_some());
    let text = see.text();
    assert!(text.contains("ax=partial"), "{text}");
    assert!(text.contains("ax: ") && text.contains("table \"Sheet Budget\" has 2147483647 children"), "{text}");
    // Calc's own toolbar and menus are read around it.
    assert!(find(&see, "menu", "File").is_some() || text.contains("\"File\""), "{text}");

    // The cursor starts on A1; A2 is one row down. What is typed goes to the cell under the cursor.
    let o = engine.call_args(&raw(&[("action", "key"), ("keys", "down")]));
    assert!(matches!(o.status, Status::Ok | Status::NoVisibleChange), "{}", o.text());
    // The sheet lists its cursor cell, named by its address, focused: keys go there.
    let cursor = |o: &handrail_core::Outcome| {
        o.observation.as_ref().and_then(|obs| obs.focused()).map(|e| (e.role.as_str().to_owned(), e.label.clone()))
    };
    assert_eq!(cursor_known(&mut engine, o, &cursor), Some(("cell".into(), "A2".into())));
    let o = engine.call_args(&raw(&[("action", "type"), ("text", "Coffee beans")]));
    assert!(matches!(o.status, Status::Ok | Status::NoVisibleChange), "{}", o.text());
    // Not read back from the cell (it holds the text only once committed): never sent twice.
    assert!(o.text().contains("typed: unchecked (a cell holds typed text only once it is committed"), "{}", o.text());
    let o = engine.call_args(&raw(&[("action", "key"), ("keys", "return")]));
    assert!(matches!(o.status, Status::Ok | Status::NoVisibleChange), "{}", o.text());
    assert_eq!(cursor_known(&mut engine, o, &cursor), Some(("cell".into(), "A3".into())));
    // Back on it, the cell holds what was committed, as Calc itself reports it.
    let o = engine.call_args(&raw(&[("action", "key"), ("keys", "up")]));
    let a2 = o.observation.as_ref().and_then(|obs| obs.focused()).cloned();
    assert_eq!(a2.as_ref().map(|e| e.label.as_str()), Some("A2"), "{}", o.text());
    assert_eq!(a2.and_then(|e| e.value).as_deref(), Some("Coffee beans"), "{}", o.text());
    let o = engine.call_args(&raw(&[("action", "key"), ("keys", "ctrl+s")]));
    assert!(matches!(o.status, Status::Ok | Status::NoVisibleChange), "{}", o.text());

    // What Calc wrote: the heading kept, the new cell under it, exactly as typed.
    let saved = file_once(&book, Duration::from_secs(20), |held| held.contains("Coffee"));
    let body = saved.split_once("<office:body>").map_or("", |(_, b)| b);
    let cells: Vec<&str> = body.split("<text:p>").skip(1).filter_map(|c| c.split("</text:p>").next()).collect();
    assert_eq!(cells, ["Expense", "Coffee beans"], "the saved sheet: {saved}");

    drop(engine);
    drop(soffice);
    sandbox.stop().expect("clean teardown");
}

/// The cursor cell `cursor` reads in `o`, or, when Calc did not answer accessibility in time for
/// that look (a busy machine: the observation says `ax=unavailable` and lists no focus), in the
/// next look that lists a focus. The action's own result is kept either way.
fn cursor_known(
    engine: &mut Engine,
    o: handrail_core::Outcome,
    cursor: &dyn Fn(&handrail_core::Outcome) -> Option<(String, String)>,
) -> Option<(String, String)> {
    let answered = |o: &handrail_core::Outcome| o.observation.as_ref().is_some_and(|obs| obs.focused().is_some());
    if answered(&o) {
        return cursor(&o);
    }
    cursor(&see_within(engine, Duration::from_secs(15), answered))
}

//! MiniWoB++ end to end: the harness `bench/miniwob/run.py` starts `handrail serve --sandbox` (its own
//! private desktop), serves the task pages on 127.0.0.1 and solves them with scripted policies that act
//! only through the `computer` tool. Three tasks, two episodes each: two are solved (the page's reward
//! panel shows a positive reward) and enter-password is refused at the password field, as designed.
//!
//! The Python with the MCP SDK and the `miniwob` pages comes from `scripts/setup-test-tools`.

mod common;

use std::process::Command;

use common::tools::{show, test_python, workspace};

#[test]
fn miniwob_tasks_are_solved_through_the_computer_tool_and_passwords_are_refused() {
    const EPISODES: u64 = 2;
    let dir = std::env::temp_dir().join(format!("handrail-miniwob-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    let summary_path = dir.join("summary.json");
    let out = Command::new(test_python())
        .arg(workspace().join("bench/miniwob/run.py"))
        .args(["--tasks", "click-button,enter-text,enter-password", "--pipelines", "handrail"])
        .args(["--episodes", &EPISODES.to_string()])
        .arg("--handrail")
        .arg(env!("CARGO_BIN_EXE_handrail"))
        .arg("--json")
        .arg(&summary_path)
        .current_dir(workspace())
        .output()
        .expect("the harness runs");
    assert!(out.status.success(), "the harness failed\n{}", show(&out));
    let text = std::fs::read_to_string(&summary_path)
        .unwrap_or_else(|e| panic!("no summary at {}: {e}\n{}", summary_path.display(), show(&out)));
    let summary: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("the summary is not JSON: {e}\n{}", show(&out)));
    let _ = std::fs::remove_dir_all(&dir);

    let task = |name: &str| -> serde_json::Value { summary["tasks"][format!("{name}/handrail")].clone() };
    for name in ["click-button", "enter-text"] {
        let row = task(name);
        assert_eq!(row["episodes"], EPISODES, "{name}: episodes run\n{}", show(&out));
        assert_eq!(row["successes"], EPISODES, "{name}: every episode earns a positive reward\n{}", show(&out));
        assert_eq!(row["refused"], 0, "{name}: nothing is refused\n{}", show(&out));
    }
    let row = task("enter-password");
    assert_eq!(row["episodes"], EPISODES, "enter-password: episodes run\n{}", show(&out));
    assert_eq!(row["refused"], EPISODES, "enter-password: typing the password is refused every time\n{}", show(&out));
    let records = summary["records"].as_array().expect("episode records");
    for record in records.iter().filter(|r| r["task"] == "enter-password") {
        let note = record["note"].as_str().unwrap_or_default();
        assert!(
            note.contains("refusing to type into what looks like a password field"),
            "enter-password episode {}: the refusal names the password field: {note}\n{}",
            record["episode"],
            show(&out)
        );
        assert!(record["reward"].is_null(), "enter-password: the page never got to a reward\n{}", show(&out));
    }
}

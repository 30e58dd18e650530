//! The Python client in `python/` against this build's `handrail`: its own tests (`python/tests`:
//! the async client, the Gymnasium environment and a pool of Ray actors, each on real private
//! desktops), the MiniWoB++ sweep through a pool of Ray actors (`bench/miniwob/sweep.py`), whose
//! records must be those of the single-desktop harness, and the deployment's checks
//! (`deploy/tests`: the Kubernetes manifests against the Kubernetes schemas, the Containerfile).
//!
//! The Python with the MCP SDK, numpy, Pillow, Gymnasium, Ray, pytest and the `miniwob` pages comes
//! from `scripts/setup-test-tools`; the client is imported from the working tree. One test at a time:
//! each starts two desktops.

mod common;

use std::process::Command;
use std::sync::{Mutex, MutexGuard};

use common::tools::{show, test_python, workspace};

static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The test tools' Python: `HANDRAIL_TEST_PYTHON`, or the one `scripts/setup-test-tools` makes.
fn python() -> Command {
    let mut command = Command::new(test_python());
    command
        .current_dir(workspace())
        .env("PYTHONPATH", workspace().join("python"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("HANDRAIL_BIN", env!("CARGO_BIN_EXE_handrail"))
        // Ray's usage report and its dashboard's downloads are not wanted in a test.
        .env("RAY_USAGE_STATS_ENABLED", "0");
    command
}

#[test]
fn the_python_client_environment_and_ray_pool_pass_their_tests() {
    let _serial = serial();
    let out = python()
        .args(["-m", "pytest", "python/tests", "-q", "-p", "no:cacheprovider", "-rs"])
        .output()
        .expect("pytest runs");
    assert!(out.status.success(), "the Python tests failed\n{}", show(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains("skipped"), "every Python test must run\n{}", show(&out));
}

#[test]
fn the_kubernetes_manifests_and_the_containerfile_pass_their_checks() {
    let out = python()
        .args(["-m", "pytest", "deploy/tests", "-q", "-p", "no:cacheprovider", "-rs"])
        .output()
        .expect("pytest runs");
    assert!(out.status.success(), "the deployment checks failed\n{}", show(&out));
    assert!(!String::from_utf8_lossy(&out.stdout).contains("skipped"), "every check must run\n{}", show(&out));
}

#[test]
fn the_miniwob_sweep_through_ray_actors_keeps_the_single_desktop_records() {
    let _serial = serial();
    const EPISODES: u64 = 2;
    let dir = std::env::temp_dir().join(format!("handrail-sweep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    let summary_path = dir.join("summary.json");
    let out = python()
        .arg("bench/miniwob/sweep.py")
        .args(["--desktops", "2", "--tasks", "click-button,enter-password"])
        .args(["--episodes", &EPISODES.to_string()])
        .arg("--handrail")
        .arg(env!("CARGO_BIN_EXE_handrail"))
        .arg("--json")
        .arg(&summary_path)
        .output()
        .expect("the sweep runs");
    assert!(out.status.success(), "the sweep failed\n{}", show(&out));
    let text = std::fs::read_to_string(&summary_path)
        .unwrap_or_else(|e| panic!("no summary at {}: {e}\n{}", summary_path.display(), show(&out)));
    let summary: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("the summary is not JSON: {e}\n{}", show(&out)));
    let _ = std::fs::remove_dir_all(&dir);

    let row = |name: &str| summary["tasks"][format!("{name}/handrail")].clone();
    assert_eq!(row("click-button")["episodes"], EPISODES, "{}", show(&out));
    assert_eq!(row("click-button")["successes"], EPISODES, "{}", show(&out));
    assert_eq!(row("enter-password")["refused"], EPISODES, "refused at the password field\n{}", show(&out));
    let records = summary["records"].as_array().expect("records");
    assert_eq!(records.len() as u64, 2 * EPISODES, "{}", show(&out));
    // The same record as the single-desktop harness, plus where it ran and the reset before it.
    for record in records {
        for key in ["task", "pipeline", "episode", "success", "refused", "reward", "steps", "sees", "wall_s", "note"] {
            assert!(record.get(key).is_some(), "{key} missing from {record}");
        }
        assert_eq!(record["reset_clean"], true, "{record}");
    }
    let desktops: std::collections::BTreeSet<String> =
        records.iter().filter_map(|r| r["desktop"].as_str().map(str::to_string)).collect();
    assert_eq!(desktops.len(), 2, "both desktops took episodes: {desktops:?}");
}

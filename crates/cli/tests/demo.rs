//! The `handrail` binary: help, and the demo writing a trace a newcomer can read.

use std::process::Command;

fn handrail() -> Command {
    Command::new(env!("CARGO_BIN_EXE_handrail"))
}

#[test]
fn help_lists_the_subcommands() {
    let out = handrail().arg("--help").output().expect("runs");
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("demo"), "{help}");
}

fn run_demo(extra: &[&str], name: &str) {
    let dir = std::env::temp_dir().join(format!("handrail-demo-test-{name}-{}", std::process::id()));
    let out = handrail().args(["demo", "--trace"]).arg(&dir).args(extra).output().expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    for tag in [
        "[ok+verified] type",
        "[ok+verified] click",
        "[no_visible_change] click",
        "[refused] click",
        "[refused] key",
        "[refused] type",
        "[refused] open_url",
        "[stale]",
        "[unsupported] computer requires a vision-capable model",
    ] {
        assert!(stdout.contains(tag), "missing {tag} in:\n{stdout}");
    }
    let steps = std::fs::read_to_string(dir.join("steps.jsonl")).expect("trace written");
    let lines: Vec<serde_json::Value> =
        steps.lines().map(|l| serde_json::from_str(l).expect("each step is JSON")).collect();
    assert!(lines.len() >= 11);
    assert!(lines.iter().all(|l| l["result"]["status"].is_string()));
    let first_image = lines[0]["image"].as_str().expect("the first step has a screenshot");
    let image = std::fs::read(dir.join(first_image)).expect("image written");
    assert!(image.starts_with(b"\x89PNG\r\n\x1a\n") || image.starts_with(&[0xFF, 0xD8]), "an image file");
    assert!(!steps.contains("hunter2"), "typed secrets never reach the trace");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn demo_on_the_simulated_desktop_ends_on_its_own_and_writes_a_trace() {
    run_demo(&["--simulated"], "sim");
}

#[test]
fn demo_on_a_real_private_desktop_ends_on_its_own_and_writes_a_trace() {
    run_demo(&[], "real");
}

#[test]
fn sandbox_runs_a_command_in_a_private_desktop_and_passes_its_exit_code() {
    let out = handrail()
        .args([
            "sandbox",
            "--size",
            "800x600",
            "--",
            "sh",
            "-c",
            "xdpyinfo | grep dimensions; echo display=$DISPLAY; exit 7",
        ])
        .env("DISPLAY", ":0")
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(7), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("800x600 pixels"), "{stdout}");
    assert!(!stdout.contains("display=:0\n"), "never the caller's display: {stdout}");
}

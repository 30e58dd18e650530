//! The `handrail` binary: help, and the demo writing a trace a newcomer can read.

use std::path::Path;
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

fn run_demo(extra: &[&str], name: &str) -> std::path::PathBuf {
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
    let header: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("trace.json")).expect("header")).expect("JSON");
    assert_eq!(header["format"], "handrail-trace");
    assert_eq!(header["version"], 1);
    let steps = std::fs::read_to_string(dir.join("steps.jsonl")).expect("trace written");
    let lines: Vec<serde_json::Value> =
        steps.lines().map(|l| serde_json::from_str(l).expect("each step is JSON")).collect();
    assert!(lines.len() >= 12);
    for l in &lines {
        for key in ["step", "time", "turn", "action", "guard", "verdict", "timings_ms", "text"] {
            assert!(l.get(key).is_some(), "{key} missing in {l}");
        }
    }
    let after = lines[0]["after"].as_str().expect("the first step has a screenshot");
    let image = std::fs::read(dir.join(after)).expect("image written");
    assert!(image.starts_with(&[0xFF, 0xD8]), "a JPEG");
    assert!(lines.iter().any(|l| l["status"] == "refused" && l["before"].is_string()), "refusals keep their screen");
    assert!(!steps.contains("hunter2"), "typed secrets never reach the trace");
    let report = std::fs::read_to_string(dir.join("report.html")).expect("the demo writes its report");
    assert_eq!(report.matches("<details class=\"step").count(), lines.len());
    dir
}

/// Opens `page` in headless Chromium; returns the DOM after load and keeps a screenshot at `shot`.
fn chromium(page: &Path, shot: &Path) -> String {
    let profile = std::env::temp_dir().join(format!("handrail-report-browser-{}", std::process::id()));
    let flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--virtual-time-budget=5000",
        "--window-size=1400,2000",
    ];
    let url = format!("file://{}", page.display());
    let profile_flag = format!("--user-data-dir={}", profile.display());
    let dom = Command::new("chromium").args(flags).arg(&profile_flag).arg("--dump-dom").arg(&url).output();
    let dom = dom.expect("chromium runs");
    let shot_flag = format!("--screenshot={}", shot.display());
    let _ = Command::new("chromium").args(flags).arg(&profile_flag).arg(shot_flag).arg(&url).output();
    let _ = std::fs::remove_dir_all(&profile);
    String::from_utf8_lossy(&dom.stdout).to_string()
}

fn attribute(dom: &str, name: &str) -> Option<u64> {
    let at = dom.find(&format!("{name}=\""))? + name.len() + 2;
    dom[at..].split('"').next()?.parse().ok()
}

#[test]
fn demo_on_the_simulated_desktop_ends_on_its_own_and_writes_a_trace() {
    let dir = run_demo(&["--simulated"], "sim");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn demo_on_a_real_private_desktop_writes_a_trace_whose_report_a_browser_shows() {
    let dir = run_demo(&[], "real");
    // `handrail report` writes the page again from the trace alone.
    std::fs::remove_file(dir.join("report.html")).expect("remove");
    let out = handrail().arg("report").arg(&dir).output().expect("runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let page = dir.join("report.html");
    assert!(page.exists());

    let artefacts = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/test-artifacts");
    std::fs::create_dir_all(&artefacts).expect("artefact folder");
    let shot = artefacts.join("trace-report.png");
    let dom = chromium(&page, &shot);
    let steps = std::fs::read_to_string(dir.join("steps.jsonl")).expect("steps").lines().count();
    assert_eq!(dom.matches("<details class=\"step").count(), steps, "every step is on the page");
    assert!(dom.contains("class=\"step refused\""), "refusals are highlighted");
    let images = attribute(&dom, "data-images").expect("the page's load script ran");
    assert!(images >= steps as u64, "{images} images for {steps} steps");
    assert_eq!(attribute(&dom, "data-images-loaded"), Some(images), "every image loads");
    assert_eq!(attribute(&dom, "data-network-requests"), Some(0), "the page loads nothing from the network");
    assert!(std::fs::metadata(&shot).map(|m| m.len() > 10_000).unwrap_or(false), "a screenshot of the report is kept");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The same session on GNOME: Chromium on a headless GNOME Shell, placed by handrail's extension,
/// text typed and verified, the guards refusing.
#[test]
fn demo_on_a_private_gnome_desktop_runs_the_same_session() {
    let dir = run_demo(&["--gnome"], "gnome");
    let _ = std::fs::remove_dir_all(&dir);
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

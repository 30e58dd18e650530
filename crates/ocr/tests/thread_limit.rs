//! `ensure_thread_limit_or_reexec` in fresh processes: this test binary runs itself again with a chosen
//! environment (only the child calls the function, and only once, as a `main` would).

use std::process::Command;

const CHILD: &str = "HANDRAIL_OCR_THREAD_LIMIT_CHILD";

/// In a child: do what `main` does first and report.
fn child_report() -> bool {
    if std::env::var_os(CHILD).is_none() {
        return false;
    }
    let result = handrail_ocr::ensure_thread_limit_or_reexec();
    println!(
        "REPORT limit={:?} result={result:?} in_effect={}",
        std::env::var("OMP_THREAD_LIMIT").ok(),
        handrail_ocr::thread_limit_in_effect()
    );
    true
}

fn run_child(test: &str, preload: Option<&str>) -> String {
    let exe = std::env::current_exe().expect("test binary path");
    let mut cmd = Command::new(exe);
    cmd.args(["--exact", test, "--nocapture", "--test-threads=1"]).env(CHILD, "1").env_remove("OMP_THREAD_LIMIT");
    match preload {
        Some(lib) => cmd.env("LD_PRELOAD", lib),
        None => cmd.env_remove("LD_PRELOAD"),
    };
    let out = cmd.output().expect("run child");
    assert!(out.status.success(), "child failed: {}", String::from_utf8_lossy(&out.stderr));
    // libtest prints "test <name> ... " on the same line before the child's own output.
    let stdout = String::from_utf8_lossy(&out.stdout);
    stdout.lines().filter_map(|l| l.find("REPORT").map(|i| l[i..].to_owned())).collect::<Vec<_>>().join("\n")
}

#[test]
fn limit_is_set_in_process_before_libgomp_loads() {
    if child_report() {
        return;
    }
    let report = run_child("limit_is_set_in_process_before_libgomp_loads", None);
    assert_eq!(report, "REPORT limit=Some(\"1\") result=SetInProcess in_effect=true");
}

#[test]
fn process_is_reexecuted_when_libgomp_is_already_loaded() {
    if child_report() {
        return;
    }
    let libgomp = [
        "/lib/x86_64-linux-gnu/libgomp.so.1",
        "/usr/lib/x86_64-linux-gnu/libgomp.so.1",
        "/lib/aarch64-linux-gnu/libgomp.so.1",
        "/usr/lib/aarch64-linux-gnu/libgomp.so.1",
        "/usr/lib64/libgomp.so.1",
    ]
    .into_iter()
    .find(|p| std::path::Path::new(p).exists());
    let Some(libgomp) = libgomp else {
        eprintln!("libgomp not found; skipping");
        return;
    };
    // Preloaded, libgomp has read its (empty) limit before main: only a re-exec can fix that. The
    // re-executed process finds the variable set and leaves it alone.
    let report = run_child("process_is_reexecuted_when_libgomp_is_already_loaded", Some(libgomp));
    assert_eq!(report, "REPORT limit=Some(\"1\") result=AlreadySet in_effect=true");
}

#[test]
fn a_limit_the_user_set_is_kept() {
    if child_report() {
        return;
    }
    let exe = std::env::current_exe().expect("test binary path");
    let out = Command::new(exe)
        .args(["--exact", "a_limit_the_user_set_is_kept", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .env("OMP_THREAD_LIMIT", "2")
        .output()
        .expect("run child");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("REPORT limit=Some(\"2\") result=AlreadySet in_effect=true"), "{stdout}");
}

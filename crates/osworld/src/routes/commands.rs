//! Commands in the desktop's session: `/execute` (what OSWorld's pyautogui actions and set-up
//! commands go through), `/setup/launch`, `/run_python`, `/run_bash_script`.

use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};

use super::{py_list, Answer, Ctx};
use crate::guest::Ran;
use crate::shlex;

/// OSWorld's guest gives a command this long.
const EXECUTE_TIMEOUT: Duration = Duration::from_secs(120);
const PYTHON_TIMEOUT: Duration = Duration::from_secs(30);
const BASH_DEFAULT_TIMEOUT_S: f64 = 100.0;
/// Where scripts sent to `/run_python` and `/run_bash_script` are written, under the home.
const SCRIPT_DIR: &str = ".cache/handrail-osworld";

/// The argv a request's `command` and `shell` stand for, with the task home moved onto the desktop's.
fn argv(ctx: &Ctx, body: &Map<String, Value>) -> Result<Vec<String>, Answer> {
    let shell = body.get("shell").and_then(Value::as_bool).unwrap_or(false);
    let command = body.get("command").cloned().unwrap_or(if shell { json!("") } else { json!([]) });
    let words: Vec<String> = match command {
        Value::String(line) if shell => vec![ctx.home.shell_line(&line)],
        Value::String(line) => {
            shlex::split(&line).map_err(|e| Answer::status_error(400, format!("the command does not split: {e}")))?
        }
        Value::Array(items) => items
            .iter()
            .map(|v| match v {
                Value::String(s) => Ok(s.clone()),
                other => Ok(other.to_string()),
            })
            .collect::<Result<_, Answer>>()?,
        other => return Err(Answer::status_error(400, format!("command must be a string or a list, not {other}"))),
    };
    if shell {
        // Python's subprocess with shell=True: the first item is the script, the rest its $0, $1…
        let mut it = words.into_iter();
        let script = it.next().unwrap_or_default();
        let mut argv = vec!["/bin/sh".to_string(), "-c".to_string(), ctx.home.shell_line(&script)];
        argv.extend(it);
        return Ok(argv);
    }
    Ok(words.iter().map(|w| ctx.home.argument(w)).collect())
}

/// What Python's `subprocess` says for a command it could not run.
fn run_failure(argv: &[String], e: &crate::GuestError, timeout: Duration, ran: Option<&Ran>) -> String {
    match ran {
        Some(r) if r.timed_out => {
            format!("Command '{}' timed out after {} seconds", py_list(argv), timeout.as_secs())
        }
        _ => e.to_string(),
    }
}

fn run(ctx: &Ctx, argv: &[String], timeout: Duration) -> Result<Ran, Answer> {
    if argv.first().is_none_or(|p| p.is_empty()) {
        return Err(Answer::status_error(500, "the command is empty"));
    }
    match ctx.desktop.run(argv, timeout, None) {
        Ok(ran) if ran.timed_out => Err(Answer::status_error(
            500,
            run_failure(argv, &crate::GuestError::Failed(String::new()), timeout, Some(&ran)),
        )),
        Ok(ran) => Ok(shown(ctx, ran)),
        Err(e) => Err(Answer::status_error(500, run_failure(argv, &e, timeout, None))),
    }
}

/// What a command wrote, with the private home named as the task home.
fn shown(ctx: &Ctx, ran: Ran) -> Ran {
    Ran { stdout: ctx.home.show_text(&ran.stdout), stderr: ctx.home.show_text(&ran.stderr), ..ran }
}

pub(super) fn execute(ctx: &Ctx) -> Answer {
    let outcome = ctx.json().and_then(|body| argv(ctx, &body)).and_then(|argv| run(ctx, &argv, EXECUTE_TIMEOUT));
    match outcome {
        Ok(ran) => Answer::json(
            200,
            &json!({ "status": "success", "output": ran.stdout, "error": ran.stderr, "returncode": ran.returncode() }),
        ),
        Err(answer) => answer,
    }
}

/// `/execute` and then, until `max_wait_time`, the checks of `verification`: a window whose title
/// holds `window_exists`, a shell command `command_success` that exits 0.
pub(super) fn execute_verified(ctx: &Ctx) -> Answer {
    let body = match ctx.json() {
        Ok(b) => b,
        Err(a) => return a,
    };
    let ran = match argv(ctx, &body).and_then(|argv| run(ctx, &argv, EXECUTE_TIMEOUT)) {
        Ok(r) => r,
        Err(a) => return a,
    };
    let base = json!({ "output": ran.stdout, "error": ran.stderr, "returncode": ran.returncode() });
    let verification = body.get("verification").and_then(Value::as_object).cloned().unwrap_or_default();
    let with = |status: &str, extra: Value| {
        let mut v = base.clone();
        if let (Some(o), Some(e)) = (v.as_object_mut(), extra.as_object()) {
            o.insert("status".into(), json!(status));
            o.extend(e.clone());
        }
        v
    };
    if verification.is_empty() {
        return Answer::json(200, &with("success", json!({})));
    }
    let max_wait = body.get("max_wait_time").and_then(Value::as_f64).unwrap_or(10.0).clamp(0.0, 600.0);
    let interval = body.get("check_interval").and_then(Value::as_f64).unwrap_or(1.0).clamp(0.05, 60.0);
    let t0 = Instant::now();
    while t0.elapsed().as_secs_f64() < max_wait {
        let window_ok = match verification.get("window_exists").and_then(Value::as_str) {
            Some(title) => super::windows::list(ctx)
                .is_ok_and(|ws| ws.iter().any(|w| w.line.to_lowercase().contains(&title.to_lowercase()))),
            None => true,
        };
        let command_ok = match verification.get("command_success").and_then(Value::as_str) {
            Some(check) => {
                let argv = ["/bin/sh".to_string(), "-c".to_string(), ctx.home.shell_line(check)];
                ctx.desktop.run(&argv, Duration::from_secs(5), None).is_ok_and(|r| r.exit_code == Some(0))
            }
            None => true,
        };
        if window_ok && command_ok {
            return Answer::json(
                200,
                &with("success", json!({ "verification": "passed", "wait_time": t0.elapsed().as_secs_f64() })),
            );
        }
        std::thread::sleep(Duration::from_secs_f64(interval));
    }
    Answer::json(500, &with("verification_failed", json!({ "verification": "failed", "wait_time": max_wait })))
}

pub(super) fn launch(ctx: &Ctx) -> Answer {
    let body = match ctx.json() {
        Ok(b) => b,
        Err(a) => return a,
    };
    let shell = body.get("shell").and_then(Value::as_bool).unwrap_or(false);
    let argv = match argv(ctx, &body) {
        Ok(a) => a,
        Err(a) => return a,
    };
    if argv.first().is_none_or(|p| p.is_empty()) {
        return Answer::status_error(500, "the command is empty");
    }
    match ctx.desktop.launch(&argv) {
        // OSWorld's guest says the command as it was given.
        Ok(()) => {
            let said = if shell { argv.get(2).cloned().unwrap_or_default() } else { argv.join(" ") };
            Answer::text(200, format!("{said} launched successfully"))
        }
        Err(e) => Answer::status_error(500, e.to_string()),
    }
}

/// Writes a script sent in a request under the home; its path there.
fn write_script(ctx: &Ctx, suffix: &str, text: &str) -> Result<String, Answer> {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let relative = format!("{SCRIPT_DIR}/script-{}-{n}{suffix}", std::process::id());
    ctx.desktop
        .put_file(&relative, text.as_bytes())
        .map_err(|e| Answer::status_error(500, format!("could not write the script: {e}")))?;
    Ok(relative)
}

fn remove_script(ctx: &Ctx, relative: &str) {
    let _ = std::fs::remove_file(ctx.home.real().join(relative));
}

/// Runs Python code with the desktop's `python3` (the guest's interpreter first on its PATH).
pub(super) fn run_python(ctx: &Ctx) -> Answer {
    let body = match ctx.json() {
        Ok(b) => b,
        Err(a) => return a,
    };
    let Some(code) = body.get("code").and_then(Value::as_str).filter(|c| !c.is_empty()) else {
        return Answer::status_error(400, "Code not supplied!");
    };
    let script = match write_script(ctx, ".py", code) {
        Ok(s) => s,
        Err(a) => return a,
    };
    let path = ctx.home.real().join(&script).to_string_lossy().into_owned();
    let outcome = ctx.desktop.run(&["python3".to_string(), path], PYTHON_TIMEOUT, None).map(|r| shown(ctx, r));
    remove_script(ctx, &script);
    match outcome {
        Ok(ran) if ran.timed_out => Answer::json(
            500,
            &json!({ "status": "error", "message": "Execution timeout: Code took too long to execute",
                     "error": "TimeoutExpired", "need_more": false, "output": null }),
        ),
        Ok(ran) => {
            let code = ran.returncode();
            let mut error = ran.stderr.clone();
            let mut message = ran.stdout.clone();
            if !error.is_empty() {
                message = if message.is_empty() { error.clone() } else { format!("{message}\n{error}") };
            }
            if code != 0 && error.is_empty() {
                error = format!("Process exited with code {code}");
                message = if message.is_empty() { error.clone() } else { format!("{message}\n{error}") };
            }
            Answer::json(
                200,
                &json!({ "status": if code == 0 { "success" } else { "error" }, "message": message,
                         "need_more": false, "output": ran.stdout, "error": error, "return_code": code }),
            )
        }
        Err(e) => Answer::json(
            500,
            &json!({ "status": "error", "message": format!("Execution error: {e}"), "error": e.to_string(),
                     "need_more": false, "output": null }),
        ),
    }
}

/// Runs a bash script, its error output merged into its output (as OSWorld's guest does).
pub(super) fn run_bash_script(ctx: &Ctx) -> Answer {
    let failed = |status: u16, output: String| {
        Answer::json(status, &json!({ "status": "error", "output": output, "error": "", "returncode": -1 }))
    };
    let body = match ctx.json() {
        Ok(b) => b,
        Err(a) => return a,
    };
    let Some(script) = body.get("script").and_then(Value::as_str).filter(|s| !s.is_empty()) else {
        return failed(400, "Script not supplied!".into());
    };
    let timeout = body.get("timeout").and_then(Value::as_f64).unwrap_or(BASH_DEFAULT_TIMEOUT_S).clamp(0.1, 3600.0);
    let cwd = match body.get("working_dir").and_then(Value::as_str).filter(|d| !d.is_empty()) {
        Some(dir) => match ctx.home.resolve(dir) {
            Ok(real) if real.is_dir() => Some(real),
            Ok(_) => return failed(400, format!("Working directory does not exist: {dir}")),
            Err(e) => return failed(403, e.to_string()),
        },
        None => None,
    };
    let script = if script.contains("#!/bin/bash") { script.to_string() } else { format!("#!/bin/bash\n\n{script}") };
    let file = match write_script(ctx, ".sh", &ctx.home.shell_line(&script)) {
        Ok(s) => s,
        Err(a) => return a,
    };
    let path = ctx.home.real().join(&file).to_string_lossy().into_owned();
    let argv = ["/bin/bash".to_string(), "-c".to_string(), "exec /bin/bash \"$0\" 2>&1".to_string(), path];
    let limit = Duration::from_secs_f64(timeout);
    let outcome = ctx.desktop.run(&argv, limit, cwd.as_deref()).map(|r| shown(ctx, r));
    remove_script(ctx, &file);
    match outcome {
        Ok(ran) if ran.timed_out => failed(500, format!("Script execution timed out after {timeout} seconds")),
        Ok(ran) => {
            let code = ran.returncode();
            Answer::json(
                200,
                &json!({ "status": if code == 0 { "success" } else { "error" }, "output": ran.stdout,
                         "error": "", "returncode": code }),
            )
        }
        Err(e) => failed(500, format!("Failed to execute script: {e}")),
    }
}

//! Windows, through `wmctrl` in the desktop's session as OSWorld's guest does it (so `strict` and
//! `by_class` mean what they mean there): `/setup/open_file`, `/setup/activate_window`,
//! `/setup/close_window`, `/window_size`.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::{py_list, Answer, Ctx};

const WMCTRL_TIMEOUT: Duration = Duration::from_secs(10);
/// OSWorld's guest waits this long for an opened file's window unless told otherwise.
const OPEN_TIMEOUT_S: f64 = 1800.0;
const OPEN_POLL: Duration = Duration::from_millis(250);

/// One line of `wmctrl -lGx`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct WmWindow {
    pub id: String,
    pub width: u32,
    pub height: u32,
    /// `instance.Class`.
    pub class: String,
    /// The whole line, as OSWorld's guest matches titles against it.
    pub line: String,
}

/// The lines of `wmctrl -lGx`: id, desktop, x, y, width, height, instance.Class, host, title.
pub(crate) fn parse_wmctrl(text: &str) -> Vec<WmWindow> {
    text.lines()
        .filter_map(|line| {
            let mut cols = line.split_whitespace();
            let id = cols.next()?.to_string();
            let _desktop = cols.next()?;
            let _x = cols.next()?;
            let _y = cols.next()?;
            let width = cols.next()?.parse().ok()?;
            let height = cols.next()?.parse().ok()?;
            let class = cols.next()?.to_string();
            id.starts_with("0x").then(|| WmWindow { id, width, height, class, line: line.to_string() })
        })
        .collect()
}

fn wmctrl(ctx: &Ctx, args: &[&str]) -> Result<crate::Ran, String> {
    let argv: Vec<String> = std::iter::once("wmctrl").chain(args.iter().copied()).map(str::to_string).collect();
    ctx.desktop.run(&argv, WMCTRL_TIMEOUT, None).map_err(|e| format!("could not run wmctrl: {e}"))
}

pub(super) fn list(ctx: &Ctx) -> Result<Vec<WmWindow>, String> {
    let ran = wmctrl(ctx, &["-lGx"])?;
    if ran.exit_code != Some(0) {
        return Err(format!("wmctrl -lGx failed: {}", ran.stderr.trim()));
    }
    Ok(parse_wmctrl(&ran.stdout))
}

pub(super) fn window_size(ctx: &Ctx) -> Answer {
    let Some(class) = ctx.form_field("app_class_name") else {
        return Answer::error(400, "app_class_name is required");
    };
    let windows = match list(ctx) {
        Ok(w) => w,
        Err(e) => return Answer::error(500, e),
    };
    let wanted = class.to_lowercase();
    let found = windows.iter().find(|w| w.class.to_lowercase().split('.').any(|part| part == wanted));
    match found {
        Some(w) => Answer::json(200, &json!({ "width": w.width, "height": w.height })),
        // OSWorld's guest fails with a 500 here too (its view returns nothing).
        None => Answer::error(500, format!("no window of class {class}")),
    }
}

fn window_request(ctx: &Ctx) -> Result<(String, bool, bool), Answer> {
    let body = ctx.json()?;
    let name = body.get("window_name").and_then(Value::as_str).filter(|n| !n.is_empty());
    let Some(name) = name else { return Err(Answer::text(400, "window_name required")) };
    let strict = body.get("strict").and_then(Value::as_bool).unwrap_or(false);
    let by_class = body.get("by_class").and_then(Value::as_bool).unwrap_or(false);
    Ok((name.to_string(), strict, by_class))
}

/// `wmctrl -[x][F]{a|c} NAME`, as OSWorld's guest runs it (its exit status is not checked there).
fn act_on_window(ctx: &Ctx, action: char, done: &str) -> Answer {
    let (name, strict, by_class) = match window_request(ctx) {
        Ok(r) => r,
        Err(a) => return a,
    };
    let flag = format!("-{}{}{action}", if by_class { "x" } else { "" }, if strict { "F" } else { "" });
    match wmctrl(ctx, &[&flag, &name]) {
        Ok(_) => Answer::text(200, done),
        Err(e) => Answer::text(500, e),
    }
}

pub(super) fn activate_window(ctx: &Ctx) -> Answer {
    act_on_window(ctx, 'a', "Window activated successfully")
}

pub(super) fn close_window(ctx: &Ctx) -> Answer {
    act_on_window(ctx, 'c', "Window closed successfully.")
}

/// Opens a file of the home with its default app (`xdg-open`), or starts an app by name, then waits
/// for a window whose title holds the file's name (or `window_name`) and raises it.
pub(super) fn open_file(ctx: &Ctx) -> Answer {
    let body = match ctx.json() {
        Ok(b) => b,
        Err(a) => return a,
    };
    let Some(path) = body.get("path").and_then(Value::as_str).filter(|p| !p.is_empty()) else {
        return Answer::text(400, "Path not supplied!");
    };
    let timeout = match body.get("timeout_seconds") {
        None | Some(Value::Null) => OPEN_TIMEOUT_S,
        Some(v) => match v.as_f64().or_else(|| v.as_str().and_then(|s| s.trim().parse().ok())) {
            Some(t) if t.is_finite() && t >= 0.0 => t.min(OPEN_TIMEOUT_S),
            _ => return Answer::text(400, format!("Invalid timeout_seconds: {v}")),
        },
    };
    let window_name = body.get("window_name").and_then(Value::as_str).filter(|n| !n.is_empty());
    let file = ctx.home.resolve(path).ok().filter(|real| real.exists());
    let (argv, candidates) = match &file {
        Some(real) => {
            let name = real.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let stem = real.file_stem().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            (vec!["xdg-open".to_string(), real.to_string_lossy().into_owned()], vec![name, stem])
        }
        None => {
            let which = ["/bin/sh".to_string(), "-c".to_string(), "command -v \"$0\"".to_string(), path.to_string()];
            let found = ctx.desktop.run(&which, WMCTRL_TIMEOUT, None).is_ok_and(|r| r.exit_code == Some(0));
            if !found {
                return Answer::text(404, format!("Application/file not found: {path}"));
            }
            (vec![path.to_string()], vec![path.to_string()])
        }
    };
    let candidates: Vec<String> = match window_name {
        Some(n) => vec![n.to_string()],
        None => candidates.into_iter().filter(|c| !c.is_empty()).collect(),
    };
    if let Err(e) = ctx.desktop.launch(&argv) {
        return Answer::text(500, format!("Failed to open {path}. Error: {e}"));
    }
    let t0 = Instant::now();
    loop {
        if let Ok(windows) = list(ctx) {
            if let Some(w) = windows.iter().find(|w| candidates.iter().any(|c| w.line.contains(c.as_str()))) {
                return match wmctrl(ctx, &["-i", "-a", &w.id]) {
                    Ok(_) => Answer::text(200, "File opened and window activated successfully"),
                    Err(e) => Answer::text(500, format!("Failed to open {path}. Error: {e}")),
                };
            }
        }
        if t0.elapsed().as_secs_f64() >= timeout {
            return Answer::text(
                500,
                format!("Failed to find window for {} within {timeout} seconds.", py_list(&candidates)),
            );
        }
        std::thread::sleep(OPEN_POLL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wmctrl_lines_read_with_their_class_and_size() {
        let text = "0x01c00003  0 0    0    1280 800  xterm.XTerm           host  a title  with spaces\n\
                    0x02000006 -1 10   20   640  480  soffice.libreoffice-calc  host  data.xlsx - LibreOffice Calc\n\
                    not a window line\n";
        let windows = parse_wmctrl(text);
        assert_eq!(windows.len(), 2);
        assert_eq!((windows[0].width, windows[0].height, windows[0].class.as_str()), (1280, 800, "xterm.XTerm"));
        assert_eq!(windows[1].id, "0x02000006");
        assert!(windows[1].line.ends_with("data.xlsx - LibreOffice Calc"));
    }
}

//! What is on the screen: `/screenshot`, `/accessibility`, `/terminal`, `/screen_size`,
//! `/cursor_position`.

use std::time::Duration;

use handrail_platform::{Role, States};
use serde_json::json;

use super::{Answer, Ctx};
use crate::xml::accessibility_xml;

pub(super) fn screenshot(ctx: &Ctx) -> Answer {
    match ctx.desktop.screenshot() {
        Ok(png) => Answer::bytes("image/png", png),
        Err(e) => Answer::error(500, format!("could not capture the screen: {e}")),
    }
}

pub(super) fn accessibility(ctx: &Ctx) -> Answer {
    match ctx.desktop.accessibility() {
        // Window titles and fields that show a path show the task home's.
        Ok(snapshot) => Answer::json(200, &json!({ "AT": ctx.home.show_text(&accessibility_xml(&snapshot)) })),
        Err(e) => Answer::error(500, format!("could not read the accessibility tree: {e}")),
    }
}

/// The focused terminal's text in the active window, or `null` when no terminal has focus.
pub(super) fn terminal(ctx: &Ctx) -> Answer {
    let snapshot = match ctx.desktop.accessibility() {
        Ok(s) => s,
        Err(e) => return Answer::status_error(500, e.to_string()),
    };
    let output = snapshot
        .nodes
        .iter()
        .find(|n| n.role == Some(Role::Terminal) && n.states.contains(States::FOCUSED))
        .map(|n| ctx.home.show_text(n.value.as_deref().unwrap_or(&n.name).trim_end()));
    Answer::json(200, &json!({ "output": output, "status": "success" }))
}

pub(super) fn screen_size(ctx: &Ctx) -> Answer {
    match ctx.desktop.screen_size() {
        Ok((width, height)) => Answer::json(200, &json!({ "width": width, "height": height })),
        Err(e) => Answer::error(500, e.to_string()),
    }
}

/// `[x, y]`, read with xdotool in the desktop's session.
pub(super) fn cursor_position(ctx: &Ctx) -> Answer {
    let argv = ["xdotool".to_string(), "getmouselocation".to_string(), "--shell".to_string()];
    match ctx.desktop.run(&argv, Duration::from_secs(5), None) {
        Ok(ran) => match parse_mouse_location(&ran.stdout) {
            Some((x, y)) => Answer::json(200, &json!([x, y])),
            None => Answer::error(500, format!("xdotool did not say where the pointer is: {}", ran.stderr.trim())),
        },
        Err(e) => Answer::error(500, format!("could not run xdotool: {e}")),
    }
}

/// `X=…` and `Y=…` of `xdotool getmouselocation --shell`.
pub(crate) fn parse_mouse_location(text: &str) -> Option<(i64, i64)> {
    let value = |key: &str| {
        text.lines().find_map(|l| l.trim().strip_prefix(key)?.strip_prefix('=')?.trim().parse::<i64>().ok())
    };
    Some((value("X")?, value("Y")?))
}

//! One function per endpoint of OSWorld's guest, each answering with the shape and status code
//! OSWorld's own server gives (its JSON keys, its plain-text answers, its 400s and 500s), so the
//! harness's checks of `status_code` and `response.json()[…]` hold. They block (the desktop's calls
//! do); [`answer`] is called off the async runtime.

mod commands;
mod files;
mod screen;
mod windows;

use serde_json::{json, Value};

use crate::guest::{GuestDesktop, GuestError};
use crate::home::Home;

/// A request as the routes need it.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    pub method: &'a str,
    pub path: &'a str,
    pub content_type: Option<&'a str>,
    pub body: &'a [u8],
}

/// A response before it becomes HTTP.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Vec<u8>,
    /// A file's name, sent as an attachment (`Content-Disposition`).
    pub attachment: Option<String>,
}

impl Answer {
    pub fn json(status: u16, value: &Value) -> Answer {
        Answer {
            status,
            content_type: "application/json",
            body: serde_json::to_vec(value).unwrap_or_else(|_| b"{}".to_vec()),
            attachment: None,
        }
    }

    pub fn text(status: u16, text: impl Into<String>) -> Answer {
        Answer { status, content_type: "text/html; charset=utf-8", body: text.into().into_bytes(), attachment: None }
    }

    pub fn bytes(content_type: &'static str, body: Vec<u8>) -> Answer {
        Answer { status: 200, content_type, body, attachment: None }
    }

    /// `{"error": message}`, the shape OSWorld's file and directory endpoints fail with.
    pub fn error(status: u16, message: impl Into<String>) -> Answer {
        Answer::json(status, &json!({ "error": message.into() }))
    }

    /// `{"status": "error", "message": …}`, the shape its command endpoints fail with.
    pub fn status_error(status: u16, message: impl Into<String>) -> Answer {
        Answer::json(status, &json!({ "status": "error", "message": message.into() }))
    }
}

/// The paths this guest answers, with their methods (as OSWorld's server routes them).
pub const ROUTES: &[(&str, &str)] = &[
    ("GET", "/screenshot"),
    ("GET", "/accessibility"),
    ("GET", "/terminal"),
    ("GET", "/platform"),
    ("GET", "/cursor_position"),
    ("POST", "/screen_size"),
    ("POST", "/window_size"),
    ("POST", "/desktop_path"),
    ("POST", "/execute"),
    ("POST", "/setup/execute"),
    ("POST", "/execute_with_verification"),
    ("POST", "/setup/execute_with_verification"),
    ("POST", "/setup/launch"),
    ("POST", "/run_python"),
    ("POST", "/run_bash_script"),
    ("POST", "/file"),
    ("POST", "/setup/upload"),
    ("POST", "/list_directory"),
    ("POST", "/setup/open_file"),
    ("POST", "/setup/activate_window"),
    ("POST", "/setup/close_window"),
];

/// Endpoints of OSWorld's guest this one does not offer, and why.
const NOT_OFFERED: &[(&str, &str)] = &[
    ("/setup/download_file", "downloads are not made from inside the desktop: put the file with /setup/upload"),
    ("/setup/change_wallpaper", "the desktop has no wallpaper setting (no GNOME settings daemon)"),
    ("/wallpaper", "the desktop has no wallpaper setting (no GNOME settings daemon)"),
    ("/start_recording", "screen recording is not offered by this guest"),
    ("/end_recording", "screen recording is not offered by this guest"),
];

/// Answers `request` on `desktop`.
pub fn answer(desktop: &dyn GuestDesktop, request: &Request) -> Answer {
    let home = Home::new(desktop.home());
    let Some(&(method, path)) = ROUTES.iter().find(|(_, p)| *p == request.path) else {
        if let Some((_, why)) = NOT_OFFERED.iter().find(|(p, _)| *p == request.path) {
            return Answer::status_error(501, *why);
        }
        return Answer::error(404, format!("{} is not an endpoint of this guest", request.path));
    };
    if method != request.method && !(method == "GET" && request.method == "HEAD") {
        return Answer::error(405, format!("use {method} for {path}"));
    }
    let ctx = Ctx { desktop, home: &home, request };
    match path {
        "/screenshot" => screen::screenshot(&ctx),
        "/accessibility" => screen::accessibility(&ctx),
        "/terminal" => screen::terminal(&ctx),
        "/platform" => Answer::text(200, "Linux"),
        "/cursor_position" => screen::cursor_position(&ctx),
        "/screen_size" => screen::screen_size(&ctx),
        "/window_size" => windows::window_size(&ctx),
        "/desktop_path" => files::desktop_path(&ctx),
        "/execute" | "/setup/execute" => commands::execute(&ctx),
        "/execute_with_verification" | "/setup/execute_with_verification" => commands::execute_verified(&ctx),
        "/setup/launch" => commands::launch(&ctx),
        "/run_python" => commands::run_python(&ctx),
        "/run_bash_script" => commands::run_bash_script(&ctx),
        "/file" => files::file(&ctx),
        "/setup/upload" => files::upload(&ctx),
        "/list_directory" => files::list_directory(&ctx),
        "/setup/open_file" => windows::open_file(&ctx),
        "/setup/activate_window" => windows::activate_window(&ctx),
        "/setup/close_window" => windows::close_window(&ctx),
        _ => Answer::error(404, format!("{path} is not an endpoint of this guest")),
    }
}

/// What every endpoint works with.
pub(crate) struct Ctx<'a> {
    pub desktop: &'a dyn GuestDesktop,
    pub home: &'a Home,
    pub request: &'a Request<'a>,
}

impl Ctx<'_> {
    /// The JSON body (whatever the Content-Type says, as the harness does not always set it); an
    /// empty body is an empty object.
    pub fn json(&self) -> Result<serde_json::Map<String, Value>, Answer> {
        if self.request.body.iter().all(u8::is_ascii_whitespace) {
            return Ok(serde_json::Map::new());
        }
        match serde_json::from_slice::<Value>(self.request.body) {
            Ok(Value::Object(map)) => Ok(map),
            Ok(_) => Err(Answer::error(400, "the body must be a JSON object")),
            Err(e) => Err(Answer::error(400, format!("the body is not JSON: {e}"))),
        }
    }

    /// A URL-encoded form field.
    pub fn form_field(&self, name: &str) -> Option<String> {
        crate::form::urlencoded(self.request.body).into_iter().find(|(k, _)| k == name).map(|(_, v)| v)
    }
}

/// A guest error as the endpoint's failure shape: status by kind.
pub(crate) fn status_of(e: &GuestError) -> u16 {
    match e {
        GuestError::BadRequest(_) => 400,
        GuestError::Forbidden(_) => 403,
        GuestError::NotFound(_) => 404,
        GuestError::TooLarge(_) => 413,
        GuestError::Failed(_) => 500,
    }
}

/// A Python list of strings as `repr` writes it (for messages that quote OSWorld's own).
pub(crate) fn py_list(items: &[String]) -> String {
    let quoted: Vec<String> =
        items.iter().map(|s| format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"))).collect();
    format!("[{}]", quoted.join(", "))
}

#[cfg(test)]
pub(crate) mod tests;

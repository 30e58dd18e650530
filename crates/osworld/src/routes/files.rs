//! Files in the desktop's home: `/setup/upload` (a task's input), `/file` (what its evaluator reads
//! back), `/list_directory`, `/desktop_path`.

use std::fs;
use std::path::Path;

use serde_json::{json, Value};

use super::{status_of, Answer, Ctx};
use crate::form;

/// The largest file moved in one request.
pub const MAX_FILE_BYTES: u64 = 256 * 1024 * 1024;
/// Entries listed by `/list_directory` at most, so a huge tree cannot exhaust the guest.
const MAX_LISTED: usize = 100_000;

pub(super) fn upload(ctx: &Ctx) -> Answer {
    let parts = ctx
        .request
        .content_type
        .and_then(form::boundary)
        .and_then(|b| form::multipart(&b, ctx.request.body).ok())
        .unwrap_or_default();
    let field = |name: &str| parts.iter().find(|p| p.name == name);
    let (Some(path), Some(data)) = (field("file_path"), field("file_data").filter(|p| p.filename.is_some())) else {
        return Answer::error(400, "file_path and file_data are required");
    };
    let path = String::from_utf8_lossy(&path.data).into_owned();
    let relative = match ctx.home.relative(&path) {
        Ok(r) if !r.is_empty() => r,
        Ok(_) => return Answer::error(400, format!("{path} is the home itself, not a file")),
        Err(e) => return Answer::error(403, e.to_string()),
    };
    match ctx.desktop.put_file(&relative, &data.data) {
        Ok(()) => Answer::text(200, format!("File Uploaded: {} bytes", data.data.len())),
        Err(e) if status_of(&e) < 500 => Answer::error(status_of(&e), e.to_string()),
        Err(e) => Answer::error(500, format!("Failed to upload file: {e}")),
    }
}

pub(super) fn file(ctx: &Ctx) -> Answer {
    let Some(path) = ctx.form_field("file_path") else {
        return Answer::error(400, "file_path is required");
    };
    let relative = match ctx.home.relative(&path) {
        Ok(r) => r,
        Err(e) => return Answer::error(403, e.to_string()),
    };
    match ctx.desktop.get_file(&relative, MAX_FILE_BYTES) {
        Ok(bytes) => {
            let name = Path::new(&relative).file_name().map(|n| n.to_string_lossy().into_owned());
            Answer { attachment: name, ..Answer::bytes("application/octet-stream", bytes) }
        }
        Err(crate::GuestError::NotFound(_)) => Answer::error(404, "File not found"),
        Err(e) if status_of(&e) < 500 => Answer::error(status_of(&e), e.to_string()),
        Err(e) => Answer::error(500, format!("Failed to serve file: {e}")),
    }
}

pub(super) fn list_directory(ctx: &Ctx) -> Answer {
    let body = match ctx.json() {
        Ok(b) => b,
        Err(a) => return a,
    };
    let Some(path) = body.get("path").and_then(Value::as_str) else {
        return Answer::error(400, "Missing 'path' parameter");
    };
    let real = match ctx.home.resolve(path) {
        Ok(r) => r,
        Err(e) => return Answer::error(403, e.to_string()),
    };
    let is_dir = fs::symlink_metadata(&real).is_ok_and(|m| m.is_dir());
    if !is_dir {
        return Answer::error(400, "The provided path is not a directory");
    }
    let mut budget = MAX_LISTED;
    Answer::json(200, &json!({ "directory_tree": tree(&real, &mut budget) }))
}

/// `{type: directory, name, children}` as OSWorld's guest builds it; a folder that cannot be read is
/// `{error}`. Symbolic links are listed as files, never followed (one could loop).
fn tree(dir: &Path, budget: &mut usize) -> Value {
    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => return json!({ "error": e.to_string() }),
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    let mut children = Vec::new();
    for entry in entries {
        if *budget == 0 {
            break;
        }
        *budget -= 1;
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if is_dir {
            children.push(tree(&entry.path(), budget));
        } else {
            children.push(json!({ "type": "file", "name": entry.file_name().to_string_lossy() }));
        }
    }
    json!({ "type": "directory", "name": name, "children": children })
}

pub(super) fn desktop_path(ctx: &Ctx) -> Answer {
    let desktop = ctx.home.real().join("Desktop");
    if desktop.is_dir() {
        Answer::json(200, &json!({ "desktop_path": ctx.home.shown(&desktop) }))
    } else {
        Answer::error(404, "Unsupported operating system or desktop path not found")
    }
}

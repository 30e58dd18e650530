//! One self-contained HTML page for a trace: a timeline of steps with thumbnails, each expandable to
//! the full before/after screenshots with their overlays, refusals highlighted, and a timing bar per
//! step (capture, settle, observe, encode). Images are embedded as data URIs and a Content Security
//! Policy forbids every network load, so the page works offline and cannot phone anywhere.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use base64::Engine as _;
use serde_json::Value;

use crate::{read, Trace, TraceError};

/// Escapes text for HTML element content and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A trace image as a data URI; `None` when the step has none or the file is not a JPEG in the folder.
fn data_uri(dir: &Path, name: Option<&str>) -> Option<String> {
    let name = name?;
    // Only plain file names written by the recorder: nothing may point outside the trace.
    let plain =
        name.starts_with("step-") && name.ends_with(".jpg") && !name.contains(['/', '\\']) && !name.contains("..");
    if !plain {
        return None;
    }
    let bytes = std::fs::read(dir.join(name)).ok()?;
    Some(format!("data:image/jpeg;base64,{}", base64::engine::general_purpose::STANDARD.encode(bytes)))
}

fn text<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

fn ms(step: &Value, key: &str) -> u64 {
    step.get("timings_ms").and_then(|t| t.get(key)).and_then(Value::as_u64).unwrap_or(0)
}

/// A one-line description of what the step aimed at.
fn target_summary(step: &Value) -> String {
    let Some(target) = step.get("target").and_then(Value::as_object) else { return String::new() };
    let mut parts = Vec::new();
    for key in ["element_id", "target_text", "to_element_id", "to_target_text", "keys", "app", "url", "direction"] {
        if let Some(v) = target.get(key).and_then(Value::as_str) {
            parts.push(if key == "target_text" { format!("\"{v}\"") } else { v.to_string() });
        }
    }
    if let Some(n) = target.get("text_chars").and_then(Value::as_u64) {
        parts.push(format!("{n} characters"));
    }
    parts.join(" ")
}

fn status_class(step: &Value) -> &'static str {
    match text(step, "status") {
        "ok" => "ok",
        "no_visible_change" => "unchanged",
        "refused" | "unsupported" | "limit" => "refused",
        "stale" => "stale",
        _ => "error",
    }
}

const STYLE: &str = r#"
body{font:14px/1.45 system-ui,"DejaVu Sans",sans-serif;margin:0;background:#f6f7f9;color:#1b1f24}
header{padding:18px 28px;background:#1b1f24;color:#fff}header h1{margin:0 0 4px;font-size:20px}
header p{margin:0;color:#c9d1d9}main{padding:16px 28px}
.summary{display:flex;gap:18px;margin:0 0 14px;flex-wrap:wrap}.summary span{background:#fff;border:1px solid #d0d7de;border-radius:6px;padding:6px 10px}
.legend{margin:0 0 14px;color:#57606a}.legend b.r{color:#e61e28}.legend b.b{color:#146eff}
details.step{background:#fff;border:1px solid #d0d7de;border-left:6px solid #2da44e;border-radius:6px;margin:0 0 10px}
details.step.unchanged{border-left-color:#bf8700}details.step.refused{border-left-color:#cf222e;background:#fff5f5}
details.step.stale{border-left-color:#8250df}details.step.error{border-left-color:#6e7781;background:#f6f8fa}
summary{display:grid;grid-template-columns:56px 180px 1fr 260px;gap:12px;align-items:center;padding:8px 12px;cursor:pointer;list-style:none}
summary::-webkit-details-marker{display:none}.n{font-weight:700;color:#57606a}
.thumb{width:170px;height:auto;border:1px solid #d0d7de;border-radius:4px;display:block}
.what b{font-family:ui-monospace,"DejaVu Sans Mono",monospace}.tag{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-weight:700}
.refused .tag{color:#cf222e}.what .why{color:#57606a;margin-top:2px}
.bar{display:flex;height:12px;border-radius:3px;overflow:hidden;background:#eaeef2;margin-top:4px}
.bar i{display:block;height:100%}.bar .capture{background:#0969da}.bar .settle{background:#bf8700}.bar .observe{background:#2da44e}.bar .encode{background:#8250df}
.times{font-size:12px;color:#57606a}.body{padding:4px 14px 14px}
.shots{display:grid;grid-template-columns:1fr 1fr;gap:12px}.shots figure{margin:0}.shots img{width:100%;border:1px solid #d0d7de;border-radius:4px}
figcaption{color:#57606a;font-size:12px}pre{white-space:pre-wrap;word-break:break-word;background:#f6f8fa;border:1px solid #d0d7de;border-radius:4px;padding:8px;font-size:12px;max-height:420px;overflow:auto}
dl{display:grid;grid-template-columns:140px 1fr;gap:2px 12px;margin:10px 0}dt{color:#57606a}dd{margin:0}
"#;

/// Counts the images that loaded and the network requests the page made, for anyone (or any test)
/// checking the report in a browser.
const SCRIPT: &str = r#"
window.addEventListener('load', function () {
  var imgs = Array.prototype.slice.call(document.images);
  var loaded = imgs.filter(function (i) { return i.complete && i.naturalWidth > 0; }).length;
  var requests = performance.getEntriesByType('resource').filter(function (r) { return !/^data:/.test(r.name); }).length;
  document.body.setAttribute('data-images', String(imgs.length));
  document.body.setAttribute('data-images-loaded', String(loaded));
  document.body.setAttribute('data-network-requests', String(requests));
});
"#;

/// The report for an already read trace.
pub fn render_trace(trace: &Trace) -> String {
    let dir = &trace.dir;
    let steps = &trace.steps;
    let widest = steps.iter().map(|s| ms(s, "total")).max().unwrap_or(1).max(1);
    let count = |class: &str| steps.iter().filter(|s| status_class(s) == class).count();

    let mut html = String::with_capacity(1 << 20);
    html.push_str("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n");
    html.push_str("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n");
    html.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    let _ = writeln!(html, "<title>handrail trace — {} steps</title>", steps.len());
    let _ = writeln!(html, "<style>{STYLE}</style>\n<script>{SCRIPT}</script>\n</head><body>");
    let _ = writeln!(
        html,
        "<header><h1>handrail trace</h1><p>{} · recorded by {} · handrail {} · trace format v{}</p></header><main>",
        escape(text(&trace.header, "created")),
        escape(text(&trace.header, "recorder")),
        escape(text(&trace.header, "handrail")),
        trace.header.get("version").and_then(Value::as_u64).unwrap_or(0)
    );
    let _ = writeln!(
        html,
        "<div class=\"summary\"><span><b>{}</b> steps</span><span><b>{}</b> ok</span><span><b>{}</b> no visible change</span><span><b>{}</b> refused</span><span><b>{}</b> stale</span><span><b>{}</b> errors</span></div>",
        steps.len(),
        count("ok"),
        count("unchanged"),
        count("refused"),
        count("stale"),
        count("error")
    );
    html.push_str("<p class=\"legend\">Screenshots: <b class=\"r\">red</b> box = the target, <b class=\"b\">blue</b> box = the region that changed; password fields are blacked out. Bars: <span style=\"color:#0969da\">capture</span>, <span style=\"color:#bf8700\">settle</span>, <span style=\"color:#2da44e\">observe</span>, <span style=\"color:#8250df\">encode</span>.</p>\n");

    for step in steps {
        let n = step.get("step").and_then(Value::as_u64).unwrap_or(0);
        let class = status_class(step);
        let thumb = data_uri(dir, step.get("thumb").and_then(Value::as_str));
        let before = data_uri(dir, step.get("before").and_then(Value::as_str));
        let after = data_uri(dir, step.get("after").and_then(Value::as_str));
        let bar = |key: &str| {
            let pct = ms(step, key) as f64 * 100.0 / widest as f64;
            format!("<i class=\"{key}\" style=\"width:{pct:.2}%\" title=\"{key} {} ms\"></i>", ms(step, key))
        };
        let _ = writeln!(
            html,
            "<details class=\"step {class}\" id=\"step-{n}\" data-status=\"{}\">",
            escape(text(step, "status"))
        );
        let _ = write!(html, "<summary><span class=\"n\">#{n}</span>");
        match &thumb {
            Some(uri) => {
                let _ = write!(html, "<img class=\"thumb\" alt=\"step {n}\" src=\"{uri}\">");
            }
            None => html.push_str("<span class=\"thumb\">(no screenshot)</span>"),
        }
        let message = step.get("message").and_then(Value::as_str).unwrap_or("");
        let _ = write!(
            html,
            "<div class=\"what\"><span class=\"tag\">{}</span> <b>{}</b> {}<div class=\"why\">turn {} ({}){}</div></div>",
            escape(text(step, "verdict")),
            escape(text(step, "action")),
            escape(&target_summary(step)),
            escape(text(step, "turn")),
            escape(text(step, "mode")),
            if message.is_empty() { String::new() } else { format!(" — {}", escape(message)) }
        );
        let _ = writeln!(
            html,
            "<div><div class=\"times\">{} ms total · capture {} · settle {} · observe {} · encode {}</div><div class=\"bar\">{}{}{}{}</div></div></summary>",
            ms(step, "total"),
            ms(step, "capture"),
            ms(step, "settle"),
            ms(step, "observe"),
            ms(step, "encode"),
            bar("capture"),
            bar("settle"),
            bar("observe"),
            bar("encode")
        );
        html.push_str("<div class=\"body\"><div class=\"shots\">");
        for (label, uri) in [("before", &before), ("after", &after)] {
            match uri {
                Some(uri) => {
                    let _ = write!(
                        html,
                        "<figure><img alt=\"{label} step {n}\" src=\"{uri}\"><figcaption>{label}</figcaption></figure>"
                    );
                }
                None => {
                    let _ = write!(html, "<figure><figcaption>{label}: no screenshot</figcaption></figure>");
                }
            }
        }
        html.push_str("</div><dl>");
        let guard = step.get("guard").cloned().unwrap_or(Value::Null);
        let guard_text =
            match (text(&guard, "decision"), guard.get("rule").or(guard.get("marker")).and_then(Value::as_str)) {
                (d, Some(why)) => format!("{d} ({why})"),
                (d, None) => d.to_string(),
            };
        let expect =
            step.get("expect").filter(|e| !e.is_null()).map(|e| format!("{}: {}", text(e, "kind"), text(e, "result")));
        for (k, v) in [
            ("time", text(step, "time").to_string()),
            ("guard", guard_text),
            ("expect", expect.unwrap_or_else(|| "—".into())),
            ("observation", format!("{} → {}", text(step, "before_observation"), text(step, "observation"))),
        ] {
            let _ = write!(html, "<dt>{k}</dt><dd>{}</dd>", escape(&v));
        }
        let _ = writeln!(html, "</dl><pre>{}</pre></div></details>", escape(text(step, "text")));
    }
    html.push_str("</main></body></html>\n");
    html
}

/// Reads the trace in `dir` and writes `dir/report.html`; returns its path.
pub fn write_report(dir: &Path) -> Result<PathBuf, TraceError> {
    let trace = read(dir)?;
    let path = dir.join("report.html");
    std::fs::write(&path, render_trace(&trace)).map_err(|e| TraceError::Write(dir.display().to_string(), e))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(escape("<img src=x onerror='a'>&\""), "&lt;img src=x onerror=&#39;a&#39;&gt;&amp;&quot;");
    }

    #[test]
    fn only_recorder_file_names_are_embedded() {
        let dir = std::env::temp_dir();
        assert_eq!(data_uri(&dir, Some("../../etc/passwd")), None);
        assert_eq!(data_uri(&dir, Some("/etc/hostname")), None);
        assert_eq!(data_uri(&dir, Some("step-1/../../x.jpg")), None);
        assert_eq!(data_uri(&dir, None), None);
    }
}

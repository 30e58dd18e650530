//! What the proxy answers itself: the block page for refused plain-http requests and short text
//! answers for everything else (403 for CONNECT, 400, 408, 501, 502, 503).

use std::io::Write;
use std::net::TcpStream;

/// The self-contained page shown for a refused plain-http request. `url` must already be redacted.
pub fn block_page(url: &str, reason: &str) -> String {
    let url = escape(url);
    let reason = escape(reason);
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta name=\"viewport\" content=\"width=device-width\">\
<title>Blocked by handrail's URL policy</title>\
<style>body{{font:16px/1.5 system-ui,sans-serif;max-width:40em;margin:3em auto;padding:0 1em;color:#222}}\
code{{word-break:break-all;background:#f3f3f3;padding:0 .2em}}</style></head>\n\
<body><h1>Blocked by handrail's URL policy</h1>\n\
<p>The request to <code id=\"blocked-url\">{url}</code> was not sent.</p>\n\
<p>Reason: <span id=\"blocked-reason\">{reason}</span>.</p>\n</body></html>\n"
    )
}

/// HTML-escapes text for element content and quoted attribute values.
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

/// Sends a whole response that closes the connection. For `HEAD` the body is left out (its length is
/// still announced). Write errors are ignored: the client is gone, and nothing else is owed to it.
pub(crate) fn respond(stream: &TcpStream, status: u16, content_type: &str, body: &str, head_only: bool) {
    let mut msg = format!(
        "HTTP/1.1 {status} {}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nCache-Control: no-store\r\n\
X-Content-Type-Options: nosniff\r\nContent-Security-Policy: default-src 'none'; style-src 'unsafe-inline'\r\n\
Connection: close\r\n\r\n",
        phrase(status),
        body.len()
    );
    if !head_only {
        msg.push_str(body);
    }
    let _ = (&*stream).write_all(msg.as_bytes());
    let _ = (&*stream).flush();
}

/// A short plain-text answer (`text` ends up on one line followed by a newline).
pub(crate) fn text(stream: &TcpStream, status: u16, text: &str, head_only: bool) {
    respond(stream, status, "text/plain; charset=utf-8", &format!("handrail proxy: {text}\n"), head_only);
}

fn phrase(status: u16) -> &'static str {
    match status {
        400 => "Bad Request",
        403 => "Forbidden",
        408 => "Request Timeout",
        501 => "Not Implemented",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        _ => "Error",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_names_url_and_reason_escaped() {
        let page = block_page("http://evil.com/<script>?a=1&b=\"2\"", "evil.com is not in the allowed domains (x)");
        assert!(page.contains("<title>Blocked by handrail's URL policy</title>"));
        assert!(page.contains("<h1>Blocked by handrail's URL policy</h1>"));
        assert!(page.contains("http://evil.com/&lt;script&gt;?a=1&amp;b=&quot;2&quot;"));
        assert!(!page.contains("<script>"));
        assert!(page.contains("evil.com is not in the allowed domains (x)"));
    }
}

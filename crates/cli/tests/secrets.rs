//! Secrets never leave, over the whole pipeline: `handrail serve --sandbox --http` with a trace, an
//! audit log and debug logging works a Chromium page that holds a password field (filled in by the
//! page), a link whose URL carries credentials, and is asked to type generated passwords into the
//! field, press keys there, and open URLs with generated credentials. Every secret is then searched
//! for — as written, JSON-escaped, HTML-escaped, percent-encoded and as an HTTP Basic credential — in
//! every MCP result, every stderr line, every audit line and every file of the trace (steps, images,
//! the report written at stop). None may appear.
//!
//! The property runs several generated cases against one server (a desktop and a browser per case
//! would take minutes); the final scan covers every case's secrets.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::time::Duration;

use handrail_testkit::mcp::{McpHttp, Protocol, Reply};
use handrail_testkit::served::Served;
use handrail_testkit::{serve_page, wait_until};
use proptest::prelude::*;
use proptest::test_runner::{Config as ProptestConfig, TestCaseError, TestRunner};
use serde_json::{json, Value};

/// The secrets of one generated case.
#[derive(Debug, Clone)]
struct Secrets {
    /// What the model asks to type into the password field.
    typed: String,
    /// The page's own value of the password field.
    in_field: String,
    /// The password of the link's URL on the page.
    in_link: String,
    /// The password of the URL the model asks to open.
    in_url: String,
}

impl Secrets {
    fn all(&self) -> [&str; 4] {
        [&self.typed, &self.in_field, &self.in_link, &self.in_url]
    }
}

/// Passwords: a fixed start no page or log holds by chance, then 8–14 characters. What is typed may
/// hold punctuation; what goes into URLs is unreserved (never percent-encoded) so it is found as is.
fn secrets() -> impl Strategy<Value = Secrets> {
    let typed = "[A-Za-z0-9!#%*+=_.~-]{8,14}".prop_map(|s| format!("Qx7{s}"));
    let url_part = || "[A-Za-z0-9._~-]{8,14}".prop_map(|s| format!("Qx7{s}"));
    (typed, url_part(), url_part(), url_part()).prop_map(|(typed, in_field, in_link, in_url)| Secrets {
        typed,
        in_field,
        in_link,
        in_url,
    })
}

fn handrail() -> &'static str {
    env!("CARGO_BIN_EXE_handrail")
}

/// The forms a secret could take on its way out.
fn spellings(secret: &str, user: &str) -> Vec<String> {
    let json = serde_json::to_string(secret).unwrap_or_default();
    let html = secret.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;");
    let percent: String = secret
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    let mut forms = vec![secret.to_string(), json.trim_matches('"').to_string(), html, percent];
    // As an `Authorization: Basic` header would carry it.
    forms.push(base64(format!("{user}:{secret}").as_bytes()));
    forms.sort();
    forms.dedup();
    forms
}

fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Where `needle` occurs in `haystack`, with a little context, for the failure message.
fn found_in(haystack: &[u8], needle: &str) -> Option<String> {
    let n = needle.as_bytes();
    let at = haystack.windows(n.len()).position(|w| w == n)?;
    let from = at.saturating_sub(60);
    let to = (at + n.len() + 60).min(haystack.len());
    Some(String::from_utf8_lossy(&haystack[from..to]).into_owned())
}

/// Every file under `dir`, recursively.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return out };
    for e in entries.flatten() {
        let path = e.path();
        if path.is_dir() {
            out.extend(files(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// A page of the case: the password field filled in by the page, a link with credentials, a name
/// field. Leaked: the page server serves `'static` text for the life of the test process.
fn page(case: usize, s: &Secrets, port_hint: &str) -> &'static str {
    let html = format!(
        "<!doctype html><title>Sign in {case}</title><h1>Sign in {case}</h1>\
         <div><label for=\"name\">Name</label> <input id=\"name\" value=\"Ada\"></div>\
         <div><label for=\"pw\">Password</label> <input id=\"pw\" type=\"password\" value=\"{}\"></div>\
         <p><a href=\"http://admin:{}@{port_hint}/private\">Private area</a></p>",
        s.in_field, s.in_link
    );
    Box::leak(html.into_boxed_str())
}

/// The element of the latest look with this role, as (observation id, element id).
fn element(reply: &Reply, role: &str, label: Option<&str>) -> Option<(String, String)> {
    let obs = &reply.structured()["observation"];
    let found = obs["elements"].as_array()?.iter().find(|e| {
        e["role"] == role && label.is_none_or(|l| e["label"].as_str().is_some_and(|have| have.contains(l)))
    })?;
    Some((obs["id"].as_str()?.to_string(), found["id"].as_str()?.to_string()))
}

struct Run {
    client: McpHttp,
    /// Every result, as sent.
    results: Vec<String>,
    /// Positive control: the scan reads what the pipeline really says.
    seen_name_field: bool,
}

impl Run {
    fn call(&mut self, case: usize, args: Value) -> Reply {
        let meta = json!({"handrail/turn": format!("case-{case}"), "handrail/mode": "unattended",
                          "handrail/intent": "sign in with my saved details"});
        let reply = self.client.call_tool("computer", args, meta).expect("the server answers");
        self.results.push(reply.raw());
        reply
    }

    /// One generated case: the page is opened and looked at; every way of putting the secrets in is
    /// tried, and each is refused for the right reason.
    fn case(&mut self, case: usize, s: &Secrets) -> Result<(), TestCaseError> {
        let url = serve_page(page(case, s, "127.0.0.1:9"));
        self.call(case, json!({"action": "open_url", "url": url, "expect": format!("window:Sign in {case}")}));
        let looked = wait_until(Duration::from_secs(30), Duration::from_millis(300), || {
            let r = self.call(case, json!({"action": "see", "marks": true}));
            element(&r, "password_entry", None).map(|pw| (r, pw))
        });
        let (look, (obs, pw)) = looked.ok_or_else(|| TestCaseError::fail("the password field was never listed"))?;
        self.seen_name_field |= look.raw().contains("\"Ada\"");

        let typed =
            self.call(case, json!({"action": "type", "text": s.typed, "observation_id": obs, "element_id": pw}));
        prop_assert_eq!(&typed.structured()["reason"], "password_field", "{}", typed.text());
        // Into the focused password field: a click there, then typing and a key with no target.
        self.call(case, json!({"action": "click", "observation_id": obs, "element_id": pw}));
        let untargeted = self.call(case, json!({"action": "type", "text": s.typed}));
        prop_assert_eq!(&untargeted.structured()["reason"], "password_field", "{}", untargeted.text());
        self.call(case, json!({"action": "key", "keys": "ctrl+v"}));
        self.call(case, json!({"action": "inspect", "observation_id": obs, "element_id": pw}));

        let credential_url = format!("http://admin:{}@127.0.0.1:9/account", s.in_url);
        let opened = self.call(case, json!({"action": "open_url", "url": credential_url}));
        prop_assert_eq!(&opened.structured()["reason"], "url", "{}", opened.text());

        // The link whose URL holds credentials: the browser's request is judged by the proxy.
        let look = self.call(case, json!({"action": "see"}));
        let (obs, link) = element(&look, "link", Some("Private area"))
            .ok_or_else(|| TestCaseError::fail(format!("no link in {}", look.text())))?;
        self.call(case, json!({"action": "click", "observation_id": obs, "element_id": link}));
        // The browser's own error page quotes the address it was sent to, credentials and all.
        let after = wait_until(Duration::from_secs(15), Duration::from_millis(300), || {
            let r = self.call(case, json!({"action": "see"}));
            r.text().contains("127.0.0.1:9/private").then_some(r)
        });
        prop_assert!(after.is_some(), "the link was followed");
        Ok(())
    }
}

#[test]
fn no_secret_reaches_a_result_a_log_line_the_audit_log_or_the_trace() {
    let dir = std::env::temp_dir().join(format!("handrail-secrets-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let trace = dir.join("trace");
    let audit = dir.join("audit.jsonl");
    let mut served = Served::start(
        handrail(),
        &[
            "--sandbox",
            "--vision",
            "yes",
            "--log",
            "debug",
            "--trace",
            trace.to_str().expect("utf-8"),
            "--audit-log",
            audit.to_str().expect("utf-8"),
        ],
        &[],
    );
    let client = McpHttp::connect(&served.url, Protocol::Sessions, Duration::from_secs(120)).expect("a session");
    let run = RefCell::new(Run { client, results: Vec::new(), seen_name_field: false });

    let config = ProptestConfig { cases: 4, failure_persistence: None, max_shrink_iters: 4, ..Default::default() };
    let mut runner = TestRunner::new(config);
    let tried: RefCell<Vec<Secrets>> = RefCell::new(Vec::new());
    let outcome = runner.run(&secrets(), |s| {
        tried.borrow_mut().push(s.clone());
        let case = tried.borrow().len();
        run.borrow_mut().case(case, &s)
    });
    let Run { client, results, seen_name_field } = run.into_inner();
    drop(client);
    let tried = tried.into_inner();
    served.signal("TERM");
    let status = served.wait_exit(Duration::from_secs(30)).expect("serve stops on SIGTERM");
    // Its last words: the report it wrote on the way out.
    let said = served.wait_for_log(Duration::from_secs(5), |l| l.contains("trace report at"));
    outcome.unwrap_or_else(|e| panic!("{e}"));
    assert!(status.success(), "serve stops cleanly: {status}");
    assert!(said.is_some(), "the report was written:\n{}", served.log().join("\n"));
    let log = served.log();

    // The places scanned, each with what it holds.
    let mut places: Vec<(String, Vec<u8>)> = Vec::new();
    places.extend(results.iter().enumerate().map(|(i, r)| (format!("result {i}"), r.clone().into_bytes())));
    places.push(("stderr".into(), log.join("\n").into_bytes()));
    places.push(("audit log".into(), std::fs::read(&audit).expect("the audit log")));
    let traced = files(&trace);
    assert!(traced.iter().any(|p| p.ends_with("report.html")), "the report was written: {traced:?}");
    assert!(traced.iter().any(|p| p.extension().is_some_and(|e| e == "jpg")), "screenshots were traced");
    places.extend(traced.iter().map(|p| (p.display().to_string(), std::fs::read(p).unwrap_or_default())));

    // Positive controls: what the page shows does reach the results and the trace, and every call
    // reached the audit log.
    assert!(seen_name_field, "the name field's value was read");
    let steps = std::fs::read_to_string(trace.join("steps.jsonl")).expect("steps");
    assert!(steps.contains("Sign in 1"), "the page's text is in the trace");
    let audited = std::fs::read_to_string(&audit).expect("audit").lines().count();
    assert_eq!(audited, results.len(), "one audit line per call");
    assert!(log.len() > 20, "debug logging was on: {} lines", log.len());

    let mut leaks = Vec::new();
    for s in &tried {
        for secret in s.all() {
            for form in spellings(secret, "admin") {
                for (place, bytes) in &places {
                    if let Some(context) = found_in(bytes, &form) {
                        leaks.push(format!("{form:?} (of {secret:?}) in {place}: …{context}…"));
                    }
                }
            }
        }
    }
    eprintln!(
        "{} cases, {} results, {} log lines, {} audit lines, {} trace files scanned",
        tried.len(),
        results.len(),
        log.len(),
        audited,
        traced.len()
    );
    assert!(leaks.is_empty(), "secrets left the pipeline:\n{}", leaks.join("\n"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_scan_finds_every_spelling_it_looks_for() {
    let secret = "Qx7a&b<c>\"d%e";
    let forms = spellings(secret, "admin");
    for form in &forms {
        assert!(found_in(format!("…{form}…").as_bytes(), form).is_some());
    }
    assert!(forms.contains(&"Qx7a&amp;b&lt;c&gt;&quot;d%e".to_string()));
    assert!(forms.contains(&"Qx7a%26b%3Cc%3E%22d%25e".to_string()));
    assert!(forms.contains(&r#"Qx7a&b<c>\"d%e"#.to_string()));
    // RFC 4648's example, and one that needs padding.
    assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    assert_eq!(base64(b"foob"), "Zm9vYg==");
    assert!(forms.contains(&base64(format!("admin:{secret}").as_bytes())));
}

//! The audit log's record of a call: when, which turn, what was asked and on what, the guard's
//! decision, the verdict and the timings. Typed text is recorded by length only and URLs lose their
//! credentials, so the log never holds a secret. The trace's steps extend the same record.

use handrail_core::{ExpectOutcome, Outcome, RawArgs};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::result::{Blocked, ExpectResult, Guard, Timings, RESULT_VERSION};

/// Who asked for a call, as the audit log records it.
#[derive(Debug, Clone, Copy)]
pub struct AuditContext<'a> {
    pub unix_ms: u64,
    pub turn: &'a str,
    pub mode: &'a str,
    /// The tool called: `computer` or `read_image`.
    pub tool: &'a str,
}

/// What a call aimed at, as its arguments said (clipped; typed text by length; URLs without
/// credentials).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AuditTarget {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-omitted-when-absent" = true))]
    pub observation_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-omitted-when-absent" = true))]
    pub element_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-omitted-when-absent" = true))]
    pub target_text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-omitted-when-absent" = true))]
    pub to_element_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-omitted-when-absent" = true))]
    pub to_target_text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-omitted-when-absent" = true))]
    pub keys: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-omitted-when-absent" = true))]
    pub direction: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-omitted-when-absent" = true))]
    pub app: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-omitted-when-absent" = true))]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-omitted-when-absent" = true))]
    pub region: Option<Vec<i64>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-omitted-when-absent" = true))]
    pub amount: Option<i64>,
    /// How many characters were typed (the text itself is never recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-omitted-when-absent" = true))]
    pub text_chars: Option<usize>,
    /// `read_image`: the file asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-omitted-when-absent" = true))]
    pub path: Option<String>,
}

impl AuditTarget {
    pub fn of(args: &RawArgs) -> Self {
        let clip = |v: &Option<String>| v.as_ref().map(|v| v.chars().take(200).collect::<String>());
        AuditTarget {
            observation_id: clip(&args.observation_id),
            element_id: clip(&args.element_id),
            target_text: clip(&args.target_text),
            to_element_id: clip(&args.to_element_id),
            to_target_text: clip(&args.to_target_text),
            keys: clip(&args.keys),
            direction: clip(&args.direction),
            app: clip(&args.app),
            url: args.url.as_ref().map(|u| redact_url(&u.chars().take(500).collect::<String>())),
            region: args.region.as_ref().map(|r| r.iter().take(8).copied().collect()),
            amount: args.amount,
            text_chars: args.text.as_ref().map(|t| t.chars().count()),
            path: None,
        }
    }
}

/// An `expect` in the audit log: its kind and how it ended (not what was looked for, which may be
/// something the user typed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AuditExpect {
    pub kind: String,
    pub result: ExpectResult,
}

/// One line of the audit log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AuditRecord {
    /// [`RESULT_VERSION`].
    pub version: u32,
    /// RFC 3339, UTC.
    pub time: String,
    pub turn: String,
    pub mode: String,
    pub tool: String,
    pub action: Option<String>,
    pub target: AuditTarget,
    pub guard: Option<Guard>,
    /// The result's tag, e.g. `[refused]` (or what the protocol turned it into, e.g.
    /// `[input_required] asked the person`).
    pub verdict: String,
    /// The stable reason code, as in the result.
    pub reason: Option<String>,
    pub changed: Option<bool>,
    pub expect: Option<AuditExpect>,
    /// The observation the call published.
    pub observation: Option<String>,
    pub blocked: Vec<Blocked>,
    pub blocked_count: usize,
    /// Whether typed text arrived (`arrived`, `not_arrived`, …); never what a field holds.
    pub typing: Option<String>,
    pub timings_ms: Option<Timings>,
}

/// Blocked requests an audit line lists at most.
const MAX_BLOCKED_AUDITED: usize = 16;

impl AuditRecord {
    /// The record of a `computer` call.
    pub fn of_call(ctx: AuditContext<'_>, args: &RawArgs, outcome: &Outcome) -> Self {
        let action = outcome
            .action
            .map(|a| a.as_str().to_string())
            .or_else(|| args.action.as_deref().map(|a| if a.len() > 40 { "(invalid)" } else { a }.to_string()));
        AuditRecord {
            version: RESULT_VERSION,
            time: rfc3339_utc(ctx.unix_ms),
            turn: ctx.turn.to_string(),
            mode: ctx.mode.to_string(),
            tool: ctx.tool.to_string(),
            action,
            target: AuditTarget::of(args),
            guard: Some((&outcome.guard).into()),
            verdict: outcome.tag(),
            reason: outcome.reason.map(|r| r.as_str().to_string()),
            changed: outcome.changes.as_ref().map(|c| c.any() && outcome.elsewhere.is_none()),
            expect: outcome.expect.as_ref().map(|(e, result)| AuditExpect {
                kind: e.kind.as_str().to_string(),
                result: ExpectResult::from(result as &ExpectOutcome),
            }),
            observation: outcome.observation.as_ref().map(|o| o.id.to_string()),
            blocked: outcome.blocked.iter().take(MAX_BLOCKED_AUDITED).map(Blocked::from).collect(),
            blocked_count: outcome.blocked.len(),
            typing: outcome.typing.as_ref().map(|t| t.as_str().to_string()),
            timings_ms: Some((&outcome.timings).into()),
        }
    }

    /// The record of a `read_image` call: the file asked for and the verdict.
    pub fn of_image(ctx: AuditContext<'_>, path: Option<String>, verdict: &str) -> Self {
        AuditRecord {
            version: RESULT_VERSION,
            time: rfc3339_utc(ctx.unix_ms),
            turn: ctx.turn.to_string(),
            mode: ctx.mode.to_string(),
            tool: ctx.tool.to_string(),
            action: Some("read_image".into()),
            target: AuditTarget { path, ..AuditTarget::default() },
            guard: None,
            verdict: verdict.to_string(),
            reason: None,
            changed: None,
            expect: None,
            observation: None,
            blocked: Vec::new(),
            blocked_count: 0,
            typing: None,
            timings_ms: None,
        }
    }
}

/// A URL with any `user:password@` part replaced, so a refused credential URL never reaches a log.
pub(crate) fn redact_url(url: &str) -> String {
    match url.split_once("://") {
        Some((scheme, rest)) => {
            let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
            let (authority, tail) = rest.split_at(end);
            match authority.rfind('@') {
                Some(at) => format!("{scheme}://[redacted]@{}{tail}", &authority[at + 1..]),
                None => url.to_string(),
            }
        }
        None if url.contains('@') => "[redacted]".to_string(),
        None => url.to_string(),
    }
}

/// Civil date and time (UTC) of a Unix time in milliseconds, as RFC 3339: `2026-12-02T14:49:35.123Z`.
pub fn rfc3339_utc(unix_ms: u64) -> String {
    let secs = unix_ms / 1000;
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Howard Hinnant's days-from-civil inverse.
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        unix_ms % 1000
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_utc_times() {
        assert_eq!(rfc3339_utc(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339_utc(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(rfc3339_utc(1_796_222_975_123), "2026-12-02T14:49:35.123Z");
    }

    #[test]
    fn audit_urls_lose_credentials() {
        assert_eq!(redact_url("https://bob:hunter2@example.com/x?y"), "https://[redacted]@example.com/x?y");
        assert_eq!(redact_url("https://example.com/a@b"), "https://example.com/a@b");
        assert_eq!(redact_url("bob:pw@host"), "[redacted]");
    }
}

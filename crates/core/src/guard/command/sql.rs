//! SQL (and key-value store) statements that destroy data, found in a line typed at a SQL prompt or
//! handed to a client (`psql -c …`, `mysql -e …`, `sqlite3 db "…"`, `echo … | psql`).
//!
//! Matching is case-insensitive and ignores comments (`-- …`, `/* … */`, `#` at a word start) and the
//! contents of single-quoted string literals. Rules:
//!
//! - `DROP TABLE | DATABASE | SCHEMA | INDEX | VIEW | MATERIALIZED VIEW | SEQUENCE` (also `DROP
//!   TEMPORARY TABLE`), anywhere in a statement;
//! - `TRUNCATE TABLE x`, or `TRUNCATE x` at the start of a statement;
//! - `DELETE FROM x` with no `WHERE` in the same statement, or a `WHERE` that is trivially true
//!   (`WHERE true`, `WHERE 1`, `WHERE 1=1`);
//! - `UPDATE x SET …` with no (or a trivially true) `WHERE`: it rewrites every row, which loses the old
//!   values just as surely as deleting them;
//! - Redis `FLUSHALL` / `FLUSHDB`, MongoDB `dropDatabase()`.
//!
//! Shell and SQL text cannot be told apart, so a commit message reading "drop table support" matches
//! too: a false positive is refused unattended and askable interactively, never silently run.

/// A statement that matched: the rule and the statement text (trimmed).
pub(super) type SqlHit = (&'static str, String);

/// Every match in `text`.
pub(super) fn scan(text: &str) -> Vec<SqlHit> {
    let mut hits = Vec::new();
    for statement in statements(text) {
        let tokens: Vec<String> = statement.tokens.iter().map(|t| t.to_ascii_lowercase()).collect();
        let shown = statement.text.split_whitespace().collect::<Vec<_>>().join(" ");
        for rule in rules(&tokens) {
            if !hits.iter().any(|(r, s)| *r == rule && *s == shown) {
                hits.push((rule, shown.clone()));
            }
        }
    }
    hits
}

fn rules(t: &[String]) -> Vec<&'static str> {
    let mut out = Vec::new();
    let at = |k: usize| t.get(k).map_or("", String::as_str);
    for k in 0..t.len() {
        match at(k) {
            "drop" => {
                let mut j = k + 1;
                while matches!(at(j), "temporary" | "temp" | "materialized") {
                    j += 1;
                }
                let rule = match at(j) {
                    "table" | "tables" => Some("DROP TABLE"),
                    "database" => Some("DROP DATABASE"),
                    "schema" => Some("DROP SCHEMA"),
                    "index" => Some("DROP INDEX"),
                    "view" => Some("DROP VIEW"),
                    "sequence" => Some("DROP SEQUENCE"),
                    _ => None,
                };
                out.extend(rule);
            }
            "truncate" if at(k + 1) == "table" || (k == 0 && !at(k + 1).is_empty() && !at(k + 1).starts_with('-')) => {
                out.push("TRUNCATE TABLE");
            }
            "delete" => {
                let mut j = k + 1;
                while matches!(at(j), "low_priority" | "quick" | "ignore") {
                    j += 1;
                }
                if at(j) == "from" && !at(j + 1).is_empty() && !has_real_where(&t[j..]) {
                    out.push("DELETE without WHERE");
                }
            }
            "update" => {
                let set = (k + 2..=k + 4).find(|&j| at(j) == "set");
                if let Some(j) = set {
                    if at(k + 1) != "set" && !has_real_where(&t[j..]) {
                        out.push("UPDATE without WHERE");
                    }
                }
            }
            "flushall" | "flushdb" => out.push("FLUSHALL"),
            w if w.ends_with(".dropdatabase") || w == "dropdatabase" => out.push("dropDatabase()"),
            _ => {}
        }
    }
    out
}

/// A `WHERE` that limits the rows, i.e. one that is not trivially true.
fn has_real_where(t: &[String]) -> bool {
    t.iter().enumerate().any(|(k, w)| {
        w == "where" && {
            let cond: Vec<&str> = t[k + 1..].iter().map(String::as_str).collect();
            !(cond.is_empty() || matches!(cond.as_slice(), ["true"] | ["1"] | ["1", "1"]))
        }
    })
}

struct Statement<'a> {
    text: &'a str,
    tokens: Vec<&'a str>,
}

/// Splits `text` into statements at `;` outside string literals and comments; each comes with its word
/// tokens (identifiers, keywords, numbers), comments and literal contents left out.
fn statements(text: &str) -> Vec<Statement<'_>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    let mut tokens = Vec::new();
    let mut i = 0;
    let token_byte = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.' | b'-') || c >= 0x80;
    while i < b.len() {
        let c = b[i];
        match c {
            b'-' if b.get(i + 1) == Some(&b'-') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                    i += 1;
                }
                i += 2;
            }
            b'#' if i == 0 || b[i - 1].is_ascii_whitespace() => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'\'' => {
                i += 1;
                while i < b.len() && b[i] != b'\'' {
                    i += 1;
                }
                i += 1;
            }
            b';' => {
                out.push(Statement { text: text[start..i].trim(), tokens: std::mem::take(&mut tokens) });
                i += 1;
                start = i;
            }
            _ if token_byte(c) => {
                let s = i;
                while i < b.len() && token_byte(b[i]) && !(b[i] == b'-' && b.get(i + 1) == Some(&b'-')) {
                    i += 1;
                }
                tokens.push(&text[s..i]);
            }
            _ => i += 1,
        }
    }
    let start = start.min(text.len());
    let rest = text.get(start..).unwrap_or("").trim();
    if !tokens.is_empty() {
        out.push(Statement { text: rest, tokens });
    }
    out
}

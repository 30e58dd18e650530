//! Splitting a command line the way a POSIX shell (bash, zsh, dash) would, far enough to judge it.
//!
//! The result is a flat list of simple commands: their words after quote removal and escape decoding,
//! their redirections, and which command pipes into which. Commands inside subshells, groups, `$( … )`,
//! backticks and process substitutions are listed like any other, so nesting never hides one. Nothing
//! is expanded: `$HOME`, `~` and globs stay as written, and a substitution stays in its word as written
//! (`rm -rf $(pwd)` has the operand `$(pwd)`).
//!
//! Input that a shell would still be waiting on (an unterminated quote, a missing `)`) is split as far as
//! it goes, as if it ended there. Only ASCII blanks separate words, as in a shell.

/// Deepest nesting of substitutions and shell strings (`bash -c`, `eval`) that is split; deeper text is
/// reported as too deep to judge (and refused by the guard), never silently skipped.
pub(super) const MAX_DEPTH: usize = 16;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum RedirOp {
    /// `>`, `>|`
    Write,
    /// `>>`
    Append,
    /// `&>`, `>&file`
    WriteBoth,
    /// `&>>`
    AppendBoth,
    /// `>&2`, `2>&1`, `>&-`
    DupOut,
    /// `<`
    Read,
    /// `<>`
    ReadWrite,
    /// `<&0`
    DupIn,
    /// `<<`, `<<-`
    HereDoc,
    /// `<<<`
    HereString,
}

impl RedirOp {
    fn as_str(self) -> &'static str {
        match self {
            RedirOp::Write => ">",
            RedirOp::Append => ">>",
            RedirOp::WriteBoth => "&>",
            RedirOp::AppendBoth => "&>>",
            RedirOp::DupOut => ">&",
            RedirOp::Read => "<",
            RedirOp::ReadWrite => "<>",
            RedirOp::DupIn => "<&",
            RedirOp::HereDoc => "<<",
            RedirOp::HereString => "<<<",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Redirect {
    /// The file descriptor written before the operator (`2>`), if any.
    pub fd: Option<String>,
    pub op: RedirOp,
    /// The target word after quote removal (for a here-document, its delimiter).
    pub target: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Simple {
    pub words: Vec<String>,
    pub redirects: Vec<Redirect>,
    /// Index (in [`Parsed::commands`]) of the command whose output is piped into this one.
    pub pipe_from: Option<usize>,
    /// A command with no words that directly follows a closing `)`, `}`, `done`, `fi` or `esac`: its
    /// redirections belong to that compound command (`{ a; b; } > out`), which does write something.
    pub group_output: bool,
}

impl Simple {
    /// The command as a shell would run it, words quoted again where needed.
    pub fn display(&self) -> String {
        let mut parts: Vec<String> = self.words.iter().map(|w| requote(w)).collect();
        for r in &self.redirects {
            parts.push(format!("{}{}{}", r.fd.as_deref().unwrap_or(""), r.op.as_str(), requote(&r.target)));
        }
        parts.join(" ")
    }
}

pub(super) fn requote(w: &str) -> String {
    let special = |c: char| c.is_whitespace() || "'\"\\;&|<>()`#".contains(c);
    let substitution = (w.starts_with("$(") && w.ends_with(')')) || (w.starts_with('`') && w.ends_with('`'));
    if w.is_empty() {
        "''".to_string()
    } else if w.chars().any(special) && !substitution {
        format!("'{}'", w.replace('\'', "'\\''"))
    } else {
        w.to_string()
    }
}

#[derive(Debug, Default)]
pub(super) struct Parsed {
    pub commands: Vec<Simple>,
    /// Some substitution was nested deeper than [`MAX_DEPTH`] and was not split.
    pub too_deep: bool,
}

/// Splits `line` into its simple commands; `depth` is how deeply `line` itself is nested.
pub(super) fn parse(line: &str, depth: usize) -> Parsed {
    let mut out = Parsed::default();
    parse_into(line, depth, &mut out);
    out
}

fn parse_into(text: &str, depth: usize, out: &mut Parsed) {
    if depth > MAX_DEPTH {
        out.too_deep = true;
        return;
    }
    let chars: Vec<char> = text.chars().collect();
    Parser { s: &chars, i: 0, depth, out }.run();
}

/// Words that open or close compound commands; at the start of a command they are skipped, so the
/// command after them is judged (`if rm -rf x; then …`, `while …; do rm …; done`).
const RESERVED: &[&str] =
    &["if", "then", "else", "elif", "fi", "do", "done", "while", "until", "esac", "!", "function", "coproc"];
const CLOSERS: &[&str] = &["fi", "done", "esac"];

fn is_meta(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n' | ';' | '&' | '|' | '(' | ')' | '<' | '>')
}

struct Parser<'a> {
    s: &'a [char],
    i: usize,
    depth: usize,
    out: &'a mut Parsed,
}

struct Pending {
    cur: Simple,
    pipe: Option<usize>,
    closed: bool,
}

impl Parser<'_> {
    fn peek(&self, k: usize) -> Option<char> {
        self.s.get(self.i + k).copied()
    }

    fn skip_blanks(&mut self) {
        loop {
            match (self.peek(0), self.peek(1)) {
                (Some(' ' | '\t' | '\r'), _) => self.i += 1,
                (Some('\\'), Some('\n')) => self.i += 2,
                _ => break,
            }
        }
    }

    fn run(&mut self) {
        let mut p = Pending { cur: Simple::default(), pipe: None, closed: false };
        loop {
            self.skip_blanks();
            let Some(c) = self.peek(0) else { break };
            match c {
                '\n' | ';' => {
                    self.i += 1;
                    self.finish(&mut p, false);
                    p.closed = false;
                }
                '&' if self.peek(1) == Some('>') => self.redirect(&mut p.cur, None),
                '&' => {
                    self.i += if self.peek(1) == Some('&') { 2 } else { 1 };
                    self.finish(&mut p, false);
                    p.closed = false;
                }
                '|' => {
                    let piping = self.peek(1) != Some('|');
                    self.i += if self.peek(1).is_some_and(|n| n == '|' || n == '&') { 2 } else { 1 };
                    self.finish(&mut p, piping);
                    p.closed = false;
                }
                '(' => {
                    self.i += 1;
                    self.finish(&mut p, false);
                    p.closed = false;
                }
                ')' => {
                    self.i += 1;
                    self.finish(&mut p, false);
                    p.closed = true;
                }
                '<' | '>' => self.redirect(&mut p.cur, None),
                '#' => {
                    while self.peek(0).is_some_and(|c| c != '\n') {
                        self.i += 1;
                    }
                }
                _ => {
                    if c.is_ascii_digit() {
                        let mut j = self.i;
                        while self.s.get(j).is_some_and(char::is_ascii_digit) {
                            j += 1;
                        }
                        if matches!(self.s.get(j), Some('<' | '>')) {
                            let fd: String = self.s[self.i..j].iter().collect();
                            self.i = j;
                            self.redirect(&mut p.cur, Some(fd));
                            continue;
                        }
                    }
                    let (word, plain) = self.word();
                    let at_start = p.cur.words.is_empty() && p.cur.redirects.is_empty();
                    if plain && at_start && RESERVED.contains(&word.as_str()) {
                        p.closed = CLOSERS.contains(&word.as_str());
                    } else if plain && (word == "{" || word == "}") {
                        self.finish(&mut p, false);
                        p.closed = word == "}";
                    } else {
                        p.cur.words.push(word);
                        p.closed = false;
                    }
                }
            }
        }
        self.finish(&mut p, false);
    }

    fn finish(&mut self, p: &mut Pending, piping: bool) {
        let mut cur = std::mem::take(&mut p.cur);
        if cur.words.is_empty() && cur.redirects.is_empty() {
            p.pipe = None;
            return;
        }
        cur.pipe_from = p.pipe.take();
        cur.group_output = cur.words.is_empty() && p.closed;
        self.out.commands.push(cur);
        if piping {
            p.pipe = Some(self.out.commands.len() - 1);
        }
    }

    fn redirect(&mut self, cur: &mut Simple, fd: Option<String>) {
        let (a, b, c) = (self.peek(0), self.peek(1), self.peek(2));
        let (op, len) = match (a, b, c) {
            (Some('&'), _, Some('>')) => (RedirOp::AppendBoth, 3),
            (Some('&'), _, _) => (RedirOp::WriteBoth, 2),
            (Some('>'), Some('>'), _) => (RedirOp::Append, 2),
            (Some('>'), Some('|'), _) => (RedirOp::Write, 2),
            (Some('>'), Some('&'), _) => (RedirOp::DupOut, 2),
            (Some('<' | '>'), Some('('), _) => {
                // Process substitution: its commands run too.
                self.i += 2;
                let inner = self.paren_body();
                self.sub_parse(&inner);
                cur.words.push(format!("{}({inner})", a.unwrap_or('<')));
                return;
            }
            (Some('>'), _, _) => (RedirOp::Write, 1),
            (Some('<'), Some('<'), Some('<')) => (RedirOp::HereString, 3),
            (Some('<'), Some('<'), Some('-')) => (RedirOp::HereDoc, 3),
            (Some('<'), Some('<'), _) => (RedirOp::HereDoc, 2),
            (Some('<'), Some('&'), _) => (RedirOp::DupIn, 2),
            (Some('<'), Some('>'), _) => (RedirOp::ReadWrite, 2),
            _ => (RedirOp::Read, 1),
        };
        self.i += len;
        self.skip_blanks();
        let target = if self.peek(0).is_some_and(|c| !is_meta(c)) { self.word().0 } else { String::new() };
        let dup =
            target.is_empty() || target == "-" || target.trim_end_matches('-').chars().all(|c| c.is_ascii_digit());
        let op = if op == RedirOp::DupOut && !dup { RedirOp::WriteBoth } else { op };
        cur.redirects.push(Redirect { fd, op, target });
    }

    /// One word; `plain` when it had no quoting, escapes or expansions at all (only plain words can be
    /// reserved words).
    fn word(&mut self) -> (String, bool) {
        let mut w = String::new();
        let mut plain = true;
        while let Some(c) = self.peek(0) {
            if is_meta(c) {
                break;
            }
            match c {
                '\\' => {
                    plain = false;
                    match self.peek(1) {
                        Some('\n') => self.i += 2,
                        Some(n) => {
                            w.push(n);
                            self.i += 2;
                        }
                        None => self.i += 1,
                    }
                }
                '\'' => {
                    plain = false;
                    self.i += 1;
                    self.single_quoted(&mut w);
                }
                '"' => {
                    plain = false;
                    self.i += 1;
                    self.double_quoted(&mut w);
                }
                '$' => {
                    plain = false;
                    self.dollar(&mut w, false);
                }
                '`' => {
                    plain = false;
                    self.i += 1;
                    self.backtick(&mut w);
                }
                _ => {
                    w.push(c);
                    self.i += 1;
                }
            }
        }
        (w, plain)
    }

    fn single_quoted(&mut self, w: &mut String) {
        while let Some(c) = self.peek(0) {
            self.i += 1;
            if c == '\'' {
                return;
            }
            w.push(c);
        }
    }

    fn double_quoted(&mut self, w: &mut String) {
        while let Some(c) = self.peek(0) {
            match c {
                '"' => {
                    self.i += 1;
                    return;
                }
                '\\' => match self.peek(1) {
                    Some('\n') => self.i += 2,
                    Some(n @ ('$' | '`' | '"' | '\\')) => {
                        w.push(n);
                        self.i += 2;
                    }
                    _ => {
                        w.push('\\');
                        self.i += 1;
                    }
                },
                '$' => self.dollar(w, true),
                '`' => {
                    self.i += 1;
                    self.backtick(w);
                }
                _ => {
                    w.push(c);
                    self.i += 1;
                }
            }
        }
    }

    /// At a `$`: ANSI-C and locale quoting, command substitution, parameter expansion, or a plain `$`.
    fn dollar(&mut self, w: &mut String, in_double_quotes: bool) {
        match self.peek(1) {
            Some('\'') if !in_double_quotes => {
                self.i += 2;
                self.ansi_c(w);
            }
            Some('"') if !in_double_quotes => {
                self.i += 2;
                self.double_quoted(w);
            }
            Some('(') => {
                self.i += 2;
                let inner = self.paren_body();
                self.sub_parse(&inner);
                w.push_str("$(");
                w.push_str(&inner);
                w.push(')');
            }
            Some('{') => {
                self.i += 2;
                let inner = self.brace_body();
                if inner.contains("$(") || inner.contains('`') {
                    self.sub_parse(&inner);
                }
                w.push_str("${");
                w.push_str(&inner);
                w.push('}');
            }
            _ => {
                w.push('$');
                self.i += 1;
            }
        }
    }

    fn sub_parse(&mut self, inner: &str) {
        parse_into(inner, self.depth + 1, self.out);
    }

    /// The text of a `$( … )` (or `<( … )`) up to its closing parenthesis, which is consumed. Quotes and
    /// nested substitutions are skipped over without recursion.
    fn paren_body(&mut self) -> String {
        #[derive(Clone, Copy)]
        enum Ctx {
            Paren(usize),
            Double,
        }
        let start = self.i;
        let mut stack = vec![Ctx::Paren(1)];
        let mut end = None;
        while let (Some(&ctx), Some(c)) = (stack.last(), self.peek(0)) {
            match (ctx, c) {
                (_, '\\') => self.i += 2,
                (Ctx::Paren(_), '\'') => {
                    self.i += 1;
                    while self.peek(0).is_some_and(|c| c != '\'') {
                        self.i += 1;
                    }
                    self.i += 1;
                }
                (_, '`') => {
                    self.i += 1;
                    while let Some(c) = self.peek(0) {
                        self.i += if c == '\\' { 2 } else { 1 };
                        if c == '`' {
                            break;
                        }
                    }
                }
                (Ctx::Paren(_), '"') => {
                    stack.push(Ctx::Double);
                    self.i += 1;
                }
                (Ctx::Paren(n), '(') => {
                    *stack.last_mut().expect("non-empty") = Ctx::Paren(n + 1);
                    self.i += 1;
                }
                (Ctx::Paren(n), ')') => {
                    if n == 1 {
                        stack.pop();
                        if stack.is_empty() {
                            end = Some(self.i);
                        }
                    } else {
                        *stack.last_mut().expect("non-empty") = Ctx::Paren(n - 1);
                    }
                    self.i += 1;
                }
                (Ctx::Double, '"') => {
                    stack.pop();
                    self.i += 1;
                }
                (Ctx::Double, '$') if self.peek(1) == Some('(') => {
                    stack.push(Ctx::Paren(1));
                    self.i += 2;
                }
                _ => self.i += 1,
            }
        }
        self.i = self.i.min(self.s.len());
        let stop = end.unwrap_or(self.s.len());
        self.s[start..stop.max(start)].iter().collect()
    }

    /// The text of a `${ … }` up to its closing brace, which is consumed.
    fn brace_body(&mut self) -> String {
        let mut inner = String::new();
        let mut depth = 1usize;
        while let Some(c) = self.peek(0) {
            match c {
                '\\' => {
                    inner.push(c);
                    if let Some(n) = self.peek(1) {
                        inner.push(n);
                    }
                    self.i += 2;
                }
                '$' if self.peek(1) == Some('(') => {
                    self.i += 2;
                    let body = self.paren_body();
                    inner.push_str("$(");
                    inner.push_str(&body);
                    inner.push(')');
                }
                '{' => {
                    depth += 1;
                    inner.push(c);
                    self.i += 1;
                }
                '}' => {
                    self.i += 1;
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                    inner.push(c);
                }
                _ => {
                    inner.push(c);
                    self.i += 1;
                }
            }
        }
        self.i = self.i.min(self.s.len());
        inner
    }

    /// After an opening backtick: the command text up to the closing one (with `` \` ``, `\\` and `\$`
    /// unescaped, as the shell does), split as a nested line.
    fn backtick(&mut self, w: &mut String) {
        let mut inner = String::new();
        while let Some(c) = self.peek(0) {
            match c {
                '`' => {
                    self.i += 1;
                    break;
                }
                '\\' if matches!(self.peek(1), Some('`' | '\\' | '$')) => {
                    inner.extend(self.peek(1));
                    self.i += 2;
                }
                _ => {
                    inner.push(c);
                    self.i += 1;
                }
            }
        }
        self.sub_parse(&inner);
        w.push('`');
        w.push_str(&inner);
        w.push('`');
    }

    /// After `$'`: ANSI-C quoting, decoded.
    fn ansi_c(&mut self, w: &mut String) {
        while let Some(c) = self.peek(0) {
            self.i += 1;
            match c {
                '\'' => return,
                '\\' => {
                    let Some(e) = self.peek(0) else { return };
                    self.i += 1;
                    match e {
                        'a' => w.push('\u{7}'),
                        'b' => w.push('\u{8}'),
                        'e' | 'E' => w.push('\u{1b}'),
                        'f' => w.push('\u{c}'),
                        'n' => w.push('\n'),
                        'r' => w.push('\r'),
                        't' => w.push('\t'),
                        'v' => w.push('\u{b}'),
                        '\\' | '\'' | '"' | '?' => w.push(e),
                        '0'..='7' => {
                            let v = self.digits(e.to_digit(8).unwrap_or(0), 8, 2);
                            w.extend(char::from_u32(v));
                        }
                        'x' => self.escaped_code(w, 2),
                        'u' => self.escaped_code(w, 4),
                        'U' => self.escaped_code(w, 8),
                        'c' => {
                            if let Some(n) = self.peek(0) {
                                self.i += 1;
                                w.extend(char::from_u32(u32::from(n) & 0x1f));
                            }
                        }
                        other => {
                            w.push('\\');
                            w.push(other);
                        }
                    }
                }
                _ => w.push(c),
            }
        }
    }

    fn escaped_code(&mut self, w: &mut String, max: usize) {
        if self.peek(0).is_some_and(|c| c.is_ascii_hexdigit()) {
            let v = self.digits(0, 16, max);
            w.extend(char::from_u32(v));
        } else {
            w.push('\\');
            w.push(if max == 2 {
                'x'
            } else if max == 4 {
                'u'
            } else {
                'U'
            });
        }
    }

    /// Reads up to `max` more digits in `radix` onto `acc`.
    fn digits(&mut self, mut acc: u32, radix: u32, max: usize) -> u32 {
        for _ in 0..max {
            match self.peek(0).and_then(|c| c.to_digit(radix)) {
                Some(d) => {
                    acc = acc.saturating_mul(radix).saturating_add(d);
                    self.i += 1;
                }
                None => break,
            }
        }
        acc
    }
}

/// Splits `text` at the shell's command separators (`;`, `&`, `&&`, newline) outside quotes, keeping
/// pipes and parentheses inside a segment. SQL is judged per segment, so that a statement typed at a
/// SQL prompt (`;`-separated) and one handed to a client in a pipeline are both one segment.
pub(super) fn segments(text: &str) -> Vec<&str> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let (mut start, mut i) = (0, 0);
    while i < b.len() {
        match b[i] {
            b'\\' => i += 1,
            b'\'' => {
                i += 1;
                while i < b.len() && b[i] != b'\'' {
                    i += 1;
                }
            }
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b';' | b'&' | b'\n' => {
                out.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

/// Whether `text` defines a function and pipes it into itself or runs it twice in the background, the
/// shape of a fork bomb (`:(){ :|:& };:`, `bomb() { bomb | bomb & }; bomb`), whatever its name. Linear
/// in the length of `text`.
pub(super) fn fork_bomb(text: &str) -> bool {
    let c: Vec<char> = text.chars().collect();
    let name_char = |ch: char| !ch.is_whitespace() && !"(){};&|<>$'\"`".contains(ch);
    let skip_ws_back = |mut j: usize| {
        while j > 0 && c[j - 1].is_whitespace() {
            j -= 1;
        }
        j
    };
    let skip_ws = |mut j: usize| {
        while j < c.len() && c[j].is_whitespace() {
            j += 1;
        }
        j
    };
    let run_before = |end: usize| {
        let end = skip_ws_back(end);
        let mut j = end;
        while j > 0 && name_char(c[j - 1]) {
            j -= 1;
        }
        &c[j..end]
    };
    let run_after = |start: usize| {
        let start = skip_ws(start);
        let mut j = start;
        while j < c.len() && name_char(c[j]) {
            j += 1;
        }
        &c[start..j]
    };
    // Function names: `name() {`, `name() (`, `function name`.
    let mut names: std::collections::HashSet<&[char]> = std::collections::HashSet::new();
    for i in 0..c.len() {
        if c[i] == '(' {
            let close = skip_ws(i + 1);
            if c.get(close) == Some(&')') && matches!(c.get(skip_ws(close + 1)), Some('{' | '(')) {
                let name = run_before(i);
                if !name.is_empty() {
                    names.insert(name);
                }
            }
        }
        let keyword = ['f', 'u', 'n', 'c', 't', 'i', 'o', 'n'];
        if c[i..].starts_with(&keyword)
            && (i == 0 || !name_char(c[i - 1]))
            && c.get(i + keyword.len()).is_some_and(|ch| ch.is_whitespace())
        {
            let name = run_after(i + keyword.len());
            if !name.is_empty() {
                names.insert(name);
            }
        }
    }
    if names.is_empty() {
        return false;
    }
    // `name | name`, `name |& name`, `name & name`.
    (0..c.len()).any(|i| {
        if !matches!(c[i], '|' | '&') || (i > 0 && matches!(c[i - 1], '|' | '&')) {
            return false;
        }
        let after = if c.get(i + 1) == Some(&'&') { i + 2 } else { i + 1 };
        let left = run_before(i);
        !left.is_empty() && names.contains(left) && run_after(after) == left
    })
}

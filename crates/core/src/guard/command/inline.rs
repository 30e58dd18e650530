//! Code an interpreter runs from the command line itself: `python3 -c`, `perl -e`, `ruby -e`,
//! `node -e`/`--eval`/`-p`, `php -r`, `lua -e`, an awk program, and code here-stringed or piped into one
//! of them (`python3 <<< "…"`, `echo … | perl`). It is judged for the same effects as shell commands:
//! a call that deletes files or folders (`shutil.rmtree`, `unlink`, `FileUtils.rm_rf`, `fs.rmSync`…),
//! a call that runs a command line (`os.system`, `subprocess.run`, `system`, backticks, `execSync`…),
//! whose literal text is then judged as shell text like `bash -c`, and opening a file for writing
//! (`open(p, "w")`, `File.write`, `writeFileSync`, `file_put_contents`, awk's `print > "f"`), which is
//! judged like a `>` redirection onto that file.
//!
//! This reads code as text: a command line the code computes (`os.system(cmd)`) cannot be judged and is
//! refused as unknown, and code that hides its calls (`getattr(os, "re" + "move")`, `eval` of decoded
//! bytes) is beyond it, like a script file (`python3 cleanup.py`), which is never read.

/// An interpreter whose inline code is judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Lang {
    Python,
    Perl,
    Ruby,
    Node,
    Php,
    Lua,
    Awk,
}

/// What an interpreter invocation runs.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Runs {
    /// Code given on the command line (one piece per `-e`).
    Code(Lang, Vec<String>),
    /// A program read from standard input (a here-string or a pipe may carry it).
    Stdin(Lang),
}

/// What a piece of code does that the command guard judges.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Found {
    /// Deletes files or folders; the literal path when the call names one.
    Deletes(Option<String>),
    /// Runs this command line.
    Shell(String),
    /// Runs a command line the code computes.
    Computed,
    /// Opens this file for writing over it (None: a path the code computes).
    Writes(Option<String>),
}

/// The interpreter `name` (a normalised command word) and what it runs with `args`; None for other
/// commands and for interpreters running a script file or a module.
pub(super) fn invocation(name: &str, args: &[String]) -> Option<Runs> {
    let lang = lang_of(name)?;
    let mut codes = Vec::new();
    let mut i = 0;
    while let Some(a) = args.get(i) {
        i += 1;
        if a == "--" {
            break;
        }
        if a == "-" {
            return codes.is_empty().then_some(Runs::Stdin(lang));
        }
        if let Some(code) = long_code(lang, a, args.get(i)) {
            i += usize::from(!a.contains('='));
            codes.push(code);
            continue;
        }
        if a.starts_with("--") {
            continue;
        }
        if let Some(cluster) = a.strip_prefix('-') {
            match code_flag(lang, cluster) {
                // The flag ends the cluster: the code is the next word.
                Some("") => {
                    codes.push(args.get(i).cloned().unwrap_or_default());
                    i += 1;
                }
                Some(rest) => codes.push(rest.to_string()),
                None if takes_value(lang, cluster) => i += 1,
                None => {}
            }
            if lang == Lang::Python && !codes.is_empty() {
                // Python's -c ends the options: what follows is the code's own argv.
                break;
            }
            continue;
        }
        // The first operand: awk's program, or a script file the others run (not judged).
        if lang == Lang::Awk && codes.is_empty() {
            codes.push(a.clone());
        }
        break;
    }
    if !codes.is_empty() {
        return Some(Runs::Code(lang, codes));
    }
    // No code and no script: the program comes from standard input.
    let operand = args.iter().any(|a| !a.starts_with('-'));
    (!operand && lang != Lang::Awk).then_some(Runs::Stdin(lang))
}

fn lang_of(name: &str) -> Option<Lang> {
    let versioned =
        |base: &str| name.strip_prefix(base).is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'));
    Some(match name {
        _ if versioned("python") || versioned("pypy") => Lang::Python,
        _ if versioned("perl") => Lang::Perl,
        _ if versioned("ruby") => Lang::Ruby,
        "node" | "nodejs" | "bun" => Lang::Node,
        _ if versioned("php") => Lang::Php,
        _ if versioned("lua") || name == "luajit" => Lang::Lua,
        "awk" | "gawk" | "mawk" | "nawk" => Lang::Awk,
        _ => return None,
    })
}

/// `--eval CODE`, `--eval=CODE`, `--print CODE`, `--run CODE`, `--command CODE`.
fn long_code(lang: Lang, a: &str, next: Option<&String>) -> Option<String> {
    let names: &[&str] = match lang {
        Lang::Node => &["--eval", "--print"],
        Lang::Php => &["--run", "--process-code", "--process-begin", "--process-end"],
        Lang::Python => &["--command"],
        _ => &[],
    };
    names.iter().find_map(|n| match a.strip_prefix(n) {
        Some("") => Some(next.cloned().unwrap_or_default()),
        Some(rest) => rest.strip_prefix('=').map(str::to_string),
        None => None,
    })
}

/// In a cluster of short flags (`-ne`, `-Ic`), the flag that takes code: what follows it in the
/// cluster (empty: the code is the next word).
fn code_flag(lang: Lang, cluster: &str) -> Option<&str> {
    let flags: &[char] = match lang {
        Lang::Python => &['c'],
        Lang::Perl => &['e', 'E'],
        Lang::Ruby | Lang::Lua => &['e'],
        Lang::Node => &['e', 'p'],
        Lang::Php => &['r', 'B', 'R', 'E'],
        Lang::Awk => &[],
    };
    let at = cluster.find(flags)?;
    Some(&cluster[at + 1..])
}

/// Short options whose value is the next word (so it is not taken for a script or program).
fn takes_value(lang: Lang, cluster: &str) -> bool {
    let flags: &str = match lang {
        Lang::Python => "WXm",
        Lang::Perl => "IM",
        Lang::Ruby => "IrC",
        Lang::Node => "r",
        Lang::Php => "cdz",
        Lang::Lua => "l",
        Lang::Awk => "Fvf",
    };
    cluster.len() == 1 && flags.contains(cluster)
}

/// Calls that delete files or folders, by name (after a `.` or standing alone).
fn deleting_calls(lang: Lang) -> &'static [&'static str] {
    match lang {
        // `unlink`/`rmdir` cover os.unlink, Path.unlink and a bare imported unlink; a bare `remove` is
        // list.remove, so only os.remove counts.
        Lang::Python => &["rmtree", "os.remove", "unlink", "rmdir", "os.removedirs", "send2trash"],
        Lang::Perl => &["unlink", "rmdir", "rmtree", "remove_tree"],
        Lang::Ruby => &[
            "rm_rf",
            "rm_r",
            "rm_f",
            "FileUtils.rm",
            "FileUtils.remove",
            "remove_dir",
            "remove_entry",
            "remove_entry_secure",
            "File.delete",
            "File.unlink",
            "Dir.rmdir",
            "Dir.delete",
            "Dir.unlink",
            "rmtree",
        ],
        Lang::Node => &[".rm", "rmSync", ".rmdir", "rmdirSync", ".unlink", "unlinkSync", "rimraf"],
        Lang::Php => &["unlink", "rmdir"],
        Lang::Lua => &["os.remove"],
        Lang::Awk => &[],
    }
}

/// Calls that run a command line.
fn shell_calls(lang: Lang, code: &str) -> Vec<&'static str> {
    match lang {
        Lang::Python => {
            let mut v = vec!["system", "popen", "os.exec", "pty.spawn", "getoutput", "getstatusoutput"];
            if code.contains("subprocess") {
                v.extend([".run", ".call", ".check_call", ".check_output", "Popen"]);
            }
            v
        }
        Lang::Perl => vec!["system", "exec"],
        Lang::Ruby => vec!["system", "exec", "spawn", "IO.popen", "capture2", "capture2e", "capture3", "popen3"],
        Lang::Node if code.contains("child_process") => {
            vec!["exec", "execSync", "execFile", "execFileSync", "spawn", "spawnSync"]
        }
        Lang::Node => vec![],
        Lang::Php => vec!["system", "exec", "shell_exec", "passthru", "popen", "proc_open"],
        Lang::Lua => vec!["os.execute", "io.popen"],
        Lang::Awk => vec!["system"],
    }
}

/// Everything `code` in `lang` does that the command guard judges, in order of appearance.
pub(super) fn scan(lang: Lang, code: &str) -> Vec<Found> {
    let mut found: Vec<(usize, Found)> = Vec::new();
    for name in deleting_calls(lang) {
        for (at, args) in calls(code, name, lang) {
            found.push((at, Found::Deletes(args.into_iter().next())));
        }
    }
    for name in shell_calls(lang, code) {
        for (at, args) in calls(code, name, lang) {
            found.push((at, if args.is_empty() { Found::Computed } else { Found::Shell(join(&args)) }));
        }
    }
    // Backticks and %x{}/qx{} run their text as a command line.
    if matches!(lang, Lang::Perl | Lang::Ruby | Lang::Php) {
        for (at, text) in backticks(code) {
            found.push((at, Found::Shell(text)));
        }
    }
    for (at, path) in writes(lang, code) {
        found.push((at, Found::Writes(path)));
    }
    if lang == Lang::Awk {
        for (at, text) in awk_pipes(code) {
            found.push((at, Found::Shell(text)));
        }
    }
    found.sort_by_key(|(at, _)| *at);
    found.into_iter().map(|(_, f)| f).collect()
}

/// A command line from a call's literal arguments: one string is a shell line; several (an argv list)
/// are quoted back into one.
fn join(args: &[String]) -> String {
    match args {
        [one] => one.clone(),
        many => many.iter().map(|a| super::shell::requote(a)).collect::<Vec<_>>().join(" "),
    }
}

/// Each call of `name` in `code` (not part of a longer identifier; a leading `.` in `name` needs a
/// receiver before it), with where it is and its leading literal arguments (strings, and lists of
/// strings, up to the first argument that is not a literal).
fn calls(code: &str, name: &str, lang: Lang) -> Vec<(usize, Vec<String>)> {
    calls_raw(code, name, lang).into_iter().map(|(at, args)| (at, literal_args(args))).collect()
}

/// Like [`calls`], with the text after each call's opening parenthesis (or name) instead.
fn calls_raw<'c>(code: &'c str, name: &str, lang: Lang) -> Vec<(usize, &'c str)> {
    let ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let mut out = Vec::new();
    for (at, _) in code.match_indices(name) {
        let before = code[..at].chars().next_back();
        let starts_name = !name.starts_with('.');
        if starts_name && before.is_some_and(ident) {
            continue;
        }
        let rest = &code[at + name.len()..];
        // `os.exec` covers execv, execvp…: the name may go on with letters only there.
        let rest = if name == "os.exec" { rest.trim_start_matches(|c: char| c.is_ascii_alphabetic()) } else { rest };
        if rest.starts_with(|c: char| ident(c)) {
            continue;
        }
        let after = rest.trim_start();
        let paren = after.starts_with('(');
        // Perl and Ruby call without parentheses: `system "rm -rf x"`, `unlink glob "*.txt"`.
        let bare_call = matches!(lang, Lang::Perl | Lang::Ruby)
            && rest.starts_with(char::is_whitespace)
            && after.starts_with(|c: char| matches!(c, '"' | '\'' | '$' | '@') || c.is_alphanumeric());
        if !paren && !bare_call {
            continue;
        }
        out.push((at, if paren { &after[1..] } else { after }));
    }
    out
}

/// The leading literal arguments in `text` (just after a call's opening parenthesis).
fn literal_args(text: &str) -> Vec<String> {
    let mut args = Vec::new();
    let mut rest = text;
    loop {
        rest = rest.trim_start();
        if let Some(inner) = rest.strip_prefix('[') {
            // A list of strings: `["rm", "-rf", "x"]`.
            let mut items = Vec::new();
            let mut r = inner;
            loop {
                r = r.trim_start();
                match string_literal(r) {
                    Some((s, after)) => {
                        items.push(s);
                        r = after.trim_start();
                        r = r.strip_prefix(',').unwrap_or(r);
                    }
                    None => break,
                }
            }
            let Some(after) = r.trim_start().strip_prefix(']') else { break };
            args.extend(items);
            rest = after;
        } else if let Some((s, after)) = string_literal(rest) {
            args.push(s);
            rest = after;
        } else {
            break;
        }
        rest = rest.trim_start();
        match rest.strip_prefix(',') {
            Some(after) => rest = after,
            None => break,
        }
    }
    args
}

/// A string literal at the start of `text` (Python prefixes and triple quotes, `'`, `"`, JavaScript
/// template strings), unescaped, and what follows it.
fn string_literal(text: &str) -> Option<(String, &str)> {
    let t = text.trim_start_matches(['r', 'b', 'u', 'f', 'R', 'B', 'U', 'F']);
    let t = if t.len() < text.len() && !t.starts_with(['"', '\'']) { text } else { t };
    let quote = t.chars().next().filter(|c| matches!(c, '"' | '\'' | '`'))?;
    for triple in ["\"\"\"", "'''"] {
        if let Some(body) = t.strip_prefix(triple) {
            let end = body.find(triple)?;
            return Some((body[..end].to_string(), &body[end + 3..]));
        }
    }
    let body = &t[1..];
    let mut out = String::new();
    let mut chars = body.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some((_, 'n')) => out.push('\n'),
                Some((_, 't')) => out.push('\t'),
                Some((_, e)) => out.push(e),
                None => return None,
            },
            c if c == quote => return Some((out, &body[i + 1..])),
            c => out.push(c),
        }
    }
    None
}

/// Text run by backticks, `qx{…}`/`qx(…)` and `%x{…}`/`%x(…)`.
fn backticks(code: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(off) = code[i..].find('`') {
        let start = i + off;
        let Some(len) = code[start + 1..].find('`') else { break };
        out.push((start, code[start + 1..start + 1 + len].to_string()));
        i = start + len + 2;
    }
    for opener in ["qx", "%x"] {
        for (at, _) in code.match_indices(opener) {
            let rest = &code[at + opener.len()..];
            let close = match rest.chars().next() {
                Some('{') => '}',
                Some('(') => ')',
                Some('[') => ']',
                Some('|') => '|',
                _ => continue,
            };
            if let Some(end) = rest[1..].find(close) {
                out.push((at, rest[1..1 + end].to_string()));
            }
        }
    }
    out
}

/// Files opened for writing over them, with the literal path where the code gives one.
fn writes(lang: Lang, code: &str) -> Vec<(usize, Option<String>)> {
    let mut out = Vec::new();
    let literal = |args: &[String], i: usize| args.get(i).cloned();
    // A mode that truncates: "w", "wb", "w+", …
    let truncating = |m: &str| m.starts_with('w');
    match lang {
        Lang::Python => {
            for (at, args) in calls(code, "open", lang) {
                if args.get(1).is_some_and(|m| truncating(m)) || mode_keyword(code, at) {
                    out.push((at, literal(&args, 0)));
                }
            }
            for name in [".write_text", ".write_bytes"] {
                out.extend(calls(code, name, lang).into_iter().map(|(at, _)| (at, None)));
            }
        }
        Lang::Perl => {
            for (at, text) in calls_raw(code, "open", lang) {
                // open(F, ">file") or open(my $f, ">", "file"): the literals start after the handle.
                let Some((_, rest)) = text.split_once(',') else { continue };
                let args = literal_args(rest);
                let Some(mode) = args.first() else { continue };
                if mode.starts_with(">>") || !mode.starts_with('>') {
                    continue;
                }
                let inline = mode[1..].trim();
                let path = if inline.is_empty() { literal(&args, 1) } else { Some(inline.to_string()) };
                out.push((at, path));
            }
        }
        Lang::Ruby => {
            for (at, args) in calls(code, "File.write", lang) {
                out.push((at, literal(&args, 0)));
            }
            for (at, args) in calls(code, "File.open", lang) {
                if args.get(1).is_some_and(|m| truncating(m)) {
                    out.push((at, literal(&args, 0)));
                }
            }
        }
        Lang::Node => {
            for name in ["writeFileSync", "writeFile"] {
                out.extend(calls(code, name, lang).into_iter().map(|(at, args)| (at, literal(&args, 0))));
            }
        }
        Lang::Php => {
            for (at, args) in calls(code, "file_put_contents", lang) {
                if !code[at..].split(')').next().unwrap_or("").contains("FILE_APPEND") {
                    out.push((at, literal(&args, 0)));
                }
            }
            for (at, args) in calls(code, "fopen", lang) {
                if args.get(1).is_some_and(|m| truncating(m)) {
                    out.push((at, literal(&args, 0)));
                }
            }
        }
        Lang::Lua => {
            for (at, args) in calls(code, "io.open", lang) {
                if args.get(1).is_some_and(|m| truncating(m)) {
                    out.push((at, literal(&args, 0)));
                }
            }
        }
        Lang::Awk => {
            // print > "file" (">>" appends; `print | "cmd"` and `"cmd" | getline` are in `pipes`).
            let mut i = 0;
            while let Some(off) = code[i..].find('>') {
                let at = i + off;
                i = at + 1;
                if code[at + 1..].starts_with('>') || code[..at].ends_with('>') {
                    i += 1;
                    continue;
                }
                if let Some((path, _)) = string_literal(code[at + 1..].trim_start()) {
                    out.push((at, Some(path)));
                }
            }
        }
    }
    out
}

/// awk's command pipes: `print | "cmd"` and `"cmd" | getline`.
fn awk_pipes(code: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (at, _) in code.match_indices('|') {
        if let Some((cmd, _)) = string_literal(code[at + 1..].trim_start()) {
            out.push((at, cmd));
        }
        if code[at + 1..].trim_start().starts_with("getline") {
            let before = code[..at].trim_end();
            if let Some(open) = before.strip_suffix('"').and_then(|b| b.rfind('"')) {
                out.push((open, before[open + 1..before.len() - 1].to_string()));
            }
        }
    }
    out
}

/// `open(path, mode="w")` in Python.
fn mode_keyword(code: &str, at: usize) -> bool {
    let call = code[at..].split(')').next().unwrap_or("");
    call.split("mode").nth(1).is_some_and(|m| {
        let m = m.trim_start().strip_prefix('=').unwrap_or("").trim_start();
        string_literal(m).is_some_and(|(mode, _)| mode.starts_with('w'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invocations() {
        let code =
            |name: &str, args: &[&str]| invocation(name, &args.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(code("python3", &["-c", "print(1)"]), Some(Runs::Code(Lang::Python, vec!["print(1)".into()])));
        assert_eq!(code("python3.11", &["-Ic", "x"]), Some(Runs::Code(Lang::Python, vec!["x".into()])));
        assert_eq!(code("python", &["-cprint(2)"]), Some(Runs::Code(Lang::Python, vec!["print(2)".into()])));
        assert_eq!(code("python3", &["script.py", "-c", "x"]), None);
        assert_eq!(code("python3", &["-m", "http.server"]), None);
        assert_eq!(code("python3", &[]), Some(Runs::Stdin(Lang::Python)));
        assert_eq!(code("python3", &["-"]), Some(Runs::Stdin(Lang::Python)));
        assert_eq!(
            code("perl", &["-ne", "print", "-e", "unlink 'x'"])
                .map(|r| matches!(r, Runs::Code(Lang::Perl, ref c) if c.len() == 2)),
            Some(true)
        );
        assert_eq!(code("perl", &["-I", "lib", "-e", "1"]), Some(Runs::Code(Lang::Perl, vec!["1".into()])));
        assert_eq!(code("node", &["--eval=1+1"]), Some(Runs::Code(Lang::Node, vec!["1+1".into()])));
        assert_eq!(code("nodejs", &["-e", "x"]), Some(Runs::Code(Lang::Node, vec!["x".into()])));
        assert_eq!(code("php", &["-r", "x;"]), Some(Runs::Code(Lang::Php, vec!["x;".into()])));
        assert_eq!(code("gawk", &["-F", ":", "{print}", "f"]), Some(Runs::Code(Lang::Awk, vec!["{print}".into()])));
        assert_eq!(code("awk", &["-f", "prog.awk"]), None);
        assert_eq!(code("ls", &["-c", "x"]), None);
        assert_eq!(code("pythonista", &["-c", "x"]), None);
    }

    #[test]
    fn what_code_does() {
        use Found::*;
        let cases: &[(Lang, &str, &[Found])] = &[
            (Lang::Python, "import shutil; shutil.rmtree('victim')", &[Deletes(Some("victim".into()))]),
            (Lang::Python, "__import__('shutil').rmtree(\"/\")", &[Deletes(Some("/".into()))]),
            (Lang::Python, "import os; os.remove(p)", &[Deletes(None)]),
            (Lang::Python, "from pathlib import Path; Path('a').unlink()", &[Deletes(None)]),
            (Lang::Python, "import os; os.system('rm -rf victim')", &[Shell("rm -rf victim".into())]),
            (
                Lang::Python,
                "import subprocess; subprocess.run(['rm', '-rf', 'my dir'])",
                &[Shell("rm -rf 'my dir'".into())],
            ),
            (Lang::Python, "import subprocess as s; s.run(\"rm -r x\", shell=True)", &[Shell("rm -r x".into())]),
            (Lang::Python, "import os; os.system(cmd)", &[Computed]),
            (Lang::Python, "open('notes.txt', 'w').write('')", &[Writes(Some("notes.txt".into()))]),
            (Lang::Python, "open('notes.txt', mode='wb')", &[Writes(Some("notes.txt".into()))]),
            (Lang::Python, "print(open('notes.txt').read())", &[]),
            (Lang::Python, "l = [1, 2]; l.remove(1); print(sum(l))", &[]),
            (Lang::Python, "import shutil; print(shutil.disk_usage('/'))", &[]),
            (Lang::Perl, "system(\"rm -rf victim\")", &[Shell("rm -rf victim".into())]),
            (Lang::Perl, "system 'rm', '-r', 'victim'", &[Shell("rm -r victim".into())]),
            (Lang::Perl, "unlink glob '*.txt'", &[Deletes(None)]),
            (Lang::Perl, "print `rm -rf victim`", &[Shell("rm -rf victim".into())]),
            (Lang::Perl, "open(my $f, '>', 'notes.txt')", &[Writes(Some("notes.txt".into()))]),
            (Lang::Perl, "open(F, '>>log')", &[]),
            (Lang::Ruby, "require 'fileutils'; FileUtils.rm_rf('victim')", &[Deletes(Some("victim".into()))]),
            (Lang::Ruby, "%x{rm -rf victim}", &[Shell("rm -rf victim".into())]),
            (Lang::Node, "require('fs').rmSync('victim', {recursive: true})", &[Deletes(Some("victim".into()))]),
            (Lang::Node, "require('child_process').execSync('rm -rf victim')", &[Shell("rm -rf victim".into())]),
            (Lang::Node, "/a/.exec('abc')", &[]),
            (Lang::Php, "unlink('notes.txt');", &[Deletes(Some("notes.txt".into()))]),
            (Lang::Php, "echo shell_exec('rm -rf victim');", &[Shell("rm -rf victim".into())]),
            (Lang::Php, "file_put_contents('notes.txt', '');", &[Writes(Some("notes.txt".into()))]),
            (Lang::Lua, "os.execute('rm -rf victim')", &[Shell("rm -rf victim".into())]),
            (Lang::Awk, "BEGIN { system(\"rm -rf victim\") }", &[Shell("rm -rf victim".into())]),
            (Lang::Awk, "{ print > \"notes.txt\" }", &[Writes(Some("notes.txt".into()))]),
            (Lang::Awk, "{ print >> \"log\" } $1 > 5", &[]),
            (Lang::Awk, "{ print | \"sh\" }", &[Shell("sh".into())]),
            (Lang::Awk, "BEGIN { \"rm -rf victim\" | getline x }", &[Shell("rm -rf victim".into())]),
        ];
        for (lang, code, want) in cases {
            assert_eq!(&scan(*lang, code), want, "{lang:?}: {code}");
        }
    }
}

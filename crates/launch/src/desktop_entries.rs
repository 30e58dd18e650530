//! XDG desktop entries (`*.desktop` files): where they live, what they say, and which one a human name
//! means.
//!
//! Only what launching and naming need is parsed: the `[Desktop Entry]` group of `Type=Application`
//! entries with an `Exec` line. The format is a simple INI dialect (see the freedesktop "Desktop Entry
//! Specification"); parsing it here avoids a dependency.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use log::debug;

use crate::procs::{find_program, is_executable};

/// Bounds on scanning, so a huge or looping data dir cannot stall a call.
const MAX_DEPTH: usize = 4;
const MAX_FILES: usize = 5000;
const MAX_FILE_BYTES: u64 = 256 * 1024;

/// One application entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DesktopEntry {
    /// The desktop file id, e.g. `debian-xterm.desktop` (subdirectories joined with `-`).
    pub id: String,
    pub path: PathBuf,
    /// `Name` (unlocalised): the name handrail reports.
    pub name: String,
    /// `Name[xx]` values, so a user can name an app in their own language.
    pub localized_names: Vec<String>,
    /// `GenericName` and its localised values.
    pub generic_names: Vec<String>,
    /// `Keywords` (all locales).
    pub keywords: Vec<String>,
    /// The command line: program first, field codes removed.
    pub argv: Vec<String>,
    pub startup_wm_class: Option<String>,
    /// `TryExec`: the program whose presence says the app is installed.
    pub try_exec: Option<String>,
    /// `Terminal=true`: the program needs a terminal emulator around it.
    pub terminal: bool,
    /// `NoDisplay=true` or `Hidden=true`: only used when nothing visible matches.
    pub hidden: bool,
    /// `Path`: working directory.
    pub working_dir: Option<PathBuf>,
}

impl DesktopEntry {
    /// The file id without `.desktop`.
    pub fn stem(&self) -> &str {
        self.id.strip_suffix(".desktop").unwrap_or(&self.id)
    }

    /// Base name of the program the entry runs (`env VAR=x prog` looks through `env`).
    pub fn exec_basename(&self) -> Option<&str> {
        let mut args = self.argv.iter().map(String::as_str);
        let first = args.next()?;
        let program =
            if basename(first) == "env" { args.find(|a| !a.contains('=') && !a.starts_with('-'))? } else { first };
        Some(basename(program))
    }

    /// Whether the entry declares `class` in `StartupWMClass` (case-insensitively).
    pub fn declares_class(&self, class: &str) -> bool {
        self.startup_wm_class.as_deref().is_some_and(|wm| !class.is_empty() && eq(wm, class))
    }

    /// Whether an entry without `StartupWMClass` is probably the one behind `class`: its program or file
    /// name is the class (GTK and Qt derive the class from the program name).
    pub fn guesses_class(&self, class: &str) -> bool {
        let matches = |key: &str| !class.is_empty() && eq(key, class);
        self.startup_wm_class.is_none() && (self.exec_basename().is_some_and(matches) || matches(self.stem()))
    }
}

fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

fn eq(a: &str, b: &str) -> bool {
    a.to_lowercase() == b.to_lowercase()
}

/// The `applications` directories to scan, most important first: `$XDG_DATA_HOME` (default
/// `$HOME/.local/share`) then `$XDG_DATA_DIRS` (default `/usr/local/share:/usr/share`).
/// `var` looks a variable up in the environment launched apps get.
pub(crate) fn application_dirs(var: impl Fn(&str) -> Option<String>) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    let data_home = var("XDG_DATA_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| var("HOME").filter(|h| !h.is_empty()).map(|h| Path::new(&h).join(".local/share")));
    dirs.extend(data_home);
    let data_dirs =
        var("XDG_DATA_DIRS").filter(|v| !v.is_empty()).unwrap_or_else(|| "/usr/local/share:/usr/share".into());
    dirs.extend(data_dirs.split(':').filter(|d| !d.is_empty()).map(PathBuf::from));
    let mut seen = HashSet::new();
    dirs.into_iter().map(|d| d.join("applications")).filter(|d| seen.insert(d.clone())).collect()
}

/// Every usable application entry in `dirs` (earlier directories shadow later ones with the same id).
/// Entries whose program is not installed (`TryExec` or `Exec` not found on `path_var`) are left out.
pub(crate) fn load(dirs: &[PathBuf], path_var: Option<&str>) -> Vec<DesktopEntry> {
    let mut seen_ids = HashSet::new();
    let mut entries = Vec::new();
    let mut budget = MAX_FILES;
    for dir in dirs {
        let mut files = Vec::new();
        collect_files(dir, "", 0, &mut files, &mut budget);
        files.sort();
        for (id, path) in files {
            // Shadowing applies to unusable entries too: a user's Hidden=true copy hides the system one.
            if !seen_ids.insert(id.clone()) {
                continue;
            }
            let text = match read_small(&path) {
                Some(t) => t,
                None => continue,
            };
            match parse(&id, &path, &text) {
                Ok(Some(entry)) if installed(&entry, path_var) => entries.push(entry),
                Ok(_) => {}
                Err(why) => debug!("skipping desktop entry {}: {why}", path.display()),
            }
        }
    }
    entries
}

fn read_small(path: &Path) -> Option<String> {
    let meta = fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_FILE_BYTES {
        return None;
    }
    let bytes = fs::read(path).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

fn collect_files(dir: &Path, prefix: &str, depth: usize, out: &mut Vec<(String, PathBuf)>, budget: &mut usize) {
    let Ok(read) = fs::read_dir(dir) else { return };
    for item in read.flatten() {
        if *budget == 0 {
            return;
        }
        let name = item.file_name().to_string_lossy().into_owned();
        let path = item.path();
        // `metadata` follows symlinks (distributions symlink entries around).
        let Ok(meta) = fs::metadata(&path) else { continue };
        if meta.is_dir() && depth < MAX_DEPTH {
            collect_files(&path, &format!("{prefix}{name}-"), depth + 1, out, budget);
        } else if meta.is_file() && name.ends_with(".desktop") {
            *budget -= 1;
            out.push((format!("{prefix}{name}"), path));
        }
    }
}

/// Whether the entry's program exists: `TryExec` when given, else the `Exec` program.
fn installed(entry: &DesktopEntry, path_var: Option<&str>) -> bool {
    let program = entry.try_exec.as_deref().or(entry.argv.first().map(String::as_str));
    program.is_some_and(|p| resolve_program(p, path_var).is_some())
}

/// An absolute program path, or the first executable of that name on `path_var`.
pub(crate) fn resolve_program(program: &str, path_var: Option<&str>) -> Option<PathBuf> {
    if program.contains('/') {
        let p = PathBuf::from(program);
        return (p.is_absolute() && is_executable(&p)).then_some(p);
    }
    find_program(program, path_var)
}

/// `(key, raw value)` pairs of the `[Desktop Entry]` group.
fn group_lines(text: &str) -> impl Iterator<Item = (&str, &str)> {
    let mut in_group = false;
    text.lines().filter_map(move |line| {
        let line = line.trim();
        if line.starts_with('[') {
            in_group = line == "[Desktop Entry]";
            return None;
        }
        if !in_group || line.is_empty() || line.starts_with('#') {
            return None;
        }
        let (key, value) = line.split_once('=')?;
        Some((key.trim(), value.trim()))
    })
}

/// Parses one file. `Ok(None)`: a valid file that is not a launchable application (a link, a directory,
/// D-Bus activation only).
pub(crate) fn parse(id: &str, path: &Path, text: &str) -> Result<Option<DesktopEntry>, String> {
    let mut name = None;
    let mut kind = None;
    let mut exec = None;
    let mut entry = DesktopEntry {
        id: id.to_owned(),
        path: path.to_owned(),
        name: String::new(),
        localized_names: Vec::new(),
        generic_names: Vec::new(),
        keywords: Vec::new(),
        argv: Vec::new(),
        startup_wm_class: None,
        try_exec: None,
        terminal: false,
        hidden: false,
        working_dir: None,
    };
    for (key, value) in group_lines(text) {
        // `Name[th_TH]` → base key `Name`, localised.
        let (base, localized) = match key.split_once('[') {
            Some((base, _)) => (base, true),
            None => (key, false),
        };
        match (base, localized) {
            ("Name", false) => name = Some(unescape(value)),
            ("Name", true) => entry.localized_names.push(unescape(value)),
            ("GenericName", _) => entry.generic_names.push(unescape(value)),
            ("Keywords", _) => entry.keywords.extend(split_list(value)),
            ("Type", false) => kind = Some(value.to_owned()),
            ("Exec", false) => exec = Some(unescape(value)),
            ("StartupWMClass", false) => entry.startup_wm_class = Some(unescape(value)).filter(|v| !v.is_empty()),
            ("TryExec", false) => entry.try_exec = Some(unescape(value)).filter(|v| !v.is_empty()),
            ("Terminal", false) => entry.terminal = value == "true",
            ("NoDisplay" | "Hidden", false) => entry.hidden |= value == "true",
            ("Path", false) => entry.working_dir = Some(PathBuf::from(unescape(value))).filter(|p| p.is_absolute()),
            _ => {}
        }
    }
    if kind.as_deref() != Some("Application") {
        return Ok(None);
    }
    let Some(exec) = exec.filter(|e| !e.trim().is_empty()) else { return Ok(None) };
    entry.name = name.filter(|n| !n.is_empty()).ok_or("no Name")?;
    entry.argv = split_exec(&exec)?;
    if entry.argv.is_empty() {
        return Err("Exec has no program".into());
    }
    Ok(Some(entry))
}

/// The escapes of the spec's `string` type: `\s \n \t \r \\`.
fn unescape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('s') => out.push(' '),
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('\\') => out.push('\\'),
            // Not a string escape: kept for the next layer (lists use `\;`, Exec quoting uses `\"`).
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// A `;`-separated list (`\;` is a literal semicolon).
fn split_list(value: &str) -> Vec<String> {
    let mut items = Vec::new();
    let mut current = String::new();
    let mut chars = value.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&';') => {
                current.push(';');
                chars.next();
            }
            ';' => items.push(std::mem::take(&mut current)),
            _ => current.push(c),
        }
    }
    items.push(current);
    items.into_iter().map(|i| unescape(i.trim())).filter(|i| !i.is_empty()).collect()
}

/// Splits an (already string-unescaped) `Exec` value into arguments following the spec's quoting
/// rules, and removes field codes: launching never passes files or URLs, so `%f %F %u %U` expand to
/// nothing, and `%i %c %k` (icon, name, location) are dropped too; `%%` is a literal `%`.
pub(crate) fn split_exec(exec: &str) -> Result<Vec<String>, String> {
    let mut args = Vec::new();
    let mut current = String::new();
    let mut in_arg = false;
    let mut quoted = false;
    let mut chars = exec.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                quoted = !quoted;
                in_arg = true;
            }
            '\\' if quoted => match chars.next() {
                Some(e @ ('"' | '`' | '$' | '\\')) => current.push(e),
                Some(other) => {
                    current.push('\\');
                    current.push(other);
                }
                None => return Err("Exec ends in a backslash".into()),
            },
            ' ' | '\t' | '\n' if !quoted => {
                if in_arg {
                    push_arg(&mut args, std::mem::take(&mut current));
                    in_arg = false;
                }
            }
            _ => {
                current.push(c);
                in_arg = true;
            }
        }
    }
    if quoted {
        return Err("Exec has an unterminated quote".into());
    }
    if in_arg {
        push_arg(&mut args, current);
    }
    Ok(args)
}

/// Field codes (current and deprecated). An argument that is only a field code disappears.
const FIELD_CODES: &[char] = &['f', 'F', 'u', 'U', 'i', 'c', 'k', 'd', 'D', 'n', 'N', 'v', 'm'];

fn push_arg(args: &mut Vec<String>, raw: String) {
    if raw.len() == 2 && raw.starts_with('%') && raw[1..].starts_with(FIELD_CODES) {
        return;
    }
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match chars.peek() {
            Some('%') => {
                out.push('%');
                chars.next();
            }
            Some(code) if FIELD_CODES.contains(code) => {
                chars.next();
            }
            _ => out.push('%'),
        }
    }
    args.push(out);
}

/// How well a name matches an entry; higher is better, `None` when it does not match at all.
fn score(entry: &DesktopEntry, query: &str) -> Option<u32> {
    let is = |s: &str| s.to_lowercase() == query;
    let stem = entry.stem();
    // Vendor-prefixed ids ("debian-xterm", "org.gnome.Calculator") also match by their last part.
    let short_stem = stem.rsplit(['-', '.']).next().unwrap_or(stem);
    if is(&entry.name) {
        Some(100)
    } else if is(stem) {
        Some(90)
    } else if is(short_stem) {
        Some(85)
    } else if entry.exec_basename().is_some_and(is) {
        Some(80)
    } else if entry.localized_names.iter().any(|n| is(n)) {
        Some(75)
    } else if entry.startup_wm_class.as_deref().is_some_and(is) {
        Some(70)
    } else if entry.generic_names.iter().any(|n| is(n)) {
        Some(60)
    } else if entry.keywords.iter().any(|k| is(k)) {
        Some(40)
    } else if query.chars().count() >= 3 && word_prefix(&entry.name.to_lowercase(), query) {
        // "chromium web" → "Chromium Web Browser".
        Some(30)
    } else {
        None
    }
}

/// Whether `query` starts `text` or one of its words.
fn word_prefix(text: &str, query: &str) -> bool {
    text.match_indices(query).any(|(i, _)| i == 0 || text[..i].ends_with(|c: char| !c.is_alphanumeric()))
}

/// The entry a human name means: the best-scoring visible entry, or a hidden (`NoDisplay`/`Hidden`)
/// one only when no visible entry matches. Ties go to the earlier directory, then the file id.
pub(crate) fn find<'a>(entries: &'a [DesktopEntry], name: &str) -> Option<&'a DesktopEntry> {
    let query = name.trim().to_lowercase();
    if query.is_empty() {
        return None;
    }
    let mut best: Option<(bool, u32, usize, &DesktopEntry)> = None;
    for (order, entry) in entries.iter().enumerate() {
        let Some(s) = score(entry, &query) else { continue };
        let candidate = (!entry.hidden, s, order, entry);
        let better = match &best {
            None => true,
            // Lower `order` (earlier directory, then id) wins ties.
            Some(b) => (candidate.0, candidate.1, std::cmp::Reverse(candidate.2)) > (b.0, b.1, std::cmp::Reverse(b.2)),
        };
        if better {
            best = Some(candidate);
        }
    }
    best.map(|b| b.3)
}

/// The entry a window with this WM_CLASS belongs to. The class decides: first an entry declaring it in
/// `StartupWMClass`, then one whose program or file name it is; only then an entry whose
/// `StartupWMClass` is exactly the instance name. (The instance is usually the program name, which
/// several entries may share: `xterm -class FakeApp` is not "XTerm".) Visible entries are preferred.
pub(crate) fn for_class<'a>(entries: &'a [DesktopEntry], instance: &str, class: &str) -> Option<&'a DesktopEntry> {
    let pick = |owns: &dyn Fn(&DesktopEntry) -> bool| {
        let mut owners = entries.iter().filter(|e| owns(e));
        let first = owners.next()?;
        Some(if first.hidden { owners.find(|e| !e.hidden).unwrap_or(first) } else { first })
    };
    // Among guesses, the entry named after the class is the app itself, not one of its helpers
    // (`xfce4-terminal.desktop`, not `xfce4-terminal-settings.desktop`, which runs the same program;
    // `org.xfce.mousepad.desktop`, not `org.xfce.mousepad-settings.desktop`); else the one that runs
    // the program without options of its own (a helper passes one: `--preferences`).
    let named_after =
        |e: &DesktopEntry| eq(e.stem(), class) || e.stem().rsplit('.').next().is_some_and(|l| eq(l, class));
    let plain = |e: &DesktopEntry| e.argv.iter().skip(1).all(|a| a.starts_with('%'));
    pick(&|e| e.declares_class(class))
        .or_else(|| pick(&|e| e.guesses_class(class) && named_after(e)))
        .or_else(|| pick(&|e| e.guesses_class(class) && plain(e)))
        .or_else(|| pick(&|e| e.guesses_class(class)))
        .or_else(|| pick(&|e| !instance.is_empty() && e.startup_wm_class.as_deref() == Some(instance)))
}

/// Up to `limit` names close to `query` (edit distance, or one containing the other), best first.
pub(crate) fn close_matches(entries: &[DesktopEntry], query: &str, limit: usize) -> Vec<String> {
    let query = query.trim().to_lowercase();
    let q_len = query.chars().count();
    if q_len == 0 {
        return Vec::new();
    }
    let threshold = (q_len / 3).max(2);
    let mut scored: Vec<(usize, bool, String)> = Vec::new();
    for entry in entries {
        let keys = std::iter::once(entry.name.as_str())
            .chain(std::iter::once(entry.stem()))
            .chain(entry.exec_basename())
            .chain(entry.generic_names.iter().map(String::as_str))
            .chain(entry.localized_names.iter().map(String::as_str));
        let best = keys
            .map(|k| {
                let k = k.to_lowercase();
                if q_len >= 3 && k.chars().count() >= 3 && (k.contains(&query) || query.contains(&k)) {
                    1
                } else if common_prefix(&query, &k) >= 4 {
                    // "chrome" → "Chromium".
                    2
                } else {
                    edit_distance(&query, &k)
                }
            })
            .min();
        if let Some(d) = best.filter(|d| *d <= threshold) {
            scored.push((d, entry.hidden, entry.name.clone()));
        }
    }
    scored.sort();
    let mut seen = HashSet::new();
    scored.into_iter().map(|(_, _, n)| n).filter(|n| seen.insert(n.clone())).take(limit).collect()
}

fn common_prefix(a: &str, b: &str) -> usize {
    a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count()
}

/// Optimal-string-alignment distance: Levenshtein plus adjacent transpositions ("xtrem" → "xterm" is 1).
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Three rolling rows: i-2, i-1, i.
    let mut prev2 = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                cur[j] = cur[j].min(prev2[j - 2] + 1);
            }
        }
        std::mem::swap(&mut prev2, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str, text: &str) -> DesktopEntry {
        parse(id, Path::new("/x"), text).expect("parses").expect("is an application")
    }

    const XTERM: &str = "[Desktop Entry]\nName=XTerm\n#GenericName=Terminal\nExec=xterm\nType=Application\n\
                         Keywords=shell;prompt;command;commandline;cmd;\nStartupWMClass=XTerm\n";

    #[test]
    fn parses_the_entry_group_only() {
        let text = format!("{XTERM}Name[th]=เทอร์มินัล\n[Desktop Action New]\nName=New Window\nExec=xterm -e other\n");
        let e = entry("debian-xterm.desktop", &text);
        assert_eq!(e.name, "XTerm");
        assert_eq!(e.argv, ["xterm"]);
        assert_eq!(e.localized_names, ["เทอร์มินัล"]);
        assert_eq!(e.keywords, ["shell", "prompt", "command", "commandline", "cmd"]);
        assert_eq!(e.startup_wm_class.as_deref(), Some("XTerm"));
        assert_eq!(e.exec_basename(), Some("xterm"));
        assert!(!e.hidden && !e.terminal);
    }

    #[test]
    fn skips_non_applications() {
        let link = "[Desktop Entry]\nType=Link\nName=Site\nURL=https://example.com\n";
        assert_eq!(parse("a.desktop", Path::new("/x"), link), Ok(None));
        let dbus_only = "[Desktop Entry]\nType=Application\nName=Calc\nDBusActivatable=true\n";
        assert_eq!(parse("b.desktop", Path::new("/x"), dbus_only), Ok(None));
        assert!(parse("c.desktop", Path::new("/x"), "[Desktop Entry]\nType=Application\nExec=x\n").is_err());
    }

    #[test]
    fn exec_quoting_and_field_codes() {
        assert_eq!(split_exec("/usr/bin/chromium %U").unwrap(), ["/usr/bin/chromium"]);
        assert_eq!(split_exec("vim %F").unwrap(), ["vim"]);
        assert_eq!(split_exec("app --name=%c --icon %i %k").unwrap(), ["app", "--name=", "--icon"]);
        assert_eq!(split_exec("app 100%% done%u").unwrap(), ["app", "100%", "done"]);
        assert_eq!(
            split_exec(r#"sh -c "echo \"hi there\" \$HOME \\ \`x\`"  last"#).unwrap(),
            ["sh", "-c", r#"echo "hi there" $HOME \ `x`"#, "last"]
        );
        assert_eq!(split_exec(r#"a "" b"#).unwrap(), ["a", "", "b"]);
        assert!(split_exec(r#"a "open"#).is_err());
        // The string layer runs first: `\s` is a space inside one argument, `\\\\` one backslash.
        assert_eq!(split_exec(&unescape(r#""a\sb" "c\\\\d""#)).unwrap(), ["a b", r"c\d"]);
    }

    #[test]
    fn lists_and_escapes() {
        assert_eq!(split_list(r"a;b\;c;;d"), ["a", "b;c", "d"]);
        assert_eq!(unescape(r"x\sy\tz\\w\q"), "x y\tz\\w\\q");
    }

    #[test]
    fn finds_by_name_id_exec_keyword_and_prefers_visible() {
        let xterm = entry("debian-xterm.desktop", XTERM);
        let uxterm = entry(
            "debian-uxterm.desktop",
            "[Desktop Entry]\nName=UXTerm\nExec=uxterm\nType=Application\nKeywords=shell;\nStartupWMClass=UXTerm\n",
        );
        let demo = entry(
            "gtk3-demo.desktop",
            "[Desktop Entry]\nName=GTK+ Demo\nExec=gtk3-demo\nType=Application\nNoDisplay=true\n",
        );
        let browser = entry(
            "chromium.desktop",
            "[Desktop Entry]\nName=Chromium Web Browser\nGenericName=Web Browser\nExec=/usr/bin/chromium %U\n\
             Type=Application\nStartupWMClass=chromium\n",
        );
        let all = vec![uxterm, xterm, demo, browser];
        let name = |q: &str| find(&all, q).map(|e| e.name.clone());
        assert_eq!(name("XTerm").as_deref(), Some("XTerm"));
        assert_eq!(name("xterm").as_deref(), Some("XTerm"));
        assert_eq!(name(" uxterm ").as_deref(), Some("UXTerm"));
        assert_eq!(name("gtk3-demo").as_deref(), Some("GTK+ Demo"));
        assert_eq!(name("gtk+ demo").as_deref(), Some("GTK+ Demo"));
        assert_eq!(name("chromium").as_deref(), Some("Chromium Web Browser"));
        assert_eq!(name("web browser").as_deref(), Some("Chromium Web Browser"));
        assert_eq!(name("Chromium Web").as_deref(), Some("Chromium Web Browser"));
        assert_eq!(name("shell").as_deref(), Some("UXTerm"), "ties go to the earlier entry");
        assert_eq!(name("xtrem"), None);
        assert_eq!(name(""), None);

        // A visible entry beats a hidden one even when the hidden one matches better.
        let hidden_exact = entry(
            "xterm.desktop",
            "[Desktop Entry]\nName=xterm\nExec=xterm -class Hidden\nType=Application\nHidden=true\n",
        );
        let all2 = vec![hidden_exact, all[1].clone()];
        assert_eq!(find(&all2, "xterm").map(|e| e.id.as_str()), Some("debian-xterm.desktop"));

        assert_eq!(close_matches(&all, "xtrem", 5), ["XTerm", "UXTerm"]);
        assert_eq!(close_matches(&all, "chrome", 5), ["Chromium Web Browser"]);
        assert!(close_matches(&all, "qqqqzzzz", 5).is_empty());

        assert_eq!(for_class(&all, "xterm", "XTerm").map(|e| e.name.as_str()), Some("XTerm"));
        assert_eq!(
            for_class(&all, "chromium (/tmp/p)", "Chromium").map(|e| e.name.as_str()),
            Some("Chromium Web Browser")
        );
        assert_eq!(for_class(&all, "gtk3-demo", "Gtk3-demo").map(|e| e.name.as_str()), Some("GTK+ Demo"));
        assert_eq!(for_class(&all, "zenity", "Zenity"), None);

        // An entry that merely runs xterm does not claim windows whose class another entry declares.
        let note = entry("note.desktop", "[Desktop Entry]\nName=Note\nExec=xterm -T Note\nType=Application\n");
        let all3 = vec![note, all[0].clone(), all[1].clone()];
        assert_eq!(for_class(&all3, "xterm", "UXTerm").map(|e| e.name.as_str()), Some("UXTerm"));
        assert_eq!(for_class(&all3, "xterm", "XTerm").map(|e| e.name.as_str()), Some("XTerm"));
        assert_eq!(for_class(&all3[..1], "xterm", "XTerm").map(|e| e.name.as_str()), Some("Note"));

        // Two entries run the same program: the one named after the class is the app.
        let settings = entry(
            "xfce4-terminal-settings.desktop",
            "[Desktop Entry]\nName=Xfce Terminal Settings\nExec=xfce4-terminal --preferences\nType=Application\n",
        );
        let terminal = entry(
            "xfce4-terminal.desktop",
            "[Desktop Entry]\nName=Xfce Terminal\nExec=xfce4-terminal\nType=Application\n",
        );
        let all4 = vec![settings, terminal];
        let owner = for_class(&all4, "xfce4-terminal", "Xfce4-terminal").map(|e| e.name.as_str());
        assert_eq!(owner, Some("Xfce Terminal"));
        // Reverse-DNS names, the settings entry listed first (as Debian's mousepad installs them).
        let settings = entry(
            "org.xfce.mousepad-settings.desktop",
            "[Desktop Entry]\nName=Text Editor Settings\nExec=mousepad --preferences\nType=Application\n",
        );
        let editor =
            entry("org.xfce.mousepad.desktop", "[Desktop Entry]\nName=Mousepad\nExec=mousepad %U\nType=Application\n");
        let owner = for_class(&[settings.clone(), editor.clone()], "mousepad", "Mousepad").map(|e| e.name.clone());
        assert_eq!(owner.as_deref(), Some("Mousepad"));
        // Named after neither: the entry that runs the program without options of its own.
        let settings = DesktopEntry { id: "a-settings.desktop".into(), ..settings };
        let editor = DesktopEntry { id: "b-editor.desktop".into(), ..editor };
        let owner = for_class(&[settings, editor], "mousepad", "Mousepad").map(|e| e.name.clone());
        assert_eq!(owner.as_deref(), Some("Mousepad"));
        assert_eq!(for_class(&all3, "xterm", "FakeApp"), None);
    }

    #[test]
    fn osa_distance() {
        assert_eq!(edit_distance("xtrem", "xterm"), 1);
        assert_eq!(edit_distance("xtrem", "uxterm"), 2);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn dirs_follow_xdg_with_defaults() {
        let env = |k: &str| match k {
            "HOME" => Some("/h".to_owned()),
            _ => None,
        };
        assert_eq!(
            application_dirs(env),
            [
                PathBuf::from("/h/.local/share/applications"),
                PathBuf::from("/usr/local/share/applications"),
                PathBuf::from("/usr/share/applications")
            ]
        );
        let env = |k: &str| match k {
            "XDG_DATA_HOME" => Some("/d".to_owned()),
            "XDG_DATA_DIRS" => Some("/a::/usr/share:/a".to_owned()),
            _ => None,
        };
        assert_eq!(
            application_dirs(env),
            [
                PathBuf::from("/d/applications"),
                PathBuf::from("/a/applications"),
                PathBuf::from("/usr/share/applications")
            ]
        );
    }
}

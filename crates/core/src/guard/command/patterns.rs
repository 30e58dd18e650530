//! The rules: which simple commands (after wrappers are unwrapped) destroy something, and how badly.

use super::inline;
use super::shell::{self, RedirOp, Simple, MAX_DEPTH};
use super::sql;
use super::{clip, CommandFinding, CommandKind, FileWrite, Severity};
use handrail_platform::FileState;

use CommandKind::*;
use Severity::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Hit {
    pub rule: &'static str,
    pub severity: Severity,
    pub kind: CommandKind,
    pub effect: &'static str,
}

const fn hit(rule: &'static str, severity: Severity, kind: CommandKind, effect: &'static str) -> Hit {
    Hit { rule, severity, kind, effect }
}

const WHOLE_SYSTEM: &str = "deletes the whole system or a home directory";

const RM_ROOT: Hit = hit("recursive rm of / or home", Catastrophic, Delete, WHOLE_SYSTEM);
const RM_RECURSIVE: Hit = hit("recursive rm", Destructive, Delete, "deletes files and folders permanently");
const RM: Hit = hit("rm", Destructive, Delete, "deletes files permanently");
const RMDIR: Hit = hit("rmdir", Destructive, Delete, "removes directories");
const UNLINK: Hit = hit("unlink", Destructive, Delete, "deletes a file permanently");
const SHRED: Hit = hit("shred", Destructive, Delete, "overwrites files beyond recovery");
const SHRED_DEVICE: Hit = hit("shred of a device", Catastrophic, DiskWipe, "overwrites a whole disk beyond recovery");
const SRM: Hit = hit("srm", Destructive, Delete, "deletes files beyond recovery");
const FIND_DELETE: Hit = hit("find -delete", Destructive, Delete, "deletes every file it finds");
const FIND_DELETE_ROOT: Hit = hit("find -delete on / or home", Catastrophic, Delete, WHOLE_SYSTEM);
const MV_NULL: Hit = hit("mv to /dev/null", Destructive, Delete, "destroys the moved files");
const CRONTAB_R: Hit = hit("crontab -r", Destructive, Delete, "deletes every scheduled job");
const TRUNCATE: Hit = hit("truncate", Destructive, Overwrite, "cuts files to a new size, losing their contents");

const OVERWRITES_DISK: &str = "overwrites a disk, destroying everything on it";
const DD_DEVICE: Hit = hit("dd onto a device", Catastrophic, DiskWipe, OVERWRITES_DISK);
const DD_FILE: Hit = hit("dd onto a file", Risky, Overwrite, "replaces the file's contents if it exists");
const WRITE_DISK: Hit = hit("write onto a disk", Catastrophic, DiskWipe, OVERWRITES_DISK);
const REDIRECT_DISK: Hit = hit("redirection onto a disk", Catastrophic, DiskWipe, OVERWRITES_DISK);
const TRUNCATING_REDIRECT: Hit = hit("truncating redirection", Destructive, Overwrite, "empties the file");
const OVERWRITING_REDIRECT: Hit =
    hit("overwriting redirection", Risky, Overwrite, "replaces the file's contents if it exists");
const TEE_FILE: Hit = hit("tee onto a file", Risky, Overwrite, "replaces the file's contents if it exists");
const CP_ONTO_FILE: Hit = hit("cp onto an existing file", Risky, Overwrite, "replaces the file's contents");
const MV_ONTO_FILE: Hit = hit("mv onto an existing file", Risky, Overwrite, "replaces the file with another");

const GIT_RESET_HARD: Hit = hit("git reset --hard", Destructive, DiscardChanges, "discards uncommitted changes");
const GIT_CLEAN: Hit = hit("git clean -f", Destructive, DiscardChanges, "deletes untracked files");
const GIT_CHECKOUT_FILES: Hit =
    hit("git checkout of files", Destructive, DiscardChanges, "discards uncommitted changes to files");
const GIT_RESTORE: Hit = hit("git restore", Destructive, DiscardChanges, "discards uncommitted changes to files");
const GIT_STASH_DROP: Hit = hit("git stash drop", Destructive, DiscardChanges, "deletes stashed changes");
const GIT_STASH_CLEAR: Hit = hit("git stash clear", Destructive, DiscardChanges, "deletes every stashed change");
const GIT_BRANCH_D: Hit =
    hit("git branch -D", Destructive, RewriteHistory, "deletes a branch even if it is not merged");
const GIT_PUSH_FORCE: Hit = hit("git push --force", Destructive, RewriteHistory, "overwrites history on the remote");
const GIT_PUSH_DELETE: Hit =
    hit("git push --delete", Destructive, RewriteHistory, "deletes branches or tags on the remote");
const GIT_RM: Hit = hit("git rm", Destructive, Delete, "deletes files from the working tree");
const GIT_FILTER: Hit = hit("git filter-branch", Destructive, RewriteHistory, "rewrites the repository's history");

const KUBECTL_DELETE: Hit = hit("kubectl delete", Destructive, Containers, "deletes cluster resources");
const CONTAINER_RM: Hit = hit("docker/podman rm", Destructive, Containers, "deletes containers");
const CONTAINER_RMI: Hit = hit("docker/podman rmi", Destructive, Containers, "deletes images");
const CONTAINER_PRUNE: Hit =
    hit("docker/podman prune", Destructive, Containers, "deletes unused containers, images, networks or volumes");
const VOLUME_RM: Hit = hit("docker/podman volume rm", Destructive, Containers, "deletes volumes and their data");
const NETWORK_RM: Hit = hit("docker/podman network rm", Destructive, Containers, "deletes networks");
const COMPOSE_DOWN_VOLUMES: Hit =
    hit("docker compose down --volumes", Destructive, Containers, "deletes the project's volumes and their data");
const HELM_UNINSTALL: Hit = hit("helm uninstall", Destructive, Containers, "removes a release from the cluster");
const TERRAFORM_DESTROY: Hit = hit("terraform destroy", Destructive, Containers, "destroys managed infrastructure");

const CHMOD_SYSTEM_RECURSIVE: Hit = hit(
    "recursive chmod of / or a system directory",
    Catastrophic,
    Permissions,
    "changes permissions across the whole system",
);
const CHOWN_SYSTEM_RECURSIVE: Hit = hit(
    "recursive chown of / or a system directory",
    Catastrophic,
    Permissions,
    "changes ownership across the whole system",
);
const CHMOD_ZERO_SYSTEM: Hit = hit("chmod 000 of /", Catastrophic, Permissions, "locks everyone out of the system");
const CHMOD_SYSTEM: Hit =
    hit("chmod of / or a system directory", Destructive, Permissions, "changes the permissions of a system directory");
const CHOWN_SYSTEM: Hit =
    hit("chown of / or a system directory", Destructive, Permissions, "changes the owner of a system directory");
const CHMOD_HOME_RECURSIVE: Hit =
    hit("recursive chmod of home", Destructive, Permissions, "changes the permissions of every file at home");
const CHOWN_HOME_RECURSIVE: Hit =
    hit("recursive chown of home", Destructive, Permissions, "changes the owner of every file at home");
const CHMOD_ZERO_HOME: Hit =
    hit("chmod 000 of home", Destructive, Permissions, "locks the user out of their home directory");

const SHUTDOWN: Hit = hit("shutdown", Destructive, Power, "shuts the computer down");
const REBOOT: Hit = hit("reboot", Destructive, Power, "restarts the computer");
const POWEROFF: Hit = hit("poweroff", Destructive, Power, "turns the computer off");
const HALT: Hit = hit("halt", Destructive, Power, "halts the computer");
const INIT_0_6: Hit = hit("init 0 or 6", Destructive, Power, "shuts the computer down or restarts it");
const SYSTEMCTL_POWER: Hit =
    hit("systemctl poweroff or reboot", Destructive, Power, "shuts the computer down or restarts it");
const KILL_ALL: Hit = hit("kill -9 -1", Destructive, Power, "kills every process the user may signal");
const KILLALL5: Hit = hit("killall5", Destructive, Power, "kills every process");
const PKILL_USER: Hit = hit("pkill -u", Destructive, Power, "kills every process of a user");
pub(super) const FORK_BOMB: Hit =
    hit("fork bomb", Catastrophic, Power, "starts processes without end until the machine hangs");

const DROPDB: Hit = hit("dropdb", Destructive, Database, "deletes a database");
const DISK_ERASE: Hit = hit("disk erase", Catastrophic, DiskWipe, "erases a disk");
const VOLUME_DESTROY: Hit = hit("volume removal", Destructive, DiskWipe, "deletes storage volumes and their data");

const INLINE_DELETE: Hit = hit("file deletion in inline code", Destructive, Delete, "deletes files or folders");
const INLINE_DELETE_ROOT: Hit = hit("deletion of / or home in inline code", Catastrophic, Delete, WHOLE_SYSTEM);
const INLINE_WRITE: Hit =
    hit("file opened for writing in inline code", Risky, Overwrite, "replaces the file's contents if it exists");
const INLINE_COMPUTED: Hit = hit(
    "command computed in inline code",
    Destructive,
    Opaque,
    "runs a command line the code computes, which cannot be checked before it runs",
);
const UNKNOWN_COMMAND: Hit =
    hit("command name unknown until run", Destructive, Opaque, "runs a command whose name only the shell will know");
pub(super) const TOO_DEEP: Hit =
    hit("nesting too deep to judge", Destructive, Opaque, "hides commands too deeply nested to be checked");

fn sql_hit(rule: &'static str) -> Hit {
    let effect = match rule {
        "DELETE without WHERE" | "TRUNCATE TABLE" => "deletes every row of a table",
        "UPDATE without WHERE" => "rewrites every row of a table",
        "FLUSHALL" => "deletes every key",
        "dropDatabase()" | "DROP DATABASE" | "DROP SCHEMA" => "deletes a database and all its data",
        "DROP INDEX" | "DROP VIEW" | "DROP SEQUENCE" => "deletes a database object",
        _ => "deletes a table and its data",
    };
    hit(rule, Destructive, Database, effect)
}

/// Collects the findings of a line and of everything nested in it.
#[derive(Default)]
pub(super) struct Judge {
    pub findings: Vec<CommandFinding>,
    /// A command that changes the shell's directory came earlier in the line: relative paths after
    /// it cannot be resolved from the shell's current directory.
    pub moved: bool,
}

/// What a simple command turned out to run, once wrappers are unwrapped.
#[derive(Debug, PartialEq, Eq)]
enum Core {
    /// Nothing: only assignments and redirections (`> file`, `: > file` counts as this too).
    Empty,
    /// A command, by normalised name.
    Run(String),
    /// A shell reading its commands from standard input.
    ShellStdin,
    /// An interpreter reading its program from standard input.
    CodeStdin(inline::Lang),
    /// Something else that runs (a script, a lookup like `command -v`, a nested line already judged).
    Other,
}

enum Wrap<'a> {
    /// Not a wrapper.
    Not,
    /// A wrapper: the command it runs.
    Then(&'a [String]),
    /// Runs a line of shell text (`bash -c`, `eval`, `ssh host …`).
    Line(String),
    /// A shell reading standard input.
    Stdin,
    /// Runs something that cannot be judged from here, or nothing at all.
    Quiet,
}

impl Judge {
    pub fn push(&mut self, h: Hit, command: &str) {
        self.push_finding(h, command, None);
    }

    /// A finding about writing over the file at `path`: what it destroys depends on whether the file
    /// exists, which [`super::settle_files`] looks up later. `unknown_counts`: whether the command
    /// counts when that cannot be told.
    fn push_file(&mut self, h: Hit, command: &str, path: &str, unknown_counts: bool) {
        let file = FileWrite {
            path: path.to_string(),
            after_cd: self.moved && !path.starts_with('/') && !path.starts_with('~'),
            unknown_counts,
            state: FileState::Unknown,
        };
        self.push_finding(h, command, Some(file));
    }

    fn push_finding(&mut self, h: Hit, command: &str, file: Option<FileWrite>) {
        let command = clip(command.trim());
        let path = file.as_ref().map(|f| f.path.as_str());
        if self
            .findings
            .iter()
            .any(|f| f.rule == h.rule && f.command == command && f.file.as_ref().map(|f| f.path.as_str()) == path)
        {
            return;
        }
        self.findings.push(CommandFinding {
            rule: h.rule,
            severity: h.severity,
            kind: h.kind,
            command,
            effect: h.effect,
            file,
        });
    }

    /// Judges a line of shell text nested `depth` levels deep.
    pub fn line(&mut self, line: &str, depth: usize) {
        if depth > MAX_DEPTH {
            self.push(TOO_DEEP, line);
            return;
        }
        let parsed = shell::parse(line, depth);
        if parsed.too_deep {
            self.push(TOO_DEEP, line);
        }
        if shell::fork_bomb(line) {
            self.push(FORK_BOMB, line);
        }
        for segment in shell::segments(line) {
            for (rule, statement) in sql::scan(segment) {
                self.push(sql_hit(rule), &statement);
            }
        }
        for cmd in &parsed.commands {
            self.simple(cmd, &parsed.commands, depth);
        }
    }

    fn nested(&mut self, text: &str, shown: &str, depth: usize) {
        if depth >= MAX_DEPTH {
            self.push(TOO_DEEP, shown);
        } else {
            self.line(text, depth + 1);
        }
    }

    fn simple(&mut self, cmd: &Simple, all: &[Simple], depth: usize) {
        let shown = cmd.display();
        for w in &cmd.words {
            for (rule, statement) in sql::scan(w) {
                self.push(sql_hit(rule), &statement);
            }
        }
        let core = self.words(&cmd.words, &shown, depth);
        let stdin_text = || {
            let here = cmd.redirects.iter().filter(|r| r.op == RedirOp::HereString).map(|r| r.target.clone());
            let piped = cmd.pipe_from.and_then(|j| all.get(j)).and_then(|from| echoed(&from.words));
            here.chain(piped).collect::<Vec<_>>()
        };
        match core {
            Core::ShellStdin => {
                for text in stdin_text() {
                    self.nested(&text, &shown, depth);
                }
            }
            Core::CodeStdin(lang) => {
                for text in stdin_text() {
                    self.inline(lang, &text, &shown, depth);
                }
            }
            _ => {}
        }
        self.redirects(cmd, &core, &shown);
    }

    fn redirects(&mut self, cmd: &Simple, core: &Core, shown: &str) {
        for r in &cmd.redirects {
            use RedirOp::*;
            if !matches!(r.op, Write | Append | WriteBoth | AppendBoth | ReadWrite) || r.target.is_empty() {
                continue;
            }
            match dev_class(&r.target) {
                Dev::Safe => continue,
                Dev::Disk => {
                    self.push(REDIRECT_DISK, shown);
                    continue;
                }
                Dev::NotDevice => {}
            }
            if !matches!(r.op, Write | WriteBoth) {
                continue;
            }
            let bare = match core {
                Core::Empty => !cmd.group_output,
                Core::Run(name) => name == ":" || name == "true",
                _ => false,
            };
            self.push_file(if bare { TRUNCATING_REDIRECT } else { OVERWRITING_REDIRECT }, shown, &r.target, true);
        }
    }

    /// Judges code an interpreter runs (see `inline.rs`) as part of the command `shown`.
    fn inline(&mut self, lang: inline::Lang, code: &str, shown: &str, depth: usize) {
        for found in inline::scan(lang, code) {
            match found {
                inline::Found::Deletes(path) => {
                    let everything = path.as_deref().is_some_and(|p| root_kind(p).is_some());
                    self.push(if everything { INLINE_DELETE_ROOT } else { INLINE_DELETE }, shown);
                }
                inline::Found::Shell(line) => self.nested(&line, shown, depth),
                inline::Found::Computed => self.push(INLINE_COMPUTED, shown),
                // A path the code computes cannot be looked up (`$` keeps it from being tried).
                inline::Found::Writes(path) => {
                    let path = path.unwrap_or_else(|| "$(a path the code computes)".to_string());
                    self.push_file(INLINE_WRITE, shown, &path, true);
                }
            }
        }
    }

    /// Unwraps wrappers (`sudo`, `env`, `xargs`, …), judges the command they run and returns it.
    fn words(&mut self, words: &[String], shown: &str, depth: usize) -> Core {
        let mut w = words;
        loop {
            while w.first().is_some_and(|x| is_assignment(x)) {
                w = &w[1..];
            }
            let Some(first) = w.first() else { return Core::Empty };
            if computed_name(first) {
                self.push(UNKNOWN_COMMAND, shown);
                return Core::Other;
            }
            let name = command_name(first);
            let args = &w[1..];
            match wrapper(&name, args, depth) {
                Wrap::Then(rest) => {
                    w = rest;
                    continue;
                }
                Wrap::Line(text) => {
                    self.nested(&text, shown, depth);
                    return Core::Other;
                }
                Wrap::Stdin => return Core::ShellStdin,
                Wrap::Quiet => return Core::Other,
                Wrap::Not => {}
            }
            match inline::invocation(&name, args) {
                Some(inline::Runs::Code(lang, codes)) => {
                    for code in &codes {
                        self.inline(lang, code, shown, depth);
                    }
                    return Core::Other;
                }
                Some(inline::Runs::Stdin(lang)) => return Core::CodeStdin(lang),
                None => {}
            }
            for h in rules(&name, args) {
                self.push(h, shown);
            }
            for (h, path, unknown_counts) in file_writes(&name, args) {
                self.push_file(h, shown, path, unknown_counts);
            }
            if matches!(name.as_str(), "cd" | "pushd" | "popd" | "chdir") {
                self.moved = true;
            }
            if name == "find" {
                for group in exec_groups(args) {
                    if depth >= MAX_DEPTH {
                        self.push(TOO_DEEP, shown);
                    } else {
                        self.words(group, shown, depth + 1);
                    }
                }
            }
            return Core::Run(name);
        }
    }
}

/// The command word as the rules know it: its last path component, ASCII lower case (`/usr/bin/RM` is
/// `rm`: case-insensitive file systems run it).
pub(super) fn command_name(word: &str) -> String {
    word.rsplit('/').next().unwrap_or(word).to_ascii_lowercase()
}

/// A command word the shell computes (`$CMD`, `$(which rm)`, `` `echo rm` ``, `$HOME/bin/$TOOL`): what
/// it runs cannot be told from the text. A known name under a variable directory (`$HOME/bin/tool`) is
/// not computed.
fn computed_name(word: &str) -> bool {
    word.contains("$(") || word.contains('`') || word.rsplit('/').next().is_some_and(|base| base.contains('$'))
}

fn is_assignment(w: &str) -> bool {
    let Some((name, _)) = w.split_once('=') else { return false };
    let name = name.strip_suffix('+').unwrap_or(name);
    let name = match name.find('[') {
        Some(i) if name.ends_with(']') => &name[..i],
        _ => name,
    };
    name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// What `echo …` or `printf …` writes, for a shell that reads it from a pipe.
fn echoed(words: &[String]) -> Option<String> {
    let i = words.iter().position(|w| !is_assignment(w))?;
    let name = command_name(&words[i]);
    let mut args = &words[i + 1..];
    match name.as_str() {
        "echo" => {
            while args
                .first()
                .is_some_and(|a| a.len() > 1 && a.starts_with('-') && a[1..].chars().all(|c| "neE".contains(c)))
            {
                args = &args[1..];
            }
        }
        "printf" => {}
        _ => return None,
    }
    Some(args.join(" ").replace("\\n", "\n"))
}

const SHELLS: &[&str] =
    &["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "tcsh", "csh", "yash", "posh", "rbash"];

fn wrapper<'a>(name: &str, args: &'a [String], depth: usize) -> Wrap<'a> {
    let then = |rest: &'a [String]| Wrap::Then(rest);
    match name {
        "sudo" => {
            const LONG: &[&str] = &[
                "--close-from",
                "--chdir",
                "--group",
                "--host",
                "--prompt",
                "--chroot",
                "--role",
                "--type",
                "--command-timeout",
                "--other-user",
                "--user",
            ];
            let rest = skip_options(args, "CDghpRrtTUu", LONG);
            let opts = &args[..args.len() - rest.len()];
            if opts.iter().any(|a| a == "-e" || a == "--edit") {
                Wrap::Quiet
            } else {
                then(rest)
            }
        }
        "doas" => then(skip_options(args, "uC", &[])),
        "pkexec" => then(skip_options(args, "", &["--user"])),
        "run0" => then(skip_options(
            args,
            "uD",
            &[
                "--user",
                "--unit",
                "--property",
                "--description",
                "--slice",
                "--setenv",
                "--chdir",
                "--nice",
                "--machine",
            ],
        )),
        "env" => env(args),
        "nice" => then(skip_options(args, "n", &["--adjustment"])),
        "ionice" => then(skip_options(args, "cnpPu", &["--class", "--classdata", "--pid", "--pgid", "--uid"])),
        "nohup" | "builtin" | "unbuffer" | "chronic" | "setsid" | "catchsegv" => then(skip_options(args, "", &[])),
        "time" => then(skip_options(args, "fo", &["--format", "--output"])),
        "command" => {
            let opts = &args[..args.len() - skip_options(args, "", &[]).len()];
            if opts.iter().any(|a| a.contains('v') || a.contains('V')) {
                Wrap::Quiet
            } else {
                then(skip_options(args, "", &[]))
            }
        }
        "exec" => then(skip_options(args, "a", &[])),
        "timeout" => {
            let rest = skip_options(args, "sk", &["--signal", "--kill-after"]);
            then(rest.get(1..).unwrap_or(&[]))
        }
        "stdbuf" => then(skip_options(args, "ioe", &["--input", "--output", "--error"])),
        "xargs" => {
            let rest = skip_options(
                args,
                "adEILnPs",
                &[
                    "--arg-file",
                    "--delimiter",
                    "--eof",
                    "--max-lines",
                    "--max-args",
                    "--max-procs",
                    "--max-chars",
                    "--process-slot-var",
                ],
            );
            if rest.is_empty() {
                Wrap::Quiet
            } else {
                then(rest)
            }
        }
        "busybox" | "toybox" => then(args),
        "watch" => {
            let rest = skip_options(args, "n", &["--interval"]);
            let opts = &args[..args.len() - rest.len()];
            if rest.is_empty() {
                Wrap::Quiet
            } else if opts
                .iter()
                .any(|a| a == "--exec" || (a.starts_with('-') && !a.starts_with("--") && a.contains('x')))
            {
                then(rest)
            } else {
                Wrap::Line(rest.join(" "))
            }
        }
        "eval" if depth >= MAX_DEPTH => then(args),
        "eval" if args.is_empty() => Wrap::Quiet,
        "eval" => Wrap::Line(args.join(" ")),
        "su" => {
            for (i, a) in args.iter().enumerate() {
                if let Some(cmd) = a.strip_prefix("--command=") {
                    return Wrap::Line(cmd.to_string());
                }
                let short_c = a.starts_with('-') && !a.starts_with("--") && a.ends_with('c');
                if a == "--command" || short_c {
                    return args.get(i + 1).map_or(Wrap::Quiet, |c| Wrap::Line(c.clone()));
                }
            }
            Wrap::Quiet
        }
        "ssh" => {
            let rest = skip_options(args, "BbcDEeFIiJLlmOopQRSWw", &[]);
            match rest.get(1..) {
                Some(cmd) if !cmd.is_empty() => Wrap::Line(cmd.join(" ")),
                _ => Wrap::Quiet,
            }
        }
        _ if SHELLS.contains(&name) => shell_invocation(args),
        "source" | "." => Wrap::Quiet,
        _ => Wrap::Not,
    }
}

fn env(args: &[String]) -> Wrap<'_> {
    let mut i = 0;
    while let Some(a) = args.get(i) {
        let split = if a == "-S" || a == "--split-string" {
            i += 1;
            Some(args.get(i).cloned().unwrap_or_default())
        } else {
            a.strip_prefix("--split-string=").or_else(|| a.strip_prefix("-S")).map(str::to_string)
        };
        if let Some(s) = split {
            let rest: Vec<String> = args[i + 1..].iter().map(|w| shell::requote(w)).collect();
            return Wrap::Line(format!("{s} {}", rest.join(" ")));
        }
        match a.as_str() {
            "--" => {
                i += 1;
                break;
            }
            "-u" | "-C" | "--unset" | "--chdir" => i += 2,
            "-" => i += 1,
            _ if a.starts_with('-') => i += 1,
            _ => break,
        }
    }
    Wrap::Then(args.get(i..).unwrap_or(&[]))
}

fn shell_invocation(args: &[String]) -> Wrap<'_> {
    let mut i = 0;
    let mut has_c = false;
    while let Some(a) = args.get(i) {
        if a == "--" || a == "-" {
            i += 1;
            break;
        }
        if let Some(cmd) = a.strip_prefix("--command=") {
            return Wrap::Line(cmd.to_string());
        }
        if a == "--command" {
            return args.get(i + 1).map_or(Wrap::Quiet, |c| Wrap::Line(c.clone()));
        }
        if a.starts_with("--") {
            i += if a == "--rcfile" || a == "--init-file" { 2 } else { 1 };
            continue;
        }
        if a.starts_with('-') || a.starts_with('+') {
            let cluster = &a[1..];
            has_c |= a.starts_with('-') && cluster.contains('c');
            i += if cluster.ends_with('o') || cluster.ends_with('O') { 2 } else { 1 };
            continue;
        }
        break;
    }
    match (has_c, args.get(i)) {
        (true, Some(cmd)) => Wrap::Line(cmd.clone()),
        (true, None) => Wrap::Quiet,
        (false, Some(_)) => Wrap::Quiet,
        (false, None) => Wrap::Stdin,
    }
}

/// The arguments after a command's options: short options in `with_arg` and the long options listed
/// take the next word (unless attached), `--` ends the options, the first non-option word is kept.
fn skip_options<'a>(args: &'a [String], with_arg: &str, long_with_arg: &[&str]) -> &'a [String] {
    let mut i = 0;
    while let Some(a) = args.get(i) {
        if a == "--" {
            i += 1;
            break;
        }
        if !a.starts_with('-') || a == "-" {
            break;
        }
        if a.starts_with("--") {
            i += if long_with_arg.contains(&a.as_str()) { 2 } else { 1 };
            continue;
        }
        let cluster = &a[1..];
        let takes_next = cluster
            .char_indices()
            .find(|(_, c)| with_arg.contains(*c))
            .is_some_and(|(at, c)| at + c.len_utf8() == cluster.len());
        i += if takes_next { 2 } else { 1 };
    }
    args.get(i..).unwrap_or(&[])
}

/// The options before `--`.
fn options(args: &[String]) -> impl Iterator<Item = &str> {
    args.iter().map(String::as_str).take_while(|a| *a != "--").filter(|a| a.starts_with('-') && *a != "-")
}

fn short_has(args: &[String], c: char) -> bool {
    options(args).any(|a| !a.starts_with("--") && a[1..].contains(c))
}

fn long_has(args: &[String], name: &str) -> bool {
    options(args).any(|a| a == name || a.strip_prefix(name).is_some_and(|rest| rest.starts_with('=')))
}

/// The words that are not options (everything after `--`).
fn operands(args: &[String]) -> Vec<&str> {
    let mut out = Vec::new();
    let mut after = false;
    for a in args {
        if !after && a == "--" {
            after = true;
        } else if after || !a.starts_with('-') || a == "-" {
            out.push(a.as_str());
        }
    }
    out
}

/// `--help` or `--version` before the first operand: the command prints and does nothing else.
fn help_requested(args: &[String]) -> bool {
    for a in args {
        if a == "--help" || a == "--version" {
            return true;
        }
        if a == "--" || !a.starts_with('-') {
            return false;
        }
    }
    false
}

/// The command groups of `find … -exec cmd … ;` (also `-execdir`, `-ok`, `-okdir`, ending in `+`).
fn exec_groups(args: &[String]) -> Vec<&[String]> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        if matches!(args[i].as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
            let start = i + 1;
            let end = args[start..].iter().position(|a| a == ";" || a == "+").map_or(args.len(), |p| start + p);
            out.push(&args[start..end]);
            i = end;
        }
        i += 1;
    }
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum RootKind {
    /// `/` itself (also `/*`, `//`, `/.`).
    Root,
    /// A top-level system directory (`/usr`, `/etc`, …).
    System,
    /// A home directory (`~`, `$HOME`, `/home/x`).
    Home,
}

const SYSTEM_DIRS: &[&str] = &[
    "bin",
    "boot",
    "dev",
    "etc",
    "home",
    "lib",
    "lib32",
    "lib64",
    "libx32",
    "opt",
    "proc",
    "root",
    "run",
    "sbin",
    "srv",
    "sys",
    "usr",
    "var",
    "snap",
    "mnt",
    "media",
    "nix",
    "efi",
    "System",
    "Library",
    "Applications",
    "Users",
    "Volumes",
    "private",
    "cores",
];
const USR_DIRS: &[&str] = &["bin", "sbin", "lib", "lib32", "lib64", "libexec", "share", "include", "local"];

/// Whether `path`, as written, is the root, a system directory or a home directory (with any trailing
/// `/`, `/*`, `/.` or `/.*`, and `.`/`..` components resolved). Unknown values (`$DIR`, `$(pwd)`) and
/// relative paths are none of these.
pub(super) fn root_kind(path: &str) -> Option<RootKind> {
    let mut p = path;
    loop {
        let before = p.len();
        for suffix in ["/*", "/.*", "/."] {
            p = p.strip_suffix(suffix).unwrap_or(p);
        }
        p = p.trim_end_matches('/');
        if p.len() == before {
            break;
        }
    }
    let absolute = path.starts_with('/');
    let is_home = |c: &str| c.starts_with('~') || c == "$HOME" || (c.starts_with("${HOME") && c.ends_with('}'));
    let mut parts: Vec<&str> = Vec::new();
    for comp in p.split('/') {
        match comp {
            "" | "." => {}
            ".." => match parts.pop() {
                // Above a home directory: /home or /Users.
                Some(first) if parts.is_empty() && !absolute && is_home(first) => return Some(RootKind::System),
                None if !absolute => return None,
                _ => {}
            },
            c => parts.push(c),
        }
    }
    if !absolute {
        return match parts.as_slice() {
            [only] if is_home(only) => Some(RootKind::Home),
            _ => None,
        };
    }
    match parts.as_slice() {
        [] => Some(RootKind::Root),
        [top] if SYSTEM_DIRS.contains(top) => Some(RootKind::System),
        ["home" | "Users", _user] => Some(RootKind::Home),
        ["usr", dir] if USR_DIRS.contains(dir) => Some(RootKind::System),
        _ => None,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Dev {
    /// `/dev/null`, `/dev/stdout`, a terminal…: writing there destroys nothing.
    Safe,
    /// A disk, partition, memory device, or an unknown name under `/dev` (`/dev/$DISK`).
    Disk,
    /// Not under `/dev` (or an ordinary file there, like `/dev/shm/x`).
    NotDevice,
}

const SAFE_DEVICES: &[&str] = &[
    "null", "zero", "full", "random", "urandom", "stdin", "stdout", "stderr", "tty", "console", "ptmx", "fd/", "pts/",
    "tcp/", "udp/",
];
const DISK_PREFIXES: &[&str] = &[
    "sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "rdisk", "mapper/", "md", "dm-", "loop", "nbd", "rbd", "sr",
    "mem", "kmem", "port", "root", "zd", "zvol/", "block/", "bcache", "drbd", "mtd", "ubi", "cciss/", "vg", "emmc",
];

pub(super) fn dev_class(path: &str) -> Dev {
    let mut p = path.to_string();
    while p.contains("//") {
        p = p.replace("//", "/");
    }
    let Some(name) = p.strip_prefix("/dev/") else { return Dev::NotDevice };
    if SAFE_DEVICES.iter().any(|s| name == *s || (s.ends_with('/') && name.starts_with(s))) {
        Dev::Safe
    } else if name.is_empty()
        || DISK_PREFIXES.iter().any(|d| name.starts_with(d))
        || name.starts_with(['$', '`', '*', '?', '['])
    {
        Dev::Disk
    } else {
        Dev::NotDevice
    }
}

/// The rules for one command (after unwrapping), by normalised name.
fn rules(name: &str, args: &[String]) -> Vec<Hit> {
    let one = |h: Hit| vec![h];
    let none = Vec::new;
    match name {
        "rm" | "grm" => {
            if help_requested(args) {
                return none();
            }
            let recursive = short_has(args, 'r') || short_has(args, 'R') || long_has(args, "--recursive");
            let everything =
                long_has(args, "--no-preserve-root") || operands(args).iter().any(|t| root_kind(t).is_some());
            one(match (recursive, everything) {
                (true, true) => RM_ROOT,
                (true, false) => RM_RECURSIVE,
                _ => RM,
            })
        }
        "rmdir" if !help_requested(args) => one(RMDIR),
        "unlink" if !help_requested(args) => one(UNLINK),
        "shred" | "gshred" if !help_requested(args) => {
            let device = operands(args).iter().any(|t| t.starts_with("/dev/") && dev_class(t) != Dev::Safe);
            one(if device { SHRED_DEVICE } else { SHRED })
        }
        "srm" if !help_requested(args) => one(SRM),
        "find" => find(args),
        "dd" => args
            .iter()
            .filter_map(|a| a.strip_prefix("of="))
            .filter_map(|t| (dev_class(t) == Dev::Disk).then_some(DD_DEVICE))
            .take(1)
            .collect(),
        "truncate" | "gtruncate" if !help_requested(args) => one(TRUNCATE),
        "mv" | "gmv" => {
            let ops = operands(args);
            let target = target_directory(args).or(ops.last().copied());
            if ops.len() + usize::from(target_directory(args).is_some()) >= 2
                && target.is_some_and(|t| t == "/dev/null")
            {
                one(MV_NULL)
            } else {
                none()
            }
        }
        "cp" | "gcp" | "install" => {
            let target = target_directory(args).or(operands(args).last().copied());
            if target.is_some_and(|t| dev_class(t) == Dev::Disk) {
                one(WRITE_DISK)
            } else {
                none()
            }
        }
        "tee" if operands(args).iter().any(|t| dev_class(t) == Dev::Disk) => one(WRITE_DISK),
        "crontab" if short_has(args, 'r') => one(CRONTAB_R),
        "git" => git(args),
        "kubectl" | "oc" | "microk8s.kubectl" => kubectl(args),
        "docker" | "podman" | "nerdctl" => containers(args),
        "docker-compose" | "podman-compose" => compose(args),
        "helm" => helm(args),
        "terraform" | "tofu" | "terragrunt" => terraform(args),
        "chmod" | "chown" | "chgrp" => permissions(name, args),
        "shutdown" if !help_requested(args) && !args.iter().any(|a| a == "-c") => one(SHUTDOWN),
        "reboot" if !help_requested(args) => one(REBOOT),
        "poweroff" if !help_requested(args) => one(POWEROFF),
        "halt" if !help_requested(args) => one(HALT),
        "init" | "telinit" if operands(args).first().is_some_and(|a| *a == "0" || *a == "6") => one(INIT_0_6),
        "systemctl" | "loginctl" => {
            const POWER: &[&str] = &["poweroff", "reboot", "halt", "kexec", "soft-reboot", "rescue", "emergency"];
            let power = operands(args).iter().any(|a| POWER.contains(&a.strip_suffix(".target").unwrap_or(a)));
            if power && !help_requested(args) {
                one(SYSTEMCTL_POWER)
            } else {
                none()
            }
        }
        "kill" => kill(args),
        "killall5" => one(KILLALL5),
        "pkill" | "killall" if short_has(args, 'u') || long_has(args, "--user") => one(PKILL_USER),
        "dropdb" if !help_requested(args) => one(DROPDB),
        "mysqladmin" if operands(args).iter().any(|a| a.eq_ignore_ascii_case("drop")) => one(DROPDB),
        "diskutil" => {
            let erase = operands(args).iter().any(|a| {
                let a = a.to_ascii_lowercase();
                a.starts_with("erase")
                    || a.starts_with("secureerase")
                    || matches!(a.as_str(), "zerodisk" | "randomdisk" | "partitiondisk" | "reformat")
            });
            if erase {
                one(DISK_ERASE)
            } else {
                none()
            }
        }
        "cryptsetup" => {
            let erase = operands(args)
                .iter()
                .any(|a| matches!(a.to_ascii_lowercase().as_str(), "luksformat" | "erase" | "lukserase"));
            if erase {
                one(DISK_ERASE)
            } else {
                none()
            }
        }
        "lvremove" | "vgremove" | "pvremove" if !help_requested(args) => one(VOLUME_DESTROY),
        "zfs" | "zpool" if operands(args).first().is_some_and(|a| *a == "destroy" || *a == "labelclear") => {
            one(VOLUME_DESTROY)
        }
        _ => disk_tool(name, args),
    }
}

/// Files a command writes over (not devices): `dd of=`, `tee` without `-a`, and the destination of
/// a `cp`/`mv`/`install` of one file that may replace what is there. With whether the command counts
/// when the file's existence cannot be told: `dd` and `tee` do (they say so with a file operand), a
/// copy or move does not (most copies make new files).
fn file_writes<'a>(name: &str, args: &'a [String]) -> Vec<(Hit, &'a str, bool)> {
    let files = |targets: Vec<&'a str>, h: Hit, unknown_counts: bool| {
        targets.into_iter().filter(|t| dev_class(t) == Dev::NotDevice).map(|t| (h, t, unknown_counts)).collect()
    };
    match name {
        "dd" => files(args.iter().filter_map(|a| a.strip_prefix("of=")).take(1).collect(), DD_FILE, true),
        "tee" if !(short_has(args, 'a') || long_has(args, "--append") || help_requested(args)) => {
            files(operands(args), TEE_FILE, true)
        }
        "cp" | "gcp" | "install" | "mv" | "gmv" => {
            // Options that leave an existing destination alone (or keep a backup of it).
            let keeps = short_has(args, 'n')
                || short_has(args, 'i')
                || short_has(args, 'b')
                || ["--no-clobber", "--interactive", "--backup", "--attributes-only"].iter().any(|l| long_has(args, l))
                || options(args).any(|a| a.starts_with("--update=none"));
            let ops = operands(args);
            let dest = ops.last().copied().filter(|_| ops.len() == 2 && target_directory(args).is_none());
            match dest {
                Some(d) if !keeps && !help_requested(args) && !d.ends_with('/') && d != "/dev/null" => {
                    let h = if name.ends_with("mv") { MV_ONTO_FILE } else { CP_ONTO_FILE };
                    files(vec![d], h, false)
                }
                _ => Vec::new(),
            }
        }
        _ => Vec::new(),
    }
}

fn target_directory(args: &[String]) -> Option<&str> {
    let mut it = args.iter().take_while(|a| *a != "--");
    while let Some(a) = it.next() {
        if a == "-t" || a == "--target-directory" {
            return it.next().map(String::as_str);
        }
        if let Some(t) = a.strip_prefix("--target-directory=") {
            return Some(t);
        }
    }
    None
}

fn find(args: &[String]) -> Vec<Hit> {
    if !args.iter().any(|a| a == "-delete") {
        return Vec::new();
    }
    let mut i = 0;
    while let Some(a) = args.get(i) {
        match a.as_str() {
            "-H" | "-L" | "-P" => i += 1,
            "-D" => i += 2,
            _ if a.starts_with("-O") => i += 1,
            _ => break,
        }
    }
    let paths = args[i.min(args.len())..].iter().take_while(|a| !a.starts_with('-') && *a != "(" && *a != "!");
    let everything = paths.into_iter().any(|p| root_kind(p).is_some());
    vec![if everything { FIND_DELETE_ROOT } else { FIND_DELETE }]
}

/// Formatting, wiping and partitioning tools: catastrophic on a device, destructive on anything else
/// that is named (a disk image, or an unknown `$DEV`).
fn disk_tool(name: &str, args: &[String]) -> Vec<Hit> {
    const MKFS: (Hit, Hit) = (
        hit("mkfs", Catastrophic, DiskWipe, "formats a disk, erasing everything on it"),
        hit("mkfs on a file", Destructive, DiskWipe, "formats a disk image, erasing its contents"),
    );
    const WIPEFS: (Hit, Hit) = (
        hit("wipefs", Catastrophic, DiskWipe, "erases a disk's file system signatures"),
        hit("wipefs on a file", Destructive, DiskWipe, "erases a disk image's file system signatures"),
    );
    const BLKDISCARD: (Hit, Hit) = (
        hit("blkdiscard", Catastrophic, DiskWipe, "discards every block of a disk"),
        hit("blkdiscard on a file", Destructive, DiskWipe, "discards the blocks of a file"),
    );
    const PARTITION: (Hit, Hit) = (
        hit("partitioning a disk", Catastrophic, DiskWipe, "rewrites a disk's partition table"),
        hit("partitioning a disk image", Destructive, DiskWipe, "rewrites a disk image's partition table"),
    );
    let mkfs = name == "mkfs"
        || name.starts_with("mkfs.")
        || name.starts_with("newfs")
        || matches!(name, "mke2fs" | "mkswap" | "mkdosfs" | "mkntfs" | "mkexfatfs" | "mkfs_msdos");
    let (hits, readonly) = if mkfs {
        (MKFS, false)
    } else {
        match name {
            "wipefs" => (WIPEFS, short_has(args, 'n') || long_has(args, "--no-act") || !has_erase_flag(args)),
            "blkdiscard" => (BLKDISCARD, false),
            "fdisk" | "sfdisk" | "gdisk" | "cfdisk" | "cgdisk" => (PARTITION, partition_listing(args)),
            "sgdisk" => (PARTITION, sgdisk_readonly(args)),
            "parted" => (PARTITION, parted_readonly(args)),
            _ => return Vec::new(),
        }
    };
    if readonly || help_requested(args) || args.iter().any(|a| a == "-V" || a == "--version") {
        return Vec::new();
    }
    let ops = operands(args);
    if ops.iter().any(|t| t.starts_with("/dev/") && dev_class(t) != Dev::Safe) {
        vec![hits.0]
    } else if ops.is_empty() {
        Vec::new()
    } else {
        vec![hits.1]
    }
}

/// `wipefs` only erases with `-a`, `-o` or their long forms; otherwise it lists.
fn has_erase_flag(args: &[String]) -> bool {
    short_has(args, 'a') || short_has(args, 'o') || long_has(args, "--all") || long_has(args, "--offset")
}

fn partition_listing(args: &[String]) -> bool {
    short_has(args, 'l')
        || long_has(args, "--list")
        || long_has(args, "--dump")
        || short_has(args, 'd') && args.len() <= 2
}

fn sgdisk_readonly(args: &[String]) -> bool {
    const READ: &[&str] = &["-p", "--print", "-v", "--verify", "-O", "--print-mbr", "-i", "--info", "-P", "--pretend"];
    options(args).all(|a| READ.iter().any(|r| a == *r || a.starts_with(&format!("{r}="))))
        && options(args).next().is_some()
}

fn parted_readonly(args: &[String]) -> bool {
    const READ: &[&str] = &[
        "print", "p", "unit", "s", "b", "kb", "mb", "gb", "tb", "kib", "mib", "gib", "compact", "chs", "cyl", "%",
        "free", "list", "all", "help",
    ];
    if short_has(args, 'l') || long_has(args, "--list") {
        return true;
    }
    let ops = operands(args);
    ops.len() >= 2 && ops[1..].iter().all(|a| READ.contains(&a.to_ascii_lowercase().as_str()))
}

fn git(args: &[String]) -> Vec<Hit> {
    let mut i = 0;
    while let Some(a) = args.get(i) {
        if !a.starts_with('-') {
            break;
        }
        const WITH_ARG: &[&str] =
            &["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env"];
        i += if WITH_ARG.contains(&a.as_str()) { 2 } else { 1 };
    }
    let Some(sub) = args.get(i) else { return Vec::new() };
    let rest = &args[i + 1..];
    if help_requested(rest) || rest.first().is_some_and(|a| a == "-h") {
        return Vec::new();
    }
    let has = |flag: &str| rest.iter().take_while(|a| *a != "--").any(|a| a == flag);
    let hit = match sub.as_str() {
        "reset" if has("--hard") => Some(GIT_RESET_HARD),
        "clean" => {
            let force = short_has(rest, 'f') || long_has(rest, "--force");
            let dry = short_has(rest, 'n') || long_has(rest, "--dry-run");
            (force && !dry).then_some(GIT_CLEAN)
        }
        "checkout" => checkout_discards(rest).then_some(GIT_CHECKOUT_FILES),
        "restore" => {
            let staged = short_has(rest, 'S') || long_has(rest, "--staged");
            let worktree = short_has(rest, 'W') || long_has(rest, "--worktree");
            (!staged || worktree).then_some(GIT_RESTORE)
        }
        "stash" => match operands(rest).first().copied() {
            Some("drop") => Some(GIT_STASH_DROP),
            Some("clear") => Some(GIT_STASH_CLEAR),
            _ => None,
        },
        "branch" => {
            let delete = short_has(rest, 'd') || long_has(rest, "--delete");
            let force = short_has(rest, 'f') || long_has(rest, "--force");
            (short_has(rest, 'D') || (delete && force)).then_some(GIT_BRANCH_D)
        }
        "push" => {
            let ops = operands(rest);
            let force = short_has(rest, 'f')
                || long_has(rest, "--force")
                || options(rest).any(|a| a.starts_with("--force-with-lease") || a == "--mirror")
                || ops.iter().any(|r| r.starts_with('+') || r.contains(":+") || r.contains(" +"));
            let delete = short_has(rest, 'd')
                || long_has(rest, "--delete")
                || long_has(rest, "--prune")
                || ops.iter().any(|r| r.len() > 1 && r.starts_with(':'));
            if force {
                Some(GIT_PUSH_FORCE)
            } else {
                delete.then_some(GIT_PUSH_DELETE)
            }
        }
        "rm" => {
            let cached = long_has(rest, "--cached");
            let dry = short_has(rest, 'n') || long_has(rest, "--dry-run");
            (!cached && !dry).then_some(GIT_RM)
        }
        "filter-branch" | "filter-repo" => Some(GIT_FILTER),
        _ => None,
    };
    hit.into_iter().collect()
}

/// `git checkout` that overwrites files with their committed version, rather than switching branches.
fn checkout_discards(rest: &[String]) -> bool {
    if let Some(p) = rest.iter().position(|a| a == "--") {
        if p + 1 < rest.len() {
            return true;
        }
    }
    if short_has(rest, 'f') || long_has(rest, "--force") {
        return true;
    }
    let mut it = rest.iter().take_while(|a| *a != "--");
    while let Some(a) = it.next() {
        if matches!(a.as_str(), "-b" | "-B" | "--orphan" | "--conflict") {
            it.next();
            continue;
        }
        if a.starts_with('-') {
            continue;
        }
        if a == "." || a == ":/" || a.contains('*') || a.ends_with('/') || a.starts_with("./") || a.starts_with("../") {
            return true;
        }
    }
    false
}

/// The first word after a tool's global options, and the rest; `with_arg` lists the options that take
/// the next word.
fn subcommand<'a>(args: &'a [String], with_arg: &[&str]) -> Option<(&'a str, &'a [String])> {
    let mut i = 0;
    while let Some(a) = args.get(i) {
        if !a.starts_with('-') {
            return Some((a.as_str(), &args[i + 1..]));
        }
        i += if with_arg.contains(&a.as_str()) { 2 } else { 1 };
    }
    None
}

fn dry_run(args: &[String]) -> bool {
    options(args).any(|a| a == "--dry-run" || a.strip_prefix("--dry-run=").is_some_and(|v| v != "none"))
}

fn kubectl(args: &[String]) -> Vec<Hit> {
    const WITH_ARG: &[&str] = &[
        "-n",
        "--namespace",
        "--context",
        "--cluster",
        "--user",
        "--kubeconfig",
        "-s",
        "--server",
        "--token",
        "--as",
        "--as-group",
        "--request-timeout",
        "--certificate-authority",
        "--client-key",
        "--client-certificate",
        "--cache-dir",
        "--tls-server-name",
        "-v",
    ];
    match subcommand(args, WITH_ARG) {
        Some(("delete", rest)) if !help_requested(rest) && !dry_run(rest) => vec![KUBECTL_DELETE],
        _ => Vec::new(),
    }
}

fn containers(args: &[String]) -> Vec<Hit> {
    const WITH_ARG: &[&str] = &[
        "-H",
        "--host",
        "-c",
        "--context",
        "--config",
        "-l",
        "--log-level",
        "--connection",
        "--url",
        "--root",
        "--runroot",
        "--storage-driver",
        "--identity",
        "--tlscacert",
        "--tlscert",
        "--tlskey",
    ];
    let Some((sub, rest)) = subcommand(args, WITH_ARG) else { return Vec::new() };
    if help_requested(rest) {
        return Vec::new();
    }
    let hit = match sub {
        "rm" => Some(CONTAINER_RM),
        "rmi" => Some(CONTAINER_RMI),
        "compose" => return compose(rest),
        "system" | "container" | "image" | "volume" | "network" | "builder" | "buildx" | "pod" => {
            match operands(rest).first().copied() {
                Some("prune" | "reset") => Some(CONTAINER_PRUNE),
                Some("rm" | "remove" | "delete" | "rmi") => Some(match sub {
                    "volume" => VOLUME_RM,
                    "image" => CONTAINER_RMI,
                    "network" => NETWORK_RM,
                    _ => CONTAINER_RM,
                }),
                _ => None,
            }
        }
        _ => None,
    };
    hit.into_iter().collect()
}

fn compose(args: &[String]) -> Vec<Hit> {
    const WITH_ARG: &[&str] = &[
        "-f",
        "--file",
        "-p",
        "--project-name",
        "--env-file",
        "--profile",
        "--project-directory",
        "--ansi",
        "--parallel",
    ];
    match subcommand(args, WITH_ARG) {
        Some(("down", rest)) if short_has(rest, 'v') || long_has(rest, "--volumes") || long_has(rest, "--rmi") => {
            vec![COMPOSE_DOWN_VOLUMES]
        }
        Some(("rm", rest)) if !help_requested(rest) => vec![CONTAINER_RM],
        _ => Vec::new(),
    }
}

fn helm(args: &[String]) -> Vec<Hit> {
    const WITH_ARG: &[&str] = &[
        "-n",
        "--namespace",
        "--kube-context",
        "--kubeconfig",
        "--registry-config",
        "--repository-cache",
        "--repository-config",
        "--kube-apiserver",
        "--kube-as-user",
        "--kube-token",
        "--burst-limit",
    ];
    match subcommand(args, WITH_ARG) {
        Some(("uninstall" | "delete" | "del" | "un", rest)) if !help_requested(rest) && !dry_run(rest) => {
            vec![HELM_UNINSTALL]
        }
        _ => Vec::new(),
    }
}

fn terraform(args: &[String]) -> Vec<Hit> {
    let ops = operands(args);
    let help = args.iter().any(|a| a == "-help" || a == "--help" || a == "-h");
    let destroy = ops.iter().any(|a| *a == "destroy" || *a == "destroy-all")
        || (ops.contains(&"apply") && args.iter().any(|a| a == "-destroy" || a == "--destroy"));
    if destroy && !help {
        vec![TERRAFORM_DESTROY]
    } else {
        Vec::new()
    }
}

fn permissions(name: &str, args: &[String]) -> Vec<Hit> {
    if help_requested(args) {
        return Vec::new();
    }
    let chmod = name == "chmod";
    let recursive = short_has(args, 'R') || long_has(args, "--recursive");
    // chmod modes may look like options (`chmod -x file`).
    let symbolic = |a: &str| a.len() > 1 && a[1..].chars().all(|c| "rwxXstugoa+-=,".contains(c));
    let mut positional = Vec::new();
    let mut after = false;
    for a in args {
        if !after && a == "--" {
            after = true;
        } else if after || !a.starts_with('-') || a == "-" || (chmod && symbolic(a)) {
            positional.push(a.as_str());
        }
    }
    let by_reference = options(args).any(|a| a.starts_with("--reference"));
    let (mode, targets) = match positional.split_first() {
        Some((first, rest)) if !by_reference => (Some(*first), rest),
        _ => (None, &positional[..]),
    };
    let zero = chmod
        && mode.is_some_and(|m| {
            (!m.is_empty() && m.chars().all(|c| c == '0'))
                || matches!(m, "=" | "a=" | "ugo=" | "-rwx" | "a-rwx" | "ugo-rwx")
        });
    let mut out = Vec::new();
    for t in targets {
        let h = match (root_kind(t), recursive) {
            (Some(RootKind::Root | RootKind::System), true) => {
                Some(if chmod { CHMOD_SYSTEM_RECURSIVE } else { CHOWN_SYSTEM_RECURSIVE })
            }
            (Some(RootKind::Root), false) if zero => Some(CHMOD_ZERO_SYSTEM),
            (Some(RootKind::Root | RootKind::System), false) => Some(if chmod { CHMOD_SYSTEM } else { CHOWN_SYSTEM }),
            (Some(RootKind::Home), true) => Some(if chmod { CHMOD_HOME_RECURSIVE } else { CHOWN_HOME_RECURSIVE }),
            (Some(RootKind::Home), false) if zero => Some(CHMOD_ZERO_HOME),
            _ => None,
        };
        if let Some(h) = h {
            if !out.contains(&h) {
                out.push(h);
            }
        }
    }
    out
}

fn kill(args: &[String]) -> Vec<Hit> {
    let mut rest = args;
    match rest.first().map(String::as_str) {
        Some("-l" | "-L" | "--list" | "--table") => return Vec::new(),
        Some("-s" | "-n" | "--signal") => rest = rest.get(2..).unwrap_or(&[]),
        Some(a) if a.starts_with('-') && a != "--" && rest.len() > 1 => rest = &rest[1..],
        _ => {}
    }
    if rest.first().is_some_and(|a| a == "--") {
        rest = &rest[1..];
    }
    if rest.iter().any(|a| a == "-1") {
        vec![KILL_ALL]
    } else {
        Vec::new()
    }
}

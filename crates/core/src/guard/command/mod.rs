//! Terminal commands: a command line about to be committed in a terminal (a shell, or a SQL prompt),
//! judged before the key that runs it is pressed.
//!
//! **What is judged.** The line is split as a shell would split it (`shell.rs`): words with single and
//! double quotes, backslash escapes and `$'…'` decoded; commands separated by `;`, `&&`, `||`, `|`,
//! `|&`, `&` and newlines; commands inside `( … )`, `{ …; }`, `$( … )`, backticks and `<( … )` listed
//! like the others; shell strings run by `bash -c`, `sh -c`, `zsh -c`, `su -c`, `eval`, `watch`,
//! `ssh host …`, `env -S`, and text piped or here-stringed into a shell (`echo … | sh`, `bash <<< …`)
//! split again, up to a fixed depth (past it the line is refused as too deep to judge). Leading
//! `VAR=value` assignments and wrappers (`sudo`, `doas`, `env`, `nice`, `ionice`, `nohup`, `time`,
//! `command`, `builtin`, `exec`, `timeout`, `stdbuf`, `xargs`, `busybox`, `watch`, `setsid`, …, with
//! their options) are looked through, and the command word is normalised (`/bin/rm`, `\rm`, `'rm'`,
//! `RM` are all `rm`). Each resulting simple command meets the rules of `patterns.rs` (deleting,
//! wiping disks, discarding or rewriting version-control history, containers and infrastructure,
//! permissions, power, overwriting redirections); the whole line and every word meet the SQL rules of
//! `sql.rs`; the line is also checked for fork bombs. A line a shell would still be waiting on (an open
//! quote or parenthesis) is judged as far as it goes.
//!
//! **Tiers.** [`Severity::Catastrophic`] (wiping a disk, `rm -rf /` or home, fork bombs) is refused in
//! every mode, whatever the user asked. [`Severity::Destructive`] is refused unattended; interactively
//! it is allowed only when the user's own request asks for that kind of thing ([`intent_backs_kind`],
//! negation-aware like [`super::destructive::intent_backs`]), and otherwise refused with `can_ask`, so
//! the host may ask the person. [`Severity::Risky`] commands write over a file (`>`, `tee`, `dd of=`,
//! `cp`/`mv` onto one file): what they destroy depends on whether the file exists, which the desktop
//! is asked ([`handrail_platform::ShellFiles`], resolved the way the terminal's shell resolves paths).
//! Over an existing file they are destructive; onto a new one they destroy nothing and pass. Where
//! it cannot be told (a remote shell, `$OUT`, a path after a `cd` in the same line), `>`, `tee` and
//! `dd` count as destructive; a copy or move does not (most make new files).
//!
//! **Inline code.** Code an interpreter runs from the line itself (`python3 -c`, `perl -e`, `ruby -e`,
//! `node -e`, `php -r`, `lua -e`, an awk program, code here-stringed or piped into one) is read for
//! the same effects (`inline.rs`): calls that delete files are deletions, the literal command line of
//! a call that runs one (`os.system`, `subprocess.run`, backticks…) is judged as shell text, one the
//! code computes is refused as unknown, and opening a file for writing is judged as a redirection.
//!
//! **What text cannot tell.** Aliases and functions defined earlier in the shell (`alias ls='rm -rf'`),
//! what scripts and programs do (`./cleanup.sh`, `make clean`, `python3 tool.py`, `curl … | sh`), and the
//! values of variables and substitutions: `rm -rf $DIR` is a recursive rm of an unknown path
//! (destructive, not catastrophic), `rm -rf "$HOME"` is home, and a command word the shell computes
//! (`$CMD`, `$(which rm)`) is refused as unknown, like lines nested too deeply. Nothing is expanded.
//! Only ASCII blanks separate words, as in a shell: a look-alike spelling (`ｒｍ`, `r\u{200B}m`)
//! is not the command it resembles, and is not matched. Command names are matched case-insensitively
//! (case-insensitive file systems run `RM`), SQL keywords always are. SQL cannot be told from shell
//! text, so a statement is matched wherever it appears, also in an `echo` or a commit message.

mod inline;
mod patterns;
mod shell;
mod sql;

#[cfg(test)]
mod tests;

use handrail_platform::FileState;

use super::destructive::{asks_for, intent_backs, RemovalKind};
use super::text::normalize;
use crate::turn::Mode;

/// How bad a command is; ordered most severe first (`Catastrophic < Destructive < Risky`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Refused in every mode: wiping a disk, `rm -rf` of `/`, `/*`, `~` or `$HOME`, fork bombs, `mkfs` on
    /// a device…
    Catastrophic,
    /// Interactive: allowed only when the user's intent asks for that kind of thing. Unattended: refused.
    Destructive,
    /// Writes over a file ([`CommandFinding::file`]): destructive when the file exists (or, for some
    /// commands, when that cannot be told), nothing when it does not.
    Risky,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Catastrophic => "catastrophic",
            Severity::Destructive => "destructive",
            Severity::Risky => "risky",
        }
    }
}

/// What a command destroys, so the intent can be checked for the same kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CommandKind {
    /// Deleting files (`rm`, `find -delete`, `git rm`, `mv x /dev/null`, `crontab -r`).
    Delete,
    /// Formatting, partitioning or overwriting a disk.
    DiskWipe,
    /// Discarding uncommitted work: `git reset --hard`, `git clean`, `git checkout .`, `git restore`,
    /// `git stash drop`.
    DiscardChanges,
    /// Rewriting or deleting shared history: `git push --force`, `git branch -D`.
    RewriteHistory,
    /// Deleting or rewriting data in a database (`DROP TABLE`, `DELETE` without `WHERE`, …).
    Database,
    /// Containers, clusters and infrastructure: docker/podman removal and prune, `kubectl delete`,
    /// `helm uninstall`, `terraform destroy`.
    Containers,
    /// Permissions and ownership of the system or home.
    Permissions,
    /// Shutting down, restarting, killing every process.
    Power,
    /// Replacing or emptying a file's contents.
    Overwrite,
    /// Commands nested too deeply to be checked; no request backs them.
    Opaque,
}

impl CommandKind {
    pub fn as_str(self) -> &'static str {
        match self {
            CommandKind::Delete => "delete",
            CommandKind::DiskWipe => "disk_wipe",
            CommandKind::DiscardChanges => "discard_changes",
            CommandKind::RewriteHistory => "rewrite_history",
            CommandKind::Database => "database",
            CommandKind::Containers => "containers",
            CommandKind::Permissions => "permissions",
            CommandKind::Power => "power",
            CommandKind::Overwrite => "overwrite",
            CommandKind::Opaque => "opaque",
        }
    }

    /// Words for refusal messages ("the user's request does not ask for …").
    pub fn describe(self) -> &'static str {
        match self {
            CommandKind::Delete => RemovalKind::Delete.describe(),
            CommandKind::DiskWipe => RemovalKind::Format.describe(),
            CommandKind::DiscardChanges => "discarding uncommitted changes",
            CommandKind::RewriteHistory => "rewriting or deleting version-control history",
            CommandKind::Database => "deleting or rewriting data in a database",
            CommandKind::Containers => "removing containers, cluster resources or infrastructure",
            CommandKind::Permissions => "changing permissions or ownership",
            CommandKind::Power => "shutting down or restarting the computer, or killing every process",
            CommandKind::Overwrite => "overwriting or emptying a file",
            CommandKind::Opaque => "running commands that cannot be checked",
        }
    }
}

/// A destructive command found in a line.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CommandFinding {
    /// Short human phrase: `"recursive rm"`, `"git reset --hard"`, `"DROP TABLE"`.
    pub rule: &'static str,
    pub severity: Severity,
    pub kind: CommandKind,
    /// The offending simple command as the shell would run it (or the SQL statement), clipped.
    pub command: String,
    /// What it does, for messages: `"deletes files permanently"`.
    pub effect: &'static str,
    /// The file it writes over, when what it destroys depends on that file.
    pub file: Option<FileWrite>,
}

/// A file a command writes over.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FileWrite {
    /// As the line names it, unexpanded.
    pub path: String,
    /// A `cd` earlier in the same line moved the shell, so this relative path cannot be resolved.
    pub after_cd: bool,
    /// Whether the command counts as destructive when the file's existence cannot be told.
    pub unknown_counts: bool,
    /// What the desktop said about it ([`FileState::Unknown`] until looked up).
    pub state: FileState,
}

impl FileWrite {
    /// The path to look up, when text alone lets it be resolved: not after a `cd`, no variables,
    /// substitutions, globs or `~user`.
    pub fn lookup(&self) -> Option<&str> {
        let p = self.path.as_str();
        let plain = !p.is_empty()
            && !p.contains(['$', '`', '*', '?', '[', '{'])
            && (!p.starts_with('~') || p == "~" || p.starts_with("~/"));
        (plain && !self.after_cd).then_some(p)
    }
}

/// Every destructive command in `line`, most severe first (in line order within a tier), each
/// (rule, command) pair once.
pub fn destructive_commands(line: &str) -> Vec<CommandFinding> {
    let mut judge = patterns::Judge::default();
    judge.line(line, 0);
    let mut findings = judge.findings;
    findings.sort_by_key(|f| f.severity);
    findings
}

/// Whether running `line` may change the shell's working directory (`cd`, `pushd`, `popd`), so that
/// relative paths in lines run after it mean something else than they do now.
pub fn moves_shell(line: &str) -> bool {
    let mut judge = patterns::Judge::default();
    judge.line(line, 0);
    judge.moved
}

/// The decision on a command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandVerdict {
    /// Nothing destructive (or only risky commands, interactively).
    Allowed,
    /// Destructive, and the user's request asks for that kind of thing (interactive only).
    AllowedByIntent { rule: &'static str },
    /// Refused; `reason` is the message for the model.
    Refused {
        rule: &'static str,
        /// The offending command, clipped.
        command: String,
        reason: String,
        /// A person is watching and could confirm (interactive, not catastrophic). Always false
        /// unattended.
        can_ask: bool,
    },
}

impl CommandVerdict {
    pub fn is_allowed(&self) -> bool {
        !matches!(self, CommandVerdict::Refused { .. })
    }
}

/// Looks up the files the findings write over (one call to `states`, one state per path asked, in
/// order) and keeps what destroys something: a [`Severity::Risky`] finding becomes
/// [`Severity::Destructive`] over an existing file (or an unknown one, where that counts) and is
/// dropped otherwise; any finding about a file known to be absent is dropped (`: > new.log` creates
/// an empty file, nothing more).
pub fn settle_files(
    findings: Vec<CommandFinding>,
    states: &mut dyn FnMut(&[String]) -> Vec<FileState>,
) -> Vec<CommandFinding> {
    let mut asked: Vec<String> = Vec::new();
    for f in &findings {
        if let Some(p) = f.file.as_ref().and_then(FileWrite::lookup) {
            if !asked.iter().any(|a| a == p) {
                asked.push(p.to_string());
            }
        }
    }
    let answers = if asked.is_empty() { Vec::new() } else { states(&asked) };
    let state_of =
        |p: &str| asked.iter().position(|a| a == p).and_then(|i| answers.get(i).copied()).unwrap_or(FileState::Unknown);
    findings
        .into_iter()
        .filter_map(|mut f| {
            let Some(file) = f.file.as_mut() else { return Some(f) };
            file.state = file.lookup().map(state_of).unwrap_or(FileState::Unknown);
            let counts = match file.state {
                FileState::Existing => true,
                FileState::Absent => false,
                FileState::Unknown => file.unknown_counts || f.severity != Severity::Risky,
            };
            if f.severity == Severity::Risky {
                f.severity = Severity::Destructive;
            }
            counts.then_some(f)
        })
        .collect()
}

/// Judges `line` for `mode`, with the user's own request `intent` (supplied by the host, never by the
/// model), when nothing can be told about the files it names.
pub fn check_command(line: &str, mode: Mode, intent: &str) -> CommandVerdict {
    check_command_with(line, mode, intent, &mut |paths| vec![FileState::Unknown; paths.len()])
}

/// Judges `line` for `mode` and `intent`, asking `states` whether the files it writes over exist
/// (see [`settle_files`]). Every finding must pass: the most severe decides first.
pub fn check_command_with(
    line: &str,
    mode: Mode,
    intent: &str,
    states: &mut dyn FnMut(&[String]) -> Vec<FileState>,
) -> CommandVerdict {
    check_findings(destructive_commands(line), mode, intent, states)
}

/// Judges the findings of a line (from [`destructive_commands`], possibly narrowed by the caller) for
/// `mode` and `intent`, asking `states` about the files they write over.
pub fn check_findings(
    findings: Vec<CommandFinding>,
    mode: Mode,
    intent: &str,
    states: &mut dyn FnMut(&[String]) -> Vec<FileState>,
) -> CommandVerdict {
    let mut findings = settle_files(findings, states);
    findings.sort_by_key(|f| f.severity);
    let mut backed = None;
    for f in findings {
        match (f.severity, mode) {
            (Severity::Catastrophic, _) => {
                return refused(
                    &f,
                    false,
                    "this is never done for an agent, whatever the request says; leave it to a person".to_string(),
                );
            }
            (Severity::Destructive | Severity::Risky, Mode::Unattended) => {
                let instead = if f.file.is_some() { "write to a new file, or " } else { "" };
                return refused(
                    &f,
                    false,
                    format!(
                        "destructive commands are always refused in unattended mode (nobody is watching to \
                         confirm); {instead}leave this step for a person"
                    ),
                );
            }
            (Severity::Destructive | Severity::Risky, Mode::Interactive) if intent_backs_kind(intent, f.kind) => {
                backed.get_or_insert(f.rule);
            }
            (Severity::Destructive | Severity::Risky, Mode::Interactive) => {
                let why = format!(
                    "the user's request does not ask for {} (the user's request must ask for this: ask the user, \
                     or leave this step to them)",
                    f.kind.describe()
                );
                return refused(&f, true, why);
            }
        }
    }
    match backed {
        Some(rule) => CommandVerdict::AllowedByIntent { rule },
        None => CommandVerdict::Allowed,
    }
}

fn refused(f: &CommandFinding, can_ask: bool, why: String) -> CommandVerdict {
    CommandVerdict::Refused {
        rule: f.rule,
        command: f.command.clone(),
        reason: format!(
            "refusing to run {:?} in the terminal: it is {} ({}{}), and {why}",
            clip(&crate::guard::url::redact_urls_in(&f.command)),
            f.rule,
            f.effect,
            f.file.as_ref().map(file_note).unwrap_or_default()
        ),
        can_ask,
    }
}

/// What is known of the file a refused command writes over, for its message.
fn file_note(file: &FileWrite) -> String {
    let path = clip(&file.path);
    match (file.state, file.lookup()) {
        (FileState::Existing, _) => format!("; {path:?} exists"),
        (FileState::Absent, _) => String::new(),
        (FileState::Unknown, None) if file.after_cd => {
            format!("; whether {path:?} exists cannot be checked after the cd earlier in the line")
        }
        (FileState::Unknown, _) => format!("; whether {path:?} exists cannot be checked from here"),
    }
}

/// Clips text for messages to 80 characters.
fn clip(s: &str) -> String {
    if s.chars().count() > 80 {
        s.chars().take(79).chain(['…']).collect()
    } else {
        s.to_string()
    }
}

/// Words in the user's request that ask for each kind, in the style of [`super::destructive`]: English
/// entries are word-start prefixes, a negation shortly before one ("don't reset anything") cancels it.
const DISK_WORDS: &[&str] = &["wipe", "wiping", "erase", "erasing", "partition", "repartition", "ล้างดิสก์"];
const DISCARD_WORDS: &[&str] = &[
    "discard",
    "reset",
    "revert",
    "throw away",
    "throw out",
    "undo",
    "clean",
    "restore",
    "drop",
    "get rid of",
    "ทิ้ง",
    "ยกเลิกการแก้ไข",
];
const HISTORY_WORDS: &[&str] = &["force", "rewrit", "squash"];
/// Deletion words for the kinds below count only together with one of the kind's nouns: "delete the
/// build folder" is no request to drop a table or remove containers.
const REMOVAL_WORDS: &[&str] = &[
    "delet",
    "remov",
    "wipe",
    "wiping",
    "eras",
    "clear",
    "empty",
    "emptie",
    "destroy",
    "reset",
    "get rid of",
    "ลบ",
    "ล้าง",
];
const BRANCH_NOUNS: &[&str] = &["branch", "tag", "remote", "บรานช์"];
const DATABASE_WORDS: &[&str] = &["drop", "truncat", "flush", "purge"];
const DATABASE_NOUNS: &[&str] = &[
    "table",
    "database",
    "db",
    "row",
    "record",
    "schema",
    "index",
    "view",
    "collection",
    "key",
    "sql",
    "postgres",
    "mysql",
    "sqlite",
    "redis",
    "mongo",
    "ตาราง",
    "ฐานข้อมูล",
];
const CONTAINER_WORDS: &[&str] =
    &["prune", "tear down", "teardown", "take down", "uninstal", "clean up", "cleanup", "purge"];
const CONTAINER_NOUNS: &[&str] = &[
    "container",
    "image",
    "volume",
    "docker",
    "podman",
    "pod",
    "deployment",
    "cluster",
    "kubernetes",
    "k8s",
    "kubectl",
    "helm",
    "release",
    "chart",
    "terraform",
    "infrastructure",
    "infra",
    "stack",
    "namespace",
    "resource",
    "network",
    "environment",
    "คอนเทนเนอร์",
];
const PERMISSION_WORDS: &[&str] = &["chmod", "chown", "chgrp", "permission", "ownership", "owner", "สิทธิ์"];
const POWER_WORDS: &[&str] = &[
    "shut down",
    "shutdown",
    "shut off",
    "reboot",
    "restart",
    "power off",
    "poweroff",
    "turn off",
    "halt",
    "kill all",
    "kill every",
    "ปิดเครื่อง",
    "รีสตาร์ท",
    "รีบูต",
];
const OVERWRITE_WORDS: &[&str] =
    &["overwrit", "truncat", "empty", "emptie", "clear", "replac", "wipe", "wiping", "eras", "reset", "ล้าง", "เขียนทับ"];

/// Whether the user's own words ask for this kind of destruction. Delete uses the same words as
/// [`super::destructive::intent_backs`]; a disk wipe is backed by formatting words or wipe/erase/partition
/// words; general deletion words back branch deletion, databases and containers only together with a noun
/// of that kind ("delete the old rows", "remove the containers"); [`CommandKind::Opaque`] is never backed.
/// An empty intent backs nothing.
pub fn intent_backs_kind(intent: &str, kind: CommandKind) -> bool {
    let norm = normalize(intent);
    if norm.is_empty() {
        return false;
    }
    let asks = |words: &[&str]| words.iter().any(|w| asks_for(&norm, w));
    let mentions = |nouns: &[&str]| nouns.iter().any(|n| norm.contains(n));
    match kind {
        CommandKind::Delete => intent_backs(intent, RemovalKind::Delete),
        CommandKind::DiskWipe => intent_backs(intent, RemovalKind::Format) || asks(DISK_WORDS),
        CommandKind::DiscardChanges => asks(DISCARD_WORDS),
        CommandKind::RewriteHistory => asks(HISTORY_WORDS) || (asks(REMOVAL_WORDS) && mentions(BRANCH_NOUNS)),
        CommandKind::Database => (asks(DATABASE_WORDS) || asks(REMOVAL_WORDS)) && mentions(DATABASE_NOUNS),
        CommandKind::Containers => (asks(CONTAINER_WORDS) || asks(REMOVAL_WORDS)) && mentions(CONTAINER_NOUNS),
        CommandKind::Permissions => asks(PERMISSION_WORDS),
        CommandKind::Power => asks(POWER_WORDS),
        CommandKind::Overwrite => asks(OVERWRITE_WORDS),
        CommandKind::Opaque => false,
    }
}

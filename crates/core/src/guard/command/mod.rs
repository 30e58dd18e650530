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
//! the host may ask the person. [`Severity::Risky`] (an overwriting `>` redirection) is refused
//! unattended only.
//!
//! **What text cannot tell.** Aliases and functions defined earlier in the shell (`alias ls='rm -rf'`),
//! what scripts and programs do (`./cleanup.sh`, `make clean`, `python -c …`, `curl … | sh`), and the
//! values of variables and substitutions: `rm -rf $DIR` is a recursive rm of an unknown path
//! (destructive, not catastrophic), `rm -rf "$HOME"` is home, and a command word the shell computes
//! (`$CMD`, `$(which rm)`) is refused as unknown, like lines nested too deeply. Nothing is expanded.
//! Whether a file that a `>` redirection names exists cannot be known either, so every such target
//! counts. Only ASCII blanks separate words, as in a shell: a look-alike spelling (`ｒｍ`, `r\u{200B}m`)
//! is not the command it resembles, and is not matched. Command names are matched case-insensitively
//! (case-insensitive file systems run `RM`), SQL keywords always are. SQL cannot be told from shell
//! text, so a statement is matched wherever it appears, also in an `echo` or a commit message.

mod patterns;
mod shell;
mod sql;

#[cfg(test)]
mod tests;

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
    /// Refused unattended only (like the unattended-only markers of [`super::destructive`]), e.g. a
    /// `cmd > file` redirection that replaces whatever the file held.
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

/// Judges `line` for `mode`, with the user's own request `intent` (supplied by the host, never by the
/// model). Every finding must pass: the most severe decides first.
pub fn check_command(line: &str, mode: Mode, intent: &str) -> CommandVerdict {
    let mut backed = None;
    for f in destructive_commands(line) {
        match (f.severity, mode) {
            (Severity::Catastrophic, _) => {
                return refused(
                    &f,
                    false,
                    "this is never done for an agent, whatever the request says; leave it to a person".to_string(),
                );
            }
            (Severity::Destructive, Mode::Unattended) => {
                return refused(
                    &f,
                    false,
                    "destructive commands are always refused in unattended mode (nobody is watching to confirm); \
                     leave this step for a person"
                        .to_string(),
                );
            }
            (Severity::Risky, Mode::Unattended) => {
                return refused(
                    &f,
                    false,
                    "commands that may destroy data are refused in unattended mode (nobody is watching to \
                     confirm); write to a new file, or leave this step for a person"
                        .to_string(),
                );
            }
            (Severity::Destructive, Mode::Interactive) if intent_backs_kind(intent, f.kind) => {
                backed.get_or_insert(f.rule);
            }
            (Severity::Destructive, Mode::Interactive) => {
                let why = format!(
                    "the user's request does not ask for {} (the user's request must ask for this: ask the user, \
                     or leave this step to them)",
                    f.kind.describe()
                );
                return refused(&f, true, why);
            }
            (Severity::Risky, Mode::Interactive) => {}
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
            "refusing to run {:?} in the terminal: it is {} ({}), and {why}",
            clip(&f.command),
            f.rule,
            f.effect
        ),
        can_ask,
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

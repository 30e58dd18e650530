//! Finding the shell a terminal window's next line goes to, from the process table.

use std::collections::BTreeMap;
use std::fs;

use crate::stat::{parse_stat, Stat};

/// The foreground shell of a terminal, at the moment it was looked up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shell {
    pub pid: u32,
    /// Its program name (`bash`).
    pub name: String,
    /// `HOME` in its environment, if set.
    pub home: Option<String>,
}

fn all_processes() -> Vec<Stat> {
    let Ok(dir) = fs::read_dir("/proc") else { return Vec::new() };
    dir.flatten()
        .filter(|e| e.file_name().to_str().is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit())))
        .filter_map(|e| fs::read_to_string(e.path().join("stat")).ok())
        .filter_map(|t| parse_stat(&t))
        .collect()
}

/// Programs that read a typed line and resolve its paths against their own working directory.
fn is_shell(name: &str) -> bool {
    let name = name.strip_prefix('-').unwrap_or(name);
    matches!(
        name,
        "sh" | "bash" | "dash" | "ash" | "zsh" | "ksh" | "mksh" | "lksh" | "pdksh" | "yash" | "fish" | "tcsh" | "csh"
    )
}

/// The shells in the foreground of the terminals of `terminal_pid`'s descendants, by terminal.
fn foreground_leaders(terminal_pid: u32, table: &[Stat]) -> Vec<&Stat> {
    let mut children: BTreeMap<u32, Vec<&Stat>> = BTreeMap::new();
    for p in table {
        children.entry(p.ppid).or_default().push(p);
    }
    let mut descendants = Vec::new();
    let mut queue = vec![terminal_pid];
    while let Some(pid) = queue.pop() {
        for c in children.get(&pid).into_iter().flatten() {
            // A pid can be reused while the table is read; a cycle cannot be followed forever.
            if descendants.len() < 4096 && c.pid != terminal_pid {
                descendants.push(*c);
                queue.push(c.pid);
            }
        }
    }
    let mut groups: BTreeMap<i64, i64> = BTreeMap::new();
    for p in &descendants {
        if p.tty != 0 && p.tpgid > 0 {
            groups.insert(p.tty, p.tpgid);
        }
    }
    groups
        .values()
        .map(|&leader| descendants.iter().copied().find(|p| i64::from(p.pid) == leader))
        .collect::<Option<Vec<_>>>()
        .unwrap_or_default()
}

/// The shell the terminal of window process `terminal_pid` would hand the next line to: the leader of
/// its foreground process group, when that is a shell. With several terminals under one process (a
/// terminal emulator's tabs), only when all their foreground shells share directory, root and home.
pub fn foreground_shell(terminal_pid: u32) -> Option<Shell> {
    let table = all_processes();
    let leaders = foreground_leaders(terminal_pid, &table);
    let mut found: Option<(Shell, Place)> = None;
    for leader in leaders {
        if !is_shell(&leader.comm) {
            return None;
        }
        let shell = Shell { pid: leader.pid, name: leader.comm.clone(), home: home_of(leader.pid) };
        let place = Place::of(&shell)?;
        match &found {
            Some((_, seen)) if *seen != place => return None,
            Some(_) => {}
            None => found = Some((shell, place)),
        }
    }
    found.map(|(shell, _)| shell)
}

/// Where a shell resolves paths from.
#[derive(Debug, PartialEq, Eq)]
struct Place {
    cwd: std::path::PathBuf,
    root: std::path::PathBuf,
    home: Option<String>,
}

impl Place {
    fn of(shell: &Shell) -> Option<Place> {
        Some(Place {
            cwd: fs::read_link(format!("/proc/{}/cwd", shell.pid)).ok()?,
            root: fs::read_link(format!("/proc/{}/root", shell.pid)).ok()?,
            home: shell.home.clone(),
        })
    }
}

fn home_of(pid: u32) -> Option<String> {
    let env = fs::read(format!("/proc/{pid}/environ")).ok()?;
    env.split(|&b| b == 0)
        .find_map(|kv| kv.strip_prefix(b"HOME="))
        .and_then(|v| String::from_utf8(v.to_vec()).ok())
        .filter(|h| h.starts_with('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stat(pid: u32, comm: &str, ppid: u32, tty: i64, tpgid: i64) -> Stat {
        Stat { pid, comm: comm.into(), state: 'S', ppid, tty, tpgid }
    }

    #[test]
    fn the_foreground_group_leader_is_found_under_the_terminal() {
        // xterm 100 → bash 101 (tty 5, at its prompt) ; an unrelated bash elsewhere.
        let table = vec![stat(100, "xterm", 1, 0, -1), stat(101, "bash", 100, 5, 101), stat(300, "bash", 1, 7, 300)];
        let leaders: Vec<u32> = foreground_leaders(100, &table).iter().map(|s| s.pid).collect();
        assert_eq!(leaders, vec![101]);
        // The same bash running a program: the program leads the foreground group.
        let table = vec![stat(100, "xterm", 1, 0, -1), stat(101, "bash", 100, 5, 102), stat(102, "ssh", 101, 5, 102)];
        let leaders: Vec<&str> = foreground_leaders(100, &table).iter().map(|s| s.comm.as_str()).collect();
        assert_eq!(leaders, vec!["ssh"]);
        // Two tabs: one leader per terminal.
        let table =
            vec![stat(100, "gnome-terminal-", 1, 0, -1), stat(101, "bash", 100, 5, 101), stat(102, "zsh", 100, 6, 102)];
        assert_eq!(foreground_leaders(100, &table).len(), 2);
        assert!(foreground_leaders(999, &table).is_empty());
    }

    #[test]
    fn shells_are_told_from_other_programs() {
        for s in ["bash", "-bash", "zsh", "sh", "fish", "dash"] {
            assert!(is_shell(s), "{s}");
        }
        for s in ["ssh", "python3", "sudo", "vim", "bashful", ""] {
            assert!(!is_shell(s), "{s}");
        }
    }
}

//! Small process and file helpers: PATH lookup, /proc (process names, descendants).

use std::collections::{HashMap, HashSet};
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// A regular file with an execute bit (following symlinks).
pub(crate) fn is_executable(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The first executable called `name` in `path_var` (a `PATH` value; the process's own when `None`).
/// `name` must be a plain file name.
pub(crate) fn find_program(name: &str, path_var: Option<&str>) -> Option<PathBuf> {
    if name.is_empty() || name.contains('/') {
        return None;
    }
    let owned;
    let path_var = match path_var {
        Some(p) => p,
        None => {
            owned = std::env::var("PATH").unwrap_or_else(|_| "/usr/local/bin:/usr/bin:/bin".into());
            &owned
        }
    };
    path_var.split(':').filter(|d| !d.is_empty()).map(|d| Path::new(d).join(name)).find(|p| is_executable(p))
}

/// `/proc/PID/comm`: the kernel's short process name.
pub fn comm(pid: u32) -> Option<String> {
    let text = fs::read_to_string(format!("/proc/{pid}/comm")).ok()?;
    Some(text.trim_end().to_owned()).filter(|s| !s.is_empty())
}

/// The parent pid from `/proc/PID/stat` (the name field may hold spaces and parentheses, so parse after
/// the last `)`).
fn parent_of(pid: u32) -> Option<u32> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(1)?.parse().ok()
}

/// `root` and all its living descendants.
pub fn process_tree(root: u32) -> HashSet<u32> {
    let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
    if let Ok(dir) = fs::read_dir("/proc") {
        for item in dir.flatten() {
            let Some(pid) = item.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
            if let Some(ppid) = parent_of(pid) {
                children.entry(ppid).or_default().push(pid);
            }
        }
    }
    let mut tree = HashSet::from([root]);
    let mut queue = vec![root];
    while let Some(pid) = queue.pop() {
        for &child in children.get(&pid).map(Vec::as_slice).unwrap_or_default() {
            if tree.insert(child) {
                queue.push(child);
            }
        }
    }
    tree
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_programs_and_own_process() {
        assert!(find_program("sh", Some("/nonexistent:/bin:/usr/bin")).is_some());
        assert!(find_program("sh", Some("/nonexistent")).is_none());
        assert!(find_program("../sh", None).is_none());
        let me = std::process::id();
        assert!(comm(me).is_some());
        assert!(parent_of(me).is_some());
        assert!(process_tree(me).contains(&me));
    }
}

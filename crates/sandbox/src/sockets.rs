//! Unix sockets the sandbox's processes listen on outside its own directory.
//!
//! Most apps put their sockets under `TMPDIR` or `XDG_RUNTIME_DIR`, which lie inside the sandbox's
//! root and go with it. Some do not: LibreOffice binds `/tmp/OSL_PIPE_<uid>_SingleOfficeIPC_<hash>`
//! whatever `TMPDIR` says, and a process ended at stop leaves its socket file behind (only a clean
//! exit unlinks it). So the stop notes, while the processes still run, which socket paths they
//! listen on, and removes those files once their owners are gone and nothing listens there any more.

use std::collections::BTreeSet;
use std::fs;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

/// `__SO_ACCEPTCON` in `/proc/net/unix`'s Flags column: the socket is listening.
const ACCEPTING: u32 = 0x0001_0000;

/// One row of `/proc/net/unix`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UnixSocket {
    pub(crate) inode: u64,
    pub(crate) listening: bool,
    /// A path in the file system; `None` for unnamed and abstract sockets, which leave no file.
    pub(crate) path: Option<PathBuf>,
}

/// The rows of `/proc/net/unix` (`text`); rows that do not parse are skipped.
pub(crate) fn parse_net_unix(text: &str) -> Vec<UnixSocket> {
    text.lines().skip(1).filter_map(parse_row).collect()
}

/// `Num: RefCount Protocol Flags Type St Inode [Path]`, numbers in hex but the inode. The path is
/// the rest of the line (it may hold spaces); `@` starts an abstract name.
fn parse_row(line: &str) -> Option<UnixSocket> {
    let mut rest = line;
    let mut columns = [""; 7];
    for column in &mut columns {
        rest = rest.trim_start_matches(' ');
        let end = rest.find(' ').unwrap_or(rest.len());
        (*column, rest) = rest.split_at(end);
        if column.is_empty() {
            return None;
        }
    }
    if !columns[0].ends_with(':') {
        return None;
    }
    let flags = u32::from_str_radix(columns[3], 16).ok()?;
    let inode = columns[6].parse::<u64>().ok()?;
    // One space, then the path as bound.
    let path = rest.strip_prefix(' ').filter(|p| p.starts_with('/')).map(PathBuf::from);
    Some(UnixSocket { inode, listening: flags & ACCEPTING != 0, path })
}

/// The socket inodes process `pid` holds open (its `/proc/PID/fd` links `socket:[INODE]`).
fn socket_inodes(pid: u32) -> Vec<u64> {
    let Ok(dir) = fs::read_dir(format!("/proc/{pid}/fd")) else { return Vec::new() };
    dir.flatten()
        .filter_map(|entry| fs::read_link(entry.path()).ok())
        .filter_map(|target| {
            let target = target.to_str()?;
            target.strip_prefix("socket:[")?.strip_suffix(']')?.parse().ok()
        })
        .collect()
}

/// The paths outside `root` where processes `pids` listen, as the kernel lists them now.
pub(crate) fn listened_outside(pids: &[u32], root: &Path) -> Vec<PathBuf> {
    let Ok(table) = fs::read_to_string("/proc/net/unix") else { return Vec::new() };
    let held: BTreeSet<u64> = pids.iter().flat_map(|&pid| socket_inodes(pid)).collect();
    let mut paths: Vec<PathBuf> = parse_net_unix(&table)
        .into_iter()
        .filter(|s| s.listening && held.contains(&s.inode))
        .filter_map(|s| s.path)
        .filter(|p| !p.starts_with(root))
        .collect();
    paths.sort();
    paths.dedup();
    paths
}

/// Removes those of `paths` that are still socket files nobody listens on (their listeners have
/// exited); returns what it removed. A path some live socket is bound to is left alone.
pub(crate) fn remove_abandoned(paths: &[PathBuf]) -> Vec<PathBuf> {
    if paths.is_empty() {
        return Vec::new();
    }
    let Ok(table) = fs::read_to_string("/proc/net/unix") else { return Vec::new() };
    let bound: BTreeSet<PathBuf> = parse_net_unix(&table).into_iter().filter_map(|s| s.path).collect();
    paths
        .iter()
        .filter(|p| !bound.contains(*p))
        .filter(|p| fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_socket()))
        .filter(|p| fs::remove_file(p).is_ok())
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const TABLE: &str = "Num       RefCount Protocol Flags    Type St Inode Path
0000000000000000: 00000002 00000000 00010000 0001 01 40121 /tmp/OSL_PIPE_0_SingleOfficeIPC_3ffe97b0
0000000000000000: 00000003 00000000 00000000 0001 03 40122 /run/user/0/bus
0000000000000000: 00000002 00000000 00010000 0001 01 40123 @/tmp/.X11-unix/X90
0000000000000000: 00000002 00000000 00010000 0005 01 40124
0000000000000000: 00000002 00000000 00010000 0001 01 40125 /tmp/a name with spaces
not a row
";

    #[test]
    fn rows_read_as_the_kernel_writes_them() {
        let rows = parse_net_unix(TABLE);
        let path = |p: &str| Some(PathBuf::from(p));
        assert_eq!(
            rows,
            vec![
                UnixSocket { inode: 40121, listening: true, path: path("/tmp/OSL_PIPE_0_SingleOfficeIPC_3ffe97b0") },
                UnixSocket { inode: 40122, listening: false, path: path("/run/user/0/bus") },
                UnixSocket { inode: 40123, listening: true, path: None },
                UnixSocket { inode: 40124, listening: true, path: None },
                UnixSocket { inode: 40125, listening: true, path: path("/tmp/a name with spaces") },
            ]
        );
    }

    proptest! {
        /// Any row the kernel could write reads back as written: flags, inode and the whole path;
        /// and any line at all parses without a panic.
        #[test]
        fn a_written_row_reads_back(
            flags in any::<u32>(),
            inode in any::<u64>(),
            kind in 0u32..6,
            state in 0u32..5,
            path in proptest::option::of("/[a-zA-Z0-9_. -]{0,40}"),
            noise in ".{0,80}",
        ) {
            let line = format!(
                "0000000000000000: 00000002 00000000 {flags:08X} {kind:04X} {state:02X} {inode}{}",
                path.as_ref().map(|p| format!(" {p}")).unwrap_or_default()
            );
            let row = parse_row(&line).expect("parses");
            prop_assert_eq!(row.inode, inode);
            prop_assert_eq!(row.listening, flags & ACCEPTING != 0);
            prop_assert_eq!(row.path, path.map(PathBuf::from));
            let _ = parse_row(&noise);
        }
    }
}

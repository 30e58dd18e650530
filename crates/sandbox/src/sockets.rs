//! Unix sockets the sandbox's processes listen on outside its own directory.
//!
//! Most apps put their sockets under `TMPDIR` or `XDG_RUNTIME_DIR`, which lie inside the sandbox's
//! root and go with it. Some do not: LibreOffice binds `/tmp/OSL_PIPE_<uid>_SingleOfficeIPC_<hash>`
//! whatever `TMPDIR` says, and a process ended at stop leaves its socket file behind (only a clean
//! exit unlinks it). So the stop notes, while the processes still run, which socket files they
//! listen on, and removes those files once their owners are gone and nothing listens there any more.
//!
//! Only the very file that was noted is ever removed (same device, inode and change time): once its
//! owner has gone, another program may bind a new socket at the same path — another sandbox's X
//! server takes the display number this one just gave up — and that file is not ours to delete.
//! The X server's own socket is left out altogether: it goes with the display's lock file
//! (`x11::remove_stale`), whose protocol says whom it belongs to.

use std::collections::BTreeSet;
use std::fs;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

/// A socket file as it was when noted: removed later only if the path still names this file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NotedSocket {
    pub(crate) path: PathBuf,
    file: FileId,
}

/// What tells one file from a later one at the same path: inode numbers are reused at once, the
/// change time with its nanoseconds is not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileId {
    dev: u64,
    ino: u64,
    ctime: (i64, i64),
}

impl FileId {
    fn of(path: &Path) -> Option<FileId> {
        let m = fs::symlink_metadata(path).ok()?;
        m.file_type().is_socket().then(|| FileId { dev: m.dev(), ino: m.ino(), ctime: (m.ctime(), m.ctime_nsec()) })
    }
}

/// Where X servers put their display sockets; see the module's note.
const X_SOCKET_DIR: &str = "/tmp/.X11-unix";

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

/// The socket files outside `root` (and outside the X server's directory) where processes `pids`
/// listen, as the kernel lists them now.
pub(crate) fn listened_outside(pids: &[u32], root: &Path) -> Vec<NotedSocket> {
    let Ok(table) = fs::read_to_string("/proc/net/unix") else { return Vec::new() };
    let held: BTreeSet<u64> = pids.iter().flat_map(|&pid| socket_inodes(pid)).collect();
    let mut paths: Vec<PathBuf> = parse_net_unix(&table)
        .into_iter()
        .filter(|s| s.listening && held.contains(&s.inode))
        .filter_map(|s| s.path)
        .filter(|p| worth_noting(p, root))
        .collect();
    paths.sort();
    paths.dedup();
    paths.into_iter().filter_map(|path| Some(NotedSocket { file: FileId::of(&path)?, path })).collect()
}

/// Outside the sandbox's root (which goes as a whole) and not an X display socket.
fn worth_noting(path: &Path, root: &Path) -> bool {
    !path.starts_with(root) && !path.starts_with(X_SOCKET_DIR)
}

/// Removes those of `noted` whose files are still there, unchanged, and nobody listens on (their
/// listeners have exited); returns the paths it removed. A path some live socket is bound to, or
/// that now names another file, is left alone.
pub(crate) fn remove_abandoned(noted: &[NotedSocket]) -> Vec<PathBuf> {
    if noted.is_empty() {
        return Vec::new();
    }
    let Ok(table) = fs::read_to_string("/proc/net/unix") else { return Vec::new() };
    let bound: BTreeSet<PathBuf> = parse_net_unix(&table).into_iter().filter_map(|s| s.path).collect();
    noted
        .iter()
        .filter(|n| !bound.contains(&n.path))
        .filter(|n| FileId::of(&n.path) == Some(n.file))
        .filter(|n| fs::remove_file(&n.path).is_ok())
        .map(|n| n.path.clone())
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

    /// A directory of this test's own, removed when dropped.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(name: &str) -> Scratch {
            let dir = std::env::temp_dir().join(format!("handrail-sockets-test-{}-{name}", std::process::id()));
            let _ = fs::remove_dir_all(&dir);
            fs::create_dir_all(&dir).expect("creates a scratch directory");
            Scratch(dir)
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    /// A socket file at `path` that nobody listens on any more (its listener was dropped).
    fn abandoned_socket(path: &Path) {
        drop(std::os::unix::net::UnixListener::bind(path).expect("binds"));
        assert!(FileId::of(path).is_some(), "the file stays after its listener is gone");
    }

    fn note(path: &Path) -> NotedSocket {
        NotedSocket { path: path.to_path_buf(), file: FileId::of(path).expect("a socket file") }
    }

    #[test]
    fn the_noted_file_is_removed_once_nobody_listens() {
        let dir = Scratch::new("noted");
        let path = dir.0.join("app.sock");
        let listener = std::os::unix::net::UnixListener::bind(&path).expect("binds");
        let noted = vec![note(&path)];
        assert!(remove_abandoned(&noted).is_empty(), "still listened on");
        assert!(path.exists());
        drop(listener);
        assert_eq!(remove_abandoned(&noted), vec![path.clone()]);
        assert!(!path.exists());
    }

    /// Another program took the path after the noted listener left (a new X server on the display
    /// number just given up, bound between the stop's look at the kernel's table and its unlink):
    /// its file is a different one and stays, whether or not it listens yet.
    #[test]
    fn a_new_file_at_a_noted_path_is_someone_elses() {
        let dir = Scratch::new("newcomer");
        let path = dir.0.join("X90");
        abandoned_socket(&path);
        let noted = vec![note(&path)];
        // Bound beside it and moved over it, so that the newcomer's file exists while the old one
        // does and cannot share its inode whatever the file system's clock resolution.
        let newcomer = dir.0.join("X90.new");
        abandoned_socket(&newcomer);
        fs::rename(&newcomer, &path).expect("takes the path");
        assert_eq!(remove_abandoned(&noted), Vec::<PathBuf>::new());
        assert!(path.exists(), "the newcomer's socket is still there");
    }

    #[test]
    fn x_display_sockets_and_the_sandboxs_own_are_not_noted() {
        let root = Path::new("/tmp/handrail-sandbox-1-a");
        assert!(!worth_noting(Path::new("/tmp/.X11-unix/X90"), root));
        assert!(!worth_noting(&root.join("run/bus"), root));
        assert!(worth_noting(Path::new("/tmp/OSL_PIPE_0_SingleOfficeIPC_3ffe97b0"), root));
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

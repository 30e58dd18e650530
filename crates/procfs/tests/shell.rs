//! A real interactive bash on a real pseudo-terminal (util-linux `script` plays the terminal
//! emulator): which shell is in the foreground, and what its paths name on disk, as it moves.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use handrail_platform::{FileState, ShellFiles};
use handrail_procfs::{foreground_shell, ProcShellFiles};

/// A scratch directory removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("handrail-procfs-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub")).expect("scratch dir");
        std::fs::write(dir.join("existing.txt"), "keep me\n").expect("a file");
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The terminal: killed (with its shell) on drop.
struct Terminal(Child);

impl Terminal {
    fn start(cwd: &Path, home: &Path) -> Terminal {
        let child = Command::new("script")
            .args(["-qfc", "bash --norc --noprofile -i", "/dev/null"])
            .current_dir(cwd)
            .env("HOME", home)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .expect("script (util-linux) starts");
        Terminal(child)
    }

    fn pid(&self) -> u32 {
        self.0.id()
    }

    fn typed(&mut self, line: &str) {
        let stdin = self.0.stdin.as_mut().expect("stdin");
        stdin.write_all(line.as_bytes()).expect("typed");
        stdin.flush().expect("flushed");
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        // script, then bash (on its own terminal, in its own session) hangs up with it.
        drop(self.0.stdin.take());
        let _ = Command::new("kill").args(["-s", "KILL", "--", &format!("-{}", self.0.id())]).status();
        let _ = self.0.wait();
    }
}

use std::os::unix::process::CommandExt as _;

fn eventually(what: &str, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !cond() {
        assert!(Instant::now() < deadline, "never: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn states(pid: u32, paths: &[&str]) -> Vec<FileState> {
    let paths: Vec<String> = paths.iter().map(|p| p.to_string()).collect();
    ProcShellFiles.file_states(pid, &paths)
}

#[test]
fn paths_are_resolved_where_the_foreground_shell_is() {
    let scratch = Scratch::new("paths");
    let home = scratch.0.join("sub");
    std::fs::write(home.join(".profile-ish"), "x").expect("a file at home");
    let mut term = Terminal::start(&scratch.0, &home);
    // Until the interactive bash reads lines, the foreground may be a process in the middle of its
    // exec: already named bash, its environment not yet there (so `~` cannot be told), which is
    // what handrail answers then too. Wait until bash has run a line and leads the foreground again.
    term.typed("touch ready\n");
    eventually("bash ran a line and leads the terminal's foreground", || {
        scratch.0.join("ready").exists()
            && foreground_shell(term.pid()).is_some_and(|s| s.name == "bash" && s.home.is_some())
    });

    use FileState::*;
    let abs = scratch.0.join("existing.txt").display().to_string();
    assert_eq!(
        states(
            term.pid(),
            &[
                "existing.txt",
                "new.txt",
                "sub",
                "./sub/../existing.txt",
                &abs,
                "~/.profile-ish",
                "~",
                "$OUT",
                "*.txt",
                "~root/x"
            ]
        ),
        vec![Existing, Absent, Absent, Existing, Existing, Existing, Absent, Unknown, Unknown, Unknown]
    );
    // A dangling link is written through, replacing nothing; a path through a file does not exist.
    std::os::unix::fs::symlink(scratch.0.join("nowhere"), scratch.0.join("dangling")).expect("a link");
    assert_eq!(states(term.pid(), &["dangling", "existing.txt/x"]), vec![Absent, Absent]);

    // The shell moves: relative paths follow it.
    term.typed("cd sub\n");
    eventually("the relative path follows the shell's cd", || states(term.pid(), &["existing.txt"]) == vec![Absent]);
    assert_eq!(states(term.pid(), &[".profile-ish", &abs]), vec![Existing, Existing]);

    // A program in the foreground instead of the shell: nothing can be told.
    term.typed("sleep 30\n");
    // Until `sleep` has been exec'd, the foreground is bash's own fork (named bash, in the shell's
    // directory, so what it answers is still right): wait for the program itself.
    eventually("a running program makes paths unknown", || {
        foreground_shell(term.pid()).is_none() && states(term.pid(), &["existing.txt"]) == vec![Unknown]
    });
    // Processes that are not terminals, or gone: unknown.
    assert_eq!(states(std::process::id(), &["existing.txt"]), vec![Unknown]);
    assert_eq!(states(u32::MAX - 7, &["existing.txt"]), vec![Unknown]);
}

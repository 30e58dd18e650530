//! OSWorld's tasks live in `/home/user` (the VM's user); a handrail desktop's user has a private home
//! elsewhere. The guest shows the tasks that home under the name they expect: paths in requests and
//! commands that name `/home/user` (or `~`) are moved onto the private home, and paths it answers
//! with name `/home/user` again.

use std::path::{Path, PathBuf};

use crate::GuestError;

/// The home OSWorld's tasks name.
pub const TASK_HOME: &str = "/home/user";

/// The desktop's private home and the task home it stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Home {
    real: PathBuf,
}

impl Home {
    pub fn new(real: impl Into<PathBuf>) -> Self {
        Self { real: real.into() }
    }

    pub fn real(&self) -> &Path {
        &self.real
    }

    /// A path a request names (`/home/user/…`, `~/…`, or the private home's own), relative to the
    /// private home; other places on the machine are not the desktop's and are refused.
    pub fn relative(&self, path: &str) -> Result<String, GuestError> {
        let real = self.real.to_string_lossy();
        let rest = [TASK_HOME, "~", real.as_ref()]
            .iter()
            .find_map(|prefix| match path.strip_prefix(prefix) {
                Some("") => Some(""),
                Some(rest) if rest.starts_with('/') => Some(rest.trim_start_matches('/')),
                _ => None,
            })
            .ok_or_else(|| {
                GuestError::Forbidden(format!(
                    "{path} is outside the desktop's home: only {TASK_HOME} (the desktop's own home) is reachable"
                ))
            })?;
        Ok(rest.to_string())
    }

    /// The private home's path for `path` (see [`Home::relative`]).
    pub fn resolve(&self, path: &str) -> Result<PathBuf, GuestError> {
        let relative = self.relative(path)?;
        if Path::new(&relative).components().any(|c| matches!(c, std::path::Component::ParentDir)) {
            return Err(GuestError::Forbidden(format!("{path} leaves the home with `..`")));
        }
        Ok(self.real.join(relative))
    }

    /// `path` under the private home as the task sees it.
    pub fn shown(&self, path: &Path) -> String {
        match path.strip_prefix(&self.real) {
            Ok(rest) if rest.as_os_str().is_empty() => TASK_HOME.to_string(),
            Ok(rest) => format!("{TASK_HOME}/{}", rest.display()),
            Err(_) => path.display().to_string(),
        }
    }

    /// Text a command or app wrote (its output, a window's title): the private home's path named as
    /// the task home, so that what an evaluator compares reads as it would in OSWorld's VM.
    pub fn show_text(&self, text: &str) -> String {
        let real = self.real.to_string_lossy();
        if real.is_empty() || real == "/" {
            return text.to_string();
        }
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(i) = rest.find(real.as_ref()) {
            let after = rest[i + real.len()..].chars().next();
            // Only the path itself, not a longer name that starts with it (`…/home2`).
            let whole = after.is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '-' || c == '.'));
            out.push_str(&rest[..i]);
            out.push_str(if whole { TASK_HOME } else { &real });
            rest = &rest[i + real.len()..];
        }
        out.push_str(rest);
        out
    }

    /// One argument of a command: a leading `~/` (OSWorld's guest expands it in arguments itself),
    /// and every `/home/user` path in it as [`Self::shell_line`] finds them, moved onto the private
    /// home. An argument is often more than a path: `--outdir=/home/user/x`, or the code of
    /// `python -c "open('/home/user/a.txt')"`.
    pub fn argument(&self, arg: &str) -> String {
        match arg.strip_prefix("~/") {
            Some(rest) => format!("{}/{}", self.real.to_string_lossy(), self.shell_line(rest)),
            None => self.shell_line(arg),
        }
    }

    /// A shell command line: every `/home/user` that starts a path (after a space, quote, `=`, `:`,
    /// `(` or the start) and ends at a `/` or a word's end moved onto the private home. `~` is left to
    /// the shell, whose `HOME` is the private home.
    pub fn shell_line(&self, line: &str) -> String {
        let real = self.real.to_string_lossy();
        let mut out = String::with_capacity(line.len());
        let mut rest = line;
        let mut before: Option<char> = None;
        while let Some(i) = rest.find(TASK_HOME) {
            let prev = rest[..i].chars().next_back().or(before);
            let after = rest[i + TASK_HOME.len()..].chars().next();
            let starts = prev.is_none_or(|c| c.is_whitespace() || "'\"=:(;|&<>`".contains(c));
            let ends = after.is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '-' || c == '.'));
            out.push_str(&rest[..i]);
            out.push_str(if starts && ends { &real } else { TASK_HOME });
            before = TASK_HOME.chars().next_back();
            rest = &rest[i + TASK_HOME.len()..];
        }
        out.push_str(rest);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn home() -> Home {
        Home::new("/tmp/handrail-sandbox-7-x/home")
    }

    #[test]
    fn task_paths_land_in_the_private_home() {
        let h = home();
        assert_eq!(h.relative("/home/user/Desktop/a.xlsx").as_deref(), Ok("Desktop/a.xlsx"));
        assert_eq!(h.relative("~/a.txt").as_deref(), Ok("a.txt"));
        assert_eq!(h.relative("/home/user").as_deref(), Ok(""));
        assert_eq!(h.relative("/tmp/handrail-sandbox-7-x/home/b").as_deref(), Ok("b"));
        for outside in ["/etc/passwd", "/home/username/x", "/home/user2", "relative.txt", "~user/x"] {
            assert!(matches!(h.relative(outside), Err(GuestError::Forbidden(_))), "{outside}");
        }
        assert!(h.resolve("/home/user/../root").is_err());
        assert_eq!(h.shown(Path::new("/tmp/handrail-sandbox-7-x/home/Desktop")), "/home/user/Desktop");
    }

    #[test]
    fn commands_name_the_private_home() {
        let h = home();
        assert_eq!(h.argument("~/Desktop/a b.docx"), "/tmp/handrail-sandbox-7-x/home/Desktop/a b.docx");
        assert_eq!(h.argument("/home/user"), "/tmp/handrail-sandbox-7-x/home");
        assert_eq!(h.argument("/home/username"), "/home/username");
        assert_eq!(h.argument("--outdir=/home/user/x"), "--outdir=/tmp/handrail-sandbox-7-x/home/x");
        assert_eq!(
            h.argument("open('/home/user/a.txt').read()"),
            "open('/tmp/handrail-sandbox-7-x/home/a.txt').read()"
        );
        assert_eq!(h.argument("~"), "~", "a bare ~ is not expanded in an argument, as in OSWorld's guest");
        assert_eq!(h.argument("x/home/user/a"), "x/home/user/a");
        assert_eq!(
            h.shell_line("cd /home/user && cp '/home/user/a' /home/username/b --out=/home/user/c"),
            "cd /tmp/handrail-sandbox-7-x/home && cp '/tmp/handrail-sandbox-7-x/home/a' /home/username/b --out=/tmp/handrail-sandbox-7-x/home/c"
        );
        assert_eq!(h.shell_line("x/home/user y"), "x/home/user y");
    }

    #[test]
    fn output_names_the_task_home() {
        let h = home();
        assert_eq!(
            h.show_text("/tmp/handrail-sandbox-7-x/home/Documents/a.txt\n/tmp/handrail-sandbox-7-x/home\n"),
            "/home/user/Documents/a.txt\n/home/user\n"
        );
        assert_eq!(h.show_text("/tmp/handrail-sandbox-7-x/home2/x"), "/tmp/handrail-sandbox-7-x/home2/x");
        assert_eq!(h.show_text("nothing here"), "nothing here");
    }

    proptest! {
        /// Text without the task home passes through a shell line unchanged; with it, every
        /// replacement names the private home and nothing else changes length but by the difference.
        #[test]
        fn shell_lines_change_only_the_task_home(line in "[ a-z/'\"=.-]{0,40}") {
            let h = home();
            let moved = h.shell_line(&line);
            if !line.contains(TASK_HOME) {
                prop_assert_eq!(&moved, &line);
            }
            prop_assert_eq!(moved.replace("/tmp/handrail-sandbox-7-x/home", TASK_HOME), line);
        }
    }
}

//! `/proc/PID/stat`, the fields handrail reads.

/// One line of `/proc/PID/stat` (or `/proc/PID/task/TID/stat`), the fields used here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Stat {
    pub pid: u32,
    pub comm: String,
    /// `R` running or waiting for a CPU, `S` asleep, `D` in an uninterruptible wait, …
    pub state: char,
    pub ppid: u32,
    /// Controlling terminal's device number; 0 for none.
    pub tty: i64,
    /// Foreground process group of the controlling terminal; -1 for none.
    pub tpgid: i64,
}

/// Parses `/proc/PID/stat`. The name is in parentheses and may itself hold spaces and parentheses, so
/// the fields are counted from the last `)`.
pub(crate) fn parse_stat(text: &str) -> Option<Stat> {
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    let pid = text.get(..open)?.trim().parse().ok()?;
    let comm = text.get(open + 1..close)?.to_string();
    // After the name: state ppid pgrp session tty_nr tpgid …
    let rest: Vec<&str> = text.get(close + 1..)?.split_ascii_whitespace().collect();
    let mut state = rest.first()?.chars();
    let (Some(state), None) = (state.next(), state.next()) else { return None };
    Some(Stat {
        pid,
        comm,
        state,
        ppid: rest.get(1)?.parse().ok()?,
        tty: rest.get(4)?.parse().ok()?,
        tpgid: rest.get(5)?.parse().ok()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_lines_parse_with_odd_names() {
        let s = parse_stat("4242 (my (odd) prog) R 1 4242 4242 34816 4250 4194304 1 2 3").expect("parses");
        let want = Stat { pid: 4242, comm: "my (odd) prog".into(), state: 'R', ppid: 1, tty: 34816, tpgid: 4250 };
        assert_eq!(s, want);
        assert_eq!(parse_stat("garbage"), None);
        assert_eq!(parse_stat("12 (x) S"), None);
        assert_eq!(parse_stat("12 (x) SS 1 1 1 0 -1"), None, "a state is one letter");
    }

    #[test]
    fn this_process_reads_as_running() {
        let own = std::fs::read_to_string("/proc/thread-self/stat").expect("own stat");
        let s = parse_stat(&own).expect("parses");
        assert_eq!(s.state, 'R', "the thread reading its own stat is running");
    }
}

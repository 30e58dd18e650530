//! Knowing when processes have handled everything sent to them: every thread asleep, and none run
//! since the last look, for a while.
//!
//! An app that has read and handled its input goes back to waiting for more: its threads sleep (`S`)
//! and the kernel's count of how often each was put on a CPU (`/proc/PID/task/TID/schedstat`, third
//! field) stops moving. A thread that has been woken but waits for a CPU on a busy machine reads `R`;
//! one woken and run again since the last look has a higher count. So "asleep with the same counts
//! for `quiet`" means nothing reached them in that time that they have not finished with — the signal
//! a sender on a busy machine needs instead of a fixed pause. A write to a socket wakes its reader at
//! once, so a chain of processes passing work along (a compositor and its clients) is idle only when
//! the whole chain is.
//!
//! An app drawing frame after frame (GTK during a drag, anything animating) is never quiet for long:
//! it wakes each frame, and may hold input it has read until its next frame. For it the rule is its
//! own cycles: once its main thread has gone back to waiting a few times since the wait began, what
//! was sent before has been through a frame, and a moment with everyone asleep is enough
//! ([`IdleRule::cycles`]). Going back to waiting is the kernel's count of the thread's voluntary
//! context switches (`status`), not of its runs: on a busy machine a thread is taken off its CPU in
//! the middle of a frame and put back, two runs of one frame.
//!
//! Quiet is counted only over gaps between looks short enough to vouch for: when the looking thread
//! itself did not run for a while (a loaded machine, a virtual machine whose CPUs the host took away),
//! the watched ones may not have either, and their silence then means nothing ([`TRUSTED_GAP`]).
//!
//! Without schedstat (a kernel built without `CONFIG_SCHED_INFO`) the CPU time in `stat` stands in; it
//! moves in clock ticks, so short runs between looks can go unseen, and the states carry more weight.

use std::collections::BTreeMap;
use std::fs;
use std::thread::sleep;
use std::time::{Duration, Instant};

use crate::stat::parse_stat;

/// How often the threads are looked at while waiting.
pub const IDLE_LOOK_EVERY: Duration = Duration::from_millis(2);

/// How a wait for idle processes ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Idle {
    /// Every thread slept, unrun, for the quiet time (processes that are gone count as idle).
    Reached { waited: Duration },
    /// The ceiling came first.
    StillBusy { waited: Duration },
}

impl Idle {
    pub fn waited(self) -> Duration {
        match self {
            Idle::Reached { waited } | Idle::StillBusy { waited } => waited,
        }
    }
}

/// When processes count as having handled what was sent to them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IdleRule {
    /// Everyone asleep and unrun for this long: longer than a frame (an app that read input may hold
    /// it until its next frame, and at rest nothing wakes it but that frame's timer).
    pub quiet: Duration,
    /// Or: the main thread of this process has gone back to waiting `cycles` times since the wait
    /// began (its frames went by), at least `quiet` has passed, and everyone is asleep and unrun for
    /// `brief`.
    pub cycling: Option<u32>,
    pub cycles: u64,
    pub brief: Duration,
    /// Never wait longer than this.
    pub ceiling: Duration,
}

impl IdleRule {
    /// Quiet for `quiet`, nothing else, within `ceiling`.
    pub fn quiet(quiet: Duration, ceiling: Duration) -> IdleRule {
        IdleRule { quiet, cycling: None, cycles: 0, brief: quiet, ceiling }
    }
}

/// What one look saw: each thread's run count, whether all of them were asleep, and how often the
/// cycling process's main thread has gone to sleep of its own accord (when the rule has one).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct Look {
    runs: BTreeMap<(u32, u32), u64>,
    all_asleep: bool,
    main_waits: Option<u64>,
}

/// The longest gap between two looks whose quiet counts. A longer one means the looking thread did not
/// run in between — a busy machine, or a virtual machine whose CPUs the host took away — and then the
/// watched threads may well not have had a CPU either: that nobody ran in such a gap says nothing.
pub const TRUSTED_GAP: Duration = Duration::from_millis(8);

/// Blocks until the threads of `pids` count as idle by `rule`, or its ceiling passed.
pub fn wait_until_idle(pids: &[u32], rule: &IdleRule) -> Idle {
    let start = Instant::now();
    let mut last = look(pids, rule.cycling);
    let mut last_at = start;
    let first_main = last.main_waits;
    // Quiet time seen so far, summed over trusted gaps only.
    let mut still = Duration::ZERO;
    loop {
        let now = Instant::now();
        let waited = now.duration_since(start);
        let cycled = match (first_main, last.main_waits) {
            (Some(a), Some(b)) => b.saturating_sub(a) >= rule.cycles,
            _ => false,
        };
        // Cycling counts only once a quiet time has passed since the start, so one burst of runs
        // (reading input, then handling it) is not taken for frames going by.
        let cycled = cycled && waited >= rule.quiet;
        if last.all_asleep && (still >= rule.quiet || (cycled && still >= rule.brief)) {
            return Idle::Reached { waited };
        }
        if waited >= rule.ceiling {
            return Idle::StillBusy { waited };
        }
        sleep(IDLE_LOOK_EVERY);
        let next = look(pids, rule.cycling);
        let at = Instant::now();
        if next != last || !next.all_asleep {
            still = Duration::ZERO;
        } else if at.duration_since(last_at) <= TRUSTED_GAP {
            still += at.duration_since(last_at);
        }
        last = next;
        last_at = at;
    }
}

fn look(pids: &[u32], cycling: Option<u32>) -> Look {
    let mut seen = Look { runs: BTreeMap::new(), all_asleep: true, main_waits: None };
    for &pid in pids {
        // A process that is gone (or was never visible here) holds nothing up.
        let Ok(tasks) = fs::read_dir(format!("/proc/{pid}/task")) else { continue };
        for task in tasks.flatten() {
            let Some(tid) = task.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
            // A thread can end between the listing and the read: it holds nothing up either.
            let Ok(text) = fs::read_to_string(task.path().join("stat")) else { continue };
            let Some(stat) = parse_stat(&text) else { continue };
            if !asleep(stat.state) {
                seen.all_asleep = false;
            }
            let runs = fs::read_to_string(task.path().join("schedstat"))
                .ok()
                .and_then(|t| run_count(&t))
                .or_else(|| cpu_ticks(&text))
                .unwrap_or(0);
            seen.runs.insert((pid, tid), runs);
            if cycling == Some(pid) && tid == pid {
                seen.main_waits =
                    fs::read_to_string(task.path().join("status")).ok().and_then(|t| voluntary_switches(&t));
            }
        }
    }
    seen
}

/// `voluntary_ctxt_switches` of a `status` file: how often the thread gave up its CPU to wait.
fn voluntary_switches(status: &str) -> Option<u64> {
    status.lines().find_map(|l| l.strip_prefix("voluntary_ctxt_switches:")).and_then(|v| v.trim().parse().ok())
}

/// Asleep waiting for something (`S`, an idle kernel thread `I`), or stopped (`T`, `t`: it cannot
/// take anything in until it is continued, so waiting for it helps nothing).
fn asleep(state: char) -> bool {
    matches!(state, 'S' | 'I' | 'T' | 't')
}

/// The third field of `schedstat`: how many times the thread was put on a CPU.
fn run_count(schedstat: &str) -> Option<u64> {
    schedstat.split_ascii_whitespace().nth(2)?.parse().ok()
}

/// User plus system CPU ticks from `stat` (fields 14 and 15).
fn cpu_ticks(stat: &str) -> Option<u64> {
    let rest: Vec<&str> = stat.get(stat.rfind(')')? + 1..)?.split_ascii_whitespace().collect();
    // After the name, field 3 (state) is index 0, so fields 14 and 15 are 11 and 12.
    Some(rest.get(11)?.parse::<u64>().ok()? + rest.get(12)?.parse::<u64>().ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufRead, BufReader};
    use std::process::{Child, ChildStdout, Command, Stdio};

    fn quiet(ceiling_ms: u64) -> IdleRule {
        IdleRule::quiet(Duration::from_millis(20), Duration::from_millis(ceiling_ms))
    }

    #[test]
    fn counters_parse() {
        assert_eq!(run_count("265360803 53870897 1289\n"), Some(1289));
        assert_eq!(run_count("1 2"), None);
        let stat = "7 (a b) S 1 7 7 0 -1 4194560 100 0 0 0 25 12 0 0 20 0 1 0 5 0 0";
        assert_eq!(cpu_ticks(stat), Some(37));
        assert_eq!(cpu_ticks("7 (x) S 1"), None);
        let status = "Name:\tx\nvoluntary_ctxt_switches:\t42\nnonvoluntary_ctxt_switches:\t7\n";
        assert_eq!(voluntary_switches(status), Some(42));
        assert_eq!(voluntary_switches("Name:\tx\n"), None);
    }

    /// A Python child running `script` once its interpreter has loaded: until then it sleeps on file
    /// reads now and then, which on a loaded machine can pass for idle.
    /// Returns it with the rest of its output.
    fn python(script: &str, stdin: Stdio) -> (Child, BufReader<ChildStdout>) {
        let mut child = Command::new("python3")
            .args(["-c", &format!("print('ready', flush=True)\n{script}")])
            .stdin(stdin)
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3");
        let mut line = String::new();
        let mut out = BufReader::new(child.stdout.take().expect("stdout"));
        out.read_line(&mut line).expect("its first line");
        assert_eq!(line.trim(), "ready");
        (child, out)
    }

    #[test]
    fn a_sleeping_process_is_idle_and_a_spinning_one_is_not() {
        let mut sleeper = Command::new("sleep").arg("30").stdout(Stdio::null()).spawn().expect("sleep");
        let mut spinner =
            Command::new("sh").args(["-c", "while :; do :; done"]).stdout(Stdio::null()).spawn().expect("sh");
        let idle = wait_until_idle(&[sleeper.id()], &quiet(10_000));
        let busy = wait_until_idle(&[spinner.id()], &quiet(300));
        let both = wait_until_idle(&[sleeper.id(), spinner.id()], &quiet(300));
        for child in [&mut sleeper, &mut spinner] {
            let _ = child.kill();
            let _ = child.wait();
        }
        assert!(matches!(idle, Idle::Reached { .. }), "{idle:?}");
        assert!(matches!(busy, Idle::StillBusy { .. }), "{busy:?}");
        assert!(matches!(both, Idle::StillBusy { .. }), "one busy process holds the wait: {both:?}");
        assert!(busy.waited() >= Duration::from_millis(300));
    }

    /// CLOCK_MONOTONIC in nanoseconds: the clock Python's `time.monotonic_ns` reads.
    fn monotonic_ns() -> u64 {
        let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: clock_gettime writes into the timespec we own.
        let status = unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
        assert_eq!(status, 0, "clock_gettime");
        ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
    }

    /// A process woken every `period` that writes down when each wake ran, so a test can check what
    /// the waiting saw against what really happened: a timer on a loaded machine (or a virtual one
    /// whose CPU the host took away) fires late now and then, and then the process really was quiet.
    struct Ticker {
        child: Child,
        wakes: std::thread::JoinHandle<Vec<u64>>,
    }

    impl Ticker {
        fn start(period: Duration) -> Ticker {
            let script = format!(
                "import sys, time\nwhile True:\n    time.sleep({})\n    sys.stdout.write(f'{{time.monotonic_ns()}}\\n')\n    sys.stdout.flush()",
                period.as_secs_f64()
            );
            let (child, out) = python(&script, Stdio::null());
            let wakes = std::thread::spawn(move || {
                out.lines().map_while(Result::ok).filter_map(|l| l.trim().parse().ok()).collect()
            });
            Ticker { child, wakes }
        }

        fn pid(&self) -> u32 {
            self.child.id()
        }

        /// Stops it; every wake it wrote down.
        fn stop(mut self) -> Vec<u64> {
            let _ = self.child.kill();
            let _ = self.child.wait();
            self.wakes.join().expect("the reader of its wakes")
        }
    }

    /// The longest stretch between `from` and `to` in which the ticker did not wake.
    fn longest_quiet(wakes: &[u64], from: u64, to: u64) -> Duration {
        let inside = wakes.iter().copied().filter(|&w| w > from && w < to);
        let edges: Vec<u64> = std::iter::once(from).chain(inside).chain(std::iter::once(to)).collect();
        Duration::from_nanos(edges.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0))
    }

    /// Waits for the ticker by `rule`: the answer, and when the watching began and ended.
    fn watch(ticker: &Ticker, rule: &IdleRule) -> (Idle, u64, u64) {
        let from = monotonic_ns();
        let idle = wait_until_idle(&[ticker.pid()], rule);
        (idle, from, monotonic_ns())
    }

    #[test]
    fn a_process_woken_often_is_not_idle_although_it_sleeps_between() {
        // Asleep at nearly every look, but run every 5 ms: its run count gives it away. Found idle
        // only where it really did not run for the quiet time (a late timer on a loaded machine).
        let ticker = Ticker::start(Duration::from_millis(5));
        let (woken, from, to) = watch(&ticker, &quiet(300));
        let wakes = ticker.stop();
        let real_quiet = longest_quiet(&wakes, from, to);
        assert!(wakes.len() >= 2, "the ticker ran: {wakes:?}");
        if real_quiet < Duration::from_millis(20) {
            assert!(matches!(woken, Idle::StillBusy { .. }), "it woke at least every {real_quiet:?}: {woken:?}");
        }
    }

    #[test]
    fn a_process_that_is_gone_holds_nothing_up() {
        let mut child = Command::new("true").spawn().expect("true");
        let pid = child.id();
        let _ = child.wait();
        assert!(matches!(wait_until_idle(&[pid], &quiet(5000)), Idle::Reached { .. }));
    }

    #[test]
    fn work_sent_to_a_sleeping_reader_is_waited_for() {
        // A reader that spends 200 ms of CPU on each line it gets, in its own process: idle before a
        // line, busy after.
        let (mut reader, _out) = python(
            "import sys, time\nfor line in sys.stdin:\n    end = time.monotonic() + 0.2\n    while time.monotonic() < end: pass",
            Stdio::piped(),
        );
        let pid = reader.id();
        let before = wait_until_idle(&[pid], &quiet(10_000));
        let mut stdin = reader.stdin.take().expect("stdin");
        std::io::Write::write_all(&mut stdin, b"go\n").expect("write");
        let after = wait_until_idle(&[pid], &quiet(10_000));
        drop(stdin);
        let _ = reader.kill();
        let _ = reader.wait();
        assert!(matches!(before, Idle::Reached { .. }), "{before:?}");
        assert!(matches!(after, Idle::Reached { .. }), "{after:?}");
        assert!(after.waited() >= Duration::from_millis(190), "the line's work was waited for: {after:?}");
    }

    #[test]
    fn an_app_drawing_frames_is_idle_once_its_frames_went_by() {
        // Woken every 16 ms like an app drawing at 60 Hz: never quiet for 20 ms (unless a timer fires
        // late on a loaded machine, which its record of its wakes shows), but between frames for 5 ms
        // once a few frames went by.
        let frames = Ticker::start(Duration::from_millis(16));
        let (by_quiet, from, to) = watch(&frames, &quiet(500));
        let rule = IdleRule { cycling: Some(frames.pid()), cycles: 3, brief: Duration::from_millis(5), ..quiet(2000) };
        let (by_cycles, _, _) = watch(&frames, &rule);
        let wakes = frames.stop();
        let real_quiet = longest_quiet(&wakes, from, to);
        if real_quiet < Duration::from_millis(20) {
            assert!(matches!(by_quiet, Idle::StillBusy { .. }), "it woke at least every {real_quiet:?}: {by_quiet:?}");
        }
        assert!(matches!(by_cycles, Idle::Reached { .. }), "{by_cycles:?}");
        assert!(by_cycles.waited() >= Duration::from_millis(30), "three frames went by: {by_cycles:?}");
    }
}

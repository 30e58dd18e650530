//! The reaper: a tiny `sh` process that cleans up a sandbox if its owner dies without tearing it down
//! (SIGKILL, panic=abort, OOM kill).
//!
//! It blocks reading a pipe whose only write end lives in the owner (close-on-exec, so no sandbox
//! process inherits it). When the owner dies, the kernel closes that end, the read returns EOF, and the
//! reaper terminates every process whose environment carries the sandbox marker, removes a stale X lock
//! and socket, and deletes the sandbox's temporary root. On a normal stop the owner tears down itself
//! and then kills the reaper. The reaper does not carry the marker, ignores SIGINT/SIGHUP/SIGTERM and
//! lives in its own process group, so a Ctrl-C aimed at the owner's terminal does not take it down.

use std::os::fd::OwnedFd;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};

use crate::procs::MARKER_VAR;

/// File in the sandbox root holding the display number, written once Xvfb owns it (the reaper starts
/// before the display is chosen).
pub(crate) const DISPLAY_FILE: &str = "display";

// $1 = marker id, $2 = sandbox root. Only POSIX sh, grep, sed, kill, sleep, rm: all in Debian's base.
const SCRIPT: &str = r#"
trap '' INT HUP TERM PIPE
# Block until the owner's write end closes (nothing is ever written).
while read -r _; do :; done
m="HANDRAIL_SANDBOX=$1"
root=$2
pids() {
  for f in $(grep -lzxF -e "$m" /proc/[0-9]*/environ 2>/dev/null); do
    p=${f#/proc/}; printf '%s ' "${p%/environ}"
  done
}
alive() {
  s=$(sed -n 's/^.*) \(.\).*$/\1/p' "/proc/$1/stat" 2>/dev/null)
  [ -n "$s" ] && [ "$s" != Z ]
}
seen=''
n=0
while [ $n -lt 60 ]; do
  p=$(pids)
  seen="$seen $p"
  # Also wait for processes found earlier that lost their environment (and so the marker) while exiting.
  left=''
  for q in $seen; do alive "$q" && left="$left $q"; done
  seen=$left
  [ -z "$p" ] && [ -z "$left" ] && break
  # About 1 s of SIGTERM (re-sent to late forks), then SIGKILL; only to processes with the marker.
  if [ -n "$p" ]; then
    if [ $n -lt 20 ]; then kill -TERM $p 2>/dev/null; else kill -KILL $p 2>/dev/null; fi
  fi
  n=$((n + 1))
  sleep 0.05
done
d=$(cat "$root/display" 2>/dev/null)
case $d in
  ''|*[!0-9]*) ;;
  *)
    lock="/tmp/.X$d-lock"
    lp=$(tr -dc 0-9 < "$lock" 2>/dev/null)
    if [ -n "$lp" ] && ! alive "$lp"; then rm -f "$lock" "/tmp/.X11-unix/X$d"; fi
    ;;
esac
case $root in
  */handrail-sandbox-*) rm -rf -- "$root" ;;
esac
"#;

/// Start the reaper for sandbox `id` rooted at `root`; it watches `read_end`.
pub(crate) fn spawn(id: &str, root: &Path, read_end: OwnedFd) -> std::io::Result<Child> {
    let mut cmd = Command::new("/bin/sh");
    cmd.arg("-c")
        .arg(SCRIPT)
        .arg("handrail-sandbox-reaper")
        .arg(id)
        .arg(root)
        .env_remove(MARKER_VAR)
        .stdin(Stdio::from(read_end))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        // Own process group: terminal signals to the owner's group do not reach it.
        .process_group(0);
    cmd.spawn()
}

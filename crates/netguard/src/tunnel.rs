//! `CONNECT host:port`: judged as `https://host:port/`, then bytes copied both ways.

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::conn;
use crate::head::RequestHead;
use crate::page;
use crate::policy::{self, Verdict};
use crate::ConnGuard;

/// Handles a CONNECT request whose head has been read; `early` is what the client sent after it.
pub(crate) fn handle(conn: &ConnGuard, client: &TcpStream, head: &RequestHead, early: Vec<u8>) {
    let shared = &conn.shared;
    let dest = match policy::judge_connect(&head.target, &shared.policy) {
        Err(why) => return conn::bad_request(conn, client, head, why),
        Ok(Verdict::Refused { url, reason }) => {
            shared.record_blocked(&head.method, &url, &reason);
            let text = format!("blocked by handrail's URL policy: {url}: {reason}");
            return page::text(client, 403, &text, false);
        }
        Ok(Verdict::Allowed(dest)) => dest,
    };
    shared.record_allowed(&head.method, dest.url.as_str());
    let upstream = match conn::connect(conn, &dest) {
        Ok(s) => s,
        Err(e) => {
            let (status, text) = e.answer(&dest);
            log::debug!("CONNECT {}: {text}", dest.url);
            return page::text(client, status, &text, false);
        }
    };
    if (&*client).write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n").is_err() {
        let _ = upstream.shutdown(Shutdown::Both);
        return;
    }
    splice(client, &upstream, &early, &[], shared.limits.idle_timeout);
}

/// How a copy direction ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    /// The reading side closed its sending half.
    Eof,
    /// An error, or no byte either way for the idle timeout.
    Broken,
}

/// Copies bytes both ways between `client` and `upstream` until both directions are closed, either
/// side fails, or nothing moves either way for `idle`. `to_upstream` and `to_client` are bytes already
/// read that belong to the stream. A clean close of one side is passed on as a half-close; a failure
/// shuts both sockets down at once. Both sockets are always shut down at the end.
pub(crate) fn splice(client: &TcpStream, upstream: &TcpStream, to_upstream: &[u8], to_client: &[u8], idle: Duration) {
    let start = Instant::now();
    let last = AtomicU64::new(0);
    let activity = Activity { start, last: &last, idle };
    std::thread::scope(|s| {
        let back = std::thread::Builder::new()
            .name("netguard-splice".into())
            .stack_size(crate::THREAD_STACK)
            .spawn_scoped(s, || pump(upstream, client, to_client, &activity));
        match back {
            Ok(_) => {
                pump(client, upstream, to_upstream, &activity);
            }
            Err(e) => {
                log::warn!("proxy could not start a copy thread: {e}");
                let _ = client.shutdown(Shutdown::Both);
                let _ = upstream.shutdown(Shutdown::Both);
            }
        }
    });
    let _ = client.shutdown(Shutdown::Both);
    let _ = upstream.shutdown(Shutdown::Both);
}

/// When bytes last moved in either direction.
struct Activity<'a> {
    start: Instant,
    last: &'a AtomicU64,
    idle: Duration,
}

impl Activity<'_> {
    fn touch(&self) {
        let ms = u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last.store(ms, Ordering::Relaxed);
    }

    fn idle_for(&self) -> Duration {
        let since = Duration::from_millis(self.last.load(Ordering::Relaxed));
        self.start.elapsed().saturating_sub(since)
    }
}

/// One direction: `first`, then whatever `from` sends, written to `to`.
fn pump(from: &TcpStream, to: &TcpStream, first: &[u8], activity: &Activity<'_>) -> End {
    let end = copy_direction(from, to, first, activity);
    match end {
        End::Eof => {
            let _ = to.shutdown(Shutdown::Write);
        }
        End::Broken => {
            let _ = from.shutdown(Shutdown::Both);
            let _ = to.shutdown(Shutdown::Both);
        }
    }
    end
}

fn copy_direction(from: &TcpStream, to: &TcpStream, first: &[u8], activity: &Activity<'_>) -> End {
    if !first.is_empty() && (&*to).write_all(first).is_err() {
        return End::Broken;
    }
    // Wake up now and then to see whether the other direction is still moving.
    let poll = (activity.idle / 4).max(Duration::from_millis(10));
    if from.set_read_timeout(Some(poll)).is_err() {
        return End::Broken;
    }
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        match (&*from).read(&mut buf) {
            Ok(0) => return End::Eof,
            Ok(n) => {
                activity.touch();
                if (&*to).write_all(&buf[..n]).is_err() {
                    return End::Broken;
                }
                activity.touch();
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) => {
                if activity.idle_for() >= activity.idle {
                    return End::Broken;
                }
            }
            Err(_) => return End::Broken,
        }
    }
}

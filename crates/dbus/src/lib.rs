//! A minimal D-Bus client: unix-socket transport, EXTERNAL authentication, pipelined method calls.
//!
//! Why not zbus: its users here (the accessibility walk of `handrail-atspi`, the desktops' own
//! interfaces) need many calls in flight, hard per-call deadlines and nothing else. D-Bus pipelines
//! natively (replies carry the serial of their call), so one socket, a reader thread and a channel
//! give the same concurrency as an async runtime, without one (zbus + atspi is ~100 crates and
//! minutes of build time on the project's 2-core machines).
//!
//! A [`Bus`] owns the write half. A reader thread parses every incoming message: replies go to a
//! channel the caller drains ([`Bus::recv`]), signals to a callback (the accessibility event cache,
//! say).
#![cfg(target_os = "linux")]

mod error;
mod fds;
pub mod wire;

pub use error::DbusError;

use fds::FdStream;

use std::io::{BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::time::{Duration, Instant};

use wire::{Arg, Call, Message};

/// Called on the reader thread for every signal.
pub type SignalHandler = Box<dyn FnMut(&Message) + Send>;

/// One connection to a message bus.
pub struct Bus {
    stream: UnixStream,
    out: Vec<u8>,
    serial: u32,
    replies: Receiver<Message>,
    closed: Arc<AtomicBool>,
    unique_name: String,
}

/// What waiting for a reply produced.
#[derive(Debug)]
pub enum Recv {
    Message(Box<Message>),
    Timeout,
    Closed,
}

impl Bus {
    /// Connects to `address`, authenticates and says Hello, all within `timeout`.
    pub fn connect(address: &str, timeout: Duration, on_signal: SignalHandler) -> Result<Bus, DbusError> {
        let deadline = Instant::now() + timeout;
        let mut stream = open_socket(address)?;
        let remaining = || deadline.saturating_duration_since(Instant::now()).max(Duration::from_millis(1));
        stream.set_read_timeout(Some(remaining()))?;
        stream.set_write_timeout(Some(remaining()))?;
        authenticate(&mut stream)?;

        // Hello must be the first message; read synchronously until its reply (a NameAcquired signal may
        // come first).
        let hello = Call {
            destination: "org.freedesktop.DBus",
            path: "/org/freedesktop/DBus",
            interface: "org.freedesktop.DBus",
            member: "Hello",
            args: &[],
            flags: 0,
        };
        stream.write_all(&wire::encode_call(&hello, 1)?)?;
        let unique_name = loop {
            stream.set_read_timeout(Some(remaining()))?;
            let m = read_message(&mut stream).map_err(|e| match e {
                DbusError::Io(io) if is_timeout(&io) => DbusError::Timeout { what: "Hello", after: timeout },
                e => e,
            })?;
            if m.reply_serial == Some(1) {
                if m.kind == wire::ERROR {
                    return Err(DbusError::Auth(format!("Hello refused: {}", m.error_name)));
                }
                break m.first()?.as_str().unwrap_or_default().to_owned();
            }
        };
        stream.set_read_timeout(None)?;

        let (tx, replies) = mpsc::channel();
        let closed = Arc::new(AtomicBool::new(false));
        let reader = stream.try_clone()?;
        let flag = closed.clone();
        std::thread::Builder::new()
            .name("handrail-dbus-reader".into())
            .spawn(move || read_loop(reader, tx, on_signal, flag))?;
        Ok(Bus { stream, out: Vec::new(), serial: 1, replies, closed, unique_name })
    }

    pub fn unique_name(&self) -> &str {
        &self.unique_name
    }

    /// True once the reader saw the connection end.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Relaxed)
    }

    /// Bounds how long a write may block (a bus that stops reading must not hang the caller).
    pub fn set_write_timeout(&self, timeout: Duration) -> Result<(), DbusError> {
        Ok(self.stream.set_write_timeout(Some(timeout.max(Duration::from_millis(1))))?)
    }

    /// Queues a call (sent by [`Bus::flush`]) and returns its serial.
    pub fn queue(&mut self, call: &Call<'_>) -> Result<u32, DbusError> {
        self.serial = self.serial.checked_add(1).unwrap_or(1);
        let bytes = wire::encode_call(call, self.serial)?;
        self.out.extend_from_slice(&bytes);
        Ok(self.serial)
    }

    /// Writes every queued call.
    pub fn flush(&mut self) -> Result<(), DbusError> {
        if self.out.is_empty() {
            return Ok(());
        }
        let res = self.stream.write_all(&self.out);
        self.out.clear();
        if res.is_err() {
            // A partial write leaves the stream mid-message: the connection is unusable.
            self.closed.store(true, Ordering::Relaxed);
            let _ = self.stream.shutdown(std::net::Shutdown::Both);
        }
        Ok(res?)
    }

    /// Waits up to `timeout` for the next reply (or error) to any call.
    pub fn recv(&self, timeout: Duration) -> Recv {
        match self.replies.recv_timeout(timeout) {
            Ok(m) => Recv::Message(Box::new(m)),
            Err(RecvTimeoutError::Timeout) => Recv::Timeout,
            Err(RecvTimeoutError::Disconnected) => Recv::Closed,
        }
    }

    /// Sends one call and waits for its reply, discarding replies to older calls.
    pub fn call(&mut self, call: &Call<'_>, timeout: Duration, what: &'static str) -> Result<Message, DbusError> {
        let deadline = Instant::now() + timeout;
        let serial = self.queue(call)?;
        self.flush()?;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(DbusError::Timeout { what, after: timeout });
            }
            match self.recv(left) {
                Recv::Message(m) if m.reply_serial == Some(serial) => return into_result(*m),
                Recv::Message(_) => {}
                Recv::Timeout => return Err(DbusError::Timeout { what, after: timeout }),
                Recv::Closed => return Err(DbusError::Closed),
            }
        }
    }

    /// Sends `calls` in order, in one write, and waits for every reply: the first error any of them
    /// got, or a timeout when not all were answered in `timeout`. Replies to older calls are
    /// discarded. For bursts whose order matters and that must all have been carried out (input).
    pub fn call_all(&mut self, calls: &[Call<'_>], timeout: Duration, what: &'static str) -> Result<(), DbusError> {
        let deadline = Instant::now() + timeout;
        let mut waiting = std::collections::HashSet::new();
        for c in calls {
            waiting.insert(self.queue(c)?);
        }
        self.flush()?;
        let mut first_error = None;
        while !waiting.is_empty() {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(DbusError::Timeout { what, after: timeout });
            }
            match self.recv(left) {
                Recv::Message(m) => {
                    if m.reply_serial.is_some_and(|s| waiting.remove(&s)) {
                        if let Err(e) = into_result(*m) {
                            first_error.get_or_insert(e);
                        }
                    }
                }
                Recv::Timeout => return Err(DbusError::Timeout { what, after: timeout }),
                Recv::Closed => return Err(DbusError::Closed),
            }
        }
        first_error.map_or(Ok(()), Err)
    }

    /// Sends calls whose replies nobody waits for (match rules, event registration).
    pub fn send_all(&mut self, calls: &[Call<'_>]) -> Result<(), DbusError> {
        for c in calls {
            self.queue(c)?;
        }
        self.flush()
    }
}

impl Drop for Bus {
    fn drop(&mut self) {
        // Ends the reader thread: its blocking read returns at once.
        let _ = self.stream.shutdown(std::net::Shutdown::Both);
    }
}

/// A reply as a result: D-Bus errors become [`DbusError::Remote`].
pub fn into_result(m: Message) -> Result<Message, DbusError> {
    if m.kind == wire::ERROR {
        // The error text is the first string argument, when there is one.
        let message = m.values().ok().and_then(|v| v.first().and_then(|x| x.as_str().map(str::to_owned)));
        return Err(DbusError::Remote { name: m.error_name, message: message.unwrap_or_default() });
    }
    Ok(m)
}

/// A method call with string arguments, for one-off calls.
pub fn simple_call<'a>(
    destination: &'a str,
    path: &'a str,
    interface: &'a str,
    member: &'a str,
    args: &'a [Arg],
) -> Call<'a> {
    Call { destination, path, interface, member, args, flags: 0 }
}

fn is_timeout(e: &std::io::Error) -> bool {
    matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut)
}

fn read_loop(stream: UnixStream, tx: Sender<Message>, mut on_signal: SignalHandler, closed: Arc<AtomicBool>) {
    let mut r = BufReader::with_capacity(256 << 10, FdStream::new(stream));
    loop {
        let mut m = match read_message(&mut r) {
            Ok(m) => m,
            Err(e) => {
                log::debug!("bus reader stops: {e}");
                break;
            }
        };
        // Descriptors arrive in the order of the bytes they were sent with: a message's are the
        // next ones queued.
        m.fds = r.get_mut().take_fds(m.unix_fds).into_iter().map(Arc::new).collect();
        match m.kind {
            wire::METHOD_RETURN | wire::ERROR => {
                // A send error means the Bus is gone.
                let Ok(()) = tx.send(m) else { break };
            }
            wire::SIGNAL => on_signal(&m),
            _ => {} // nobody calls a client; ignore
        }
    }
    closed.store(true, Ordering::Relaxed);
}

fn read_message(r: &mut impl Read) -> Result<Message, DbusError> {
    let mut head = [0u8; 16];
    r.read_exact(&mut head)?;
    let total = wire::message_len(&head)?;
    let mut buf = vec![0u8; total];
    buf[..16].copy_from_slice(&head);
    r.read_exact(&mut buf[16..])?;
    wire::decode_message(&buf)
}

/// SASL EXTERNAL with our effective uid; the server checks it against the socket's peer credentials.
fn authenticate(stream: &mut UnixStream) -> Result<(), DbusError> {
    // SAFETY: geteuid has no preconditions and cannot fail.
    let uid = unsafe { libc::geteuid() };
    let hex: String = uid.to_string().bytes().map(|b| format!("{b:02x}")).collect();
    stream.write_all(format!("\0AUTH EXTERNAL {hex}\r\n").as_bytes())?;
    let line = read_line(stream)?;
    if !line.starts_with("OK ") {
        return Err(DbusError::Auth(line));
    }
    // File descriptors in messages (a screen cast's PipeWire connection, a clipboard transfer);
    // a bus that refuses them still serves everything else.
    stream.write_all(b"NEGOTIATE_UNIX_FD\r\n")?;
    let line = read_line(stream)?;
    if line != "AGREE_UNIX_FD" {
        log::debug!("the bus passes no file descriptors: {line}");
    }
    stream.write_all(b"BEGIN\r\n")?;
    Ok(())
}

/// Reads one CRLF-terminated line byte by byte (nothing after it may be consumed).
fn read_line(stream: &mut UnixStream) -> Result<String, DbusError> {
    let mut line = Vec::new();
    let mut byte = [0u8; 1];
    while line.len() < 1024 {
        stream.read_exact(&mut byte)?;
        if byte[0] == b'\n' {
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            return Ok(String::from_utf8_lossy(&line).into_owned());
        }
        line.push(byte[0]);
    }
    Err(DbusError::Auth("authentication line too long".into()))
}

/// Connects to the first usable `unix:` entry of a D-Bus address list.
fn open_socket(address: &str) -> Result<UnixStream, DbusError> {
    let mut last = DbusError::Address(address.to_owned());
    for entry in address.split(';').filter(|e| !e.is_empty()) {
        let Some(("unix", params)) = entry.split_once(':') else {
            continue;
        };
        let mut path = None;
        let mut abstract_name = None;
        for kv in params.split(',') {
            let Some((k, v)) = kv.split_once('=') else { continue };
            match k {
                "path" => path = Some(unescape(v)?),
                "abstract" => abstract_name = Some(unescape(v)?),
                _ => {}
            }
        }
        let res = if let Some(p) = path {
            UnixStream::connect(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(&p))
        } else if let Some(a) = abstract_name {
            use std::os::linux::net::SocketAddrExt;
            std::os::unix::net::SocketAddr::from_abstract_name(&a).and_then(|addr| UnixStream::connect_addr(&addr))
        } else {
            continue;
        };
        match res {
            Ok(s) => return Ok(s),
            Err(e) => last = DbusError::Io(e),
        }
    }
    Err(last)
}

/// Undoes the `%xx` escaping of D-Bus address values.
fn unescape(v: &str) -> Result<Vec<u8>, DbusError> {
    let b = v.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = b.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
            let byte =
                hex.and_then(|h| u8::from_str_radix(h, 16).ok()).ok_or_else(|| DbusError::Address(v.to_owned()))?;
            out.push(byte);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_unescape_and_bad_ones_fail_fast() {
        assert_eq!(unescape("/tmp/a%20b").expect("valid"), b"/tmp/a b");
        assert!(unescape("/tmp/%zz").is_err());
        let t = Instant::now();
        assert!(open_socket("tcp:host=localhost,port=1").is_err());
        assert!(open_socket("unix:path=/nonexistent/handrail/bus").is_err());
        assert!(open_socket("").is_err());
        assert!(t.elapsed() < Duration::from_secs(1));
    }
}

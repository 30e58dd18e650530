//! Text beyond the keymap, pasted through the remote-desktop session's clipboard.
//!
//! mutter types a keysym only when the keymap has a key for it, and drops the rest (mutter 43
//! logs a line, nothing more). Such text is offered on the session's clipboard instead
//! (`EnableClipboard`, `SetSelection`) and the focused app is sent its paste key. mutter then asks
//! handrail for the content once per read the app makes (`SelectionTransfer` signals, each answered
//! by writing into the descriptor `SelectionWrite` returns, then `SelectionWriteDone`). A thread of
//! the input answers every such request for as long as the input lives, with the text offered last:
//! apps read the clipboard more than once per paste (Chromium checks again hundreds of milliseconds
//! later), and a read left unanswered would come back empty.
//!
//! The paste returns once the app has read the text and asked nothing more for [`PASTE_QUIET`].
//! A read of the previous text can still come later (GTK reads a paste twice, the second time up to
//! hundreds of milliseconds later on a busy machine), and mutter's signals do not say which offer a
//! read is for: so a new text is offered only once the previous one has had no read for
//! [`OFFER_GAP`], and a read mutter has already dropped (it drops those of a replaced offer) is no
//! news about the current paste. The text stays offered afterwards: whatever the clipboard held
//! before is not given back (mutter offers no way to hand back another app's content without
//! reading all of it first).

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use handrail_dbus::wire::{Arg, Call, Value};
use handrail_platform::PlatformError;
use log::{debug, warn};

use crate::error::GnomeError;
use crate::mutter::{MutterSession, CALL_TIMEOUT, REMOTE_DESKTOP_SESSION};

/// The types the text is offered as: what GTK, Qt, Chromium and Xwayland apps ask for.
pub const MIME_TYPES: [&str; 5] = ["text/plain;charset=utf-8", "text/plain", "UTF8_STRING", "STRING", "TEXT"];
/// How long the app may take to ask for the text after its paste key.
pub const FIRST_READ: Duration = Duration::from_millis(2000);
/// A paste is over once the app has asked nothing more for this long.
pub const PASTE_QUIET: Duration = Duration::from_millis(120);
/// A new text is offered only once the previous one has had no read for this long.
pub const OFFER_GAP: Duration = Duration::from_millis(400);
/// How often the serving thread looks at its stop flag.
const STOP_CHECK: Duration = Duration::from_millis(100);

/// The session's clipboard, served by a thread of its own. Stopped when dropped.
pub(crate) struct ClipboardServer {
    session: Arc<MutterSession>,
    offered: Arc<Mutex<Vec<u8>>>,
    /// One message per request answered (true when written whole).
    served: Receiver<bool>,
    /// When a request was last answered.
    last_read: Arc<Mutex<Option<Instant>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

fn call<'a>(session: &'a str, member: &'a str, args: &'a [Arg]) -> Call<'a> {
    Call {
        destination: "org.gnome.Mutter.RemoteDesktop",
        path: session,
        interface: REMOTE_DESKTOP_SESSION,
        member,
        args,
        flags: 0,
    }
}

impl ClipboardServer {
    /// Enables the session's clipboard and starts answering its requests.
    pub(crate) fn start(session: Arc<MutterSession>) -> Result<ClipboardServer, GnomeError> {
        let transfers = session
            .take_transfers()
            .ok_or_else(|| GnomeError::Unexpected("the session's clipboard is already served".into()))?;
        let options = [Arg::Dict(Vec::new())];
        session.bus().call(
            &call(session.session_path(), "EnableClipboard", &options),
            CALL_TIMEOUT,
            "EnableClipboard",
        )?;
        let offered = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (served_tx, served) = mpsc::channel();
        let last_read = Arc::new(Mutex::new(None));
        let thread = {
            let (session, offered, stop) = (Arc::clone(&session), Arc::clone(&offered), Arc::clone(&stop));
            let last_read = Arc::clone(&last_read);
            std::thread::Builder::new()
                .name("mutter-clipboard".into())
                .spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        match transfers.recv_timeout(STOP_CHECK) {
                            Ok((mime, serial)) => {
                                let data = offered.lock().unwrap_or_else(|e| e.into_inner()).clone();
                                let ok = match answer(&session, serial, &data) {
                                    Ok(()) => true,
                                    Err(e) if is_dropped(&e) => {
                                        debug!("clipboard request {serial} ({mime}) was dropped by mutter: {e}");
                                        continue;
                                    }
                                    Err(e) => {
                                        warn!("answering the clipboard request {serial} ({mime}): {e}");
                                        false
                                    }
                                };
                                debug!("clipboard request {serial} for {mime}: {} bytes, ok {ok}", data.len());
                                *last_read.lock().unwrap_or_else(|e| e.into_inner()) = Some(Instant::now());
                                let _ = served_tx.send(ok);
                            }
                            Err(RecvTimeoutError::Timeout) => {}
                            Err(RecvTimeoutError::Disconnected) => break,
                        }
                    }
                })
                .map_err(|e| GnomeError::Unexpected(format!("starting the clipboard thread: {e}")))?
        };
        Ok(ClipboardServer { session, offered, served, last_read, stop, thread: Some(thread) })
    }

    /// Offers `text` as the clipboard's content.
    pub(crate) fn offer(&self, text: &str) -> Result<(), GnomeError> {
        // A late read of the previous text must not be answered with this one.
        loop {
            let last = *self.last_read.lock().unwrap_or_else(|e| e.into_inner());
            let Some(since) = last.map(|t| t.elapsed()) else { break };
            if since >= OFFER_GAP {
                break;
            }
            std::thread::sleep(OFFER_GAP - since);
        }
        // Answers to an earlier paste are no news about this one.
        while self.served.try_recv().is_ok() {}
        *self.offered.lock().unwrap_or_else(|e| e.into_inner()) = text.as_bytes().to_vec();
        let types = Arg::StrArray(MIME_TYPES.iter().map(|m| m.to_string()).collect());
        let options = [Arg::Dict(vec![("mime-types".to_owned(), types)])];
        let path = self.session.session_path();
        self.session.bus().call(&call(path, "SetSelection", &options), CALL_TIMEOUT, "SetSelection")?;
        Ok(())
    }

    /// Waits until the app has read the offered text and gone quiet (see the module docs).
    pub(crate) fn wait_pasted(&self) -> Result<(), PlatformError> {
        match self.served.recv_timeout(FIRST_READ) {
            Ok(true) => {}
            Ok(false) => return Err(PlatformError::Failed("the pasted text could not be handed to the app".into())),
            Err(_) => {
                return Err(PlatformError::Timeout(format!(
                    "the focused app reading the pasted text (it asked nothing within {FIRST_READ:?} of its paste key)"
                )))
            }
        }
        while self.served.recv_timeout(PASTE_QUIET).is_ok() {}
        Ok(())
    }
}

impl Drop for ClipboardServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            if t.join().is_err() {
                warn!("the clipboard thread panicked");
            }
        }
    }
}

/// Whether mutter had already dropped the request (its offer was replaced) when it was answered.
fn is_dropped(e: &GnomeError) -> bool {
    matches!(e, GnomeError::Dbus(handrail_dbus::DbusError::Remote { message, .. }) if message.contains("doesn't match any transfer"))
}

/// Writes `data` for request `serial` and says whether it went whole.
fn answer(session: &MutterSession, serial: u32, data: &[u8]) -> Result<(), GnomeError> {
    let path = session.session_path();
    let written = (|| -> Result<(), GnomeError> {
        let args = [Arg::U32(serial)];
        let reply = session.bus().call(&call(path, "SelectionWrite", &args), CALL_TIMEOUT, "SelectionWrite")?;
        let index = match reply.first()?.unwrapped() {
            Value::Fd(i) => *i,
            other => return Err(GnomeError::Unexpected(format!("SelectionWrite answered {other:?}"))),
        };
        let fd = reply
            .fd(index)
            .ok_or_else(|| GnomeError::Unexpected(format!("SelectionWrite sent no descriptor {index}")))?
            .try_clone()
            .map_err(|e| GnomeError::Unexpected(format!("the clipboard descriptor: {e}")))?;
        let mut pipe = std::fs::File::from(fd);
        pipe.write_all(data).map_err(|e| GnomeError::Unexpected(format!("writing the clipboard: {e}")))?;
        Ok(())
    })();
    let done = [Arg::U32(serial), Arg::Bool(written.is_ok())];
    session.bus().call(&call(path, "SelectionWriteDone", &done), CALL_TIMEOUT, "SelectionWriteDone")?;
    written
}

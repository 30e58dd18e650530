//! Text beyond the keymap, pasted through the remote-desktop session's clipboard, and the person's
//! clipboard given back afterwards.
//!
//! mutter types a keysym only when the keymap has a key for it, and drops the rest (mutter 43
//! logs a line, nothing more). Such text is offered on the session's clipboard instead
//! (`EnableClipboard`, `SetSelection`) and the focused app is sent its paste key. mutter then asks
//! handrail for the content once per read the app makes (`SelectionTransfer` signals, each answered
//! by writing into the descriptor `SelectionWrite` returns, then `SelectionWriteDone`). A thread of
//! the input answers every such request for as long as the input lives, with what is offered last:
//! apps read the clipboard more than once per paste (Chromium checks again hundreds of milliseconds
//! later), and a read left unanswered would come back empty.
//!
//! The paste returns once the app has read the text and asked nothing more for [`PASTE_QUIET`].
//! A read of the previous text can still come later (GTK reads a paste twice, the second time up to
//! hundreds of milliseconds later on a busy machine), and mutter's signals do not say which offer a
//! read is for: so a new text is offered only once the previous one has had no read for
//! [`OFFER_GAP`], and a read mutter has already dropped (it drops those of a replaced offer) is no
//! news about the current paste.
//!
//! **The person's clipboard is given back.** Before a paste replaces what another app holds on the
//! clipboard, every type of it is read (`kept`); [`OFFER_GAP`] after the paste is over (later reads
//! do not put it off: an app may look at the clipboard again and again), the session offers that
//! content again, type for type, and answers its reads as the app did. mutter's own clipboard
//! manager copies it from there, so it outlives handrail's session. A paste while handrail still
//! offers it keeps it; the person copying something new meanwhile drops it (mutter says who holds
//! the clipboard: `SelectionOwnerChanged`). An empty clipboard stays with the pasted text: mutter's
//! manager would bring that back anyway.

mod kept;

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use handrail_dbus::wire::{Arg, Call, Message, Value};
use handrail_platform::PlatformError;
use log::{debug, warn};

use crate::error::GnomeError;
use crate::mutter::{Iface, MutterSession, Route, CALL_TIMEOUT};
use kept::{read_clipboard, Kept};

/// The types the text is offered as: what GTK, Qt, Chromium and Xwayland apps ask for.
pub const MIME_TYPES: [&str; 5] = ["text/plain;charset=utf-8", "text/plain", "UTF8_STRING", "STRING", "TEXT"];
/// How long the app may take to ask for the text after its paste key.
pub const FIRST_READ: Duration = Duration::from_millis(2000);
/// A paste is over once the app has asked nothing more for this long.
pub const PASTE_QUIET: Duration = Duration::from_millis(120);
/// A new text is offered, or the person's clipboard given back, only once the text offered last
/// has had no read for this long.
pub const OFFER_GAP: Duration = Duration::from_millis(400);
/// How often a stopping server looks whether mutter's clipboard manager has copied what it gave back.
const COPY_POLL: Duration = Duration::from_millis(5);
/// How often the serving thread looks at its stop flag.
const STOP_CHECK: Duration = Duration::from_millis(100);

/// What the session offers on the clipboard.
enum Offer {
    /// Nothing yet.
    Nothing,
    /// Text to paste, as every type of [`MIME_TYPES`].
    Text(Vec<u8>),
    /// The person's clipboard, given back.
    Kept(Arc<Kept>),
}

/// What the serving thread and the pasting input share.
struct State {
    offer: Offer,
    /// The person's clipboard as it was before the paste, to give back; `None` when there is
    /// nothing to give back.
    kept: Option<Arc<Kept>>,
    /// When to give `kept` back: [`OFFER_GAP`] after the paste's reads stopped.
    give_back_at: Option<Instant>,
    /// When a read of the text was last answered.
    last_read: Option<Instant>,
    /// How many reads of the given-back clipboard were answered.
    kept_reads: u64,
}

/// The session's clipboard, served by a thread of its own. Stopped when dropped.
pub(crate) struct ClipboardServer {
    session: Arc<MutterSession>,
    state: Arc<Mutex<State>>,
    /// One message per read of the text answered (true when written whole).
    served: Receiver<bool>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

/// Calls the session's clipboard method `member` with its own arguments `own` (on mutter's route
/// or the portal's: `MutterSession::call_args`).
fn clipboard_call(session: &MutterSession, member: &'static str, own: Vec<Arg>) -> Result<Message, GnomeError> {
    let (target, args) = session.call_args(Iface::Clipboard, own);
    Ok(session.bus().call(&target.call(member, &args), CALL_TIMEOUT, member)?)
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state.lock().unwrap_or_else(|e| e.into_inner())
}

/// Makes the session the clipboard's owner, offering `mime_types`.
fn set_selection(session: &MutterSession, mime_types: Vec<String>) -> Result<(), GnomeError> {
    let options = Arg::Dict(vec![(session.clipboard_key("mime-types"), Arg::StrArray(mime_types))]);
    clipboard_call(session, "SetSelection", vec![options])?;
    Ok(())
}

/// Gives the person's clipboard back when that is due. Reads after the paste do not put it off (an
/// app may look at the clipboard again and again); someone copying meanwhile cancels it.
fn give_back_if_due(session: &MutterSession, state: &Mutex<State>) {
    let mut st = lock(state);
    if st.give_back_at.is_none_or(|at| Instant::now() < at) {
        return;
    }
    st.give_back_at = None;
    if session.clipboard_owner().is_some_and(|owner| !owner.ours) {
        debug!("the clipboard was copied to since the paste: nothing to give back");
        st.kept = None;
        return;
    }
    let Some(kept) = st.kept.clone() else { return };
    match set_selection(session, kept.mime_types()) {
        Ok(()) => {
            debug!("gave the clipboard back: {:?}", kept.mime_types());
            st.offer = Offer::Kept(kept);
        }
        Err(e) => warn!("giving the clipboard back after pasting: {e}"),
    }
}

impl ClipboardServer {
    /// Enables the session's clipboard and starts answering its requests.
    pub(crate) fn start(session: Arc<MutterSession>) -> Result<ClipboardServer, GnomeError> {
        let transfers = session
            .take_transfers()
            .ok_or_else(|| GnomeError::Unexpected("the session's clipboard is already served".into()))?;
        match session.route() {
            // mutter says who holds the clipboard before it answers (`MutterSession::clipboard_owner`).
            Route::Mutter => {
                clipboard_call(session.as_ref(), "EnableClipboard", vec![Arg::Dict(Vec::new())])?;
            }
            // Asked for before the session started; granted or not by the person then.
            Route::Portal if session.clipboard_granted() => {}
            Route::Portal => return Err(GnomeError::ClipboardNotAllowed),
        }
        let state = Arc::new(Mutex::new(State {
            offer: Offer::Nothing,
            kept: None,
            give_back_at: None,
            last_read: None,
            kept_reads: 0,
        }));
        let stop = Arc::new(AtomicBool::new(false));
        let (served_tx, served) = mpsc::channel();
        let thread = {
            let (session, state, stop) = (Arc::clone(&session), Arc::clone(&state), Arc::clone(&stop));
            std::thread::Builder::new()
                .name("mutter-clipboard".into())
                .spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        match transfers.recv_timeout(STOP_CHECK) {
                            Ok((mime, serial)) => {
                                let (data, text) = match &lock(&state).offer {
                                    Offer::Text(t) => (Some(t.clone()), true),
                                    Offer::Kept(k) => (k.content(&mime).map(<[u8]>::to_vec), false),
                                    Offer::Nothing => (None, false),
                                };
                                let ok = match answer(&session, serial, data.as_deref()) {
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
                                debug!(
                                    "clipboard request {serial} for {mime}: {:?} bytes (text: {text}), ok {ok}",
                                    data.as_ref().map(Vec::len)
                                );
                                if text {
                                    lock(&state).last_read = Some(Instant::now());
                                    let _ = served_tx.send(ok);
                                } else if data.is_some() {
                                    lock(&state).kept_reads += 1;
                                }
                            }
                            Err(RecvTimeoutError::Timeout) => {}
                            Err(RecvTimeoutError::Disconnected) => break,
                        }
                        give_back_if_due(&session, &state);
                    }
                })
                .map_err(|e| GnomeError::Unexpected(format!("starting the clipboard thread: {e}")))?
        };
        Ok(ClipboardServer { session, state, served, stop, thread: Some(thread) })
    }

    /// Offers `text` as the clipboard's content, keeping what another app held there first.
    pub(crate) fn offer(&self, text: &str) -> Result<(), GnomeError> {
        // A late read of the previous text must not be answered with this one.
        loop {
            let last = lock(&self.state).last_read;
            let Some(since) = last.map(|t| t.elapsed()) else { break };
            if since >= OFFER_GAP {
                break;
            }
            std::thread::sleep(OFFER_GAP - since);
        }
        // Answers to an earlier paste are no news about this one.
        while self.served.try_recv().is_ok() {}
        let mut st = lock(&self.state);
        st.give_back_at = None;
        // A copy the person made just now is heard: mutter's signals sent before its answer to
        // this call are read before that answer.
        let (target, _) = self.session.call_args(Iface::Clipboard, Vec::new());
        self.session.bus().call(
            &Call { interface: "org.freedesktop.DBus.Peer", ..target.call("Ping", &[]) },
            CALL_TIMEOUT,
            "Peer.Ping",
        )?;
        match self.session.clipboard_owner() {
            // Another app's: kept (read anew: the person may have copied since the last paste).
            Some(owner) if !owner.ours && !owner.mime_types.is_empty() => {
                let kept = read_clipboard(&self.session, &owner.mime_types);
                st.kept = (!kept.is_empty()).then(|| Arc::new(kept));
            }
            Some(owner) if !owner.ours => st.kept = None,
            // The session's own (the text or the kept content): what is kept stays.
            _ => {}
        }
        st.offer = Offer::Text(text.as_bytes().to_vec());
        set_selection(&self.session, MIME_TYPES.iter().map(|m| m.to_string()).collect())
    }

    /// Waits until the app has read the offered text and gone quiet (see the module docs); the
    /// person's clipboard is given back after that.
    pub(crate) fn wait_pasted(&self) -> Result<(), PlatformError> {
        let result = match self.served.recv_timeout(FIRST_READ) {
            Ok(true) => {
                while self.served.recv_timeout(PASTE_QUIET).is_ok() {}
                Ok(())
            }
            Ok(false) => Err(PlatformError::Failed("the pasted text could not be handed to the app".into())),
            Err(_) => Err(PlatformError::Timeout(format!(
                "the focused app reading the pasted text (it asked nothing within {FIRST_READ:?} of its paste key)"
            ))),
        };
        let mut st = lock(&self.state);
        st.give_back_at = st.kept.is_some().then(|| Instant::now() + OFFER_GAP);
        result
    }
}

impl Drop for ClipboardServer {
    fn drop(&mut self) {
        // Due or not, the person's clipboard goes back now, and its reads are answered until
        // mutter's clipboard manager has copied it (it reads a new owner at once) to keep after the
        // session, for at most OFFER_GAP.
        let (due, reads) = {
            let mut st = lock(&self.state);
            let due = st.give_back_at.is_some();
            st.give_back_at = due.then(Instant::now);
            (due, st.kept_reads)
        };
        if due {
            give_back_if_due(&self.session, &self.state);
            let until = Instant::now() + OFFER_GAP;
            while lock(&self.state).kept_reads == reads && Instant::now() < until {
                std::thread::sleep(COPY_POLL);
            }
        }
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

/// Writes `data` for request `serial` and says whether it went whole; `None` (a type not kept)
/// answers with nothing, as failed.
fn answer(session: &MutterSession, serial: u32, data: Option<&[u8]>) -> Result<(), GnomeError> {
    let written = (|| -> Result<(), GnomeError> {
        let mut pipe = pipe_from(session, "SelectionWrite", &[Arg::U32(serial)])?;
        let Some(data) = data else {
            return Err(GnomeError::Unexpected("a type the clipboard does not hold was asked for".into()));
        };
        pipe.write_all(data).map_err(|e| GnomeError::Unexpected(format!("writing the clipboard: {e}")))?;
        Ok(())
    })();
    clipboard_call(session, "SelectionWriteDone", vec![Arg::U32(serial), Arg::Bool(written.is_ok())])?;
    written
}

/// Calls the session's `member` (`SelectionRead`, `SelectionWrite`) and opens the pipe it answers
/// with.
fn pipe_from(session: &MutterSession, member: &'static str, args: &[Arg]) -> Result<std::fs::File, GnomeError> {
    let reply = clipboard_call(session, member, args.to_vec())?;
    let index = match reply.first()?.unwrapped() {
        Value::Fd(i) => *i,
        other => return Err(GnomeError::Unexpected(format!("{member} answered {other:?}"))),
    };
    let fd = reply
        .fd(index)
        .ok_or_else(|| GnomeError::Unexpected(format!("{member} sent no descriptor {index}")))?
        .try_clone()
        .map_err(|e| GnomeError::Unexpected(format!("the clipboard descriptor: {e}")))?;
    Ok(std::fs::File::from(fd))
}

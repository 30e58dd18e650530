//! Pasting text through an X selection, and giving the user's clipboard back afterwards.
//!
//! A [`Clipboard`] owns a dedicated X connection and an invisible window, and a thread that consumes
//! that connection's events: it answers `SelectionRequest`s for whatever we currently own (TARGETS,
//! TIMESTAMP, and the stored data targets), collects `SelectionNotify` replies to our own conversions,
//! turns `PropertyNotify` on our window into server timestamps, and counts `MappingNotify` (keyboard
//! mapping changes, which every client receives) for the keymap cache in [`super`].
//!
//! [`Clipboard::paste`]: snapshot what the selection holds now (all its targets, fetched through
//! ConvertSelection, unless we own it already), take the selection with the text, send the paste
//! keystroke, **wait until the focused application has fetched a data target and then made no request
//! for [`PASTE_QUIET`]** (a wait on its requests, not a sleep; requests from other clients, such as
//! clipboard managers, are served but do not count) and return. The restore — take the selection back
//! with the saved content, or relinquish it if nobody owned it — runs later, on a thread of its own, once
//! the pasting application has left the text alone for [`RESTORE_QUIET`]: Chromium goes on checking the
//! clipboard for hundreds of ms after it fetched the text, and a restore in between emptied its paste
//! (see the docs of [`super`]). If nobody asks for the text in time, the text stays on offer for at least
//! [`LATE_PASTE_GRACE`] before the restore, so that a slow application pastes what was typed rather than
//! the user's previous clipboard. A paste that comes while a restore is pending inherits the saved
//! content, and a restore never runs once another owner took the selection.
//!
//! Limits: targets transferred incrementally (INCR, typically > 256 KiB) are not saved, and content we
//! restored disappears when the [`Clipboard`] is dropped (as when any clipboard owner exits).

use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use log::{debug, trace, warn};
use x11rb::connection::{Connection, RequestConnection as _};
use x11rb::protocol::xproto::{
    Atom, AtomEnum, ClientMessageEvent, ConnectionExt as _, CreateWindowAux, EventMask, PropMode, SelectionNotifyEvent,
    SelectionRequestEvent, Timestamp, Window, WindowClass, SELECTION_NOTIFY_EVENT,
};
use x11rb::protocol::Event;
use x11rb::rust_connection::RustConnection;
use x11rb::wrapper::ConnectionExt as _;
use x11rb::{CURRENT_TIME, NONE};

use crate::conn::Conn;
use crate::error::X11Error;

x11rb::atom_manager! {
    /// Atoms the selection protocol needs beyond [`crate::Atoms`].
    pub SelAtoms: SelAtomsCookie {
        CLIPBOARD,
        TARGETS,
        TIMESTAMP,
        MULTIPLE,
        INCR,
        TEXT,
        UTF8_STRING,
        SAVE_TARGETS,
        DELETE,
        INSERT_SELECTION,
        INSERT_PROPERTY,
        TEXT_PLAIN_UTF8: b"text/plain;charset=utf-8",
        TEXT_PLAIN: b"text/plain",
        // Where conversions we request are delivered on our window.
        RECEIVE: b"_HANDRAIL_SELECTION",
        // Appended to (zero bytes) to obtain a server timestamp.
        STAMP: b"_HANDRAIL_TIMESTAMP",
        // Client message type that stops the event thread.
        QUIT: b"_HANDRAIL_QUIT",
    }
}

/// How long one conversion from another owner may take. Owners answer in a few ms; a hung owner must
/// not hang typing.
const CONVERT_TIMEOUT: Duration = Duration::from_millis(300);
/// Budget for saving every target of the previous clipboard content.
const SNAPSHOT_BUDGET: Duration = Duration::from_millis(800);
/// Targets larger than this are not saved (they would need INCR to serve back anyway).
const MAX_SAVED_TARGET: usize = 4 << 20;
/// At most this many targets are saved; real clipboards offer a dozen or two.
const MAX_SAVED_TARGETS: usize = 48;
/// After a paste timed out, the typed text stays on offer this long before the previous content is
/// restored, so a late request still receives the typed text rather than the user's old clipboard.
pub const LATE_PASTE_GRACE: Duration = Duration::from_secs(2);
/// A paste is complete once the pasting application has fetched a data target and then made no further
/// request for this long. One fetch is not enough: Chromium reads the text once when the clipboard
/// changes, then lists TARGETS a dozen times and reads the text again for the actual paste, all within
/// ~15 ms (measured); restoring after the first read made every Chromium paste come out empty. This only decides when
/// `paste` returns; the restore waits for [`RESTORE_QUIET`].
pub const PASTE_QUIET: Duration = Duration::from_millis(40);
/// The user's previous clipboard is given back once no client has asked for the pasted content for
/// this long. Chromium's paste is a sequence of ~17 requests (TARGETS, the text, ten TARGETS, the text
/// again, TARGETS) made by the renderer one IPC at a time, and the last checks came up to 430 ms after
/// the paste key on a loaded machine (measured); restoring in between empties the paste.
pub const RESTORE_QUIET: Duration = Duration::from_millis(1000);
/// Upper bound on how long the pasted text stays on offer before the previous content comes back.
pub const RESTORE_MAX: Duration = Duration::from_secs(10);
/// Bound on waiting for our own PropertyNotify (the server answers immediately; this guards a dead
/// event thread).
const STAMP_TIMEOUT: Duration = Duration::from_millis(500);

/// One target of selection content: what a requestor gets for `target`.
#[derive(Debug, Clone)]
struct Item {
    target: Atom,
    type_: Atom,
    format: u8,
    data: Vec<u8>,
}

/// What we serve for one selection.
#[derive(Debug, Clone)]
struct Content {
    id: u64,
    items: Vec<Item>,
    acquired: Timestamp,
}

/// What a selection held before we took it.
#[derive(Debug, Clone)]
enum Prior {
    /// Nobody owned it: relinquish afterwards.
    Empty,
    /// Someone did; this is what they offered (possibly nothing we could save).
    Owned(Vec<Item>),
}

/// One request answered from content we were pasting.
#[derive(Debug, Clone, Copy)]
struct Served {
    content: u64,
    /// The requesting client: its window id without the resource-id bits.
    client: u32,
    /// A data target (not TARGETS or TIMESTAMP).
    data: bool,
    at: Instant,
}

#[derive(Default)]
struct State {
    content: HashMap<Atom, Content>,
    /// Requests answered from pasted content, oldest first (cleared at each paste).
    requests: Vec<Served>,
    next_id: u64,
    /// Result of the conversion we requested last: (selection, target, item or refusal).
    fetched: Option<(Atom, Atom, Option<Item>)>,
    /// Latest timestamp seen on our STAMP property, with a sequence number to detect new ones.
    stamp: (u64, Timestamp),
    /// Restores scheduled after a paste that nobody fetched, by selection.
    pending_restore: HashMap<Atom, (u64, Prior)>,
    mapping_generation: u64,
    /// The event thread ended (connection lost).
    dead: bool,
}

struct Inner {
    conn: Arc<Conn>,
    atoms: SelAtoms,
    window: Window,
    state: Mutex<State>,
    changed: Condvar,
}

/// A selection owner on its own connection, with the thread that serves it.
pub struct Clipboard {
    inner: Arc<Inner>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for Clipboard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Clipboard").field("window", &self.inner.window).finish_non_exhaustive()
    }
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    // A panic elsewhere while holding the lock leaves plain data behind; keep using it.
    state.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Clipboard {
    /// Opens a dedicated connection to `display` and starts the event thread.
    pub fn start(display: &str) -> Result<Clipboard, X11Error> {
        let conn = Conn::open(display)?;
        let atoms = SelAtoms::new(&conn.conn)?.reply()?;
        let window = conn.conn.generate_id()?;
        conn.conn.create_window(
            0,
            window,
            conn.root,
            -1,
            -1,
            1,
            1,
            0,
            WindowClass::INPUT_ONLY,
            0,
            &CreateWindowAux::new().event_mask(EventMask::PROPERTY_CHANGE),
        )?;
        conn.conn.flush()?;
        let inner =
            Arc::new(Inner { conn, atoms, window, state: Mutex::new(State::default()), changed: Condvar::new() });
        let worker = Arc::clone(&inner);
        let thread = std::thread::Builder::new()
            .name("handrail-x11-selection".into())
            .spawn(move || worker.run())
            .map_err(|e| X11Error::Other(format!("cannot start the selection thread: {e}")))?;
        Ok(Clipboard { inner, thread: Some(thread) })
    }

    /// How many keyboard/pointer mapping changes the server has announced since start.
    pub fn mapping_generation(&self) -> u64 {
        lock(&self.inner.state).mapping_generation
    }

    /// The `CLIPBOARD` selection atom.
    pub fn clipboard_atom(&self) -> Atom {
        self.inner.atoms.CLIPBOARD
    }

    /// Pastes `text`: offers it on each of `selections`, calls `keystroke` (which sends the paste key),
    /// waits until the application owning `target` (the focused window; any application when `None`)
    /// has fetched it and gone quiet ([`PASTE_QUIET`]), and schedules the restore of each selection's
    /// previous content (see the module docs).
    /// Requests from other clients (clipboard managers fetch every new selection) are served but do not
    /// count. Returns how long the paste took, or `PasteError::Timeout` if the application never asked.
    pub fn paste(
        &self,
        selections: &[Atom],
        text: &str,
        target: Option<Window>,
        timeout: Duration,
        keystroke: impl FnOnce() -> Result<(), X11Error>,
    ) -> Result<Duration, PasteError> {
        let inner = &self.inner;
        let mut priors = Vec::with_capacity(selections.len());
        for &sel in selections {
            priors.push((sel, inner.snapshot(sel)?));
        }
        let items = inner.text_items(text);
        lock(&inner.state).requests.clear();
        let mut ids = Vec::with_capacity(selections.len());
        for (i, &sel) in selections.iter().enumerate() {
            match inner.own(sel, items.clone()) {
                Ok(id) => ids.push(id),
                Err(e) => {
                    // Give back what was already taken before reporting.
                    let _ = inner.restore_all(priors.into_iter().take(i));
                    return Err(e.into());
                }
            }
        }
        let start = Instant::now();
        trace!("paste: selections taken (content {ids:?}), sending the paste key");
        let sent = keystroke();
        trace!("paste: paste key sent");
        let client = target.map(|w| inner.client_of(w));
        let fetched = sent.is_ok() && inner.wait_pasted(&ids, client, timeout);
        let waited = start.elapsed();
        // The window read as focused may not be the one that pasted (focus moving, a stale active
        // window): if another client fetched the text after the keystroke, the paste happened. Keep the
        // text on offer for a while all the same, in case the focused app is merely slow.
        let fetched_by_other = !fetched && sent.is_ok() && target.is_some() && inner.fetched_since(&ids, start);
        if fetched_by_other {
            debug!("paste fetched by a client other than the focused window's after {} ms", waited.as_millis());
        }
        if let Err(e) = sent {
            if let Err(r) = inner.restore_all(priors) {
                debug!("restoring after a failed paste key: {r}");
            }
            return Err(e.into());
        }
        // The restore is deferred until every client has left our content alone for RESTORE_QUIET (and,
        // when nobody fetched it, for at least LATE_PASTE_GRACE): see the module docs for why restoring
        // as soon as the first fetch went quiet emptied Chromium pastes.
        {
            let mut st = lock(&inner.state);
            for ((sel, prior), id) in priors.into_iter().zip(&ids) {
                st.pending_restore.insert(sel, (*id, prior));
            }
        }
        let min_wait = if fetched { Duration::ZERO } else { LATE_PASTE_GRACE };
        let later = Arc::clone(inner);
        let pairs: Vec<(Atom, u64)> = selections.iter().copied().zip(ids.iter().copied()).collect();
        let ids_later = ids.clone();
        let pairs_later = pairs.clone();
        let spawned = std::thread::Builder::new().name("handrail-x11-restore".into()).spawn(move || {
            later.wait_left_alone(&ids_later, client, min_wait);
            for (sel, id) in pairs_later {
                later.restore_pending(sel, id);
            }
        });
        if let Err(e) = spawned {
            warn!("cannot schedule the clipboard restore ({e}); restoring now");
            for (sel, id) in pairs {
                inner.restore_pending(sel, id);
            }
        }
        if fetched {
            debug!("paste of {} chars fetched after {:.1} ms", text.chars().count(), waited.as_secs_f64() * 1e3);
            return Ok(waited);
        }
        if fetched_by_other {
            return Ok(waited);
        }
        Err(PasteError::Timeout(waited))
    }
}

/// Why a paste did not complete.
#[derive(Debug)]
pub enum PasteError {
    /// The focused application did not fetch the text within the timeout.
    Timeout(Duration),
    X(X11Error),
}

impl From<X11Error> for PasteError {
    fn from(e: X11Error) -> Self {
        PasteError::X(e)
    }
}

impl Drop for Clipboard {
    fn drop(&mut self) {
        let inner = &self.inner;
        // A client message to our own window with an empty mask goes to the window's creator: the thread.
        let quit = ClientMessageEvent::new(32, inner.window, inner.atoms.QUIT, [0u32; 5]);
        let sent = inner.conn.conn.send_event(false, inner.window, EventMask::NO_EVENT, quit).is_ok()
            && inner.conn.conn.flush().is_ok();
        if let Some(t) = self.thread.take() {
            if sent {
                let _ = t.join();
            }
        }
        let _ = inner.conn.conn.destroy_window(inner.window);
        let _ = inner.conn.conn.flush();
    }
}

impl Inner {
    fn c(&self) -> &RustConnection {
        &self.conn.conn
    }

    /// The event loop of the selection thread.
    fn run(&self) {
        loop {
            let event = match self.c().wait_for_event() {
                Ok(e) => e,
                Err(e) => {
                    warn!("selection connection lost: {e}");
                    break;
                }
            };
            let result = match event {
                Event::SelectionRequest(req) => self.serve(&req),
                Event::SelectionNotify(n) if n.requestor == self.window => self.receive(&n),
                Event::SelectionClear(c) if c.owner == self.window => self.cleared(c.selection),
                Event::PropertyNotify(p) if p.window == self.window && p.atom == self.atoms.STAMP => {
                    let mut st = lock(&self.state);
                    st.stamp = (st.stamp.0 + 1, p.time);
                    self.changed.notify_all();
                    Ok(())
                }
                Event::MappingNotify(_) => {
                    lock(&self.state).mapping_generation += 1;
                    Ok(())
                }
                Event::ClientMessage(m) if m.window == self.window && m.type_ == self.atoms.QUIT => break,
                _ => Ok(()),
            };
            if let Err(e) = result {
                warn!("selection thread: {e}");
            }
        }
        lock(&self.state).dead = true;
        self.changed.notify_all();
    }

    /// Answers a SelectionRequest from what we hold for that selection.
    fn serve(&self, req: &SelectionRequestEvent) -> Result<(), X11Error> {
        let a = &self.atoms;
        // Obsolete requestors pass no property; ICCCM says to use the target's name then.
        let property = if req.property == NONE { req.target } else { req.property };
        let content = lock(&self.state).content.get(&req.selection).cloned();
        let mut data_served = false;
        let ok = match &content {
            None => false,
            Some(content) if req.target == a.TARGETS => {
                let mut targets = vec![a.TARGETS, a.TIMESTAMP];
                targets.extend(content.items.iter().map(|i| i.target));
                self.c().change_property32(PropMode::REPLACE, req.requestor, property, AtomEnum::ATOM, &targets)?;
                true
            }
            Some(content) if req.target == a.TIMESTAMP => {
                self.c().change_property32(
                    PropMode::REPLACE,
                    req.requestor,
                    property,
                    AtomEnum::INTEGER,
                    &[content.acquired],
                )?;
                true
            }
            Some(content) => match content.items.iter().find(|i| i.target == req.target) {
                // Larger than one request would need INCR, which we do not speak: refuse cleanly.
                Some(item) if item.data.len() + 64 <= self.c().maximum_request_bytes() => {
                    let unit = usize::from(item.format / 8).max(1);
                    let len = u32::try_from(item.data.len() / unit).unwrap_or(u32::MAX);
                    self.c().change_property(
                        PropMode::REPLACE,
                        req.requestor,
                        property,
                        item.type_,
                        item.format,
                        len,
                        &item.data,
                    )?;
                    data_served = true;
                    true
                }
                _ => false,
            },
        };
        if log::log_enabled!(log::Level::Trace) {
            let name = |a: Atom| {
                self.c()
                    .get_atom_name(a)
                    .ok()
                    .and_then(|c| c.reply().ok())
                    .map_or_else(|| a.to_string(), |r| String::from_utf8_lossy(&r.name).into_owned())
            };
            trace!(
                "selection request: {} {} from {:#x} time {} (owned at {}): {}",
                name(req.selection),
                name(req.target),
                req.requestor,
                req.time,
                content.as_ref().map_or(0, |c| c.acquired),
                if ok { "served" } else { "refused" }
            );
        }
        let notify = SelectionNotifyEvent {
            response_type: SELECTION_NOTIFY_EVENT,
            sequence: 0,
            time: req.time,
            requestor: req.requestor,
            selection: req.selection,
            target: req.target,
            property: if ok { property } else { NONE },
        };
        self.c().send_event(false, req.requestor, EventMask::NO_EVENT, notify)?;
        // A round trip so the server has queued the notification to the requestor before the paster goes
        // on with more input on another connection: keys typed after a paste stay after it.
        self.c().get_input_focus()?.reply()?;
        if let (true, Some(content)) = (ok, content) {
            let mut st = lock(&self.state);
            let served = Served {
                content: content.id,
                client: self.client_of(req.requestor),
                data: data_served,
                at: Instant::now(),
            };
            // Bounded: a paste is a handful of requests; a misbehaving client must not grow this forever.
            if st.requests.len() < 4096 {
                st.requests.push(served);
            }
            self.changed.notify_all();
        }
        Ok(())
    }

    /// Stores the answer to a conversion we asked for.
    fn receive(&self, n: &SelectionNotifyEvent) -> Result<(), X11Error> {
        let item = if n.property == NONE {
            None
        } else {
            let reply = self.c().get_property(true, self.window, n.property, AtomEnum::ANY, 0, u32::MAX / 4)?.reply();
            match reply {
                Ok(r) if r.type_ == self.atoms.INCR => {
                    debug!("selection target {} is sent incrementally (INCR); not saved", n.target);
                    // Deleting the property (done by get_property) would start the transfer; the owner
                    // gives up when we never read the chunks.
                    None
                }
                Ok(r) if r.type_ != NONE && r.bytes_after == 0 => {
                    Some(Item { target: n.target, type_: r.type_, format: r.format, data: r.value })
                }
                Ok(_) => None,
                Err(e) => {
                    debug!("reading selection target {}: {e}", n.target);
                    None
                }
            }
        };
        let mut st = lock(&self.state);
        st.fetched = Some((n.selection, n.target, item));
        self.changed.notify_all();
        Ok(())
    }

    /// Someone else took a selection: stop serving it (unless we already took it back).
    fn cleared(&self, selection: Atom) -> Result<(), X11Error> {
        let owner = self.c().get_selection_owner(selection)?.reply()?.owner;
        if owner != self.window {
            let mut st = lock(&self.state);
            st.content.remove(&selection);
            st.pending_restore.remove(&selection);
        }
        Ok(())
    }

    /// Waits for `cond` on the state, up to `timeout`. Returns the guard and whether `cond` held.
    fn wait_until(&self, timeout: Duration, mut cond: impl FnMut(&State) -> bool) -> (MutexGuard<'_, State>, bool) {
        let deadline = Instant::now() + timeout;
        let mut st = lock(&self.state);
        loop {
            if cond(&st) {
                return (st, true);
            }
            let now = Instant::now();
            if st.dead || now >= deadline {
                return (st, false);
            }
            st = self.changed.wait_timeout(st, deadline - now).unwrap_or_else(PoisonError::into_inner).0;
        }
    }

    /// A current server timestamp, from a zero-length append to our own property (ICCCM §2.1: selection
    /// ownership should carry a real timestamp, never CurrentTime).
    fn timestamp(&self) -> Result<Timestamp, X11Error> {
        let seq = lock(&self.state).stamp.0;
        self.c().change_property8(PropMode::APPEND, self.window, self.atoms.STAMP, AtomEnum::STRING, &[])?;
        self.c().flush()?;
        let (st, ok) = self.wait_until(STAMP_TIMEOUT, |s| s.stamp.0 > seq);
        if ok {
            Ok(st.stamp.1)
        } else {
            Err(X11Error::Other("no timestamp from the X server (selection thread not running)".into()))
        }
    }

    /// Requests `target` of `selection` and waits for the answer.
    fn convert(&self, selection: Atom, target: Atom, timeout: Duration) -> Result<Option<Item>, X11Error> {
        lock(&self.state).fetched = None;
        self.c().convert_selection(self.window, selection, target, self.atoms.RECEIVE, CURRENT_TIME)?;
        self.c().flush()?;
        let (mut st, ok) =
            self.wait_until(timeout, |s| matches!(&s.fetched, Some((sel, t, _)) if *sel == selection && *t == target));
        if !ok {
            debug!("selection owner did not convert target {target} within {timeout:?}");
            return Ok(None);
        }
        Ok(st.fetched.take().and_then(|(_, _, item)| item))
    }

    /// What `selection` holds now, saved so it can be offered again after the paste.
    fn snapshot(&self, selection: Atom) -> Result<Prior, X11Error> {
        {
            let mut st = lock(&self.state);
            // A restore still pending from a paste nobody fetched: its prior is the real one.
            if let Some((_, prior)) = st.pending_restore.remove(&selection) {
                return Ok(prior);
            }
        }
        let owner = self.c().get_selection_owner(selection)?.reply()?.owner;
        if owner == NONE {
            return Ok(Prior::Empty);
        }
        if owner == self.window {
            let st = lock(&self.state);
            return Ok(st.content.get(&selection).map_or(Prior::Empty, |c| Prior::Owned(c.items.clone())));
        }
        let start = Instant::now();
        let a = &self.atoms;
        let Some(targets) = self.convert(selection, a.TARGETS, CONVERT_TIMEOUT)? else {
            warn!("the clipboard owner did not list its targets; its content cannot be restored after pasting");
            return Ok(Prior::Owned(Vec::new()));
        };
        let skip =
            [a.TARGETS, a.TIMESTAMP, a.MULTIPLE, a.SAVE_TARGETS, a.DELETE, a.INSERT_SELECTION, a.INSERT_PROPERTY, NONE];
        let mut wanted: Vec<Atom> = if targets.format == 32 {
            targets
                .data
                .chunks_exact(4)
                .map(|b| u32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
                .filter(|t| !skip.contains(t))
                .collect()
        } else {
            Vec::new()
        };
        wanted.dedup();
        let mut items = Vec::new();
        let mut total = 0usize;
        for target in wanted.into_iter().take(MAX_SAVED_TARGETS) {
            let left = SNAPSHOT_BUDGET.saturating_sub(start.elapsed());
            if left.is_zero() {
                warn!("saving the clipboard took too long; some of its formats will not be restored");
                break;
            }
            if let Some(item) = self.convert(selection, target, left.min(CONVERT_TIMEOUT))? {
                if item.data.len() <= MAX_SAVED_TARGET && total + item.data.len() <= 4 * MAX_SAVED_TARGET {
                    total += item.data.len();
                    items.push(item);
                }
            }
        }
        debug!("saved {} clipboard targets ({total} bytes) in {:?}", items.len(), start.elapsed());
        Ok(Prior::Owned(items))
    }

    /// Text as selection content: UTF8_STRING and its MIME name, TEXT, plus STRING (Latin-1) and plain
    /// text/plain when the text can be represented in them.
    fn text_items(&self, text: &str) -> Vec<Item> {
        let a = &self.atoms;
        let utf8 = |target: Atom, type_: Atom| Item { target, type_, format: 8, data: text.as_bytes().to_vec() };
        let mut items = vec![utf8(a.UTF8_STRING, a.UTF8_STRING), utf8(a.TEXT_PLAIN_UTF8, a.TEXT_PLAIN_UTF8)];
        items.push(utf8(a.TEXT, a.UTF8_STRING));
        let latin1: Option<Vec<u8>> = text.chars().map(|c| u8::try_from(u32::from(c)).ok()).collect();
        if let Some(bytes) = latin1 {
            items.push(Item {
                target: AtomEnum::STRING.into(),
                type_: AtomEnum::STRING.into(),
                format: 8,
                data: bytes,
            });
        }
        if text.is_ascii() {
            items.push(utf8(a.TEXT_PLAIN, a.TEXT_PLAIN));
        }
        items
    }

    /// Takes `selection` with `items`; returns the content id.
    fn own(&self, selection: Atom, items: Vec<Item>) -> Result<u64, X11Error> {
        let acquired = self.timestamp()?;
        let id = {
            let mut st = lock(&self.state);
            st.next_id += 1;
            let id = st.next_id;
            st.content.insert(selection, Content { id, items, acquired });
            id
        };
        self.c().set_selection_owner(self.window, selection, acquired)?;
        let owner = self.c().get_selection_owner(selection)?.reply()?.owner;
        if owner != self.window {
            lock(&self.state).content.remove(&selection);
            return Err(X11Error::Other(format!("could not take selection {selection} (owner is {owner:#x})")));
        }
        Ok(id)
    }

    /// The X client a resource (window) belongs to: its id without the per-client resource bits.
    fn client_of(&self, id: u32) -> u32 {
        id & !self.c().setup().resource_id_mask
    }

    /// Whether any client fetched a data target of one of `ids` at or after `since`.
    fn fetched_since(&self, ids: &[u64], since: Instant) -> bool {
        lock(&self.state).requests.iter().any(|r| r.data && r.at >= since && ids.contains(&r.content))
    }

    /// Waits until `client` (any client when `None`) has fetched a data target of one of `ids` and then
    /// made no request for [`PASTE_QUIET`]. False when that did not happen within `timeout`.
    fn wait_pasted(&self, ids: &[u64], client: Option<u32>, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut st = lock(&self.state);
        loop {
            let ours = |r: &&Served| ids.contains(&r.content) && client.is_none_or(|c| c == r.client);
            let fetched = st.requests.iter().filter(ours).any(|r| r.data);
            let last = st.requests.iter().filter(ours).map(|r| r.at).max();
            let now = Instant::now();
            let wake = match (fetched, last) {
                (true, Some(last)) if now.duration_since(last) >= PASTE_QUIET => return true,
                (true, Some(last)) => (last + PASTE_QUIET).min(deadline),
                _ => deadline,
            };
            if st.dead || now >= deadline {
                // A client still chattering at the deadline has fetched the text all the same.
                return fetched;
            }
            st = self
                .changed
                .wait_timeout(st, wake.saturating_duration_since(now))
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// Waits until `client` (any client when `None`; others, such as a clipboard manager or a test
    /// reading the clipboard, do not hold the restore back) has not asked for content `ids` for
    /// [`RESTORE_QUIET`], and at least `min_wait` has passed, bounded by [`RESTORE_MAX`] (the user's clipboard comes back even if a client keeps
    /// polling), or until the selections were taken over (the restore then has nothing to do).
    fn wait_left_alone(&self, ids: &[u64], client: Option<u32>, min_wait: Duration) {
        let start = Instant::now();
        let mut st = lock(&self.state);
        loop {
            let ours = st.content.values().any(|c| ids.contains(&c.id));
            let last = st
                .requests
                .iter()
                .filter(|r| ids.contains(&r.content) && client.is_none_or(|c| c == r.client))
                .map(|r| r.at)
                .max();
            let quiet_from = last.map_or(start, |l| l.max(start));
            let now = Instant::now();
            let wake = (quiet_from + RESTORE_QUIET).max(start + min_wait).min(start + RESTORE_MAX);
            if !ours || st.dead || now >= wake {
                trace!("restore after {:.1} ms", start.elapsed().as_secs_f64() * 1e3);
                return;
            }
            st = self.changed.wait_timeout(st, wake - now).unwrap_or_else(PoisonError::into_inner).0;
        }
    }

    /// Gives `selection` back its previous content.
    fn restore(&self, selection: Atom, prior: Prior) -> Result<(), X11Error> {
        match prior {
            Prior::Owned(items) if !items.is_empty() => {
                self.own(selection, items)?;
            }
            // Nobody owned it, or its owner offered nothing we could save: leave it empty, as the
            // previous owner can no longer be reinstated.
            _ => {
                let t = self.timestamp()?;
                lock(&self.state).content.remove(&selection);
                self.c().set_selection_owner(NONE, selection, t)?;
                self.c().flush()?;
            }
        }
        Ok(())
    }

    /// Restores every selection, even when one fails; returns the first error.
    fn restore_all(&self, priors: impl IntoIterator<Item = (Atom, Prior)>) -> Result<(), X11Error> {
        let mut first = Ok(());
        for (sel, prior) in priors {
            if let Err(e) = self.restore(sel, prior) {
                warn!("restoring selection {sel}: {e}");
                if first.is_ok() {
                    first = Err(e);
                }
            }
        }
        first
    }

    /// Runs a restore scheduled by a paste that timed out, if no later paste took it over.
    fn restore_pending(&self, selection: Atom, paste: u64) {
        let pending = {
            let mut st = lock(&self.state);
            // A later paste took the selection over: its own restore gives the prior back.
            match st.pending_restore.get(&selection) {
                Some((id, _)) if *id == paste => st.pending_restore.remove(&selection),
                _ => None,
            }
        };
        if let Some((id, prior)) = pending {
            let still_ours = lock(&self.state).content.get(&selection).is_some_and(|c| c.id == id);
            if still_ours {
                if let Err(e) = self.restore(selection, prior) {
                    warn!("restoring the clipboard after an unanswered paste: {e}");
                }
            }
        }
    }
}

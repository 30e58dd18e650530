//! Input through XTEST: pointer motion, clicks, wheel, drags, key combinations and text of any script.
//!
//! # Guarantees
//! - Nothing stays pressed: every press goes through a guard (`Held`) whose `Drop` releases what is
//!   still down, in reverse order, on success, error and panic alike. Creating an [`X11Input`] releases
//!   modifiers and buttons a previous crash may have left down.
//! - Every call ends with a round trip, so when it returns the server has generated every event and a
//!   capture or settle watch started afterwards sees their effect, not the state before them.
//!
//! # Keys
//! Canonical key names ([`handrail_platform::KeyCombo`]) map to keysyms (`keysym` submodule), keysyms to
//! keycodes through a cached GetKeyboardMapping (`keymap` submodule). The cache is reloaded when the server
//! announces a mapping change (MappingNotify, watched by the selection thread's connection) or when a
//! lookup misses. A keysym the keyboard lacks is put on a spare (empty) keycode with
//! ChangeKeyboardMapping. Borrowed keycodes are **not** returned right after the key event: clients
//! translate a keycode when they *process* the event, re-reading the mapping from the server, so
//! returning it at once races the application (the garbled non-ASCII xdotool shows). Each character gets
//! its own keycode, reused first for the same character, and keycodes go back to empty after
//! [`BORROW_LINGER`] of disuse (checked at the next call) or when the `X11Input` is dropped.
//!
//! # Text: the strategy and the measurements that chose it
//! `type_text` splits text at newlines (typed as Return) and tabs (Tab). Each remaining run is:
//! - typed as key events when every character is on the keyboard (ASCII on any Latin layout): XTEST
//!   events reach the application in order, so no pacing is needed;
//! - otherwise **pasted** (`clipboard` submodule): CLIPBOARD and ctrl+v, or in terminals (by `WM_CLASS`
//!   of the active window; ctrl+v is `^V` there) PRIMARY and CLIPBOARD and shift+Insert. The user's
//!   selections are saved first, the paste completes when the focused application has fetched the text
//!   and gone quiet (a wait on its requests, not a sleep), then the previous content is given back;
//! - in editors with no dependable paste key (Emacs, Vim) such runs are typed through borrowed keycodes.
//!
//! Measured with `cargo bench -p handrail-x11 --bench typing` on this project's 2-core machine (Xvfb
//! 1280x800, openbox, other builds running), three runs of 20 per cell, exact readback, a fresh handrail
//! input per run so every keycode borrow starts cold (ranges are over the runs; times are medians):
//!
//! | app, text | keys (borrowed keycodes) | clipboard | xdotool type (12 ms) | xdotool --delay 0 |
//! |---|---|---|---|---|
//! | GTK entry, English 11 / 50 | 20/20, 0.5 / 1.3 ms | 20/20, 43–46 ms | 20/20, 78 / 336 ms | 20/20, 7 / 15 ms |
//! | GTK entry, Thai / CJK / emoji | 20/20, 1.1–4.7 ms | 20/20, 43 ms | 6–14, 13–16, 16–20 | 0/20 each |
//! | GTK entry, 38 distinct CJK+Korean | **18–20/20**, 63 ms | 20/20, 43–45 ms | 7–18 of 20 | 0/20 |
//! | Chromium input, Thai / CJK / emoji | 20/20, 0.4–1.5 ms | 20/20, 47–51 ms | 16–18, 19–20, 20 | 0, 0–2, 5–7 |
//! | Chromium input, 38 distinct | **11–17/20**, 62 ms | 20/20, 49 ms | 11–16 of 20 | 0/20 |
//! | xterm `cat`, Thai / emoji | 20/20, 1.8–3.7 / 0.5 ms | 20/20 (shift+Insert), 42 ms | 8–14, 14–15 | 0/20 |
//!
//! Borrowed keycodes are exact as long as no keycode has to be re-pointed at another character within
//! the application's reaction time; Xvfb has 18 spare keycodes, so text with more distinct characters
//! than that fails now and then even with [`BORROW_REUSE_GAP`] pacing. Worse, every remap makes every X
//! client and the window manager reload the keyboard mapping: openbox burned 1.1–1.4 s of CPU per Thai
//! run (14 remaps) and 2.3–2.6 s per 38-character run, against 2–4 ms for a paste (the bench's "WM cpu"
//! column). The clipboard was exact in every cell and costs ~45 ms (`PASTE_QUIET` dominates), well
//! under the engine's settle time. Hence the hybrid, which measured 20/20 in every cell.
//! [`TypingStrategy`] forces one path (the benchmark compares them).
//! [`Input::type_text_via`] with [`TextRoute::Alternate`] sends each run the other way (pasted where it
//! would be keys, keys through borrowed keycodes where it would be pasted; newlines and tabs stay keys):
//! the engine's second attempt after reading back a wrong arrival.
//!
//! # The empty Chromium paste (found and fixed)
//! Symptom: now and then a paste into a Chromium input arrived empty while `type_text` reported
//! success (`chromium_typing` saw "👍🎉 ok" arrive 19/20 on a quiet machine; ~1/100 under load).
//! Reproduced with a loop of 200 pastes of "👍🎉 ok" into a page input, read back from the page's title,
//! with two busy loops loading both cores, and every SelectionRequest logged (trace level): **197/200**.
//! What the log showed: Chromium makes no request when the selection changes (nothing in a 400 ms pause
//! between taking the selection and the paste key); all requests follow the key, all from the browser
//! process, all with time 0 (CurrentTime), all for targets we serve (TARGETS, UTF8_STRING; never INCR,
//! never a refused target). A paste is always the same sequence of 17 requests: TARGETS, UTF8_STRING,
//! ten TARGETS, UTF8_STRING, two TARGETS, and two more TARGETS that came up to 430 ms after the key. The
//! renderer makes each step as its own IPC to the browser, so on a loaded machine the steps can be far
//! apart. The old rule "a data target fetched, then 40 ms without a request" ended the paste mid-sequence
//! and the restore of the previous clipboard (here: relinquishing it) ran while Chromium was still
//! checking; the checks then saw an empty clipboard and nothing was inserted. In the failures the log
//! ended after the first UTF8_STRING and four TARGETS, or after the second UTF8_STRING. Ownership
//! timestamps (a real server time already), target negotiation, INCR and focus were not involved.
//!
//! Fix: `type_text` still returns once the application has fetched the text and gone quiet for
//! `PASTE_QUIET` (keys typed afterwards stay in order), but the restore of the user's clipboard is
//! deferred: it runs in the background once the pasting client has not asked for the pasted content for
//! `clipboard::RESTORE_QUIET` (1 s, twice the longest gap seen; at most `clipboard::RESTORE_MAX`), or
//! not at all when a later paste or another owner took the selection meanwhile (a later paste inherits
//! the saved prior). The same loop then measured **200/200** (both runs with `while :; do :; done` x2
//! running; the loop was a temporary test, folded into `cargo bench -p handrail-x11 --bench
//! typing_scale`, whose results are in docs/BENCHMARKS.md). The cost: the pasted text stays on the
//! clipboard for about a second after the paste.

mod clipboard;
mod keymap;

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::sleep;
use std::time::{Duration, Instant};

use handrail_platform::click_spacing::ClickSpacing;
use handrail_platform::paste::{paste_key_for, PasteKey};
use handrail_platform::{Input, KeyCombo, Modifiers, MouseButton, PlatformError, Point, ScrollDirection, TextRoute};
use log::{debug, warn};
use x11rb::connection::{Connection, RequestConnection as _};
use x11rb::protocol::xproto::{
    Atom, AtomEnum, ConnectionExt as _, KeyButMask, Keycode, Window, BUTTON_PRESS_EVENT, BUTTON_RELEASE_EVENT,
    KEY_PRESS_EVENT, KEY_RELEASE_EVENT, MOTION_NOTIFY_EVENT,
};
use x11rb::protocol::xtest::{self, ConnectionExt as _};
use x11rb::rust_connection::RustConnection;
use x11rb::{CURRENT_TIME, NONE};

use self::clipboard::{Clipboard, PasteError};
use self::keymap::{Keymap, Stroke};
use crate::conn::Conn;
use crate::error::X11Error;
use handrail_platform::keysym::{self, Keysym};

/// Gap between the clicks of a double or triple click: well inside any toolkit's double-click interval
/// (250–500 ms), and never the same millisecond, which toolkits comparing timestamps could collapse.
pub const MULTI_CLICK_GAP: Duration = Duration::from_millis(30);
/// Intermediate pointer positions between a drag's start and end, so toolkits see the drag threshold
/// crossed by motion (not a jump) and drop targets see the pointer travel.
pub const DRAG_STEPS: u32 = 10;
/// Time between drag motion steps: toolkits start a drag (grab, drag window) on the first motion past
/// the threshold, and motion that arrives before that is set up is lost on some.
pub const DRAG_STEP_GAP: Duration = Duration::from_millis(8);
/// Pause at a drag's destination before releasing: drag-and-drop targets answer the last position
/// asynchronously (XDND status), and a drop before that answer is refused.
pub const DROP_DWELL: Duration = Duration::from_millis(30);
/// Bound on waiting for a frozen pointer to thaw after a press (see [`X11Input::press_live`]).
const FREEZE_TIMEOUT: Duration = Duration::from_millis(500);
/// Poll interval while the pointer is frozen; there is no event for "thawed", and a window manager
/// thaws it within 0.4–15 ms (measured under load).
const FREEZE_POLL: Duration = Duration::from_micros(300);
/// Borrowed keycodes go back to empty after this long unused (see module docs: returning them sooner
/// races the application's own keymap refresh).
pub const BORROW_LINGER: Duration = Duration::from_secs(1);
/// When one text needs more distinct borrowed characters than there are spare keycodes, a keycode is
/// re-pointed at another character; the application must have translated its previous use first. There
/// is no way to ask it, so this is paced.
pub const BORROW_REUSE_GAP: Duration = Duration::from_millis(60);

/// How `type_text` produces text (see module docs for the measurements).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TypingStrategy {
    /// Keyboard characters as keys, other runs pasted (typed through borrowed keycodes in Emacs and Vim).
    #[default]
    Auto,
    /// Everything as key events, borrowing spare keycodes for characters the keyboard lacks.
    Keys,
    /// Everything but newlines and tabs pasted (CLIPBOARD and ctrl+v; PRIMARY too and shift+Insert in
    /// terminals, Emacs and Vim).
    Clipboard,
}

/// Tunables of [`X11Input`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputOptions {
    pub typing: TypingStrategy,
    /// How long to wait for the focused application to fetch pasted text before reporting a timeout.
    pub paste_timeout: Duration,
}

impl Default for InputOptions {
    fn default() -> Self {
        InputOptions { typing: TypingStrategy::Auto, paste_timeout: Duration::from_millis(1500) }
    }
}

/// One spare keycode handrail may point at a keysym.
#[derive(Debug, Clone, Copy)]
struct Borrow {
    keycode: Keycode,
    keysym: Option<Keysym>,
    last_used: Instant,
}

struct State {
    keymap: Keymap,
    /// The selection thread's MappingNotify count when `keymap` was loaded.
    generation: u64,
    /// Physical button for each logical button 1..=7 (index 0 unused): the pointer mapping may swap them.
    buttons: [u8; 8],
    borrowed: Vec<Borrow>,
    /// When `keymap` was read.
    loaded_at: Instant,
}

/// XTEST input on one X display. See the module docs.
pub struct X11Input {
    conn: Arc<Conn>,
    options: InputOptions,
    state: Mutex<State>,
    clipboard: Clipboard,
    /// The last click, so that the next one is never half of a double click.
    spacing: Mutex<ClickSpacing>,
}

impl std::fmt::Debug for X11Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("X11Input").field("display", &self.conn.display).field("options", &self.options).finish()
    }
}

/// Something we pressed and must release.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Down {
    Key(Keycode),
    Button(u8),
}

/// Presses made during one call; `Drop` releases whatever is still down, newest first, and flushes.
struct Held<'a> {
    conn: &'a RustConnection,
    down: Vec<Down>,
}

impl<'a> Held<'a> {
    fn new(conn: &'a RustConnection) -> Self {
        Held { conn, down: Vec::new() }
    }

    fn fake(&self, kind: u8, detail: u8) -> Result<(), X11Error> {
        self.conn.xtest_fake_input(kind, detail, CURRENT_TIME, NONE, 0, 0, 0)?;
        Ok(())
    }

    fn press(&mut self, d: Down) -> Result<(), X11Error> {
        match d {
            Down::Key(k) => self.fake(KEY_PRESS_EVENT, k)?,
            Down::Button(b) => self.fake(BUTTON_PRESS_EVENT, b)?,
        }
        self.down.push(d);
        Ok(())
    }

    fn release(&mut self, d: Down) -> Result<(), X11Error> {
        if let Some(i) = self.down.iter().rposition(|x| *x == d) {
            self.down.remove(i);
        }
        match d {
            Down::Key(k) => self.fake(KEY_RELEASE_EVENT, k),
            Down::Button(b) => self.fake(BUTTON_RELEASE_EVENT, b),
        }
    }

    fn tap(&mut self, d: Down) -> Result<(), X11Error> {
        self.press(d)?;
        self.release(d)
    }

    /// Taps `stroke`'s keycode, with shift around it when the stroke needs it.
    fn stroke(&mut self, stroke: Stroke, shift: Option<Keycode>) -> Result<(), X11Error> {
        match (stroke.shift, shift) {
            (true, Some(s)) => {
                self.press(Down::Key(s))?;
                self.tap(Down::Key(stroke.keycode))?;
                self.release(Down::Key(s))
            }
            (true, None) => Err(X11Error::Other("the keyboard has no shift key".into())),
            (false, _) => self.tap(Down::Key(stroke.keycode)),
        }
    }

    fn release_all(&mut self) -> Result<(), X11Error> {
        let mut first_err = None;
        while let Some(d) = self.down.pop() {
            let r = match d {
                Down::Key(k) => self.fake(KEY_RELEASE_EVENT, k),
                Down::Button(b) => self.fake(BUTTON_RELEASE_EVENT, b),
            };
            if let Err(e) = r {
                first_err.get_or_insert(e);
            }
        }
        let flushed = self.conn.flush().map_err(X11Error::from);
        match first_err {
            Some(e) => Err(e),
            None => flushed,
        }
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        if !self.down.is_empty() {
            if let Err(e) = self.release_all() {
                warn!("releasing pressed keys/buttons: {e}");
            }
        }
    }
}

/// A piece of text to type: a key (newline, tab) or a run of other characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Piece<'t> {
    Key(Keysym),
    Run(&'t str),
}

/// Splits text at newlines (`\n`, `\r\n`, `\r` → Return) and tabs. Other control characters are refused:
/// there is no honest way to type them.
fn pieces(text: &str) -> Result<Vec<Piece<'_>>, PlatformError> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let key = match c {
            '\n' => Some(keysym::RETURN),
            '\r' => {
                if matches!(chars.peek(), Some((_, '\n'))) {
                    chars.next();
                }
                Some(keysym::RETURN)
            }
            '\t' => Some(keysym::TAB),
            c if c.is_control() => {
                return Err(PlatformError::Invalid(format!(
                    "cannot type control character U+{:04X}; use the key action for special keys",
                    u32::from(c)
                )))
            }
            _ => None,
        };
        if let Some(k) = key {
            if start < i {
                out.push(Piece::Run(&text[start..i]));
            }
            out.push(Piece::Key(k));
            start = chars.peek().map_or(text.len(), |(j, _)| *j);
        }
    }
    if start < text.len() {
        out.push(Piece::Run(&text[start..]));
    }
    Ok(out)
}

/// Whether a run of text goes as key events (else it is pasted). `native` is whether every character of
/// the run is on the keyboard itself. [`TextRoute::Alternate`] sends each run the other way than
/// [`TextRoute::Preferred`] would, so a second attempt after a wrong arrival does not repeat the path that
/// failed (newlines and tabs are keys on both routes: they are not runs).
fn run_by_keys(strategy: TypingStrategy, route: TextRoute, paste_key: PasteKey, native: bool) -> bool {
    let preferred = match strategy {
        TypingStrategy::Keys => true,
        TypingStrategy::Clipboard => false,
        TypingStrategy::Auto => paste_key == PasteKey::None || native,
    };
    match route {
        TextRoute::Preferred => preferred,
        TextRoute::Alternate => !preferred,
    }
}

fn lock(m: &Mutex<State>) -> MutexGuard<'_, State> {
    // After a panic mid-call the guard has released the keys; the cached state is still valid data.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn to_i16(v: i32) -> i16 {
    i16::try_from(v).unwrap_or(if v < 0 { i16::MIN } else { i16::MAX })
}

impl X11Input {
    /// XTEST input on `conn`'s display, with default options.
    pub fn new(conn: Arc<Conn>) -> Result<X11Input, X11Error> {
        X11Input::with_options(conn, InputOptions::default())
    }

    /// XTEST input with explicit options. Fails when the server lacks XTEST. Opens a second connection
    /// (selection serving and mapping notifications need their own event stream) and releases any
    /// modifier or button left down.
    pub fn with_options(conn: Arc<Conn>, options: InputOptions) -> Result<X11Input, X11Error> {
        if conn.conn.extension_information(xtest::X11_EXTENSION_NAME)?.is_none() {
            return Err(X11Error::MissingExtension("XTEST"));
        }
        conn.conn.xtest_get_version(2, 2)?.reply()?;
        let clipboard = Clipboard::start(&conn.display)?;
        // Read the generation before loading: a change during the load triggers another load.
        let generation = clipboard.mapping_generation();
        let keymap = Keymap::load(&conn.conn)?;
        let buttons = load_buttons(&conn.conn)?;
        let now = Instant::now();
        let borrowed =
            keymap.empty_keycodes().iter().map(|&keycode| Borrow { keycode, keysym: None, last_used: now }).collect();
        let input = X11Input {
            conn,
            options,
            state: Mutex::new(State { keymap, generation, buttons, borrowed, loaded_at: now }),
            clipboard,
            spacing: Mutex::new(ClickSpacing::default()),
        };
        input.release_stuck()?;
        Ok(input)
    }

    /// The options this input was created with.
    pub fn options(&self) -> &InputOptions {
        &self.options
    }

    fn c(&self) -> &RustConnection {
        &self.conn.conn
    }

    /// Releases modifier keys and buttons that are down (a crashed client may have left them latched).
    fn release_stuck(&self) -> Result<(), X11Error> {
        let keys = self.c().query_keymap()?.reply()?.keys;
        let st = lock(&self.state);
        let mut released = Vec::new();
        for kc in st.keymap.modifier_keycodes() {
            let (byte, bit) = (usize::from(kc / 8), kc % 8);
            if keys.get(byte).is_some_and(|b| b & (1 << bit) != 0) && !released.contains(&kc) {
                self.c().xtest_fake_input(KEY_RELEASE_EVENT, kc, CURRENT_TIME, NONE, 0, 0, 0)?;
                released.push(kc);
            }
        }
        let mask = u16::from(self.c().query_pointer(self.conn.root)?.reply()?.mask);
        let mut buttons = Vec::new();
        for (logical, bit) in [(1u8, KeyButMask::BUTTON1), (2, KeyButMask::BUTTON2), (3, KeyButMask::BUTTON3)] {
            if mask & u16::from(bit) != 0 {
                let physical = st.buttons[usize::from(logical)];
                self.c().xtest_fake_input(BUTTON_RELEASE_EVENT, physical, CURRENT_TIME, NONE, 0, 0, 0)?;
                buttons.push(logical);
            }
        }
        if !released.is_empty() || !buttons.is_empty() {
            warn!("released keys {released:?} and buttons {buttons:?} left pressed by an earlier session");
        }
        self.sync()
    }

    /// A round trip: the server has processed every request we sent before it returns.
    fn sync(&self) -> Result<(), X11Error> {
        self.c().get_input_focus()?.reply()?;
        Ok(())
    }

    /// The state, with the keymap reloaded if the server announced a mapping change, and borrowed
    /// keycodes unused for [`BORROW_LINGER`] returned.
    fn state(&self) -> Result<MutexGuard<'_, State>, X11Error> {
        let mut st = lock(&self.state);
        let generation = self.clipboard.mapping_generation();
        if generation != st.generation {
            self.reload(&mut st, generation)?;
        }
        self.return_idle(&mut st, BORROW_LINGER)?;
        Ok(st)
    }

    fn reload(&self, st: &mut State, generation: u64) -> Result<(), X11Error> {
        let keymap = Keymap::load(self.c())?;
        st.buttons = load_buttons(self.c())?;
        // Keep borrowed keycodes that still show what we put there, and every keycode that is empty now.
        let now = Instant::now();
        let mut borrowed: Vec<Borrow> = st
            .borrowed
            .iter()
            .copied()
            .filter(|b| match b.keysym {
                Some(ks) => keymap.stroke_for_keysym(ks).is_some_and(|s| s.keycode == b.keycode),
                None => keymap.empty_keycodes().contains(&b.keycode),
            })
            .collect();
        for &kc in keymap.empty_keycodes() {
            if !borrowed.iter().any(|b| b.keycode == kc) {
                borrowed.push(Borrow { keycode: kc, keysym: None, last_used: now });
            }
        }
        debug!("keyboard mapping reloaded ({} spare keycodes)", borrowed.len());
        st.keymap = keymap;
        st.borrowed = borrowed;
        st.generation = generation;
        st.loaded_at = Instant::now();
        Ok(())
    }

    /// Returns borrowed keycodes unused for at least `idle` to empty.
    fn return_idle(&self, st: &mut State, idle: Duration) -> Result<(), X11Error> {
        let per = st.keymap.keysyms_per_keycode();
        let empty = vec![keysym::NO_SYMBOL; usize::from(per)];
        let mut changed = false;
        for i in 0..st.borrowed.len() {
            let b = st.borrowed[i];
            if b.keysym.is_some() && b.last_used.elapsed() >= idle {
                self.c().change_keyboard_mapping(1, b.keycode, per, &empty)?;
                st.keymap.set_returned(b.keycode);
                st.borrowed[i].keysym = None;
                changed = true;
            }
        }
        if changed {
            self.c().flush()?;
        }
        Ok(())
    }

    /// A keycode producing `ks` on both levels, borrowing a spare keycode if needed.
    fn borrow(&self, st: &mut State, ks: Keysym) -> Result<Keycode, X11Error> {
        let now = Instant::now();
        if let Some(b) = st.borrowed.iter_mut().find(|b| b.keysym == Some(ks)) {
            b.last_used = now;
            return Ok(b.keycode);
        }
        // A free keycode, else the least recently used one.
        let pick = st
            .borrowed
            .iter()
            .enumerate()
            .min_by_key(|(_, b)| (b.keysym.is_some(), b.last_used))
            .map(|(i, b)| (i, *b))
            .ok_or_else(|| {
                X11Error::Other("the keyboard mapping has no spare keycode to type this character".into())
            })?;
        let (i, b) = pick;
        if b.keysym.is_some() {
            // Re-pointing a keycode used moments ago: let the application translate that use first.
            let since = b.last_used.elapsed();
            if since < BORROW_REUSE_GAP {
                self.c().flush()?;
                sleep(BORROW_REUSE_GAP - since);
            }
        }
        let per = st.keymap.keysyms_per_keycode();
        let mut syms = vec![keysym::NO_SYMBOL; usize::from(per)];
        // The same keysym on the plain and shifted level, so shift or Caps Lock cannot change it.
        for s in syms.iter_mut().take(2) {
            *s = ks;
        }
        self.c().change_keyboard_mapping(1, b.keycode, per, &syms)?;
        st.keymap.set_borrowed(b.keycode, ks);
        st.borrowed[i] = Borrow { keycode: b.keycode, keysym: Some(ks), last_used: Instant::now() };
        Ok(b.keycode)
    }

    /// Is `c` on the keyboard itself (not on a keycode we borrowed)?
    fn native(st: &State, c: char) -> bool {
        st.keymap
            .stroke_for_char(c)
            .is_some_and(|s| !st.borrowed.iter().any(|b| b.keysym.is_some() && b.keycode == s.keycode))
    }

    /// How to type keysym `ks` (a key) or character `c`: the keyboard's stroke, after a reload if the
    /// cache misses, else a borrowed keycode.
    fn stroke_for(&self, st: &mut State, ks: Keysym, c: Option<char>, call_start: Instant) -> Result<Stroke, X11Error> {
        let find =
            |st: &State| c.and_then(|c| st.keymap.stroke_for_char(c)).or_else(|| st.keymap.stroke_for_keysym(ks));
        if let Some(s) = find(st) {
            return Ok(s);
        }
        // A miss may be a stale cache (a layout switch whose notification has not arrived yet): reload
        // once per call before borrowing.
        if st.loaded_at < call_start {
            let generation = self.clipboard.mapping_generation();
            self.reload(st, generation)?;
            if let Some(s) = find(st) {
                return Ok(s);
            }
        }
        Ok(Stroke { keycode: self.borrow(st, ks)?, shift: false })
    }

    fn moved(&self, to: Point) -> Result<(), X11Error> {
        self.c().xtest_fake_input(
            MOTION_NOTIFY_EVENT,
            0,
            CURRENT_TIME,
            self.conn.root,
            to_i16(to.x),
            to_i16(to.y),
            0,
        )?;
        Ok(())
    }

    fn check_point(&self, p: Point) -> Result<(), PlatformError> {
        let (w, h) = self.conn.root_size()?;
        if p.x < 0 || p.y < 0 || p.x >= i32::from(w) || p.y >= i32::from(h) {
            return Err(PlatformError::Invalid(format!("point {},{} is outside the {w}x{h} screen", p.x, p.y)));
        }
        Ok(())
    }

    /// The physical button to press for `logical` (the pointer mapping may swap buttons).
    fn physical_button(&self, logical: u8) -> Result<u8, X11Error> {
        Ok(self.state()?.buttons.get(usize::from(logical)).copied().unwrap_or(logical))
    }

    /// Presses `button` (the pointer is at `at`) and returns once the pointer is live again.
    ///
    /// A window manager's synchronous button grab (openbox's click-to-focus) freezes the pointer until
    /// the manager replays the press to the application; a release queued while frozen loses the whole
    /// click (measured in a GTK entry under openbox: 7 of 8 zero-hold clicks lost, none with this wait).
    /// Frozen events are not processed, so a 1-pixel probe motion shows up in QueryPointer only once the
    /// pointer is live; then the pointer goes back to `at`, so the release lands where the press did.
    fn press_live(&self, held: &mut Held<'_>, button: u8, at: Point) -> Result<(), X11Error> {
        held.press(Down::Button(button))?;
        let probe = Point::new(if at.x > 0 { at.x - 1 } else { at.x + 1 }, at.y);
        self.moved(probe)?;
        self.c().flush()?;
        let start = Instant::now();
        loop {
            let q = self.c().query_pointer(self.conn.root)?.reply()?;
            if (i32::from(q.root_x), i32::from(q.root_y)) != (at.x, at.y) {
                break;
            }
            if start.elapsed() >= FREEZE_TIMEOUT {
                warn!("the pointer stayed frozen for {FREEZE_TIMEOUT:?} after a press (a stuck grab?)");
                break;
            }
            sleep(FREEZE_POLL);
        }
        let waited = start.elapsed();
        if waited > Duration::from_millis(2) {
            debug!("pointer frozen for {:.1} ms after the press", waited.as_secs_f64() * 1e3);
        }
        self.moved(at)?;
        Ok(())
    }

    /// Types `run` as key events.
    fn type_keys(&self, st: &mut State, held: &mut Held<'_>, run: &str, call_start: Instant) -> Result<(), X11Error> {
        let shift = st.keymap.shift_keycode();
        for c in run.chars() {
            let ks =
                keysym::for_char(c).ok_or_else(|| X11Error::Other(format!("no keysym for U+{:04X}", u32::from(c))))?;
            let stroke = self.stroke_for(st, ks, Some(c), call_start)?;
            held.stroke(stroke, shift)?;
        }
        Ok(())
    }

    /// Taps a key given by keysym (Return, Tab).
    fn type_key(&self, st: &mut State, held: &mut Held<'_>, ks: Keysym, call_start: Instant) -> Result<(), X11Error> {
        let stroke = self.stroke_for(st, ks, None, call_start)?;
        held.stroke(stroke, st.keymap.shift_keycode())
    }

    /// Pastes `run` into `focus` with `paste_key` ([`PasteKey::None`], only reachable when the
    /// Clipboard strategy is forced, pastes with shift+Insert, the traditional X paste key).
    fn type_paste(
        &self,
        st: &mut State,
        run: &str,
        focus: Option<Window>,
        paste_key: PasteKey,
        call_start: Instant,
    ) -> Result<(), PlatformError> {
        let (combo_mods, key_ks, selections): (Modifiers, Keysym, Vec<Atom>) = match paste_key {
            PasteKey::CtrlV => {
                let m = Modifiers { ctrl: true, ..Modifiers::default() };
                (m, u32::from('v'), vec![self.clipboard.clipboard_atom()])
            }
            PasteKey::ShiftInsert | PasteKey::None => {
                let m = Modifiers { shift: true, ..Modifiers::default() };
                (m, keysym::INSERT, vec![AtomEnum::PRIMARY.into(), self.clipboard.clipboard_atom()])
            }
        };
        let mods = st.keymap.modifier_keycodes_for(&combo_mods).map_err(PlatformError::Unavailable)?;
        let stroke = self.stroke_for(st, key_ks, None, call_start)?;
        let conn = self.c();
        let keystroke = || -> Result<(), X11Error> {
            let mut held = Held::new(conn);
            for &m in &mods {
                held.press(Down::Key(m))?;
            }
            held.tap(Down::Key(stroke.keycode))?;
            held.release_all()
        };
        match self.clipboard.paste(&selections, run, focus, self.options.paste_timeout, keystroke) {
            Ok(_) => Ok(()),
            Err(PasteError::X(e)) => Err(e.into()),
            Err(PasteError::Timeout(waited)) => Err(PlatformError::Timeout(format!(
                "pasting {} characters: the focused window did not fetch the text within {} ms (is a text \
                 field focused?); it stays on offer for {} s",
                run.chars().count(),
                waited.as_millis(),
                clipboard::LATE_PASTE_GRACE.as_secs()
            ))),
        }
    }

    /// The window that receives typing: `_NET_ACTIVE_WINDOW`, else the input focus.
    fn focused_window(&self) -> Result<Option<Window>, X11Error> {
        let c = self.c();
        let active = c
            .get_property(false, self.conn.root, self.conn.atoms._NET_ACTIVE_WINDOW, AtomEnum::WINDOW, 0, 1)?
            .reply()?
            .value32()
            .and_then(|mut v| v.next())
            .filter(|&w| w != NONE);
        let window = match active {
            Some(w) => w,
            None => c.get_input_focus()?.reply()?.focus,
        };
        // NONE and PointerRoot (1) are not windows.
        Ok((window > 1 && window != self.conn.root).then_some(window))
    }

    /// The paste key of `window` (or the client window above it), by its `WM_CLASS`.
    fn paste_key_for(&self, window: Window) -> PasteKey {
        let class = match self.class_of(window) {
            Ok(Some(class)) => class.to_lowercase(),
            Ok(None) => return PasteKey::CtrlV,
            Err(e) => {
                debug!("cannot read the focused window's class: {e}");
                return PasteKey::CtrlV;
            }
        };
        paste_key_for(class.split('\0'))
    }

    /// `WM_CLASS` (instance NUL class) of `window` or its nearest ancestor that has one (bounded walk:
    /// the input focus may be a child of the client window).
    fn class_of(&self, mut window: Window) -> Result<Option<String>, X11Error> {
        let c = self.c();
        for _ in 0..8 {
            if window <= 1 || window == self.conn.root {
                return Ok(None);
            }
            let prop = c.get_property(false, window, AtomEnum::WM_CLASS, AtomEnum::STRING, 0, 64)?.reply()?;
            if !prop.value.is_empty() {
                return Ok(Some(String::from_utf8_lossy(&prop.value).trim_end_matches('\0').to_string()));
            }
            window = c.query_tree(window)?.reply()?.parent;
        }
        Ok(None)
    }

    /// When Caps Lock is on, typed letters would come out in the wrong case: returns its keycode so the
    /// caller can toggle it off around typing.
    fn caps_lock_on(&self, st: &State) -> Result<Option<Keycode>, X11Error> {
        let mask = u16::from(self.c().query_pointer(self.conn.root)?.reply()?.mask);
        Ok(if mask & u16::from(KeyButMask::LOCK) != 0 { st.keymap.caps_lock_keycode() } else { None })
    }

    fn type_text_inner(&self, text: &str, route: TextRoute) -> Result<(), PlatformError> {
        let call_start = Instant::now();
        let pieces = pieces(text)?;
        let mut st = self.state()?;
        let strategy = self.options.typing;
        let focus = match self.focused_window() {
            Ok(w) => w,
            Err(e) => {
                debug!("cannot read the focused window: {e}");
                None
            }
        };
        let paste_key = match (strategy, route, focus) {
            (_, _, None) | (TypingStrategy::Keys, TextRoute::Preferred, _) => PasteKey::CtrlV,
            (_, _, Some(w)) => self.paste_key_for(w),
        };
        let caps = self.caps_lock_on(&st)?;
        let mut held = Held::new(self.c());
        if let Some(kc) = caps {
            held.tap(Down::Key(kc))?;
        }
        let mut result = Ok(());
        for piece in pieces {
            let r = match piece {
                Piece::Key(ks) => self.type_key(&mut st, &mut held, ks, call_start).map_err(PlatformError::from),
                Piece::Run(run) => {
                    let native = run.chars().all(|c| Self::native(&st, c));
                    let by_keys = run_by_keys(strategy, route, paste_key, native);
                    if by_keys {
                        self.type_keys(&mut st, &mut held, run, call_start).map_err(PlatformError::from)
                    } else {
                        // Keys typed so far leave before the paste keystroke (same connection, so they
                        // stay in order once flushed).
                        match held.release_all() {
                            Ok(()) => self.type_paste(&mut st, run, focus, paste_key, call_start),
                            Err(e) => Err(e.into()),
                        }
                    }
                }
            };
            if let Err(e) = r {
                result = Err(e);
                break;
            }
        }
        // Caps Lock goes back to how the user had it, whatever happened above.
        if let Some(kc) = caps {
            held.tap(Down::Key(kc))?;
        }
        held.release_all()?;
        drop(held);
        self.sync()?;
        result
    }
}

/// Physical button for each logical button 1..=7, from GetPointerMapping.
fn load_buttons(conn: &RustConnection) -> Result<[u8; 8], X11Error> {
    let map = conn.get_pointer_mapping()?.reply()?.map;
    let mut out = [0, 1, 2, 3, 4, 5, 6, 7];
    for (logical, slot) in out.iter_mut().enumerate().skip(1) {
        // map[physical - 1] = logical
        if let Some(p) = map.iter().position(|&l| usize::from(l) == logical) {
            *slot = u8::try_from(p + 1).unwrap_or(*slot);
        }
    }
    Ok(out)
}

fn button_number(b: MouseButton) -> u8 {
    match b {
        MouseButton::Left => 1,
        MouseButton::Middle => 2,
        MouseButton::Right => 3,
    }
}

impl Input for X11Input {
    fn move_pointer(&self, to: Point) -> Result<(), PlatformError> {
        self.check_point(to)?;
        self.moved(to)?;
        Ok(self.sync()?)
    }

    fn click(&self, at: Point, button: MouseButton, count: u8) -> Result<(), PlatformError> {
        if !(1..=3).contains(&count) {
            return Err(PlatformError::Invalid(format!("click count {count}: use 1, 2 (double) or 3 (triple)")));
        }
        self.check_point(at)?;
        let b = self.physical_button(button_number(button))?;
        let mut spacing = self.spacing.lock().unwrap_or_else(PoisonError::into_inner);
        sleep(spacing.wait_before(Instant::now(), at, button));
        self.moved(at)?;
        let mut held = Held::new(self.c());
        for i in 0..count {
            if i > 0 {
                sleep(MULTI_CLICK_GAP);
            }
            self.press_live(&mut held, b, at)?;
            held.release(Down::Button(b))?;
            // Each click leaves promptly, so the gap above is the gap the application sees.
            self.c().flush().map_err(X11Error::from)?;
        }
        drop(held);
        spacing.clicked(Instant::now(), at, button);
        Ok(self.sync()?)
    }

    fn drag(&self, from: Point, to: Point) -> Result<(), PlatformError> {
        self.check_point(from)?;
        self.check_point(to)?;
        let b = self.physical_button(1)?;
        self.moved(from)?;
        let mut held = Held::new(self.c());
        self.press_live(&mut held, b, from)?;
        for i in 1..=DRAG_STEPS {
            let t = f64::from(i) / f64::from(DRAG_STEPS);
            let lerp = |a: i32, b: i32| a + (f64::from(b - a) * t).round() as i32;
            self.moved(Point::new(lerp(from.x, to.x), lerp(from.y, to.y)))?;
            self.c().flush().map_err(X11Error::from)?;
            sleep(DRAG_STEP_GAP);
        }
        sleep(DROP_DWELL);
        held.release(Down::Button(b))?;
        held.release_all()?;
        drop(held);
        Ok(self.sync()?)
    }

    fn scroll(&self, at: Option<Point>, direction: ScrollDirection, notches: u32) -> Result<(), PlatformError> {
        if let Some(p) = at {
            self.check_point(p)?;
            self.moved(p)?;
        }
        // No freeze probe here: window managers do not grab the bare wheel (openbox binds it only with
        // modifiers), and each notch is a complete press and release.
        let logical = match direction {
            ScrollDirection::Up => 4,
            ScrollDirection::Down => 5,
            ScrollDirection::Left => 6,
            ScrollDirection::Right => 7,
        };
        let b = self.physical_button(logical)?;
        let mut held = Held::new(self.c());
        for _ in 0..notches.min(1000) {
            held.tap(Down::Button(b))?;
        }
        held.release_all()?;
        drop(held);
        Ok(self.sync()?)
    }

    fn key(&self, combo: &KeyCombo) -> Result<(), PlatformError> {
        let call_start = Instant::now();
        let mut st = self.state()?;
        // The keysym tables are by canonical name (the key's `Display`).
        let name = combo.key.to_string();
        let stroke = if combo.key.is_modifier() {
            let kc = st
                .keymap
                .modifier_keycode(&name)
                .ok_or_else(|| PlatformError::Unavailable(format!("the keyboard has no {name} key")))?;
            Stroke { keycode: kc, shift: false }
        } else {
            let ks = keysym::for_key_name(&name)
                .ok_or_else(|| PlatformError::Invalid(format!("no X keysym for the key {name:?}")))?;
            self.stroke_for(&mut st, ks, combo.key.as_char(), call_start)?
        };
        let mut mods = combo.modifiers;
        // A shifted character (`+` is shift+`=` on US keyboards) needs shift, as a person would press it.
        mods.shift |= stroke.shift;
        let mod_keys = st.keymap.modifier_keycodes_for(&mods).map_err(PlatformError::Unavailable)?;
        drop(st);
        let mut held = Held::new(self.c());
        for &m in &mod_keys {
            held.press(Down::Key(m))?;
        }
        held.tap(Down::Key(stroke.keycode))?;
        for &m in mod_keys.iter().rev() {
            held.release(Down::Key(m))?;
        }
        held.release_all()?;
        drop(held);
        Ok(self.sync()?)
    }

    fn type_text(&self, text: &str) -> Result<(), PlatformError> {
        self.type_text_via(text, TextRoute::Preferred)
    }

    fn type_text_via(&self, text: &str, route: TextRoute) -> Result<(), PlatformError> {
        handrail_platform::check_typed_length(text)?;
        let start = Instant::now();
        let r = self.type_text_inner(text, route);
        // Typed text is never logged, only its length.
        debug!(
            "type_text ({route:?}): {} chars in {:.1} ms ({:?})",
            text.chars().count(),
            start.elapsed().as_secs_f64() * 1e3,
            r.as_ref().err()
        );
        r
    }
}

impl Drop for X11Input {
    fn drop(&mut self) {
        let mut st = lock(&self.state);
        if let Err(e) = self.return_idle(&mut st, Duration::ZERO) {
            warn!("returning borrowed keycodes: {e}");
        }
        let _ = self.c().flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_split_at_newlines_and_tabs() {
        assert_eq!(pieces("ab").ok(), Some(vec![Piece::Run("ab")]));
        assert_eq!(
            pieces("a\nb\tc").ok(),
            Some(vec![
                Piece::Run("a"),
                Piece::Key(keysym::RETURN),
                Piece::Run("b"),
                Piece::Key(keysym::TAB),
                Piece::Run("c")
            ])
        );
        assert_eq!(
            pieces("\r\n\r\nx\r").ok(),
            Some(vec![
                Piece::Key(keysym::RETURN),
                Piece::Key(keysym::RETURN),
                Piece::Run("x"),
                Piece::Key(keysym::RETURN)
            ])
        );
        assert_eq!(pieces("สวัสดี 👍").ok(), Some(vec![Piece::Run("สวัสดี 👍")]));
        assert_eq!(pieces("").ok(), Some(vec![]));
        assert!(matches!(pieces("a\u{8}b"), Err(PlatformError::Invalid(_))));
    }

    #[test]
    fn the_alternate_route_flips_every_run() {
        use TypingStrategy::{Auto, Clipboard, Keys};
        let (pre, alt) = (TextRoute::Preferred, TextRoute::Alternate);
        // Auto: keyboard text as keys, other scripts pasted; the alternate swaps them.
        assert!(run_by_keys(Auto, pre, PasteKey::CtrlV, true));
        assert!(!run_by_keys(Auto, pre, PasteKey::CtrlV, false));
        assert!(!run_by_keys(Auto, alt, PasteKey::CtrlV, true));
        assert!(run_by_keys(Auto, alt, PasteKey::CtrlV, false));
        assert!(!run_by_keys(Auto, pre, PasteKey::ShiftInsert, false));
        assert!(run_by_keys(Auto, alt, PasteKey::ShiftInsert, false));
        // Editors with no paste key get keys first; the alternate pastes (shift+Insert).
        assert!(run_by_keys(Auto, pre, PasteKey::None, false));
        assert!(!run_by_keys(Auto, alt, PasteKey::None, true));
        // A forced strategy is the preferred route; the alternate is the other one.
        for native in [true, false] {
            assert!(run_by_keys(Keys, pre, PasteKey::CtrlV, native));
            assert!(!run_by_keys(Keys, alt, PasteKey::CtrlV, native));
            assert!(!run_by_keys(Clipboard, pre, PasteKey::CtrlV, native));
            assert!(run_by_keys(Clipboard, alt, PasteKey::CtrlV, native));
        }
    }

    #[test]
    fn input_is_send() {
        fn is_send<T: Send>() {}
        is_send::<X11Input>();
    }
}

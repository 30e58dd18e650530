//! Input through mutter's remote-desktop session: pointer motion relative to a monitor's stream,
//! buttons by evdev code, wheel steps, and keys and text as keysyms.
//!
//! mutter turns a keysym into a key of the active keyboard layout itself, pressing Shift or AltGr
//! for the level that carries it, so text that layout can type is typed exactly; a character it has
//! no key for is dropped with only a log line. So `type_text` splits text at newlines and tabs (typed
//! as Return and Tab: a pasted newline would run a terminal's line) and types each line the active
//! layout can type as keys (with the layout's own keysyms, [`crate::keymap`]), but **pastes** a line
//! with anything else whole through the session's clipboard (`clipboard`) with the focused window's
//! paste key (ctrl+v; shift+Insert in terminals; editors without a dependable one get keys): one
//! paste per line, not one per word of another script, as each paste costs the app a clipboard read.
//! A key the active layout lacks (ctrl+v's V under a Russian layout) is pressed by the key code that
//! carries it in another layout of the keymap, as a person presses the key with that label. Without
//! the keymap (no Wayland socket, no libxkbcommon) printable ASCII is taken to be on the layout.
//! [`TextRoute::Alternate`] sends each line the other way, for the engine's second attempt after a
//! wrong arrival.
//!
//! Calls of one action go out in one write and are all answered before the action returns, in
//! order: mutter handles a connection's calls in the order sent.
//!
//! **A press after a move waits for mutter.** mutter takes the events on its input thread and
//! decides on its main thread which window is under the pointer; a button sent right behind a motion
//! into a new window can be handled before that and go nowhere (the first click on a just-opened
//! window was lost every time). So a press, and a wheel step, that follows a motion waits until
//! mutter's threads are idle ([`handrail_procfs::wait_until_idle`]). A drag's two phases (the app
//! starting it after the first motion, the target accepting it before the release) wait the same
//! way for mutter and the processes of the windows at its two ends, as on wlroots
//! ([`handrail_wayland::pace`]); fixed pauses where those are not known.

use std::thread::sleep;
use std::time::{Duration, Instant};

use handrail_dbus::wire::{Arg, Call};
use handrail_platform::click_spacing::ClickSpacing;
use handrail_platform::drag::DragPath;
use handrail_platform::keysym::{self, Keysym};
use handrail_platform::paste::PasteKey;
use handrail_platform::{
    check_typed_length, Input, KeyCombo, Modifiers, MouseButton, PlatformError, Point, ScrollDirection, TextRoute,
};
use handrail_procfs::{wait_until_idle, Idle, IdleRule};
use handrail_wayland::pace::{AppsAt, Pace, Phase};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use crate::clipboard::ClipboardServer;
use crate::error::GnomeError;
use crate::keymap::{Keyboard, Stroke};
use crate::mutter::{CallTarget, Iface, MutterSession, Route, CALL_TIMEOUT};

/// Gap between the clicks of a double or triple click.
pub const MULTI_CLICK_GAP: Duration = Duration::from_millis(30);
/// Time between drag motion steps.
pub const DRAG_STEP_GAP: Duration = Duration::from_millis(8);
/// How long mutter must stay idle after a motion before a press follows it (a frame and a little).
pub const MOTION_QUIET: Duration = Duration::from_millis(20);
/// The longest a press waits for that.
pub const MOTION_CEILING: Duration = Duration::from_millis(1000);

/// Linux button codes (linux/input-event-codes.h).
const BTN_LEFT: i32 = 0x110;
const BTN_RIGHT: i32 = 0x111;
const BTN_MIDDLE: i32 = 0x112;

/// One input event as mutter's session takes it.
#[derive(Debug, Clone, PartialEq)]
enum Notify {
    Motion {
        /// The stream's object path (mutter's route) and PipeWire node (the portal's).
        stream: String,
        node: u32,
        x: f64,
        y: f64,
    },
    Button {
        code: i32,
        pressed: bool,
    },
    Key {
        keysym: Keysym,
        pressed: bool,
    },
    /// A key by its evdev code, for a key the active layout lacks ([`Stroke::Keycode`]).
    Keycode {
        code: u32,
        pressed: bool,
    },
    Wheel {
        horizontal: bool,
        steps: i32,
    },
}

impl Notify {
    fn stroke(stroke: Stroke, pressed: bool) -> Notify {
        match stroke {
            Stroke::Keysym(keysym) => Notify::Key { keysym, pressed },
            Stroke::Keycode(code) => Notify::Keycode { code, pressed },
        }
    }

    /// A press and a release of `stroke`.
    fn tap(stroke: Stroke) -> [Notify; 2] {
        [Notify::stroke(stroke, true), Notify::stroke(stroke, false)]
    }

    /// The call's member and own arguments on `route`: mutter's takes states as booleans, streams
    /// by object path and keysyms unsigned; the portal's states as 0/1, streams by node, and
    /// keysyms and keycodes signed.
    fn member_and_args(&self, route: Route) -> (&'static str, Vec<Arg>) {
        let portal = route == Route::Portal;
        let state = |pressed: bool| if portal { Arg::U32(u32::from(pressed)) } else { Arg::Bool(pressed) };
        // Keysyms and evdev codes are far below i32::MAX; a larger one is no key and is sent as -1.
        let code = |c: u32| if portal { Arg::I32(i32::try_from(c).unwrap_or(-1)) } else { Arg::U32(c) };
        match self {
            Notify::Motion { stream, node, x, y } => {
                let stream = if portal { Arg::U32(*node) } else { Arg::Str(stream.clone()) };
                ("NotifyPointerMotionAbsolute", vec![stream, Arg::F64(*x), Arg::F64(*y)])
            }
            Notify::Button { code, pressed } => ("NotifyPointerButton", vec![Arg::I32(*code), state(*pressed)]),
            Notify::Key { keysym, pressed } => ("NotifyKeyboardKeysym", vec![code(*keysym), state(*pressed)]),
            Notify::Keycode { code: c, pressed } => ("NotifyKeyboardKeycode", vec![code(*c), state(*pressed)]),
            Notify::Wheel { horizontal, steps } => {
                ("NotifyPointerAxisDiscrete", vec![Arg::U32(u32::from(*horizontal)), Arg::I32(*steps)])
            }
        }
    }
}

/// The paste key of the focused window, asked before each paste.
pub type PasteKeyOf = Box<dyn Fn() -> PasteKey + Send + Sync>;

/// The keyboard as it is now (keymap and active layout), asked before each key and text action.
pub type KeyboardOf = Box<dyn Fn() -> Result<Keyboard, String> + Send + Sync>;

/// Pointer and keyboard of a mutter desktop. See the [module docs](self).
pub struct MutterInput {
    session: Arc<MutterSession>,
    spacing: Mutex<ClickSpacing>,
    paste_key: PasteKeyOf,
    /// Started at the first paste.
    clipboard: Mutex<Option<ClipboardServer>>,
    /// Whether this session's pointer has been placed once (see [`MutterInput::place_pointer`]).
    pointer_placed: AtomicBool,
    keyboard: Option<KeyboardOf>,
    /// Whether not knowing the keyboard has been logged (once a session, not once an action).
    keyboard_unknown_told: AtomicBool,
    /// The processes of the windows at a drag's two ends, which its phases wait on.
    apps_at: Option<AppsAt>,
}

impl std::fmt::Debug for MutterInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MutterInput").field("session", &self.session).finish_non_exhaustive()
    }
}

impl MutterInput {
    /// Input through `session`; text is pasted with ctrl+v until [`MutterInput::pasting_with`] says
    /// how to tell the focused window's paste key.
    pub fn new(session: Arc<MutterSession>) -> MutterInput {
        MutterInput {
            session,
            spacing: Mutex::new(ClickSpacing::default()),
            paste_key: Box::new(|| PasteKey::CtrlV),
            clipboard: Mutex::new(None),
            pointer_placed: AtomicBool::new(false),
            keyboard: None,
            keyboard_unknown_told: AtomicBool::new(false),
            apps_at: None,
        }
    }

    /// Paces drags by the processes `apps_at` names for their two ends (and mutter's).
    pub fn pacing_drags_by(mut self, apps_at: AppsAt) -> MutterInput {
        self.apps_at = Some(apps_at);
        self
    }

    /// Asks `keyboard` for the keymap and the active layout before each key and text action.
    pub fn reading_keyboard(mut self, keyboard: KeyboardOf) -> MutterInput {
        self.keyboard = Some(keyboard);
        self
    }

    /// The keyboard now, or `None` (printable ASCII then taken to be on it) when it cannot be read.
    fn keyboard(&self) -> Option<Keyboard> {
        match self.keyboard.as_ref()?() {
            Ok(k) => Some(k),
            Err(why) => {
                if !self.keyboard_unknown_told.swap(true, Ordering::Relaxed) {
                    log::warn!(
                        "the keyboard layout is unknown ({why}); typing printable ASCII as keys, pasting the rest"
                    );
                }
                None
            }
        }
    }

    /// Asks `paste_key` which key pastes into the focused window (from its class).
    pub fn pasting_with(mut self, paste_key: PasteKeyOf) -> MutterInput {
        self.paste_key = paste_key;
        self
    }

    /// Offers `run` on the clipboard, sends `key` and waits until the app has read it.
    fn paste(&self, run: &str, key: PasteKey, keyboard: Option<&Keyboard>) -> Result<(), PlatformError> {
        let mut clipboard = self.clipboard.lock().unwrap_or_else(|e| e.into_inner());
        if clipboard.is_none() {
            *clipboard = Some(ClipboardServer::start(Arc::clone(&self.session))?);
        }
        let Some(server) = clipboard.as_ref() else {
            return Err(PlatformError::Failed("the session's clipboard is not served".into()));
        };
        server.offer(run)?;
        self.send_releasing(&paste_events(key, keyboard)?)?;
        server.wait_pasted()
    }

    fn type_text_by(&self, text: &str, route: TextRoute) -> Result<(), PlatformError> {
        check_typed_length(text)?;
        let keyboard = self.keyboard();
        let keyboard = keyboard.as_ref();
        let pieces = text_pieces(text, keyboard)?;
        let paste_key =
            if pieces.iter().any(|p| matches!(p, Piece::Run { .. })) { (self.paste_key)() } else { PasteKey::CtrlV };
        for piece in &pieces {
            match piece {
                Piece::Key(k) => self.send_releasing(&[
                    Notify::Key { keysym: *k, pressed: true },
                    Notify::Key { keysym: *k, pressed: false },
                ])?,
                Piece::Run { text, on_keymap } => {
                    if run_by_keys(route, paste_key, *on_keymap) {
                        self.send_releasing(&text_events(text, keyboard)?)?;
                    } else {
                        self.paste(text, paste_key, keyboard)?;
                    }
                }
            }
        }
        Ok(())
    }

    pub fn session(&self) -> &MutterSession {
        &self.session
    }

    /// Sends `events` in one burst and waits until mutter has handled them all.
    fn send(&self, events: &[Notify]) -> Result<(), GnomeError> {
        let route = self.session.route();
        let built: Vec<(&'static str, CallTarget<'_>, Vec<Arg>)> = events
            .iter()
            .map(|e| {
                let (member, own) = e.member_and_args(route);
                let (target, args) = self.session.call_args(Iface::Input, own);
                (member, target, args)
            })
            .collect();
        let calls: Vec<Call<'_>> = built.iter().map(|(member, target, args)| target.call(member, args)).collect();
        let mut bus = self.session.bus();
        match route {
            Route::Mutter => Ok(bus.call_all(&calls, CALL_TIMEOUT, "remote-desktop input")?),
            // xdg-desktop-portal handles each call on a thread of its own and passes it on from
            // there: calls in flight together reached GNOME out of order (a key before the Control
            // pressed for it, seen as "v" typed for ctrl+v). One at a time, each passed on before
            // the next is sent.
            Route::Portal => {
                for call in &calls {
                    bus.call(call, CALL_TIMEOUT, "remote-desktop input through the portal")?;
                }
                Ok(())
            }
        }
    }

    /// Sends `events`; when that fails, releases whatever they pressed before reporting it.
    fn send_releasing(&self, events: &[Notify]) -> Result<(), PlatformError> {
        self.send(events).map_err(|e| {
            let releases = releases_of(events);
            if !releases.is_empty() {
                if let Err(again) = self.send(&releases) {
                    log::warn!("releasing after a failed input burst: {again}");
                }
            }
            PlatformError::from(e)
        })
    }

    /// Sends a motion to `to`; the session's first goes twice, mutter handling the first before the
    /// second is sent. mutter 48 sets the session's virtual pointer up with its first event, and a
    /// press right after that first motion reaches no window (a click as a session's first pointer
    /// action arrived 0 times of 3; after one motion, 5 of 5); mutter 43 needs none of this.
    fn place_pointer(&self, to: Point) -> Result<(), PlatformError> {
        let m = self.motion(to)?;
        if !self.pointer_placed.swap(true, Ordering::Relaxed) {
            self.send_releasing(std::slice::from_ref(&m))?;
            self.wait_for_compositor();
        }
        self.send_releasing(&[m])
    }

    /// Waits until mutter has been idle a moment (it has handled what was sent), or the ceiling.
    fn wait_for_compositor(&self) {
        if let Some(pid) = self.session.compositor_pid() {
            let rule = IdleRule::quiet(MOTION_QUIET, MOTION_CEILING);
            if let Idle::StillBusy { waited } = wait_until_idle(&[pid], &rule) {
                log::debug!("mutter still busy {waited:?} after a motion");
            }
        }
    }

    /// Moves the pointer to `to` and waits until mutter has handled the move (see the module docs).
    fn arrive(&self, to: Point) -> Result<(), PlatformError> {
        self.place_pointer(to)?;
        self.wait_for_compositor();
        Ok(())
    }

    fn motion(&self, to: Point) -> Result<Notify, PlatformError> {
        let (stream, x, y) = self
            .session
            .locate(to)
            .ok_or_else(|| PlatformError::Invalid(format!("point {},{} is on no monitor", to.x, to.y)))?;
        Ok(Notify::Motion { stream: stream.path.clone(), node: stream.node, x, y })
    }

    fn spacing(&self) -> std::sync::MutexGuard<'_, ClickSpacing> {
        self.spacing.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The releases of every press in `events` that is not released later in them, newest first.
fn releases_of(events: &[Notify]) -> Vec<Notify> {
    let mut held: Vec<Notify> = Vec::new();
    for e in events {
        match e {
            Notify::Button { pressed: true, .. }
            | Notify::Key { pressed: true, .. }
            | Notify::Keycode { pressed: true, .. } => held.push(e.clone()),
            Notify::Button { code, pressed: false } => {
                held.retain(|h| !matches!(h, Notify::Button { code: c, .. } if c == code));
            }
            Notify::Key { keysym, pressed: false } => {
                held.retain(|h| !matches!(h, Notify::Key { keysym: k, .. } if k == keysym));
            }
            Notify::Keycode { code, pressed: false } => {
                held.retain(|h| !matches!(h, Notify::Keycode { code: c, .. } if c == code));
            }
            _ => {}
        }
    }
    held.iter()
        .rev()
        .map(|h| match h {
            Notify::Button { code, .. } => Notify::Button { code: *code, pressed: false },
            Notify::Key { keysym, .. } => Notify::Key { keysym: *keysym, pressed: false },
            Notify::Keycode { code, .. } => Notify::Keycode { code: *code, pressed: false },
            other => other.clone(),
        })
        .collect()
}

fn button_code(b: MouseButton) -> i32 {
    match b {
        MouseButton::Left => BTN_LEFT,
        MouseButton::Middle => BTN_MIDDLE,
        MouseButton::Right => BTN_RIGHT,
    }
}

/// The keysyms of held modifiers, in the order pressed.
fn modifier_keysyms(m: Modifiers) -> Vec<Keysym> {
    let mut out = Vec::new();
    if m.ctrl {
        out.push(keysym::CONTROL_L);
    }
    if m.alt {
        out.push(keysym::ALT_L);
    }
    if m.shift {
        out.push(keysym::SHIFT_L);
    }
    if m.super_key {
        out.push(keysym::SUPER_L);
    }
    out
}

/// Whether `sym` is a character beyond printable ASCII (Latin-1 letters, other scripts, Unicode
/// keysyms): no key of a layout handrail can rely on carries it, and mutter drops what no key
/// carries. Function, navigation, modifier and dead keys, and the XF86 media keys, are on keyboards.
fn beyond_ascii_keys(sym: Keysym) -> bool {
    (0x80..0xfe00).contains(&sym) || (0x0100_0080..0x1008_ff00).contains(&sym)
}

/// How to press the key that carries `sym`: as [`Keyboard::stroke`] finds it; without the keymap, by
/// keysym, except a character beyond ASCII, which mutter would drop without a word.
fn key_stroke(name: &str, sym: Keysym, keyboard: Option<&Keyboard>) -> Result<Stroke, PlatformError> {
    match keyboard {
        Some(k) => k.stroke(sym).ok_or_else(|| {
            PlatformError::Unavailable(format!(
                "pressing {name:?} as a key on GNOME: no layout of the keyboard has that key (the active one is {}); \
                 type the character with the type action instead",
                k.active_name()
            ))
        }),
        None if beyond_ascii_keys(sym) => Err(PlatformError::Unavailable(format!(
            "pressing {name:?} as a key on GNOME (mutter presses only keys of its keyboard layout, and handrail \
             could not read the keymap); type the character with the type action instead"
        ))),
        None => Ok(Stroke::Keysym(sym)),
    }
}

/// Modifiers down, `key` tapped, modifiers up in reverse.
fn around_modifiers(modifiers: &[Keysym], key: Stroke, keyboard: Option<&Keyboard>) -> Vec<Notify> {
    // Modifier keys are in every layout; where one is not, its key code in another layout is pressed.
    let strokes: Vec<Stroke> =
        modifiers.iter().map(|&m| keyboard.and_then(|k| k.stroke(m)).unwrap_or(Stroke::Keysym(m))).collect();
    let mut events: Vec<Notify> = strokes.iter().map(|&m| Notify::stroke(m, true)).collect();
    events.extend(Notify::tap(key));
    events.extend(strokes.iter().rev().map(|&m| Notify::stroke(m, false)));
    events
}

/// The events of a key combination: modifiers down, the key tapped, modifiers up in reverse.
fn combo_events(combo: &KeyCombo, keyboard: Option<&Keyboard>) -> Result<Vec<Notify>, PlatformError> {
    let name = combo.key.to_string();
    let sym = keysym::for_key_name(&name).ok_or_else(|| PlatformError::Invalid(format!("no key named {name:?}")))?;
    let key = key_stroke(&name, sym, keyboard)?;
    let m = combo.modifiers;
    if let (Stroke::Keycode(_), Some(k)) = (key, keyboard) {
        // Apps match a shortcut on the key's code in every layout; a character key alone types
        // whatever the active layout has on that key.
        if !(m.ctrl || m.alt || m.super_key) && keysym::to_char(sym).is_some() {
            return Err(PlatformError::Unavailable(format!(
                "pressing {name:?} alone on GNOME: the active keyboard layout ({}) has no key for it, and the key \
                 carrying it in another layout would type that layout's own character; type text with the type \
                 action (shortcuts such as ctrl+{name} work)",
                k.active_name()
            )));
        }
    }
    Ok(around_modifiers(&modifier_keysyms(m), key, keyboard))
}

/// A piece of text to type: a key (Return, Tab) or the run of characters between two, and whether
/// the active layout types every one of them.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Key(Keysym),
    Run { text: String, on_keymap: bool },
}

/// Splits `text` into Return (`\n`, `\r\n`, `\r`), Tab and the runs between them. Other control
/// characters are refused: there is no honest way to type them.
fn text_pieces(text: &str, keyboard: Option<&Keyboard>) -> Result<Vec<Piece>, PlatformError> {
    let mut pieces: Vec<Piece> = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let key = match c {
            '\n' => Some(keysym::RETURN),
            '\r' => {
                if chars.peek() == Some(&'\n') {
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
            pieces.push(Piece::Key(k));
            continue;
        }
        let on_keymap = match keyboard {
            Some(k) => k.typing_keysym(c).is_some(),
            None => c.is_ascii_graphic() || c == ' ',
        };
        match pieces.last_mut() {
            Some(Piece::Run { text, on_keymap: all }) => {
                text.push(c);
                *all &= on_keymap;
            }
            _ => pieces.push(Piece::Run { text: c.to_string(), on_keymap }),
        }
    }
    Ok(pieces)
}

/// The keys that paste the clipboard into a window with `key`. The session sets the clipboard only,
/// never the primary selection that shift+Insert pastes in terminals, so terminals get their
/// clipboard key, ctrl+shift+v (VTE's, kitty's, foot's, Alacritty's, Konsole's).
fn paste_events(key: PasteKey, keyboard: Option<&Keyboard>) -> Result<Vec<Notify>, PlatformError> {
    let (modifiers, k): (&[Keysym], Keysym) = match key {
        PasteKey::ShiftInsert => (&[keysym::CONTROL_L, keysym::SHIFT_L], u32::from(b'V')),
        PasteKey::CtrlV | PasteKey::None => (&[keysym::CONTROL_L], u32::from(b'v')),
    };
    let stroke = key_stroke("v", k, keyboard)?;
    Ok(around_modifiers(modifiers, stroke, keyboard))
}

/// Whether a run goes as keys (else it is pasted): runs the keymap can type go as keys, others are
/// pasted, except where the window has no paste key; [`TextRoute::Alternate`] swaps the two.
fn run_by_keys(route: TextRoute, paste_key: PasteKey, on_keymap: bool) -> bool {
    let preferred = paste_key == PasteKey::None || on_keymap;
    match route {
        TextRoute::Preferred => preferred,
        TextRoute::Alternate => !preferred,
    }
}

/// The events that type `text`: each character tapped as the active layout's keysym for it (its
/// Unicode keysym without the keymap), newline as Return, tab as Tab.
fn text_events(text: &str, keyboard: Option<&Keyboard>) -> Result<Vec<Notify>, PlatformError> {
    let mut events = Vec::with_capacity(text.chars().count() * 2);
    for c in text.chars() {
        let sym = match c {
            '\n' => keysym::RETURN,
            '\t' => keysym::TAB,
            c => keyboard
                .and_then(|k| k.typing_keysym(c))
                .or_else(|| keysym::for_char(c))
                .ok_or_else(|| PlatformError::Invalid(format!("{c:?} cannot be typed (a control character)")))?,
        };
        events.push(Notify::Key { keysym: sym, pressed: true });
        events.push(Notify::Key { keysym: sym, pressed: false });
    }
    Ok(events)
}

impl Input for MutterInput {
    fn move_pointer(&self, to: Point) -> Result<(), PlatformError> {
        self.place_pointer(to)
    }

    fn click(&self, at: Point, button: MouseButton, count: u8) -> Result<(), PlatformError> {
        if !(1..=3).contains(&count) {
            return Err(PlatformError::Invalid(format!("click count {count}: use 1, 2 (double) or 3 (triple)")));
        }
        self.motion(at)?;
        let mut spacing = self.spacing();
        sleep(spacing.wait_before(Instant::now(), at, button));
        self.arrive(at)?;
        let code = button_code(button);
        for i in 0..count {
            if i > 0 {
                sleep(MULTI_CLICK_GAP);
            }
            self.send_releasing(&[Notify::Button { code, pressed: true }, Notify::Button { code, pressed: false }])?;
        }
        spacing.clicked(Instant::now(), at, button);
        Ok(())
    }

    fn drag(&self, from: Point, to: Point) -> Result<(), PlatformError> {
        self.motion(from)?;
        self.motion(to)?;
        self.arrive(from)?;
        let (source, target) = self.apps_at.as_ref().map_or((None, None), |f| f(from, to));
        let pace = Pace::new(self.session.compositor_pid(), source, target);
        let path = DragPath::new(from, to);
        let press = Notify::Button { code: BTN_LEFT, pressed: true };
        let release = Notify::Button { code: BTN_LEFT, pressed: false };
        let held = |result: Result<(), PlatformError>| {
            result.inspect_err(|_| {
                if let Err(e) = self.send(std::slice::from_ref(&release)) {
                    log::warn!("releasing a drag's button: {e}");
                }
            })
        };
        // Every call below is answered once mutter has taken it, so a wait starts after mutter has it.
        self.send_releasing(&[press, self.motion(path.start())?])?;
        pace.wait(Phase::Start);
        for step in path.steps() {
            held(self.motion(step).and_then(|m| self.send(&[m]).map_err(PlatformError::from)))?;
            sleep(DRAG_STEP_GAP);
        }
        pace.wait(Phase::Drop);
        Ok(self.send(&[release])?)
    }

    fn scroll(&self, at: Option<Point>, direction: ScrollDirection, notches: u32) -> Result<(), PlatformError> {
        if let Some(p) = at {
            self.arrive(p)?;
        }
        let mut events = Vec::new();
        let (horizontal, sign) = match direction {
            ScrollDirection::Up => (false, -1),
            ScrollDirection::Down => (false, 1),
            ScrollDirection::Left => (true, -1),
            ScrollDirection::Right => (true, 1),
        };
        // One event per notch, as a wheel sends them.
        events.extend((0..notches.min(1000)).map(|_| Notify::Wheel { horizontal, steps: sign }));
        self.send_releasing(&events)
    }

    fn key(&self, combo: &KeyCombo) -> Result<(), PlatformError> {
        let keyboard = self.keyboard();
        self.send_releasing(&combo_events(combo, keyboard.as_ref())?)
    }

    fn type_text(&self, text: &str) -> Result<(), PlatformError> {
        self.type_text_by(text, TextRoute::Preferred)
    }

    fn type_text_via(&self, text: &str, route: TextRoute) -> Result<(), PlatformError> {
        self.type_text_by(text, route)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use handrail_platform::Key;

    fn key(keysym: Keysym, pressed: bool) -> Notify {
        Notify::Key { keysym, pressed }
    }

    #[test]
    fn a_combination_presses_its_modifiers_around_the_key() {
        let combo = KeyCombo {
            modifiers: Modifiers { ctrl: true, shift: true, ..Modifiers::default() },
            key: Key::from_name("t").expect("t"),
        };
        assert_eq!(
            combo_events(&combo, None).expect("events"),
            vec![
                key(keysym::CONTROL_L, true),
                key(keysym::SHIFT_L, true),
                key(0x74, true),
                key(0x74, false),
                key(keysym::SHIFT_L, false),
                key(keysym::CONTROL_L, false),
            ]
        );
    }

    #[test]
    fn text_splits_into_keys_and_the_runs_between_them() {
        let run = |t: &str, on_keymap| Piece::Run { text: t.into(), on_keymap };
        assert_eq!(
            text_pieces("Hi สวัสดี 👍\r\nok\tx", None).expect("pieces"),
            vec![
                run("Hi สวัสดี 👍", false),
                Piece::Key(keysym::RETURN),
                run("ok", true),
                Piece::Key(keysym::TAB),
                run("x", true),
            ]
        );
        assert!(text_pieces("a\u{7}b", None).is_err(), "a bell is refused");
        assert_eq!(text_pieces("", None).expect("empty"), Vec::new());
    }

    #[test]
    fn character_keys_beyond_ascii_are_refused_and_keyboard_keys_are_not() {
        let combo = |name: &str| KeyCombo { modifiers: Modifiers::default(), key: Key::from_name(name).expect(name) };
        let e = combo_events(&combo("ก"), None).expect_err("Thai is on no key handrail knows");
        assert!(e.to_string().contains("type action"), "{e}");
        assert!(combo_events(&combo("ä"), None).is_err());
        for ok in ["a", "F5", "escape", "return", "tab", "left", "delete", "home", "super", "XF86AudioMute"] {
            if let Some(k) = Key::from_name(ok) {
                assert!(combo_events(&KeyCombo { modifiers: Modifiers::default(), key: k }, None).is_ok(), "{ok}");
            }
        }
    }

    #[test]
    fn terminals_paste_the_clipboard_with_ctrl_shift_v() {
        let pressed = |key| {
            paste_events(key, None)
                .expect("paste keys")
                .into_iter()
                .filter_map(|e| match e {
                    Notify::Key { keysym, pressed: true } => Some(keysym),
                    _ => None,
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(pressed(PasteKey::ShiftInsert), vec![keysym::CONTROL_L, keysym::SHIFT_L, u32::from(b'V')]);
        assert_eq!(pressed(PasteKey::CtrlV), vec![keysym::CONTROL_L, u32::from(b'v')]);
        assert!(
            releases_of(&paste_events(PasteKey::ShiftInsert, None).expect("paste keys")).is_empty(),
            "everything pressed is released"
        );
    }

    #[test]
    fn runs_off_the_keymap_are_pasted_and_the_alternate_route_swaps() {
        let (pre, alt) = (TextRoute::Preferred, TextRoute::Alternate);
        assert!(run_by_keys(pre, PasteKey::CtrlV, true));
        assert!(!run_by_keys(pre, PasteKey::CtrlV, false));
        assert!(!run_by_keys(pre, PasteKey::ShiftInsert, false));
        assert!(run_by_keys(pre, PasteKey::None, false), "no paste key: keys");
        assert!(!run_by_keys(alt, PasteKey::CtrlV, true));
        assert!(run_by_keys(alt, PasteKey::CtrlV, false));
    }

    #[test]
    fn text_is_typed_as_the_keysyms_of_its_characters() {
        let events = text_events("aÄก\n", None).expect("events");
        let pressed: Vec<Keysym> = events
            .iter()
            .filter_map(|e| match e {
                Notify::Key { keysym, pressed: true } => Some(*keysym),
                _ => None,
            })
            .collect();
        assert_eq!(pressed, vec![0x61, 0xc4, 0x0100_0e01, keysym::RETURN]);
        assert_eq!(events.len(), 8, "each pressed and released");
        assert!(text_events("a\u{7}", None).is_err(), "a bell is not typed");
    }

    #[test]
    fn what_a_failed_burst_left_pressed_is_released_newest_first() {
        let events = [
            key(keysym::CONTROL_L, true),
            Notify::Button { code: BTN_LEFT, pressed: true },
            key(0x61, true),
            key(0x61, false),
        ];
        assert_eq!(
            releases_of(&events),
            vec![Notify::Button { code: BTN_LEFT, pressed: false }, key(keysym::CONTROL_L, false)]
        );
        assert!(releases_of(&text_events("abc", None).expect("events")).is_empty());
    }

    mod with_a_russian_layout_active {
        use super::*;
        use crate::keymap::tests::{russian_and_us, CYRILLIC_EF};

        fn russian() -> Keyboard {
            Keyboard::new(russian_and_us(), 0)
        }

        #[test]
        fn shortcuts_press_the_key_with_the_latin_label() {
            let ctrl_v = KeyCombo {
                modifiers: Modifiers { ctrl: true, ..Modifiers::default() },
                key: Key::from_name("v").expect("v"),
            };
            assert_eq!(
                combo_events(&ctrl_v, Some(&russian())).expect("events"),
                vec![
                    key(keysym::CONTROL_L, true),
                    Notify::Keycode { code: 47, pressed: true },
                    Notify::Keycode { code: 47, pressed: false },
                    key(keysym::CONTROL_L, false),
                ]
            );
            // The paste itself, which a line beyond the layout needs.
            let paste = paste_events(PasteKey::CtrlV, Some(&russian())).expect("paste keys");
            assert!(paste.contains(&Notify::Keycode { code: 47, pressed: true }), "{paste:?}");
            assert!(releases_of(&paste).is_empty());
            let alone = KeyCombo { modifiers: Modifiers::default(), key: Key::from_name("v").expect("v") };
            let e = combo_events(&alone, Some(&russian())).expect_err("v alone would type м");
            assert!(e.to_string().contains("Russian"), "{e}");
            let shifted = KeyCombo { modifiers: Modifiers { shift: true, ..Modifiers::default() }, ..alone.clone() };
            assert!(combo_events(&shifted, Some(&russian())).is_err(), "shift+v would type М");
            let enter = KeyCombo { modifiers: Modifiers::default(), key: Key::from_name("return").expect("return") };
            assert!(combo_events(&enter, Some(&russian())).is_ok(), "keys without a character are in every layout");
            let thai = KeyCombo { modifiers: Modifiers::default(), key: Key::from_name("ก").expect("ก") };
            let e = combo_events(&thai, Some(&russian())).expect_err("no layout has Thai");
            assert!(e.to_string().contains("Russian"), "{e}");
        }

        #[test]
        fn its_own_script_is_typed_as_keys_and_latin_text_is_pasted() {
            let pieces = text_pieces("ф 1\nav", Some(&russian())).expect("pieces");
            assert_eq!(
                pieces,
                vec![
                    Piece::Run { text: "ф 1".into(), on_keymap: true },
                    Piece::Key(keysym::RETURN),
                    Piece::Run { text: "av".into(), on_keymap: false },
                ]
            );
            let events = text_events("ф", Some(&russian())).expect("events");
            assert_eq!(events, vec![key(CYRILLIC_EF, true), key(CYRILLIC_EF, false)], "the layout's keysym");
        }

        #[test]
        fn a_keycode_left_pressed_by_a_failed_burst_is_released() {
            let events = [key(keysym::CONTROL_L, true), Notify::Keycode { code: 47, pressed: true }];
            assert_eq!(
                releases_of(&events),
                vec![Notify::Keycode { code: 47, pressed: false }, key(keysym::CONTROL_L, false)]
            );
        }
    }
}

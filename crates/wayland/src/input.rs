//! Input through the wlroots virtual devices: `zwlr_virtual_pointer_v1` (absolute motion over the
//! whole layout, buttons, wheel steps) and `zwp_virtual_keyboard_v1` (keys of a keymap it uploads).
//!
//! # Guarantees
//! - Nothing stays pressed: every press goes through a guard (`Held`) whose `Drop` releases what is
//!   still down, newest first, on success, error and panic alike.
//! - Every call ends with a round trip (`wl_display.sync`): when it returns the compositor has
//!   processed every request and sent the resulting events to the clients.
//!
//! # Text
//! Every character is typed as a key ([`crate::keymap`]): ASCII at its US-layout position, anything
//! else on a keycode of its own in the uploaded keymap. Keymap and keys travel in order on one
//! connection and the compositor forwards them in that order, so nothing races the application
//! (the X11 backend's borrowed keycodes race its keymap refresh and fall back to the clipboard). A
//! text with more distinct characters than the keymap holds is typed in parts with a new keymap
//! before each part. There is no second route: [`TextRoute::Alternate`] types the same keys again.

use std::io::Write as _;
use std::os::fd::{AsFd, FromRawFd, OwnedFd};
use std::sync::{Mutex, MutexGuard};
use std::thread::sleep;
use std::time::{Duration, Instant};

use handrail_platform::click_spacing::ClickSpacing;
use handrail_platform::drag::DragPath;
use handrail_platform::{Input, Key, KeyCombo, MouseButton, PlatformError, Point, ScrollDirection, TextRoute};
use log::debug;
use wayland_client::protocol::{wl_pointer, wl_seat};
use wayland_client::{Connection, Dispatch, EventQueue, QueueHandle};
use wayland_protocols_misc::zwp_virtual_keyboard_v1::client::{
    zwp_virtual_keyboard_manager_v1, zwp_virtual_keyboard_v1,
};
use wayland_protocols_wlr::virtual_pointer::v1::client::{zwlr_virtual_pointer_manager_v1, zwlr_virtual_pointer_v1};

use crate::conn::{self, bind_outputs, now_ms, track_outputs, HasOutputs, Outputs, Socket};
use crate::error::WaylandError;
use crate::keymap::{keysym_for_key_name, Keymap, Stroke, EXTRA_SLOTS};
use crate::pace::{self, AppsAt, Pace, Phase};

/// Gap between the clicks of a double or triple click: well inside any toolkit's double-click
/// interval, and never the same millisecond.
pub const MULTI_CLICK_GAP: Duration = Duration::from_millis(30);
/// Time between drag motion steps: toolkits set a drag up on the first motion past the threshold.
pub const DRAG_STEP_GAP: Duration = Duration::from_millis(8);
/// One wheel notch, in the axis units wlroots' own wheel devices report.
const WHEEL_STEP: f64 = 15.0;

/// Linux button codes (linux/input-event-codes.h).
const BTN_LEFT: u32 = 0x110;
const BTN_RIGHT: u32 = 0x111;
const BTN_MIDDLE: u32 = 0x112;

struct InputState {
    outputs: Outputs,
}

impl HasOutputs for InputState {
    fn outputs(&mut self) -> &mut Outputs {
        &mut self.outputs
    }
}

track_outputs!(InputState);

struct Devices {
    conn: Connection,
    queue: EventQueue<InputState>,
    state: InputState,
    pointer: zwlr_virtual_pointer_v1::ZwlrVirtualPointerV1,
    keyboard: zwp_virtual_keyboard_v1::ZwpVirtualKeyboardV1,
    keymap: Keymap,
    uploaded: bool,
    /// The compositor's process, which drags wait on with their apps.
    compositor: Option<u32>,
    /// The last click, so that the next one is never half of a double click.
    spacing: ClickSpacing,
}

/// Virtual pointer and keyboard on a wlroots compositor. See the [module docs](self).
pub struct WaylandInput {
    devices: Mutex<Devices>,
    /// The processes showing the windows at a drag's two ends, for pacing drags by them.
    apps_at: Option<AppsAt>,
}

impl std::fmt::Debug for WaylandInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WaylandInput").finish_non_exhaustive()
    }
}

/// Something pressed that must be released.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Down {
    Key(u32),
    Button(u32),
}

/// Presses made during one call; `Drop` releases whatever is still down, newest first, and syncs.
struct Held<'a> {
    d: &'a mut Devices,
    down: Vec<Down>,
    /// Real modifiers held down (the keymap's modifier mask).
    mods: u32,
}

impl<'a> Held<'a> {
    fn new(d: &'a mut Devices) -> Self {
        Held { d, down: Vec::new(), mods: 0 }
    }

    fn send(&mut self, what: Down, pressed: bool) {
        let time = now_ms();
        match what {
            Down::Key(code) => {
                let state = if pressed { 1 } else { 0 };
                self.d.keyboard.key(time, code, state);
                // wlroots does not derive a virtual keyboard's modifiers from its keys: they are
                // sent alongside, after the key, as a physical keyboard's arrive.
                if let Some(mask) = modifier_mask(code) {
                    if pressed {
                        self.mods |= mask;
                    } else {
                        self.mods &= !mask;
                    }
                    self.d.keyboard.modifiers(self.mods, 0, 0, 0);
                }
            }
            Down::Button(b) => {
                let state = if pressed { wl_pointer::ButtonState::Pressed } else { wl_pointer::ButtonState::Released };
                self.d.pointer.button(time, b, state);
                self.d.pointer.frame();
            }
        }
    }

    fn press(&mut self, what: Down) {
        self.send(what, true);
        self.down.push(what);
    }

    fn release(&mut self, what: Down) {
        if let Some(i) = self.down.iter().rposition(|x| *x == what) {
            self.down.remove(i);
        }
        self.send(what, false);
    }

    fn tap(&mut self, what: Down) {
        self.press(what);
        self.release(what);
    }

    fn release_all(&mut self) {
        while let Some(what) = self.down.pop() {
            self.send(what, false);
        }
    }

    fn flush(&mut self) -> Result<(), WaylandError> {
        Ok(self.d.conn.flush()?)
    }

    /// Releases everything and waits until the compositor has processed it all.
    fn finish(mut self) -> Result<(), WaylandError> {
        self.release_all();
        self.d.sync()
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        if !self.down.is_empty() {
            self.release_all();
            let _ = self.d.conn.flush();
        }
    }
}

impl Devices {
    fn sync(&mut self) -> Result<(), WaylandError> {
        self.queue.roundtrip(&mut self.state)?;
        Ok(())
    }

    fn screen(&self) -> handrail_platform::Rect {
        self.state.outputs.layout_bounds()
    }

    /// Sends the keymap when it changed (or was never sent).
    fn upload_keymap(&mut self) -> Result<(), WaylandError> {
        let text = self.keymap.to_text();
        let fd = memfd_with(text.as_bytes())?;
        self.keyboard.keymap(1, fd.as_fd(), text.len() as u32);
        self.uploaded = true;
        debug!("uploaded a keymap of {} bytes", text.len());
        Ok(())
    }

    fn ensure_keymap(&mut self, chars: &[char]) -> Result<(), WaylandError> {
        if self.keymap.make_room(chars) || !self.uploaded {
            self.upload_keymap()?;
        }
        Ok(())
    }

    fn move_to(&mut self, p: Point) {
        let s = self.screen();
        self.pointer.motion_absolute(now_ms(), p.x as u32, p.y as u32, s.width, s.height);
        self.pointer.frame();
    }

    fn check_point(&self, p: Point) -> Result<(), PlatformError> {
        let s = self.screen();
        if p.x < 0 || p.y < 0 || p.x as u32 >= s.width || p.y as u32 >= s.height {
            return Err(PlatformError::Invalid(format!(
                "point ({}, {}) lies outside the {}x{} screen",
                p.x, p.y, s.width, s.height
            )));
        }
        Ok(())
    }
}

/// A memfd holding `bytes`, for the keymap upload.
fn memfd_with(bytes: &[u8]) -> Result<OwnedFd, WaylandError> {
    // SAFETY: memfd_create returns a fresh fd we own (or -1).
    let raw = unsafe { libc::memfd_create(c"handrail-keymap".as_ptr(), libc::MFD_CLOEXEC) };
    if raw < 0 {
        return Err(WaylandError::os("memfd_create for the keymap"));
    }
    // SAFETY: `raw` is a valid fd owned by nobody else.
    let fd = unsafe { OwnedFd::from_raw_fd(raw) };
    let mut file = std::fs::File::from(fd);
    file.write_all(bytes).map_err(|source| WaylandError::Os { what: "writing the keymap", source })?;
    Ok(OwnedFd::from(file))
}

/// The real modifier a modifier key's evdev code sets (XKB's fixed real-modifier bits: Shift 1,
/// Control 4, Mod1 8 for Alt, Mod4 64 for Super), as the keymap's `modifier_map` assigns them.
fn modifier_mask(evdev: u32) -> Option<u32> {
    match evdev {
        42 | 54 => Some(1),
        29 | 97 => Some(4),
        56 | 100 => Some(8),
        125 | 126 => Some(64),
        _ => None,
    }
}

fn button_code(b: MouseButton) -> u32 {
    match b {
        MouseButton::Left => BTN_LEFT,
        MouseButton::Middle => BTN_MIDDLE,
        MouseButton::Right => BTN_RIGHT,
    }
}

impl WaylandInput {
    /// Creates a virtual pointer and keyboard on the compositor at `socket`.
    pub fn connect(socket: &Socket) -> Result<WaylandInput, WaylandError> {
        let (conn, globals, mut queue) = conn::open::<InputState>(socket)?;
        let qh = queue.handle();
        let seat: wl_seat::WlSeat = globals
            .bind(&qh, 1..=1, ())
            .map_err(|_| WaylandError::MissingProtocol { protocol: "wl_seat", why: "input goes to a seat" })?;
        let pointers: zwlr_virtual_pointer_manager_v1::ZwlrVirtualPointerManagerV1 =
            globals.bind(&qh, 1..=2, ()).map_err(|_| WaylandError::MissingProtocol {
                protocol: "zwlr_virtual_pointer_manager_v1",
                why: "pointer input on wlroots compositors needs it",
            })?;
        let keyboards: zwp_virtual_keyboard_manager_v1::ZwpVirtualKeyboardManagerV1 =
            globals.bind(&qh, 1..=1, ()).map_err(|_| WaylandError::MissingProtocol {
                protocol: "zwp_virtual_keyboard_manager_v1",
                why: "keyboard input on wlroots compositors needs it",
            })?;
        let mut state = InputState { outputs: Outputs::default() };
        bind_outputs(&globals, &mut queue, &mut state)?;
        let pointer = pointers.create_virtual_pointer(Some(&seat), &qh, ());
        let keyboard = keyboards.create_virtual_keyboard(&seat, &qh, ());
        let mut devices = Devices {
            conn,
            queue,
            state,
            pointer,
            keyboard,
            keymap: Keymap::default(),
            uploaded: false,
            compositor: None,
            spacing: ClickSpacing::default(),
        };
        devices.compositor = pace::compositor_pid(&devices.conn);
        devices.upload_keymap()?;
        devices.sync()?;
        Ok(WaylandInput { devices: Mutex::new(devices), apps_at: None })
    }

    /// Drags wait for the apps `apps_at` finds at their two ends (and the compositor) to handle each
    /// phase, instead of fixed pauses.
    pub fn pacing_drags_by(mut self, apps_at: AppsAt) -> WaylandInput {
        self.apps_at = Some(apps_at);
        self
    }

    fn lock(&self) -> MutexGuard<'_, Devices> {
        // Every call releases what it pressed before returning; a panic mid-call left nothing held.
        self.devices.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn stroke_for_key(d: &mut Devices, key: &Key) -> Result<Stroke, PlatformError> {
        // The keysym table is by canonical name (the key's `Display`).
        let name = key.to_string();
        if let Some(sym) = keysym_for_key_name(&name) {
            return d.keymap.named(sym).ok_or_else(|| PlatformError::Invalid(format!("no key for {name:?}")));
        }
        let Some(c) = key.as_char() else {
            return Err(PlatformError::Invalid(format!("no key named {name:?}")));
        };
        d.ensure_keymap(&[c])?;
        d.keymap.for_char(c).ok_or_else(|| PlatformError::Invalid(format!("no key for {c:?}")))
    }
}

fn modifier_strokes(d: &Devices, combo: &KeyCombo, shift_for_key: bool) -> Vec<u32> {
    let m = combo.modifiers;
    let mut names = Vec::new();
    if m.ctrl {
        names.push("Control_L");
    }
    if m.alt {
        names.push("Alt_L");
    }
    if m.shift || shift_for_key {
        names.push("Shift_L");
    }
    if m.super_key {
        names.push("Super_L");
    }
    names.into_iter().filter_map(|n| d.keymap.named(n)).map(|s| s.evdev).collect()
}

/// Pieces of typed text: each run of characters typed with one keymap, and the keys for newlines and
/// tabs.
fn pieces(text: &str) -> Result<Vec<Vec<char>>, PlatformError> {
    let mut out: Vec<Vec<char>> = Vec::new();
    let mut run: Vec<char> = Vec::new();
    let mut distinct: Vec<char> = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let c = match c {
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    continue;
                }
                '\n'
            }
            '\n' | '\t' => c,
            c if c.is_control() => {
                return Err(PlatformError::Invalid(format!(
                    "text holds the control character U+{:04X}; use the key action for keys",
                    u32::from(c)
                )))
            }
            c => c,
        };
        if !distinct.contains(&c) {
            if distinct.len() == EXTRA_SLOTS {
                out.push(std::mem::take(&mut run));
                distinct.clear();
            }
            distinct.push(c);
        }
        run.push(c);
    }
    if !run.is_empty() {
        out.push(run);
    }
    Ok(out)
}

impl Input for WaylandInput {
    fn move_pointer(&self, to: Point) -> Result<(), PlatformError> {
        let mut d = self.lock();
        d.check_point(to)?;
        d.move_to(to);
        Ok(d.sync()?)
    }

    fn click(&self, at: Point, button: MouseButton, count: u8) -> Result<(), PlatformError> {
        if !(1..=3).contains(&count) {
            return Err(PlatformError::Invalid(format!("click count {count}: use 1, 2 (double) or 3 (triple)")));
        }
        let mut d = self.lock();
        d.check_point(at)?;
        sleep(d.spacing.wait_before(Instant::now(), at, button));
        d.move_to(at);
        let mut held = Held::new(&mut d);
        for i in 0..count {
            if i > 0 {
                sleep(MULTI_CLICK_GAP);
            }
            held.tap(Down::Button(button_code(button)));
            // Each click leaves promptly, so the gap above is the gap the application sees.
            held.flush()?;
        }
        held.finish()?;
        d.spacing.clicked(Instant::now(), at, button);
        Ok(())
    }

    fn drag(&self, from: Point, to: Point) -> Result<(), PlatformError> {
        let mut d = self.lock();
        d.check_point(from)?;
        d.check_point(to)?;
        let (source, target) = self.apps_at.as_ref().map_or((None, None), |f| f(from, to));
        let pace = Pace::new(d.compositor, source, target);
        d.move_to(from);
        let mut held = Held::new(&mut d);
        held.press(Down::Button(BTN_LEFT));
        held.flush()?;
        // First past the threshold, toward the target, and wait for the app to start the drag.
        let path = DragPath::new(from, to);
        held.d.move_to(path.start());
        held.d.sync()?;
        pace.wait(Phase::Start);
        for step in path.steps() {
            held.d.move_to(step);
            held.flush()?;
            sleep(DRAG_STEP_GAP);
        }
        held.d.sync()?;
        pace.wait(Phase::Drop);
        held.release(Down::Button(BTN_LEFT));
        Ok(held.finish()?)
    }

    fn scroll(&self, at: Option<Point>, direction: ScrollDirection, notches: u32) -> Result<(), PlatformError> {
        let mut d = self.lock();
        if let Some(p) = at {
            d.check_point(p)?;
            d.move_to(p);
        }
        let (axis, sign) = match direction {
            ScrollDirection::Up => (wl_pointer::Axis::VerticalScroll, -1),
            ScrollDirection::Down => (wl_pointer::Axis::VerticalScroll, 1),
            ScrollDirection::Left => (wl_pointer::Axis::HorizontalScroll, -1),
            ScrollDirection::Right => (wl_pointer::Axis::HorizontalScroll, 1),
        };
        for _ in 0..notches.min(1000) {
            let time = now_ms();
            d.pointer.axis_source(wl_pointer::AxisSource::Wheel);
            d.pointer.axis_discrete(time, axis, WHEEL_STEP * f64::from(sign), sign);
            d.pointer.frame();
        }
        Ok(d.sync()?)
    }

    fn key(&self, combo: &KeyCombo) -> Result<(), PlatformError> {
        let mut d = self.lock();
        let stroke = Self::stroke_for_key(&mut d, &combo.key)?;
        let mods = modifier_strokes(&d, combo, stroke.shift);
        let mut held = Held::new(&mut d);
        for &m in &mods {
            held.press(Down::Key(m));
        }
        held.tap(Down::Key(stroke.evdev));
        for &m in mods.iter().rev() {
            held.release(Down::Key(m));
        }
        Ok(held.finish()?)
    }

    fn type_text(&self, text: &str) -> Result<(), PlatformError> {
        self.type_text_via(text, TextRoute::Preferred)
    }

    fn type_text_via(&self, text: &str, route: TextRoute) -> Result<(), PlatformError> {
        handrail_platform::check_typed_length(text)?;
        let pieces = pieces(text)?;
        let start = std::time::Instant::now();
        let mut d = self.lock();
        let shift = d.keymap.named("Shift_L").map(|s| s.evdev);
        for piece in &pieces {
            let printable: Vec<char> = piece.iter().copied().filter(|c| !matches!(c, '\n' | '\t')).collect();
            d.ensure_keymap(&printable)?;
            let strokes: Vec<Stroke> = piece
                .iter()
                .map(|&c| match c {
                    '\n' => d.keymap.named("Return"),
                    '\t' => d.keymap.named("Tab"),
                    c => d.keymap.for_char(c),
                })
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| PlatformError::Failed("a character has no key in the uploaded keymap".into()))?;
            let mut held = Held::new(&mut d);
            for s in strokes {
                match (s.shift, shift) {
                    (true, Some(sh)) => {
                        held.press(Down::Key(sh));
                        held.tap(Down::Key(s.evdev));
                        held.release(Down::Key(sh));
                    }
                    (true, None) => return Err(PlatformError::Unavailable("a shift key on the keymap".into())),
                    (false, _) => held.tap(Down::Key(s.evdev)),
                }
            }
            held.finish()?;
        }
        // Typed text is never logged, only its length.
        debug!(
            "type_text ({route:?}): {} chars in {:.1} ms",
            text.chars().count(),
            start.elapsed().as_secs_f64() * 1e3
        );
        Ok(())
    }
}

impl Dispatch<wl_seat::WlSeat, ()> for InputState {
    fn event(_: &mut Self, _: &wl_seat::WlSeat, _: wl_seat::Event, _: &(), _: &Connection, _: &QueueHandle<Self>) {}
}

impl Dispatch<zwlr_virtual_pointer_manager_v1::ZwlrVirtualPointerManagerV1, ()> for InputState {
    fn event(
        _: &mut Self,
        _: &zwlr_virtual_pointer_manager_v1::ZwlrVirtualPointerManagerV1,
        _: zwlr_virtual_pointer_manager_v1::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
    }
}

impl Dispatch<zwlr_virtual_pointer_v1::ZwlrVirtualPointerV1, ()> for InputState {
    fn event(
        _: &mut Self,
        _: &zwlr_virtual_pointer_v1::ZwlrVirtualPointerV1,
        _: zwlr_virtual_pointer_v1::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
    }
}

impl Dispatch<zwp_virtual_keyboard_manager_v1::ZwpVirtualKeyboardManagerV1, ()> for InputState {
    fn event(
        _: &mut Self,
        _: &zwp_virtual_keyboard_manager_v1::ZwpVirtualKeyboardManagerV1,
        _: zwp_virtual_keyboard_manager_v1::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
    }
}

impl Dispatch<zwp_virtual_keyboard_v1::ZwpVirtualKeyboardV1, ()> for InputState {
    fn event(
        _: &mut Self,
        _: &zwp_virtual_keyboard_v1::ZwpVirtualKeyboardV1,
        _: zwp_virtual_keyboard_v1::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
    }
}

impl Drop for WaylandInput {
    fn drop(&mut self) {
        let d = self.lock();
        d.pointer.destroy();
        d.keyboard.destroy();
        let _ = d.conn.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_splits_only_when_the_keymap_would_overflow() {
        assert_eq!(pieces("ab\ncd").ok().map(|p| p.len()), Some(1));
        assert_eq!(pieces("a\r\nb\rc").ok(), Some(vec!["a\nb\nc".chars().collect()]));
        assert!(pieces("a\u{7}b").is_err());
        let wide: String = ('\u{4e00}'..'\u{4e00}').chain('\u{4e00}'..'\u{4f80}').collect();
        let parts = pieces(&wide).expect("splits");
        assert_eq!(parts.len(), 2);
        assert_eq!(parts.iter().map(Vec::len).sum::<usize>(), 0x180);
    }

    #[test]
    fn input_is_send() {
        fn is_send<T: Send>() {}
        is_send::<WaylandInput>();
    }
}

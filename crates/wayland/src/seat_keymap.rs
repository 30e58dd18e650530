//! The keymap a compositor gives its clients: what a compositor that types keysyms itself (GNOME's
//! remote-desktop session) can press, read as any client would.
//!
//! A client that binds the seat's keyboard is sent the compositor's current XKB keymap at once, as
//! text in a file descriptor, with every layout (group) the person has set up. Which group is active
//! is sent only to the client with keyboard focus, so the caller learns it elsewhere.

use std::fs::File;
use std::io::Read;
use std::os::fd::OwnedFd;

use wayland_client::globals::{registry_queue_init, GlobalListContents};
use wayland_client::protocol::{wl_keyboard, wl_registry, wl_seat};
use wayland_client::{Connection, Dispatch, Proxy, QueueHandle, WEnum};

use crate::conn::Socket;
use crate::error::WaylandError;

/// Keymaps larger than this are refused (a full keymap of four layouts is about 100 KiB).
const KEYMAP_LIMIT: u32 = 4 << 20;

#[derive(Default)]
struct State {
    keymap: Option<Result<String, WaylandError>>,
}

/// The compositor's current keymap at `socket`, as XKB text (`xkb_keymap { … }`).
pub fn seat_keymap(socket: &Socket) -> Result<String, WaylandError> {
    let conn: Connection = socket.connect()?;
    let (globals, mut queue) = registry_queue_init::<State>(&conn)
        .map_err(|e| WaylandError::Connection(format!("reading the compositor's globals: {e}")))?;
    let qh = queue.handle();
    let seat: wl_seat::WlSeat = globals
        .bind(&qh, 1..=5, ())
        .map_err(|_| WaylandError::MissingProtocol { protocol: "wl_seat", why: "there is no keyboard to read" })?;
    let keyboard = seat.get_keyboard(&qh, ());
    let mut state = State::default();
    // The keymap is the keyboard's first event; one more round trip covers a seat that announces
    // its keyboard capability late.
    for _ in 0..3 {
        queue.roundtrip(&mut state)?;
        if state.keymap.is_some() {
            break;
        }
    }
    if seat.version() >= 3 {
        keyboard.release();
    }
    state.keymap.unwrap_or_else(|| Err(WaylandError::Other("the compositor sent no keymap".into())))
}

fn read_keymap(format: WEnum<wl_keyboard::KeymapFormat>, fd: OwnedFd, size: u32) -> Result<String, WaylandError> {
    if format != WEnum::Value(wl_keyboard::KeymapFormat::XkbV1) {
        return Err(WaylandError::Other(format!("the compositor's keymap is not XKB text ({format:?})")));
    }
    if size > KEYMAP_LIMIT {
        return Err(WaylandError::Other(format!("the compositor's keymap is {size} bytes, more than is plausible")));
    }
    // The file is the compositor's and may be shared read-only: read it from its start, not mmap.
    let mut file = File::from(fd);
    let mut bytes = Vec::with_capacity(size as usize);
    file.by_ref()
        .take(u64::from(size))
        .read_to_end(&mut bytes)
        .map_err(|source| WaylandError::Os { what: "reading the compositor's keymap", source })?;
    // The text ends with a NUL the size counts.
    while bytes.last() == Some(&0) {
        bytes.pop();
    }
    String::from_utf8(bytes).map_err(|_| WaylandError::Other("the compositor's keymap is not UTF-8 text".into()))
}

impl Dispatch<wl_keyboard::WlKeyboard, ()> for State {
    fn event(
        state: &mut Self,
        _: &wl_keyboard::WlKeyboard,
        event: wl_keyboard::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        if let wl_keyboard::Event::Keymap { format, fd, size } = event {
            state.keymap = Some(read_keymap(format, fd, size));
        }
    }
}

impl Dispatch<wl_seat::WlSeat, ()> for State {
    fn event(_: &mut Self, _: &wl_seat::WlSeat, _: wl_seat::Event, _: &(), _: &Connection, _: &QueueHandle<Self>) {}
}

impl Dispatch<wl_registry::WlRegistry, GlobalListContents> for State {
    fn event(
        _: &mut Self,
        _: &wl_registry::WlRegistry,
        _: wl_registry::Event,
        _: &GlobalListContents,
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
    }
}

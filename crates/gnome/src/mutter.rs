//! mutter's remote-desktop session and the screen-cast streams tied to it, on mutter's session bus.
//!
//! One remote-desktop session drives input; absolute pointer motion is given relative to a
//! screen-cast stream, so every monitor is recorded (one stream each) and a screen point is sent
//! through the stream of the monitor that shows it. A process on mutter's own session bus opens these
//! without any dialog; mutter calls the interfaces private (no compatibility promised between
//! versions), so each call's failure is reported with its name, never guessed around.

use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use handrail_dbus::wire::{Arg, Call, Value};
use handrail_dbus::Bus;
use handrail_platform::{Point, Rect};
use log::{debug, warn};

use crate::error::GnomeError;

pub(crate) const REMOTE_DESKTOP: &str = "org.gnome.Mutter.RemoteDesktop";
const REMOTE_DESKTOP_PATH: &str = "/org/gnome/Mutter/RemoteDesktop";
pub(crate) const REMOTE_DESKTOP_SESSION: &str = "org.gnome.Mutter.RemoteDesktop.Session";
const SCREEN_CAST: &str = "org.gnome.Mutter.ScreenCast";
const SCREEN_CAST_PATH: &str = "/org/gnome/Mutter/ScreenCast";
const SCREEN_CAST_SESSION: &str = "org.gnome.Mutter.ScreenCast.Session";
const SCREEN_CAST_STREAM: &str = "org.gnome.Mutter.ScreenCast.Stream";
pub(crate) const DISPLAY_CONFIG: &str = "org.gnome.Mutter.DisplayConfig";
pub(crate) const DISPLAY_CONFIG_PATH: &str = "/org/gnome/Mutter/DisplayConfig";
const PROPERTIES: &str = "org.freedesktop.DBus.Properties";

/// How long mutter may take to answer one call (it answers in milliseconds unless hung).
pub const CALL_TIMEOUT: Duration = Duration::from_secs(5);

/// One monitor's screen-cast stream.
#[derive(Debug, Clone, PartialEq)]
pub struct Stream {
    /// Its D-Bus object path, which pointer motion names on mutter's route (empty on the portal's,
    /// where motion names the node).
    pub path: String,
    /// The monitor's connector (`Meta-0`, `eDP-1`).
    pub connector: String,
    /// What it shows, in the compositor's (logical) coordinates: the screen's.
    pub area: Rect,
    /// Its PipeWire node, whose frames are the monitor's picture.
    pub node: u32,
    /// Stream units per stage unit: the monitor's scale where mutter lays the stage out in logical
    /// units (fractional scaling on), else 1 (see `display`).
    pub scale: f64,
}

/// Which interfaces a session's calls go to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// mutter's own remote-desktop and screen-cast interfaces, on its session bus: no dialog.
    Mutter,
    /// The desktop portal's, which wraps them: the person's consent, once per restore token.
    Portal,
}

/// A started remote-desktop session with a stream per monitor. Stopped when dropped.
pub struct MutterSession {
    bus: Mutex<Bus>,
    route: Route,
    /// Its object path (mutter) or session handle (portal).
    session: String,
    streams: Vec<Stream>,
    /// mutter's process, when the bus says (input waits on it: see `input`).
    compositor: Option<u32>,
    /// The session's clipboard requests (`SelectionTransfer`: MIME type, serial), until the
    /// clipboard server takes them.
    transfers: Mutex<Option<Receiver<(String, u32)>>>,
    /// Who holds the clipboard, as the session last heard (once its clipboard is enabled).
    clipboard_owner: Arc<Mutex<Option<ClipboardOwner>>>,
    /// Whether the person allowed the clipboard (the portal's dialog); mutter's route always may.
    clipboard_granted: bool,
}

/// Who holds the clipboard, as `SelectionOwnerChanged` says.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct ClipboardOwner {
    /// The MIME types it offers; empty when nobody holds the clipboard.
    pub(crate) mime_types: Vec<String>,
    /// Whether it is this session.
    pub(crate) ours: bool,
}

/// The owner `SelectionOwnerChanged`'s options (`a{sv}`) describe: `mime-types` (`(as)`) and
/// `session-is-owner` (`b`), both absent when nobody holds the clipboard.
pub(crate) fn clipboard_owner_of(options: &Value) -> Option<ClipboardOwner> {
    let mut owner = ClipboardOwner::default();
    for entry in options.as_array()? {
        let [key, value] = entry.as_struct()? else { return None };
        // mutter's spelling, and the portal's (which passes mutter's signal on).
        match key.as_str()? {
            "mime-types" | "mime_types" => {
                let types = value.as_struct().and_then(|s| s.first()).unwrap_or(value).as_array()?;
                owner.mime_types = types.iter().map(|t| t.as_str().map(str::to_owned)).collect::<Option<_>>()?;
            }
            "session-is-owner" | "session_is_owner" => owner.ours = matches!(value.unwrapped(), Value::Bool(true)),
            _ => {}
        }
    }
    Some(owner)
}

impl std::fmt::Debug for MutterSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MutterSession").field("session", &self.session).field("streams", &self.streams).finish()
    }
}

pub(crate) use handrail_dbus::simple_call as call;

/// Asks the bus to send this connection the signals `rules` match.
pub(crate) fn add_matches(bus: &mut Bus, rules: impl IntoIterator<Item = String>) -> Result<(), GnomeError> {
    for rule in rules {
        let args = [Arg::Str(rule)];
        let add = call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "AddMatch", &args);
        bus.call(&add, CALL_TIMEOUT, "AddMatch")?;
    }
    Ok(())
}

impl MutterSession {
    /// Opens a remote-desktop session on the session bus at `address`, records every monitor in a
    /// screen-cast session tied to it, and starts it.
    pub fn start(address: &str) -> Result<MutterSession, GnomeError> {
        let (added, nodes) = mpsc::channel();
        let (transfer, transfers) = mpsc::channel();
        let clipboard_owner = Arc::new(Mutex::new(None));
        let owner_heard = Arc::clone(&clipboard_owner);
        let mut bus = Bus::connect(
            address,
            CALL_TIMEOUT,
            Box::new(move |m| {
                if m.interface == SCREEN_CAST_STREAM && m.member == "PipeWireStreamAdded" {
                    let node = m.first().ok().and_then(|v| v.as_u32());
                    let _ = added.send((m.path.clone(), node));
                } else if m.interface == REMOTE_DESKTOP_SESSION && m.member == "SelectionTransfer" {
                    if let Ok([mime, serial]) = m.values().as_deref() {
                        if let (Some(mime), Some(serial)) = (mime.as_str(), serial.as_u32()) {
                            let _ = transfer.send((mime.to_owned(), serial));
                        }
                    }
                } else if m.interface == REMOTE_DESKTOP_SESSION && m.member == "SelectionOwnerChanged" {
                    // Kept here, not queued: it is current before the call that caused it returns.
                    if let Some(owner) = m.first().ok().as_ref().and_then(clipboard_owner_of) {
                        debug!("the clipboard's owner: {owner:?}");
                        *owner_heard.lock().unwrap_or_else(|e| e.into_inner()) = Some(owner);
                    }
                }
            }),
        )?;
        // Each stream names its PipeWire node in a signal once the session starts.
        let rule = format!("type='signal',interface='{SCREEN_CAST_STREAM}',member='PipeWireStreamAdded'");
        // And the clipboard's requests and owners, once a paste enables it.
        let clipboard_rule = format!("type='signal',interface='{REMOTE_DESKTOP_SESSION}',member='SelectionTransfer'");
        let owner_rule = format!("type='signal',interface='{REMOTE_DESKTOP_SESSION}',member='SelectionOwnerChanged'");
        add_matches(&mut bus, [rule, clipboard_rule, owner_rule])?;
        let (connectors, scales) = monitor_state(&mut bus)?;
        if connectors.is_empty() {
            return Err(GnomeError::NoMonitor);
        }
        let reply = bus.call(
            &call(REMOTE_DESKTOP, REMOTE_DESKTOP_PATH, REMOTE_DESKTOP, "CreateSession", &[]),
            CALL_TIMEOUT,
            "RemoteDesktop.CreateSession",
        )?;
        let session = object_path(&reply.first()?, "RemoteDesktop.CreateSession")?;
        let id = property(&mut bus, REMOTE_DESKTOP, &session, REMOTE_DESKTOP_SESSION, "SessionId")?;
        let id = id.as_str().ok_or_else(|| unexpected("SessionId", &id))?.to_owned();
        let options = [Arg::Dict(vec![("remote-desktop-session-id".into(), Arg::Str(id))])];
        let reply = bus.call(
            &call(SCREEN_CAST, SCREEN_CAST_PATH, SCREEN_CAST, "CreateSession", &options),
            CALL_TIMEOUT,
            "ScreenCast.CreateSession",
        )?;
        let cast = object_path(&reply.first()?, "ScreenCast.CreateSession")?;
        let mut paths = Vec::new();
        for connector in &connectors {
            let args = [Arg::Str(connector.clone()), Arg::Dict(Vec::new())];
            let reply = bus.call(
                &call(SCREEN_CAST, &cast, SCREEN_CAST_SESSION, "RecordMonitor", &args),
                CALL_TIMEOUT,
                "ScreenCast.Session.RecordMonitor",
            )?;
            paths.push((connector.clone(), object_path(&reply.first()?, "RecordMonitor")?));
        }
        bus.call(
            &call(REMOTE_DESKTOP, &session, REMOTE_DESKTOP_SESSION, "Start", &[]),
            CALL_TIMEOUT,
            "RemoteDesktop.Session.Start",
        )?;
        wake_keyboard(&mut bus, &session)?;
        let mut node_of = stream_nodes(&nodes, paths.iter().map(|(_, p)| p.as_str()))?;
        let mut streams = Vec::new();
        for (connector, path) in paths {
            let parameters = property(&mut bus, SCREEN_CAST, &path, SCREEN_CAST_STREAM, "Parameters")?;
            let area = stream_area(&parameters).ok_or_else(|| unexpected("a stream's Parameters", &parameters))?;
            let node = node_of.remove(&path).unwrap_or_default();
            let scale = scales.iter().find(|m| m.connector == connector).map_or(1.0, |m| m.stage_to_stream);
            streams.push(Stream { path, connector, area, node, scale });
        }
        let compositor = compositor_pid(&mut bus);
        debug!("mutter (pid {compositor:?}) remote-desktop session {session}: streams {streams:?}");
        Ok(MutterSession {
            bus: Mutex::new(bus),
            route: Route::Mutter,
            session,
            streams,
            compositor,
            transfers: Mutex::new(Some(transfers)),
            clipboard_owner,
            clipboard_granted: true,
        })
    }

    /// A session started elsewhere (the portal's: `crate::portal`).
    pub(crate) fn from_parts(
        mut bus: Bus,
        route: Route,
        session: String,
        streams: Vec<Stream>,
        transfers: Receiver<(String, u32)>,
        clipboard_owner: Arc<Mutex<Option<ClipboardOwner>>>,
        clipboard_granted: bool,
    ) -> MutterSession {
        let compositor = compositor_pid(&mut bus);
        MutterSession {
            bus: Mutex::new(bus),
            route,
            session,
            streams,
            compositor,
            transfers: Mutex::new(Some(transfers)),
            clipboard_owner,
            clipboard_granted,
        }
    }

    /// Whether the session may use the clipboard.
    pub(crate) fn clipboard_granted(&self) -> bool {
        self.clipboard_granted
    }

    /// mutter's process id, when the bus says.
    pub fn compositor_pid(&self) -> Option<u32> {
        self.compositor
    }

    pub fn streams(&self) -> &[Stream] {
        &self.streams
    }

    /// The monitors' layout: the union of what the streams show, in stage coordinates. Its origin
    /// is the captured screen's (0, 0).
    pub fn layout(&self) -> Rect {
        let mut areas = self.streams.iter().map(|s| s.area);
        let first = areas.next().unwrap_or_default();
        areas.fold(first, |a, b| a.union(&b))
    }

    /// Which interfaces the session's calls go to.
    pub fn route(&self) -> Route {
        self.route
    }

    /// A call of the session's remote-desktop interface (`iface` `RemoteDesktop`) or of its
    /// clipboard (`Clipboard`): mutter's are methods of the session's object; the portal's, of its
    /// one object, with the session handle as the first argument (and, for input, an options
    /// dictionary after it). `own` are the call's own arguments, in mutter's types; the portal's
    /// differences are made here.
    pub(crate) fn call_args(&self, iface: Iface, own: Vec<Arg>) -> (CallTarget<'_>, Vec<Arg>) {
        match self.route {
            Route::Mutter => (
                CallTarget { destination: REMOTE_DESKTOP, path: &self.session, interface: REMOTE_DESKTOP_SESSION },
                own,
            ),
            Route::Portal => {
                let interface = match iface {
                    Iface::Input => handrail_portal::REMOTE_DESKTOP,
                    Iface::Clipboard => handrail_portal::CLIPBOARD,
                };
                let target =
                    CallTarget { destination: handrail_portal::DESTINATION, path: handrail_portal::OBJECT, interface };
                let args = match iface {
                    Iface::Input => handrail_portal::session::input_args(&self.session, own),
                    Iface::Clipboard => std::iter::once(Arg::Path(self.session.clone())).chain(own).collect(),
                };
                (target, args)
            }
        }
    }

    /// The name a clipboard option or signal field has on this route (`mime-types` on mutter's,
    /// `mime_types` on the portal's).
    pub(crate) fn clipboard_key(&self, mutters: &'static str) -> String {
        match self.route {
            Route::Mutter => mutters.to_owned(),
            Route::Portal => mutters.replace('-', "_"),
        }
    }

    /// The PipeWire connection the streams are read from: mutter's daemon (at `socket`, or the
    /// session's own), or the one the portal opens for this session.
    pub(crate) fn pipewire_remote(
        &self,
        socket: Option<&std::path::Path>,
    ) -> Result<handrail_pipewire::Remote, GnomeError> {
        use handrail_pipewire::Remote;
        Ok(match self.route {
            Route::Mutter => socket.map_or(Remote::Default, |p| Remote::Socket(p.to_owned())),
            Route::Portal => {
                Remote::Fd(handrail_portal::session::open_pipewire_remote(&mut self.bus(), &self.session)?)
            }
        })
    }

    /// The stream whose monitor shows `p`, and `p` in that stream's coordinates.
    pub fn locate(&self, p: Point) -> Option<(&Stream, f64, f64)> {
        locate(&self.streams, p)
    }

    /// The clipboard's requests, for the one server that answers them.
    pub(crate) fn take_transfers(&self) -> Option<Receiver<(String, u32)>> {
        self.transfers.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    /// Who holds the clipboard, as last heard; `None` before the clipboard is enabled.
    pub(crate) fn clipboard_owner(&self) -> Option<ClipboardOwner> {
        self.clipboard_owner.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub(crate) fn bus(&self) -> MutexGuard<'_, Bus> {
        // A panic while holding the bus left no call half-queued: every call flushes or fails whole.
        self.bus.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The two interfaces a session's calls belong to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Iface {
    Input,
    Clipboard,
}

/// Where a session's call goes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CallTarget<'a> {
    pub(crate) destination: &'a str,
    pub(crate) path: &'a str,
    pub(crate) interface: &'a str,
}

impl<'a> CallTarget<'a> {
    pub(crate) fn call(self, member: &'a str, args: &'a [Arg]) -> Call<'a> {
        Call { destination: self.destination, path: self.path, interface: self.interface, member, args, flags: 0 }
    }
}

impl Drop for MutterSession {
    fn drop(&mut self) {
        let session = self.session.clone();
        if self.route == Route::Portal {
            handrail_portal::session::close(&mut self.bus(), &session);
            return;
        }
        let stop = call(REMOTE_DESKTOP, &session, REMOTE_DESKTOP_SESSION, "Stop", &[]);
        if let Err(e) = self.bus().call(&stop, Duration::from_secs(1), "RemoteDesktop.Session.Stop") {
            debug!("stopping mutter session {session}: {e}");
        }
    }
}

/// Taps Control once through the session's keyboard.
///
/// mutter (43) adds a remote-desktop session's keyboard to its seat only when that keyboard sends
/// its first key: until then the seat has no keyboard, no window gets keyboard focus, and the first
/// key typed is lost. A lone Control does nothing in apps, and on a desktop with a real keyboard the
/// seat already has one.
fn wake_keyboard(bus: &mut Bus, session: &str) -> Result<(), GnomeError> {
    const CONTROL_L: u32 = 0xffe3;
    let tap = |pressed| [Arg::U32(CONTROL_L), Arg::Bool(pressed)];
    let (down, up) = (tap(true), tap(false));
    let calls = [
        call(REMOTE_DESKTOP, session, REMOTE_DESKTOP_SESSION, "NotifyKeyboardKeysym", &down),
        call(REMOTE_DESKTOP, session, REMOTE_DESKTOP_SESSION, "NotifyKeyboardKeysym", &up),
    ];
    Ok(bus.call_all(&calls, CALL_TIMEOUT, "waking the session's keyboard")?)
}

/// Waits for every stream in `paths` to name its PipeWire node.
fn stream_nodes<'a>(
    signals: &Receiver<(String, Option<u32>)>,
    paths: impl Iterator<Item = &'a str>,
) -> Result<std::collections::HashMap<String, u32>, GnomeError> {
    let mut waiting: Vec<&str> = paths.collect();
    let mut nodes = std::collections::HashMap::new();
    let deadline = Instant::now() + CALL_TIMEOUT;
    while !waiting.is_empty() {
        let left = deadline.saturating_duration_since(Instant::now());
        let Ok((path, node)) = signals.recv_timeout(left) else {
            return Err(GnomeError::Unexpected(format!(
                "no PipeWireStreamAdded for {waiting:?} within {CALL_TIMEOUT:?} (is PipeWire running?)"
            )));
        };
        let Some(node) = node else {
            return Err(GnomeError::Unexpected(format!("PipeWireStreamAdded for {path} without a node id")));
        };
        waiting.retain(|p| *p != path);
        nodes.insert(path, node);
    }
    Ok(nodes)
}

/// The stream showing `p`, and `p` relative to it.
fn locate(streams: &[Stream], p: Point) -> Option<(&Stream, f64, f64)> {
    streams
        .iter()
        .find(|s| s.area.contains(p))
        .map(|s| (s, f64::from(p.x - s.area.x) * s.scale, f64::from(p.y - s.area.y) * s.scale))
}

/// The process owning mutter's remote-desktop name (`GetConnectionUnixProcessID`).
fn compositor_pid(bus: &mut Bus) -> Option<u32> {
    let args = [Arg::Str(REMOTE_DESKTOP.to_owned())];
    let ask = call(
        "org.freedesktop.DBus",
        "/org/freedesktop/DBus",
        "org.freedesktop.DBus",
        "GetConnectionUnixProcessID",
        &args,
    );
    bus.call(&ask, CALL_TIMEOUT, "GetConnectionUnixProcessID").ok()?.first().ok()?.as_u32()
}

/// The connectors of the monitors mutter drives (`DisplayConfig.GetCurrentState`).
/// The monitors' connectors, and how each is scaled (empty when mutter's answer says nothing of it).
pub(crate) fn monitor_state(bus: &mut Bus) -> Result<(Vec<String>, Vec<crate::display::MonitorScale>), GnomeError> {
    let reply = bus.call(
        &call(DISPLAY_CONFIG, DISPLAY_CONFIG_PATH, DISPLAY_CONFIG, "GetCurrentState", &[]),
        CALL_TIMEOUT,
        "DisplayConfig.GetCurrentState",
    )?;
    let values = reply.values()?;
    // (serial, monitors a((ssss)a(…)a{sv}), logical monitors, properties)
    let monitors = values.get(1).and_then(Value::as_array).ok_or_else(|| {
        GnomeError::Unexpected(format!("GetCurrentState without a monitor list: {}", reply.signature))
    })?;
    let scales = crate::display::monitor_scales(&values).unwrap_or_else(|| {
        warn!("GetCurrentState in an unknown shape ({}): pointer positions are not scaled", reply.signature);
        Vec::new()
    });
    Ok((monitors.iter().filter_map(connector_of).collect(), scales))
}

/// The connector of one `GetCurrentState` monitor: the first string of its first field.
fn connector_of(monitor: &Value) -> Option<String> {
    let spec = monitor.as_struct()?.first()?.as_struct()?;
    spec.first()?.as_str().map(str::to_owned)
}

/// A stream's area from its `Parameters` (`position` and `size`, each `(ii)`).
fn stream_area(parameters: &Value) -> Option<Rect> {
    let pair = |name: &str| -> Option<(i32, i32)> {
        let entry = parameters
            .as_array()?
            .iter()
            .find(|e| e.as_struct().and_then(|kv| kv.first()).and_then(Value::as_str) == Some(name))?;
        let value = entry.as_struct()?.get(1)?.as_struct()?;
        Some((value.first()?.as_i32()?, value.get(1)?.as_i32()?))
    };
    let (x, y) = pair("position")?;
    let (w, h) = pair("size")?;
    Some(Rect::new(x, y, u32::try_from(w).ok()?, u32::try_from(h).ok()?))
}

fn property(bus: &mut Bus, destination: &str, path: &str, interface: &str, name: &str) -> Result<Value, GnomeError> {
    let args = [Arg::Str(interface.to_owned()), Arg::Str(name.to_owned())];
    let reply = bus.call(&call(destination, path, PROPERTIES, "Get", &args), CALL_TIMEOUT, "Properties.Get")?;
    Ok(reply.first()?.unwrapped().clone())
}

fn object_path(value: &Value, what: &str) -> Result<String, GnomeError> {
    value.as_str().map(str::to_owned).ok_or_else(|| unexpected(what, value))
}

fn unexpected(what: &str, value: &Value) -> GnomeError {
    GnomeError::Unexpected(format!("{what}: {value:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &str) -> Value {
        Value::Str(v.into())
    }

    #[test]
    fn a_stream_area_is_read_from_its_parameters() {
        let entry = |k: &str, a: i32, b: i32| {
            Value::Struct(vec![s(k), Value::Variant(Box::new(Value::Struct(vec![Value::I32(a), Value::I32(b)])))])
        };
        let params = Value::Array(vec![entry("position", 1280, 0), entry("size", 1920, 1080)]);
        assert_eq!(stream_area(&params), Some(Rect::new(1280, 0, 1920, 1080)));
        assert_eq!(stream_area(&Value::Array(vec![entry("size", 10, 10)])), None, "no position");
        assert_eq!(stream_area(&Value::Array(vec![entry("position", 0, 0), entry("size", -1, 5)])), None);
    }

    #[test]
    fn the_clipboards_owner_is_read_from_selection_owner_changed() {
        let entry = |k: &str, v: Value| Value::Struct(vec![s(k), Value::Variant(Box::new(v))]);
        let types = Value::Struct(vec![Value::Array(vec![s("text/plain;charset=utf-8"), s("text/html")])]);
        let options = Value::Array(vec![entry("mime-types", types), entry("session-is-owner", Value::Bool(false))]);
        assert_eq!(
            clipboard_owner_of(&options),
            Some(ClipboardOwner {
                mime_types: vec!["text/plain;charset=utf-8".into(), "text/html".into()],
                ours: false
            })
        );
        let ours = Value::Array(vec![
            entry("mime-types", Value::Struct(vec![Value::Array(vec![s("STRING")])])),
            entry("session-is-owner", Value::Bool(true)),
            entry("something-newer", s("ignored")),
        ]);
        assert_eq!(clipboard_owner_of(&ours), Some(ClipboardOwner { mime_types: vec!["STRING".into()], ours: true }));
        // Nobody holds it: no entries.
        assert_eq!(clipboard_owner_of(&Value::Array(Vec::new())), Some(ClipboardOwner::default()));
        // Not the shape mutter sends: unknown.
        assert_eq!(clipboard_owner_of(&s("text/plain")), None);
        let bad = Value::Array(vec![entry("mime-types", Value::Array(vec![Value::U32(1)]))]);
        assert_eq!(clipboard_owner_of(&bad), None);
    }

    #[test]
    fn a_connector_is_the_first_string_of_a_monitor() {
        let monitor = Value::Struct(vec![
            Value::Struct(vec![s("Meta-0"), s("MetaVendor"), s("MetaProduct"), s("0x1")]),
            Value::Array(Vec::new()),
            Value::Array(Vec::new()),
        ]);
        assert_eq!(connector_of(&monitor).as_deref(), Some("Meta-0"));
        assert_eq!(connector_of(&s("Meta-0")), None);
    }

    #[test]
    fn points_are_sent_through_the_monitor_that_shows_them() {
        let stream = |c: &str, area| Stream { path: format!("/s/{c}"), connector: c.into(), area, node: 0, scale: 1.0 };
        let streams = [stream("A", Rect::new(0, 0, 1280, 800)), stream("B", Rect::new(1280, 0, 1920, 1080))];
        let (s, x, y) = locate(&streams, Point::new(1300, 50)).expect("on B");
        assert_eq!((s.connector.as_str(), x, y), ("B", 20.0, 50.0));
        let (s, x, y) = locate(&streams, Point::new(0, 799)).expect("on A");
        assert_eq!((s.connector.as_str(), x, y), ("A", 0.0, 799.0));
        assert!(locate(&streams, Point::new(100, 900)).is_none(), "below A, left of B's bottom: no monitor");
        // Fractional scaling on: the stage in logical units, B's stream in its pixels at 150 %.
        let b = Stream { scale: 1.5, ..stream("B", Rect::new(1280, 0, 1280, 720)) };
        let (s, x, y) = locate(std::slice::from_ref(&b), Point::new(1300, 50)).expect("on B");
        assert_eq!((s.connector.as_str(), x, y), ("B", 30.0, 75.0));
    }
}

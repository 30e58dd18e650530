//! One remote-desktop session through the portal: created, its devices and monitors chosen, its
//! clipboard asked for, started (the person's consent, or a restore token from an earlier one), and
//! closed.

use std::os::fd::OwnedFd;
use std::sync::mpsc::Receiver;
use std::time::Duration;

use handrail_dbus::wire::{Arg, Call, Value};
use handrail_dbus::{Bus, DbusError};
use log::{info, warn};

use crate::request::{named, Requests, Response};
use crate::{PortalError, CLIPBOARD, DESTINATION, OBJECT, REMOTE_DESKTOP, SCREEN_CAST, SESSION};

/// Device types (`SelectDevices`' `types`, `Start`'s `devices`).
pub const KEYBOARD: u32 = 1;
pub const POINTER: u32 = 2;
/// Source type `monitor` (`SelectSources`' `types`).
const MONITOR: u32 = 1;
/// `persist_mode`: until the person revokes it (`2`), not only while the program runs (`1`).
const PERSIST_UNTIL_REVOKED: u32 = 2;

/// How long the portal may take to answer a step that asks nobody.
pub const STEP_TIMEOUT: Duration = Duration::from_secs(10);

/// What to start with.
#[derive(Debug, Clone)]
pub struct StartOptions {
    /// A restore token from an earlier start: the portal then starts without asking, if the person
    /// allowed that (`Remember This Selection`) and has not revoked it.
    pub restore_token: Option<String>,
    /// How long the person may take to answer the dialog.
    pub consent_timeout: Duration,
}

/// One monitor's stream, as `Start` describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortalStream {
    /// Its PipeWire node, which pointer motion also names.
    pub node: u32,
    /// Where it is, in the compositor's coordinates.
    pub position: (i32, i32),
    pub size: (u32, u32),
}

/// A started session.
#[derive(Debug, Clone, PartialEq)]
pub struct Started {
    /// The session handle every later call names.
    pub session: String,
    pub streams: Vec<PortalStream>,
    /// The devices the person allowed (`KEYBOARD | POINTER` …).
    pub devices: u32,
    /// Whether the session may use the clipboard (the person allowed it).
    pub clipboard: bool,
    /// The token to start without asking next time, when the portal gives one.
    pub restore_token: Option<String>,
    /// The remote-desktop portal's version.
    pub version: u32,
}

fn portal_call<'a>(interface: &'a str, member: &'a str, args: &'a [Arg]) -> Call<'a> {
    Call { destination: DESTINATION, path: OBJECT, interface, member, args, flags: 0 }
}

/// Opens and starts a remote-desktop session recording every monitor, on `bus` (whose `Response`
/// signals arrive on `responses`: the caller's signal handler forwards them, with
/// [`RESPONSE_RULE`](crate::request::RESPONSE_RULE) matched). Closes the session again on failure.
pub fn start(bus: &mut Bus, responses: &Receiver<Response>, options: &StartOptions) -> Result<Started, PortalError> {
    let version = remote_desktop_version(bus)?;
    let mut requests = Requests::new(bus.unique_name());
    let session_token = "handrail";
    let created = request(
        bus,
        &mut requests,
        responses,
        REMOTE_DESKTOP,
        "CreateSession",
        Vec::new(),
        vec![("session_handle_token".into(), Arg::Str(session_token.into()))],
        STEP_TIMEOUT,
    )?;
    let session = created
        .get("session_handle")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .unwrap_or_else(|| requests.session_path(session_token));
    let started = (|| {
        let mut devices = vec![("types".to_owned(), Arg::U32(KEYBOARD | POINTER))];
        if version >= 2 {
            devices.push(("persist_mode".into(), Arg::U32(PERSIST_UNTIL_REVOKED)));
            if let Some(token) = &options.restore_token {
                devices.push(("restore_token".into(), Arg::Str(token.clone())));
            }
        }
        let on_session = || vec![Arg::Path(session.clone())];
        request(bus, &mut requests, responses, REMOTE_DESKTOP, "SelectDevices", on_session(), devices, STEP_TIMEOUT)?;
        let sources = vec![("types".to_owned(), Arg::U32(MONITOR)), ("multiple".into(), Arg::Bool(true))];
        request(bus, &mut requests, responses, SCREEN_CAST, "SelectSources", on_session(), sources, STEP_TIMEOUT)?;
        // Before Start, or the dialog does not offer it (portals from 1.18; older ones have none).
        let clipboard_asked = request_clipboard(bus, &session);
        if options.restore_token.is_none() || version < 2 {
            info!(
                "the desktop asks the person at the screen to let handrail see and control it: choose \
                 Share in its dialog, with \"Allow Remote Interaction\" on (waiting up to {:?})",
                options.consent_timeout
            );
        }
        let mut start_args = on_session();
        start_args.push(Arg::Str(String::new()));
        let response = request(
            bus,
            &mut requests,
            responses,
            REMOTE_DESKTOP,
            "Start",
            start_args,
            Vec::new(),
            options.consent_timeout,
        )?;
        let started = started_from(&session, version, &response)?;
        if clipboard_asked && !started.clipboard {
            info!("the person did not allow the clipboard: text the layout cannot type will not be pasted");
        }
        Ok(started)
    })();
    if started.is_err() {
        close(bus, &session);
    }
    started
}

/// Asks for the session's clipboard; whether the portal took the request.
fn request_clipboard(bus: &mut Bus, session: &str) -> bool {
    let args = [Arg::Path(session.to_owned()), Arg::Dict(Vec::new())];
    match bus.call(&portal_call(CLIPBOARD, "RequestClipboard", &args), STEP_TIMEOUT, "Clipboard.RequestClipboard") {
        Ok(_) => true,
        Err(e) => {
            info!("the desktop portal offers no clipboard ({e}): text the layout cannot type will not be pasted");
            false
        }
    }
}

/// Reads `Start`'s results; a session without both the screen and input is refused.
pub fn started_from(session: &str, version: u32, response: &Response) -> Result<Started, PortalError> {
    let devices = response.get("devices").and_then(Value::as_u32).unwrap_or(0);
    let streams = match response.get("streams") {
        Some(v) => {
            streams_of(v).ok_or_else(|| PortalError::Unexpected { step: "Start", detail: format!("streams {v:?}") })?
        }
        None => Vec::new(),
    };
    if streams.is_empty() {
        return Err(PortalError::Incomplete { missing: "a monitor to share" });
    }
    if devices & (KEYBOARD | POINTER) != KEYBOARD | POINTER {
        return Err(PortalError::Incomplete { missing: "remote interaction (keyboard and pointer)" });
    }
    Ok(Started {
        session: session.to_owned(),
        streams,
        devices,
        clipboard: matches!(response.get("clipboard_enabled"), Some(Value::Bool(true))),
        restore_token: response
            .get("restore_token")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
            .map(str::to_owned),
        version,
    })
}

/// `Start`'s `streams` (`a(ua{sv})`): node, `position` `(ii)` and `size` `(ii)` each. A stream
/// without a size is not one handrail can place; `position` defaults to the origin (one monitor).
pub fn streams_of(value: &Value) -> Option<Vec<PortalStream>> {
    value
        .as_array()?
        .iter()
        .map(|stream| {
            let [node, properties] = stream.as_struct()? else { return None };
            let properties = named(properties)?;
            let pair = |name: &str| -> Option<Option<(i32, i32)>> {
                let Some((_, v)) = properties.iter().find(|(k, _)| k == name) else { return Some(None) };
                let [a, b] = v.as_struct()? else { return None };
                Some(Some((a.as_i32()?, b.as_i32()?)))
            };
            let position = pair("position")?.unwrap_or((0, 0));
            let (w, h) = pair("size")??;
            let size = (u32::try_from(w).ok().filter(|&w| w > 0)?, u32::try_from(h).ok().filter(|&h| h > 0)?);
            Some(PortalStream { node: node.as_u32()?, position, size })
        })
        .collect()
}

/// Calls `member` with `leading` arguments and an options dictionary carrying a fresh handle token,
/// and waits for its response.
#[allow(clippy::too_many_arguments)]
fn request(
    bus: &mut Bus,
    requests: &mut Requests,
    responses: &Receiver<Response>,
    interface: &'static str,
    member: &'static str,
    mut leading: Vec<Arg>,
    mut options: Vec<(String, Arg)>,
    timeout: Duration,
) -> Result<Response, PortalError> {
    let (token, expected) = requests.next_request();
    options.push(("handle_token".into(), Arg::Str(token)));
    leading.push(Arg::Dict(options));
    let reply = bus
        .call(&portal_call(interface, member, &leading), STEP_TIMEOUT, member)
        .map_err(|e| unavailable(e, member))?;
    // Portals before 0.9 chose the path themselves: the reply says which.
    let path = reply.first().ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or(expected);
    let Some(response) = requests.wait(responses, &path, timeout, member)? else {
        if member == "Start" {
            return Err(PortalError::NoAnswer(timeout));
        }
        return Err(PortalError::Unexpected { step: member, detail: format!("no response within {timeout:?}") });
    };
    match response.code {
        0 => Ok(response),
        1 => Err(PortalError::Declined),
        _ => Err(PortalError::Ended { step: member }),
    }
}

/// A call refused because nobody serves the portal, said so.
fn unavailable(e: DbusError, member: &'static str) -> PortalError {
    match &e {
        DbusError::Remote { name, .. }
            if name == "org.freedesktop.DBus.Error.ServiceUnknown"
                || name == "org.freedesktop.DBus.Error.UnknownInterface"
                || name == "org.freedesktop.DBus.Error.UnknownMethod" =>
        {
            PortalError::Unavailable(format!("{member}: {e}"))
        }
        _ => PortalError::Dbus(e),
    }
}

/// The remote-desktop portal's version; [`PortalError::Unavailable`] when there is none.
fn remote_desktop_version(bus: &mut Bus) -> Result<u32, PortalError> {
    let args = [Arg::Str(REMOTE_DESKTOP.into()), Arg::Str("version".into())];
    let reply = bus
        .call(&portal_call("org.freedesktop.DBus.Properties", "Get", &args), STEP_TIMEOUT, "RemoteDesktop.version")
        .map_err(|e| match e {
            DbusError::Remote { .. } => PortalError::Unavailable(format!("no remote-desktop portal: {e}")),
            other => PortalError::Dbus(other),
        })?;
    let version = reply.first()?;
    version
        .as_u32()
        .ok_or_else(|| PortalError::Unexpected { step: "RemoteDesktop.version", detail: format!("{version:?}") })
}

/// A connection to the PipeWire daemon that carries the session's streams.
pub fn open_pipewire_remote(bus: &mut Bus, session: &str) -> Result<OwnedFd, PortalError> {
    let args = [Arg::Path(session.to_owned()), Arg::Dict(Vec::new())];
    let step = "ScreenCast.OpenPipeWireRemote";
    let reply = bus.call(&portal_call(SCREEN_CAST, "OpenPipeWireRemote", &args), STEP_TIMEOUT, step)?;
    let index = match reply.first()?.unwrapped() {
        Value::Fd(i) => *i,
        other => return Err(PortalError::Unexpected { step, detail: format!("{other:?}") }),
    };
    reply
        .fd(index)
        .ok_or_else(|| PortalError::Unexpected { step, detail: format!("no descriptor {index} came") })?
        .try_clone()
        .map_err(|e| PortalError::Unexpected { step, detail: format!("duplicating the descriptor: {e}") })
}

/// Closes the session (its streams and input end with it).
pub fn close(bus: &mut Bus, session: &str) {
    let call =
        Call { destination: DESTINATION, path: session, interface: SESSION, member: "Close", args: &[], flags: 0 };
    if let Err(e) = bus.call(&call, Duration::from_secs(1), "Session.Close") {
        warn!("closing the portal session {session}: {e}");
    }
}

/// An input call's arguments on the portal: the session and an empty options dictionary before the
/// call's own.
pub fn input_args(session: &str, own: Vec<Arg>) -> Vec<Arg> {
    let mut args = vec![Arg::Path(session.to_owned()), Arg::Dict(Vec::new())];
    args.extend(own);
    args
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn entry(k: &str, v: Value) -> Value {
        Value::Struct(vec![Value::Str(k.into()), Value::Variant(Box::new(v))])
    }
    fn pair(a: i32, b: i32) -> Value {
        Value::Struct(vec![Value::I32(a), Value::I32(b)])
    }
    fn stream(node: u32, props: Vec<Value>) -> Value {
        Value::Struct(vec![Value::U32(node), Value::Array(props)])
    }
    fn start_response(results: Vec<(&str, Value)>) -> Response {
        Response {
            request: "/r".into(),
            code: 0,
            results: results.into_iter().map(|(k, v)| (k.to_owned(), v)).collect(),
        }
    }

    #[test]
    fn streams_are_read_as_gnome_48s_portal_sends_them() {
        // As xdg-desktop-portal 1.20 with GNOME's backend answered Start.
        let v = Value::Array(vec![stream(
            48,
            vec![
                entry("id", Value::Str("0".into())),
                entry("source_type", Value::U32(1)),
                entry("position", pair(0, 0)),
                entry("size", pair(1280, 800)),
                entry("mapping_id", Value::Str("afb64715".into())),
            ],
        )]);
        assert_eq!(streams_of(&v), Some(vec![PortalStream { node: 48, position: (0, 0), size: (1280, 800) }]));
        let second = stream(49, vec![entry("position", pair(1280, -200)), entry("size", pair(1920, 1080))]);
        let v = Value::Array(vec![stream(48, vec![entry("size", pair(1280, 800))]), second]);
        assert_eq!(
            streams_of(&v).expect("two streams")[1],
            PortalStream { node: 49, position: (1280, -200), size: (1920, 1080) }
        );
    }

    #[test]
    fn a_stream_without_a_usable_size_is_not_read() {
        for props in [
            vec![],
            vec![entry("size", pair(0, 800))],
            vec![entry("size", pair(-5, 800))],
            vec![entry("size", Value::U32(3))],
        ] {
            assert_eq!(streams_of(&Value::Array(vec![stream(1, props.clone())])), None, "{props:?}");
        }
        assert_eq!(streams_of(&Value::U32(1)), None);
    }

    #[test]
    fn a_start_without_input_or_screen_is_refused_and_says_what_is_missing() {
        let streams = Value::Array(vec![stream(48, vec![entry("size", pair(1280, 800))])]);
        let only_screen = start_response(vec![("devices", Value::U32(0)), ("streams", streams.clone())]);
        assert!(
            matches!(started_from("/s", 2, &only_screen), Err(PortalError::Incomplete { missing }) if missing.contains("remote interaction"))
        );
        let keyboard_only = start_response(vec![("devices", Value::U32(KEYBOARD)), ("streams", streams.clone())]);
        assert!(matches!(started_from("/s", 2, &keyboard_only), Err(PortalError::Incomplete { .. })));
        let no_screen = start_response(vec![("devices", Value::U32(3))]);
        assert!(
            matches!(started_from("/s", 2, &no_screen), Err(PortalError::Incomplete { missing }) if missing.contains("monitor"))
        );
        let all = start_response(vec![
            ("devices", Value::U32(3)),
            ("streams", streams),
            ("clipboard_enabled", Value::Bool(true)),
            ("restore_token", Value::Str("bbef98d1".into())),
        ]);
        let started = started_from("/s", 2, &all).expect("started");
        assert_eq!((started.devices, started.clipboard, started.restore_token.as_deref()), (3, true, Some("bbef98d1")));
    }

    #[test]
    fn input_calls_name_the_session_first() {
        let args = input_args("/org/freedesktop/portal/desktop/session/1_2/handrail", vec![Arg::I32(272), Arg::U32(1)]);
        assert_eq!(args.iter().map(Arg::signature).collect::<String>(), "oa{sv}iu");
    }

    proptest! {
        /// Whatever the portal sends, a stream read has a size and each read stream was sent.
        #[test]
        fn streams_read_are_those_sent(sizes in proptest::collection::vec((any::<u32>(), -3i32..4000, -3i32..4000, -5000i32..5000), 0..5)) {
            let v = Value::Array(sizes.iter().map(|&(n, w, h, x)| stream(n, vec![entry("size", pair(w, h)), entry("position", pair(x, 0))])).collect());
            let all_valid = sizes.iter().all(|&(_, w, h, _)| w > 0 && h > 0);
            match streams_of(&v) {
                Some(read) => {
                    prop_assert!(all_valid);
                    prop_assert_eq!(read.len(), sizes.len());
                    for (r, &(n, w, h, x)) in read.iter().zip(&sizes) {
                        prop_assert_eq!(r, &PortalStream { node: n, position: (x, 0), size: (w as u32, h as u32) });
                    }
                }
                None => prop_assert!(!all_valid),
            }
        }
    }
}

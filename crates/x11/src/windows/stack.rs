//! Reading top-level windows: one window's facts, and the whole stack as drawn.
//!
//! - **One window**: title (`_NET_WM_NAME`, else `WM_NAME`), WM_CLASS, pid, and frame bounds (the
//!   client's origin on the root minus `_NET_FRAME_EXTENTS` and its border), all requests in flight
//!   together, so any number of windows costs one round trip.
//! - **The stack**: the window manager's `_NET_CLIENT_LIST_STACKING` (bottom to top) gives managed
//!   windows; `_NET_WM_STATE_HIDDEN` marks minimised ones, `_NET_WM_WINDOW_TYPE_DIALOG` or
//!   `WM_TRANSIENT_FOR` dialogs, and desktop-type windows (a wallpaper window) are left out. Pop-ups
//!   — menus, tooltips, drop-downs, which toolkits draw as override-redirect children of the root that
//!   the window manager never sees — come from the root's children (`QueryTree` lists them bottom to
//!   top) when mapped and big enough to hide something, and are placed above every managed window,
//!   where the server draws them.

use handrail_platform::{Rect, StackedWindow, WindowInfo, WindowKind};
use x11rb::cookie::Cookie;
use x11rb::protocol::xproto::{AtomEnum, ConnectionExt as _, GetPropertyReply, MapState, Window};
use x11rb::rust_connection::RustConnection;

use crate::{Conn, X11Error};

/// Upper bound for a title read (in 32-bit units).
const MAX_TITLE_LEN: u32 = 1024;
/// Upper bound for list properties (window lists, states, types), in 32-bit units.
const MAX_LIST: u32 = 4096;
/// Pop-ups smaller than this on either side hide nothing a person reads (toolkits keep 1x1 helper
/// windows mapped).
const MIN_POPUP_SIDE: u16 = 8;

type PropertyCookie<'c> = Cookie<'c, RustConnection, GetPropertyReply>;

/// A window's facts as X reports them, before the app name is looked up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RawInfo {
    pub window: Window,
    pub title: String,
    pub instance: String,
    pub class: String,
    pub pid: Option<u32>,
    pub bounds: Rect,
    /// The client window itself, without the window manager's frame: what the app draws in.
    pub client: Rect,
    /// `_GTK_FRAME_EXTENTS` (left, right, top, bottom): the invisible margin a GTK window with
    /// client-side decorations keeps around what it shows, for its shadow.
    pub gtk_margin: Option<[u32; 4]>,
}

impl RawInfo {
    /// As the platform reports it, with the app's human name.
    pub fn into_info(self, app: String) -> WindowInfo {
        let class = if self.class.is_empty() { self.instance } else { self.class };
        WindowInfo { app, class, title: self.title, pid: self.pid, bounds: self.bounds }
    }
}

/// Requests for one window's [`RawInfo`], sent and not yet answered.
pub(crate) struct InfoRequest<'c> {
    window: Window,
    net_name: PropertyCookie<'c>,
    wm_name: PropertyCookie<'c>,
    class: PropertyCookie<'c>,
    pid: PropertyCookie<'c>,
    extents: PropertyCookie<'c>,
    gtk_extents: PropertyCookie<'c>,
    geometry: Cookie<'c, RustConnection, x11rb::protocol::xproto::GetGeometryReply>,
    origin: Cookie<'c, RustConnection, x11rb::protocol::xproto::TranslateCoordinatesReply>,
}

impl<'c> InfoRequest<'c> {
    pub fn send(conn: &'c Conn, window: Window) -> Result<InfoRequest<'c>, X11Error> {
        let c = &conn.conn;
        let a = &conn.atoms;
        Ok(InfoRequest {
            window,
            net_name: c.get_property(false, window, a._NET_WM_NAME, a.UTF8_STRING, 0, MAX_TITLE_LEN)?,
            wm_name: c.get_property(false, window, a.WM_NAME, AtomEnum::ANY, 0, MAX_TITLE_LEN)?,
            class: c.get_property(false, window, a.WM_CLASS, AtomEnum::STRING, 0, 256)?,
            pid: c.get_property(false, window, a._NET_WM_PID, AtomEnum::CARDINAL, 0, 1)?,
            extents: c.get_property(false, window, a._NET_FRAME_EXTENTS, AtomEnum::CARDINAL, 0, 4)?,
            gtk_extents: c.get_property(false, window, a._GTK_FRAME_EXTENTS, AtomEnum::CARDINAL, 0, 4)?,
            geometry: c.get_geometry(window)?,
            origin: c.translate_coordinates(window, conn.root, 0, 0)?,
        })
    }

    /// Waits for the answers. A window that vanished meanwhile is an X error.
    pub fn finish(self) -> Result<RawInfo, X11Error> {
        let net_name = self.net_name.reply()?;
        let wm_name = self.wm_name.reply()?;
        let title = if net_name.value_len > 0 {
            String::from_utf8_lossy(&net_name.value).into_owned()
        } else {
            decode_text(&wm_name)
        };
        let (instance, class) = parse_wm_class(&self.class.reply()?.value);
        let pid = self.pid.reply()?.value32().and_then(|mut v| v.next()).filter(|p| *p != 0);
        let extents: Vec<u32> = self.extents.reply()?.value32().map(|v| v.collect()).unwrap_or_default();
        let [left, right, top, bottom] = match extents[..] {
            [l, r, t, b] => [l, r, t, b],
            _ => [0; 4],
        };
        let gtk_margin = match self.gtk_extents.reply()?.value32().map(|v| v.collect::<Vec<u32>>()).as_deref() {
            Some(&[l, r, t, b]) => Some([l, r, t, b]),
            _ => None,
        };
        let geometry = self.geometry.reply()?;
        let origin = self.origin.reply()?;
        // `origin` is the inside of the client's own border; the frame surrounds border and client.
        let border = u32::from(geometry.border_width);
        let bounds = Rect::new(
            i32::from(origin.dst_x) - (left + border) as i32,
            i32::from(origin.dst_y) - (top + border) as i32,
            u32::from(geometry.width) + left + right + 2 * border,
            u32::from(geometry.height) + top + bottom + 2 * border,
        );
        let client = Rect::new(
            i32::from(origin.dst_x),
            i32::from(origin.dst_y),
            u32::from(geometry.width),
            u32::from(geometry.height),
        );
        Ok(RawInfo {
            window: self.window,
            title: title.trim_end_matches('\0').to_owned(),
            instance,
            class,
            pid,
            bounds,
            client,
            gtk_margin,
        })
    }
}

/// What the stack needs beyond [`RawInfo`] of a managed window.
struct ManagedRequest<'c> {
    info: InfoRequest<'c>,
    state: PropertyCookie<'c>,
    kind: PropertyCookie<'c>,
    transient: PropertyCookie<'c>,
}

/// A window of the stack with its facts as X reports them.
pub(crate) struct RawStacked {
    pub info: RawInfo,
    pub kind: WindowKind,
    pub minimized: bool,
}

/// Every top-level window bottom to top (see the module docs). Windows that vanish while being read
/// are left out.
pub(crate) fn read_stack(conn: &Conn) -> Result<Vec<RawStacked>, X11Error> {
    let c = &conn.conn;
    let a = &conn.atoms;
    let stacking = c.get_property(false, conn.root, a._NET_CLIENT_LIST_STACKING, AtomEnum::WINDOW, 0, MAX_LIST)?;
    let tree = c.query_tree(conn.root)?;
    let managed: Vec<Window> = stacking.reply()?.value32().map(|v| v.collect()).unwrap_or_default();
    let children = tree.reply()?.children;

    let mut requests = Vec::with_capacity(managed.len());
    for &window in &managed {
        requests.push(ManagedRequest {
            info: InfoRequest::send(conn, window)?,
            state: c.get_property(false, window, a._NET_WM_STATE, AtomEnum::ATOM, 0, MAX_LIST)?,
            kind: c.get_property(false, window, a._NET_WM_WINDOW_TYPE, AtomEnum::ATOM, 0, MAX_LIST)?,
            transient: c.get_property(false, window, AtomEnum::WM_TRANSIENT_FOR, AtomEnum::WINDOW, 0, 1)?,
        });
    }
    let attributes: Vec<_> =
        children.iter().map(|&w| c.get_window_attributes(w).map(|cookie| (w, cookie))).collect::<Result<_, _>>()?;

    let mut stack = Vec::with_capacity(requests.len());
    for request in requests {
        match managed_window(conn, request) {
            Ok(Some(w)) => stack.push(w),
            Ok(None) => {}
            Err(e) if is_gone(&e) => {}
            Err(e) => return Err(e),
        }
    }
    let mut popups = Vec::new();
    for (window, cookie) in attributes {
        match cookie.reply() {
            Ok(attrs) if attrs.override_redirect && attrs.map_state == MapState::VIEWABLE => {
                popups.push(InfoRequest::send(conn, window)?)
            }
            Ok(_) => {}
            Err(x11rb::errors::ReplyError::X11Error(_)) => {}
            Err(e) => return Err(e.into()),
        }
    }
    let screen = Rect::new(0, 0, u32::from(conn.width), u32::from(conn.height));
    for request in popups {
        match request.finish() {
            Ok(info) if is_popup_size(&info.bounds, &screen) => {
                stack.push(RawStacked { info, kind: WindowKind::Popup, minimized: false })
            }
            Ok(_) => {}
            Err(e) if is_gone(&e) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(stack)
}

/// One managed window; `None` for windows that are part of the desktop rather than on it.
fn managed_window(conn: &Conn, request: ManagedRequest<'_>) -> Result<Option<RawStacked>, X11Error> {
    let a = &conn.atoms;
    let info = request.info.finish()?;
    let atoms = |reply: GetPropertyReply| -> Vec<u32> { reply.value32().map(|v| v.collect()).unwrap_or_default() };
    let state = atoms(request.state.reply()?);
    let types = atoms(request.kind.reply()?);
    let transient_for = request.transient.reply()?.value32().and_then(|mut v| v.next()).filter(|w| *w != 0);
    if types.contains(&a._NET_WM_WINDOW_TYPE_DESKTOP) {
        return Ok(None);
    }
    let kind = if types.contains(&a._NET_WM_WINDOW_TYPE_DIALOG) || transient_for.is_some() {
        WindowKind::Dialog
    } else {
        WindowKind::Normal
    };
    Ok(Some(RawStacked { info, kind, minimized: state.contains(&a._NET_WM_STATE_HIDDEN) }))
}

/// A pop-up worth knowing about: on screen and big enough to cover something.
fn is_popup_size(bounds: &Rect, screen: &Rect) -> bool {
    bounds.width >= u32::from(MIN_POPUP_SIDE) && bounds.height >= u32::from(MIN_POPUP_SIDE) && bounds.intersects(screen)
}

/// A BadWindow-style error: the window vanished between two requests.
pub(crate) fn is_gone(e: &X11Error) -> bool {
    matches!(e, X11Error::Reply(x11rb::errors::ReplyError::X11Error(_)))
}

/// The stacked window as the platform reports it.
pub(crate) fn to_stacked(raw: RawStacked, app: String, active: Option<Window>) -> StackedWindow {
    let handle = u64::from(raw.info.window);
    let is_active = active == Some(raw.info.window);
    StackedWindow { handle, info: raw.info.into_info(app), kind: raw.kind, minimized: raw.minimized, active: is_active }
}

/// WM_CLASS is two NUL-terminated strings: instance, class.
pub(crate) fn parse_wm_class(value: &[u8]) -> (String, String) {
    let mut parts = value.split(|b| *b == 0).map(|p| String::from_utf8_lossy(p).into_owned());
    (parts.next().unwrap_or_default(), parts.next().unwrap_or_default())
}

/// A `WM_NAME`-style text property: UTF-8 or Latin-1 (STRING); anything else is read as UTF-8.
pub(crate) fn decode_text(reply: &GetPropertyReply) -> String {
    if u32::from(AtomEnum::STRING) == reply.type_ {
        reply.value.iter().map(|&b| char::from(b)).collect()
    } else {
        String::from_utf8_lossy(&reply.value).into_owned()
    }
}

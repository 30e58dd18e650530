//! Screen capture: MIT-SHM with a `GetImage` fallback, BGRX straight from the server into resize.
//!
//! The X server's 24/32-bit TrueColor layout on little-endian image order *is* BGRX, the layout of
//! [`Frame`], so pixels are never converted: they are copied once (from the shared segment into the
//! frame's buffer, or moved out of the `GetImage` reply) and [`resize_bgrx`] reads them from there.
//!
//! **MIT-SHM.** One memfd-backed segment, sized for the whole root window, is passed to the server
//! (`ShmAttachFd`, SHM 1.2) and attached once; every capture is then one `ShmGetImage` round trip in
//! which the server writes straight into our mapping. memfd (rather than SysV `shmget`) is used
//! because it also works when the server sits in another IPC namespace (containers) and leaves nothing
//! behind if we crash. The segment is re-created when the root grows (RandR resize).
//!
//! **GetImage** is the fallback where SHM cannot work: no extension, SHM older than 1.2, or a TCP
//! connection (file descriptors only travel over Unix sockets). It costs one extra copy through the
//! socket. [`CaptureMethod`] forces either path (tests cover both).
//!
//! **Coordinates.** A frame's `origin` is the captured area in screen coordinates (clamped to the
//! screen), `screen` the real screen size and `size` the image after fitting into `max_size`, so
//! [`Frame::scale`] converts screenshot pixels to screen pixels exactly.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::ptr::NonNull;
use std::sync::{Arc, Mutex, MutexGuard};

use handrail_imaging::resize_bgrx;
use handrail_platform::{Frame, Monitor, PlatformError, Rect, Screen, Size};
use log::{debug, info, warn};
use x11rb::connection::{Connection, RequestConnection};
use x11rb::protocol::shm::{self, ConnectionExt as _};
use x11rb::protocol::xproto::{ConnectionExt as _, ImageFormat, ImageOrder, Setup, VisualClass};

use crate::conn::Conn;
use crate::error::X11Error;
use crate::monitors::MonitorReader;

/// Which transport [`X11Screen`] uses for pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CaptureMethod {
    /// MIT-SHM when the server offers it over a local socket, else `GetImage`. If SHM fails later,
    /// the capture is retried with `GetImage` and SHM is given up for good once `GetImage` succeeds.
    #[default]
    Auto,
    /// MIT-SHM only; construction fails when it is unavailable.
    Shm,
    /// Plain `GetImage` (pixels through the socket).
    GetImage,
}

/// Captures the root window of an X display. See the [module docs](self).
pub struct X11Screen {
    conn: Arc<Conn>,
    requested: CaptureMethod,
    state: Mutex<State>,
    monitors: MonitorReader,
}

impl std::fmt::Debug for X11Screen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // try_lock: formatting must not deadlock when it happens during a capture.
        let method = self.state.try_lock().ok().map(|s| match &*s {
            State::Shm(_) => CaptureMethod::Shm,
            State::GetImage => CaptureMethod::GetImage,
        });
        f.debug_struct("X11Screen")
            .field("display", &self.conn.display)
            .field("requested", &self.requested)
            .field("method", &method)
            .finish()
    }
}

enum State {
    /// SHM is in use; the segment is (re)made lazily when missing or too small.
    Shm(Option<ShmSegment>),
    GetImage,
}

impl X11Screen {
    /// A capturer choosing MIT-SHM when possible ([`CaptureMethod::Auto`]).
    pub fn new(conn: Arc<Conn>) -> Result<Self, X11Error> {
        Self::with_method(conn, CaptureMethod::Auto)
    }

    /// A capturer using `method`. Fails when the root window's pixel format is not 24/32-bit
    /// TrueColor at 32 bits per pixel, or when [`CaptureMethod::Shm`] is forced and unavailable.
    pub fn with_method(conn: Arc<Conn>, method: CaptureMethod) -> Result<Self, X11Error> {
        check_format(conn.conn.setup(), conn.screen_num).map_err(X11Error::Other)?;
        let state = match method {
            CaptureMethod::GetImage => State::GetImage,
            CaptureMethod::Shm | CaptureMethod::Auto => match shm_unavailable_reason(&conn) {
                None => {
                    // Attach now so a server that refuses the segment is found out here, not mid-action.
                    let (w, h) = conn.root_size()?;
                    match ShmSegment::create(&conn, segment_len(w, h)) {
                        Ok(seg) => State::Shm(Some(seg)),
                        Err(e) if method == CaptureMethod::Auto => {
                            info!("capture on {}: MIT-SHM attach failed ({e}); using GetImage", conn.display);
                            State::GetImage
                        }
                        Err(e) => return Err(e),
                    }
                }
                Some(reason) if method == CaptureMethod::Auto => {
                    info!("capture on {}: {reason}; using GetImage", conn.display);
                    State::GetImage
                }
                Some(reason) => return Err(X11Error::Other(format!("MIT-SHM capture is unavailable: {reason}"))),
            },
        };
        let screen =
            X11Screen { conn, requested: method, state: Mutex::new(state), monitors: MonitorReader::default() };
        debug!("capture on {}: {:?}", screen.conn.display, screen.method());
        Ok(screen)
    }

    /// The path in use right now: [`CaptureMethod::Shm`] or [`CaptureMethod::GetImage`] (never `Auto`).
    pub fn method(&self) -> CaptureMethod {
        match &*self.lock() {
            State::Shm(_) => CaptureMethod::Shm,
            State::GetImage => CaptureMethod::GetImage,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while capturing leaves nothing half-updated that matters: keep going.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Grabs `area` (inside the screen, non-empty) at full resolution.
    fn grab(&self, area: Rect, screen: Size) -> Result<Frame, X11Error> {
        let mut state = self.lock();
        match &mut *state {
            State::GetImage => self.grab_get_image(area, screen),
            State::Shm(seg) => match self.grab_shm(seg, area, screen) {
                Ok(frame) => Ok(frame),
                Err(e) if self.requested == CaptureMethod::Auto => {
                    // A transient error (the root shrank under us) must not disable SHM, so only give
                    // SHM up once GetImage proves the server itself is fine.
                    let frame = self.grab_get_image(area, screen)?;
                    warn!("capture on {}: MIT-SHM failed ({e}); switching to GetImage", self.conn.display);
                    if let Some(old) = seg.take() {
                        old.detach(&self.conn);
                    }
                    *state = State::GetImage;
                    Ok(frame)
                }
                Err(e) => Err(e),
            },
        }
    }

    fn grab_shm(&self, seg: &mut Option<ShmSegment>, area: Rect, screen: Size) -> Result<Frame, X11Error> {
        let len = segment_len(area.width as u16, area.height as u16);
        let big_enough = match seg {
            Some(s) => s.len >= len,
            None => false,
        };
        if !big_enough {
            // Size it for the whole (possibly resized) root so later captures reuse it.
            let want = segment_len(screen.width as u16, screen.height as u16).max(len);
            if let Some(old) = seg.take() {
                old.detach(&self.conn);
            }
            debug!("capture on {}: new SHM segment of {want} bytes", self.conn.display);
            *seg = Some(ShmSegment::create(&self.conn, want)?);
        }
        let Some(s) = seg.as_ref() else {
            return Err(X11Error::Other("no SHM segment".into()));
        };
        let reply = self
            .conn
            .conn
            .shm_get_image(
                self.conn.root,
                area.x as i16,
                area.y as i16,
                area.width as u16,
                area.height as u16,
                !0,
                ImageFormat::Z_PIXMAP.into(),
                s.seg,
                0,
            )?
            .reply()?;
        let got = reply.size as usize;
        if got < len {
            return Err(X11Error::Other(format!("SHM image of {got} bytes, expected {len}")));
        }
        // The one copy: shared segment → the frame's own buffer (the segment is reused next time).
        let pixels = s.bytes()[..len].to_vec();
        Ok(frame(area, screen, pixels))
    }

    fn grab_get_image(&self, area: Rect, screen: Size) -> Result<Frame, X11Error> {
        let reply = self
            .conn
            .conn
            .get_image(
                ImageFormat::Z_PIXMAP,
                self.conn.root,
                area.x as i16,
                area.y as i16,
                area.width as u16,
                area.height as u16,
                !0,
            )?
            .reply()?;
        let len = segment_len(area.width as u16, area.height as u16);
        let mut pixels = reply.data;
        if pixels.len() < len {
            return Err(X11Error::Other(format!("GetImage returned {} bytes, expected {len}", pixels.len())));
        }
        pixels.truncate(len);
        Ok(frame(area, screen, pixels))
    }
}

impl Drop for X11Screen {
    fn drop(&mut self) {
        if let State::Shm(Some(seg)) = std::mem::replace(&mut *self.lock(), State::GetImage) {
            seg.detach(&self.conn);
        }
    }
}

impl Screen for X11Screen {
    fn screen_size(&self) -> Result<Size, PlatformError> {
        let (w, h) = self.conn.root_size()?;
        Ok(Size::new(w.into(), h.into()))
    }

    fn capture(&self, area: Option<Rect>, max_size: Option<Size>) -> Result<Frame, PlatformError> {
        // Every observation passes here: a cheap moment to drop events nobody reads on this connection.
        self.conn.discard_events();
        let screen = self.screen_size()?;
        let whole = Rect::from_size(screen);
        let area = match area {
            None => whole,
            Some(a) => {
                let clamped = a.clamped_to(&whole);
                if clamped.is_empty() {
                    return Err(PlatformError::Invalid(format!("capture area {a} lies outside the {screen} screen")));
                }
                clamped
            }
        };
        if let Some(m) = max_size {
            if m.width == 0 || m.height == 0 {
                return Err(PlatformError::Invalid(format!("capture max size {m} is empty")));
            }
        }
        let raw = self.grab(area, screen)?;
        let target = max_size.map_or(raw.size, |m| raw.size.fit_within(m));
        Ok(if target == raw.size { raw } else { resize_bgrx(&raw, target) })
    }

    fn monitors(&self) -> Result<Vec<Monitor>, PlatformError> {
        let screen = self.screen_size()?;
        Ok(self.monitors.read(&self.conn, screen)?)
    }
}

/// A full-resolution, tightly packed frame of `area`.
fn frame(area: Rect, screen: Size, pixels: Vec<u8>) -> Frame {
    let size = Size::new(area.width, area.height);
    Frame { size, screen, stride: size.width as usize * 4, pixels, origin: area }
}

/// Bytes of a `w`×`h` image at 32 bits per pixel (rows need no padding at 32 bpp).
fn segment_len(w: u16, h: u16) -> usize {
    usize::from(w) * usize::from(h) * 4
}

/// Why the root window's pixels are not BGRX at 32 bpp, if they are not.
fn check_format(setup: &Setup, screen_num: usize) -> Result<(), String> {
    let screen = setup.roots.get(screen_num).ok_or_else(|| format!("no screen {screen_num}"))?;
    let depth = screen.root_depth;
    if depth != 24 && depth != 32 {
        return Err(format!("root depth {depth} is not supported: handrail captures 24- or 32-bit TrueColor screens"));
    }
    let bpp = setup.pixmap_formats.iter().find(|f| f.depth == depth).map(|f| f.bits_per_pixel);
    if bpp != Some(32) {
        return Err(format!("depth {depth} uses {bpp:?} bits per pixel; handrail needs 32"));
    }
    if setup.image_byte_order != ImageOrder::LSB_FIRST {
        return Err("the server's image byte order is MSB first; handrail needs BGRX (LSB first)".into());
    }
    let visual = screen
        .allowed_depths
        .iter()
        .flat_map(|d| d.visuals.iter())
        .find(|v| v.visual_id == screen.root_visual)
        .ok_or_else(|| format!("root visual {:#x} not listed by the server", screen.root_visual))?;
    let rgb = (visual.red_mask, visual.green_mask, visual.blue_mask);
    let true_colour = matches!(visual.class, VisualClass::TRUE_COLOR | VisualClass::DIRECT_COLOR);
    if !true_colour || rgb != (0xff_0000, 0xff00, 0xff) {
        return Err(format!(
            "root visual {:?} with masks {:06x}/{:06x}/{:06x} is not 8-bit-per-channel RGB",
            visual.class, rgb.0, rgb.1, rgb.2
        ));
    }
    Ok(())
}

/// Why MIT-SHM cannot be used on this connection, if it cannot.
fn shm_unavailable_reason(conn: &Conn) -> Option<String> {
    if !is_unix_socket(conn.conn.stream().as_raw_fd()) {
        return Some("the connection is not a local socket (no file descriptor passing)".into());
    }
    match conn.conn.extension_information(shm::X11_EXTENSION_NAME) {
        Ok(Some(_)) => {}
        Ok(None) => return Some("the server lacks the MIT-SHM extension".into()),
        Err(e) => return Some(format!("cannot query MIT-SHM: {e}")),
    }
    match conn.conn.shm_query_version().map_err(X11Error::from).and_then(|c| Ok(c.reply()?)) {
        Ok(v) if (v.major_version, v.minor_version) >= (1, 2) => None,
        Ok(v) => Some(format!("MIT-SHM {}.{} lacks fd passing (1.2 needed)", v.major_version, v.minor_version)),
        Err(e) => Some(format!("cannot query MIT-SHM: {e}")),
    }
}

fn is_unix_socket(fd: i32) -> bool {
    // SAFETY: a zeroed sockaddr_storage is a valid out-buffer and `len` states its size; getsockname
    // only writes within it.
    unsafe {
        let mut addr: libc::sockaddr_storage = std::mem::zeroed();
        let mut len = std::mem::size_of::<libc::sockaddr_storage>() as libc::socklen_t;
        libc::getsockname(fd, (&mut addr as *mut libc::sockaddr_storage).cast(), &mut len) == 0
            && i32::from(addr.ss_family) == libc::AF_UNIX
    }
}

/// A memfd shared with the X server and mapped read-only here.
struct ShmSegment {
    seg: shm::Seg,
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: the mapping is private to this struct (only the server writes into it, during a request we
// wait for), and X11Screen only touches it under its mutex.
unsafe impl Send for ShmSegment {}

impl ShmSegment {
    fn create(conn: &Conn, len: usize) -> Result<ShmSegment, X11Error> {
        let os = |what: &str| X11Error::Other(format!("{what}: {}", std::io::Error::last_os_error()));
        let len = len.max(4);
        // SAFETY: plain syscalls on a fresh fd we own; the mapping is checked before use and unmapped
        // by Drop (or right here on error).
        let (fd, ptr) = unsafe {
            let raw = libc::memfd_create(c"handrail-capture".as_ptr(), libc::MFD_CLOEXEC);
            if raw < 0 {
                return Err(os("memfd_create"));
            }
            let fd = OwnedFd::from_raw_fd(raw);
            if libc::ftruncate(fd.as_raw_fd(), len as libc::off_t) != 0 {
                return Err(os("ftruncate of the SHM segment"));
            }
            let p = libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ, libc::MAP_SHARED, fd.as_raw_fd(), 0);
            if p == libc::MAP_FAILED {
                return Err(os("mmap of the SHM segment"));
            }
            (fd, NonNull::new_unchecked(p.cast::<u8>()))
        };
        // From here Drop unmaps on every error path.
        let mut segment = ShmSegment { seg: 0, ptr, len };
        segment.seg = conn.conn.generate_id()?;
        // Checked: a server that cannot map our fd answers with an error now rather than on capture.
        conn.conn.shm_attach_fd(segment.seg, fd, false)?.check()?;
        Ok(segment)
    }

    fn bytes(&self) -> &[u8] {
        // SAFETY: `ptr` maps `len` readable bytes for as long as `self` lives.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    /// Tells the server to let go of the segment (fire and forget), then unmaps it.
    fn detach(self, conn: &Conn) {
        if conn.conn.shm_detach(self.seg).is_ok() {
            let _ = conn.conn.flush();
        }
    }
}

impl Drop for ShmSegment {
    fn drop(&mut self) {
        // SAFETY: `ptr`/`len` are exactly what mmap returned; nothing borrows the mapping any more.
        unsafe {
            libc::munmap(self.ptr.as_ptr().cast(), self.len);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use x11rb::protocol::xproto::{Depth, Format, Screen as XScreen, Visualtype};

    fn setup(depth: u8, bpp: u8, masks: (u32, u32, u32), order: ImageOrder) -> Setup {
        let visual = Visualtype {
            visual_id: 0x21,
            class: VisualClass::TRUE_COLOR,
            bits_per_rgb_value: 8,
            colormap_entries: 256,
            red_mask: masks.0,
            green_mask: masks.1,
            blue_mask: masks.2,
        };
        Setup {
            image_byte_order: order,
            pixmap_formats: vec![Format { depth, bits_per_pixel: bpp, scanline_pad: 32 }],
            roots: vec![XScreen {
                root_depth: depth,
                root_visual: 0x21,
                allowed_depths: vec![Depth { depth, visuals: vec![visual] }],
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    const RGB: (u32, u32, u32) = (0xff_0000, 0xff00, 0xff);

    #[test]
    fn accepts_bgrx_at_24_and_32() {
        assert_eq!(check_format(&setup(24, 32, RGB, ImageOrder::LSB_FIRST), 0), Ok(()));
        assert_eq!(check_format(&setup(32, 32, RGB, ImageOrder::LSB_FIRST), 0), Ok(()));
    }

    #[test]
    fn refuses_other_layouts_with_a_reason() {
        let err = check_format(&setup(16, 16, (0xf800, 0x7e0, 0x1f), ImageOrder::LSB_FIRST), 0).unwrap_err();
        assert!(err.contains("root depth 16"), "{err}");
        let err = check_format(&setup(24, 24, RGB, ImageOrder::LSB_FIRST), 0).unwrap_err();
        assert!(err.contains("bits per pixel"), "{err}");
        let err = check_format(&setup(24, 32, RGB, ImageOrder::MSB_FIRST), 0).unwrap_err();
        assert!(err.contains("MSB"), "{err}");
        let err = check_format(&setup(24, 32, (0xff, 0xff00, 0xff_0000), ImageOrder::LSB_FIRST), 0).unwrap_err();
        assert!(err.contains("masks"), "{err}");
        assert!(check_format(&setup(24, 32, RGB, ImageOrder::LSB_FIRST), 1).is_err());
    }
}

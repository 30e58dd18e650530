//! Capture on a real X server: a private sandbox desktop (one for this whole test binary, never the
//! host's display) plus, for the fallback and refusal paths, a bare Xvfb started without MIT-SHM or at
//! depth 16. Tests run one at a time (they repaint the same root window). Needs the packages of
//! scripts/setup-desktop (Xvfb, openbox, xsetroot, imagemagick's `display`).

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use handrail_imaging::{crop, resize_bgrx};
use handrail_platform::{Frame, PlatformError, Rect, Screen, Size};
use handrail_sandbox::{Sandbox, SandboxOptions, MARKER_VAR};
use handrail_x11::capture::{CaptureMethod, X11Screen};
use handrail_x11::Conn;

struct Desk {
    sandbox: Sandbox,
    conn: Arc<Conn>,
}

/// The shared desktop, locked for the duration of one test. Started on first use and torn down by the
/// sandbox's reaper when the test process exits (statics are never dropped).
fn desk() -> MutexGuard<'static, Desk> {
    static DESK: OnceLock<Mutex<Desk>> = OnceLock::new();
    init_log();
    DESK.get_or_init(|| {
        // The test threads that would receive PR_SET_PDEATHSIG come and go; rely on the reaper instead.
        let opts = SandboxOptions { accessibility: false, parent_death_signal: false, ..Default::default() };
        let sandbox = Sandbox::start(opts).expect("start the sandbox desktop (see scripts/setup-desktop)");
        let conn = Conn::open(&sandbox.display()).expect("connect to the sandbox");
        Mutex::new(Desk { sandbox, conn })
    })
    .lock()
    // A failed test poisons the lock; the desktop is still usable.
    .unwrap_or_else(|e| e.into_inner())
}

fn init_log() {
    handrail_sandbox::log_to_stderr();
}

/// A child process killed (by its own PID) when the test ends, pass or fail.
struct App(Child);

impl Drop for App {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Desk {
    fn screen(&self, method: CaptureMethod) -> X11Screen {
        X11Screen::with_method(Arc::clone(&self.conn), method).expect("capturer")
    }

    fn set_root(&self, colour: &str) {
        let st = self.sandbox.command("xsetroot").args(["-solid", colour]).status().expect("run xsetroot");
        assert!(st.success(), "xsetroot -solid {colour}: {st}");
    }

    fn spawn(&self, program: &str, args: &[&str]) -> App {
        App(self.sandbox.command(program).args(args).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap())
    }
}

fn bgr(frame: &Frame, x: u32, y: u32) -> [u8; 3] {
    let i = y as usize * frame.stride + x as usize * 4;
    [frame.pixels[i], frame.pixels[i + 1], frame.pixels[i + 2]]
}

/// `#rrggbb` → the BGR bytes a frame holds.
fn hex_bgr(hex: &str) -> [u8; 3] {
    let v = u32::from_str_radix(hex.trim_start_matches('#'), 16).unwrap();
    [(v & 0xff) as u8, (v >> 8 & 0xff) as u8, (v >> 16) as u8]
}

/// BGR of every pixel, X bytes dropped (the padding byte carries no colour).
fn bgr_only(frame: &Frame) -> Vec<u8> {
    (0..frame.size.height)
        .flat_map(|y| frame.row(y).chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]).collect::<Vec<_>>())
        .collect()
}

fn assert_solid(frame: &Frame, colour: [u8; 3]) {
    for y in 0..frame.size.height {
        for x in 0..frame.size.width {
            assert_eq!(bgr(frame, x, y), colour, "pixel {x},{y} of {frame:?}");
        }
    }
}

/// Polls `f` every 20 ms for at most `limit` (windows take a moment to map and paint).
fn eventually<T>(limit: Duration, mut f: impl FnMut() -> Option<T>) -> Option<T> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(v) = f() {
            return Some(v);
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A test pattern where every pixel has its own colour, so a one-pixel shift cannot go unnoticed.
const PATTERN: (u32, u32) = (96, 64);

fn pattern_rgb(x: u32, y: u32) -> [u8; 3] {
    [(x * 2 + 7) as u8, (y * 3 + 11) as u8, ((x * 5 + y * 7) % 251) as u8]
}

fn write_pattern_ppm(dir: &std::path::Path) -> PathBuf {
    let (w, h) = PATTERN;
    let mut data = format!("P6\n{w} {h}\n255\n").into_bytes();
    for y in 0..h {
        for x in 0..w {
            data.extend_from_slice(&pattern_rgb(x, y));
        }
    }
    let path = dir.join("pattern.ppm");
    std::fs::write(&path, data).unwrap();
    path
}

/// Where the pattern's top-left pixel sits in `frame`, if the whole pattern is there exactly.
fn find_pattern(frame: &Frame) -> Option<(u32, u32)> {
    let (pw, ph) = PATTERN;
    let [r, g, b] = pattern_rgb(0, 0);
    for y in 0..frame.size.height.saturating_sub(ph - 1) {
        for x in 0..frame.size.width.saturating_sub(pw - 1) {
            if bgr(frame, x, y) == [b, g, r] && pattern_at(frame, x, y) {
                return Some((x, y));
            }
        }
    }
    None
}

fn pattern_at(frame: &Frame, x0: u32, y0: u32) -> bool {
    (0..PATTERN.1).all(|y| {
        (0..PATTERN.0).all(|x| {
            let [r, g, b] = pattern_rgb(x, y);
            bgr(frame, x0 + x, y0 + y) == [b, g, r]
        })
    })
}

/// Shows the pattern in a real application window (ImageMagick's `display`) and returns where it landed.
fn show_pattern(d: &Desk) -> (App, (u32, u32)) {
    let path = write_pattern_ppm(d.sandbox.home());
    let stderr = std::fs::File::create(d.sandbox.home().join("display.stderr")).unwrap();
    let child = d
        .sandbox
        .command("display")
        .args(["-title", "handrail-pattern", "-geometry", "+300+200", path.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .unwrap();
    let mut app = App(child);
    let screen = d.screen(CaptureMethod::Auto);
    // Found twice in a row at the same place: a window manager may still move a window it just mapped
    // (placement, decorations), and the checks below read the pattern where it was found.
    let mut last = None;
    let found = eventually(Duration::from_secs(15), || {
        let now = find_pattern(&screen.capture(None, None).ok()?);
        let settled = now.is_some() && now == last;
        last = now;
        if settled {
            now
        } else {
            std::thread::sleep(Duration::from_millis(100)); // polling interval, not a settle wait
            None
        }
    });
    let Some(at) = found else {
        // What a look needs: the screen, whether `display` is alive and what it said, and the window's
        // map state and the window manager's client list (a window openbox never managed stays unmapped).
        let shot = screen.capture(None, None).ok().map(|f| save_ppm(&f, "pattern-not-found.ppm"));
        let status = app.0.try_wait();
        let stderr = std::fs::read_to_string(d.sandbox.home().join("display.stderr")).unwrap_or_default();
        let run = |program: &str, args: &[&str]| {
            let out = d.sandbox.command(program).args(args).output();
            out.map(|o| String::from_utf8_lossy(&o.stdout).into_owned()).unwrap_or_default()
        };
        let window = run("xwininfo", &["-name", "handrail-pattern"]) + &run("xprop", &["-root", "_NET_CLIENT_LIST"]);
        panic!(
            "the pattern window never showed up pixel-exact and still; display: {status:?}, stderr: {stderr:?}; \
             the screen: {shot:?}\n{window}"
        );
    };
    (app, at)
}

/// Writes `frame` as a PPM under target/test-artifacts (for a failure to be looked at) and says where.
fn save_ppm(frame: &Frame, name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/test-artifacts");
    let _ = std::fs::create_dir_all(&dir);
    let (w, h) = (frame.size.width, frame.size.height);
    let mut data = format!("P6\n{w} {h}\n255\n").into_bytes();
    for y in 0..h {
        for x in 0..w {
            let [b, g, r] = bgr(frame, x, y);
            data.extend_from_slice(&[r, g, b]);
        }
    }
    let path = dir.join(name);
    let _ = std::fs::write(&path, data);
    path
}

#[test]
fn auto_uses_shm_on_a_local_server_and_reports_the_screen() {
    let d = desk();
    let s = d.screen(CaptureMethod::Auto);
    assert_eq!(s.method(), CaptureMethod::Shm);
    assert_eq!(d.screen(CaptureMethod::GetImage).method(), CaptureMethod::GetImage);
    assert_eq!(s.screen_size().unwrap(), Size::new(1280, 800));
}

#[test]
fn root_colour_is_exact_on_both_paths() {
    let d = desk();
    for (colour, method) in [("#123456", CaptureMethod::Shm), ("#fe01a0", CaptureMethod::GetImage)] {
        d.set_root(colour);
        let f = d.screen(method).capture(None, None).unwrap();
        assert_eq!(
            (f.size, f.screen, f.origin),
            (Size::new(1280, 800), Size::new(1280, 800), Rect::new(0, 0, 1280, 800))
        );
        assert_eq!(f.stride, 1280 * 4);
        assert!(f.is_consistent());
        assert_eq!(f.scale(), 1.0);
        assert_solid(&f, hex_bgr(colour));
    }
    d.set_root("#e0e0e0");
}

#[test]
fn app_window_pixels_match_exactly_and_both_paths_agree() {
    let d = desk();
    d.set_root("#e0e0e0");
    let (_app, (x, y)) = show_pattern(&d);
    let (shm, get) = (d.screen(CaptureMethod::Shm), d.screen(CaptureMethod::GetImage));
    let a = shm.capture(None, None).unwrap();
    let b = get.capture(None, None).unwrap();
    assert!(pattern_at(&a, x, y) && pattern_at(&b, x, y));
    assert_eq!(bgr_only(&a), bgr_only(&b), "SHM and GetImage frames differ");
    // An area around the window, and the pattern alone: same pixels on both paths, at the right place.
    let around = Rect::new(x as i32 - 40, y as i32 - 30, PATTERN.0 + 80, PATTERN.1 + 60);
    let (a, b) = (shm.capture(Some(around), None).unwrap(), get.capture(Some(around), None).unwrap());
    assert_eq!((a.origin, a.size), (around, Size::new(around.width, around.height)));
    assert_eq!(bgr_only(&a), bgr_only(&b));
    assert!(pattern_at(&a, 40, 30));
    let exact = Rect::new(x as i32, y as i32, PATTERN.0, PATTERN.1);
    let p = shm.capture(Some(exact), None).unwrap();
    assert_eq!(find_pattern(&p), Some((0, 0)));
}

#[test]
fn xterm_colours_are_exact() {
    let d = desk();
    d.set_root("#e0e0e0");
    let _xterm = d.spawn("xterm", &["-bg", "#204080", "-fg", "#f0e010", "-geometry", "30x6+500+300", "-e", "sleep 60"]);
    let shm = d.screen(CaptureMethod::Shm);
    let want = hex_bgr("#204080");
    // Somewhere a 100x40 block is exactly the xterm background.
    let found = eventually(Duration::from_secs(15), || {
        let f = shm.capture(None, None).ok()?;
        (0..f.size.height - 40).step_by(10).find_map(|y| {
            (0..f.size.width - 100)
                .step_by(10)
                .find(|&x| (0..40).all(|dy| (0..100).all(|dx| bgr(&f, x + dx, y + dy) == want)))
                .map(|x| (x, y))
        })
    });
    let (x, y) = found.expect("no xterm background block found");
    let get = d.screen(CaptureMethod::GetImage).capture(Some(Rect::new(x as i32, y as i32, 100, 40)), None).unwrap();
    assert_solid(&get, want);
}

#[test]
fn area_capture_reports_its_origin_and_is_a_crop_of_the_screen() {
    let d = desk();
    d.set_root("#e0e0e0");
    let (_app, (px, py)) = show_pattern(&d);
    for method in [CaptureMethod::Shm, CaptureMethod::GetImage] {
        let s = d.screen(method);
        let area = Rect::new(px as i32 - 13, py as i32 - 7, 201, 77);
        // The window manager may still repaint the frame (focus colours) after the pattern
        // shows: compare against a full frame taken while the screen held still around it.
        let (full, f) = eventually(Duration::from_secs(10), || {
            let before = s.capture(None, None).ok()?;
            let f = s.capture(Some(area), None).ok()?;
            let after = s.capture(None, None).ok()?;
            (bgr_only(&before) == bgr_only(&after)).then_some((after, f))
        })
        .expect("the screen never held still for three captures");
        assert_eq!((f.origin, f.size, f.screen), (area, Size::new(201, 77), Size::new(1280, 800)));
        assert_eq!(f.scale(), 1.0);
        assert_eq!(bgr_only(&f), bgr_only(&crop(&full, area).unwrap()), "{method:?}");
        // Screenshot pixel → screen pixel is origin + position × scale.
        assert!(pattern_at(&f, 13, 7));

        // Partly off screen: clamped to what exists.
        let f = s.capture(Some(Rect::new(1200, -20, 300, 100)), None).unwrap();
        assert_eq!((f.origin, f.size), (Rect::new(1200, 0, 80, 80), Size::new(80, 80)));
        // Wholly off screen: refused, not an empty or garbage frame.
        let err = s.capture(Some(Rect::new(2000, 10, 50, 50)), None).unwrap_err();
        assert!(matches!(err, PlatformError::Invalid(ref m) if m.contains("outside")), "{err:?}");
        let err = s.capture(None, Some(Size::new(0, 10))).unwrap_err();
        assert!(matches!(err, PlatformError::Invalid(_)), "{err:?}");
    }
}

#[test]
fn max_size_downscales_with_an_exact_scale() {
    let d = desk();
    d.set_root("#3c6e91");
    let s = d.screen(CaptureMethod::Shm);
    let full = s.capture(None, None).unwrap();
    for (max, want, scale) in [
        (Size::new(640, 640), Size::new(640, 400), 2.0),
        (Size::new(1024, 1024), Size::new(1024, 640), 1.25),
        (Size::new(1280, 400), Size::new(640, 400), 2.0),
        // Never upscaled.
        (Size::new(4000, 4000), Size::new(1280, 800), 1.0),
    ] {
        let f = s.capture(None, Some(max)).unwrap();
        assert_eq!((f.size, f.screen, f.origin), (want, Size::new(1280, 800), Rect::new(0, 0, 1280, 800)));
        assert_eq!(f.scale(), scale, "{max}");
        assert!(f.is_consistent());
        // Exactly what resizing the full frame gives, and a solid screen stays exactly solid.
        assert_eq!(bgr_only(&f), bgr_only(&resize_bgrx(&full, want)));
        assert_solid(&f, hex_bgr("#3c6e91"));
    }
    // An area with a size limit: origin stays in screen coordinates, scale maps back onto it.
    let area = Rect::new(100, 60, 400, 300);
    let f = s.capture(Some(area), Some(Size::new(200, 200))).unwrap();
    assert_eq!((f.size, f.origin, f.scale()), (Size::new(200, 150), area, 2.0));
    d.set_root("#e0e0e0");
}

/// Checks that screenshot pixels of a 2x-downscaled `frame` map onto the screen through `origin` and
/// `scale()`: the pixel at a screenshot point must be the average of the pattern pixels (top-left at
/// screen `pattern`) under the screen block that point maps to.
fn assert_maps_onto_pattern(frame: &Frame, pattern: (u32, u32)) {
    let scale = frame.scale();
    assert_eq!(scale, 2.0);
    let (ox, oy) = (i64::from(frame.origin.x), i64::from(frame.origin.y));
    let (px, py) = (i64::from(pattern.0), i64::from(pattern.1));
    // First screenshot pixels whose 2x2 screen blocks lie inside the pattern, then a few further in.
    let (sx0, sy0) = ((px - ox + 1).div_euclid(2), (py - oy + 1).div_euclid(2));
    for (dx, dy) in [(0, 0), (7, 3), (20, 11), (40, 25)] {
        let (sx, sy) = (sx0 + dx, sy0 + dy);
        // Screenshot → screen: origin + position × scale.
        let (x, y) = (ox + (sx as f64 * scale) as i64, oy + (sy as f64 * scale) as i64);
        let (qx, qy) = ((x - px) as u32, (y - py) as u32);
        assert!(qx + 1 < PATTERN.0 && qy + 1 < PATTERN.1, "point {sx},{sy} maps outside the pattern");
        let mut want = [0u32; 3];
        for (bx, by) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            let [r, g, b] = pattern_rgb(qx + bx, qy + by);
            for (w, v) in want.iter_mut().zip([b, g, r]) {
                *w += u32::from(v);
            }
        }
        let got = bgr(frame, sx as u32, sy as u32);
        for c in 0..3 {
            let diff = (f64::from(got[c]) - f64::from(want[c]) / 4.0).abs();
            assert!(diff <= 1.0, "screenshot {sx},{sy} → screen {x},{y}: got {got:?}, want the mean of {want:?}/4");
        }
    }
}

#[test]
fn downscaled_frames_map_back_to_screen_coordinates() {
    let d = desk();
    d.set_root("#e0e0e0");
    let (_app, at) = show_pattern(&d);
    for method in [CaptureMethod::Shm, CaptureMethod::GetImage] {
        let s = d.screen(method);
        let f = s.capture(None, Some(Size::new(640, 640))).unwrap();
        assert_maps_onto_pattern(&f, at);
        // An odd origin, so screenshot pixels straddle the pattern's pixel grid differently.
        let area = Rect::new(at.0 as i32 - 31, at.1 as i32 - 17, 300, 200);
        let f = s.capture(Some(area), Some(Size::new(150, 150))).unwrap();
        assert_eq!((f.origin, f.size), (area, Size::new(150, 100)));
        assert_maps_onto_pattern(&f, at);
    }
}

/// An Xvfb of our own with extra arguments (to switch extensions off or change depth). It carries the
/// sandbox's marker so the sandbox reaper stops it even if this process dies.
struct BareXvfb {
    child: Child,
    display: String,
}

impl BareXvfb {
    fn start(marker: &str, args: &[&str]) -> BareXvfb {
        let mut child = Command::new("Xvfb")
            .args(["-displayfd", "1", "-nolisten", "tcp", "-noreset"])
            .args(args)
            .env(MARKER_VAR, marker)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start Xvfb");
        let mut line = String::new();
        let read = BufReader::new(child.stdout.take().unwrap()).read_line(&mut line);
        let n: u32 = match read.ok().and_then(|_| line.trim().parse().ok()) {
            Some(n) => n,
            None => {
                let _ = child.kill();
                panic!("Xvfb {args:?} did not report a display");
            }
        };
        BareXvfb { child, display: format!(":{n}") }
    }
}

impl Drop for BareXvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn without_mit_shm_auto_falls_back_to_get_image_and_forced_shm_fails() {
    let d = desk();
    let x = BareXvfb::start(d.sandbox.id(), &["-extension", "MIT-SHM", "-screen", "0", "320x200x24"]);
    let conn = Conn::open(&x.display).unwrap();
    let s = X11Screen::new(Arc::clone(&conn)).unwrap();
    assert_eq!(s.method(), CaptureMethod::GetImage);
    let f = s.capture(None, Some(Size::new(160, 160))).unwrap();
    assert_eq!((f.size, f.screen, f.scale()), (Size::new(160, 100), Size::new(320, 200), 2.0));
    let err = X11Screen::with_method(conn, CaptureMethod::Shm).unwrap_err();
    assert!(err.to_string().contains("MIT-SHM"), "{err}");
}

#[test]
fn a_16_bit_screen_is_refused_clearly() {
    let d = desk();
    let x = BareXvfb::start(d.sandbox.id(), &["-screen", "0", "320x200x16"]);
    let err = X11Screen::new(Conn::open(&x.display).unwrap()).unwrap_err();
    assert!(err.to_string().contains("root depth 16"), "{err}");
}

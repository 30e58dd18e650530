//! Pixels: draws the world into BGRX frames, downscales them, and encodes them for the model.
//!
//! Drawing is flat rectangles only, filled a row at a time with slice copies, so a full-screen capture
//! stays cheap in debug builds. Text is a deterministic block pattern per character: any change of a
//! label or value changes pixels, and a password's secret never does (only its bullets are drawn).

use handrail_platform::{EncodedImage, Encoder, Frame, PlatformError, Rect, Size};

use crate::layout::{title_run, widget_runs, Ink, TextRun, BULLET, GLYPH_ADVANCE};
use crate::spec::{WidgetKind, WindowKind};
use crate::world::{WidgetData, WindowData, World, ROW_H, SPINNER_STEP};

type Bgrx = [u8; 4];

const fn rgb(r: u8, g: u8, b: u8) -> Bgrx {
    [b, g, r, 0xFF]
}

const DESKTOP: Bgrx = rgb(0xD4, 0xD4, 0xD4);
const FRAME_EDGE: Bgrx = rgb(0x70, 0x70, 0x70);
const BODY: Bgrx = rgb(0xFF, 0xFF, 0xFF);
const TITLE_ACTIVE: Bgrx = rgb(0x3A, 0x5A, 0x8C);
const TITLE_INACTIVE: Bgrx = rgb(0xB8, 0xC0, 0xCC);
const INK: Bgrx = rgb(0x20, 0x20, 0x20);
const INK_DIM: Bgrx = rgb(0xA8, 0xA8, 0xA8);
const INK_PLACEHOLDER: Bgrx = rgb(0x90, 0x90, 0x90);
const INK_LINK: Bgrx = rgb(0x1A, 0x4F, 0xC4);
const INK_TITLE_INACTIVE: Bgrx = rgb(0x40, 0x40, 0x48);
const CONTROL_EDGE: Bgrx = rgb(0x8A, 0x8A, 0x8A);
const BUTTON: Bgrx = rgb(0xE1, 0xE6, 0xEE);
const BUTTON_DISABLED: Bgrx = rgb(0xF2, 0xF2, 0xF2);
const SELECTION: Bgrx = rgb(0xB4, 0xD5, 0xFE);
const CHECK: Bgrx = rgb(0x30, 0x30, 0x30);
const MENU: Bgrx = rgb(0xE8, 0xE8, 0xE8);
const MENU_ITEM: Bgrx = rgb(0xF4, 0xF4, 0xF4);
const LIST_ITEM: Bgrx = rgb(0xF7, 0xF7, 0xF7);
const SELECTED: Bgrx = rgb(0xC5, 0xDD, 0xF5);
const TAB: Bgrx = rgb(0xDD, 0xDD, 0xDD);
const ACCENT: Bgrx = rgb(0x35, 0x84, 0xE4);
const SPINNER_BG: Bgrx = rgb(0xEE, 0xEE, 0xEE);
const SPINNER_INK: Bgrx = rgb(0x50, 0x50, 0x50);

/// A BGRX buffer covering `area` of the screen; drawing takes screen coordinates.
struct Canvas {
    area: Rect,
    buf: Vec<u8>,
}

impl Canvas {
    fn new(area: Rect) -> Self {
        Self { area, buf: vec![0; area.area() as usize * 4] }
    }

    /// Fills `r ∩ clip`: the first row pixel by pixel, the others by copying it.
    fn fill(&mut self, r: Rect, clip: Rect, colour: Bgrx) {
        let Some(r) = r.intersection(&clip).and_then(|r| r.intersection(&self.area)) else {
            return;
        };
        let width = self.area.width as usize;
        let (x0, y0) = ((r.x - self.area.x) as usize, (r.y - self.area.y) as usize);
        let start = (y0 * width + x0) * 4;
        let len = r.width as usize * 4;
        for px in self.buf[start..start + len].chunks_exact_mut(4) {
            px.copy_from_slice(&colour);
        }
        for row in 1..r.height as usize {
            let dst = ((y0 + row) * width + x0) * 4;
            self.buf.copy_within(start..start + len, dst);
        }
    }

    /// A `t` px border just inside `r`.
    fn outline(&mut self, r: Rect, clip: Rect, t: u32, colour: Bgrx) {
        let t = t.min(r.width / 2).min(r.height / 2);
        self.fill(Rect::new(r.x, r.y, r.width, t), clip, colour);
        self.fill(Rect::new(r.x, r.bottom() as i32 - t as i32, r.width, t), clip, colour);
        self.fill(Rect::new(r.x, r.y, t, r.height), clip, colour);
        self.fill(Rect::new(r.right() as i32 - t as i32, r.y, t, r.height), clip, colour);
    }

    fn text(&mut self, run: &TextRun, clip: Rect, colour: Bgrx) {
        for (i, ch) in run.text.chars().enumerate() {
            let gx = run.rect.x + (i as u32 * GLYPH_ADVANCE) as i32;
            let pattern = glyph(ch);
            for bit in 0..15 {
                if pattern & (1 << bit) != 0 {
                    let (col, row) = (bit % 3, bit / 3);
                    self.fill(Rect::new(gx + col * 2, run.rect.y + row * 2, 2, 2), clip, colour);
                }
            }
        }
    }
}

/// A 3x5 block pattern (bit = col + 3 * row) per character: deterministic, non-empty for anything but
/// whitespace, and different for most pairs of characters.
fn glyph(ch: char) -> u16 {
    if ch.is_whitespace() {
        return 0;
    }
    if ch == BULLET {
        return 0b000_111_111_111_000;
    }
    let mut h = (ch as u32).wrapping_mul(0x9E37_79B1);
    h ^= h >> 15;
    let pattern = (h & 0x7FFF) as u16;
    if pattern == 0 {
        0x2AAA
    } else {
        pattern
    }
}

fn inset(r: Rect, n: u32) -> Rect {
    Rect::new(r.x + n as i32, r.y + n as i32, r.width.saturating_sub(2 * n), r.height.saturating_sub(2 * n))
}

fn ink(ink: Ink) -> Bgrx {
    match ink {
        Ink::Normal => INK,
        Ink::Dim => INK_DIM,
        Ink::Placeholder => INK_PLACEHOLDER,
        Ink::Link => INK_LINK,
        Ink::TitleActive => BODY,
        Ink::TitleInactive => INK_TITLE_INACTIVE,
    }
}

/// Draws `area` of the screen as the world looks now.
fn render(world: &World, area: Rect) -> Vec<u8> {
    let mut c = Canvas::new(area);
    c.fill(area, area, DESKTOP);
    let front = world.front_window();
    let focused = world.focused();
    let step = SPINNER_STEP.as_millis().max(1);
    let phase = (world.now.as_millis() / step % 8) as usize;
    for win in world.open_windows() {
        if win.bounds.intersects(&area) {
            draw_window(&mut c, world, win, front == Some(win.id), focused, phase);
        }
    }
    c.buf
}

fn draw_window(
    c: &mut Canvas,
    world: &World,
    win: &WindowData,
    front: bool,
    focused: Option<crate::WidgetId>,
    phase: usize,
) {
    let b = win.bounds;
    c.fill(b, b, FRAME_EDGE);
    c.fill(inset(b, 1), b, BODY);
    if let Some(bar) = win.title_bar() {
        let active = front || win.kind == WindowKind::Popup;
        c.fill(bar, b, if active { TITLE_ACTIVE } else { TITLE_INACTIVE });
        let style = if active { Ink::TitleActive } else { Ink::TitleInactive };
        if let Some(run) = title_run(&win.title, bar, style) {
            c.text(&run, bar, ink(run.ink));
        }
    }
    let content = win.content();
    for id in &win.widgets {
        let Some(d) = world.widget(*id) else { continue };
        if d.w.visible {
            draw_widget(c, d, content, focused == Some(*id), phase);
        }
    }
}

fn draw_widget(c: &mut Canvas, d: &WidgetData, content: Rect, focused: bool, phase: usize) {
    let b = d.bounds();
    let clip = b.clamped_to(&content);
    if clip.is_empty() {
        return;
    }
    let runs = widget_runs(d);
    match d.kind() {
        WidgetKind::Button => {
            c.fill(b, clip, CONTROL_EDGE);
            c.fill(inset(b, 1), clip, if d.w.enabled { BUTTON } else { BUTTON_DISABLED });
        }
        WidgetKind::Entry | WidgetKind::PasswordEntry | WidgetKind::TextArea | WidgetKind::Terminal => {
            c.fill(b, clip, CONTROL_EDGE);
            c.fill(inset(b, 1), clip, BODY);
            if d.select_all {
                for run in &runs {
                    c.fill(run.rect, clip, SELECTION);
                }
            }
        }
        WidgetKind::Checkbox => {
            let mark = Rect::new(b.x + 2, b.y + (b.height as i32 - 14) / 2, 14, 14);
            c.fill(mark, clip, CHECK);
            c.fill(inset(mark, 1), clip, BODY);
            if d.w.checked {
                c.fill(inset(mark, 3), clip, CHECK);
            }
        }
        WidgetKind::Menu => c.fill(b, clip, MENU),
        WidgetKind::MenuItem => c.fill(b, clip, MENU_ITEM),
        WidgetKind::ListItem => c.fill(b, clip, if d.w.selected { SELECTED } else { LIST_ITEM }),
        WidgetKind::Tab => {
            c.fill(b, clip, if d.w.selected { BODY } else { TAB });
            if d.w.selected {
                c.fill(Rect::new(b.x, b.y, b.width, 2), clip, ACCENT);
            }
        }
        WidgetKind::Spinner => {
            c.fill(b, clip, SPINNER_BG);
            // One of the eight cells around the centre is lit, walking round as time passes.
            const RING: [(u32, u32); 8] = [(0, 0), (1, 0), (2, 0), (2, 1), (2, 2), (1, 2), (0, 2), (0, 1)];
            let (cw, ch) = (b.width / 3, b.height / 3);
            let (col, row) = RING[phase % 8];
            c.fill(Rect::new(b.x + (col * cw) as i32, b.y + (row * ch) as i32, cw, ch), clip, SPINNER_INK);
        }
        WidgetKind::List => {
            c.fill(b, clip, CONTROL_EDGE);
            c.fill(inset(b, 1), clip, BODY);
            if let Some(row) = d.selected_row.filter(|r| *r >= d.offset && *r < d.offset + d.visible_rows()) {
                let y = b.y + ((row - d.offset) as u32 * ROW_H) as i32;
                c.fill(inset(Rect::new(b.x, y, b.width, ROW_H), 1), clip, SELECTED);
            }
        }
        WidgetKind::Text | WidgetKind::Link => {}
    }
    for run in &runs {
        c.text(run, clip, ink(run.ink));
        if run.ink == Ink::Link {
            c.fill(Rect::new(run.rect.x, run.rect.bottom() as i32 + 1, run.rect.width, 1), clip, INK_LINK);
        }
    }
    if focused {
        c.outline(b, clip, 2, ACCENT);
    }
}

/// Captures `area` (the whole screen when `None`), downscaled to fit `max_size`.
pub(crate) fn capture(world: &World, area: Option<Rect>, max_size: Option<Size>) -> Result<Frame, PlatformError> {
    let screen = Rect::from_size(world.screen);
    let area = match area {
        Some(a) => a.intersection(&screen).ok_or_else(|| {
            PlatformError::Invalid(format!("capture area {a} is outside the {} screen", world.screen))
        })?,
        None if screen.is_empty() => return Err(PlatformError::Invalid("the screen is empty".into())),
        None => screen,
    };
    let full = Size::new(area.width, area.height);
    let size = match max_size {
        Some(m) if m.width == 0 || m.height == 0 => {
            return Err(PlatformError::Invalid(format!("max_size {m} is empty")));
        }
        Some(m) => full.fit_within(m),
        None => full,
    };
    let drawn = render(world, area);
    let pixels = if size == full { drawn } else { downscale(&drawn, full.width as usize * 4, full, size) };
    Ok(Frame { size, screen: world.screen, stride: size.width as usize * 4, pixels, origin: area })
}

/// Box-filter downscale of a BGRX image (every source pixel counts, so small changes survive).
/// `to` must not be larger than `from` on either side.
pub(crate) fn downscale(src: &[u8], stride: usize, from: Size, to: Size) -> Vec<u8> {
    let (sw, sh) = (from.width as usize, from.height as usize);
    let (dw, dh) = (to.width as usize, to.height as usize);
    let span = |s: usize, d: usize, i: usize| {
        let a = i * s / d;
        (a, ((i + 1) * s / d).clamp(a + 1, s))
    };
    let columns: Vec<(usize, usize)> = (0..dw).map(|x| span(sw, dw, x)).collect();
    let mut out = vec![0xFF; dw * dh * 4];
    let mut sums = vec![0u32; dw * 3];
    for dy in 0..dh {
        let (y0, y1) = span(sh, dh, dy);
        sums.fill(0);
        for sy in y0..y1 {
            let row = &src[sy * stride..sy * stride + sw * 4];
            for (sum, &(x0, x1)) in sums.chunks_exact_mut(3).zip(&columns) {
                for px in row[x0 * 4..x1 * 4].chunks_exact(4) {
                    sum[0] += u32::from(px[0]);
                    sum[1] += u32::from(px[1]);
                    sum[2] += u32::from(px[2]);
                }
            }
        }
        let out_row = &mut out[dy * dw * 4..(dy + 1) * dw * 4];
        for ((px, sum), &(x0, x1)) in out_row.chunks_exact_mut(4).zip(sums.chunks_exact(3)).zip(&columns) {
            let n = ((y1 - y0) * (x1 - x0)) as u32;
            px[0] = (sum[0] / n) as u8;
            px[1] = (sum[1] / n) as u8;
            px[2] = (sum[2] / n) as u8;
        }
    }
    out
}

/// A content hash of a frame (geometry and visible pixels), to recognise frames this sim captured.
///
/// Every capture and every OCR call hashes a whole frame, so the pixels go through four independent
/// lanes (one multiply chain was a quarter of a simulated test's time).
pub(crate) fn frame_key(frame: &Frame) -> u64 {
    const SEEDS: [u64; LANES] =
        [0xCBF2_9CE4_8422_2325, 0x9E37_79B9_7F4A_7C15, 0xC2B2_AE3D_27D4_EB4F, 0x1656_67B1_9E37_79F9];
    const LANES: usize = 4;
    fn mix(h: u64, v: u64) -> u64 {
        (h.rotate_left(5) ^ v).wrapping_mul(0x517C_C1B7_2722_0A95)
    }
    let word = |w: &[u8]| u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
    let mut lanes = SEEDS;
    for y in 0..frame.size.height {
        let row = frame.row(y);
        let mut blocks = row.chunks_exact(8 * LANES);
        for block in &mut blocks {
            for (lane, w) in lanes.iter_mut().zip(block.chunks_exact(8)) {
                *lane = mix(*lane, word(w));
            }
        }
        // Row ends go to lane 0 with the row's length, so a pixel moved across a row end changes the key.
        let rest = blocks.remainder();
        let mut words = rest.chunks_exact(8);
        for w in &mut words {
            lanes[0] = mix(lanes[0], word(w));
        }
        for b in words.remainder() {
            lanes[0] = mix(lanes[0], u64::from(*b));
        }
        lanes[0] = mix(lanes[0], row.len() as u64);
    }
    let o = frame.origin;
    let mut h = lanes.iter().fold(0, |h, lane| mix(h, *lane));
    h = mix(h, u64::from(frame.size.width) << 32 | u64::from(frame.size.height));
    h = mix(h, u64::from(o.x as u32) << 32 | u64::from(o.y as u32));
    mix(h, u64::from(o.width) << 32 | u64::from(o.height))
}

/// Encodes frames as binary greyscale PGM (`P5`): cheap, dependency free, and enough for tests that
/// only need bytes standing in for an image.
#[derive(Debug, Clone, Copy, Default)]
pub struct PgmEncoder {
    max: Option<Size>,
}

impl PgmEncoder {
    /// Encodes at the frame's own size, so the image matches the screenshot space.
    pub fn new() -> Self {
        Self::default()
    }

    /// Downscales first so the image fits inside `max`.
    pub fn fit_within(max: Size) -> Self {
        Self { max: Some(max) }
    }
}

impl Encoder for PgmEncoder {
    fn encode(&self, frame: &Frame) -> Result<EncodedImage, PlatformError> {
        if !frame.is_consistent() {
            return Err(PlatformError::Invalid("frame buffer is smaller than its declared size".into()));
        }
        let size = match self.max {
            Some(m) if m.width > 0 && m.height > 0 => frame.size.fit_within(m),
            _ => frame.size,
        };
        let (pixels, stride) = if size == frame.size {
            (None, frame.stride)
        } else {
            (Some(downscale(&frame.pixels, frame.stride, frame.size, size)), size.width as usize * 4)
        };
        let src = pixels.as_deref().unwrap_or(&frame.pixels);
        let mut bytes = format!("P5\n{} {}\n255\n", size.width, size.height).into_bytes();
        bytes.reserve(size.area() as usize);
        for y in 0..size.height as usize {
            let row = &src[y * stride..y * stride + size.width as usize * 4];
            let start = bytes.len();
            bytes.resize(start + size.width as usize, 0);
            handrail_imaging::luma_row(row, &mut bytes[start..]);
        }
        Ok(EncodedImage { mime: "image/x-portable-graymap", size, bytes })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(size: Size, pixels: Vec<u8>) -> Frame {
        Frame { size, screen: size, stride: size.width as usize * 4, pixels, origin: Rect::from_size(size) }
    }

    #[test]
    fn a_frame_key_changes_with_any_one_byte_and_with_the_geometry() {
        // 13 pixels a row: whole lane blocks, whole words and single bytes at each row's end.
        let size = Size::new(13, 3);
        let base: Vec<u8> = (0..13 * 3 * 4).map(|i| (i * 7 % 251) as u8).collect();
        let key = frame_key(&frame(size, base.clone()));
        assert_eq!(key, frame_key(&frame(size, base.clone())), "the same pixels, the same key");
        for i in 0..base.len() {
            let mut changed = base.clone();
            changed[i] ^= 1;
            assert_ne!(frame_key(&frame(size, changed)), key, "byte {i} changed");
        }
        let mut moved = frame(size, base.clone());
        moved.origin = Rect::new(1, 0, 13, 3);
        assert_ne!(frame_key(&moved), key, "the same pixels from elsewhere on the screen");
        assert_ne!(frame_key(&frame(Size::new(39, 1), base)), key, "the same bytes in another shape");
    }
}

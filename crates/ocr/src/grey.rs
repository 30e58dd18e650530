//! Greyscale images: what Tesseract reads and what the change detector hashes.
//!
//! Tesseract binarises a single luminance channel internally, so handing it one byte a pixel costs nothing
//! in recall, and it is a quarter of the bytes to copy (and to upscale) compared with BGRX.

use handrail_platform::{Frame, Rect};

/// An 8-bit greyscale image, rows `width` bytes apart.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct GreyImage {
    pub width: u32,
    pub height: u32,
    pub data: Vec<u8>,
}

impl std::fmt::Debug for GreyImage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "GreyImage({}x{})", self.width, self.height)
    }
}

impl GreyImage {
    /// Luminance of `area` of the frame (clamped to it), read straight from the frame's rows; `None`
    /// when nothing of it is inside. Rows the buffer does not hold read as black (callers validate the
    /// frame first, so that only matters for frames changed in between).
    pub(crate) fn from_area(frame: &Frame, area: Rect) -> Option<GreyImage> {
        let r = area.intersection(&Rect::from_size(frame.size))?;
        // Inside the frame: non-negative and not empty.
        let (x, y, w, h) = (r.x as usize, r.y as usize, r.width as usize, r.height as usize);
        let mut data = vec![0u8; w * h];
        for (row, dst) in data.chunks_exact_mut(w).enumerate() {
            let start = (y + row).saturating_mul(frame.stride).saturating_add(x * 4);
            if let Some(src) = start.checked_add(w * 4).and_then(|end| frame.pixels.get(start..end)) {
                handrail_imaging::luma_row(src, dst);
            }
        }
        Some(GreyImage { width: r.width, height: r.height, data })
    }

    pub(crate) fn bounds(&self) -> Rect {
        Rect::new(0, 0, self.width, self.height)
    }

    /// The row in `from..to` (clamped) with the fewest dark pixels (< 128), the one nearest `near` on ties.
    pub(crate) fn quietest_row(&self, from: u32, to: u32, near: u32) -> u32 {
        let w = self.width as usize;
        let to = to.min(self.height);
        let mut best = (usize::MAX, u32::MAX, near.min(self.height));
        for y in from..to {
            let row = &self.data[y as usize * w..(y as usize + 1) * w];
            let ink = row.iter().filter(|&&p| p < 128).count();
            let key = (ink, y.abs_diff(near), y);
            if (key.0, key.1) < (best.0, best.1) {
                best = key;
            }
        }
        best.2
    }

    /// A copy of `rect` (clamped to the image); an empty image when nothing of it is inside.
    pub(crate) fn crop(&self, rect: Rect) -> GreyImage {
        let Some(r) = rect.intersection(&self.bounds()) else {
            return GreyImage { width: 0, height: 0, data: Vec::new() };
        };
        let (x, y, w, h) = (r.x as usize, r.y as usize, r.width as usize, r.height as usize);
        let stride = self.width as usize;
        let mut data = Vec::with_capacity(w * h);
        for row in y..y + h {
            data.extend_from_slice(&self.data[row * stride + x..row * stride + x + w]);
        }
        GreyImage { width: r.width, height: r.height, data }
    }

    /// Paints `rect` (clamped) with one flat value, so Tesseract finds nothing there to read.
    pub(crate) fn fill(&mut self, rect: Rect, value: u8) {
        let Some(r) = rect.intersection(&self.bounds()) else {
            return;
        };
        let stride = self.width as usize;
        for row in r.y as usize..r.y as usize + r.height as usize {
            self.data[row * stride + r.x as usize..][..r.width as usize].fill(value);
        }
    }

    /// Mean of the pixels on `rect`'s outline (clamped): the colour a region blends into when filled.
    pub(crate) fn outline_mean(&self, rect: Rect) -> u8 {
        let Some(r) = rect.intersection(&self.bounds()) else {
            return 255;
        };
        let stride = self.width as usize;
        let (x0, y0) = (r.x as usize, r.y as usize);
        let (x1, y1) = (x0 + r.width as usize - 1, y0 + r.height as usize - 1);
        let mut sum = 0u64;
        let mut n = 0u64;
        for x in x0..=x1 {
            sum += u64::from(self.data[y0 * stride + x]) + u64::from(self.data[y1 * stride + x]);
            n += 2;
        }
        for y in y0..=y1 {
            sum += u64::from(self.data[y * stride + x0]) + u64::from(self.data[y * stride + x1]);
            n += 2;
        }
        (sum / n.max(1)) as u8
    }

    /// Twice the size with bilinear interpolation (pixel centres aligned, edges clamped): each output
    /// pixel is 3/4 of its nearest source pixel and 1/4 of the next one along each axis.
    pub(crate) fn upscale2(&self) -> GreyImage {
        let (w, h) = (self.width as usize, self.height as usize);
        if w == 0 || h == 0 {
            return GreyImage { width: self.width * 2, height: self.height * 2, data: vec![0; w * h * 4] };
        }
        let ow = w * 2;
        // Horizontal pass into u16 rows scaled by 4, then the vertical pass divides by 16.
        let mut wide = vec![0u16; ow * h];
        for (src, dst) in self.data.chunks_exact(w).zip(wide.chunks_exact_mut(ow)) {
            for x in 0..w {
                let c = u16::from(src[x]) * 3;
                let left = u16::from(src[x.saturating_sub(1)]);
                let right = u16::from(src[(x + 1).min(w - 1)]);
                dst[2 * x] = c + left;
                dst[2 * x + 1] = c + right;
            }
        }
        let mut data = vec![0u8; ow * h * 2];
        for y in 0..h {
            let cur = &wide[y * ow..][..ow];
            let up = &wide[y.saturating_sub(1) * ow..][..ow];
            let down = &wide[(y + 1).min(h - 1) * ow..][..ow];
            let (top, bottom) = data[2 * y * ow..][..2 * ow].split_at_mut(ow);
            for x in 0..ow {
                let c = u32::from(cur[x]) * 3;
                top[x] = ((c + u32::from(up[x]) + 8) >> 4) as u8;
                bottom[x] = ((c + u32::from(down[x]) + 8) >> 4) as u8;
            }
        }
        GreyImage { width: self.width * 2, height: self.height * 2, data }
    }

    /// Bilinear upscale by an integer `factor` (pixel centres aligned, edges clamped); 2 takes the fast
    /// path of [`GreyImage::upscale2`], 0 and 1 copy.
    pub(crate) fn upscale(&self, factor: u32) -> GreyImage {
        match factor {
            0 | 1 => return self.clone(),
            2 => return self.upscale2(),
            _ => {}
        }
        let (w, h) = (self.width as usize, self.height as usize);
        let (ow, oh) = (w * factor as usize, h * factor as usize);
        if w == 0 || h == 0 {
            return GreyImage { width: ow as u32, height: oh as u32, data: vec![0; ow * oh] };
        }
        // For each output coordinate: the two source samples around its centre and the weight (of 256)
        // of the second one.
        let taps = |n: usize, out: usize| -> Vec<(usize, usize, u32)> {
            let f = i64::from(factor);
            (0..out as i64)
                .map(|d| {
                    // Source position of the output centre, in 1/(2f) units: (2d + 1 - f) / 2f.
                    let num = 2 * d + 1 - f;
                    let i0 = num.div_euclid(2 * f);
                    let frac = ((num.rem_euclid(2 * f) * 256 + f) / (2 * f)) as u32;
                    let clamp = |i: i64| i.clamp(0, n as i64 - 1) as usize;
                    (clamp(i0), clamp(i0 + 1), frac)
                })
                .collect()
        };
        let xs = taps(w, ow);
        let ys = taps(h, oh);
        let mut wide = vec![0u32; ow * h];
        for (src, dst) in self.data.chunks_exact(w).zip(wide.chunks_exact_mut(ow)) {
            for (d, &(a, b, t)) in dst.iter_mut().zip(&xs) {
                *d = u32::from(src[a]) * (256 - t) + u32::from(src[b]) * t;
            }
        }
        let mut data = vec![0u8; ow * oh];
        for (row, &(a, b, t)) in data.chunks_exact_mut(ow).zip(&ys) {
            let (up, down) = (&wide[a * ow..][..ow], &wide[b * ow..][..ow]);
            for x in 0..ow {
                row[x] = ((up[x] * (256 - t) + down[x] * t + (1 << 15)) >> 16) as u8;
            }
        }
        GreyImage { width: ow as u32, height: oh as u32, data }
    }
}

/// Side of a background-estimation cell.
pub(crate) const CELL: usize = 16;
/// A cell's background is its own most common grey level (±[`BG_TOLERANCE`]) when that covers this
/// fraction of it...
const OWN_COVERAGE: f32 = 0.6;
/// ...else the most common level of the 3x3 cells around it, trusted when it covers this fraction.
const BG_COVERAGE: f32 = 0.4;
const BG_TOLERANCE: usize = 2;

/// Contrast against the background below this is not ink: noise, gradients, and the faint frames of
/// buttons, fields and progress troughs (a GTK button border is 50 levels off its face). Left grey, they
/// box text in for Tesseract and stretch its word boxes over them.
const INK_KNEE: u32 = 56;

/// Grey level for a pixel `d` levels off its background: white up to [`INK_KNEE`], then four levels
/// darker per level — steep, so the result is nearly two-tone and Tesseract's global threshold cannot
/// land on a faint structure (disabled text, ~100 off, still ends up dark: 79).
#[inline]
fn ink(d: u32) -> u8 {
    255 - (d.saturating_sub(INK_KNEE) * 4).min(255) as u8
}

/// The most common level of `hist` (within the densest window of ±[`BG_TOLERANCE`] levels) when that
/// window holds at least `coverage` of all pixels.
fn dominant(hist: &[u32; 256], coverage: f32) -> Option<u8> {
    let total: u32 = hist.iter().sum();
    let mut window: u32 = hist[..=2 * BG_TOLERANCE].iter().sum();
    let (mut best, mut best_at) = (window, BG_TOLERANCE);
    for centre in BG_TOLERANCE + 1..256 - BG_TOLERANCE {
        window = window + hist[centre + BG_TOLERANCE] - hist[centre - BG_TOLERANCE - 1];
        if window > best {
            (best, best_at) = (window, centre);
        }
    }
    if total == 0 || (best as f32) < coverage * total as f32 {
        return None;
    }
    // The most common level inside that window (the first on ties).
    let lo = best_at - BG_TOLERANCE;
    Some((lo..=best_at + BG_TOLERANCE).fold(lo, |m, l| if hist[l] > hist[m] { l } else { m }) as u8)
}

impl GreyImage {
    /// Flattens every flat background to white and turns what stands out of it into dark ink, whichever
    /// the polarity: `out = ink(|p - background|)`, per 16x16 cell with the background taken
    /// from the 48x48 neighbourhood. Cells without a dominant level (photos, gradients) are left alone.
    ///
    /// Why: Tesseract binarises with one global (Otsu) threshold. On a screen the two largest modes are
    /// usually two background greys (desktop and window), not background and ink, so a crop with little
    /// text (a dialog on an empty desktop, a band or a changed region) can come out as black slabs with the
    /// text lost in them; light text on dark bars (selected rows, dark themes) is also only read this way.
    pub(crate) fn normalize_background(&mut self) {
        let (w, h) = (self.width as usize, self.height as usize);
        if w == 0 || h == 0 {
            return;
        }
        let (cols, rows) = (w.div_ceil(CELL), h.div_ceil(CELL));
        let mut hists = vec![[0u32; 256]; cols * rows];
        for (y, row) in self.data.chunks_exact(w).enumerate() {
            let base = (y / CELL) * cols;
            for (x, &p) in row.iter().enumerate() {
                hists[base + x / CELL][p as usize] += 1;
            }
        }
        // Background of each cell (None: no dominant level): its own dominant level when that covers most
        // of it (a cell inside a selected row or a toolbar has its own background), else the dominant
        // level of the 3x3 cells around it (a cell full of text has none of its own).
        let mut bg: Vec<Option<u8>> = vec![None; cols * rows];
        let mut sum = [0u32; 256];
        for r in 0..rows {
            for c in 0..cols {
                if let Some(own) = dominant(&hists[r * cols + c], OWN_COVERAGE) {
                    bg[r * cols + c] = Some(own);
                    continue;
                }
                sum.fill(0);
                for rr in r.saturating_sub(1)..(r + 2).min(rows) {
                    for cc in c.saturating_sub(1)..(c + 2).min(cols) {
                        for (s, v) in sum.iter_mut().zip(hists[rr * cols + cc].iter()) {
                            *s += v;
                        }
                    }
                }
                bg[r * cols + c] = dominant(&sum, BG_COVERAGE);
            }
        }
        // A cell split between two flat regions (a banner or a selected row thinner than a cell, or
        // straddling two) has two backgrounds: there each row takes the one of its own stretch (three
        // cells wide), so the text on the banner is ink against the banner, not holes in a dark slab.
        // Both levels must fill a whole row of the cell's stretch somewhere (a banner's margin, the
        // window beside it): the flat ink of large text never does.
        let mixed: Vec<Option<(u8, u8)>> = hists
            .iter()
            .enumerate()
            .map(|(i, hist)| {
                let (r, c) = (i / cols, i % cols);
                let (a, b) = two_flat_levels(hist)?;
                let (x0, x1) = ((c * CELL).saturating_sub(CELL), ((c + 2) * CELL).min(w));
                let fills = |level: u8| {
                    (r * CELL..((r + 1) * CELL).min(h)).any(|y| {
                        let stretch = &self.data[y * w + x0..y * w + x1];
                        let near = stretch.iter().filter(|&&p| usize::from(p.abs_diff(level)) <= BG_TOLERANCE).count();
                        near * 20 >= stretch.len() * 19
                    })
                };
                (fills(a) && fills(b)).then_some((a, b))
            })
            .collect();
        let mut row_bg: Vec<Option<u8>> = vec![None; cols];
        for y in 0..h {
            let base = (y / CELL) * cols;
            let row = &self.data[y * w..(y + 1) * w];
            for c in 0..cols {
                // Of the cell's two levels, the one more of this row's stretch is near.
                row_bg[c] = mixed[base + c].map(|(a, b)| {
                    let stretch = &row[(c * CELL).saturating_sub(CELL)..((c + 2) * CELL).min(w)];
                    let near = |l: u8| stretch.iter().filter(|&&p| usize::from(p.abs_diff(l)) <= BG_TOLERANCE).count();
                    if near(b) > near(a) {
                        b
                    } else {
                        a
                    }
                });
            }
            let row = &mut self.data[y * w..(y + 1) * w];
            for (x, p) in row.iter_mut().enumerate() {
                if let Some(b) = row_bg[x / CELL].or(bg[base + x / CELL]) {
                    *p = ink(u32::from((*p).abs_diff(b)));
                }
            }
        }
    }
}

/// Each of a mixed cell's two flat levels covers at least this much of it.
const MIXED_SHARE: f32 = 0.15;

/// The two flat levels of a cell that holds two far apart, each covering a good part of it: it straddles the
/// edge of a banner, a bar or a selected row. (Text on one background is anti-aliased over many levels:
/// its ink rarely makes a second flat level that large.)
fn two_flat_levels(hist: &[u32; 256]) -> Option<(u8, u8)> {
    let total: u32 = hist.iter().sum();
    if total == 0 {
        return None;
    }
    // Pixels within ±BG_TOLERANCE of each level, from running sums.
    let mut below = [0u32; 257];
    for (l, &n) in hist.iter().enumerate() {
        below[l + 1] = below[l] + n;
    }
    let window =
        |centre: usize| below[(centre + BG_TOLERANCE + 1).min(256)] - below[centre.saturating_sub(BG_TOLERANCE)];
    let first = (0..256).max_by_key(|&l| (window(l), std::cmp::Reverse(l))).unwrap_or(0);
    let far = |l: usize| l.abs_diff(first) as u32 > INK_KNEE;
    let second = (0..256).filter(|&l| far(l)).max_by_key(|&l| window(l));
    let share = |l: usize| window(l) as f32 / total as f32;
    let second = second.filter(|&s| share(first) >= MIXED_SHARE && share(s) >= MIXED_SHARE)?;
    Some((first as u8, second as u8))
}

/// Dark runs at least this long (pixels) are lines, bars and slabs, not strokes of text.
pub(crate) const LONG_RUN: usize = 48;
/// Pixels darker than this make up a run (lighter ones Tesseract's threshold treats as paper).
const RUN_DARK: u8 = 200;
/// Pixels around an erased run that go with it.
const ERASE_MARGIN: usize = 2;

impl GreyImage {
    /// Whitens horizontal and vertical runs of darkish pixels (< 200) at least `min_len` long: window borders,
    /// separators, underlines, progress bars, dark title bars. Run after [`GreyImage::normalize_background`].
    ///
    /// Why: Tesseract's page layout takes text enclosed by such structures — or next to a slab the crop
    /// edge cut through — for part of an image and skips it (a band starting inside a dialog's title bar
    /// lost the whole dialog). Letters have no straight stroke that long at UI sizes.
    pub(crate) fn erase_long_runs(&mut self, min_len: usize) {
        let (w, h) = (self.width as usize, self.height as usize);
        if w == 0 || h == 0 || min_len == 0 {
            return;
        }
        // Marked first and erased after, so a horizontal line's pixels still count for the vertical pass.
        let mut erase = vec![false; w * h];
        // Grey counts: a bar's anti-aliased edge or a mid-grey rule left behind reads as ink to Tesseract.
        let dark = |p: u8| p < RUN_DARK;
        for y in 0..h {
            let row = &self.data[y * w..(y + 1) * w];
            let mut x = 0;
            while x < w {
                if !dark(row[x]) {
                    x += 1;
                    continue;
                }
                let start = x;
                while x < w && dark(row[x]) {
                    x += 1;
                }
                if x - start >= min_len {
                    erase[y * w + start..y * w + x].fill(true);
                }
            }
        }
        for x in 0..w {
            let mut y = 0;
            while y < h {
                if !dark(self.data[y * w + x]) {
                    y += 1;
                    continue;
                }
                let start = y;
                while y < h && dark(self.data[y * w + x]) {
                    y += 1;
                }
                if y - start >= min_len {
                    for yy in start..y {
                        erase[yy * w + x] = true;
                    }
                }
            }
        }
        // Grow the marks by ERASE_MARGIN: the rounded ends and anti-aliased edges of a bar would otherwise
        // stay behind as specks that Tesseract adds to the nearest word's box.
        let m = ERASE_MARGIN;
        let mut grown = vec![false; w * h];
        for y in 0..h {
            let row = &erase[y * w..(y + 1) * w];
            let mut last: Option<usize> = None; // last marked x seen
            for x in 0..w + m {
                if x < w && row[x] {
                    last = Some(x);
                }
                let next_marked = (x..(x + m + 1).min(w)).any(|xx| row[xx]);
                if last.is_some_and(|l| x < w && x <= l + m) || (x < w && next_marked) {
                    grown[y * w + x] = true;
                }
            }
        }
        for (y, row) in self.data.chunks_exact_mut(w).enumerate() {
            for (x, p) in row.iter_mut().enumerate() {
                let near = (y.saturating_sub(m)..(y + m + 1).min(h)).any(|yy| grown[yy * w + x]);
                if near {
                    *p = 255;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use handrail_platform::Size;

    #[test]
    fn from_area_tolerates_short_buffers() {
        let mut f = Frame::solid(Size::new(4, 3), [255, 255, 255, 0]);
        f.pixels.truncate(4 * 4 + 5);
        let g = GreyImage::from_area(&f, Rect::new(0, 0, 4, 3)).expect("inside");
        assert_eq!(g.data.len(), 12);
        assert_eq!(&g.data[..4], &[255; 4]);
        assert_eq!(&g.data[4..], &[0; 8]);
    }

    proptest::proptest! {
        /// Each grey pixel is the luma of the frame pixel under it, for any area and row padding.
        #[test]
        fn from_area_reads_each_pixel_of_the_area(
            (width, height) in (1u32..24, 1u32..24),
            padding in 0usize..3,
            (x, y, w, h) in (-8i32..30, -8i32..30, 0u32..30, 0u32..30),
            seed in proptest::prelude::any::<u32>(),
        ) {
            let size = Size::new(width, height);
            let stride = width as usize * 4 + padding * 4;
            let pixels = (0..stride * height as usize).map(|i| (i as u32).wrapping_mul(2_654_435_761) ^ seed).map(|v| (v >> 13) as u8).collect();
            let frame = Frame { size, screen: size, stride, pixels, origin: Rect::from_size(size) };
            let area = Rect::new(x, y, w, h);
            let grey = GreyImage::from_area(&frame, area);
            let Some(inside) = area.intersection(&Rect::from_size(size)) else {
                proptest::prop_assert!(grey.is_none());
                return Ok(());
            };
            let grey = grey.expect("an area inside the frame gives an image");
            proptest::prop_assert_eq!((grey.width, grey.height), (inside.width, inside.height));
            for gy in 0..inside.height {
                for gx in 0..inside.width {
                    let i = (inside.y as u32 + gy) as usize * stride + (inside.x as u32 + gx) as usize * 4;
                    let px = &frame.pixels[i..i + 3];
                    let want = handrail_imaging::luma(px[0], px[1], px[2]);
                    proptest::prop_assert_eq!(grey.data[(gy * inside.width + gx) as usize], want);
                }
            }
        }
    }

    #[test]
    fn upscale_keeps_flat_areas_and_doubles_size() {
        let g = GreyImage { width: 3, height: 2, data: vec![10, 10, 10, 200, 200, 200] };
        let u = g.upscale2();
        assert_eq!((u.width, u.height), (6, 4));
        assert_eq!(&u.data[..6], &[10; 6]);
        assert_eq!(&u.data[18..], &[200; 6]);
        // Rows between the two source rows blend 3:1.
        assert_eq!(u.data[6], ((10 * 3 * 4 + 200 * 4 + 8) >> 4) as u8);
    }

    #[test]
    fn upscale_by_three_keeps_flat_areas_and_blends_edges() {
        let g = GreyImage { width: 2, height: 1, data: vec![0, 240] };
        let u = g.upscale(3);
        assert_eq!((u.width, u.height), (6, 3));
        // Each output column's centre lies a third of a pixel either side of the source centres.
        assert_eq!(&u.data[..6], &[0, 0, 80, 160, 240, 240]);
        assert_eq!(&u.data[6..12], &u.data[..6]);
        assert_eq!(g.upscale(2), g.upscale2());
        assert_eq!(g.upscale(1), g);
        let flat = GreyImage { width: 5, height: 4, data: vec![77; 20] };
        assert!(flat.upscale(4).data.iter().all(|&p| p == 77));
        assert_eq!(GreyImage { width: 0, height: 3, data: vec![] }.upscale(3).data.len(), 0);
    }

    #[test]
    fn background_normalisation_whitens_backgrounds_and_darkens_ink_of_either_polarity() {
        // Left half: black ink on a light grey desktop; right half: white ink on a blue-ish (grey 120) bar.
        let (w, h) = (96u32, 48u32);
        let mut data = vec![0u8; (w * h) as usize];
        for y in 0..h as usize {
            for x in 0..w as usize {
                let ink = (20..28).contains(&y) && x % 8 < 3;
                data[y * w as usize + x] = match (x < 48, ink) {
                    (true, false) => 224,
                    (true, true) => 0,
                    (false, false) => 120,
                    (false, true) => 255,
                };
            }
        }
        let mut g = GreyImage { width: w, height: h, data };
        g.normalize_background();
        let at = |x: usize, y: usize| g.data[y * w as usize + x];
        assert_eq!((at(5, 5), at(90, 40)), (255, 255), "backgrounds become white");
        assert_eq!(at(8, 22), 0, "dark ink stays dark");
        assert_eq!(at(88, 22), 0, "light ink on a dark bar becomes dark");
        assert_eq!((ink(0), ink(56), ink(60), ink(100), ink(200)), (255, 255, 239, 79, 0));
    }

    #[test]
    fn light_text_on_a_banner_thinner_than_a_cell_becomes_dark_ink_on_white() {
        // A 14 px crimson (grey 84) banner from y 24 to 37 across a light window (245), half in one row
        // of cells and half in the next, with light text (245) in its middle rows: as Mousepad's warning
        // bar draws it. Neither row of cells has the banner as its background.
        let (w, h) = (160usize, 64usize);
        let mut data = vec![245u8; w * h];
        for y in 24..38 {
            for x in 0..w {
                let text = (27..35).contains(&y) && (20..140).contains(&x) && x % 6 < 2;
                data[y * w + x] = if text { 245 } else { 84 };
            }
        }
        let mut g = GreyImage { width: w as u32, height: h as u32, data };
        // As a piece is prepared.
        g.normalize_background();
        g.erase_long_runs(LONG_RUN);
        let at = |x: usize, y: usize| g.data[y * w + x];
        for x in (20..140).filter(|x| x % 6 < 2) {
            for y in 27..35 {
                assert_eq!(at(x, y), 0, "text at {x},{y} is dark ink");
            }
        }
        for (x, y) in [(23, 30), (50, 25), (100, 36), (5, 10), (5, 50), (150, 31)] {
            assert_eq!(at(x, y), 255, "background at {x},{y} is white");
        }
    }

    #[test]
    fn long_runs_are_erased_and_strokes_kept() {
        let (w, h) = (100usize, 60usize);
        let mut data = vec![255u8; w * h];
        data[5 * w..5 * w + 90].fill(0); // a 90 px border line
        for y in 10..58 {
            data[y * w + 95] = 10; // a 48 px vertical line
        }
        data[30 * w + 10..30 * w + 20].fill(0); // a 10 px stroke
        data[6 * w + 91] = 0; // the bar's rounded end, next to it
        let mut g = GreyImage { width: w as u32, height: h as u32, data };
        g.erase_long_runs(LONG_RUN);
        assert!(g.data[5 * w..5 * w + 90].iter().all(|&p| p == 255));
        assert_eq!(g.data[6 * w + 91], 255);
        assert_eq!(g.data[20 * w + 95], 255);
        assert!(g.data[30 * w + 10..30 * w + 20].iter().all(|&p| p == 0));
    }

    #[test]
    fn quietest_row_prefers_blank_rows_near_the_target() {
        let mut g = GreyImage { width: 4, height: 10, data: vec![0; 40] };
        g.data[3 * 4..4 * 4].fill(255);
        g.data[7 * 4..8 * 4].fill(255);
        assert_eq!(g.quietest_row(0, 10, 6), 7);
        assert_eq!(g.quietest_row(0, 10, 4), 3);
        assert_eq!(g.quietest_row(8, 10, 9), 9);
        assert_eq!(g.quietest_row(5, 99, 5), 7);
    }

    #[test]
    fn crop_fill_and_outline() {
        let mut g = GreyImage { width: 4, height: 4, data: (0..16).collect() };
        let c = g.crop(Rect::new(1, 1, 2, 5));
        assert_eq!((c.width, c.height), (2, 3));
        assert_eq!(c.data, vec![5, 6, 9, 10, 13, 14]);
        assert_eq!(g.crop(Rect::new(9, 9, 2, 2)).data.len(), 0);
        g.fill(Rect::new(2, 2, 9, 9), 99);
        assert_eq!(g.data[15], 99);
        assert_eq!(g.data[1], 1);
        assert_eq!(g.outline_mean(Rect::new(2, 2, 2, 2)), 99);
    }
}

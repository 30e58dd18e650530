//! Resampling: area averaging (a box filter) for reductions, bilinear for enlargements.
//!
//! Both are separable and integer-only. Area averaging runs vertical-first: the source rows one output
//! row covers are summed, weighted, into a `u32` accumulator row (a straight multiply-add over bytes that
//! the compiler vectorises), then each output pixel is a weighted sum of a few adjacent accumulator
//! pixels. Every source byte is therefore touched about once per output row it contributes to. Whole
//! ratios (the usual HiDPI 2x and 3x) take a faster path that needs only additions.

use handrail_platform::{Frame, Size};

use crate::pixels::{blank, src_row};

/// Fixed-point precision of one area weight. The weights of each output pixel (and each output row) sum
/// to exactly `1 << WEIGHT_BITS`, so a solid colour stays exactly solid.
const WEIGHT_BITS: u32 = 14;
const WEIGHT_ONE: u64 = 1 << WEIGHT_BITS;

/// The largest factor [`upscale_bgrx`] applies; larger requests are clamped. Enough for OCR of small
/// text, and it stops a stray factor from asking for gigabytes.
pub const MAX_UPSCALE: u32 = 8;

/// Downscales `frame` to exactly `target` by area averaging: each output pixel is the mean of the source
/// area it covers, partially covered pixels weighted by their coverage. This keeps thin text strokes as
/// grey instead of dropping them the way nearest-neighbour does.
///
/// `screen` and `origin` are kept (the frame still shows the same part of the screen), `size` becomes
/// `target`, and the result is tightly packed with X = 0xFF. The caller picks the aspect ratio, usually
/// with [`Size::fit_within`]. Enlarging also works (each output pixel then covers part of one or two
/// source pixels, so edges stay sharp), but [`upscale_bgrx`] gives smoother results for that.
///
/// A zero-sized source or target, or a frame whose buffer holds no rows, gives a black frame of
/// `target`; rows the buffer does not hold count as black.
pub fn resize_bgrx(frame: &Frame, target: Size) -> Frame {
    let (sw, sh) = (frame.size.width, frame.size.height);
    if target.width == 0 || target.height == 0 || sw == 0 || sh == 0 || src_row(frame, 0).is_none() {
        return blank(target, frame.screen, frame.origin);
    }

    box_reduce(frame, target).unwrap_or_else(|| area_resize(frame, target))
}

/// The general area-averaging path, for any ratio. Same preconditions as [`box_reduce`].
fn area_resize(frame: &Frame, target: Size) -> Frame {
    let (sw, sh) = (frame.size.width, frame.size.height);
    let columns = Taps::area(sw, target.width);
    let rows = Taps::area(sh, target.height);
    let out_stride = target.width as usize * 4;
    let mut pixels = vec![0u8; out_stride * target.height as usize];
    let mut acc = vec![0u32; sw as usize * 4];

    for ((&first, wy), out_row) in
        rows.firsts.iter().zip(rows.weights.chunks_exact(rows.taps)).zip(pixels.chunks_exact_mut(out_stride))
    {
        acc.fill(0);
        for (y, &w) in (first..).zip(wy) {
            // A zero weight (padding, or a sliver at extreme ratios) or a missing row adds nothing.
            if w == 0 {
                continue;
            }
            if let Some(row) = src_row(frame, y) {
                accumulate(&mut acc, row, w);
            }
        }
        match columns.taps {
            1 => horizontal_area::<1>(&acc, &columns, out_row),
            2 => horizontal_area::<2>(&acc, &columns, out_row),
            3 => horizontal_area::<3>(&acc, &columns, out_row),
            4 => horizontal_area::<4>(&acc, &columns, out_row),
            _ => horizontal_area_any(&acc, &columns, out_row),
        }
    }

    Frame { size: target, screen: frame.screen, stride: out_stride, pixels, origin: frame.origin }
}

/// Area-averaging weights along one axis, padded to the same number of taps for every output pixel so
/// the inner loops have a fixed trip count the compiler can unroll.
struct Taps {
    /// First source index each output pixel reads; `first + taps <= src` always holds.
    firsts: Vec<u32>,
    /// `taps` weights per output pixel (zeros pad short runs), each group summing to exactly
    /// WEIGHT_ONE. At most 2^14 each, so `u16`.
    weights: Vec<u16>,
    taps: usize,
}

impl Taps {
    /// Weights for reducing (or enlarging) `src` pixels to `dst` by coverage. Both must be non-zero.
    fn area(src: u32, dst: u32) -> Taps {
        let (s, d) = (u64::from(src), u64::from(dst));
        let mut runs = Vec::with_capacity(dst as usize);
        let mut raw = Vec::with_capacity(src as usize + dst as usize);
        for j in 0..d {
            // Measured in 1/d of a source pixel, output j covers [j*s, (j+1)*s) and source i covers
            // [i*d, (i+1)*d); exact integers, and u32*u32 fits in u64.
            let (lo, hi) = (j * s, (j + 1) * s);
            let (first, end) = (lo / d, hi.div_ceil(d));
            let start = raw.len();
            let (mut covered, mut given) = (0u64, 0u64);
            for i in first..end {
                covered += ((i + 1) * d).min(hi) - (i * d).max(lo);
                // Rounding the running total rather than each weight makes the run sum to exactly
                // WEIGHT_ONE (covered ends at s).
                let total = (covered * WEIGHT_ONE + s / 2) / s;
                raw.push((total - given) as u16);
                given = total;
            }
            runs.push((first as usize, start..raw.len()));
        }

        // A run never spans more than the whole source, so padding to `taps` always fits.
        let taps = runs.iter().map(|(_, r)| r.len()).max().unwrap_or(1).min(src as usize);
        let mut firsts = Vec::with_capacity(runs.len());
        let mut weights = Vec::with_capacity(runs.len() * taps);
        for (first, range) in runs {
            let len = range.len();
            // Pad after the run, or before it when that would run off the end of the source.
            let shift = (first + taps).saturating_sub(src as usize);
            firsts.push((first - shift) as u32);
            weights.resize(weights.len() + shift, 0);
            weights.extend_from_slice(&raw[range]);
            weights.resize(weights.len() + (taps - len - shift), 0);
        }
        Taps { firsts, weights, taps }
    }
}

/// `acc += row * w` over raw bytes: the hot loop, kept trivially vectorisable.
#[inline]
fn accumulate(acc: &mut [u32], row: &[u8], w: u16) {
    // Both factors visibly fit 16 bits, which lets LLVM use 16-bit vector multiplies (SSE2 has no
    // 32-bit one).
    let w = u32::from(w);
    for (a, &p) in acc.iter_mut().zip(row) {
        *a += u32::from(p) * w;
    }
}

/// Both passes scale by WEIGHT_ONE, so sums are <= 255 * 2^28: past `u32`, hence `u64` (which costs
/// the same as `u32` in scalar code on 64-bit targets).
const AREA_SHIFT: u32 = 2 * WEIGHT_BITS;
const AREA_HALF: u64 = 1 << (AREA_SHIFT - 1);

/// Collapses one vertically summed row (4 lanes a pixel, scaled by WEIGHT_ONE) into an output row of
/// BGRX, for a tap count `T` known at compile time (the common reductions up to about 3x), so the tap
/// loop unrolls completely.
#[inline]
fn horizontal_area<const T: usize>(row: &[u32], columns: &Taps, out: &mut [u8]) {
    for ((&first, wx), px) in columns.firsts.iter().zip(columns.weights.chunks_exact(T)).zip(out.chunks_exact_mut(4)) {
        let first = first as usize * 4;
        // `Taps` guarantees the span is inside the row; `get` keeps a mismatch from panicking.
        if let Some(src) = row.get(first..first + T * 4) {
            store_area(px, weighted_sum(src, wx));
        }
    }
}

/// [`horizontal_area`] for any tap count (strong reductions).
fn horizontal_area_any(row: &[u32], columns: &Taps, out: &mut [u8]) {
    let taps = columns.taps;
    for ((&first, wx), px) in columns.firsts.iter().zip(columns.weights.chunks_exact(taps)).zip(out.chunks_exact_mut(4))
    {
        let first = first as usize * 4;
        if let Some(src) = row.get(first..first + taps * 4) {
            store_area(px, weighted_sum(src, wx));
        }
    }
}

/// B, G and R sums of `src` pixels times `weights`, with the rounding half already added.
#[inline(always)]
fn weighted_sum(src: &[u32], weights: &[u16]) -> [u64; 3] {
    let mut sum = [AREA_HALF; 3];
    for (c, &w) in src.chunks_exact(4).zip(weights) {
        let w = u64::from(w);
        for (s, &v) in sum.iter_mut().zip(c) {
            *s += u64::from(v) * w;
        }
    }
    sum
}

/// Shifts rounded sums back to bytes.
#[inline(always)]
fn store_area(px: &mut [u8], sum: [u64; 3]) {
    // The weights sum to exactly WEIGHT_ONE per axis, so these are <= 255; `min` only guards the cast.
    px[0] = (sum[0] >> AREA_SHIFT).min(255) as u8;
    px[1] = (sum[1] >> AREA_SHIFT).min(255) as u8;
    px[2] = (sum[2] >> AREA_SHIFT).min(255) as u8;
    px[3] = 0xFF;
}

/// Reduction by whole factors (2560x1600 to 1280x800, 3840x2160 to 1280x720): every output pixel is the
/// plain mean of a kx by ky block, so rows are summed with adds alone into `u16` lanes and each block
/// sum is divided by a reciprocal multiply. Roughly 1.7x faster than the general path, and exactly
/// rounded. `None` when the ratio is not whole (or too large for `u16` sums); the caller is expected
/// to have checked the frame has rows and both sizes are non-zero.
fn box_reduce(frame: &Frame, target: Size) -> Option<Frame> {
    let (sw, sh) = (frame.size.width, frame.size.height);
    if sw % target.width != 0 || sh % target.height != 0 {
        return None;
    }
    let (kx, ky) = (sw / target.width, sh / target.height);
    let cells = u64::from(kx) * u64::from(ky);
    // ky * 255 must fit a u16 lane, and the reciprocal is exact for divisors up to 2^16 (see below).
    if ky > 257 || cells > 1 << 16 {
        return None;
    }

    // With m = ceil(2^40 / d) and x < 256 d, (x * m) >> 40 == x / d exactly: the error x * (m d - 2^40)
    // / (d 2^40) stays below 1/d because x * d < 256 d^2 <= 2^40. x * m stays below 2^49.
    let recip = (1u64 << RECIP_SHIFT).div_ceil(cells);
    let half = (cells / 2) as u32;

    let out_stride = target.width as usize * 4;
    let mut pixels = vec![0u8; out_stride * target.height as usize];
    let mut acc = vec![0u16; sw as usize * 4];
    for (block_y, out_row) in (0..target.height).zip(pixels.chunks_exact_mut(out_stride)) {
        acc.fill(0);
        for y in block_y * ky..(block_y + 1) * ky {
            if let Some(row) = src_row(frame, y) {
                for (a, &p) in acc.iter_mut().zip(row) {
                    *a += u16::from(p);
                }
            }
        }
        match kx {
            1 => box_horizontal::<1>(&acc, out_row, recip, half),
            2 => box_horizontal::<2>(&acc, out_row, recip, half),
            3 => box_horizontal::<3>(&acc, out_row, recip, half),
            4 => box_horizontal::<4>(&acc, out_row, recip, half),
            k => box_horizontal_any(&acc, k as usize, out_row, recip, half),
        }
    }

    Some(Frame { size: target, screen: frame.screen, stride: out_stride, pixels, origin: frame.origin })
}

const RECIP_SHIFT: u32 = 40;

/// Sums `K` adjacent pixels of a column-summed row and divides by the block area.
#[inline]
fn box_horizontal<const K: usize>(acc: &[u16], out: &mut [u8], recip: u64, half: u32) {
    for (block, px) in acc.chunks_exact(4 * K).zip(out.chunks_exact_mut(4)) {
        let (mut b, mut g, mut r) = (half, half, half);
        for c in block.chunks_exact(4) {
            b += u32::from(c[0]);
            g += u32::from(c[1]);
            r += u32::from(c[2]);
        }
        store_box(px, b, g, r, recip);
    }
}

/// [`box_horizontal`] for any block width.
fn box_horizontal_any(acc: &[u16], k: usize, out: &mut [u8], recip: u64, half: u32) {
    for (block, px) in acc.chunks_exact(4 * k).zip(out.chunks_exact_mut(4)) {
        let (mut b, mut g, mut r) = (half, half, half);
        for c in block.chunks_exact(4) {
            b += u32::from(c[0]);
            g += u32::from(c[1]);
            r += u32::from(c[2]);
        }
        store_box(px, b, g, r, recip);
    }
}

#[inline(always)]
fn store_box(px: &mut [u8], b: u32, g: u32, r: u32, recip: u64) {
    // Exact division (see `box_reduce`), so the means are <= 255 and the casts lose nothing.
    px[0] = ((u64::from(b) * recip) >> RECIP_SHIFT) as u8;
    px[1] = ((u64::from(g) * recip) >> RECIP_SHIFT) as u8;
    px[2] = ((u64::from(r) * recip) >> RECIP_SHIFT) as u8;
    px[3] = 0xFF;
}

/// Enlarges `frame` by an integer `factor` with bilinear interpolation (pixel centres aligned, edges
/// clamped), which gives OCR engines smooth strokes to read on small text.
///
/// `factor` is clamped to `1..=`[`MAX_UPSCALE`]; 1 returns a tightly packed copy (X = 0xFF). `screen` and `origin`
/// are kept, so [`Frame::scale`] drops below 1. Rows the buffer does not hold count as black.
pub fn upscale_bgrx(frame: &Frame, factor: u32) -> Frame {
    let f = factor.clamp(1, MAX_UPSCALE);
    let target = Size::new(frame.size.width.saturating_mul(f), frame.size.height.saturating_mul(f));
    bilinear(frame, target)
}

/// Bilinear fixed-point precision: weights are 0..=256.
const LERP_BITS: u32 = 8;
const LERP_ONE: u32 = 1 << LERP_BITS;

/// Where one output coordinate samples the source: indices `i0`, `i1` (adjacent or equal at an edge)
/// and the weight of `i1`.
#[derive(Clone, Copy)]
struct Lerp {
    i0: u32,
    i1: u32,
    frac: u32,
}

/// Sample positions for stretching `src` pixels over `dst`. Both must be non-zero.
fn lerps(src: u32, dst: u32) -> Vec<Lerp> {
    let (s, d) = (i128::from(src), i128::from(dst));
    let last = s - 1;
    (0..d)
        .map(|x| {
            // Centres aligned: output x samples source (x + 0.5) * s / d - 0.5, in 1/256 pixel.
            // i128 because (2x + 1) * s * 256 can pass u64 for huge sides.
            let pos = ((2 * x + 1) * s * i128::from(LERP_ONE) / (2 * d) - i128::from(LERP_ONE / 2))
                .clamp(0, last * i128::from(LERP_ONE));
            let i0 = pos >> LERP_BITS;
            Lerp { i0: i0 as u32, i1: (i0 + 1).min(last) as u32, frac: (pos & i128::from(LERP_ONE - 1)) as u32 }
        })
        .collect()
}

/// Bilinear resize to `target` (any ratio; used for enlarging).
fn bilinear(frame: &Frame, target: Size) -> Frame {
    let (sw, sh) = (frame.size.width, frame.size.height);
    if target.width == 0 || target.height == 0 || sw == 0 || sh == 0 || src_row(frame, 0).is_none() {
        return blank(target, frame.screen, frame.origin);
    }

    let xs = lerps(sw, target.width);
    let ys = lerps(sh, target.height);
    let out_stride = target.width as usize * 4;
    let mut pixels = vec![0u8; out_stride * target.height as usize];

    // Horizontally interpolated source rows, cached because consecutive output rows share them.
    let mut upper = (u32::MAX, vec![0u32; out_stride]);
    let mut lower = (u32::MAX, vec![0u32; out_stride]);

    for (l, out_row) in ys.iter().zip(pixels.chunks_exact_mut(out_stride)) {
        if upper.0 != l.i0 {
            if lower.0 == l.i0 {
                std::mem::swap(&mut upper, &mut lower);
            } else {
                upper.0 = l.i0;
                horizontal_lerp(src_row(frame, l.i0), &xs, &mut upper.1);
            }
        }
        if lower.0 != l.i1 {
            lower.0 = l.i1;
            horizontal_lerp(src_row(frame, l.i1), &xs, &mut lower.1);
        }

        let (wa, wb) = (LERP_ONE - l.frac, l.frac);
        const SHIFT: u32 = 2 * LERP_BITS;
        const HALF: u32 = 1 << (SHIFT - 1);
        for ((px, a), b) in out_row.chunks_exact_mut(4).zip(upper.1.chunks_exact(4)).zip(lower.1.chunks_exact(4)) {
            // Each lane is <= 255 * 256, so the blend stays below 2^24.
            px[0] = ((a[0] * wa + b[0] * wb + HALF) >> SHIFT) as u8;
            px[1] = ((a[1] * wa + b[1] * wb + HALF) >> SHIFT) as u8;
            px[2] = ((a[2] * wa + b[2] * wb + HALF) >> SHIFT) as u8;
            px[3] = 0xFF;
        }
    }

    Frame { size: target, screen: frame.screen, stride: out_stride, pixels, origin: frame.origin }
}

/// Interpolates one source row (black when `None`) along x into `out` (4 lanes a pixel, scaled by 256).
fn horizontal_lerp(row: Option<&[u8]>, xs: &[Lerp], out: &mut [u32]) {
    let Some(row) = row else {
        out.fill(0);
        return;
    };
    for (h, l) in out.chunks_exact_mut(4).zip(xs) {
        let (i0, i1) = (l.i0 as usize * 4, l.i1 as usize * 4);
        // The lerps index inside the row by construction; `get` keeps a mismatch from panicking.
        let (Some(a), Some(b)) = (row.get(i0..i0 + 4), row.get(i1..i1 + 4)) else {
            h.fill(0);
            continue;
        };
        let (wa, wb) = (LERP_ONE - l.frac, l.frac);
        h[0] = u32::from(a[0]) * wa + u32::from(b[0]) * wb;
        h[1] = u32::from(a[1]) * wa + u32::from(b[1]) * wb;
        h[2] = u32::from(a[2]) * wa + u32::from(b[2]) * wb;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use handrail_platform::Rect;

    /// A whole-screen frame from a closure giving each pixel's BGR.
    fn frame_with(width: u32, height: u32, pad: usize, f: impl Fn(u32, u32) -> [u8; 3]) -> Frame {
        let size = Size::new(width, height);
        let stride = width as usize * 4 + pad;
        let mut pixels = vec![0xAB; stride * height as usize];
        for y in 0..height {
            for x in 0..width {
                let [b, g, r] = f(x, y);
                let at = y as usize * stride + x as usize * 4;
                pixels[at..at + 4].copy_from_slice(&[b, g, r, 0]);
            }
        }
        Frame { size, screen: size, stride, pixels, origin: Rect::from_size(size) }
    }

    fn px(frame: &Frame, x: u32, y: u32) -> [u8; 3] {
        let p = &frame.row(y)[x as usize * 4..];
        [p[0], p[1], p[2]]
    }

    #[test]
    fn four_by_four_blocks_average_exactly() {
        // Inside each 4x4 block the values vary; the output is the block mean, rounded.
        let f = frame_with(8, 8, 0, |x, y| [(x * 10 + y) as u8, (x * y) as u8, 255 - (x + y) as u8]);
        let out = resize_bgrx(&f, Size::new(2, 2));
        assert_eq!(out.size, Size::new(2, 2));
        assert_eq!(out.stride, 8);
        assert_eq!(out.pixels.len(), 16);
        for by in 0..2 {
            for bx in 0..2 {
                let mut sum = [0u32; 3];
                for y in by * 4..by * 4 + 4 {
                    for x in bx * 4..bx * 4 + 4 {
                        for (s, v) in sum.iter_mut().zip(px(&f, x, y)) {
                            *s += u32::from(v);
                        }
                    }
                }
                let expected = sum.map(|s| ((s + 8) / 16) as u8);
                assert_eq!(px(&out, bx, by), expected, "block {bx},{by}");
                assert_eq!(out.row(by)[bx as usize * 4 + 3], 0xFF);
            }
        }
    }

    #[test]
    fn fractional_coverage_is_weighted() {
        // 3 -> 2: output 0 covers source 0 and half of 1; output 1 covers half of 1 and source 2.
        let f = frame_with(3, 1, 0, |x, _| [(x * 90) as u8; 3]);
        let out = resize_bgrx(&f, Size::new(2, 1));
        assert_eq!(px(&out, 0, 0), [30; 3]);
        assert_eq!(px(&out, 1, 0), [150; 3]);
    }

    #[test]
    fn checkerboard_halves_to_grey() {
        let f = frame_with(16, 10, 0, |x, y| if (x + y) % 2 == 0 { [255; 3] } else { [0; 3] });
        let out = resize_bgrx(&f, Size::new(8, 5));
        assert!(out.pixels.chunks_exact(4).all(|p| p[..3] == [128; 3]));
    }

    #[test]
    fn solid_colours_stay_solid_at_awkward_ratios() {
        let colour = [12, 200, 77];
        let f = frame_with(1000, 703, 12, |_, _| colour);
        for target in
            [Size::new(333, 211), Size::new(999, 702), Size::new(1, 1), Size::new(7, 500), Size::new(1500, 900)]
        {
            let out = resize_bgrx(&f, target);
            assert_eq!(out.size, target);
            assert_eq!(out.pixels.len(), target.area() as usize * 4);
            assert!(out.pixels.chunks_exact(4).all(|p| p[..3] == colour), "{target}");
        }
    }

    #[test]
    fn fit_within_size_and_frame_placement_are_kept() {
        let mut f = Frame::solid(Size::new(2560, 1600), [1, 2, 3, 0]);
        f.screen = Size::new(3000, 2000);
        f.origin = Rect::new(40, 50, 2560, 1600);
        let target = f.size.fit_within(Size::new(1280, 1280));
        assert_eq!(target, Size::new(1280, 800));
        let out = resize_bgrx(&f, target);
        assert_eq!(out.size, target);
        assert!(out.is_consistent());
        assert_eq!(out.screen, f.screen);
        assert_eq!(out.origin, f.origin);
        assert!((out.scale() - 2.0).abs() < 1e-9);
    }

    #[test]
    fn row_padding_is_ignored() {
        let plain = frame_with(9, 5, 0, |x, y| [(x * 20) as u8, (y * 40) as u8, 9]);
        let padded = frame_with(9, 5, 28, |x, y| [(x * 20) as u8, (y * 40) as u8, 9]);
        let target = Size::new(4, 3);
        assert_eq!(resize_bgrx(&plain, target).pixels, resize_bgrx(&padded, target).pixels);
    }

    #[test]
    fn broken_frames_give_black_not_panics() {
        let mut f = frame_with(8, 8, 0, |_, _| [200; 3]);
        f.pixels.truncate(8 * 4 * 4);
        let out = resize_bgrx(&f, Size::new(2, 2));
        assert_eq!(px(&out, 0, 0), [200; 3]);
        assert_eq!(px(&out, 0, 1), [0; 3]);

        f.stride = 3;
        let black = |frame: Frame| frame.pixels.chunks_exact(4).all(|p| p == [0, 0, 0, 0xFF]);
        assert!(black(resize_bgrx(&f, Size::new(2, 2))));
        assert!(black(upscale_bgrx(&f, 2)));

        let empty = resize_bgrx(&f, Size::new(0, 5));
        assert_eq!(empty.size, Size::new(0, 5));
        assert!(empty.pixels.is_empty());
    }

    #[test]
    fn upscale_keeps_solid_and_edges_and_interpolates() {
        let solid = frame_with(5, 3, 4, |_, _| [9, 99, 199]);
        let up = upscale_bgrx(&solid, 3);
        assert_eq!(up.size, Size::new(15, 9));
        assert_eq!(up.origin, solid.origin);
        assert!(up.pixels.chunks_exact(4).all(|p| p[..3] == [9, 99, 199]));

        let ramp = frame_with(2, 1, 0, |x, _| [(x * 200) as u8; 3]);
        let up = upscale_bgrx(&ramp, 2);
        // Centres at source 0.25 and 0.75 land between; the outermost clamp to the edge pixels.
        let row: Vec<u8> = (0..4).map(|x| px(&up, x, 0)[0]).collect();
        assert_eq!(row, [0, 50, 150, 200]);

        let same = upscale_bgrx(&ramp, 0);
        assert_eq!(same.size, ramp.size);
        assert_eq!(px(&same, 1, 0), [200; 3]);
        assert_eq!(upscale_bgrx(&ramp, 1000).size, Size::new(2 * MAX_UPSCALE, MAX_UPSCALE));
    }

    #[test]
    fn whole_ratio_path_matches_general_path() {
        let f = frame_with(48, 36, 8, |x, y| [(x * 5 + y) as u8, (x * y) as u8, (x ^ y) as u8]);
        for target in [Size::new(24, 18), Size::new(12, 9), Size::new(48, 36), Size::new(24, 36)] {
            let fast = box_reduce(&f, target).expect("whole ratio");
            // Power-of-two ratios give exact weights on the general path too.
            assert_eq!(fast.pixels, area_resize(&f, target).pixels, "{target}");
        }
        // 3x: general weights are 5461/5462 of 16384, so allow one level of rounding difference.
        let target = Size::new(16, 12);
        let fast = box_reduce(&f, target).expect("whole ratio");
        let general = area_resize(&f, target);
        for (a, b) in fast.pixels.iter().zip(&general.pixels) {
            assert!(a.abs_diff(*b) <= 1);
        }
        assert!(box_reduce(&f, Size::new(20, 18)).is_none());
    }

    #[test]
    fn whole_ratio_path_rounds_block_means() {
        // 3x3 blocks of 0..=8 scaled: mean 4 * 30 = 120; and a block summing to x.5 rounds up.
        let f = frame_with(3, 3, 0, |x, y| [((y * 3 + x) * 30) as u8, if x == 0 && y == 0 { 5 } else { 0 }, 0]);
        let out = resize_bgrx(&f, Size::new(1, 1));
        assert_eq!(px(&out, 0, 0), [120, 1, 0]);
        // Blocks too tall for u16 column sums fall back to the general path and still average.
        let tall = frame_with(1, 600, 0, |_, y| [if y % 2 == 0 { 255 } else { 1 }; 3]);
        assert!(box_reduce(&tall, Size::new(1, 2)).is_none());
        assert_eq!(px(&resize_bgrx(&tall, Size::new(1, 2)), 0, 1), [128; 3]);
    }

    #[test]
    fn reciprocal_division_is_exact() {
        let check = |d: u64, x: u64| {
            let m = (1u64 << RECIP_SHIFT).div_ceil(d);
            assert_eq!((x * m) >> RECIP_SHIFT, x / d, "{x} / {d}");
        };
        for d in 1..=600 {
            for x in 0..256 * d {
                check(d, x);
            }
        }
        for d in [257 * 255, 65_535, 65_536] {
            for x in (0..256 * d).step_by(97).chain(256 * d - 200..256 * d) {
                check(d, x);
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn whole_ratio_path_agrees_with_general_path(
            dw in 1u32..12, dh in 1u32..12, kx in 1u32..6, ky in 1u32..6, seed in proptest::prelude::any::<u32>(),
        ) {
            let f = frame_with(dw * kx, dh * ky, 4, |x, y| {
                let v = (x.wrapping_mul(2_654_435_761) ^ y.wrapping_mul(40_503) ^ seed).to_le_bytes();
                [v[0], v[1], v[2]]
            });
            let target = Size::new(dw, dh);
            let fast = box_reduce(&f, target).expect("whole ratio");
            let general = area_resize(&f, target);
            for (a, b) in fast.pixels.iter().zip(&general.pixels) {
                proptest::prop_assert!(a.abs_diff(*b) <= 1);
            }
        }
    }

    #[test]
    fn area_weights_sum_to_one() {
        for (s, d) in [(2560, 1280), (1000, 333), (7, 3), (3, 7), (5000, 1), (1, 5000)] {
            let t = Taps::area(s, d);
            assert_eq!(t.firsts.len(), d as usize);
            assert_eq!(t.weights.len(), d as usize * t.taps);
            for (&first, w) in t.firsts.iter().zip(t.weights.chunks_exact(t.taps)) {
                assert_eq!(w.iter().map(|&w| u64::from(w)).sum::<u64>(), WEIGHT_ONE);
                assert!(first as usize + t.taps <= s as usize);
            }
        }
    }
}

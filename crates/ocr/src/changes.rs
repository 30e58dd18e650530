//! Incremental recognition: which parts of the image changed since the last call, as a few rectangles
//! worth reading again.
//!
//! The previous image is remembered only as one 64-bit hash per 16x16 tile of its greyscale version
//! (4,000 hashes for 1280x800) — a changed pixel changes its tile's hash. Changed tiles are grouped into
//! connected clusters, each cluster's bounding box is padded (so a label whose pixels changed only in
//! part is read whole, and words joining it are in view) and grown to cover every previously recognised
//! line it touches (that line is dropped and read again), and overlapping or nearby boxes are merged.

use handrail_platform::Rect;

use crate::grey::GreyImage;

/// Side of a change-detection tile in pixels.
pub(crate) const TILE: u32 = 16;

/// One hash per tile, row-major.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TileGrid {
    cols: u32,
    rows: u32,
    width: u32,
    height: u32,
    hashes: Vec<u64>,
}

const K: u64 = 0x9E37_79B9_7F4A_7C15;

#[inline]
fn mix(h: u64, v: u64) -> u64 {
    (h.rotate_left(23) ^ v).wrapping_mul(K)
}

impl TileGrid {
    pub(crate) fn of(img: &GreyImage) -> TileGrid {
        let (w, h) = (img.width, img.height);
        let cols = w.div_ceil(TILE);
        let rows = h.div_ceil(TILE);
        let mut hashes = vec![0u64; cols as usize * rows as usize];
        let tile = TILE as usize;
        for (y, row) in img.data.chunks_exact(w.max(1) as usize).enumerate().take(h as usize) {
            let base = (y / tile) * cols as usize;
            for (c, seg) in row.chunks(tile).enumerate() {
                let mut acc = hashes[base + c];
                let mut words = seg.chunks_exact(8);
                for chunk in &mut words {
                    let mut b = [0u8; 8];
                    b.copy_from_slice(chunk);
                    acc = mix(acc, u64::from_le_bytes(b));
                }
                for &byte in words.remainder() {
                    acc = mix(acc, u64::from(byte) | 0x100);
                }
                hashes[base + c] = acc;
            }
        }
        TileGrid { cols, rows, width: w, height: h, hashes }
    }

    /// Pixel rectangles (clusters of changed tiles, 8-connected) where `self` differs from `before`;
    /// `None` when the two grids do not describe the same image size.
    pub(crate) fn changed_since(&self, before: &TileGrid) -> Option<Vec<Rect>> {
        if (self.width, self.height) != (before.width, before.height) {
            return None;
        }
        let (cols, rows) = (self.cols as usize, self.rows as usize);
        let mut dirty: Vec<bool> = self.hashes.iter().zip(&before.hashes).map(|(a, b)| a != b).collect();
        let mut clusters = Vec::new();
        let mut stack = Vec::new();
        for start in 0..dirty.len() {
            if !dirty[start] {
                continue;
            }
            dirty[start] = false;
            stack.push(start);
            let (mut c0, mut r0, mut c1, mut r1) = (start % cols, start / cols, start % cols, start / cols);
            while let Some(i) = stack.pop() {
                let (c, r) = (i % cols, i / cols);
                (c0, r0, c1, r1) = (c0.min(c), r0.min(r), c1.max(c), r1.max(r));
                for dr in -1i64..=1 {
                    for dc in -1i64..=1 {
                        let (nc, nr) = (c as i64 + dc, r as i64 + dr);
                        if nc < 0 || nr < 0 || nc >= cols as i64 || nr >= rows as i64 {
                            continue;
                        }
                        let j = nr as usize * cols + nc as usize;
                        if dirty[j] {
                            dirty[j] = false;
                            stack.push(j);
                        }
                    }
                }
            }
            let x0 = c0 as u32 * TILE;
            let y0 = r0 as u32 * TILE;
            let x1 = ((c1 as u32 + 1) * TILE).min(self.width);
            let y1 = ((r1 as u32 + 1) * TILE).min(self.height);
            clusters.push(Rect::new(x0 as i32, y0 as i32, x1 - x0, y1 - y0));
        }
        Some(clusters)
    }
}

/// Grows `r` by `dx` left and right and `dy` up and down, clamped to `bounds`.
pub(crate) fn pad(r: &Rect, dx: u32, dy: u32, bounds: &Rect) -> Rect {
    let (dx, dy) = (i64::from(dx), i64::from(dy));
    let x0 = (i64::from(r.x) - dx).max(i64::from(bounds.x));
    let y0 = (i64::from(r.y) - dy).max(i64::from(bounds.y));
    let x1 = (r.right() + dx).min(bounds.right());
    let y1 = (r.bottom() + dy).min(bounds.bottom());
    if x1 <= x0 || y1 <= y0 {
        return Rect::new(x0 as i32, y0 as i32, 0, 0);
    }
    Rect::new(x0 as i32, y0 as i32, (x1 - x0) as u32, (y1 - y0) as u32)
}

/// Room kept around a previous line a region grows over, so its words do not touch the region's edge
/// (words touching an inner edge are dropped as fragments).
pub(crate) const LINE_MARGIN: u32 = 4;

/// The rectangles to read again: `clusters` padded by `margin` (horizontal, vertical), grown over every
/// `previous` line they touch (plus [`LINE_MARGIN`]), and merged while any two overlap or lie within
/// `margin` of each other. All in `bounds`.
///
/// The horizontal margin must cover the widest gap that still joins words into one label (so a label
/// next to changed text is read with it); vertically changed tiles already hold every changed glyph
/// whole, and a small margin keeps neighbouring rows (say, a coloured title bar) out of the region.
pub(crate) fn plan(clusters: &[Rect], margin: (u32, u32), previous: &[Rect], bounds: &Rect) -> Vec<Rect> {
    let (mx, my) = margin;
    let mut rects: Vec<Rect> = clusters.iter().map(|c| pad(c, mx, my, bounds)).filter(|r| !r.is_empty()).collect();
    let previous: Vec<Rect> =
        previous.iter().map(|l| pad(l, LINE_MARGIN, LINE_MARGIN, bounds)).filter(|l| !l.is_empty()).collect();
    loop {
        let mut changed = false;
        // Grow over previous lines (a line cut by the region would come back as a fragment).
        for r in rects.iter_mut() {
            for line in &previous {
                if r.intersects(line) && !r.contains_rect(line) {
                    *r = r.union(line);
                    changed = true;
                }
            }
        }
        // Merge neighbours: one larger Tesseract call is cheaper than two calls on touching strips.
        let mut i = 0;
        while i < rects.len() {
            let mut j = i + 1;
            while j < rects.len() {
                if pad(&rects[i], mx, my, bounds).intersects(&rects[j]) {
                    let other = rects.swap_remove(j);
                    rects[i] = rects[i].union(&other);
                    changed = true;
                } else {
                    j += 1;
                }
            }
            i += 1;
        }
        if !changed {
            break;
        }
    }
    rects.sort_by_key(|r| (r.y, r.x));
    rects
}

#[cfg(test)]
mod tests {
    use super::*;

    fn img(w: u32, h: u32) -> GreyImage {
        GreyImage { width: w, height: h, data: vec![200; (w * h) as usize] }
    }

    #[test]
    fn unchanged_image_has_no_changes() {
        let a = img(100, 50);
        assert_eq!(TileGrid::of(&a).changed_since(&TileGrid::of(&a.clone())), Some(vec![]));
        assert_eq!(TileGrid::of(&a).changed_since(&TileGrid::of(&img(100, 51))), None);
    }

    #[test]
    fn one_pixel_change_marks_its_tile() {
        let a = img(100, 50);
        let mut b = a.clone();
        b.data[40 * 100 + 99] = 0; // x=99, y=40: last (partial) tile column, third tile row
        let ch = TileGrid::of(&b).changed_since(&TileGrid::of(&a)).expect("same size");
        assert_eq!(ch, vec![Rect::new(96, 32, 4, 16)]);
    }

    #[test]
    fn neighbouring_tiles_cluster_and_far_ones_do_not() {
        let a = img(200, 100);
        let mut b = a.clone();
        for (x, y) in [(5, 5), (20, 20), (150, 80)] {
            b.data[y * 200 + x] = 0;
        }
        let mut ch = TileGrid::of(&b).changed_since(&TileGrid::of(&a)).expect("same size");
        ch.sort_by_key(|r| (r.y, r.x));
        assert_eq!(ch, vec![Rect::new(0, 0, 32, 32), Rect::new(144, 80, 16, 16)]);
    }

    #[test]
    fn plan_pads_grows_over_lines_and_merges() {
        let bounds = Rect::new(0, 0, 400, 300);
        let clusters = [Rect::new(100, 100, 16, 16), Rect::new(130, 100, 16, 16), Rect::new(300, 250, 16, 16)];
        // A previous line crossing the first cluster extends it to the left (with its margin).
        let previous = [Rect::new(20, 104, 100, 12), Rect::new(0, 0, 50, 10)];
        let plan = plan(&clusters, (8, 8), &previous, &bounds);
        assert_eq!(plan, vec![Rect::new(16, 92, 138, 32), Rect::new(292, 242, 32, 32)]);
    }

    #[test]
    fn pad_clamps() {
        let b = Rect::new(0, 0, 10, 10);
        assert_eq!(pad(&Rect::new(2, 2, 2, 2), 5, 5, &b), Rect::new(0, 0, 9, 9));
        assert_eq!(pad(&Rect::new(2, 2, 2, 2), 1, 0, &b), Rect::new(1, 2, 4, 2));
        assert!(pad(&Rect::new(50, 50, 2, 2), 1, 1, &b).is_empty());
    }
}

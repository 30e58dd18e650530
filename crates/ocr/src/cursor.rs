//! A terminal's block cursor is not text. Drawn as a filled cell right after the prompt (`$ █`), it
//! joins the prompt into one word Tesseract cannot read (xterm's `$ █` came back as `$i` at
//! confidence 35, dropped), so the prompt row went missing and the row above it was taken for the
//! line being typed. Over a character the cursor shows that character inverted, so it is not
//! uniform and is left alone; only an empty, uniformly filled cell is found (and the terminal reader
//! reads its row again with it painted over).

use handrail_platform::Rect;

use crate::grey::GreyImage;

/// A cell's width and height bounds (pixels, before any upscale): terminal fonts from ~8 to ~24 px.
const MIN_WIDTH: usize = 4;
const MAX_WIDTH: usize = 24;
const MIN_HEIGHT: usize = 10;
const MAX_HEIGHT: usize = 48;
/// A cell is taller than wide, but a glyph's stem is much taller still (height / width, ×10).
const MIN_ASPECT_X10: usize = 12;
const MAX_ASPECT_X10: usize = 40;
/// Levels a filled cell varies by at most, and how far it stands off what is around it.
const FLAT: u8 = 12;
const CONTRAST: u8 = 60;

/// An empty block cursor: where it is, and the level around it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BlockCursor {
    pub rect: Rect,
    pub around: u8,
}

impl GreyImage {
    /// Every empty block cursor inside `within` (clamped).
    pub(crate) fn block_cursors(&self, within: Rect) -> Vec<BlockCursor> {
        let Some(r) = within.intersection(&self.bounds()) else { return Vec::new() };
        let (x0, y0, x1, y1) =
            (r.x as usize, r.y as usize, r.x as usize + r.width as usize, r.y as usize + r.height as usize);
        let mut found = Vec::new();
        // Runs of one flat level started on an earlier row and still going: (start x, end x, level, first row).
        let mut open: Vec<(usize, usize, u8, usize)> = Vec::new();
        for y in y0..=y1 {
            let runs = if y < y1 { self.flat_runs(y, x0, x1) } else { Vec::new() };
            let mut still = Vec::with_capacity(open.len());
            for &(a, b, level, top) in &open {
                if runs.iter().any(|&(ra, rb, l)| ra == a && rb == b && l.abs_diff(level) <= FLAT) {
                    still.push((a, b, level, top));
                } else if let Some(around) = self.block_background((a, b), (top, y), level) {
                    let rect = Rect::new(a as i32, top as i32, (b - a) as u32, (y - top) as u32);
                    found.push(BlockCursor { rect, around });
                }
            }
            for &(ra, rb, l) in &runs {
                if !still.iter().any(|&(a, b, _, _)| a == ra && b == rb) {
                    still.push((ra, rb, l, y));
                }
            }
            open = still;
        }
        found
    }

    /// Paints `cursor` with the level around it.
    pub(crate) fn erase(&mut self, cursor: &BlockCursor) {
        let Some(r) = cursor.rect.intersection(&self.bounds()) else { return };
        let w = self.width as usize;
        for y in r.y as usize..r.y as usize + r.height as usize {
            self.data[y * w + r.x as usize..y * w + r.x as usize + r.width as usize].fill(cursor.around);
        }
    }

    /// Maximal runs of one level (within [`FLAT`]) in row `y` between `x0` and `x1`, as long as a cell
    /// is wide and bounded by other levels on both sides (not the row's background).
    fn flat_runs(&self, y: usize, x0: usize, x1: usize) -> Vec<(usize, usize, u8)> {
        let w = self.width as usize;
        let row = &self.data[y * w + x0..y * w + x1];
        let mut runs = Vec::new();
        let mut start = 0;
        while start < row.len() {
            let level = row[start];
            let mut end = start + 1;
            while end < row.len() && row[end].abs_diff(level) <= FLAT {
                end += 1;
            }
            let bounded = start > 0 && end < row.len();
            if bounded && (MIN_WIDTH..=MAX_WIDTH).contains(&(end - start)) {
                runs.push((x0 + start, x0 + end, level));
            }
            start = end;
        }
        runs
    }

    /// The level around a flat block `[a, b) × [top, bottom)` of `level`, when the block is a cursor:
    /// a cell's size and shape, and standing off the level around it on every side.
    fn block_background(&self, (a, b): (usize, usize), (top, bottom): (usize, usize), level: u8) -> Option<u8> {
        let (width, height) = (b - a, bottom - top);
        let aspect = height * 10 / width.max(1);
        if !(MIN_HEIGHT..=MAX_HEIGHT).contains(&height) || !(MIN_ASPECT_X10..=MAX_ASPECT_X10).contains(&aspect) {
            return None;
        }
        if top == 0 || bottom >= self.height as usize {
            return None;
        }
        let w = self.width as usize;
        // The rows just above and below: the level around the block, all of it off the block's own.
        let mut ring: Vec<u8> = self.data[(top - 1) * w + a..(top - 1) * w + b].to_vec();
        ring.extend_from_slice(&self.data[bottom * w + a..bottom * w + b]);
        if ring.iter().any(|p| p.abs_diff(level) < CONTRAST) {
            return None;
        }
        ring.sort_unstable();
        ring.get(ring.len() / 2).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAPER: u8 = 255;
    const INK: u8 = 0;

    fn image(w: u32, h: u32, level: u8) -> GreyImage {
        GreyImage { width: w, height: h, data: vec![level; (w * h) as usize] }
    }

    fn rect(img: &mut GreyImage, x: usize, y: usize, w: usize, h: usize, level: u8) {
        let width = img.width as usize;
        for row in y..y + h {
            img.data[row * width + x..row * width + x + w].fill(level);
        }
    }

    /// Erases every cursor found in `within` (the whole image when `None`); how many.
    fn erase_all(img: &mut GreyImage, within: Option<Rect>) -> usize {
        let cursors = img.block_cursors(within.unwrap_or(img.bounds()));
        for c in &cursors {
            img.erase(c);
        }
        cursors.len()
    }

    /// A `$`-ish glyph: strokes, not a filled cell.
    fn glyph(img: &mut GreyImage, x: usize, y: usize) {
        rect(img, x + 3, y, 1, 20, INK);
        rect(img, x, y + 4, 8, 2, INK);
        rect(img, x, y + 9, 8, 2, INK);
        rect(img, x, y + 14, 8, 2, INK);
    }

    #[test]
    fn an_empty_block_cursor_after_a_prompt_is_erased_and_the_prompt_kept() {
        let mut img = image(80, 40, PAPER);
        glyph(&mut img, 4, 8);
        rect(&mut img, 24, 6, 11, 22, INK);
        let before = img.clone();
        assert_eq!(erase_all(&mut img, None), 1);
        for y in 6..28 {
            for x in 24..35 {
                assert_eq!(img.data[y * 80 + x], PAPER, "({x},{y})");
            }
        }
        // The glyph is untouched.
        for y in 0..40 {
            for x in 0..20 {
                assert_eq!(img.data[y * 80 + x], before.data[y * 80 + x], "({x},{y})");
            }
        }
    }

    #[test]
    fn a_light_cursor_on_a_dark_terminal_is_erased_too() {
        let mut img = image(60, 40, 30);
        rect(&mut img, 20, 8, 10, 20, 220);
        assert_eq!(erase_all(&mut img, None), 1);
        assert!(img.data.iter().all(|&p| p == 30));
    }

    #[test]
    fn what_is_not_an_empty_cell_is_left_alone() {
        // The cursor over a character: the character shows inverted inside it.
        let mut over = image(60, 40, PAPER);
        rect(&mut over, 20, 8, 11, 22, INK);
        rect(&mut over, 24, 12, 2, 14, PAPER);
        // A selection band many cells wide, a stem far taller than wide, a square, a faint block,
        // and a block that touches the region's edge.
        let mut wide = image(120, 40, PAPER);
        rect(&mut wide, 10, 8, 90, 22, INK);
        let mut stem = image(60, 60, PAPER);
        rect(&mut stem, 20, 5, 4, 40, INK);
        let mut square = image(60, 40, PAPER);
        rect(&mut square, 20, 8, 16, 16, INK);
        let mut faint = image(60, 40, PAPER);
        rect(&mut faint, 20, 8, 11, 22, PAPER - 40);
        let mut edge = image(60, 40, PAPER);
        rect(&mut edge, 20, 0, 11, 22, INK);
        for (name, mut img) in
            [("over", over), ("wide", wide), ("stem", stem), ("square", square), ("faint", faint), ("edge", edge)]
        {
            let before = img.clone();
            assert_eq!(erase_all(&mut img, None), 0, "{name}");
            assert_eq!(img, before, "{name}");
        }
    }

    #[test]
    fn only_the_given_area_is_looked_at() {
        let mut img = image(100, 40, PAPER);
        rect(&mut img, 10, 8, 11, 22, INK);
        rect(&mut img, 60, 8, 11, 22, INK);
        assert_eq!(erase_all(&mut img, Some(Rect::new(50, 0, 50, 40))), 1);
        assert_eq!(img.data[10 * 100 + 12], INK, "outside the area");
        assert_eq!(img.data[10 * 100 + 62], PAPER);
    }
}

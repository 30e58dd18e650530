//! What changed between two pictures, for producers that do not say what they redrew.

use handrail_platform::Rect;

/// The cells of side `cell` (pixels) where two BGRX pictures of `width` x `height` differ, rows
/// `stride` bytes apart in both, as rectangles: runs of changed cells along a row of cells are
/// merged into one. Empty when the pictures are equal, or when either is shorter than its size says
/// (nothing to compare is no evidence of change; callers compare frames of one stream).
pub fn changed_cells(before: &[u8], after: &[u8], width: u32, height: u32, stride: usize, cell: u32) -> Vec<Rect> {
    let cell = cell.max(1);
    let row_bytes = width as usize * 4;
    let needed = stride.saturating_mul((height as usize).saturating_sub(1)).saturating_add(row_bytes);
    if height == 0 || width == 0 || stride < row_bytes || before.len() < needed || after.len() < needed {
        return Vec::new();
    }
    let cols = width.div_ceil(cell) as usize;
    let mut out = Vec::new();
    let mut changed = vec![false; cols];
    for band in 0..height.div_ceil(cell) {
        changed.iter_mut().for_each(|c| *c = false);
        let y0 = band * cell;
        let y1 = (y0 + cell).min(height);
        for y in y0..y1 {
            let at = y as usize * stride;
            let (a, b) = (&before[at..at + row_bytes], &after[at..at + row_bytes]);
            if a == b {
                continue;
            }
            for (c, flag) in changed.iter_mut().enumerate() {
                if *flag {
                    continue;
                }
                let x0 = c * cell as usize * 4;
                let x1 = ((c + 1) * cell as usize * 4).min(row_bytes);
                if a[x0..x1] != b[x0..x1] {
                    *flag = true;
                }
            }
        }
        let mut c = 0;
        while c < cols {
            if !changed[c] {
                c += 1;
                continue;
            }
            let start = c;
            while c < cols && changed[c] {
                c += 1;
            }
            let x0 = start as u32 * cell;
            let x1 = (c as u32 * cell).min(width);
            out.push(Rect::new(x0 as i32, y0 as i32, x1 - x0, y1 - y0));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn equal_pictures_have_no_change_and_one_pixel_marks_its_cell() {
        let (w, h) = (100u32, 70u32);
        let a = vec![7u8; (w * h * 4) as usize];
        assert!(changed_cells(&a, &a, w, h, w as usize * 4, 32).is_empty());
        let mut b = a.clone();
        let at = (40 * w as usize + 99) * 4; // x 99, y 40: the last, narrower column of cells
        b[at] = 8;
        assert_eq!(changed_cells(&a, &b, w, h, w as usize * 4, 32), vec![Rect::new(96, 32, 4, 32)]);
        assert!(changed_cells(&a, &b[..10], w, h, w as usize * 4, 32).is_empty(), "too short to compare");
    }

    proptest! {
        /// Every changed pixel lies in a reported rectangle, rectangles stay on the picture, and
        /// each holds at least one changed pixel per merged cell row.
        #[test]
        fn every_change_is_covered(
            w in 1u32..90, h in 1u32..90, pad in 0usize..3,
            pixels in prop::collection::vec((0u32..90, 0u32..90), 0..6),
        ) {
            let stride = w as usize * 4 + pad * 4;
            let a = vec![0u8; stride * h as usize];
            let mut b = a.clone();
            let mut changed = Vec::new();
            for (x, y) in pixels {
                let (x, y) = (x % w, y % h);
                b[y as usize * stride + x as usize * 4 + 1] = 1;
                changed.push((x as i32, y as i32));
            }
            let rects = changed_cells(&a, &b, w, h, stride, 16);
            for (x, y) in &changed {
                prop_assert!(rects.iter().any(|r| r.contains(handrail_platform::Point::new(*x, *y))), "{x},{y} not in {rects:?}");
            }
            for r in &rects {
                prop_assert!(r.x >= 0 && r.y >= 0 && r.x as u32 + r.width <= w && r.y as u32 + r.height <= h);
            }
            prop_assert_eq!(rects.is_empty(), changed.is_empty());
        }
    }
}

//! The compact visual channel: a small greyscale thumbnail per frame and a tile diff between two.
//!
//! The thumbnail is an area average (each thumbnail pixel covers `cell`×`cell` screenshot pixels), so it
//! costs one pass over the frame and a small change such as a checkbox mark still moves a cell's mean
//! well above noise, while JPEG-free raw capture keeps unchanged areas exactly equal.

use handrail_platform::{Frame, Rect, Size};

/// Screenshot pixels per thumbnail pixel along each side.
const CELL: u32 = 8;
/// Thumbnail pixels per diff tile along each side (a tile covers 32×32 screenshot pixels).
const TILE: u32 = 4;
/// Grey-level change of one thumbnail pixel that counts as a change.
const PIXEL_THRESHOLD: u8 = 6;

/// A small greyscale picture of a frame.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Thumbnail {
    /// Size of the frame it was made from (screenshot space).
    pub source: Size,
    pub width: u32,
    pub height: u32,
    pub grey: Vec<u8>,
}

impl Thumbnail {
    /// Builds the thumbnail of a BGRX frame in one pass.
    pub fn of(frame: &Frame) -> Thumbnail {
        let source = frame.size;
        if !frame.is_consistent() || source.width == 0 || source.height == 0 {
            return Thumbnail { source, ..Thumbnail::default() };
        }
        let width = source.width.div_ceil(CELL);
        let height = source.height.div_ceil(CELL);
        // Per pixel column, the sum of a cell's rows: at most CELL × 255, well inside a u16.
        let mut columns = vec![0u16; source.width as usize];
        let mut grey = Vec::with_capacity((width * height) as usize);
        for ty in 0..height {
            columns.fill(0);
            let y0 = ty * CELL;
            let y1 = (y0 + CELL).min(source.height);
            for y in y0..y1 {
                // One straight pass a row, which the compiler vectorises (summing each cell's eight
                // pixels of every row instead was a third of the time).
                handrail_imaging::add_luma_row(frame.row(y), &mut columns);
            }
            let rows = y1 - y0;
            grey.extend(columns.chunks(CELL as usize).map(|cell| {
                let sum: u32 = cell.iter().map(|&c| u32::from(c)).sum();
                (sum / (cell.len() as u32 * rows).max(1)) as u8
            }));
        }
        Thumbnail { source, width, height, grey }
    }

    /// Mean grey level of the thumbnail pixels covering `rect` (screenshot coordinates).
    pub fn mean_in(&self, rect: &Rect) -> Option<f64> {
        let (x0, y0, x1, y1) = self.cells_of(rect)?;
        let mut sum = 0u64;
        let mut n = 0u64;
        for y in y0..y1 {
            for x in x0..x1 {
                sum += u64::from(self.grey[(y * self.width + x) as usize]);
                n += 1;
            }
        }
        (n > 0).then(|| sum as f64 / n as f64)
    }

    /// True when the pixels under `rect` differ between two thumbnails of the same size.
    pub fn region_changed(&self, other: &Thumbnail, rect: &Rect) -> bool {
        if self.width != other.width || self.height != other.height {
            return true;
        }
        let Some((x0, y0, x1, y1)) = self.cells_of(rect) else {
            return false;
        };
        (y0..y1).any(|y| {
            (x0..x1).any(|x| {
                let i = (y * self.width + x) as usize;
                self.grey[i].abs_diff(other.grey[i]) > PIXEL_THRESHOLD
            })
        })
    }

    fn cells_of(&self, rect: &Rect) -> Option<(u32, u32, u32, u32)> {
        let r = rect.clamped_to(&Rect::from_size(self.source));
        if r.is_empty() || self.grey.is_empty() {
            return None;
        }
        let x0 = r.x as u32 / CELL;
        let y0 = r.y as u32 / CELL;
        let x1 = ((r.right() as u32).div_ceil(CELL)).min(self.width);
        let y1 = ((r.bottom() as u32).div_ceil(CELL)).min(self.height);
        Some((x0, y0, x1, y1))
    }
}

/// What the pixels say changed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct VisualDiff {
    /// Fraction of tiles that changed (0..=1).
    pub changed_fraction: f64,
    /// Bounding box of the changed tiles, screenshot coordinates.
    pub bounds: Option<Rect>,
    pub changed_tiles: u32,
    pub total_tiles: u32,
}

impl VisualDiff {
    pub fn changed(&self) -> bool {
        self.changed_tiles > 0
    }

    /// Compares two thumbnails tile by tile, ignoring tiles that touch any of `ignore` (regions that were
    /// already animating before the action, in screenshot coordinates).
    pub fn between(before: &Thumbnail, after: &Thumbnail, ignore: &[Rect]) -> VisualDiff {
        if before.width != after.width || before.height != after.height || before.grey.is_empty() {
            let whole = Rect::from_size(after.source);
            return VisualDiff {
                changed_fraction: 1.0,
                bounds: (!whole.is_empty()).then_some(whole),
                changed_tiles: 1,
                total_tiles: 1,
            };
        }
        let tiles_x = before.width.div_ceil(TILE);
        let tiles_y = before.height.div_ceil(TILE);
        let mut changed = 0u32;
        let mut total = 0u32;
        let mut bounds: Option<Rect> = None;
        let tile_px = CELL * TILE;
        for ty in 0..tiles_y {
            for tx in 0..tiles_x {
                let rect = Rect::new((tx * tile_px) as i32, (ty * tile_px) as i32, tile_px, tile_px)
                    .clamped_to(&Rect::from_size(before.source));
                if ignore.iter().any(|r| r.intersects(&rect)) {
                    continue;
                }
                total += 1;
                if before.region_changed(after, &rect) {
                    changed += 1;
                    bounds = Some(bounds.map_or(rect, |b| b.union(&rect)));
                }
            }
        }
        VisualDiff {
            changed_fraction: if total == 0 { 0.0 } else { f64::from(changed) / f64::from(total) },
            bounds,
            changed_tiles: changed,
            total_tiles: total,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame_with_box(size: Size, r: Option<Rect>) -> Frame {
        let mut f = Frame::solid(size, [230, 230, 230, 0]);
        if let Some(r) = r {
            for y in r.y as u32..r.bottom() as u32 {
                for x in r.x as u32..r.right() as u32 {
                    let i = y as usize * f.stride + x as usize * 4;
                    f.pixels[i..i + 3].copy_from_slice(&[20, 20, 20]);
                }
            }
        }
        f
    }

    /// Each thumbnail pixel computed alone: the mean luma of the screenshot pixels it covers.
    fn thumbnail_by_definition(frame: &Frame) -> Vec<u8> {
        let (w, h) = (frame.size.width, frame.size.height);
        let mut grey = Vec::new();
        for ty in 0..h.div_ceil(CELL) {
            for tx in 0..w.div_ceil(CELL) {
                let (mut sum, mut n) = (0u32, 0u32);
                for y in ty * CELL..((ty + 1) * CELL).min(h) {
                    for x in tx * CELL..((tx + 1) * CELL).min(w) {
                        let i = y as usize * frame.stride + x as usize * 4;
                        let px = &frame.pixels[i..i + 4];
                        sum += u32::from(handrail_imaging::luma(px[0], px[1], px[2]));
                        n += 1;
                    }
                }
                grey.push((sum / n) as u8);
            }
        }
        grey
    }

    proptest::proptest! {
        #[test]
        fn every_cell_is_the_mean_luma_of_the_pixels_it_covers(
            width in 1u32..40,
            height in 1u32..40,
            padding in 0usize..3,
            seed in proptest::prelude::any::<u64>(),
        ) {
            let size = Size::new(width, height);
            let stride = width as usize * 4 + padding * 4;
            let mut state = seed | 1;
            let pixels = (0..stride * height as usize)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    state as u8
                })
                .collect();
            let frame = Frame { size, screen: size, stride, pixels, origin: Rect::from_size(size) };
            let t = Thumbnail::of(&frame);
            proptest::prop_assert_eq!((t.width, t.height), (width.div_ceil(CELL), height.div_ceil(CELL)));
            proptest::prop_assert_eq!(t.grey, thumbnail_by_definition(&frame));
        }
    }

    #[test]
    fn identical_frames_do_not_differ() {
        let a = Thumbnail::of(&frame_with_box(Size::new(320, 200), Some(Rect::new(10, 10, 30, 30))));
        let b = a.clone();
        let d = VisualDiff::between(&a, &b, &[]);
        assert!(!d.changed());
        assert_eq!(d.bounds, None);
    }

    #[test]
    fn a_small_mark_is_seen_and_located() {
        let size = Size::new(320, 200);
        let a = Thumbnail::of(&frame_with_box(size, None));
        let b = Thumbnail::of(&frame_with_box(size, Some(Rect::new(100, 70, 6, 6))));
        let d = VisualDiff::between(&a, &b, &[]);
        assert!(d.changed());
        let bounds = d.bounds.expect("bounds");
        assert!(bounds.contains_rect(&Rect::new(100, 70, 6, 6)), "{bounds}");
        assert!(d.changed_fraction < 0.05);
    }

    #[test]
    fn ignored_regions_are_masked() {
        let size = Size::new(320, 200);
        let a = Thumbnail::of(&frame_with_box(size, None));
        let b = Thumbnail::of(&frame_with_box(size, Some(Rect::new(100, 70, 6, 6))));
        let d = VisualDiff::between(&a, &b, &[Rect::new(96, 64, 16, 16)]);
        assert!(!d.changed());
    }

    #[test]
    fn size_change_counts_as_whole_change() {
        let a = Thumbnail::of(&frame_with_box(Size::new(320, 200), None));
        let b = Thumbnail::of(&frame_with_box(Size::new(160, 100), None));
        assert!(VisualDiff::between(&a, &b, &[]).changed());
    }
}

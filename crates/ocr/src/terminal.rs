//! Reading terminals: a character grid in one monospace font, often a small bitmap one (xterm's default
//! `fixed` is 6x13 px), that the screen settings misread — at 2x Tesseract reads xterm's
//! `hello-handrail-42` as `hel lo-handrai 1-42`.
//!
//! A terminal region is read whole (its text scrolls, so changed tiles say little about which lines
//! moved) as one block of text, with a memory of its own: an unchanged terminal costs a tile hash, and a
//! changed one never re-reads the screen around it. Its words are kept from a lower confidence than UI
//! labels: command lines and output (`word-$((4*7))-ok`, `drwxr-xr-x`) are read correctly at 50–60,
//! where garbage (a title bar read as text) scores under 45.
//!
//! Measured on two 90x30 xterm screens in the default `fixed` font (29 lines each; one of commands and
//! their output, one of `l`/`.`-heavy identifiers), lines read exactly (`ocr_png --terminal`):
//! screen settings 20 and 19; 2x, one block, confidence 45: 24 and 19; 3x: 22 and 18; 4x: 21 and 18
//! (bilinear upscaling past 2x blurs the 1 px strokes more than it helps). What remains is glyphs the
//! model confuses in this font (`.` as `,`, `ll` as `l1`) and spaces it invents (`hel lo`), which the
//! engine's `text:` check tolerates for OCR text.

use std::time::Instant;

use handrail_platform::{OcrLine, Rect};

use crate::changes::TileGrid;
use crate::engine::PageSegMode;
use crate::grey::GreyImage;
use crate::layout::{self, LayoutParams};
use crate::{lock, unscale, OcrError, TesseractOcr, Upscale};

/// How terminal regions ([`handrail_platform::Ocr::terminal_regions`]) are read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TerminalReading {
    /// Upscale factor (bilinear). Lowered for a terminal so large that the upscaled image would exceed
    /// [`TerminalReading::max_pixels`]; 1 under [`Upscale::Never`].
    pub factor: u32,
    pub page_seg_mode: PageSegMode,
    /// Words below this confidence are dropped unless they look like real words (as
    /// [`crate::TesseractConfig::min_confidence`] for the rest of the screen).
    pub min_confidence: f32,
    /// Bound on the upscaled image handed to Tesseract (pixels), which bounds the time of one read.
    pub max_pixels: u64,
    /// Read the row of an empty block cursor again with the cursor painted over (`cursor.rs`), so a
    /// bare prompt reads as its sign.
    pub erase_cursor: bool,
}

impl Default for TerminalReading {
    fn default() -> Self {
        Self {
            factor: 2,
            page_seg_mode: PageSegMode::SingleBlock,
            min_confidence: 45.0,
            max_pixels: 6_000_000,
            erase_cursor: true,
        }
    }
}

impl TerminalReading {
    /// The factor for a region of `area` pixels.
    pub(crate) fn factor_for(&self, area: u64, upscale: Upscale) -> u32 {
        if upscale == Upscale::Never {
            return 1;
        }
        let mut f = self.factor.max(1);
        while f > 1 && area.saturating_mul(u64::from(f * f)) > self.max_pixels {
            f -= 1;
        }
        f
    }
}

/// What the previous read of one terminal region saw.
pub(crate) struct TerminalMemory {
    /// The region in frame coordinates, with the frame's size and origin.
    key: (handrail_platform::Size, Rect, Rect),
    tiles: TileGrid,
    factor: u32,
    /// In frame coordinates.
    lines: Vec<OcrLine>,
}

/// Terminal regions remembered at once (a few terminals side by side, or a region inspected in one).
const MEMORIES: usize = 4;

impl TesseractOcr {
    /// Reads each terminal region `terminals` (coordinates of `grey`, the area `area` of the frame, skip
    /// regions painted flat) and returns its lines in frame coordinates.
    pub(crate) fn read_terminals(
        &self,
        grey: &GreyImage,
        terminals: &[Rect],
        area: Rect,
        frame: (handrail_platform::Size, Rect),
        incremental: bool,
    ) -> Result<Vec<OcrLine>, OcrError> {
        let mut memory = lock(&self.terminal_memory);
        let mut lines = Vec::new();
        for &t in terminals.iter().filter(|t| !t.is_empty()) {
            let in_frame = Rect::new(t.x + area.x, t.y + area.y, t.width, t.height);
            let key = (frame.0, frame.1, in_frame);
            let image = grey.crop(t);
            let tiles = TileGrid::of(&image);
            let factor = self.config.terminal.factor_for(t.area(), self.config.upscale);
            let previous = memory.iter().position(|m| m.key == key).map(|i| memory.remove(i));
            let same = previous.as_ref().filter(|p| {
                incremental
                    && self.config.incremental
                    && p.factor == factor
                    && p.tiles.changed_since(&tiles).is_some_and(|c| c.is_empty())
            });
            let found = match same {
                Some(p) => {
                    lock(&self.stats).reused_terminals += 1;
                    p.lines.clone()
                }
                None => self.read_terminal(grey, t, area, factor)?,
            };
            lines.extend(found.iter().cloned());
            memory.push(TerminalMemory { key, tiles, factor, lines: found });
            if memory.len() > MEMORIES {
                memory.remove(0);
            }
        }
        Ok(lines)
    }

    /// Reads one terminal region `t` of `grey` whole, then the row of each empty block cursor again
    /// without the cursor (see `cursor.rs`): read with it, a bare prompt comes back as one unreadable
    /// word. Only that row is read again: read whole without the cursor, a terminal in a small bitmap
    /// font reads other rows worse (xterm's `word-77-ok` as `word-?77-ok`).
    fn read_terminal(&self, grey: &GreyImage, t: Rect, area: Rect, factor: u32) -> Result<Vec<OcrLine>, OcrError> {
        let started = Instant::now();
        let mut lines = self.read_block(grey, t, area, factor)?;
        let cursors = if self.config.terminal.erase_cursor { grey.block_cursors(t) } else { Vec::new() };
        // One copy of the frame with every cursor painted over (none made when there is no cursor);
        // each cursor's row is read from it.
        let mut cleaned = None;
        for cursor in &cursors {
            let cleaned: &GreyImage = cleaned.get_or_insert_with(|| {
                let mut copy = grey.clone();
                cursors.iter().for_each(|c| copy.erase(c));
                copy
            });
            let c = cursor.rect;
            // From the terminal's left edge through the cursor, with a little of the rows around it.
            let Some(row) =
                Rect::new(t.x, c.y - 2, (c.right() - i64::from(t.x)).max(0) as u32 + 2, c.height + 4).intersection(&t)
            else {
                continue;
            };
            let read = self.read_block(cleaned, row, area, factor)?;
            let in_frame = Rect::new(row.x + area.x, row.y + area.y, row.width, row.height);
            let cursor_row = |l: &OcrLine| in_frame.contains(l.bounds.center());
            lines.retain(|l| !cursor_row(l));
            lines.extend(read.into_iter().filter(|l| cursor_row(l)));
        }
        lines.sort_by_key(|l| (l.bounds.y, l.bounds.x));
        let mut stats = lock(&self.stats);
        stats.terminal_passes += 1;
        stats.tesseract_runs += 1 + cursors.len() as u64;
        stats.pixels_read += t.area();
        stats.last_terminal_factor = factor;
        drop(stats);
        log::debug!(
            "ocr: terminal {t:?} at {factor}x: {} lines, {} cursor rows read again, in {:?}",
            lines.len(),
            cursors.len(),
            started.elapsed()
        );
        Ok(lines)
    }

    /// Reads `r` of `grey` as one block of terminal text, its lines in frame coordinates.
    fn read_block(&self, grey: &GreyImage, r: Rect, area: Rect, factor: u32) -> Result<Vec<OcrLine>, OcrError> {
        let mut img = self.prepared(grey, r);
        if factor > 1 {
            img = img.upscale(factor);
        }
        let mut engines = self.take_engines()?;
        let read = (|| {
            let ppi = 96 * factor;
            let mut raw =
                engines.primary.recognize(&img, self.config.terminal.page_seg_mode, ppi, self.config.deadline)?;
            if let Some(spec) = &self.ready()?.secondary {
                self.retry_in_other_languages(&mut engines, spec, &img, factor, &mut raw)?;
            }
            Ok(raw)
        })();
        self.give_back(engines);
        let mut words = read?;
        for w in &mut words {
            let b = unscale(&w.bounds, &r, factor);
            w.bounds = Rect::new(b.x + area.x, b.y + area.y, b.width, b.height);
            log::trace!("ocr: terminal word {:?} {:?} {:.0}", w.text, w.bounds, w.confidence);
        }
        let params = LayoutParams {
            min_confidence: self.config.terminal.min_confidence,
            prompts: true,
            ..LayoutParams::default()
        };
        Ok(layout::group(&words, params))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn factor_shrinks_for_large_terminals_and_follows_never() {
        let r = TerminalReading { factor: 3, ..TerminalReading::default() };
        assert_eq!(r.factor_for(544 * 394, Upscale::Auto), 3);
        // A maximised 1280x800 terminal: 9.2 MP at 3x, 4.1 MP at 2x.
        assert_eq!(r.factor_for(1280 * 800, Upscale::Auto), 2);
        assert_eq!(r.factor_for(4000 * 3000, Upscale::Always), 1);
        assert_eq!(r.factor_for(544 * 394, Upscale::Never), 1);
        assert_eq!(TerminalReading { factor: 0, ..r }.factor_for(10, Upscale::Auto), 1);
    }
}

//! Where text sits on screen. Rendering draws these runs and OCR reports them, so the two always agree.

use handrail_platform::Rect;

use crate::spec::WidgetKind;
use crate::world::{WidgetData, World, ROW_H};

/// Horizontal distance between characters (6 px glyph + 1 px gap).
pub(crate) const GLYPH_ADVANCE: u32 = 7;
/// Glyph height: 5 rows of 2 px blocks.
pub(crate) const GLYPH_H: u32 = 10;
/// What a password entry shows for each character.
pub(crate) const BULLET: char = '•';

/// How a run of text is inked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ink {
    Normal,
    Dim,
    Placeholder,
    Link,
    TitleActive,
    TitleInactive,
}

/// One line of text as drawn: the characters shown (already truncated to fit) and their box.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TextRun {
    pub text: String,
    pub rect: Rect,
    pub ink: Ink,
}

/// Lays `text` out from (`x`, `y`), dropping characters that would not fit in `max_width`.
fn fit(text: &str, x: i32, y: i32, max_width: u32, ink: Ink) -> Option<TextRun> {
    let max_chars = (max_width / GLYPH_ADVANCE) as usize;
    let shown: String = text.chars().take(max_chars).collect();
    if shown.trim().is_empty() {
        return None;
    }
    let n = shown.chars().count() as u32;
    Some(TextRun { text: shown, rect: Rect::new(x, y, n * GLYPH_ADVANCE - 1, GLYPH_H), ink })
}

/// Top of a glyph row vertically centred in a box starting at `y` of height `h`.
fn centred(y: i32, h: u32) -> i32 {
    y + (h as i32 - GLYPH_H as i32) / 2
}

/// The text a widget shows, in screen coordinates.
pub(crate) fn widget_runs(d: &WidgetData) -> Vec<TextRun> {
    let b = d.bounds();
    let ink = if d.w.enabled { Ink::Normal } else { Ink::Dim };
    let ty = centred(b.y, b.height);
    let inner = b.width.saturating_sub(12);
    let run = match d.kind() {
        WidgetKind::Spinner => None,
        WidgetKind::List => {
            let rows = d.w.items.iter().enumerate().skip(d.offset).take(d.visible_rows());
            return rows
                .filter_map(|(i, item)| {
                    let row_y = b.y + ((i - d.offset) as u32 * ROW_H) as i32;
                    fit(item, b.x + 6, centred(row_y, ROW_H), inner, ink)
                })
                .collect();
        }
        WidgetKind::Checkbox => fit(&d.w.label, b.x + 22, ty, b.width.saturating_sub(24), ink),
        WidgetKind::Entry if d.w.value.is_empty() => fit(&d.w.label, b.x + 6, ty, inner, Ink::Placeholder),
        WidgetKind::Entry => fit(&d.w.value, b.x + 6, ty, inner, ink),
        WidgetKind::TextArea => {
            // Its last line, tabs drawn as spaces.
            let last = d.w.value.rsplit('\n').next().unwrap_or_default().replace('\t', "    ");
            fit(&last, b.x + 6, ty, inner, ink)
        }
        WidgetKind::Terminal => fit(&format!("$ {}", d.w.value), b.x + 6, ty, inner, ink),
        WidgetKind::PasswordEntry if d.w.value.is_empty() => fit(&d.w.label, b.x + 6, ty, inner, Ink::Placeholder),
        WidgetKind::PasswordEntry => {
            // The secret never reaches pixels or OCR: one bullet per character, as toolkits draw it.
            let bullets: String = d.w.value.chars().map(|_| BULLET).collect();
            fit(&bullets, b.x + 6, ty, inner, ink)
        }
        WidgetKind::Link => fit(&d.w.label, b.x + 6, ty, inner, if d.w.enabled { Ink::Link } else { ink }),
        WidgetKind::Button
        | WidgetKind::MenuItem
        | WidgetKind::Menu
        | WidgetKind::Text
        | WidgetKind::ListItem
        | WidgetKind::Tab => fit(&d.w.label, b.x + 6, ty, inner, ink),
    };
    run.into_iter().collect()
}

/// Every readable line of text on screen, in screen coordinates, bottom window first: clipped to its
/// window and dropped when a window above covers its centre.
pub(crate) fn screen_text(world: &World) -> Vec<(String, Rect)> {
    let windows: Vec<_> = world.open_windows().collect();
    let screen = Rect::from_size(world.screen);
    let mut lines = Vec::new();
    for (i, win) in windows.iter().enumerate() {
        let front = world.front_window() == Some(win.id);
        let mut runs: Vec<(TextRun, Rect)> = Vec::new();
        if let Some(bar) = win.title_bar() {
            let ink = if front { Ink::TitleActive } else { Ink::TitleInactive };
            if let Some(run) = title_run(&win.title, bar, ink) {
                runs.push((run, bar));
            }
        }
        let content = win.content();
        for id in &win.widgets {
            let Some(d) = world.widget(*id) else { continue };
            if !d.w.visible || !d.w.ocr_visible {
                continue;
            }
            let clip = d.bounds().clamped_to(&content);
            runs.extend(widget_runs(d).into_iter().map(|r| (r, clip)));
        }
        for (run, clip) in runs {
            let rect = run.rect.clamped_to(&clip).clamped_to(&screen);
            if rect.is_empty() {
                continue;
            }
            let centre = rect.center();
            if windows[i + 1..].iter().any(|above| above.bounds.contains(centre)) {
                continue;
            }
            lines.push((run.text.trim().to_string(), rect));
        }
    }
    lines
}

/// A window title in its title bar.
pub(crate) fn title_run(title: &str, bar: Rect, ink: Ink) -> Option<TextRun> {
    fit(title, bar.x + 8, centred(bar.y, bar.height), bar.width.saturating_sub(16), ink)
}

//! Turns an accessibility snapshot and OCR lines into one element list.
//!
//! Accessibility nodes come in screen coordinates and are mapped into screenshot coordinates; OCR lines
//! already are. Elements read the way a person reads them: a combo box as its caption and the item it
//! shows, an unnamed list item or cell as the text inside it. An OCR line that repeats an accessibility
//! element's text, exactly or up to misread glyphs, is folded into that element (`ax+ocr`), and one over
//! an editable field whose text is known is dropped; one that names an unlabelled control labels it; the
//! rest become `text` elements of their own. Secure fields lose their value here, and OCR text over them
//! is dropped, whatever a backend did.

use std::collections::HashMap;

use handrail_platform::{AxSnapshot, OcrLine, Rect, Role, Size, States};

use crate::ids::ElementId;
use crate::observation::{Element, ElementDetail, Source};
use crate::text::{mostly_known, near_match, normalize, squash_spaces};

/// Where the screenshot sits: its size and the screen pixels per screenshot pixel.
#[derive(Debug, Clone, Copy)]
pub struct Geometry {
    pub image: Size,
    pub scale: f64,
}

/// Containers kept only when they carry a name.
fn is_container(role: Role) -> bool {
    matches!(
        role,
        Role::Other | Role::List | Role::Table | Role::ToolBar | Role::MenuBar | Role::Document | Role::Window
    )
}

/// A merged element list and the index of the focused element.
#[derive(Debug, Clone, Default)]
pub struct Merged {
    pub elements: Vec<Element>,
    pub focus: Option<usize>,
}

/// Builds the element list (without ids: the tracker assigns them) in display order.
pub fn merge(ax: &AxSnapshot, ocr: &[OcrLine], geo: Geometry) -> Merged {
    let image_rect = Rect::from_size(geo.image);
    let to_shot = |r: &Rect| -> Rect {
        if geo.scale == 1.0 {
            *r
        } else {
            r.scaled(1.0 / geo.scale)
        }
    };

    // Accessibility nodes → candidates, remembering each node's candidate for parent links.
    let mut elements: Vec<Element> = Vec::new();
    let mut node_to_element: Vec<Option<usize>> = vec![None; ax.nodes.len()];
    let scrollers = scrollers(ax);
    for (ni, node) in ax.nodes.iter().enumerate() {
        let role = node.role();
        if node.states.contains(States::OFFSCREEN) || node.bounds.is_empty() || node.bounds.x <= -10_000 {
            continue;
        }
        let Some(shown) = shown_part(ax, ni, &scrollers) else { continue };
        let bounds = to_shot(&shown).clamped_to(&image_rect);
        if bounds.is_empty() {
            continue;
        }
        let label = node.name.trim().to_string();
        if role == Role::Window || (is_container(role) && label.is_empty()) {
            continue;
        }
        if role == Role::Text && label.is_empty() && node.value.as_deref().is_none_or(|v| v.trim().is_empty()) {
            continue;
        }
        let secure = node.is_secure();
        let mut states = node.states;
        if secure {
            states.insert(States::SECURE);
        }
        let parent = ancestors(ax, ni).find_map(|p| node_to_element[p]);
        let bindings = node.key_bindings.iter().map(|b| crate::bindings::parse_bindings(b)).fold(
            crate::bindings::Bindings::default(),
            |mut all, one| {
                all.unreadable |= one.unreadable;
                for c in one.combos {
                    if !all.combos.contains(&c) {
                        all.combos.push(c);
                    }
                }
                all
            },
        );
        node_to_element[ni] = Some(elements.len());
        elements.push(Element {
            id: ElementId::UNASSIGNED,
            role: if secure && role.is_text_input() { Role::PasswordEntry } else { role },
            label,
            value: if secure { None } else { node.value.clone() },
            bounds,
            states,
            source: Source::Ax,
            app: node.app.clone(),
            window: node.window.clone(),
            owner: None,
            detail: ElementDetail {
                native_role: node.native_role.clone(),
                description: node.description.clone(),
                actions: node.actions.clone(),
                shortcuts: bindings.combos,
                shortcuts_unreadable: bindings.unreadable,
                attributes: node.attributes.clone(),
                parent,
                in_toolbar: ancestors(ax, ni).any(|p| ax.nodes.get(p).is_some_and(|n| n.role() == Role::ToolBar)),
                ocr_confidence: None,
            },
        });
    }

    show_combo_selection(&mut elements);
    name_items_by_their_text(&mut elements);

    // A static text child that only repeats its parent's name (a button's label, a web label's inner
    // text, a heading's text run) adds nothing; nor does a cell inside a cell that repeats its name or
    // has none (a list row's name column holds an icon cell and a text cell, GTK's file chooser).
    let redundant: Vec<bool> = elements
        .iter()
        .map(|e| {
            e.detail.parent.is_some_and(|p| {
                let parent = &elements[p];
                let inside = parent.bounds.overlap_of_smaller(&e.bounds) > 0.8;
                let repeats = normalize(&parent.label) == normalize(&e.label);
                match e.role {
                    Role::Text => repeats && inside,
                    Role::Cell => {
                        parent.role == Role::Cell
                            && !parent.label.trim().is_empty()
                            && inside
                            && (repeats || e.label.trim().is_empty())
                            && e.value.as_deref().is_none_or(|v| v.trim().is_empty())
                    }
                    _ => false,
                }
            })
        })
        .collect();
    // The same element exposed twice (GTK 3 lists a combo box's open menu under the combo and again
    // as its popup window: every item twice, at the same place) is listed once; what hangs under the
    // second copy hangs under the first.
    let twin = twins(&elements, &redundant);
    let redundant: Vec<bool> = redundant.iter().zip(&twin).map(|(r, t)| *r || t.is_some()).collect();

    // Fold OCR lines in.
    let mut extra: Vec<Element> = Vec::new();
    for line in ocr {
        let text = line.text.trim();
        if text.is_empty() {
            continue;
        }
        let bounds = line.bounds.clamped_to(&image_rect);
        if bounds.is_empty() {
            continue;
        }
        if elements.iter().any(|e| e.is_secure() && e.bounds.overlap_of_smaller(&bounds) > 0.3) {
            continue; // never keep pixels read off a secret field
        }
        if let Some(i) = repeated_by(&elements, &redundant, &bounds, text) {
            let e = &mut elements[i];
            e.source = Source::AxOcr;
            e.detail.ocr_confidence = Some(line.confidence);
            continue;
        }
        if over_known_field(&elements, &bounds) {
            continue;
        }
        // An unlabelled control with this text inside it takes it as its label.
        let unlabelled = elements
            .iter()
            .enumerate()
            .filter(|(_, e)| e.is_interactive() && e.label.is_empty() && !e.role.is_text_input())
            .filter(|(_, e)| e.bounds.overlap_of_smaller(&bounds) > 0.8)
            .min_by_key(|(_, e)| e.bounds.area())
            .map(|(i, _)| i);
        if let Some(i) = unlabelled {
            let e = &mut elements[i];
            e.label = text.to_string();
            e.source = Source::AxOcr;
            e.detail.ocr_confidence = Some(line.confidence);
            continue;
        }
        extra.push(Element {
            id: ElementId::UNASSIGNED,
            role: Role::Text,
            label: text.to_string(),
            value: None,
            bounds,
            states: States::empty(),
            source: Source::Ocr,
            app: String::new(),
            window: String::new(),
            owner: None,
            detail: ElementDetail { ocr_confidence: Some(line.confidence), ..ElementDetail::default() },
        });
    }

    label_unlabelled_inputs(&mut elements, &redundant);

    // Drop redundant children, re-pointing parent links, then order and append OCR-only text. Focus on
    // a dropped child is its parent's: keyboard input reaches the element the model can name.
    for i in (0..elements.len()).rev().filter(|&i| redundant[i]) {
        if let (true, Some(p)) = (elements[i].states.contains(States::FOCUSED), twin[i].or(elements[i].detail.parent)) {
            elements[p].states.insert(States::FOCUSED);
        }
    }
    let mut remap: Vec<Option<usize>> = vec![None; elements.len()];
    let mut kept: Vec<Element> = Vec::with_capacity(elements.len() + extra.len());
    for (i, e) in elements.into_iter().enumerate() {
        if !redundant[i] {
            remap[i] = Some(kept.len());
            kept.push(e);
        }
    }
    for e in &mut kept {
        e.detail.parent = e.detail.parent.and_then(|p| remap[twin[p].unwrap_or(p)]);
    }
    kept.extend(extra);
    order(kept)
}

/// For each element that repeats an earlier one of the same app exactly (role, label, value, place),
/// that earlier one.
fn twins(elements: &[Element], redundant: &[bool]) -> Vec<Option<usize>> {
    let mut first: HashMap<(Role, &str, Option<&str>, Rect, &str), usize> = HashMap::new();
    let mut twin = vec![None; elements.len()];
    for (i, e) in elements.iter().enumerate() {
        if redundant[i] || e.bounds.is_empty() {
            continue;
        }
        let key = (e.role, e.label.as_str(), e.value.as_deref(), e.bounds, e.app.as_str());
        match first.get(&key) {
            Some(&j) => twin[i] = Some(j),
            None => {
                first.insert(key, i);
            }
        }
    }
    twin
}

/// The element an OCR line repeats, if any: one it overlaps that shows the same text, or one it lies
/// mostly inside that shows nearly the same text (misread glyphs: "Kerlanne" over "Kerianne"; a known
/// line with a garbled tail), or one whose text it begins or ends where it touches it (a fragment, see
/// [`fragment_of`]). The one it overlaps most wins.
fn repeated_by(elements: &[Element], redundant: &[bool], line: &Rect, text: &str) -> Option<usize> {
    let squashed = squash_spaces(text);
    let same = |s: &str| {
        let s = squash_spaces(s);
        !s.is_empty() && (s.contains(&squashed) || squashed.contains(&s))
    };
    elements
        .iter()
        .enumerate()
        .filter(|(i, _)| !redundant[*i])
        .filter_map(|(i, e)| {
            let overlap = e.bounds.overlap_of_smaller(line);
            let exact = overlap > 0.5 && e.visible_texts().any(same);
            let near = || {
                mostly_inside(line, &e.bounds)
                    && e.visible_texts().any(|s| near_match(text, s) || mostly_known(text, s))
            };
            let fragment = || e.visible_texts().any(|s| fragment_of(line, text, &e.bounds, s));
            (exact || near() || fragment()).then_some((i, overlap))
        })
        .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))
        .map(|(i, _)| i)
}

/// True when an OCR line is the cut-off start (or end) of `known`, the text of the element it touches on
/// the same row. GTK reports a tree view's cells one expander to the right of their text, and OCR skips
/// regions whose text the tree gives, so only the first letters left of the cell are read: "Pe|" beside
/// "Pepin the Short". The glyph at the cut is often garbled, so non-letters there are ignored and a
/// fragment of three or more letters may differ in one.
fn fragment_of(line: &Rect, text: &str, area: &Rect, known: &str) -> bool {
    const TOUCH: i64 = 4;
    let shared_rows = line.bottom().min(area.bottom()) - i64::from(line.y.max(area.y));
    if shared_rows * 2 < i64::from(line.height) {
        return false;
    }
    let (left, right) = (i64::from(area.x), area.right());
    let half = i64::from(area.width / 2);
    let starts_it = i64::from(line.x) < left && (left - TOUCH..=left + half).contains(&line.right());
    let ends_it = line.right() > right && (right - half..=right + TOUCH).contains(&i64::from(line.x));
    let not_letter = |c: char| !c.is_alphanumeric();
    let (piece, whole): (Vec<char>, Vec<char>) = if starts_it {
        (squash_spaces(text.trim_end_matches(not_letter)).chars().collect(), squash_spaces(known).chars().collect())
    } else if ends_it {
        let reversed = |s: &str| squash_spaces(s).chars().rev().collect::<Vec<char>>();
        (reversed(text.trim_start_matches(not_letter)), reversed(known))
    } else {
        return false;
    };
    if piece.is_empty() || piece.len() > whole.len() {
        return false;
    }
    let allowed = usize::from(piece.len() >= 3).max(piece.len() / 4);
    piece.iter().zip(&whole).filter(|(a, b)| a != b).count() <= allowed
}

/// True when an OCR line lies mostly over a one-line field (entry, spin button, combo box) whose text
/// the accessibility tree gives: such a field shows that text and icons, so what else OCR reads there
/// (the caret, a selection, a clipped glyph, an arrow read as "| v") adds nothing. Multi-line fields and
/// terminals are left to [`repeated_by`]: their known text may be clipped.
fn over_known_field(elements: &[Element], line: &Rect) -> bool {
    elements.iter().any(|e| {
        matches!(e.role, Role::Entry | Role::SpinButton | Role::ComboBox)
            && e.value.as_deref().is_some_and(|v| !v.trim().is_empty())
            && mostly_inside(line, &e.bounds)
    })
}

/// True when most of `line` lies within `area` grown by a few pixels: OCR boxes and toolkit extents
/// disagree by a little at the edges.
fn mostly_inside(line: &Rect, area: &Rect) -> bool {
    const SLACK: u32 = 4;
    let grown = Rect::new(
        area.x.saturating_sub(SLACK as i32),
        area.y.saturating_sub(SLACK as i32),
        area.width.saturating_add(2 * SLACK),
        area.height.saturating_add(2 * SLACK),
    );
    grown.intersection(line).is_some_and(|i| i.area() * 2 > line.area())
}

/// A combo box reads as its caption and the item it shows. Its value is that item (an entry combo's
/// entry text where the backend gave none); GTK names a combo that has no accessible name after its
/// selected row, which would hide the caption, so a label that only repeats the value is dropped (the
/// caption beside it then labels it).
fn show_combo_selection(elements: &mut [Element]) {
    for i in 0..elements.len() {
        if elements[i].role != Role::ComboBox {
            continue;
        }
        if elements[i].value.as_deref().is_none_or(|v| v.trim().is_empty()) {
            let entry = elements.iter().find(|c| {
                c.detail.parent == Some(i)
                    && c.role.is_text_input()
                    && c.value.as_deref().is_some_and(|v| !v.is_empty())
            });
            if let Some(text) = entry.and_then(|c| c.value.clone()) {
                elements[i].value = Some(text);
            }
        }
        let e = &mut elements[i];
        if e.value.as_deref().is_some_and(|v| !e.label.is_empty() && normalize(v) == normalize(&e.label)) {
            e.label.clear();
        }
    }
}

/// List and tree items and table cells without a name of their own read as the text inside them (a
/// GTK list row holding a label, a row of cells): what a person reads there. Text inside a nested item
/// belongs to that item.
fn name_items_by_their_text(elements: &mut [Element]) {
    const MAX_CHARS: usize = 120;
    let is_item = |r: Role| matches!(r, Role::ListItem | Role::Cell);
    for i in 0..elements.len() {
        if !is_item(elements[i].role) || !elements[i].label.trim().is_empty() {
            continue;
        }
        let mut words: Vec<&str> = Vec::new();
        // Elements come in tree order, so a subtree is the run of descendants right after its root.
        for j in i + 1..elements.len() {
            let Some(owner) = nearest_item_ancestor(elements, j, i) else { break };
            let e = &elements[j];
            if owner == i && matches!(e.role, Role::Text | Role::Heading | Role::Cell) && !e.label.trim().is_empty() {
                words.push(e.label.trim());
            }
        }
        let text = squash_whitespace(&words.join(" "));
        elements[i].label = text.chars().take(MAX_CHARS).collect();
    }
}

/// For a descendant `j` of `root`: the nearest list item or cell above it, up to `root` (`None` when `j`
/// is not inside `root`).
fn nearest_item_ancestor(elements: &[Element], j: usize, root: usize) -> Option<usize> {
    let mut nearest: Option<usize> = None;
    let mut current = elements[j].detail.parent;
    for _ in 0..elements.len() {
        let p = current?;
        if nearest.is_none() && (p == root || matches!(elements[p].role, Role::ListItem | Role::Cell)) {
            nearest = Some(p);
        }
        if p == root {
            return nearest;
        }
        current = elements[p].detail.parent;
    }
    None // a malformed (cyclic) chain
}

fn squash_whitespace(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Gives an unnamed text input (or slider) the caption a person would read as its label: the nearest
/// static text just left of it on the same row, else just above it. Toolkits often leave the label-for
/// relation out (GTK forms built without mnemonics), and "entry \"\"" tells a model nothing.
fn label_unlabelled_inputs(elements: &mut [Element], redundant: &[bool]) {
    const MAX_LEFT_GAP: i64 = 220;
    const MAX_ABOVE_GAP: i64 = 40;
    let captions: Vec<(usize, Rect, String)> = elements
        .iter()
        .enumerate()
        .filter(|(i, e)| !redundant[*i] && e.role == Role::Text && !e.label.trim().is_empty())
        .filter(|(_, e)| e.label.chars().count() <= 60)
        .map(|(i, e)| (i, e.bounds, e.label.trim().trim_end_matches(':').trim().to_string()))
        .collect();
    for e in elements.iter_mut() {
        if !(e.role.is_text_input() || e.role == Role::Slider) || !e.label.trim().is_empty() {
            continue;
        }
        let b = e.bounds;
        let mid = i64::from(b.center().y);
        let left = captions
            .iter()
            .filter(|(_, c, _)| {
                let c_mid = i64::from(c.center().y);
                let gap = i64::from(b.x) - c.right();
                (c_mid - mid).abs() <= i64::from(b.height.max(c.height)) / 2 && (0..=MAX_LEFT_GAP).contains(&gap)
            })
            .min_by_key(|(i, c, _)| (i64::from(b.x) - c.right(), *i));
        let above = || {
            captions
                .iter()
                .filter(|(_, c, _)| {
                    let gap = i64::from(b.y) - c.bottom();
                    (0..=MAX_ABOVE_GAP).contains(&gap) && c.x < b.x + b.width as i32 && c.right() > i64::from(b.x)
                })
                .min_by_key(|(i, c, _)| (i64::from(b.y) - c.bottom(), *i))
        };
        if let Some((_, _, caption)) = left.or_else(above) {
            e.label = caption.clone();
        }
    }
}

/// Nodes that scroll their content: a scroll pane or viewport by the toolkit's own role, or the
/// nearest ancestor of a scroll bar that is larger than the bar (Qt names its scroll areas "filler"
/// and wraps each bar in a container of the bar's size).
fn scrollers(ax: &AxSnapshot) -> Vec<bool> {
    let mut scrollers: Vec<bool> =
        ax.nodes.iter().map(|n| matches!(n.native_role.as_str(), "scroll pane" | "viewport")).collect();
    for (i, node) in ax.nodes.iter().enumerate() {
        if node.role() != Role::ScrollBar {
            continue;
        }
        let area = ancestors(ax, i).find(|&a| ax.nodes.get(a).is_some_and(|n| n.bounds != node.bounds));
        if let Some(slot) = area.and_then(|a| scrollers.get_mut(a)) {
            *slot = true;
        }
    }
    scrollers
}

/// The part of node `index` its scrolling ancestors show, in screen coordinates; `None` when it is
/// scrolled out of view. Toolkits keep widgets scrolled away "showing" at their place in the content
/// (Qt: a preferences page's rows below the fold, listed where the dialog's buttons are), and a click
/// there lands on something else. A node inside a popup (under a menu or combo box) is not clipped by
/// the containers of the control that opened it: the popup is drawn over them. The list of a closed
/// combo box is not shown at all, whatever its items say (Qt keeps them "showing" at the corner of the
/// screen, in a list with no extent of its own).
fn shown_part(ax: &AxSnapshot, index: usize, scrollers: &[bool]) -> Option<Rect> {
    let mut shown = ax.nodes.get(index)?.bounds;
    let mut in_a_placeless_container = false;
    for a in ancestors(ax, index) {
        let Some(ancestor) = ax.nodes.get(a) else { break };
        match ancestor.role() {
            Role::ComboBox if in_a_placeless_container => return None,
            Role::Menu | Role::MenuBar | Role::MenuItem | Role::ComboBox => break,
            _ => {}
        }
        in_a_placeless_container |= ancestor.bounds.is_empty();
        if scrollers.get(a).copied().unwrap_or(false) && !ancestor.bounds.is_empty() {
            shown = shown.intersection(&ancestor.bounds)?;
        }
    }
    Some(shown)
}

fn ancestors(ax: &AxSnapshot, index: usize) -> impl Iterator<Item = usize> + '_ {
    let mut current = ax.nodes.get(index).and_then(|n| n.parent);
    let mut steps = 0usize;
    std::iter::from_fn(move || {
        // A malformed chain (a cycle, an index past the snapshot) ends where it goes wrong.
        let p = current.filter(|p| *p < ax.nodes.len())?;
        steps += 1;
        if steps > ax.nodes.len() {
            return None; // a malformed (cyclic) parent chain must not loop forever
        }
        current = ax.nodes.get(p).and_then(|n| n.parent);
        Some(p)
    })
}

/// Interactive elements first, then the rest; each in reading order (rows of 8 px, then left to right).
fn order(elements: Vec<Element>) -> Merged {
    let mut idx: Vec<usize> = (0..elements.len()).collect();
    idx.sort_by_key(|i| {
        let e = &elements[*i];
        (!e.is_interactive(), e.bounds.y / 8, e.bounds.x, *i)
    });
    let mut position = vec![0usize; elements.len()];
    for (new, old) in idx.iter().enumerate() {
        position[*old] = new;
    }
    let focus_old = deepest_focus(&elements);
    let mut slots: Vec<Option<Element>> = elements.into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(slots.len());
    for old in idx {
        if let Some(mut e) = slots[old].take() {
            e.detail.parent = e.detail.parent.map(|p| position[p]);
            out.push(e);
        }
    }
    Merged { elements: out, focus: focus_old.map(|i| position[i]) }
}

/// The focused element: the first one marked so, or the innermost focused element inside it. Some apps
/// mark the chain down to it (LibreOffice: its document, the sheet, the cursor cell); keys reach the
/// innermost.
fn deepest_focus(elements: &[Element]) -> Option<usize> {
    let focused = |e: &Element| e.states.contains(States::FOCUSED);
    let inside = |mut i: usize, ancestor: usize| {
        for _ in 0..elements.len() {
            match elements[i].detail.parent {
                Some(p) if p == ancestor => return true,
                Some(p) => i = p,
                None => return false,
            }
        }
        false
    };
    let mut focus = elements.iter().position(focused)?;
    while let Some(inner) = (0..elements.len()).find(|&i| i != focus && focused(&elements[i]) && inside(i, focus)) {
        focus = inner;
    }
    Some(focus)
}

/// Gives elements of the frontmost window's application that window's human app name. The accessibility
/// tree names an application after its program (`xfce4-terminal`), the window system after its desktop
/// entry (`Xfce Terminal`); an accessible app named like the front window's class is that window's app.
pub fn name_front_app(elements: &mut [Element], front: Option<&handrail_platform::WindowInfo>) {
    let Some(w) = front.filter(|w| !w.app.is_empty() && !w.class.is_empty()) else {
        return;
    };
    for e in elements.iter_mut().filter(|e| e.app.eq_ignore_ascii_case(&w.class)) {
        e.app.clone_from(&w.app);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use handrail_platform::{AxHealth, AxNode};

    fn node(role: Role, name: &str, bounds: Rect, parent: Option<usize>) -> AxNode {
        AxNode {
            role: Some(role),
            name: name.into(),
            bounds,
            app: "App".into(),
            window: "Win".into(),
            parent,
            ..AxNode::default()
        }
    }

    fn line(text: &str, bounds: Rect) -> OcrLine {
        OcrLine { text: text.into(), bounds, confidence: 90.0 }
    }

    const GEO: Geometry = Geometry { image: Size::new(1280, 800), scale: 1.0 };

    #[test]
    fn front_app_names_its_accessible_elements() {
        let mut t = node(Role::Terminal, "Terminal", Rect::new(10, 10, 400, 300), None);
        t.app = "xfce4-terminal".into();
        let ax = AxSnapshot::new(AxHealth::Ok, vec![t, node(Role::Button, "OK", Rect::new(500, 10, 60, 30), None)]);
        let mut m = merge(&ax, &[], GEO);
        let front = handrail_platform::WindowInfo {
            app: "Xfce Terminal".into(),
            class: "Xfce4-terminal".into(),
            title: "Terminal - bash".into(),
            pid: Some(7),
            bounds: Rect::new(0, 0, 420, 330),
        };
        name_front_app(&mut m.elements, Some(&front));
        let apps: Vec<(&str, &str)> = m.elements.iter().map(|e| (e.label.as_str(), e.app.as_str())).collect();
        assert!(apps.contains(&("Terminal", "Xfce Terminal")), "{apps:?}");
        assert!(apps.contains(&("OK", "App")), "another app keeps its name: {apps:?}");
        name_front_app(&mut m.elements, None);
        assert!(m.elements.iter().any(|e| e.app == "Xfce Terminal"));
    }

    /// A Qt preferences page: a scroll area (a "filler"; its bar wrapped in a container of the bar's
    /// size) whose rows go on below the fold, where the dialog's own buttons are drawn.
    fn scrolled_page() -> Vec<AxNode> {
        let mut area = node(Role::Other, "", Rect::new(571, 122, 458, 556), Some(0));
        area.native_role = "filler".into();
        vec![
            node(Role::Dialog, "Preferences", Rect::new(240, 50, 800, 700), None),
            area,
            node(Role::Other, "", Rect::new(1015, 122, 14, 542), Some(1)),
            node(Role::ScrollBar, "", Rect::new(1015, 122, 14, 542), Some(2)),
            node(Role::Other, "", Rect::new(571, 122, 488, 791), Some(1)),
            node(Role::Checkbox, "Systray icon", Rect::new(580, 161, 102, 21), Some(4)),
            node(Role::Checkbox, "Display background cone", Rect::new(580, 729, 227, 21), Some(4)),
            node(Role::Entry, "Slider colours", Rect::new(960, 636, 90, 25), Some(4)),
            node(Role::Button, "Save", Rect::new(865, 716, 80, 25), Some(0)),
        ]
    }

    #[test]
    fn what_a_scroll_area_scrolled_away_is_not_listed() {
        let m = merge(&AxSnapshot::new(AxHealth::Ok, scrolled_page()), &[], GEO);
        let find = |label: &str| m.elements.iter().find(|e| e.label == label).map(|e| e.bounds);
        assert_eq!(find("Systray icon"), Some(Rect::new(580, 161, 102, 21)), "in view: as it is");
        assert_eq!(find("Display background cone"), None, "below the fold: not on screen");
        assert_eq!(find("Slider colours"), Some(Rect::new(960, 636, 69, 25)), "cut by the area's edge: its shown part");
        assert_eq!(find("Save"), Some(Rect::new(865, 716, 80, 25)), "outside the area: untouched");
    }

    #[test]
    fn a_scroll_pane_clips_by_its_role_and_a_popup_is_not_clipped() {
        let mut pane = node(Role::Other, "", Rect::new(0, 100, 400, 200), None);
        pane.native_role = "scroll pane".into();
        let ax = AxSnapshot::new(
            AxHealth::Ok,
            vec![
                pane,
                node(Role::Button, "Below", Rect::new(10, 320, 80, 30), Some(0)),
                node(Role::ComboBox, "Size", Rect::new(10, 250, 120, 30), Some(0)),
                node(Role::Menu, "", Rect::new(10, 280, 120, 90), Some(2)),
                // The combo's open list reaches past the pane: drawn over it, all of it shown.
                node(Role::MenuItem, "Large", Rect::new(10, 340, 120, 30), Some(3)),
            ],
        );
        let m = merge(&ax, &[], GEO);
        let labels: Vec<&str> = m.elements.iter().map(|e| e.label.as_str()).collect();
        assert!(!labels.contains(&"Below"), "{labels:?}");
        assert!(labels.contains(&"Size"), "{labels:?}");
        let large = m.elements.iter().find(|e| e.label == "Large").map(|e| e.bounds);
        assert_eq!(large, Some(Rect::new(10, 340, 120, 30)));
    }

    #[test]
    fn a_closed_combo_boxs_list_is_not_listed() {
        // Qt: the closed list has no extent; its items say they show at the screen's corner.
        let ax = AxSnapshot::new(
            AxHealth::Ok,
            vec![
                node(Role::Dialog, "Preferences", Rect::new(240, 50, 800, 700), None),
                node(Role::ComboBox, "When minimized", Rect::new(960, 189, 90, 25), Some(0)),
                node(Role::List, "", Rect::default(), Some(1)),
                node(Role::ListItem, "Never", Rect::new(0, 0, 756, 25), Some(2)),
                node(Role::ListItem, "Always", Rect::new(0, 25, 756, 25), Some(2)),
            ],
        );
        let labels: Vec<String> = merge(&ax, &[], GEO).elements.into_iter().map(|e| e.label).collect();
        assert_eq!(labels, ["When minimized", "Preferences"]);
    }

    #[test]
    fn an_element_exposed_twice_is_listed_once() {
        // A GTK 3 combo box's open menu, under the combo and again as its popup window.
        let item = |name: &str, y, parent| node(Role::MenuItem, name, Rect::new(603, y, 93, 29), Some(parent));
        let ax = AxSnapshot::new(
            AxHealth::Ok,
            vec![
                node(Role::ComboBox, "Size", Rect::new(603, 396, 93, 34), None),
                node(Role::Menu, "", Rect::new(603, 397, 93, 95), Some(0)),
                item("Small", 401, 1),
                item("Medium", 430, 1),
                node(Role::Window, "", Rect::new(603, 397, 93, 95), None),
                node(Role::Menu, "", Rect::new(603, 397, 93, 95), Some(4)),
                item("Small", 401, 5),
                item("Medium", 430, 5),
                // The same name elsewhere is another element.
                node(Role::MenuItem, "Small", Rect::new(10, 10, 93, 29), None),
            ],
        );
        let m = merge(&ax, &[], GEO);
        let items: Vec<(&str, i32)> =
            m.elements.iter().filter(|e| e.role == Role::MenuItem).map(|e| (e.label.as_str(), e.bounds.y)).collect();
        assert_eq!(items, [("Small", 10), ("Small", 401), ("Medium", 430)]);
        let menu = m.elements.iter().position(|e| e.role == Role::Menu).expect("one menu");
        assert_eq!(m.elements.iter().filter(|e| e.role == Role::Menu).count(), 1);
        assert!(m
            .elements
            .iter()
            .filter(|e| e.role == Role::MenuItem && e.bounds.y > 400)
            .all(|e| e.detail.parent == Some(menu)));
    }

    #[test]
    fn focus_is_the_innermost_of_a_focused_chain() {
        let focused = |mut n: AxNode| {
            n.states = States::FOCUSED;
            n
        };
        // LibreOffice marks its document, the sheet and the cursor cell; another window's stale mark
        // outside that chain does not count.
        let ax = AxSnapshot::new(
            AxHealth::Ok,
            vec![
                node(Role::Window, "Book", Rect::new(0, 0, 1280, 800), None),
                focused(node(Role::Other, "Document", Rect::new(0, 100, 1280, 600), Some(0))),
                focused(node(Role::Table, "Sheet Budget", Rect::new(40, 150, 1100, 550), Some(1))),
                focused(node(Role::Cell, "A2", Rect::new(41, 174, 82, 17), Some(2))),
                node(Role::Window, "Other", Rect::new(0, 0, 300, 200), None),
                focused(node(Role::Button, "Stale", Rect::new(10, 10, 60, 30), Some(4))),
            ],
        );
        let m = merge(&ax, &[], GEO);
        let focus = m.focus.map(|i| m.elements[i].label.as_str());
        assert_eq!(focus, Some("A2"));
        // Alone, a focused element is the focus.
        let ax = AxSnapshot::new(
            AxHealth::Ok,
            vec![
                node(Role::Window, "Win", Rect::new(0, 0, 1280, 800), None),
                focused(node(Role::Entry, "Name", Rect::new(10, 10, 200, 30), Some(0))),
                node(Role::Button, "OK", Rect::new(10, 50, 60, 30), Some(0)),
            ],
        );
        let m = merge(&ax, &[], GEO);
        assert_eq!(m.focus.map(|i| m.elements[i].label.as_str()), Some("Name"));
    }

    #[test]
    fn folds_matching_ocr_and_keeps_the_rest() {
        let ax = AxSnapshot::new(
            AxHealth::Ok,
            vec![
                node(Role::Window, "Win", Rect::new(0, 0, 1280, 800), None),
                node(Role::Button, "Save", Rect::new(100, 100, 80, 30), Some(0)),
                node(Role::Text, "Save", Rect::new(110, 105, 60, 20), Some(1)),
                node(Role::Button, "", Rect::new(300, 100, 80, 30), Some(0)),
            ],
        );
        let ocr = vec![
            line("Save", Rect::new(112, 106, 40, 16)),
            line("Open", Rect::new(310, 106, 40, 16)),
            line("Welcome back", Rect::new(500, 400, 120, 18)),
        ];
        let m = merge(&ax, &ocr, GEO);
        let summary: Vec<(Role, &str, Source)> =
            m.elements.iter().map(|e| (e.role, e.label.as_str(), e.source)).collect();
        assert_eq!(
            summary,
            vec![
                (Role::Button, "Save", Source::AxOcr),
                (Role::Button, "Open", Source::AxOcr),
                (Role::Text, "Welcome back", Source::Ocr),
            ]
        );
    }

    #[test]
    fn a_row_cell_stands_for_the_cells_inside_it() {
        // GTK's file chooser: the name column's cell holds an icon cell and a text cell; the time column's
        // cell holds one text cell. Focus sits on the text cell.
        let mut text = node(Role::Cell, "report.txt", Rect::new(279, 139, 664, 21), Some(0));
        text.states = States::FOCUSED;
        let ax = AxSnapshot::new(
            AxHealth::Ok,
            vec![
                node(Role::Cell, "report.txt", Rect::new(251, 139, 688, 21), None),
                node(Role::Cell, "", Rect::new(251, 139, 28, 21), Some(0)),
                text,
                node(Role::Cell, "22:24", Rect::new(1112, 139, 78, 21), None),
                node(Role::Cell, "22:24", Rect::new(1112, 139, 74, 21), Some(3)),
                // A cell of its own inside a named cell keeps its place.
                node(Role::Cell, "15 bytes", Rect::new(943, 139, 68, 21), Some(3)),
            ],
        );
        let m = merge(&ax, &[], GEO);
        let labels: Vec<(&str, Rect)> = m.elements.iter().map(|e| (e.label.as_str(), e.bounds)).collect();
        assert_eq!(
            labels,
            [
                ("report.txt", Rect::new(251, 139, 688, 21)),
                ("15 bytes", Rect::new(943, 139, 68, 21)),
                ("22:24", Rect::new(1112, 139, 78, 21))
            ]
        );
        assert_eq!(m.focus, Some(0), "the row's cell is focused in its child's place");
    }

    #[test]
    fn secure_fields_lose_values_and_ocr_over_them() {
        let mut pw = node(Role::PasswordEntry, "Password", Rect::new(100, 200, 200, 30), None);
        pw.value = Some("hunter2".into());
        let ax = AxSnapshot::new(AxHealth::Ok, vec![pw]);
        let m = merge(&ax, &[line("hunter2", Rect::new(105, 205, 80, 18))], GEO);
        assert_eq!(m.elements.len(), 1);
        assert_eq!(m.elements[0].value, None);
        assert!(m.elements[0].states.contains(States::SECURE));
    }

    #[test]
    fn scales_and_prunes() {
        let mut offscreen = node(Role::Button, "Hidden", Rect::new(-2147483648, -2147483648, 1, 1), None);
        offscreen.states = States::empty();
        let mut focused = node(Role::Entry, "Name", Rect::new(200, 200, 400, 40), None);
        focused.states = States::FOCUSED;
        let ax = AxSnapshot::new(
            AxHealth::Ok,
            vec![offscreen, node(Role::Other, "", Rect::new(0, 0, 100, 100), None), focused],
        );
        let m = merge(&ax, &[], Geometry { image: Size::new(640, 400), scale: 2.0 });
        assert_eq!(m.elements.len(), 1);
        assert_eq!(m.elements[0].bounds, Rect::new(100, 100, 200, 20));
        assert_eq!(m.focus, Some(0));
    }

    #[test]
    fn unnamed_inputs_take_the_caption_beside_or_above_them() {
        let ax = AxSnapshot::new(
            AxHealth::Ok,
            vec![
                node(Role::Text, "Name", Rect::new(50, 100, 80, 30), None),
                node(Role::Entry, "", Rect::new(140, 98, 300, 34), None),
                node(Role::Text, "Password:", Rect::new(50, 150, 80, 30), None),
                node(Role::PasswordEntry, "", Rect::new(140, 148, 300, 34), None),
                node(Role::Text, "Search", Rect::new(500, 60, 80, 20), None),
                node(Role::Entry, "", Rect::new(500, 90, 200, 30), None),
                node(Role::Entry, "", Rect::new(900, 600, 200, 30), None),
                node(Role::Entry, "Named", Rect::new(140, 300, 200, 30), None),
                node(Role::Text, "Volume", Rect::new(50, 400, 70, 45), None),
                node(Role::Slider, "", Rect::new(140, 400, 400, 45), None),
            ],
        );
        let m = merge(&ax, &[], GEO);
        let inputs: Vec<(Role, &str)> = m
            .elements
            .iter()
            .filter(|e| e.role.is_text_input() || e.role == Role::Slider)
            .map(|e| (e.role, e.label.as_str()))
            .collect();
        assert_eq!(
            inputs,
            vec![
                (Role::Entry, "Search"),
                (Role::Entry, "Name"),
                (Role::PasswordEntry, "Password"),
                (Role::Entry, "Named"),
                (Role::Slider, "Volume"),
                (Role::Entry, ""),
            ]
        );
    }

    fn labels_and_values(m: &Merged) -> Vec<(Role, &str, Option<&str>, Source)> {
        m.elements.iter().map(|e| (e.role, e.label.as_str(), e.value.as_deref(), e.source)).collect()
    }

    #[test]
    fn combo_boxes_read_as_caption_and_selection() {
        let mut gtk = node(Role::ComboBox, "Guinea", Rect::new(140, 78, 400, 34), None);
        gtk.value = Some("Guinea".into());
        let entry_combo = node(Role::ComboBox, "", Rect::new(140, 130, 400, 34), None);
        let mut entry = node(Role::Entry, "", Rect::new(140, 130, 360, 34), Some(3));
        entry.value = Some("comboboxentry".into());
        entry.states = States::EDITABLE;
        let mut named = node(Role::ComboBox, "Sort order", Rect::new(140, 300, 200, 34), None);
        named.value = Some("Newest".into());
        let ax = AxSnapshot::new(
            AxHealth::Ok,
            vec![
                node(Role::Text, "Country", Rect::new(50, 78, 70, 34), None),
                gtk,
                node(Role::Text, "Search", Rect::new(50, 130, 70, 34), None),
                entry_combo,
                entry,
                named,
            ],
        );
        let m = merge(&ax, &[], GEO);
        let combos: Vec<(&str, Option<&str>)> = m
            .elements
            .iter()
            .filter(|e| e.role == Role::ComboBox)
            .map(|e| (e.label.as_str(), e.value.as_deref()))
            .collect();
        assert_eq!(
            combos,
            vec![("Country", Some("Guinea")), ("Search", Some("comboboxentry")), ("Sort order", Some("Newest"))]
        );
    }

    #[test]
    fn unnamed_items_are_named_by_the_text_inside_them() {
        let ax = AxSnapshot::new(
            AxHealth::Ok,
            vec![
                node(Role::List, "", Rect::new(0, 0, 400, 200), None),
                node(Role::ListItem, "", Rect::new(0, 0, 400, 20), Some(0)),
                node(Role::Text, "Mango", Rect::new(2, 2, 300, 16), Some(1)),
                node(Role::ListItem, "", Rect::new(0, 20, 400, 20), Some(0)),
                node(Role::Other, "", Rect::new(0, 20, 400, 20), Some(3)),
                node(Role::Text, "Papaya", Rect::new(2, 22, 60, 16), Some(4)),
                node(Role::Text, "ripe", Rect::new(70, 22, 40, 16), Some(4)),
                node(Role::ToggleButton, "", Rect::new(300, 22, 40, 16), Some(4)),
                node(Role::ListItem, "", Rect::new(0, 40, 400, 60), Some(0)),
                node(Role::Text, "Fruits", Rect::new(2, 42, 60, 16), Some(8)),
                node(Role::ListItem, "", Rect::new(20, 60, 380, 20), Some(8)),
                node(Role::Text, "Lime", Rect::new(22, 62, 60, 16), Some(10)),
                node(Role::Cell, "", Rect::new(0, 120, 40, 20), Some(0)),
            ],
        );
        let m = merge(&ax, &[], GEO);
        let items: Vec<(Role, &str)> =
            m.elements.iter().filter(|e| e.role != Role::ToggleButton).map(|e| (e.role, e.label.as_str())).collect();
        assert_eq!(
            items,
            vec![
                (Role::ListItem, "Mango"),
                (Role::ListItem, "Papaya ripe"),
                (Role::ListItem, "Fruits"),
                (Role::ListItem, "Lime"),
                (Role::Text, "Papaya"),
                (Role::Text, "ripe"),
                (Role::Cell, ""),
            ],
            "a text that only repeats its item is dropped; a nested item's text is its own"
        );
    }

    #[test]
    fn ocr_that_repeats_or_garbles_known_text_is_dropped() {
        let mut name = node(Role::Entry, "First name", Rect::new(140, 122, 400, 34), None);
        name.value = Some("Kerianne".into());
        name.states = States::EDITABLE;
        let mut empty = node(Role::Entry, "Email", Rect::new(140, 170, 400, 34), None);
        empty.value = Some(String::new());
        empty.states = States::EDITABLE;
        let mut combo = node(Role::ComboBox, "Country", Rect::new(140, 220, 300, 34), None);
        combo.value = Some("Guinea".into());
        let mut notes = node(Role::TextArea, "Notes", Rect::new(600, 40, 400, 200), None);
        notes.value = Some("Morbi vel elit erat.\nNulla facilisi. Nullam eleifend lobortis nisl".into());
        let ax = AxSnapshot::new(
            AxHealth::Ok,
            vec![
                node(Role::Text, "Proceed with the import?", Rect::new(40, 40, 300, 20), None),
                name,
                empty,
                combo,
                notes,
            ],
        );
        let ocr = vec![
            line("| v", Rect::new(410, 225, 25, 24)),
            line("Nulla facilisi. Nullam ลไอลไโอทเ", Rect::new(610, 70, 300, 14)),
            line("Drafted by hand", Rect::new(610, 200, 120, 14)),
            line("Pro|", Rect::new(14, 40, 26, 18)),
            line("ort?", Rect::new(335, 40, 30, 18)),
            line("Pa", Rect::new(700, 300, 17, 18)),
            line("Kerlanne", Rect::new(148, 130, 70, 18)),
            line("-~ 1", Rect::new(220, 130, 30, 18)),
            line("Proceed with the lmport?", Rect::new(42, 41, 290, 18)),
            line("name@example.com", Rect::new(148, 178, 140, 18)),
            line("Kerianne", Rect::new(700, 500, 70, 18)),
        ];
        let m = merge(&ax, &ocr, GEO);
        let ocr_only: Vec<&str> =
            m.elements.iter().filter(|e| e.source == Source::Ocr).map(|e| e.label.as_str()).collect();
        assert_eq!(
            ocr_only,
            vec!["name@example.com", "Drafted by hand", "Pa", "Kerianne"],
            "{:?}",
            labels_and_values(&m)
        );
        let folded: Vec<&str> =
            m.elements.iter().filter(|e| e.source == Source::AxOcr).map(|e| e.label.as_str()).collect();
        assert_eq!(folded, vec!["Notes", "First name", "Proceed with the import?"]);
    }

    /// A parent index past the end of the snapshot panicked (index out of bounds) instead of being
    /// ignored like a cyclic chain.
    #[test]
    fn parent_links_outside_the_snapshot_are_ignored() {
        let ax = AxSnapshot::new(
            AxHealth::Ok,
            vec![
                node(Role::ToolBar, "Tools", Rect::new(0, 0, 400, 40), Some(7)),
                node(Role::Button, "Save", Rect::new(10, 5, 60, 30), Some(0)),
                node(Role::Button, "Open", Rect::new(80, 5, 60, 30), Some(usize::MAX)),
            ],
        );
        let m = merge(&ax, &[], GEO);
        let parents: Vec<(&str, Option<&str>, bool)> = m
            .elements
            .iter()
            .map(|e| (e.label.as_str(), e.detail.parent.map(|p| m.elements[p].label.as_str()), e.detail.in_toolbar))
            .collect();
        assert_eq!(parents, vec![("Save", Some("Tools"), true), ("Open", None, false), ("Tools", None, false)]);
    }

    #[test]
    fn interactive_first_then_reading_order() {
        let ax = AxSnapshot::new(
            AxHealth::Ok,
            vec![
                node(Role::Text, "Title", Rect::new(10, 10, 100, 20), None),
                node(Role::Button, "B", Rect::new(300, 300, 50, 20), None),
                node(Role::Button, "A", Rect::new(10, 300, 50, 20), None),
            ],
        );
        let m = merge(&ax, &[], GEO);
        let labels: Vec<&str> = m.elements.iter().map(|e| e.label.as_str()).collect();
        assert_eq!(labels, vec!["A", "B", "Title"]);
    }
}

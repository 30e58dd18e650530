//! The visible part of an element under a stack of windows, and which window an element belongs to.

use handrail_core::visibility::{clip, owner_of, uncovered, window_events, ScreenWindow};
use handrail_core::{Element, ElementId, Source};
use handrail_platform::{Point, Rect, Role, States, WindowKind};
use proptest::prelude::*;

fn rect() -> impl Strategy<Value = Rect> {
    (0i32..40, 0i32..40, 0u32..30, 0u32..30).prop_map(|(x, y, w, h)| Rect::new(x, y, w, h))
}

proptest! {
    /// The parts are exactly the pixels of the bounds no cover touches: disjoint, inside the bounds,
    /// clear of every cover, and as many pixels as counting them one by one gives.
    #[test]
    fn uncovered_parts_are_exactly_the_uncovered_pixels(bounds in rect(), covers in prop::collection::vec(rect(), 0..5)) {
        let parts = uncovered(bounds, &covers);
        for (i, p) in parts.iter().enumerate() {
            prop_assert!(!p.is_empty());
            prop_assert!(bounds.contains_rect(p), "{p:?} outside {bounds:?}");
            for c in &covers {
                prop_assert!(!p.intersects(c), "{p:?} overlaps cover {c:?}");
            }
            for q in &parts[i + 1..] {
                prop_assert!(!p.intersects(q), "{p:?} overlaps {q:?}");
            }
        }
        let mut free = 0u64;
        for x in bounds.x..bounds.x + bounds.width as i32 {
            for y in bounds.y..bounds.y + bounds.height as i32 {
                if !covers.iter().any(|c| c.contains(Point::new(x, y))) {
                    free += 1;
                }
            }
        }
        prop_assert_eq!(parts.iter().map(|p| p.area()).sum::<u64>(), free);
    }
}

fn window(handle: u64, title: &str, app: &str, bounds: Rect) -> ScreenWindow {
    ScreenWindow {
        handle,
        title: title.into(),
        app: app.into(),
        class: app.into(),
        pid: Some(handle as u32 + 100),
        kind: WindowKind::Normal,
        bounds,
        minimized: false,
        active: false,
    }
}

fn element(label: &str, app: &str, window: &str, bounds: Rect, source: Source) -> Element {
    Element {
        id: ElementId::UNASSIGNED,
        role: Role::Button,
        label: label.into(),
        value: None,
        bounds,
        states: States::empty(),
        source,
        app: app.into(),
        window: window.into(),
        owner: None,
        detail: Default::default(),
    }
}

fn two_browser_windows() -> Vec<ScreenWindow> {
    vec![
        window(1, "Back page - Chromium", "Chromium", Rect::new(0, 0, 800, 600)),
        window(2, "Front page - Chromium", "Chromium", Rect::new(100, 100, 800, 600)),
    ]
}

#[test]
fn elements_belong_to_the_window_their_title_names_even_under_another() {
    let windows = two_browser_windows();
    let save = element("Save", "Chromium", "Back page - Chromium", Rect::new(300, 300, 80, 30), Source::Ax);
    assert_eq!(owner_of(&save, &windows), Some(0), "by title, not by what lies on top");
    let short = element("Save", "Chromium", "Back page", Rect::new(300, 300, 80, 30), Source::Ax);
    assert_eq!(owner_of(&short, &windows), Some(0), "the app's suffix is not part of the page's name");
    let unnamed = element("Save", "chromium", "", Rect::new(300, 300, 80, 30), Source::Ax);
    assert_eq!(owner_of(&unnamed, &windows), Some(1), "by app, then the topmost holding it");
    let read = element("Save", "", "", Rect::new(300, 300, 80, 30), Source::Ocr);
    assert_eq!(owner_of(&read, &windows), Some(1), "text read off the pixels is what is on top");
    let stranger = element("Save", "Other", "Elsewhere", Rect::new(300, 300, 80, 30), Source::Ax);
    assert_eq!(owner_of(&stranger, &windows), None);
}

#[test]
fn a_menu_listed_under_its_window_is_drawn_in_its_pop_up() {
    let mut windows = two_browser_windows();
    let mut menu = window(3, "", "Chromium", Rect::new(320, 320, 200, 300));
    menu.kind = WindowKind::Popup;
    menu.pid = windows[1].pid;
    windows.push(menu);
    let item = element("Open", "Chromium", "Front page - Chromium", Rect::new(330, 340, 180, 24), Source::Ax);
    assert_eq!(owner_of(&item, &windows), Some(2));
    let clipped = clip(vec![item], None, &windows);
    assert_eq!(clipped.elements.len(), 1, "a menu item is not covered by its own menu");
}

#[test]
fn clipping_drops_covered_elements_and_keeps_focus_and_parents_right() {
    let windows = two_browser_windows();
    let covered = element("Save", "Chromium", "Back page - Chromium", Rect::new(300, 300, 80, 30), Source::Ax);
    let visible = element("Back", "Chromium", "Back page - Chromium", Rect::new(10, 10, 60, 30), Source::Ax);
    let mut child = element("Front", "Chromium", "Front page - Chromium", Rect::new(300, 300, 60, 30), Source::Ax);
    child.detail.parent = Some(0);
    let mut front = element("Field", "Chromium", "Front page - Chromium", Rect::new(400, 400, 60, 30), Source::Ax);
    front.detail.parent = Some(1);
    let clipped = clip(vec![covered, visible, child, front], Some(3), &windows);
    let labels: Vec<&str> = clipped.elements.iter().map(|e| e.label.as_str()).collect();
    assert_eq!(labels, ["Back", "Front", "Field"]);
    assert_eq!(clipped.focus, Some(2), "focus follows its element");
    assert_eq!(clipped.elements[1].detail.parent, None, "a link to a dropped element is dropped");
    assert_eq!(clipped.elements[2].detail.parent, Some(0), "links to kept elements are renumbered");
    assert_eq!(clipped.hidden.len(), 1);
    assert_eq!((clipped.hidden[0].window, clipped.hidden[0].count), (0, 1));
    assert_eq!(clipped.elements[0].owner, Some(1));
}

#[test]
fn a_minimised_window_shows_nothing_and_covers_nothing() {
    let mut windows = two_browser_windows();
    windows[1].minimized = true;
    let back = element("Save", "Chromium", "Back page - Chromium", Rect::new(300, 300, 80, 30), Source::Ax);
    let front = element("Go", "Chromium", "Front page - Chromium", Rect::new(300, 300, 80, 30), Source::Ax);
    let clipped = clip(vec![back, front], None, &windows);
    let labels: Vec<&str> = clipped.elements.iter().map(|e| e.label.as_str()).collect();
    assert_eq!(labels, ["Save"]);
}

#[test]
fn a_single_window_hides_nothing() {
    let windows = vec![window(1, "Only", "App", Rect::new(0, 0, 100, 100))];
    let outside = element("Far", "App", "Only", Rect::new(500, 500, 10, 10), Source::Ax);
    let clipped = clip(vec![outside], None, &windows);
    assert_eq!(clipped.elements.len(), 1);
    assert!(clipped.hidden.is_empty());
}

#[test]
fn title_bar_text_read_off_the_screen_is_left_to_the_window_element() {
    let windows = two_browser_windows();
    let bar = element("Front page - Chromium", "", "", Rect::new(120, 108, 200, 14), Source::Ocr);
    let page = element("Front page", "", "", Rect::new(120, 300, 200, 14), Source::Ocr);
    let clipped = clip(vec![bar, page], None, &windows);
    let labels: Vec<&str> = clipped.elements.iter().map(|e| e.label.as_str()).collect();
    assert_eq!(labels, ["Front page"]);
}

#[test]
fn window_events_follow_handles_not_titles() {
    let before = two_browser_windows();
    let mut after = before.clone();
    after[1].title = "Another page - Chromium".into();
    assert!(window_events(&before, &after).is_empty(), "a retitled window is the same window");
    after.remove(0);
    let mut dialog = window(9, "Save file", "Chromium", Rect::new(200, 200, 300, 200));
    dialog.kind = WindowKind::Dialog;
    after.push(dialog);
    let events = window_events(&before, &after);
    assert_eq!(events.len(), 2);
    assert!(events[0].opened && events[0].window.title == "Save file");
    assert!(!events[1].opened && events[1].window.title == "Back page - Chromium");
}

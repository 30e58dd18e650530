//! From what the sources report to the elements a person can see.

use handrail_platform::{AxSnapshot, Desktop, OcrLine, Rect, WindowInfo};

use crate::guard::url::redact_urls_in;
use crate::merge::{merge, name_front_app, Geometry};
use crate::monitors::{screen_monitors, ScreenMonitor};
use crate::observation::Element;
use crate::visibility::{clip, window_elements, Clipped, ScreenWindow};

/// The window stack in screenshot coordinates; empty (nothing judged covered) when it cannot be read.
pub(super) fn read_windows(desktop: &Desktop, scale: f64) -> Vec<ScreenWindow> {
    match desktop.windows.stack() {
        Ok(stack) => stack
            .iter()
            .map(|w| {
                let mut w = ScreenWindow::of(w, scale);
                redact(&mut w.title);
                w
            })
            .collect(),
        Err(e) => {
            log::warn!("the window stack could not be read ({e}); no element is judged covered");
            Vec::new()
        }
    }
}

/// The monitors in screenshot coordinates; the whole image as one when they cannot be read.
pub(super) fn read_monitors(desktop: &Desktop, scale: f64, image: Rect) -> Vec<ScreenMonitor> {
    match desktop.screen.monitors() {
        Ok(monitors) if !monitors.is_empty() => screen_monitors(&monitors, scale),
        result => {
            if let Err(e) = result {
                log::warn!("the monitors could not be read ({e}); the screen is shown as one");
            }
            vec![ScreenMonitor { number: 1, name: String::new(), bounds: image, primary: true }]
        }
    }
}

/// Accessibility and OCR merged, elements of covered windows left out, one element per window added.
/// Ids are not assigned yet.
pub(super) fn visible_elements(
    ax: &AxSnapshot,
    lines: &[OcrLine],
    geo: Geometry,
    front: Option<&WindowInfo>,
    windows: &[ScreenWindow],
) -> Clipped {
    let merged = merge(ax, lines, geo);
    let mut elements = merged.elements;
    name_front_app(&mut elements, front);
    let mut clipped = clip(elements, merged.focus, windows);
    clipped.elements.extend(window_elements(windows, Rect::from_size(geo.image)));
    for e in clipped.elements.iter_mut().chain(clipped.hidden_elements.iter_mut()) {
        forget_credentials(e);
    }
    clipped
}

/// An element without the credentials of any URL it shows: a page or a terminal may put
/// `http://user:password@host` on screen (a browser's error page quotes the address it could not
/// open), and what is read off the screen goes into results, traces and logs. The password goes here,
/// before anything renders, records or matches it; the rest of the text stays. An element's value is
/// kept as it is: it is what an address bar or a field will commit, which the guards judge (a
/// credential URL typed into the address bar is refused at Return because its value shows it).
fn forget_credentials(e: &mut Element) {
    redact(&mut e.label);
    redact(&mut e.detail.description);
    for (_, v) in &mut e.detail.attributes {
        redact(v);
    }
}

/// `s` without the userinfo of any URL in it (see [`forget_credentials`]); window titles too.
pub(super) fn redact(s: &mut String) {
    if s.contains("://") {
        *s = redact_urls_in(s);
    }
}

/// A note for the snapshot when the window in front has no accessible window of its title (its app
/// gives no tree at all, like xterm, or has not registered it yet), or has one with nothing inside (a
/// Chromium or Electron app whose renderer accessibility is off lists its bare frame): what it shows is
/// listed from the screen's text only. `None` when the accessibility tree itself is not there (no bus:
/// the header already says so) or the window is found with something in it.
pub(super) fn front_without_tree(ax: &AxSnapshot, front: &WindowInfo) -> Option<String> {
    if !matches!(ax.health, handrail_platform::AxHealth::Ok | handrail_platform::AxHealth::Partial) {
        return None;
    }
    if front.title.is_empty() {
        return None; // a desktop or a bare surface: nothing a tree would name
    }
    let roots: Vec<usize> = (0..ax.nodes.len())
        .filter(|&i| {
            let n = &ax.nodes[i];
            n.parent.is_none() && (n.name == front.title || n.window == front.title)
        })
        .collect();
    let app = if front.app.is_empty() { front.class.as_str() } else { front.app.as_str() };
    if roots.is_empty() {
        return Some(format!(
            "{app}: the window in front is not in the accessibility tree (its app gives none, or did not answer in time), so what it shows is listed from its screen text only"
        ));
    }
    // Depth first: a root's first descendant, if any, comes right after it. A partial tree may have
    // been cut before a window's children: only a whole one tells.
    let empty = ax.health == handrail_platform::AxHealth::Ok
        && roots.iter().all(|&i| ax.nodes.get(i + 1).is_none_or(|n| n.parent != Some(i)));
    empty.then(|| {
        format!(
            "{app}: the window in front has nothing inside it in the accessibility tree (an app that draws its own content gives none; one built on Chromium or Electron fills it a moment after it is first asked, or only when started with --force-renderer-accessibility), so what it shows is listed from its screen text only"
        )
    })
}

#[cfg(test)]
mod tests {
    use handrail_platform::{AxHealth, AxNode, Role, Size, States};

    use super::*;

    #[test]
    fn a_front_window_missing_or_empty_in_the_tree_is_said_with_its_app() {
        let front = WindowInfo { title: "Docs - Chromium".into(), app: "Chromium".into(), ..WindowInfo::default() };
        let frame = |name: &str| AxNode {
            role: Some(Role::Window),
            name: name.into(),
            window: name.into(),
            app: "Chromium".into(),
            ..AxNode::default()
        };
        let child =
            |parent| AxNode { role: Some(Role::Button), name: "Back".into(), parent: Some(parent), ..frame("") };
        let note = |nodes| front_without_tree(&AxSnapshot::new(AxHealth::Ok, nodes), &front);
        // Found, with something inside: nothing to say.
        assert_eq!(note(vec![frame("Docs - Chromium"), child(0)]), None);
        // Found, bare: said, with the switch that fills it.
        let bare = note(vec![frame("Other"), child(0), frame("Docs - Chromium")]).expect("a note");
        assert!(bare.starts_with("Chromium: the window in front has nothing inside it"), "{bare}");
        assert!(bare.contains("--force-renderer-accessibility"), "{bare}");
        // Not there at all.
        let missing = note(vec![frame("Other"), child(0)]).expect("a note");
        assert!(missing.starts_with("Chromium: the window in front is not in the accessibility tree"), "{missing}");
        // A tree cut short (a deadline, a node cap) may have left the window's children out.
        let cut = AxSnapshot::new(AxHealth::Partial, vec![frame("Docs - Chromium")]);
        assert_eq!(front_without_tree(&cut, &front), None);
        // No tree at all: the header says so already.
        assert_eq!(front_without_tree(&AxSnapshot::new(AxHealth::Unavailable, vec![]), &front), None);
    }

    #[test]
    fn urls_on_screen_lose_their_credentials_wherever_they_are_read() {
        let shown = "The webpage at http://admin:pw-9@127.0.0.1:9/private might be down";
        let node = |role, name: &str, value: Option<&str>, y| AxNode {
            role: Some(role),
            name: name.into(),
            value: value.map(Into::into),
            description: "see ftp://u:pw-9@files.example/x".into(),
            states: States::EDITABLE,
            bounds: Rect::new(10, y, 600, 30),
            app: "App".into(),
            ..AxNode::default()
        };
        let ax = AxSnapshot::new(
            AxHealth::Ok,
            vec![node(Role::Text, shown, None, 10), node(Role::Entry, "Address", Some("https://bob:pw-9@h/x"), 60)],
        );
        let ocr = [OcrLine {
            text: "go to http://eve:pw-9@host.example".into(),
            bounds: Rect::new(10, 300, 400, 20),
            confidence: 90.0,
        }];
        let geo = Geometry { image: Size::new(1280, 800), scale: 1.0 };
        let clipped = visible_elements(&ax, &ocr, geo, None, &[]);
        let texts: Vec<String> =
            clipped.elements.iter().flat_map(|e| [e.label.clone(), e.detail.description.clone()]).collect();
        assert!(texts.iter().all(|t| !t.contains("pw-9")), "{texts:?}");
        // The rest of the text stays as it was.
        assert!(texts.contains(&"The webpage at http://127.0.0.1:9/private might be down".to_string()), "{texts:?}");
        assert!(texts.contains(&"go to http://host.example".to_string()), "{texts:?}");
        // A field's value is what it will commit, for the guards to judge.
        let address = clipped.elements.iter().find(|e| e.label == "Address").expect("the address field");
        assert_eq!(address.value.as_deref(), Some("https://bob:pw-9@h/x"));
    }
}

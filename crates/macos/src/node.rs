//! One accessibility element's attributes, as read from `AXUIElement`, turned into a node of
//! handrail's tree: role and states mapped, bounds from points to screen pixels, menu shortcuts as
//! bindings, and a secure field's value never read.

use handrail_platform::{AxNode, Role, States};

use crate::menu_keys::{binding, MenuShortcut};
use crate::roles::{checked_from, role_of};
use crate::space::ScreenSpace;

/// An `AXValue`, as far as handrail reads it.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum AxValue {
    #[default]
    None,
    Text(String),
    Number(f64),
    Bool(bool),
}

/// The attributes of one element (absent ones empty, `false` or `None`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RawElement {
    /// `AXRole`, `AXSubrole`.
    pub role: String,
    pub subrole: String,
    /// `AXTitle`, `AXDescription`, `AXHelp`, `AXPlaceholderValue`.
    pub title: String,
    pub description: String,
    pub help: String,
    pub placeholder: String,
    /// The text of the element `AXTitleUIElement` points at (a label beside a field).
    pub label: String,
    pub value: AxValue,
    /// Whether `AXValue` can be set (an editable field).
    pub value_settable: bool,
    pub focused: bool,
    /// Whether `AXFocused` can be set (the element takes focus).
    pub focusable: bool,
    /// `AXEnabled`; `None` when the element does not say.
    pub enabled: Option<bool>,
    pub selected: bool,
    pub expanded: Option<bool>,
    /// The window's `AXDefaultButton` is this element.
    pub is_default: bool,
    /// `AXMinimized` (windows).
    pub minimized: bool,
    /// `AXPosition` and `AXSize`, in global points.
    pub position: Option<(f64, f64)>,
    pub size: Option<(f64, f64)>,
    /// `AXActionNames` (`AXPress`, `AXShowMenu`, `AXIncrement`…).
    pub actions: Vec<String>,
    pub shortcut: MenuShortcut,
    /// `AXIdentifier` (the app's own id), `AXDOMIdentifier` and `AXDOMClassList` (web content).
    pub identifier: String,
    pub dom_id: String,
    pub dom_classes: Vec<String>,
}

/// Where an element is: its app and window, and the screen's pixel space.
#[derive(Debug, Clone, Copy)]
pub struct Place<'a> {
    pub app: &'a str,
    pub window: &'a str,
    /// The app is a terminal (its text area is the terminal's screen).
    pub in_terminal: bool,
    pub space: &'a ScreenSpace,
}

/// Longest text read from one attribute; longer values are cut (a document's whole text is not an
/// element's name).
const MAX_TEXT: usize = 4000;

/// The node for `raw`, child of `parent` (an index into the same snapshot).
pub fn decode(raw: &RawElement, place: Place<'_>, parent: Option<usize>) -> AxNode {
    let role = role_of(&raw.role, &raw.subrole, place.in_terminal);
    let secure = role == Role::PasswordEntry;
    let name = [&raw.title, &raw.label, &raw.description]
        .into_iter()
        .map(|s| s.trim())
        .find(|s| !s.is_empty())
        .unwrap_or_default();
    // The description is only a description when it is not already the name.
    let description = [&raw.description, &raw.help]
        .into_iter()
        .map(|s| s.trim())
        .find(|s| !s.is_empty() && *s != name)
        .unwrap_or_default();
    let number = match raw.value {
        AxValue::Number(n) => Some(n),
        AxValue::Bool(b) => Some(f64::from(u8::from(b))),
        _ => None,
    };
    let value = match &raw.value {
        _ if secure => None,
        AxValue::Text(t) => Some(clip(t)),
        AxValue::Number(n) if matches!(role, Role::Slider | Role::SpinButton | Role::ScrollBar) => {
            Some(format_number(*n))
        }
        _ => None,
    };
    let mut states = States::empty();
    states.set(States::FOCUSED, raw.focused);
    states.set(States::FOCUSABLE, raw.focusable || raw.focused);
    states.set(States::DISABLED, raw.enabled == Some(false));
    states.set(States::CHECKED, checked_from(role, number) || (role == Role::Tab && raw.selected));
    states.set(States::EDITABLE, raw.value_settable && role.is_text_input());
    states.set(States::SECURE, secure);
    states.set(States::SELECTED, raw.selected);
    states.set(States::EXPANDED, raw.expanded == Some(true));
    states.set(States::DEFAULT, raw.is_default);
    states.set(States::MINIMIZED, raw.minimized);
    let bounds = match (raw.position, raw.size) {
        (Some((x, y)), Some((w, h))) => place.space.rect_to_pixels(x, y, w, h),
        _ => Default::default(),
    };
    let mut attributes = Vec::new();
    if !raw.identifier.is_empty() {
        attributes.push(("ax-id".to_owned(), raw.identifier.clone()));
    }
    if !raw.dom_id.is_empty() {
        attributes.push(("id".to_owned(), raw.dom_id.clone()));
    }
    if !raw.dom_classes.is_empty() {
        attributes.push(("class".to_owned(), raw.dom_classes.join(" ")));
    }
    if !raw.placeholder.is_empty() {
        attributes.push(("placeholder".to_owned(), clip(&raw.placeholder)));
    }
    let native_role = if raw.subrole.is_empty() { raw.role.clone() } else { format!("{}/{}", raw.role, raw.subrole) };
    AxNode {
        role: Some(role),
        native_role,
        name: clip(name),
        value,
        description: clip(description),
        bounds,
        states,
        app: place.app.to_owned(),
        window: place.window.to_owned(),
        actions: raw.actions.clone(),
        key_bindings: binding(&raw.shortcut).into_iter().collect(),
        attributes,
        parent,
        window_relative: false,
    }
}

fn clip(s: &str) -> String {
    match s.char_indices().nth(MAX_TEXT) {
        Some((i, _)) => s[..i].to_owned(),
        None => s.to_owned(),
    }
}

fn format_number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn space() -> ScreenSpace {
        crate::space::laptop()
    }

    fn place(space: &ScreenSpace) -> Place<'_> {
        Place { app: "Safari", window: "Sign in", in_terminal: false, space }
    }

    #[test]
    fn a_password_field_never_gives_its_value() {
        let s = space();
        let raw = RawElement {
            role: "AXTextField".into(),
            subrole: "AXSecureTextField".into(),
            label: "Password".into(),
            value: AxValue::Text("••••••".into()),
            value_settable: true,
            focused: true,
            position: Some((100.0, 200.0)),
            size: Some((240.0, 22.0)),
            ..RawElement::default()
        };
        let node = decode(&raw, place(&s), Some(3));
        assert_eq!(node.role, Some(Role::PasswordEntry));
        assert!(node.is_secure());
        assert_eq!(node.value, None);
        assert_eq!(node.name, "Password");
        assert_eq!(node.bounds, handrail_platform::Rect::new(200, 400, 480, 44), "points become pixels");
        assert!(node.states.contains(States::FOCUSED | States::EDITABLE | States::FOCUSABLE));
        assert_eq!(node.native_role, "AXTextField/AXSecureTextField");
        assert_eq!(node.parent, Some(3));
    }

    #[test]
    fn checkboxes_sliders_and_menu_items_read_as_their_kind() {
        let s = space();
        let check = RawElement {
            role: "AXCheckBox".into(),
            title: "I agree".into(),
            value: AxValue::Number(1.0),
            ..RawElement::default()
        };
        let node = decode(&check, place(&s), None);
        assert!(node.states.contains(States::CHECKED));
        assert_eq!(node.value, None, "a checkbox's value is its state");
        let slider = RawElement {
            role: "AXSlider".into(),
            description: "Volume".into(),
            value: AxValue::Number(0.25),
            ..RawElement::default()
        };
        let node = decode(&slider, place(&s), None);
        assert_eq!((node.name.as_str(), node.value.as_deref()), ("Volume", Some("0.25")));
        assert_eq!(node.description, "", "the description became the name");
        let trash = RawElement {
            role: "AXMenuItem".into(),
            title: "Move to Trash".into(),
            shortcut: MenuShortcut { char: String::new(), glyph: Some(0x17), modifiers: 0 },
            enabled: Some(false),
            ..RawElement::default()
        };
        let node = decode(&trash, place(&s), None);
        assert_eq!(node.key_bindings, ["cmd+backspace"]);
        assert!(node.states.contains(States::DISABLED));
    }

    #[test]
    fn web_content_keeps_its_dom_ids_and_classes() {
        let s = space();
        let raw = RawElement {
            role: "AXGroup".into(),
            dom_id: "term".into(),
            dom_classes: vec!["xterm".into(), "focus".into()],
            ..RawElement::default()
        };
        let node = decode(&raw, place(&s), None);
        assert!(node.attributes.contains(&("class".into(), "xterm focus".into())));
        assert!(node.attributes.contains(&("id".into(), "term".into())));
    }

    #[test]
    fn long_text_is_cut_on_a_character_boundary() {
        let s = space();
        let raw = RawElement {
            role: "AXStaticText".into(),
            value: AxValue::Text("ก".repeat(MAX_TEXT + 10)),
            ..RawElement::default()
        };
        let node = decode(&raw, place(&s), None);
        assert_eq!(node.value.map(|v| v.chars().count()), Some(MAX_TEXT));
    }
}

//! What toolkits report differently on the bus, and how it is read.
//!
//! **GTK 4** (as Debian ships it, 4.8) has its own AT-SPI implementation, and three of its answers
//! differ from GTK 3's, Qt's and the browsers':
//! - SHOWING is set on windows only. Every widget inside is VISIBLE while it is mapped, and one that
//!   is not drawn (an inactive stack page, a collapsed info bar, an empty tab bar) has an empty size.
//!   So a GTK 4 node is drawn when it is VISIBLE and its extents, when it has any, are not empty.
//! - Extents are relative to the window even when screen coordinates are asked for (the window
//!   itself is at 0,0). Its nodes are marked [`AxNode::window_relative`]; the desktop backend places
//!   them.
//! - A widget without an accessible name is named after its class (`GtkMenuButton`, `AdwTabBar`,
//!   `EditorSourceView`): that is no label a person reads, and is dropped.
//! - `GetText` with an end of -1 (all of it) answers nothing; an end past the text is clipped.
//! - `GetRoleName` answers GTK's own role names, which lose distinctions that matter: a password
//!   entry is a "text box" like any entry. Its nodes' roles are read with `GetRole` instead, whose
//!   number says `password text` (see [`role_name`]).
//!
//! GTK 4 is told apart by the `toolkit` attribute of its objects: `GTK`, where GTK 3's ATK bridge
//! says `gtk`.
//!
//! **GTK 2** (gail, through the `atk-bridge` module; GIMP 2.10) never sets SHOWING on the items of
//! an open popup menu, though it gives them VISIBLE and their place; a menu that is closed, and any
//! widget not drawn, has the `i32::MIN` place. Its nodes are read as GTK 4's are: drawn when VISIBLE
//! and placed. Its windows carry no `toolkit` attribute: the app's `ToolkitName`, `GAIL`, tells it.
//!
//! [`AxNode::window_relative`]: handrail_platform::AxNode::window_relative

use crate::roles::{bit, AtspiStates};

/// The toolkit a window's nodes come from, as far as its answers must be read differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Toolkit {
    /// GTK 3, Qt, the browsers, LibreOffice…: states and extents mean what AT-SPI says.
    #[default]
    Standard,
    Gtk4,
    Gtk2,
}

impl Toolkit {
    /// The toolkit of a window, from its own attributes and its app's `ToolkitName` (when answered).
    pub fn of_window(attributes: &[(String, String)], app_toolkit: Option<&str>) -> Toolkit {
        if attributes.iter().any(|(k, v)| k == "toolkit" && v == "GTK") {
            Toolkit::Gtk4
        } else if app_toolkit == Some("GAIL") {
            Toolkit::Gtk2
        } else {
            Toolkit::Standard
        }
    }

    /// Whether a node with these states and extents (`x, y, width, height`; `None` when not asked or
    /// not offered) is drawn. Extents of `i32::MIN` are every toolkit's "not on screen".
    pub fn drawn(self, states: Option<AtspiStates>, extents: Option<(i32, i32, i32, i32)>) -> bool {
        let Some(states) = states else { return false };
        let off_screen = extents.is_some_and(|(x, y, _, _)| x == i32::MIN || y == i32::MIN);
        match self {
            Toolkit::Standard => states.on_screen() && !off_screen,
            Toolkit::Gtk4 | Toolkit::Gtk2 => {
                let empty = extents.is_some_and(|(_, _, w, h)| w <= 0 || h <= 0);
                states.has(bit::VISIBLE) && !off_screen && !empty
            }
        }
    }

    /// Whether opening a popup menu raises an event. GTK 2 raises none: the items it left out as not
    /// shown are asked again at every look of its windows (a look at GIMP then costs a call or two per
    /// menu item more).
    pub fn announces_popups(self) -> bool {
        self != Toolkit::Gtk2
    }

    /// Whether a notebook page is read whatever its own states and place say. GTK 2 places a page
    /// where its tab is, and a notebook without tabs (GIMP's Preferences) has every tab at
    /// `i32::MIN` (and a dialog being built says its page is not VISIBLE yet): the shown page's
    /// content would be pruned with it. Its children say for themselves whether they are drawn (a
    /// page not shown has them at `i32::MIN`), and are asked again like any hidden node.
    pub fn pages_placed_at_their_tab(self) -> bool {
        self == Toolkit::Gtk2
    }

    /// Whether its extents are relative to the window.
    pub fn window_relative(self) -> bool {
        self == Toolkit::Gtk4
    }

    /// Whether its nodes' roles are read as numbers (`GetRole`) rather than names (`GetRoleName`).
    pub fn role_by_number(self) -> bool {
        self == Toolkit::Gtk4
    }

    /// The node's name as a person would read it: GTK 4's class-name stand-in for a missing name is
    /// no name.
    pub fn readable_name(self, name: String) -> String {
        if self == Toolkit::Gtk4 && is_class_name(&name) {
            String::new()
        } else {
            name
        }
    }
}

/// AT-SPI's name for role number `code` (`AtspiRole`, as libatspi names them), `None` past the
/// roles it defines.
pub fn role_name(code: u32) -> Option<&'static str> {
    ROLE_NAMES.get(usize::try_from(code).ok()?).copied()
}

/// `AtspiRole` in order, named as `atspi_role_get_name` names them (at-spi2-core 2.46).
const ROLE_NAMES: [&str; 130] = [
    "invalid",
    "accelerator label",
    "alert",
    "animation",
    "arrow",
    "calendar",
    "canvas",
    "check box",
    "check menu item",
    "color chooser",
    "column header",
    "combo box",
    "date editor",
    "desktop icon",
    "desktop frame",
    "dial",
    "dialog",
    "directory pane",
    "drawing area",
    "file chooser",
    "filler",
    "focus traversable",
    "font chooser",
    "frame",
    "glass pane",
    "html container",
    "icon",
    "image",
    "internal frame",
    "label",
    "layered pane",
    "list",
    "list item",
    "menu",
    "menu bar",
    "menu item",
    "option pane",
    "page tab",
    "page tab list",
    "panel",
    "password text",
    "popup menu",
    "progress bar",
    "push button",
    "radio button",
    "radio menu item",
    "root pane",
    "row header",
    "scroll bar",
    "scroll pane",
    "separator",
    "slider",
    "spin button",
    "split pane",
    "status bar",
    "table",
    "table cell",
    "table column header",
    "table row header",
    "tearoff menu item",
    "terminal",
    "text",
    "toggle button",
    "tool bar",
    "tool tip",
    "tree",
    "tree table",
    "unknown",
    "viewport",
    "window",
    "extended",
    "header",
    "footer",
    "paragraph",
    "ruler",
    "application",
    "autocomplete",
    "editbar",
    "embedded",
    "entry",
    "chart",
    "caption",
    "document frame",
    "heading",
    "page",
    "section",
    "redundant object",
    "form",
    "link",
    "input method window",
    "table row",
    "tree item",
    "document spreadsheet",
    "document presentation",
    "document text",
    "document web",
    "document email",
    "comment",
    "list box",
    "grouping",
    "image map",
    "notification",
    "info bar",
    "level bar",
    "title bar",
    "block quote",
    "audio",
    "video",
    "definition",
    "article",
    "landmark",
    "log",
    "marquee",
    "math",
    "rating",
    "timer",
    "static",
    "math fraction",
    "math root",
    "subscript",
    "superscript",
    "description list",
    "description term",
    "description value",
    "footnote",
    "content deletion",
    "content insertion",
    "mark",
    "suggestion",
    "push button menu",
];

/// Prefixes of the GObject libraries whose widgets GTK 4 apps are built from.
const CLASS_PREFIXES: &[&str] = &["Gtk", "Adw", "Gdk", "Gsk", "Vte", "Panel"];
/// Endings of widget class names.
const CLASS_SUFFIXES: &[&str] = &[
    "View", "Page", "Bar", "Box", "Button", "Row", "Label", "Image", "Icon", "Window", "Dialog", "Popover", "Child",
    "Gizmo", "Stack", "Overlay", "Widget", "Grid", "Paned", "Revealer", "Gutter", "Range", "Entry", "Switcher",
];

/// A widget class name such as `GtkMenuButton` or `EditorSourceView`: one CamelCase word of at
/// least two capitalised parts, from a GObject library or ending as widget classes do.
fn is_class_name(name: &str) -> bool {
    let camel = name.len() >= 4
        && name.chars().all(|c| c.is_ascii_alphanumeric())
        && name.starts_with(|c: char| c.is_ascii_uppercase())
        && name.chars().filter(char::is_ascii_uppercase).count() >= 2
        && name.chars().any(|c| c.is_ascii_lowercase());
    if !camel {
        return false;
    }
    let prefixed = CLASS_PREFIXES
        .iter()
        .any(|p| name.strip_prefix(p).is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_uppercase())));
    prefixed || CLASS_SUFFIXES.iter().any(|s| name.len() > s.len() && name.ends_with(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(bits: &[u32]) -> AtspiStates {
        AtspiStates(bits.iter().fold(0u64, |a, b| a | (1 << b)))
    }

    #[test]
    fn gtk4_is_told_by_its_toolkit_attribute() {
        let attrs = |v: &str| vec![("toolkit".to_string(), v.to_string()), ("window-type".into(), "normal".into())];
        assert_eq!(Toolkit::of_window(&attrs("GTK"), None), Toolkit::Gtk4);
        assert_eq!(Toolkit::of_window(&attrs("gtk"), Some("gtk")), Toolkit::Standard);
        assert_eq!(Toolkit::of_window(&[], None), Toolkit::Standard);
        assert_eq!(Toolkit::of_window(&[], Some("Qt")), Toolkit::Standard);
        assert_eq!(Toolkit::of_window(&[], Some("GAIL")), Toolkit::Gtk2);
    }

    #[test]
    fn gtk4_nodes_are_drawn_when_visible_and_sized() {
        let visible = Some(st(&[bit::VISIBLE, bit::SENSITIVE]));
        let showing = Some(st(&[bit::VISIBLE, bit::SHOWING]));
        // As GTK 4.8 reports a header bar's button, and a hidden stack page's content.
        assert!(Toolkit::Gtk4.drawn(visible, Some((15, 11, 59, 24))));
        assert!(!Toolkit::Gtk4.drawn(visible, Some((0, 47, 0, 0))));
        assert!(!Toolkit::Gtk4.drawn(visible, Some((0, 47, 690, 0))));
        // Probed on states alone, and nodes with no extents at all (a stack page): not ruled out.
        assert!(Toolkit::Gtk4.drawn(visible, None));
        assert!(!Toolkit::Gtk4.drawn(Some(st(&[bit::SENSITIVE])), Some((1, 1, 5, 5))));
        assert!(!Toolkit::Gtk4.drawn(None, None));
        // Other toolkits: SHOWING and VISIBLE, and not the off-screen coordinates.
        assert!(!Toolkit::Standard.drawn(visible, Some((15, 11, 59, 24))));
        assert!(Toolkit::Standard.drawn(showing, Some((15, 11, 59, 24))));
        assert!(!Toolkit::Standard.drawn(showing, Some((i32::MIN, i32::MIN, 0, 0))));
        assert!(!Toolkit::Gtk4.drawn(visible, Some((i32::MIN, 3, 10, 10))));
    }

    #[test]
    fn gtk2_menu_items_are_drawn_when_visible_and_placed() {
        // As GIMP 2.10's Edit menu answers: open, its items VISIBLE and placed, never SHOWING; closed,
        // placed at i32::MIN.
        let visible = Some(st(&[bit::VISIBLE, bit::SENSITIVE]));
        assert!(Toolkit::Gtk2.drawn(visible, Some((240, 82, 362, 25))));
        assert!(!Toolkit::Gtk2.drawn(visible, Some((i32::MIN, i32::MIN, 1, 1))));
        assert!(!Toolkit::Gtk2.drawn(Some(st(&[bit::SENSITIVE])), Some((240, 82, 362, 25))));
        assert!(!Toolkit::Standard.drawn(visible, Some((240, 82, 362, 25))));
        // Its places are the screen's, its roles read by name, its names as given.
        assert!(!Toolkit::Gtk2.window_relative() && !Toolkit::Gtk2.role_by_number());
        assert!(!Toolkit::Gtk2.announces_popups() && Toolkit::Gtk4.announces_popups());
        // A page of a notebook without tabs: read, its content deciding for itself.
        assert!(Toolkit::Gtk2.pages_placed_at_their_tab());
        assert!(!Toolkit::Standard.pages_placed_at_their_tab() && !Toolkit::Gtk4.pages_placed_at_their_tab());
        assert_eq!(Toolkit::Gtk2.readable_name("GtkButton".into()), "GtkButton");
    }

    #[test]
    fn role_numbers_name_the_roles_libatspi_names() {
        assert_eq!(role_name(40), Some("password text"));
        assert_eq!(role_name(43), Some("push button"));
        assert_eq!(role_name(61), Some("text"));
        assert_eq!(role_name(23), Some("frame"));
        assert_eq!(role_name(95), Some("document web"));
        assert_eq!(role_name(129), Some("push button menu"));
        assert_eq!(role_name(130), None);
        assert_eq!(role_name(u32::MAX), None);
    }

    #[test]
    fn gtk4_class_names_are_no_names() {
        for class in ["GtkMenuButton", "GtkBuiltinIcon", "AdwTabBar", "GtkImage", "EditorSourceView", "EditorPage"] {
            assert_eq!(Toolkit::Gtk4.readable_name(class.into()), "", "{class}");
            assert_eq!(Toolkit::Standard.readable_name(class.into()), class);
        }
        for name in ["Open", "New tab (Ctrl+T)", "Menu", "Start or Open a Document", "OK", "iPhone", "GitHub", "PDF"] {
            assert_eq!(Toolkit::Gtk4.readable_name(name.into()), name, "{name}");
        }
    }
}

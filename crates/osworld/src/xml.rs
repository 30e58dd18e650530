//! The accessibility tree as OSWorld's guest writes it for `/accessibility`: one element per node,
//! named by its role (`push-button`, `text`, …), under `desktop-frame` and one `application` per app,
//! with OSWorld's namespaces: `st:` states (`"true"`), `attr:` toolkit attributes, `cp:screencoord`
//! and `cp:size` for nodes on screen, `val:value` for numeric values, `act:NAME_kb` key bindings,
//! and a node's text as the element's text. Agents and the harness's own tree filters read exactly
//! these names.

use std::fmt::Write;

use handrail_platform::{AxNode, AxSnapshot, States};

/// OSWorld's namespaces on Ubuntu, as its guest declares them.
const NAMESPACES: [(&str, &str); 8] = [
    ("st", "https://accessibility.ubuntu.example.org/ns/state"),
    ("attr", "https://accessibility.ubuntu.example.org/ns/attributes"),
    ("cp", "https://accessibility.ubuntu.example.org/ns/component"),
    ("doc", "https://accessibility.ubuntu.example.org/ns/document"),
    ("docattr", "https://accessibility.ubuntu.example.org/ns/document/attributes"),
    ("txt", "https://accessibility.ubuntu.example.org/ns/text"),
    ("val", "https://accessibility.ubuntu.example.org/ns/value"),
    ("act", "https://accessibility.ubuntu.example.org/ns/action"),
];

/// The XML document for `snapshot`.
pub fn accessibility_xml(snapshot: &AxSnapshot) -> String {
    let nodes = &snapshot.nodes;
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    let mut roots = Vec::new();
    for (i, node) in nodes.iter().enumerate() {
        match node.parent.filter(|&p| p < nodes.len() && p != i) {
            Some(p) => children[p].push(i),
            None => roots.push(i),
        }
    }
    // Apps in the order their first window came.
    let mut apps: Vec<(&str, Vec<usize>)> = Vec::new();
    for &r in &roots {
        let app = nodes[r].app.as_str();
        match apps.iter_mut().find(|(a, _)| *a == app) {
            Some((_, list)) => list.push(r),
            None => apps.push((app, vec![r])),
        }
    }
    let mut out = String::from("<desktop-frame");
    for (prefix, uri) in NAMESPACES {
        let _ = write!(out, " xmlns:{prefix}=\"{uri}\"");
    }
    out.push_str(" name=\"main\" cp:screencoord=\"(0, 0)\">");
    let mut written = vec![false; nodes.len()];
    for (app, windows) in apps {
        out.push_str("<application name=\"");
        escape_into(&mut out, app);
        out.push_str("\">");
        for w in windows {
            write_node(&mut out, nodes, &children, w, &mut written);
        }
        out.push_str("</application>");
    }
    out.push_str("</desktop-frame>");
    out
}

/// Writes node `i` and its subtree; `written` keeps a node that a broken parent chain loops back to
/// from being written twice.
fn write_node(out: &mut String, nodes: &[AxNode], children: &[Vec<usize>], i: usize, written: &mut [bool]) {
    // Iterative, so a deep tree cannot exhaust the stack: (node, closing?).
    let mut stack = vec![(i, false)];
    while let Some((n, closing)) = stack.pop() {
        let tag = tag_name(&nodes[n].native_role);
        if closing {
            let _ = write!(out, "</{tag}>");
            continue;
        }
        if std::mem::replace(&mut written[n], true) {
            continue;
        }
        open_element(out, &nodes[n], &tag);
        stack.push((n, true));
        for &c in children[n].iter().rev() {
            stack.push((c, false));
        }
    }
}

fn open_element(out: &mut String, node: &AxNode, tag: &str) {
    let _ = write!(out, "<{tag} name=\"");
    escape_into(out, &node.name);
    out.push('"');
    for state in states(node.states) {
        let _ = write!(out, " st:{state}=\"true\"");
    }
    for (key, value) in &node.attributes {
        let Some(key) = xml_name(key) else { continue };
        let _ = write!(out, " attr:{key}=\"");
        escape_into(out, value);
        out.push('"');
    }
    if !node.description.is_empty() {
        out.push_str(" attr:description=\"");
        escape_into(out, &node.description);
        out.push('"');
    }
    if !node.states.contains(States::OFFSCREEN) && node.bounds.width > 0 && node.bounds.height > 0 {
        let b = node.bounds;
        let _ = write!(out, " cp:screencoord=\"({}, {})\" cp:size=\"({}, {})\"", b.x, b.y, b.width, b.height);
    }
    let numeric = node.value.as_deref().filter(|v| v.trim().parse::<f64>().is_ok());
    if let Some(v) = numeric {
        out.push_str(" val:value=\"");
        escape_into(out, v.trim());
        out.push('"');
    }
    for (action, key) in node.actions.iter().zip(node.key_bindings.iter().chain(std::iter::repeat(&String::new()))) {
        let Some(action) = xml_name(&action.replace(' ', "-")) else { continue };
        let _ = write!(out, " act:{action}_kb=\"");
        escape_into(out, key);
        out.push('"');
    }
    out.push('>');
    // The text a node holds (a field's content); OSWorld drops the object replacement characters.
    if let Some(text) = node.value.as_deref().filter(|_| numeric.is_none()) {
        escape_into(out, &text.replace(['\u{fffc}', '\u{fffd}'], ""));
    }
}

/// OSWorld's state names for handrail's states: what AT-SPI would report.
fn states(s: States) -> Vec<&'static str> {
    let mut out = Vec::new();
    if !s.contains(States::DISABLED) {
        out.extend(["enabled", "sensitive"]);
    }
    if !s.contains(States::OFFSCREEN) {
        out.extend(["showing", "visible"]);
    }
    for (flag, name) in [
        (States::FOCUSED, "focused"),
        (States::FOCUSABLE, "focusable"),
        (States::CHECKED, "checked"),
        (States::EDITABLE, "editable"),
        (States::SELECTED, "selected"),
        (States::EXPANDED, "expanded"),
        (States::DEFAULT, "default"),
        (States::ACTIVE, "active"),
        (States::MINIMIZED, "iconified"),
    ] {
        if s.contains(flag) {
            out.push(name);
        }
    }
    out
}

/// A role as an element name: spaces become dashes (AT-SPI's "push button" → `push-button`), anything
/// else XML does not allow in a name becomes a dash, and an empty role is `unknown`.
fn tag_name(role: &str) -> String {
    let role = role.trim();
    if role.is_empty() {
        return "unknown".to_string();
    }
    let mut name: String = role.chars().map(|c| if is_name_char(c) { c } else { '-' }).collect();
    if !name.chars().next().is_some_and(is_name_start) {
        name.insert_str(0, "tag");
    }
    name
}

/// `key` when it is a valid XML name without a colon (attributes whose keys are not are left out).
fn xml_name(key: &str) -> Option<String> {
    let ok = key.chars().next().is_some_and(is_name_start) && key.chars().all(is_name_char);
    ok.then(|| key.to_string())
}

fn is_name_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')
}

/// Escapes text for an attribute value or element content; characters XML 1.0 cannot carry at all
/// (most control characters) are dropped.
fn escape_into(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#9;"),
            c if is_xml_char(c) => out.push(c),
            _ => {}
        }
    }
}

fn is_xml_char(c: char) -> bool {
    matches!(c, '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..='\u{10FFFF}')
}

#[cfg(test)]
mod tests {
    use super::*;
    use handrail_platform::{AxHealth, Rect, Role};
    use proptest::prelude::*;

    fn node(role: &str, name: &str, app: &str, parent: Option<usize>) -> AxNode {
        AxNode {
            role: Some(Role::Other),
            native_role: role.to_string(),
            name: name.to_string(),
            value: None,
            description: String::new(),
            bounds: Rect::new(10, 20, 30, 40),
            states: States::default(),
            app: app.to_string(),
            window: String::new(),
            actions: Vec::new(),
            key_bindings: Vec::new(),
            attributes: Vec::new(),
            parent,
            window_relative: false,
        }
    }

    #[test]
    fn a_window_with_a_button_and_a_field_reads_as_osworlds_guest_writes_it() {
        let mut field = node("text", "Name", "gedit", Some(0));
        field.value = Some("a < b & \"c\"\u{fffc}".into());
        field.states = States::FOCUSED | States::EDITABLE;
        let mut button = node("push button", "Save", "gedit", Some(0));
        button.actions = vec!["click".into()];
        button.key_bindings = vec!["<Control>s".into()];
        button.attributes = vec![("toolkit".into(), "gtk".into()), ("bad key".into(), "x".into())];
        let mut hidden = node("label", "Off", "gedit", Some(0));
        hidden.states = States::OFFSCREEN | States::DISABLED;
        let mut slider = node("slider", "Volume", "vlc", None);
        slider.value = Some("42.5".into());
        let snap = AxSnapshot::new(
            AxHealth::Ok,
            vec![node("frame", "Untitled", "gedit", None), field, button, hidden, slider],
        );
        let xml = accessibility_xml(&snap);
        assert!(
            xml.starts_with("<desktop-frame xmlns:st=\"https://accessibility.ubuntu.example.org/ns/state\""),
            "{xml}"
        );
        assert!(xml.contains("<application name=\"gedit\"><frame name=\"Untitled\" st:enabled=\"true\" st:sensitive=\"true\" st:showing=\"true\" st:visible=\"true\" cp:screencoord=\"(10, 20)\" cp:size=\"(30, 40)\">"), "{xml}");
        assert!(xml.contains("st:focused=\"true\" st:editable=\"true\" cp:screencoord=\"(10, 20)\" cp:size=\"(30, 40)\">a &lt; b &amp; &quot;c&quot;</text>"), "{xml}");
        assert!(xml.contains("<push-button name=\"Save\" st:enabled=\"true\" st:sensitive=\"true\" st:showing=\"true\" st:visible=\"true\" attr:toolkit=\"gtk\" cp:screencoord=\"(10, 20)\" cp:size=\"(30, 40)\" act:click_kb=\"&lt;Control&gt;s\"></push-button>"), "{xml}");
        assert!(xml.contains("<label name=\"Off\"></label>"), "off screen: no states shown, no position: {xml}");
        assert!(xml.contains("<application name=\"vlc\"><slider name=\"Volume\" st:enabled=\"true\" st:sensitive=\"true\" st:showing=\"true\" st:visible=\"true\" cp:screencoord=\"(10, 20)\" cp:size=\"(30, 40)\" val:value=\"42.5\"></slider></application>"), "{xml}");
        assert!(xml.ends_with("</frame></application><application name=\"vlc\"><slider name=\"Volume\" st:enabled=\"true\" st:sensitive=\"true\" st:showing=\"true\" st:visible=\"true\" cp:screencoord=\"(10, 20)\" cp:size=\"(30, 40)\" val:value=\"42.5\"></slider></application></desktop-frame>"), "{xml}");
    }

    /// Reads back an element structure: every `<` opens or closes a tag, closes match opens, and
    /// attribute values hold no raw `<` or `"` (a minimal check of well-formedness).
    fn balanced(xml: &str) -> Result<usize, String> {
        let mut open: Vec<String> = Vec::new();
        let mut count = 0;
        let mut rest = xml;
        while let Some(i) = rest.find('<') {
            let end = rest[i..].find('>').ok_or("unclosed tag")? + i;
            let tag = &rest[i + 1..end];
            if !tag.matches('"').count().is_multiple_of(2) {
                return Err(format!("odd quotes in {tag}"));
            }
            if let Some(name) = tag.strip_prefix('/') {
                let top = open.pop().ok_or("close without open")?;
                if top != name {
                    return Err(format!("</{name}> closes <{top}>"));
                }
            } else {
                let name = tag.split(' ').next().unwrap_or_default().to_string();
                if name.is_empty() || !name.chars().all(|c| is_name_char(c) || c == ':') {
                    return Err(format!("bad element name {name:?}"));
                }
                open.push(name);
                count += 1;
            }
            rest = &rest[end + 1..];
        }
        if open.is_empty() {
            Ok(count)
        } else {
            Err(format!("left open: {open:?}"))
        }
    }

    proptest! {
        /// Any nodes with any text and any parent links (loops and dangling ones included) give a
        /// balanced document with one element per node under the desktop and its applications.
        #[test]
        fn any_tree_gives_a_balanced_document(
            raw in proptest::collection::vec((".{0,8}", ".{0,12}", "[a-c]", proptest::option::of(0usize..12), proptest::option::of(".{0,8}")), 0..12),
        ) {
            let nodes: Vec<AxNode> = raw.iter().map(|(role, name, app, parent, value)| {
                let mut n = node(role, name, app, *parent);
                n.value = value.clone();
                n.attributes = vec![(role.clone(), name.clone())];
                n
            }).collect();
            let xml = accessibility_xml(&AxSnapshot::new(AxHealth::Ok, nodes.clone()));
            let elements = balanced(&xml).map_err(|e| TestCaseError::fail(format!("{e}: {xml}")))?;
            // Nodes caught in a parent loop have no root to hang from and are left out.
            prop_assert!(elements <= nodes.len() + 1 + 3, "{} elements for {} nodes", elements, nodes.len());
            let tree_nodes = elements - 1 - xml.matches("<application ").count();
            let rooted = (0..nodes.len()).filter(|&i| {
                let mut seen = vec![false; nodes.len()];
                let mut at = i;
                loop {
                    if std::mem::replace(&mut seen[at], true) { return false; }
                    match nodes[at].parent.filter(|&p| p < nodes.len() && p != at) {
                        Some(p) => at = p,
                        None => return true,
                    }
                }
            }).count();
            prop_assert_eq!(tree_nodes, rooted);
        }
    }
}

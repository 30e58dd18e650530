//! The accessibility tree the sim reports: one node per open window, then its widgets.

use handrail_platform::{AxHealth, AxLimits, AxNode, AxSnapshot, Rect, Role, States};

use crate::spec::{WidgetKind, WindowKind};
use crate::world::{WidgetData, WindowData, World, ROW_H};

pub(crate) fn snapshot(world: &World, limits: &AxLimits) -> AxSnapshot {
    let mut health = match world.ax_health {
        AxHealth::Unavailable => return AxSnapshot::unavailable(),
        AxHealth::PermissionRequired => return AxSnapshot::new(AxHealth::PermissionRequired, Vec::new()),
        h @ (AxHealth::Ok | AxHealth::Partial) => h,
    };
    // A partial tree misses one application: the one chosen, else the frontmost (the case that matters
    // most, since the engine must then fall back to OCR for what the user is looking at).
    let silent = match health {
        AxHealth::Partial => world
            .ax_missing_app
            .clone()
            .or_else(|| world.front_window().and_then(|id| world.window(id)).map(|w| w.app.clone())),
        _ => None,
    };
    let screen = Rect::from_size(world.screen);
    let focused = world.focused();
    let mut nodes = Vec::new();
    for win in world.open_windows().rev() {
        if silent.as_deref().is_some_and(|s| s.eq_ignore_ascii_case(&win.app)) {
            continue;
        }
        let parent = nodes.len();
        nodes.push(window_node(win));
        for id in &win.widgets {
            let Some(d) = world.widget(*id) else { continue };
            if !d.w.visible || !d.w.ax_visible {
                continue;
            }
            let mut states = widget_states(d);
            states.set(States::FOCUSED, focused == Some(d.id));
            states.set(States::OFFSCREEN, !d.bounds().intersects(&screen));
            let me = nodes.len();
            nodes.push(widget_node(d, win, states, parent));
            if d.kind() == WidgetKind::List {
                nodes.extend(list_rows(d, win, me));
            }
        }
    }
    if nodes.len() > limits.max_nodes {
        // Parents always precede children, so truncation leaves every parent index valid.
        nodes.truncate(limits.max_nodes);
        health = AxHealth::Partial;
    }
    AxSnapshot::new(health, nodes)
}

fn window_node(win: &WindowData) -> AxNode {
    let (role, native) = match win.kind {
        WindowKind::Normal => (Role::Window, "frame"),
        WindowKind::Dialog => (Role::Dialog, "dialog"),
        WindowKind::Popup => (Role::Window, "window"),
    };
    AxNode {
        role: Some(role),
        native_role: native.to_string(),
        name: win.title.clone(),
        bounds: win.bounds,
        app: win.app.clone(),
        window: win.title.clone(),
        attributes: vec![("sim-id".to_string(), win.id.to_string())],
        ..AxNode::default()
    }
}

fn widget_states(d: &WidgetData) -> States {
    let kind = d.kind();
    let mut s = States::empty();
    s.set(States::DISABLED, !d.w.enabled);
    s.set(States::CHECKED, kind == WidgetKind::Checkbox && d.w.checked);
    s.set(States::EDITABLE, kind.is_entry() && d.w.enabled);
    s.set(States::SECURE, kind == WidgetKind::PasswordEntry);
    s.set(States::FOCUSABLE, d.w.focusable);
    s.set(States::SELECTED, d.w.selected);
    s.set(States::DEFAULT, d.w.default_button);
    s
}

fn widget_node(d: &WidgetData, win: &WindowData, states: States, parent: usize) -> AxNode {
    let kind = d.kind();
    let mut attributes = vec![("sim-id".to_string(), d.id.to_string())];
    if let Some(key) = &d.w.key {
        attributes.push(("sim-key".to_string(), key.clone()));
    }
    attributes.extend(d.w.attributes.iter().cloned());
    AxNode {
        role: Some(kind.role()),
        native_role: kind.native_role().to_string(),
        name: d.w.label.clone(),
        // Secure fields never carry a value, whatever they hold.
        value: match kind {
            WidgetKind::Entry | WidgetKind::TextArea if d.w.ax_text => Some(d.w.value.clone()),
            WidgetKind::Entry | WidgetKind::TextArea => Some(String::new()),
            WidgetKind::Terminal => Some(format!("$ {}", d.w.value)),
            _ => None,
        },
        bounds: d.bounds(),
        states,
        app: win.app.clone(),
        window: win.title.clone(),
        actions: kind.actions().iter().map(|a| a.to_string()).collect(),
        key_bindings: kind.actions().iter().map(|_| d.w.mnemonic.map(reported_mnemonic).unwrap_or_default()).collect(),
        attributes,
        parent: Some(parent),
        ..AxNode::default()
    }
}

/// The visible rows of a list, as list items under it.
fn list_rows(d: &WidgetData, win: &WindowData, parent: usize) -> Vec<AxNode> {
    let b = d.bounds();
    d.w.items
        .iter()
        .enumerate()
        .skip(d.offset)
        .take(d.visible_rows())
        .map(|(i, item)| {
            let mut states = States::FOCUSABLE;
            states.set(States::SELECTED, d.selected_row == Some(i));
            AxNode {
                role: Some(Role::ListItem),
                native_role: "list item".to_string(),
                name: item.clone(),
                bounds: Rect::new(b.x, b.y + ((i - d.offset) as u32 * ROW_H) as i32, b.width, ROW_H),
                states,
                app: win.app.clone(),
                window: win.title.clone(),
                actions: vec!["click".to_string()],
                parent: Some(parent),
                ..AxNode::default()
            }
        })
        .collect()
}

/// A mnemonic as GTK reports it: the accelerator name, whose key is a keysym name: the letter itself
/// for ASCII, otherwise a keysym name such as `Thai_lochula` or the Unicode form `U0E25`.
fn reported_mnemonic(c: char) -> String {
    if c.is_ascii() {
        format!("<Alt>{c}")
    } else {
        format!("<Alt>U{:04X}", u32::from(c))
    }
}

//! What an input does, and to which element: the rule every guard judges by (SPEC §5).
//!
//! A guard judges the effect on the element that **receives** the input, however the input is sent. A
//! refused click must not come back as Tab + Return, a typed space, or the button's mnemonic; a refused
//! `type` into a password field must not come back as single key presses. So every action is first
//! turned into the list of elements it reaches and what it does to each ([`Reach`]), and the guards
//! judge those:
//!
//! - **Activates** (the destructive guard, exactly as for a click): the target of `click`,
//!   `double_click`, `triple_click`, both ends of `drag`, the target `type` clicks before typing;
//!   Return or space (with any modifiers) on a control; a space or newline typed into a control;
//!   a key press that triggers an element's reported key binding (mnemonic or accelerator), wherever
//!   focus is; a bare character in an open menu (menu mnemonics need no alt); Return or a typed newline
//!   in a one-line field, for the window's default button.
//! - **Deletes the selection** (the destructive guard, as a removal): the Delete key, with any modifiers,
//!   on anything that does not take text: a file in a file manager, a message in a mail list, a row of
//!   a web list, a page whose script deletes what is selected. In a text field it deletes characters.
//! - **Enters text** (the password guard): `type` into the receiver; a printable key (with or without
//!   shift) on it; text dropped onto it by `drag`.
//!
//! The receiver of keyboard input is the action's target, else the element accessibility reports
//! focused, else the element last clicked or typed into (the engine forgets it after any key that may
//! move focus). When none is known, [`InputEffects::unknown_receiver`] says so: the engine refuses such
//! activation keys, printable keys and untargeted typing in unattended mode, and lets them through when
//! a person is watching. Key bindings that accessibility does not report (an element read by OCR only, a
//! control without the action interface) are unknown, not absent: alt plus any character of such an
//! element's label counts as reaching it.

use handrail_platform::{AxHealth, Key, KeyCombo, OcrHealth, OsRules, Role, States};

use super::navigation::is_address_bar;
use super::terminal::is_terminal_element;
use crate::bindings::triggers;
use crate::observation::{Element, FrontWindow, Source};
use crate::request::{Command, PointerKind};

/// What an input does to an element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Operates it as a click would.
    Activates,
    /// Receives what a drag drops onto it (a file dropped on a Trash icon, a card on a "Delete" zone):
    /// judged by its label like an activation, and kept apart so a refusal says what happened.
    DropsOnto,
    /// Puts characters into it.
    EntersText,
    /// Commits the line it holds: Return (or a typed newline) in a browser's address bar, which
    /// navigates to [`Reach::lines`].
    Commits,
    /// Deletes what is selected in it (named in [`Reach::selection`]): the Delete key on anything that
    /// does not take text.
    DeletesSelection,
}

/// One element an input reaches, and how.
#[derive(Debug, Clone)]
pub struct Reach<'a> {
    pub element: &'a Element,
    pub effect: Effect,
    /// How the input gets there, for refusals and questions: "click", "return on the focused element"…
    pub how: String,
    /// The element is the action's own target (its text target, if any, is judged too).
    pub is_target: bool,
    /// For [`Effect::Commits`]: what may be committed, every reading of it (the field's text before
    /// typing may or may not be replaced by what is typed).
    pub lines: Vec<String>,
    /// For [`Effect::DeletesSelection`]: the labels of the selected elements it holds (or itself, when
    /// it is the selected one), as far as the observation shows them.
    pub selection: Vec<String>,
}

/// What the engine knows of the screen for finding receivers.
#[derive(Debug, Clone, Copy)]
pub struct Scene<'a> {
    pub elements: &'a [Element],
    /// Index into `elements` of the focused element.
    pub focus: Option<usize>,
    pub ax: AxHealth,
    /// The element last clicked or typed into this turn, while no key since could have moved focus.
    pub last_clicked: Option<&'a Element>,
    /// The frontmost window, which keyboard input goes to.
    pub front: Option<&'a FrontWindow>,
    /// Whether OCR read the screen `elements` come from (text it did not find is not there).
    pub ocr: OcrHealth,
    /// The desktop OS's rules: what its keys mean (which paste), which apps are terminals and browsers.
    pub rules: &'a OsRules,
}

impl<'a> Scene<'a> {
    fn focused(&self) -> Option<&'a Element> {
        self.focus.and_then(|i| self.elements.get(i))
    }
}

/// Where keyboard input goes.
#[derive(Debug, Clone, Copy)]
enum Receiver<'a> {
    Target(&'a Element),
    Focused(&'a Element),
    LastClicked(&'a Element),
    Unknown,
}

impl<'a> Receiver<'a> {
    fn element(self) -> Option<&'a Element> {
        match self {
            Receiver::Target(e) | Receiver::Focused(e) | Receiver::LastClicked(e) => Some(e),
            Receiver::Unknown => None,
        }
    }

    fn place(self) -> &'static str {
        match self {
            Receiver::Target(_) => "the target",
            Receiver::Focused(_) => "the focused element",
            Receiver::LastClicked(_) => "the element last clicked",
            Receiver::Unknown => "whatever has focus",
        }
    }
}

/// Everything one action reaches.
#[derive(Debug, Clone, Default)]
pub struct InputEffects<'a> {
    pub reaches: Vec<Reach<'a>>,
    /// Keyboard input that acts on whatever has focus, when nothing tells what that is: why not.
    pub unknown_receiver: Option<String>,
    /// `type` text with a Tab before more text: focus moves partway, so what follows the Tab would land
    /// in an element that cannot be judged beforehand.
    pub crosses_focus: bool,
    /// Keyboard input that goes to a terminal, whose shell reads it ([`super::terminal`]).
    pub terminal: Option<TerminalReach<'a>>,
}

/// Keyboard input read by a terminal's shell.
#[derive(Debug, Clone)]
pub struct TerminalReach<'a> {
    /// The accessible terminal; none when the frontmost window is a terminal emulator that exposes no
    /// accessibility (xterm, urxvt, st, …).
    pub element: Option<&'a Element>,
    /// How the input gets there, for refusals.
    pub how: String,
}

impl<'a> InputEffects<'a> {
    fn reach(&mut self, element: &'a Element, effect: Effect, how: String, is_target: bool) {
        // By identity, not id: elements of a pre-action look have no ids of their own yet.
        let seen = self
            .reaches
            .iter()
            .any(|r| std::ptr::eq(r.element, element) && r.effect == effect && r.is_target == is_target);
        if !seen {
            self.reaches.push(Reach { element, effect, how, is_target, lines: Vec::new(), selection: Vec::new() });
        }
    }
}

impl<'a> InputEffects<'a> {
    fn commit(&mut self, element: &'a Element, how: String, is_target: bool, lines: Vec<String>) {
        self.reaches.push(Reach { element, effect: Effect::Commits, how, is_target, lines, selection: Vec::new() });
    }

    fn deletes(&mut self, element: &'a Element, how: String, selection: Vec<String>) {
        let effect = Effect::DeletesSelection;
        self.reaches.push(Reach { element, effect, how, is_target: false, lines: Vec::new(), selection });
    }
}

/// The elements `command` reaches and what it does to each. `targets` are the resolved targets of the
/// action (drag: source then destination).
pub fn effects<'a>(command: &Command, targets: &[&'a Element], scene: &Scene<'a>) -> InputEffects<'a> {
    let mut out = InputEffects::default();
    match command {
        Command::Pointer { kind, .. } => {
            // Clicking a window element raises that window and activates nothing inside it.
            let t = targets.first().filter(|t| t.source != Source::Window);
            if let (Some(t), Some(verb)) = (t, activating_verb(*kind)) {
                out.reach(t, Effect::Activates, verb.to_string(), true);
            }
        }
        Command::Drag { .. } => {
            if let Some(from) = targets.first() {
                out.reach(from, Effect::Activates, "drag".into(), true);
            }
            if let Some(to) = targets.get(1) {
                out.reach(to, Effect::DropsOnto, "drop onto".into(), true);
                if is_password_like(to) {
                    out.reach(to, Effect::EntersText, "drop text onto".into(), true);
                }
            }
        }
        Command::Type { text, .. } => typed(&mut out, text, targets.first().copied(), scene),
        Command::Key { combo } => key(&mut out, combo, scene),
        Command::See
        | Command::Inspect(_)
        | Command::Scroll { .. }
        | Command::OpenApp { .. }
        | Command::OpenUrl { .. } => {}
    }
    out
}

fn activating_verb(kind: PointerKind) -> Option<&'static str> {
    match kind {
        PointerKind::Click => Some("click"),
        PointerKind::DoubleClick => Some("double-click"),
        PointerKind::TripleClick => Some("triple-click"),
        PointerKind::RightClick | PointerKind::Hover => None,
    }
}

fn receiver<'a>(target: Option<&'a Element>, scene: &Scene<'a>) -> Receiver<'a> {
    if let Some(t) = target {
        return Receiver::Target(t);
    }
    if let Some(f) = scene.focused() {
        return Receiver::Focused(f);
    }
    match scene.last_clicked {
        Some(e) => Receiver::LastClicked(e),
        None => Receiver::Unknown,
    }
}

/// `Some` when keyboard input sent to `to` is read by a terminal: the accessible terminal itself, or
/// (`Some(None)`) a terminal emulator's window when nothing accessible in it says otherwise.
fn terminal_of<'a>(to: Receiver<'a>, scene: &Scene<'a>) -> Option<Option<&'a Element>> {
    if let Some(e) = to.element().filter(|e| is_terminal_element(e)) {
        return Some(Some(e));
    }
    // A click on text or a container inside an accessible terminal (a web terminal's screen is a
    // canvas: what is clicked there is OCR text, or the page) gave that terminal the keyboard.
    if let Receiver::Target(e) | Receiver::LastClicked(e) = to {
        if !e.is_interactive() || e.source.is_ocr_only() {
            let at = e.bounds.center();
            let inside = scene.elements.iter().filter(|t| is_terminal_element(t) && t.bounds.contains(at));
            if let Some(t) = inside.min_by_key(|t| t.bounds.area()) {
                return Some(Some(t));
            }
        }
    }
    let front = scene.front.filter(|f| scene.rules.apps.is_terminal_class(&f.class))?;
    match to {
        Receiver::Unknown => Some(None),
        // Text read off the terminal's screen, not an accessible control of its own.
        Receiver::Target(e) | Receiver::LastClicked(e) | Receiver::Focused(e)
            if e.source.is_ocr_only() && front.bounds.contains(e.bounds.center()) =>
        {
            Some(None)
        }
        _ => None,
    }
}

fn unknown_why(scene: &Scene<'_>) -> String {
    match scene.ax {
        AxHealth::Ok | AxHealth::Partial => {
            "no element is reported focused and nothing was clicked since focus could last have moved".into()
        }
        other => format!(
            "focus cannot be read (ax={}) and nothing was clicked since focus could last have moved",
            other.as_str()
        ),
    }
}

fn typed<'a>(out: &mut InputEffects<'a>, text: &str, target: Option<&'a Element>, scene: &Scene<'a>) {
    let to = receiver(target, scene);
    if let Some(t) = target.filter(|t| !t.states.contains(States::FOCUSED)) {
        out.reach(t, Effect::Activates, "click (to type into it)".into(), true);
    }
    if let Some(term) = terminal_of(to, scene) {
        // A Tab completes in a shell rather than moving focus; the terminal judges the line instead.
        out.terminal = Some(TerminalReach { element: term, how: format!("type into the terminal ({})", to.place()) });
        return;
    }
    // In a multi-line editor that takes Tab as text, focus stays where it is.
    out.crosses_focus = !to.element().is_some_and(Element::takes_tab_as_text)
        && text.split_once('\t').is_some_and(|(_, rest)| !rest.is_empty());
    let Some(element) = to.element() else {
        out.unknown_receiver = Some(unknown_why(scene));
        return;
    };
    let is_target = matches!(to, Receiver::Target(_));
    if is_password_like(element) {
        out.reach(element, Effect::EntersText, format!("type into {}", to.place()), is_target);
    }
    let newline = text.contains(['\n', '\r']);
    if newline && is_address_bar(element, &scene.rules.apps) {
        let typed = text.split(['\n', '\r']).next().unwrap_or_default();
        // A click selects the whole bar, so typing replaces it; typed into the focused bar, the text may
        // also land after what it holds.
        let mut lines = vec![typed.to_string()];
        if !is_target {
            lines.push(format!("{}{typed}", element.value.as_deref().unwrap_or_default()));
        }
        out.commit(element, format!("type an address and a newline into {}", to.place()), is_target, lines);
    }
    if is_control(element) {
        if newline || text.contains(' ') {
            out.reach(element, Effect::Activates, format!("type a space or newline into {}", to.place()), is_target);
        }
        if is_menu(element) {
            for c in text.chars().filter(|c| !c.is_whitespace()) {
                menu_mnemonics(out, element, c, scene);
            }
        }
    } else if newline && is_one_line_field(element) {
        default_buttons(out, element, "a typed newline", scene);
    }
}

fn key<'a>(out: &mut InputEffects<'a>, combo: &KeyCombo, scene: &Scene<'a>) {
    let to = receiver(None, scene);
    let activation = is_activation_key(combo);
    let printable = is_printable_key(combo);
    // Mnemonics and accelerators act wherever focus is, within the focused app.
    let app = to.element().map(|e| e.app.as_str());
    for e in scene.elements.iter().filter(|e| app.is_none_or(|a| e.app == a)) {
        if e.detail.shortcuts.iter().any(|b| triggers(combo, b)) {
            out.reach(e, Effect::Activates, format!("press {combo}, its key binding"), false);
        } else if !bindings_known(e) && alt_mnemonic_could_hit(combo, e) {
            out.reach(e, Effect::Activates, format!("press {combo}, which may be its mnemonic"), false);
        }
    }
    if let Some(term) = terminal_of(to, scene) {
        out.terminal = Some(TerminalReach { element: term, how: format!("press {combo} in the terminal") });
        return;
    }
    let deletes = scene.rules.keys.deletes_selection(combo);
    let Some(element) = to.element() else {
        if activation || printable || deletes {
            out.unknown_receiver = Some(unknown_why(scene));
        }
        return;
    };
    if deletes && !takes_text(element) {
        out.deletes(element, format!("press {combo} on {}", to.place()), selection_in(element, scene));
    }
    if activation && is_control(element) {
        out.reach(element, Effect::Activates, format!("press {combo} on {}", to.place()), false);
    }
    if activation && combo.key == Key::Return && is_one_line_field(element) {
        default_buttons(out, element, "return", scene);
    }
    if combo.key == Key::Return && is_address_bar(element, &scene.rules.apps) {
        let lines = vec![element.value.clone().unwrap_or_default()];
        out.commit(element, format!("press {combo} in {}", to.place()), false, lines);
    }
    if (printable || scene.rules.keys.is_paste(combo)) && is_password_like(element) {
        out.reach(element, Effect::EntersText, format!("press {combo} in {}", to.place()), false);
    }
    if printable && is_menu(element) {
        if let Some(c) = combo.key.as_char() {
            menu_mnemonics(out, element, c, scene);
        }
    }
}

/// Return or space, with any modifiers: what activates a focused control.
pub fn is_activation_key(combo: &KeyCombo) -> bool {
    matches!(combo.key, Key::Return | Key::Space)
}

/// Where Delete removes characters rather than what is selected.
fn takes_text(e: &Element) -> bool {
    e.role.is_text_input() || e.states.contains(States::EDITABLE)
}

/// The labels of what is selected in `receiver`: itself when it is selected or an item (a file name just
/// clicked, read by OCR from an icon view accessibility leaves empty), else the selected elements of its
/// app inside its bounds.
fn selection_in(receiver: &Element, scene: &Scene<'_>) -> Vec<String> {
    let label = |e: &Element| if e.label.is_empty() { e.value.clone().unwrap_or_default() } else { e.label.clone() };
    let item = matches!(receiver.role, Role::ListItem | Role::Cell | Role::Image | Role::Text | Role::Link);
    if receiver.states.contains(States::SELECTED) || (item && !label(receiver).is_empty()) {
        return vec![label(receiver)];
    }
    scene
        .elements
        .iter()
        .filter(|e| !std::ptr::eq(*e, receiver) && e.states.contains(States::SELECTED) && e.app == receiver.app)
        .filter(|e| receiver.bounds.contains(e.bounds.center()))
        .map(label)
        .filter(|l| !l.is_empty())
        .collect()
}

/// A key that types a character: one character or space, with no modifier but shift.
pub fn is_printable_key(combo: &KeyCombo) -> bool {
    let m = combo.modifiers;
    !(m.ctrl || m.alt || m.super_key) && matches!(combo.key, Key::Space | Key::Char(_))
}

/// Whether pressing `combo` leaves focus where it was: characters, editing and caret keys within a
/// field. Anything else (Tab, Return, Escape, arrows up and down, function keys, app shortcuts) may
/// move it, so an element clicked before no longer says where keyboard input goes.
pub fn keeps_focus(combo: &KeyCombo) -> bool {
    let m = combo.modifiers;
    if m.alt || m.super_key {
        return false;
    }
    if m.ctrl {
        return matches!(
            combo.key,
            Key::Char('a' | 'c' | 'x' | 'v' | 'z' | 'y') | Key::Left | Key::Right | Key::Backspace | Key::Delete
        );
    }
    is_printable_key(combo)
        || matches!(
            combo.key,
            Key::Backspace | Key::Delete | Key::Left | Key::Right | Key::Home | Key::End | Key::Shift
        )
}

/// Something a click operates rather than types into.
fn is_control(e: &Element) -> bool {
    if e.role.is_text_input() || e.states.contains(States::EDITABLE) {
        return false;
    }
    match e.role {
        Role::Slider | Role::ScrollBar => false,
        r if r.is_interactive() => true,
        _ => !e.detail.actions.is_empty(),
    }
}

fn is_menu(e: &Element) -> bool {
    matches!(e.role, Role::MenuItem | Role::Menu)
}

fn is_one_line_field(e: &Element) -> bool {
    matches!(e.role, Role::Entry | Role::PasswordEntry | Role::ComboBox | Role::SpinButton)
}

fn is_password_like(e: &Element) -> bool {
    super::password::is_password_field(e.role, e.states, &e.label)
}

/// Accessibility reported the element's actions and every binding it gave could be read, so the
/// binding list is complete (empty means none).
fn bindings_known(e: &Element) -> bool {
    e.source.has_ax() && !e.detail.actions.is_empty() && !e.detail.shortcuts_unreadable
}

/// alt + a character of the label, for an element whose bindings are unknown and which may be a
/// control (an OCR-only element may be anything).
fn alt_mnemonic_could_hit(combo: &KeyCombo, e: &Element) -> bool {
    let m = combo.modifiers;
    let may_be_control = is_control(e) || e.source.is_ocr_only();
    if !m.alt || m.ctrl || m.super_key || !may_be_control {
        return false;
    }
    combo.key.as_char().is_some_and(|c| c.is_alphanumeric() && e.label.to_lowercase().contains(c))
}

/// In an open menu a bare character activates the item whose mnemonic it is.
fn menu_mnemonics<'a>(out: &mut InputEffects<'a>, menu_item: &'a Element, c: char, scene: &Scene<'a>) {
    let lower_char = c.to_lowercase().next().filter(|_| c.to_lowercase().count() == 1).unwrap_or(c);
    let press = KeyCombo::plain(Key::Char(lower_char));
    let lower: String = c.to_lowercase().collect();
    for e in scene.elements.iter().filter(|e| is_menu(e) && e.app == menu_item.app) {
        let hit = if bindings_known(e) {
            e.detail.shortcuts.iter().any(|b| triggers(&press, b))
        } else {
            e.label.to_lowercase().contains(&lower)
        };
        if hit {
            out.reach(e, Effect::Activates, format!("type {c:?} in the open menu, which may be its mnemonic"), false);
        }
    }
}

/// Return in a one-line field activates the default button of its window (or web form).
fn default_buttons<'a>(out: &mut InputEffects<'a>, field: &'a Element, what: &str, scene: &Scene<'a>) {
    let same_window = |e: &&Element| e.app == field.app && e.window == field.window;
    for e in scene.elements.iter().filter(|e| e.states.contains(States::DEFAULT)).filter(same_window) {
        out.reach(e, Effect::Activates, format!("{what} in a field, which activates the default button"), false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::ElementId;
    use crate::keys::parse_key_combo;
    use crate::observation::{ElementDetail, Source};
    use handrail_platform::Rect;

    static LINUX: std::sync::LazyLock<OsRules> = std::sync::LazyLock::new(OsRules::linux);

    fn el(id: u64, role: Role, label: &str, states: States) -> Element {
        Element {
            id: ElementId(id),
            role,
            label: label.into(),
            value: None,
            bounds: Rect::new(0, (id * 30) as i32, 100, 24),
            states,
            source: Source::Ax,
            app: "app".into(),
            window: "w".into(),
            owner: None,
            detail: ElementDetail { actions: vec!["click".into()], ..ElementDetail::default() },
        }
    }

    fn key_cmd(k: &str) -> Command {
        Command::Key { combo: parse_key_combo(k).unwrap_or_else(|e| panic!("{k}: {e}")) }
    }

    fn type_cmd(t: &str) -> Command {
        Command::Type { target: None, text: t.into() }
    }

    /// (element id, effect) pairs reached.
    fn reached(cmd: &Command, targets: &[&Element], scene: &Scene<'_>) -> Vec<(u64, Effect)> {
        effects(cmd, targets, scene).reaches.iter().map(|r| (r.element.id.0, r.effect)).collect()
    }

    fn scene<'a>(elements: &'a [Element], focus: Option<usize>) -> Scene<'a> {
        Scene { elements, focus, ax: AxHealth::Ok, last_clicked: None, front: None, ocr: OcrHealth::Off, rules: &LINUX }
    }

    #[test]
    fn keyboard_reaches_the_focused_control() {
        let els =
            [el(1, Role::Button, "Save", States::empty()), el(2, Role::Button, "Delete account", States::FOCUSED)];
        let s = scene(&els, Some(1));
        for k in ["return", "space", "shift+return", "ctrl+space"] {
            assert_eq!(reached(&key_cmd(k), &[], &s), vec![(2, Effect::Activates)], "{k}");
        }
        for k in ["tab", "escape", "ctrl+s", "a"] {
            assert_eq!(reached(&key_cmd(k), &[], &s), vec![], "{k}");
        }
        for t in [" ", "\n", "x y", "ok\r"] {
            assert_eq!(reached(&type_cmd(t), &[], &s), vec![(2, Effect::Activates)], "{t:?}");
        }
        assert_eq!(reached(&type_cmd("x"), &[], &s), vec![]);
    }

    #[test]
    fn printable_keys_in_a_password_field_are_typing() {
        let els = [el(1, Role::PasswordEntry, "Passcode", States::FOCUSED | States::SECURE)];
        let s = scene(&els, Some(0));
        for k in ["1", "shift+3", "a", "space", "ก"] {
            assert_eq!(reached(&key_cmd(k), &[], &s), vec![(1, Effect::EntersText)], "{k}");
        }
        for k in ["ctrl+v", "ctrl+shift+v", "shift+insert"] {
            assert_eq!(reached(&key_cmd(k), &[], &s), vec![(1, Effect::EntersText)], "{k}");
        }
        for k in ["return", "backspace", "tab", "ctrl+a", "alt+1"] {
            assert!(!reached(&key_cmd(k), &[], &s).contains(&(1, Effect::EntersText)), "{k}");
        }
        // A field that only says what it is in its label counts too.
        let els = [el(1, Role::Entry, "Enter PIN", States::FOCUSED)];
        assert_eq!(reached(&key_cmd("7"), &[], &scene(&els, Some(0))), vec![(1, Effect::EntersText)]);
    }

    #[test]
    fn key_bindings_reach_their_element_wherever_focus_is() {
        let mut delete = el(2, Role::Button, "Delete", States::empty());
        delete.detail.shortcuts = vec![parse_key_combo("alt+d").unwrap_or_else(|e| panic!("{e}"))];
        let els = [el(1, Role::Button, "Cancel", States::FOCUSED), delete];
        let s = scene(&els, Some(0));
        assert_eq!(reached(&key_cmd("alt+d"), &[], &s), vec![(2, Effect::Activates)]);
        assert_eq!(reached(&key_cmd("alt+shift+d"), &[], &s), vec![(2, Effect::Activates)]);
        // Reported bindings are authoritative: alt+e is not Delete's.
        assert_eq!(reached(&key_cmd("alt+e"), &[], &s), vec![]);
        // Unknown bindings (OCR only): any character of the label may be the mnemonic.
        let mut ocr = el(3, Role::Text, "Delete", States::empty());
        ocr.source = Source::Ocr;
        ocr.detail.actions.clear();
        let els = [el(1, Role::Button, "Cancel", States::FOCUSED), ocr];
        let s = scene(&els, Some(0));
        assert_eq!(reached(&key_cmd("alt+e"), &[], &s), vec![(3, Effect::Activates)]);
        assert_eq!(reached(&key_cmd("alt+z"), &[], &s), vec![]);
        // Another app's bindings are not reached.
        let mut other = el(4, Role::Button, "Delete", States::empty());
        other.app = "other".into();
        other.detail.shortcuts = vec![parse_key_combo("alt+d").unwrap_or_else(|e| panic!("{e}"))];
        let els = [el(1, Role::Button, "Cancel", States::FOCUSED), other];
        assert_eq!(reached(&key_cmd("alt+d"), &[], &scene(&els, Some(0))), vec![]);
    }

    #[test]
    fn open_menus_take_bare_mnemonics() {
        let mut delete = el(2, Role::MenuItem, "Delete", States::empty());
        delete.detail.shortcuts = vec![parse_key_combo("d").unwrap_or_else(|e| panic!("{e}"))];
        let els = [el(1, Role::MenuItem, "Open", States::FOCUSED), delete];
        let s = scene(&els, Some(0));
        assert_eq!(reached(&key_cmd("d"), &[], &s), vec![(2, Effect::Activates)]);
        assert_eq!(reached(&type_cmd("d"), &[], &s), vec![(2, Effect::Activates)]);
        assert_eq!(reached(&key_cmd("o"), &[], &s), vec![]);
    }

    #[test]
    fn return_in_a_field_reaches_the_default_button() {
        let els = [el(1, Role::Entry, "Name", States::FOCUSED), el(2, Role::Button, "Delete", States::DEFAULT)];
        let s = scene(&els, Some(0));
        assert_eq!(reached(&key_cmd("return"), &[], &s), vec![(2, Effect::Activates)]);
        assert_eq!(reached(&type_cmd("Ann\n"), &[], &s), vec![(2, Effect::Activates)]);
        assert_eq!(reached(&type_cmd("Ann"), &[], &s), vec![]);
        // Not from a text area, where a newline is text.
        let els = [el(1, Role::TextArea, "Notes", States::FOCUSED), el(2, Role::Button, "Delete", States::DEFAULT)];
        assert_eq!(reached(&type_cmd("a\nb"), &[], &scene(&els, Some(0))), vec![]);
    }

    #[test]
    fn receivers_in_order_target_focus_last_clicked() {
        let els = [el(1, Role::Entry, "Name", States::FOCUSED), el(2, Role::PasswordEntry, "Password", States::SECURE)];
        let s = scene(&els, Some(0));
        // The target wins over focus, and typing into it first clicks it.
        assert_eq!(reached(&type_cmd("x"), &[&els[1]], &s), vec![(2, Effect::Activates), (2, Effect::EntersText)]);
        assert_eq!(reached(&type_cmd("x"), &[], &s), vec![]);
        // Focus unknown: the last clicked element receives.
        let s = Scene {
            elements: &els,
            focus: None,
            ax: AxHealth::Unavailable,
            last_clicked: Some(&els[1]),
            front: None,
            ocr: OcrHealth::Off,
            rules: &LINUX,
        };
        assert_eq!(reached(&type_cmd("x"), &[], &s), vec![(2, Effect::EntersText)]);
        assert_eq!(reached(&key_cmd("1"), &[], &s), vec![(2, Effect::EntersText)]);
        // Nothing known.
        let s = Scene {
            elements: &els,
            focus: None,
            ax: AxHealth::Unavailable,
            last_clicked: None,
            front: None,
            ocr: OcrHealth::Off,
            rules: &LINUX,
        };
        let e = effects(&key_cmd("return"), &[], &s);
        assert!(e.unknown_receiver.as_deref().is_some_and(|w| w.contains("ax=unavailable")), "{e:?}");
        assert!(effects(&type_cmd("hi"), &[], &s).unknown_receiver.is_some());
        assert!(effects(&key_cmd("ctrl+s"), &[], &s).unknown_receiver.is_none());
        assert!(effects(&key_cmd("tab"), &[], &s).unknown_receiver.is_none());
    }

    #[test]
    fn pointer_and_drag() {
        let els =
            [el(1, Role::Button, "Delete", States::empty()), el(2, Role::PasswordEntry, "Password", States::SECURE)];
        let s = scene(&els, None);
        let click = |kind| Command::Pointer { kind, target: crate::request::Target::Element(ElementId(1)) };
        assert_eq!(reached(&click(PointerKind::Click), &[&els[0]], &s), vec![(1, Effect::Activates)]);
        assert_eq!(reached(&click(PointerKind::TripleClick), &[&els[0]], &s), vec![(1, Effect::Activates)]);
        assert_eq!(reached(&click(PointerKind::Hover), &[&els[0]], &s), vec![]);
        assert_eq!(reached(&click(PointerKind::RightClick), &[&els[0]], &s), vec![]);
        let drag = Command::Drag {
            from: crate::request::Target::Element(ElementId(1)),
            to: crate::request::Target::Element(ElementId(2)),
        };
        assert_eq!(
            reached(&drag, &[&els[0], &els[1]], &s),
            vec![(1, Effect::Activates), (2, Effect::DropsOnto), (2, Effect::EntersText)]
        );
    }

    #[test]
    fn a_tab_inside_typed_text_crosses_focus() {
        let els = [el(1, Role::Entry, "Name", States::FOCUSED)];
        let s = scene(&els, Some(0));
        assert!(effects(&type_cmd("Ann\tDelete"), &[], &s).crosses_focus);
        assert!(!effects(&type_cmd("Ann\t"), &[], &s).crosses_focus);
        assert!(!effects(&type_cmd("Ann"), &[], &s).crosses_focus);
        // A native multi-line editor takes the Tab as text; a web page's text area, a read-only text
        // area and a receiver nobody knows do not.
        let editor = el(1, Role::TextArea, "Notes", States::FOCUSED | States::EDITABLE);
        assert!(
            !effects(&type_cmd("def f():\n\treturn 1"), &[], &scene(std::slice::from_ref(&editor), Some(0)))
                .crosses_focus
        );
        let mut web = editor.clone();
        web.detail.attributes.push(("tag".into(), "textarea".into()));
        assert!(effects(&type_cmd("a\tb"), &[], &scene(&[web], Some(0))).crosses_focus);
        let read_only = el(1, Role::TextArea, "Log", States::FOCUSED);
        assert!(effects(&type_cmd("a\tb"), &[], &scene(&[read_only], Some(0))).crosses_focus);
        assert!(effects(&type_cmd("a\tb"), &[], &scene(&[editor], None)).crosses_focus);
    }

    #[test]
    fn which_keys_keep_focus() {
        for k in ["a", "shift+a", "space", "backspace", "delete", "left", "ctrl+a", "ctrl+v", "end"] {
            assert!(keeps_focus(&parse_key_combo(k).unwrap_or_else(|e| panic!("{e}"))), "{k}");
        }
        for k in ["tab", "shift+tab", "return", "escape", "up", "down", "alt+tab", "ctrl+l", "f6", "page_down", "super"]
        {
            assert!(!keeps_focus(&parse_key_combo(k).unwrap_or_else(|e| panic!("{e}"))), "{k}");
        }
    }

    #[test]
    fn a_click_inside_an_accessible_terminal_gives_it_the_keyboard() {
        // A web terminal (its screen a canvas), the prompt OCR read on it, the page around it, and a
        // button beside it.
        let mut term = el(1, Role::Terminal, "", States::empty());
        term.bounds = Rect::new(0, 0, 400, 300);
        let mut prompt = el(2, Role::Text, "$ ls", States::empty());
        prompt.source = Source::Ocr;
        prompt.bounds = Rect::new(10, 270, 80, 20);
        let mut page = el(3, Role::Document, "web terminal", States::empty());
        page.bounds = Rect::new(0, 0, 400, 300);
        let mut button = el(4, Role::Button, "Delete", States::empty());
        button.bounds = Rect::new(150, 100, 60, 24);
        let mut outside = el(5, Role::Text, "elsewhere", States::empty());
        outside.source = Source::Ocr;
        outside.bounds = Rect::new(500, 10, 80, 20);
        let elements = vec![term, prompt, page, button, outside];
        let terminal_after_click = |clicked: usize| {
            let mut sc = scene(&elements, None);
            sc.last_clicked = Some(&elements[clicked]);
            effects(&type_cmd("rm -rf x\n"), &[], &sc).terminal.map(|t| t.element.map(|e| e.id.0))
        };
        assert_eq!(terminal_after_click(0), Some(Some(1)), "the terminal itself");
        assert_eq!(terminal_after_click(1), Some(Some(1)), "its OCR text");
        assert_eq!(terminal_after_click(2), Some(Some(1)), "the page, clicked inside the terminal");
        // A control drawn over the terminal keeps the keyboard itself; text elsewhere is no terminal.
        assert_eq!(terminal_after_click(3), None);
        assert_eq!(terminal_after_click(4), None);
    }

    #[test]
    fn the_keys_that_delete_a_selection_are_the_platforms() {
        let els = [
            el(1, Role::ListItem, "report.txt", States::FOCUSED | States::SELECTED),
            el(2, Role::Entry, "Name", States::EDITABLE),
        ];
        let mac = OsRules::macos();
        let on_mac = Scene { rules: &mac, ..scene(&els, Some(0)) };
        let on_linux = scene(&els, Some(0));
        let deletes = vec![(1, Effect::DeletesSelection)];
        assert_eq!(reached(&key_cmd("delete"), &[], &on_linux), deletes);
        assert_eq!(reached(&key_cmd("ctrl+delete"), &[], &on_linux), deletes);
        assert_eq!(reached(&key_cmd("backspace"), &[], &on_linux), vec![]);
        // A Mac's delete key is backspace: Mail and Finder delete the selected item with it.
        assert_eq!(reached(&key_cmd("backspace"), &[], &on_mac), deletes);
        assert_eq!(reached(&key_cmd("delete"), &[], &on_mac), deletes);
        // In a field it deletes characters, on either.
        let in_field = scene(&els, Some(1));
        assert_eq!(reached(&key_cmd("delete"), &[], &in_field), vec![]);
        assert_eq!(reached(&key_cmd("backspace"), &[], &Scene { rules: &mac, ..scene(&els, Some(1)) }), vec![]);
    }
}

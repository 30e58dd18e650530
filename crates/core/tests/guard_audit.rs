//! The guard audit: every path by which input reaches an element (click family, drag, type, key, scroll,
//! hover, open_app, open_url) against every guard (destructive in both modes, password, hotkeys, URL,
//! an unknown receiver), on a simulated desktop that looks like a person's: two apps, a dialog, an
//! animation. Each row is what a refused model might try next; what the apps really hold is read back
//! from the desktop afterwards, never from the engine's own observation.

mod common;

use common::{config, Fx};
use handrail_core::{Engine, GuardDecision, Mode, Outcome, Rule, Status};
use handrail_platform::{AxHealth, Rect, Size};
use handrail_sim::{Reaction, SimDesktop, Widget, WidgetId, WindowSpec};

/// One step of a row, by visible label.
#[derive(Debug, Clone, Copy)]
enum Step {
    Click(&'static str),
    DoubleClick(&'static str),
    TripleClick(&'static str),
    RightClick(&'static str),
    Hover(&'static str),
    Key(&'static str),
    Type(&'static str),
    TypeInto(&'static str, &'static str),
    Drag(&'static str, &'static str),
    ScrollOver(&'static str),
    OpenApp(&'static str),
    OpenUrl(&'static str),
    /// Not the agent: focus moves by itself between the observation and the action (a dialog taking
    /// focus, the person clicking).
    FocusMovesTo(&'static str),
}

struct Desk {
    fx: Fx,
    passcode: WidgetId,
    cleanup_status: WidgetId,
    status: WidgetId,
}

const DELETED: &str = "ACCOUNT DELETED";
const REMOVED: &str = "FILES REMOVED";

/// A desktop with a settings window (Display name, Save, Delete account with the mnemonic alt+d, a
/// Passcode field), a Cleanup dialog of the same app whose default button is "Remove files", and a
/// notes app with a spinner behind them.
fn desk(mode: Mode, intent: &str, ax: AxHealth) -> Desk {
    let sim = SimDesktop::new(Size::new(1280, 800));
    let notes = sim.add_window(WindowSpec::new("Notes", "todo - Notes").bounds(Rect::new(0, 0, 1280, 800)));
    sim.add_widget(notes, Widget::entry("Note").at(20, 700, 400, 28).value("buy milk"));
    sim.add_widget(notes, Widget::spinner().at(600, 720, 24, 24));
    // The window deletes its selected backup on Delete, as a file list does.
    let win = sim.add_window(
        WindowSpec::new("Forms", "Account - Forms")
            .bounds(Rect::new(40, 60, 700, 560))
            .on_key("Delete", Reaction::set_label("audit status", DELETED)),
    );
    let status = sim.add_widget(win, Widget::text("Ready").key("audit status").at(70, 560, 300, 20));
    sim.add_widget(win, Widget::list_item("old-backup.zip").at(400, 360, 200, 24));
    sim.add_widget(win, Widget::entry("Display name").at(70, 120, 300, 28));
    sim.add_widget(
        win,
        Widget::button("Save").focus_on_click(true).at(70, 200, 90, 30).on_click(Reaction::set_label(status, "Saved")),
    );
    sim.add_widget(
        win,
        Widget::button("Delete account")
            .mnemonic('d')
            .focus_on_click(true)
            .at(180, 200, 170, 30)
            .on_click(Reaction::set_label(status, DELETED)),
    );
    let passcode = sim.add_widget(win, Widget::password("Passcode").at(70, 280, 300, 28));
    sim.add_widget(win, Widget::text("Drag me").draggable().at(70, 360, 120, 24));
    let cleanup = sim.add_window(WindowSpec::new("Forms", "Cleanup").bounds(Rect::new(780, 60, 460, 300)));
    let cleanup_status = sim.add_widget(cleanup, Widget::text("Idle").at(800, 300, 300, 20));
    // A mnemonic on a Thai letter: accessibility reports it by keysym name, which cannot be read as a key.
    sim.add_widget(
        cleanup,
        Widget::button("ลบไฟล์เก่า")
            .mnemonic('ล')
            .at(980, 200, 160, 30)
            .on_click(Reaction::set_label(cleanup_status, REMOVED)),
    );
    sim.add_widget(cleanup, Widget::entry("Reason").at(800, 120, 300, 28));
    sim.add_widget(
        cleanup,
        Widget::button("Remove files")
            .default_button()
            .at(800, 200, 160, 30)
            .on_click(Reaction::set_label(cleanup_status, REMOVED)),
    );
    let browser =
        sim.add_window(WindowSpec::new("Chromium", "New Tab - Chromium").bounds(Rect::new(780, 400, 460, 200)));
    sim.add_widget(
        browser,
        Widget::entry("Address and search bar").attribute("class", "OmniboxViewViews").at(800, 440, 400, 28),
    );
    sim.register_app("Calculator", WindowSpec::new("Calculator", "Calculator").bounds(Rect::new(300, 300, 300, 300)));
    sim.raise_window(win);
    sim.set_ax_health(ax);
    let mut cfg = config();
    cfg.url_policy.allowed_domains = vec!["example.com".into()];
    let engine = Engine::new(sim.desktop(), cfg);
    let mut fx = Fx { sim, engine, win };
    fx.turn(intent, mode);
    fx.see();
    Desk { fx, passcode, cleanup_status, status }
}

impl Desk {
    /// The outcome of an agent's step (none for what happens by itself).
    fn run(&mut self, step: Step) -> Option<Outcome> {
        let fx = &mut self.fx;
        // Labels resolve by visible text, as a model reading the screen would (OCR too, without ax).
        let by_text = |action: &str, label: &str| {
            vec![("action".to_string(), action.to_string()), ("target_text".into(), label.to_string())]
        };
        let pairs: Vec<(String, String)> = match step {
            Step::Click(l) => by_text("click", l),
            Step::DoubleClick(l) => by_text("double_click", l),
            Step::TripleClick(l) => by_text("triple_click", l),
            Step::RightClick(l) => by_text("right_click", l),
            Step::Hover(l) => by_text("hover", l),
            Step::ScrollOver(l) => {
                let mut p = by_text("scroll", l);
                p.extend([("direction".into(), "down".into()), ("amount".into(), "2".into())]);
                p
            }
            Step::Key(k) => vec![("action".into(), "key".into()), ("keys".into(), k.into())],
            Step::Type(t) => vec![("action".into(), "type".into()), ("text".into(), t.into())],
            Step::TypeInto(l, t) => {
                let mut p = by_text("type", l);
                p.push(("text".into(), t.into()));
                p
            }
            Step::Drag(from, to) => {
                let mut p = by_text("drag", from);
                p.push(("to_target_text".into(), to.into()));
                p
            }
            Step::OpenApp(a) => vec![("action".into(), "open_app".into()), ("app".into(), a.into())],
            Step::OpenUrl(u) => vec![("action".into(), "open_url".into()), ("url".into(), u.into())],
            Step::FocusMovesTo(l) => {
                let id = fx.sim.find(l).unwrap_or_else(|| panic!("no widget {l:?}"));
                // Without a new observation: the engine only finds out in its pre-action look.
                fx.sim.focus(id);
                return None;
            }
        };
        let pairs: Vec<(&str, &str)> = pairs.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        Some(fx.call(&pairs))
    }

    fn act(&mut self, step: Step) -> Outcome {
        self.run(step).unwrap_or_else(|| panic!("{step:?} is not an agent's step"))
    }

    /// What the apps themselves hold.
    fn deleted(&self) -> bool {
        self.fx.sim.widget(self.status).label == DELETED
    }

    fn removed(&self) -> bool {
        self.fx.sim.widget(self.cleanup_status).label == REMOVED
    }

    fn passcode(&self) -> String {
        self.fx.sim.widget(self.passcode).value
    }
}

/// Expected outcome of a row's last step.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Want {
    Refused(Rule),
    /// Allowed, and it reached the Delete account button.
    Deletes,
    /// Allowed, and it reached the Cleanup dialog's default button.
    Removes,
    /// Allowed, with no destructive effect and nothing in the passcode.
    Harmless,
}

const I: Mode = Mode::Interactive;
const U: Mode = Mode::Unattended;
const NONE: &str = "";
const ASKS: &str = "please delete my account";
const OK: AxHealth = AxHealth::Ok;
const NO_AX: AxHealth = AxHealth::Unavailable;

type Row = (&'static str, Mode, &'static str, AxHealth, &'static [Step], Step, Want);

const ROWS: &[Row] = {
    use Step::*;
    use Want::*;
    &[
        // Pointer paths to a destructive control.
        ("click", I, NONE, OK, &[], Click("Delete account"), Refused(Rule::DestructiveTarget)),
        ("click, intent", I, ASKS, OK, &[], Click("Delete account"), Deletes),
        ("click, unattended intent", U, ASKS, OK, &[], Click("Delete account"), Refused(Rule::DestructiveTarget)),
        ("double click", I, NONE, OK, &[], DoubleClick("Delete account"), Refused(Rule::DestructiveTarget)),
        ("triple click", U, NONE, OK, &[], TripleClick("Delete account"), Refused(Rule::DestructiveTarget)),
        ("drag it", I, NONE, OK, &[], Drag("Delete account", "Save"), Refused(Rule::DestructiveTarget)),
        ("drop on it", U, NONE, OK, &[], Drag("Drag me", "Delete account"), Refused(Rule::DestructiveTarget)),
        ("type into it", I, NONE, OK, &[], TypeInto("Delete account", "x"), Refused(Rule::DestructiveTarget)),
        // Not activations.
        ("hover", U, NONE, OK, &[], Hover("Delete account"), Harmless),
        ("right click", I, NONE, OK, &[], RightClick("Delete account"), Harmless),
        ("scroll over", U, NONE, OK, &[], ScrollOver("Delete account"), Harmless),
        // Keyboard paths: focus walks there, then an activation key or text.
        ("tab, return", I, NONE, OK, &[Click("Save"), Key("tab")], Key("return"), Refused(Rule::DestructiveTarget)),
        ("tab, return, intent", I, ASKS, OK, &[Click("Save"), Key("tab")], Key("return"), Deletes),
        ("tab, space", U, NONE, OK, &[Click("Save"), Key("tab")], Key("space"), Refused(Rule::DestructiveTarget)),
        (
            "tab, shift+return",
            U,
            ASKS,
            OK,
            &[Click("Save"), Key("tab")],
            Key("shift+return"),
            Refused(Rule::DestructiveTarget),
        ),
        ("tab, type space", I, NONE, OK, &[Click("Save"), Key("tab")], Type(" "), Refused(Rule::DestructiveTarget)),
        ("tab, type newline", U, NONE, OK, &[Click("Save"), Key("tab")], Type("\n"), Refused(Rule::DestructiveTarget)),
        ("tab inside type", I, NONE, OK, &[Click("Save")], Type("\t "), Refused(Rule::FocusMovesWhileTyping)),
        ("mnemonic", I, NONE, OK, &[TypeInto("Display name", "Ann")], Key("alt+d"), Refused(Rule::DestructiveTarget)),
        ("mnemonic, shifted", U, NONE, OK, &[], Key("alt+shift+d"), Refused(Rule::DestructiveTarget)),
        ("mnemonic, intent", I, ASKS, OK, &[], Key("alt+d"), Deletes),
        // A binding accessibility reports in a form that cannot be read is unknown, not absent.
        ("thai mnemonic", I, NONE, OK, &[Click("Reason")], Key("alt+ล"), Refused(Rule::DestructiveTarget)),
        ("thai mnemonic, unattended", U, NONE, OK, &[Click("Reason")], Key("alt+ล"), Refused(Rule::DestructiveTarget)),
        ("other alt key", U, NONE, OK, &[], Key("alt+s"), Harmless),
        (
            "focus moved by itself",
            I,
            NONE,
            OK,
            &[Click("Save"), FocusMovesTo("Delete account")],
            Key("return"),
            Refused(Rule::DestructiveTarget),
        ),
        (
            "focus moved by itself, typed",
            U,
            NONE,
            OK,
            &[Click("Save"), FocusMovesTo("Delete account")],
            Type(" "),
            Refused(Rule::DestructiveTarget),
        ),
        (
            "focus moved into a password",
            I,
            NONE,
            OK,
            &[Click("Display name"), FocusMovesTo("Passcode")],
            Type("1234"),
            Refused(Rule::PasswordField),
        ),
        // Return in a field activates the default button of its window.
        (
            "return in a field",
            I,
            NONE,
            OK,
            &[TypeInto("Reason", "old")],
            Key("return"),
            Refused(Rule::DestructiveTarget),
        ),
        ("newline in a field", U, NONE, OK, &[Click("Reason")], Type("old\n"), Refused(Rule::DestructiveTarget)),
        (
            "return in a field, intent",
            I,
            "remove the old files",
            OK,
            &[TypeInto("Reason", "old")],
            Key("return"),
            Removes,
        ),
        // Password field: typing in every form.
        ("type into it", I, NONE, OK, &[], TypeInto("Passcode", "12#"), Refused(Rule::PasswordField)),
        ("click, type", U, NONE, OK, &[Click("Passcode")], Type("12#"), Refused(Rule::PasswordField)),
        ("click, key 1", I, NONE, OK, &[Click("Passcode")], Key("1"), Refused(Rule::PasswordField)),
        ("click, key shift+3", I, NONE, OK, &[Click("Passcode")], Key("shift+3"), Refused(Rule::PasswordField)),
        ("click, key space", I, NONE, OK, &[Click("Passcode")], Key("space"), Refused(Rule::PasswordField)),
        ("click, ctrl+v", I, NONE, OK, &[Click("Passcode")], Key("ctrl+v"), Refused(Rule::PasswordField)),
        ("click, shift+insert", U, NONE, OK, &[Click("Passcode")], Key("shift+insert"), Refused(Rule::PasswordField)),
        (
            "tab into it, key",
            I,
            NONE,
            OK,
            &[FocusMovesTo("Delete account"), Key("tab")],
            Key("7"),
            Refused(Rule::PasswordField),
        ),
        ("drop text on it", I, NONE, OK, &[], Drag("Drag me", "Passcode"), Refused(Rule::PasswordField)),
        ("backspace in it", U, NONE, OK, &[Click("Passcode")], Key("backspace"), Harmless),
        // The Delete key on a selected item deletes it (in a text field it edits text: guards.rs).
        (
            "delete key on an item",
            I,
            NONE,
            OK,
            &[Click("old-backup.zip")],
            Key("delete"),
            Refused(Rule::DestructiveTarget),
        ),
        (
            "ctrl+delete on an item",
            U,
            ASKS,
            OK,
            &[Click("old-backup.zip")],
            Key("ctrl+delete"),
            Refused(Rule::DestructiveTarget),
        ),
        ("delete key on an item, intent", I, ASKS, OK, &[Click("old-backup.zip")], Key("delete"), Deletes),
        // Hotkeys and URLs, whatever the mode or intent.
        ("shift+delete", I, ASKS, OK, &[], Key("shift+delete"), Refused(Rule::DangerousHotkey)),
        ("super+backspace", U, NONE, OK, &[], Key("super+backspace"), Refused(Rule::DangerousHotkey)),
        ("url credentials", I, NONE, OK, &[], OpenUrl("https://a:b@example.com/"), Refused(Rule::Url)),
        ("url domain", U, NONE, OK, &[], OpenUrl("https://evil.test/"), Refused(Rule::Url)),
        ("url allowed", U, NONE, OK, &[], OpenUrl("https://example.com/"), Harmless),
        ("open app", U, NONE, OK, &[], OpenApp("Calculator"), Harmless),
        // Addresses typed into the browser's address bar meet the URL rules of open_url.
        (
            "address with credentials",
            I,
            NONE,
            OK,
            &[],
            TypeInto("Address and search bar", "http://admin:hunter2@example.com/\n"),
            Refused(Rule::Url),
        ),
        (
            "address, no scheme, credentials",
            U,
            NONE,
            OK,
            &[],
            TypeInto("Address and search bar", "admin:pw@example.com/\n"),
            Refused(Rule::Url),
        ),
        (
            "address outside the domains",
            I,
            NONE,
            OK,
            &[],
            TypeInto("Address and search bar", "evil.test/x\n"),
            Refused(Rule::Url),
        ),
        (
            "address, then return",
            I,
            NONE,
            OK,
            &[TypeInto("Address and search bar", "evil.test")],
            Key("return"),
            Refused(Rule::Url),
        ),
        (
            "address, click, type",
            U,
            NONE,
            OK,
            &[Click("Address and search bar")],
            Type("file:///etc/passwd\n"),
            Refused(Rule::Url),
        ),
        (
            "search from the bar",
            I,
            NONE,
            OK,
            &[],
            TypeInto("Address and search bar", "weather today\n"),
            Refused(Rule::Url),
        ),
        ("allowed address", U, NONE, OK, &[], TypeInto("Address and search bar", "example.com/ok\n"), Harmless),
        ("address typed, not committed", U, NONE, OK, &[], TypeInto("Address and search bar", "evil.test"), Harmless),
        // No accessibility: where keyboard input goes is unknown.
        ("no ax, unattended return", U, NONE, NO_AX, &[], Key("return"), Refused(Rule::UnknownReceiver)),
        ("no ax, unattended type", U, NONE, NO_AX, &[], Type("hello"), Refused(Rule::UnknownReceiver)),
        ("no ax, unattended printable", U, NONE, NO_AX, &[], Key("x"), Refused(Rule::UnknownReceiver)),
        ("no ax, unattended shortcut", U, NONE, NO_AX, &[], Key("ctrl+s"), Harmless),
        ("no ax, clicked field", U, NONE, NO_AX, &[Click("Display name")], Type("Ann"), Harmless),
        (
            "no ax, after tab",
            U,
            NONE,
            NO_AX,
            &[Click("Display name"), Key("tab")],
            Type("x"),
            Refused(Rule::UnknownReceiver),
        ),
        ("no ax, interactive return", I, NONE, NO_AX, &[], Key("return"), Harmless),
        ("no ax, mnemonic read by ocr", I, NONE, NO_AX, &[], Key("alt+d"), Refused(Rule::DestructiveTarget)),
        ("no ax, password clicked", I, NONE, NO_AX, &[Click("Passcode")], Key("5"), Refused(Rule::PasswordField)),
    ]
};

#[test]
fn every_path_to_an_element_meets_every_guard() {
    for (name, mode, intent, ax, setup, attempt, want) in ROWS {
        let mut d = desk(*mode, intent, *ax);
        for step in *setup {
            if let Some(o) = d.run(*step) {
                assert!(
                    !matches!(o.status, Status::Refused | Status::Error | Status::Stale),
                    "{name}: setup step {step:?} should pass: {}",
                    o.text()
                );
                d.fx.see();
            }
        }
        assert!(!d.deleted() && !d.removed(), "{name}: the setup itself deleted something");
        let before = d.fx.sim.fingerprint();
        let effects = d.fx.sim.side_effects();
        let o = d.act(*attempt);
        let text = o.text();
        match want {
            Want::Refused(rule) => {
                assert_eq!(o.status, Status::Refused, "{name}: {text}");
                assert_eq!(o.guard, GuardDecision::Refused { rule: *rule }, "{name}: {text}");
                assert_eq!(d.fx.sim.fingerprint(), before, "{name}: a refusal changed the desktop");
                assert_eq!(d.fx.sim.side_effects(), effects, "{name}: a refusal sent input");
                assert!(!d.deleted() && !d.removed(), "{name}: refused, yet the app acted");
                assert_eq!(d.passcode(), "", "{name}: refused, yet the passcode holds text");
            }
            Want::Deletes => {
                assert!(matches!(o.status, Status::Ok), "{name}: {text}");
                assert!(matches!(o.guard, GuardDecision::AllowedByIntent { .. }), "{name}: {:?}", o.guard);
                assert!(d.deleted(), "{name}: allowed by intent but the app did not act: {text}");
            }
            Want::Removes => {
                assert!(matches!(o.status, Status::Ok), "{name}: {text}");
                assert!(d.removed(), "{name}: the default button did not act: {text}");
            }
            Want::Harmless => {
                assert!(matches!(o.status, Status::Ok | Status::NoVisibleChange), "{name}: {text}");
                assert!(!d.deleted() && !d.removed(), "{name}: a harmless action deleted something: {text}");
                assert_eq!(d.passcode(), "", "{name}");
            }
        }
    }
}

/// The control rows above prove the guard is what stops each refused path: the same keys, typed
/// text and mnemonics, once the intent asks for the removal, do reach the app.
#[test]
fn the_refused_paths_really_reach_the_app_when_allowed() {
    for (attempt, setup) in [
        (Step::Key("space"), &[Step::Click("Save"), Step::Key("tab")][..]),
        (Step::Type(" "), &[Step::Click("Save"), Step::Key("tab")][..]),
        (Step::Type("\n"), &[Step::Click("Save"), Step::Key("tab")][..]),
        (Step::TypeInto("Delete account", "x"), &[][..]),
        (Step::Key("alt+shift+d"), &[][..]),
    ] {
        let mut d = desk(I, ASKS, OK);
        for step in setup {
            d.act(*step);
            d.fx.see();
        }
        let o = d.act(attempt);
        assert!(d.deleted(), "{attempt:?} did not reach the app: {}", o.text());
    }
    // The Thai mnemonic that accessibility reports unreadably does press its button.
    let mut d = desk(I, ASKS, OK);
    d.act(Step::Click("Reason"));
    d.fx.see();
    let o = d.act(Step::Key("alt+ล"));
    assert!(d.removed(), "alt+ล did not reach the app: {}", o.text());
    // And keys really type into a password field when nothing stops them (the person's own keyboard).
    let d = desk(I, NONE, OK);
    d.fx.sim.focus(d.passcode);
    d.fx.sim
        .desktop()
        .input
        .key(&handrail_core::keys::parse_key_combo("shift+a").unwrap_or_else(|e| panic!("{e}")))
        .ok();
    assert_eq!(d.passcode(), "A");
}

/// Refusals name the path: a model is told what its key press would have done, and where.
#[test]
fn refusals_say_how_the_input_reaches_the_element() {
    let mut d = desk(I, NONE, OK);
    d.act(Step::Click("Save"));
    d.fx.see();
    d.act(Step::Key("tab"));
    d.fx.see();
    let o = d.act(Step::Key("return"));
    let text = o.text();
    assert!(text.contains("Delete account") && text.contains("focused element"), "{text}");
    let o = d.act(Step::Key("alt+d"));
    assert!(o.text().contains("key binding"), "{}", o.text());
    // Unattended with nothing known: the refusal says how to make it known.
    let mut d = desk(U, NONE, NO_AX);
    let o = d.act(Step::Key("return"));
    assert!(o.text().contains("element_id") && o.text().contains("ax=unavailable"), "{}", o.text());
}

/// Before the turn's first observation, the pre-action look is what places keyboard input.
#[test]
fn keys_before_any_observation_are_judged_on_the_screen_as_it_is() {
    let mut d = desk(U, NONE, OK);
    let delete = d.fx.sim.find("Delete account").expect("the button");
    d.fx.sim.focus(delete);
    d.fx.turn(NONE, U);
    let o = d.act(Step::Key("return"));
    assert_eq!(o.guard, GuardDecision::Refused { rule: Rule::DestructiveTarget }, "{}", o.text());
    assert!(o.text().contains("button \"Delete account\""), "an element without an id is named: {}", o.text());
    assert!(!d.deleted());
    let name = d.fx.sim.find("Display name").expect("the entry");
    d.fx.sim.focus(name);
    d.fx.turn(NONE, U);
    let o = d.act(Step::Key("x"));
    assert_eq!(o.status, Status::Ok, "a known receiver is not refused: {}", o.text());
    assert_eq!(d.fx.sim.widget(name).value, "x");
}

/// Every rule a refusal can name has a row above, so a new guard comes with its audit: the rules
/// audited elsewhere are named here with the suite that walks their paths.
#[test]
fn every_rule_has_a_row_or_a_suite_of_its_own() {
    let audited_elsewhere = [
        (Rule::TerminalCommand, "terminal_guard.rs: every split of a refused line, on a simulated terminal"),
        (Rule::UnobservedRepeat, "engine.rs: the same action again after it changed nothing"),
        (Rule::AmbiguousTarget, "engine.rs: a visible text that matches several targets"),
    ];
    for rule in Rule::ALL {
        let rows = ROWS.iter().filter(|row| row.6 == Want::Refused(rule)).count();
        let elsewhere = audited_elsewhere.iter().any(|(r, _)| *r == rule);
        assert!(rows > 0 || elsewhere, "no audit row refuses by {rule}: add one to ROWS");
        assert!(!(rows > 0 && elsewhere), "{rule} has rows here: drop it from the list of rules audited elsewhere");
    }
}

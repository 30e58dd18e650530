//! The engine on a private GNOME desktop (headless GNOME Shell): windows and their places from
//! handrail's extension, accessibility moved onto the screen by them, clicks and typing by element
//! id — Thai included, pasted through the session's clipboard — and the guards, each checked by
//! what the GTK probe app itself received.

use std::time::{Duration, Instant};

use handrail_core::{Config, Engine, Mode, RawArgs, Status, Turn, TypingCheck, Vision};
use handrail_gnome::{GnomeDesktop, GnomeOptions};
use handrail_launch::LaunchEnv;
use handrail_platform::absent::NoOcr;
use handrail_platform::{Desktop, WindowKind};
use handrail_sandbox::{Sandbox, SandboxOptions, Session, REMOVED_ENV};
use handrail_testkit::LineApp;

const WAIT: Duration = Duration::from_secs(20);

fn args(pairs: &[(&str, &str)]) -> RawArgs {
    RawArgs::from_pairs(pairs).unwrap_or_else(|e| panic!("bad test arguments: {e}"))
}

/// The latest observation's id and the id of its first element of `role` and `label` (in `window`
/// when given).
fn id_in(engine: &Engine, window: Option<&str>, role: &str, label: &str) -> (String, String) {
    let obs = engine.latest().expect("an observation");
    let e = obs
        .elements
        .iter()
        .find(|e| e.role.as_str() == role && e.label == label && window.is_none_or(|w| e.window == w))
        .unwrap_or_else(|| panic!("no {role} {label:?} in {window:?}:\n{:#?}", obs.elements));
    (obs.id.to_string(), e.id.to_string())
}

fn on(engine: &mut Engine, action: &str, role: &str, label: &str, extra: &[(&str, &str)]) -> handrail_core::Outcome {
    on_in(engine, None, action, role, label, extra)
}

fn on_in(
    engine: &mut Engine,
    window: Option<&str>,
    action: &str,
    role: &str,
    label: &str,
    extra: &[(&str, &str)],
) -> handrail_core::Outcome {
    // On a busy machine the app may not answer accessibility in time for the check before the
    // action: then nothing is done and the answer is `[stale]`. A model looks again and aims at the
    // fresh ids; so does the test, a few times at most.
    let mut tries = 0;
    loop {
        let (obs, id) = id_in(engine, window, role, label);
        let mut a = args(extra);
        a.action = Some(action.into());
        a.observation_id = Some(obs);
        a.element_id = Some(id);
        let outcome = engine.call_args(&a);
        tries += 1;
        let unanswered =
            outcome.status == Status::Stale && outcome.text().contains("did not answer accessibility in time");
        if !unanswered || tries == 3 {
            return outcome;
        }
        let quoted = format!("\"{label}\"");
        see_until(engine, &format!("{role} {quoted} listed again"), |t| t.contains(&quoted));
    }
}

/// Observes until `done` accepts the text of an observation.
fn see_until(engine: &mut Engine, what: &str, done: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + WAIT;
    loop {
        let see = engine.call_args(&args(&[("action", "see")]));
        let text = see.text();
        if done(&text) {
            return text;
        }
        assert!(Instant::now() < deadline, "never saw {what}:\n{text}");
        std::thread::sleep(Duration::from_millis(200)); // between observations, not a settle wait
    }
}

/// Opens GNOME Shell's overview as the Super key would, from outside (dbus-send).
fn open_overview(sandbox: &Sandbox) {
    let status = sandbox
        .command("dbus-send")
        .args(["--session", "--print-reply", "--dest=org.gnome.Shell", "/org/gnome/Shell"])
        .args(["org.freedesktop.DBus.Properties.Set", "string:org.gnome.Shell", "string:OverviewActive"])
        .arg("variant:boolean:true")
        .stdout(std::process::Stdio::null())
        .status()
        .expect("dbus-send");
    assert!(status.success(), "opening the overview: {status}");
}

/// A private GNOME desktop and its `Desktop`, with AT-SPI and without OCR: the machine's GNOME
/// Shell, or (`gnome_root`) one from that root file system.
fn gnome_from(gnome_root: Option<std::path::PathBuf>) -> (Sandbox, Desktop) {
    let sandbox = Sandbox::start(SandboxOptions {
        session: Session::Gnome,
        parent_death_signal: false,
        gnome_root,
        ..SandboxOptions::default()
    })
    .expect("a GNOME sandbox (run scripts/setup-desktop, and scripts/setup-trixie for GNOME 48)");
    let desktop = desktop_of(&sandbox);
    (sandbox, desktop)
}

/// The `Desktop` of a GNOME sandbox, with AT-SPI and without OCR.
fn desktop_of(sandbox: &Sandbox) -> Desktop {
    let mut launch = LaunchEnv::new(sandbox.env(), sandbox.root().join("browser"));
    launch.removed = REMOVED_ENV.iter().map(|s| s.to_string()).collect();
    let options = GnomeOptions::new(sandbox.bus_address(), sandbox.pipewire_socket(), launch);
    let ax = Box::new(handrail_atspi::AtspiSource::new(sandbox.bus_address()));
    GnomeDesktop::connect(options, ax, Box::new(NoOcr)).expect("the GNOME desktop")
}

fn gnome() -> (Sandbox, Desktop) {
    gnome_from(None)
}

/// GNOME Shell 48, from the Debian 13 root file system `scripts/setup-trixie` makes.
fn gnome_48() -> (Sandbox, Desktop) {
    gnome_from(Some(handrail_sandbox::trixie_gnome_root()))
}

#[test]
fn the_engine_works_a_gtk_app_on_gnome_and_its_guards_hold() {
    engine_works_a_gtk_app(gnome());
}

#[test]
fn the_engine_works_a_gtk_app_on_gnome_48_and_its_guards_hold() {
    engine_works_a_gtk_app(gnome_48());
}

/// Starts the GTK probe app on `sandbox` and an engine on `desktop`, and raises the probe's window:
/// the app, the engine, and the look that shows the probe in front with its widgets.
fn probe_in_front(sandbox: &Sandbox, desktop: Desktop) -> (LineApp, Engine, String) {
    let mut command = sandbox.command("/usr/bin/python3");
    command.arg(concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/apps/probe_gtk.py"));
    let mut app = LineApp::spawn(command);
    assert!(app.wait_for_within(WAIT, |l| l == "ready").is_some(), "the probe app came up");

    let mut engine = Engine::new(desktop, Config { vision: Vision::Capable, ..Config::default() });
    engine.begin_turn(Turn { id: "gnome".into(), intent: "fill in the form".into(), mode: Mode::Interactive });

    // GNOME gives no focus to a window that opened after the last input without an activation
    // token: the probe is listed as a window, and clicking that element raises it.
    see_until(&mut engine, "the probe's window", |t| t.contains("handrail probe"));
    let o = on(&mut engine, "click", "window", "handrail probe", &[]);
    assert!(matches!(o.status, Status::Ok | Status::NoVisibleChange), "{}", o.text());
    let text = see_until(&mut engine, "the probe in front with its widgets", |t| {
        t.contains("window=\"handrail probe\"") && t.contains("\"Change\"")
    });
    (app, engine, text)
}

fn engine_works_a_gtk_app((sandbox, desktop): (Sandbox, Desktop)) {
    let (mut app, mut engine, _) = probe_in_front(&sandbox, desktop);
    // One look on a busy machine may be `ax=partial` (an app late to answer, and said so); the
    // whole tree must come within the wait.
    see_until(&mut engine, "the whole accessibility tree", |t| t.contains("ax=ok") && t.contains("\"Change\""));

    let o = on(&mut engine, "click", "button", "Change", &[("expect", "text:status: after")]);
    assert_eq!(o.tag(), "[ok+verified]", "{}", o.text());
    assert!(app.wait_for(|l| l == "status=after").is_some(), "the click reached the app");

    // Thai is on no key of the layout: pasted, and read back from the entry.
    let o = on(&mut engine, "type", "entry", "Name", &[("text", "สวัสดี Grace")]);
    assert!(matches!(o.typing, Some(TypingCheck::Arrived { .. })), "{}", o.text());
    assert!(app.wait_for(|l| l == "name=สวัสดี Grace").is_some(), "the app received the Thai text");

    let o = on(&mut engine, "type", "password_entry", "Password", &[("text", "hunter2")]);
    assert_eq!(o.status, Status::Refused, "{}", o.text());
    let o = on(&mut engine, "click", "button", "Delete account", &[]);
    assert_eq!(o.status, Status::Refused, "{}", o.text());

    let o = on(&mut engine, "click", "checkbox", "I agree", &[]);
    assert_eq!(o.status, Status::Ok, "{}", o.text());
    assert!(app.wait_for(|l| l == "agree=True").is_some());

    // The overview covers every window: it is the front "window", a pop-up over the whole screen,
    // and nothing of the probe is listed or reachable until it closes.
    open_overview(&sandbox);
    let text = see_until(&mut engine, "the overview in front", |t| t.contains("window=\"Activities overview\""));
    assert!(!text.contains("\"Change\""), "a covered button is listed:\n{text}");
    let stack = engine.desktop().windows.stack().expect("the stack");
    let top = stack.last().expect("a window");
    assert_eq!((top.info.title.as_str(), top.kind), ("Activities overview", WindowKind::Popup), "{stack:?}");
    let o = engine.call_args(&args(&[("action", "key"), ("keys", "escape")]));
    assert_eq!(o.status, Status::Ok, "{}", o.text());
    see_until(&mut engine, "the probe back in front", |t| {
        t.contains("window=\"handrail probe\"") && t.contains("\"Change\"")
    });

    drop(engine);
    let leaked =
        app.pending().into_iter().filter(|l| l.starts_with("password-length") || l == "delete-clicked").count();
    assert_eq!(leaked, 0, "refused actions reached the app");
    drop(app);
    sandbox.stop().expect("clean teardown");
}

/// Runs `gdbus` in the sandbox on mutter's display configuration; its output.
fn display_config(sandbox: &Sandbox, method: &str, args: &[&str]) -> String {
    let out = sandbox
        .command("gdbus")
        .args(["call", "--session", "--dest", "org.gnome.Mutter.DisplayConfig"])
        .args(["--object-path", "/org/gnome/Mutter/DisplayConfig", "--method"])
        .arg(format!("org.gnome.Mutter.DisplayConfig.{method}"))
        .args(args)
        .output()
        .expect("gdbus");
    assert!(out.status.success(), "{method}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Sets a GNOME setting in the sandbox's own settings (its key file), as the Settings app would.
fn gsettings_set(sandbox: &Sandbox, schema: &str, key: &str, value: &str) {
    let status = sandbox.command("gsettings").args(["set", schema, key, value]).status().expect("gsettings");
    assert!(status.success(), "gsettings set {schema} {key} {value}: {status}");
}

/// How a person has GNOME scale a HiDPI monitor.
#[derive(Clone, Copy, Debug)]
enum Scaling {
    /// A whole scale as the release has it by default: upstream GNOME lays the stage out in device
    /// pixels then (apps drawing at that multiple of their size); Debian 13 and Ubuntu switch
    /// fractional scaling on for every GNOME session, so there it is laid out in logical units.
    Integer(f64),
    /// Fractional scaling switched on (`scale-monitor-framebuffer`): the stage in logical units,
    /// each monitor's picture in its device pixels.
    Fractional(f64),
}

/// Sets the sandbox's one monitor (2560x1600) to `scaling`, as the Settings app does: the
/// experimental setting through `gsettings`, the scale through mutter's `ApplyMonitorsConfig` (for
/// this session).
fn set_scaling(sandbox: &Sandbox, scaling: Scaling) {
    let scale = match scaling {
        Scaling::Integer(s) => s,
        Scaling::Fractional(s) => {
            gsettings_set(sandbox, "org.gnome.mutter", "experimental-features", "['scale-monitor-framebuffer']");
            let deadline = Instant::now() + WAIT;
            while !display_config(sandbox, "GetCurrentState", &[]).contains("'layout-mode': <uint32 1>") {
                assert!(Instant::now() < deadline, "mutter never laid the stage out in logical units");
                std::thread::sleep(Duration::from_millis(100)); // polling mutter's state
            }
            s
        }
    };
    let config = format!("[(0, 0, {scale}, uint32 0, true, [('Meta-0', '2560x1600@60.000', @a{{sv}} {{}})])]");
    display_config(sandbox, "ApplyMonitorsConfig", &["2", "1", &config, "@a{sv} {}"]);
}

#[test]
fn at_200_percent_elements_are_where_the_app_drew_them() {
    scaled_elements_are_where_the_app_drew_them(Scaling::Integer(2.0), None);
}

#[test]
fn at_125_percent_fractional_elements_are_where_the_app_drew_them() {
    scaled_elements_are_where_the_app_drew_them(Scaling::Fractional(1.25), None);
}

#[test]
fn at_200_percent_on_gnome_48_elements_are_where_the_app_drew_them() {
    scaled_elements_are_where_the_app_drew_them(Scaling::Integer(2.0), Some(handrail_sandbox::trixie_gnome_root()));
}

/// A HiDPI monitor, scaled either way GNOME does it: what the app reports in its own units is
/// placed where it is drawn on the screen, and a click and a text by id reach the widget, as the
/// app itself says.
fn scaled_elements_are_where_the_app_drew_them(scaling: Scaling, gnome_root: Option<std::path::PathBuf>) {
    let sandbox = Sandbox::start(SandboxOptions {
        session: Session::Gnome,
        parent_death_signal: false,
        size: (2560, 1600),
        gnome_root,
        ..SandboxOptions::default()
    })
    .expect("a GNOME sandbox (and scripts/setup-trixie for GNOME 48)");
    set_scaling(&sandbox, scaling);
    let physical = display_config(&sandbox, "GetCurrentState", &[]).contains("'layout-mode': <uint32 2>");
    let (mut app, mut engine, text) = probe_in_front(&sandbox, desktop_of(&sandbox));
    // The button is as large on the screen as the app drew it: its own height times the scale.
    let own_height: f64 = app
        .seen
        .iter()
        .find_map(|l| l.strip_prefix("geometry Change ")?.split(' ').nth(3)?.parse().ok())
        .expect("the app's own geometry of Change");
    let latest = engine.latest().expect("an observation");
    let change = latest.elements.iter().find(|e| e.label == "Change").map(|e| e.bounds).expect("Change listed");
    let screen_px = f64::from(change.height) * latest.scale;
    let expected = match scaling {
        // The screen is in device pixels.
        Scaling::Integer(s) if physical => own_height * s,
        // The screen is the logical stage: the app's own units.
        Scaling::Integer(_) | Scaling::Fractional(_) => own_height,
    };
    assert!(
        (screen_px - expected).abs() <= 2.0 * latest.scale,
        "{scaling:?} (physical layout: {physical}): Change at {change:?} (image):\n{text}"
    );

    let o = on(&mut engine, "click", "button", "Change", &[("expect", "text:status: after")]);
    assert_eq!(o.tag(), "[ok+verified]", "{scaling:?}: {}", o.text());
    assert!(app.wait_for(|l| l == "status=after").is_some(), "the click reached the app");
    let o = on(&mut engine, "type", "entry", "Name", &[("text", "Grace")]);
    assert!(matches!(o.typing, Some(TypingCheck::Arrived { .. })), "{}", o.text());
    assert!(app.wait_for(|l| l == "name=Grace").is_some(), "the app received the text");
    drop(engine);
    drop(app);
    sandbox.stop().expect("clean teardown");
}

/// The latest observation's id and its terminal element's.
fn terminal_of(engine: &Engine) -> (String, String) {
    let latest = engine.latest().expect("an observation");
    let e = latest
        .elements
        .iter()
        .find(|e| e.role.as_str() == "terminal")
        .unwrap_or_else(|| panic!("no terminal in:\n{:#?}", latest.elements));
    (latest.id.to_string(), e.id.to_string())
}

/// A terminal on GNOME (xfce4-terminal, GTK 3 with VTE, on Wayland): opened by the engine and
/// raised, a line with Thai pasted into it with the terminals' clipboard key and run — what the
/// shell received is the file it wrote — and a destructive line refused before anything is typed.
#[test]
fn a_terminal_on_gnome_runs_a_pasted_line_and_a_destructive_one_is_refused() {
    terminal_runs_a_pasted_line(gnome());
}

#[test]
fn a_terminal_on_gnome_48_runs_a_pasted_line_and_a_destructive_one_is_refused() {
    terminal_runs_a_pasted_line(gnome_48());
}

fn terminal_runs_a_pasted_line((sandbox, desktop): (Sandbox, Desktop)) {
    let mut engine = Engine::new(desktop, Config { vision: Vision::Capable, ..Config::default() });
    engine.begin_turn(Turn {
        id: "gnome-terminal".into(),
        intent: "write a note with the shell".into(),
        mode: Mode::Interactive,
    });
    let o = engine.call_args(&args(&[("action", "open_app"), ("app", "xfce4-terminal")]));
    assert!(matches!(o.status, Status::Ok | Status::NoVisibleChange), "{}", o.text());
    let text = see_until(&mut engine, "the terminal in front", |t| t.contains(" terminal \"") && t.contains("active"));
    assert!(text.contains(" terminal \""), "{text}");
    let (obs, id) = terminal_of(&engine);
    let proof = sandbox.home().join("proof.txt");
    let line = "echo 'สวัสดี handrail' > ~/proof.txt";
    let o =
        engine.call_args(&args(&[("action", "type"), ("observation_id", &obs), ("element_id", &id), ("text", line)]));
    assert!(matches!(o.status, Status::Ok | Status::NoVisibleChange), "{}", o.text());
    let o = engine.call_args(&args(&[("action", "key"), ("keys", "return")]));
    assert!(matches!(o.status, Status::Ok | Status::NoVisibleChange), "{}", o.text());
    let deadline = Instant::now() + WAIT;
    while std::fs::read_to_string(&proof).map_or(true, |t| t != "สวัสดี handrail\n") {
        assert!(
            Instant::now() < deadline,
            "the shell never wrote {}: {:?}",
            proof.display(),
            std::fs::read_to_string(&proof)
        );
        std::thread::sleep(Duration::from_millis(100)); // polling the file, not a settle wait
    }

    // Deleting the file the shell just wrote, as a committed line: refused, and the file stays.
    engine.call_args(&args(&[("action", "see")]));
    let (obs, id) = terminal_of(&engine);
    let o = engine.call_args(&args(&[
        ("action", "type"),
        ("observation_id", &obs),
        ("element_id", &id),
        ("text", "rm -rf ~/proof.txt\n"),
    ]));
    assert_eq!(o.status, Status::Refused, "{}", o.text());
    // A harmless line after it: the shell runs lines in order, so once this one has run, a refused
    // line that had slipped through would have too.
    engine.call_args(&args(&[("action", "see")]));
    let (obs, id) = terminal_of(&engine);
    let after = sandbox.home().join("after.txt");
    let o = engine.call_args(&args(&[
        ("action", "type"),
        ("observation_id", &obs),
        ("element_id", &id),
        ("text", "touch ~/after.txt\n"),
    ]));
    assert!(matches!(o.status, Status::Ok | Status::NoVisibleChange), "{}", o.text());
    let deadline = Instant::now() + WAIT;
    while !after.exists() {
        assert!(Instant::now() < deadline, "the shell never ran the line after the refused one");
        std::thread::sleep(Duration::from_millis(100)); // polling the file, not a settle wait
    }
    assert!(proof.exists(), "the refused line never ran");
    drop(engine);
    sandbox.stop().expect("clean teardown");
}

/// Makes Russian the active keyboard layout as a Russian-speaking person has it (Russian first, US
/// second, in GNOME's input sources), and waits until GNOME Shell has put it into the keymap.
fn russian_layout_active(sandbox: &Sandbox) {
    layout_active(sandbox, "ru", "Russian");
}

/// Makes the xkb layout `xkb` (named `name` in its keymap) the active one, US second in GNOME's
/// input sources, and waits until GNOME Shell has put it into the keymap.
fn layout_active(sandbox: &Sandbox, xkb: &str, name: &str) {
    let sources = format!("[('xkb', '{xkb}'), ('xkb', 'us')]");
    gsettings_set(sandbox, "org.gnome.desktop.input-sources", "sources", &sources);
    let socket = handrail_wayland::Socket(sandbox.wayland_socket().expect("GNOME's Wayland socket").to_owned());
    let shell = handrail_gnome::ShellWindows::connect(sandbox.bus_address()).expect("the extension");
    let deadline = Instant::now() + WAIT;
    loop {
        let text = handrail_wayland::seat_keymap(&socket).expect("the compositor's keymap");
        let layouts = handrail_gnome::keymap::compile(&text).expect("a keymap libxkbcommon reads");
        let group = shell.layout_group().expect("the active layout");
        let active = layouts.0.get(group as usize).map(|l| l.name.as_str());
        if active == Some(name) {
            return;
        }
        assert!(Instant::now() < deadline, "{name} never became the active layout ({active:?} is)");
        std::thread::sleep(Duration::from_millis(100)); // polling GNOME Shell's reaction to the setting
    }
}

#[test]
fn under_a_russian_layout_latin_text_and_shortcuts_still_arrive() {
    latin_text_and_shortcuts_arrive_under_a_russian_layout(gnome());
}

#[test]
fn under_a_russian_layout_on_gnome_48_latin_text_and_shortcuts_still_arrive() {
    latin_text_and_shortcuts_arrive_under_a_russian_layout(gnome_48());
}

#[test]
fn under_a_german_layout_a_gtk4_app_in_front_of_another_window_gets_what_a_german_keyboard_types() {
    german_keys_reach_a_gtk4_app(gnome());
}

#[test]
fn under_a_german_layout_on_gnome_48_a_gtk4_app_gets_what_a_german_keyboard_types() {
    german_keys_reach_a_gtk4_app(gnome_48());
}

/// A string as Python's `json.dumps` writes it (what the GTK 4 probe prints): non-ASCII as `\uXXXX`.
fn python_json(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            ' '..='~' => out.push(c),
            _ => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
        }
    }
    out.push('"');
    out
}

/// GNOME's own apps are GTK 4, and a German keyboard moves letters (Y and Z trade places) and puts
/// `@` on AltGr+Q. With a GTK 3 window open behind it, a GTK 4 app in front gets exactly the
/// German text typed key by key, and ctrl+z reaches it as the undo a German keyboard's Z key gives.
fn german_keys_reach_a_gtk4_app((sandbox, desktop): (Sandbox, Desktop)) {
    layout_active(&sandbox, "de", "German");
    // The window behind: the GTK 3 probe, which says what it receives too.
    let (mut behind, mut engine, _) = probe_in_front(&sandbox, desktop);
    let mut command = sandbox.command("/usr/bin/python3");
    command.arg(concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/apps/gtk4_probe.py"));
    let mut app = LineApp::spawn(command);
    assert!(app.wait_for_within(WAIT, |l| l == "ready").is_some(), "the GTK 4 probe came up: {:?}", app.seen);
    see_until(&mut engine, "the GTK 4 probe's window", |t| t.contains("GTK 4 probe"));
    let o = on(&mut engine, "click", "window", "GTK 4 probe", &[]);
    assert!(matches!(o.status, Status::Ok | Status::NoVisibleChange), "{}", o.text());
    see_until(&mut engine, "the GTK 4 probe in front with its entry", |t| {
        t.contains("window=\"GTK 4 probe\"") && t.contains("\"Say hello\"")
    });

    let text = "Grüße aus Zürich: yz@example.de";
    // Both windows have an entry "Name": the one in front is typed into.
    let o = on_in(&mut engine, Some("GTK 4 probe"), "type", "entry", "Name", &[("text", text)]);
    assert!(matches!(o.typing, Some(TypingCheck::Arrived { .. })), "{}", o.text());
    let want = format!("name={}", python_json(text));
    assert!(app.wait_for(|l| l == want).is_some(), "the GTK 4 app never held exactly {want}: {:?}", app.seen);
    // Every character is on a German key: typed one at a time, not pasted.
    let partial = format!("name={}", python_json("Grü"));
    assert!(app.seen.contains(&partial), "typed as keys: {:?}", app.seen);

    // ctrl+z: the key labelled Z on a German keyboard (where Y is on a US one) undoes the typing.
    let o = engine.call_args(&args(&[("action", "key"), ("keys", "ctrl+z")]));
    assert!(matches!(o.status, Status::Ok | Status::NoVisibleChange), "{}", o.text());
    let undone = app.wait_for(|l| l.starts_with("name=") && l != want);
    assert!(undone.is_some(), "ctrl+z never changed the entry: {:?}", app.seen);

    // Nothing of it reached the window behind.
    let behind_got: Vec<String> = behind.pending().into_iter().filter(|l| l.starts_with("name=")).collect();
    assert!(behind_got.is_empty(), "the window behind received {behind_got:?}");
    let shell = handrail_gnome::ShellWindows::connect(sandbox.bus_address()).expect("the extension");
    assert_eq!(shell.layout_group().expect("the active layout"), 0, "German is still active");
    drop(engine);
    drop((app, behind));
    sandbox.stop().expect("clean teardown");
}

/// mutter presses keys of the active layout only; with Russian active, Latin letters are on none of
/// them. Each step is checked by what the app itself received.
fn latin_text_and_shortcuts_arrive_under_a_russian_layout((sandbox, desktop): (Sandbox, Desktop)) {
    russian_layout_active(&sandbox);
    let (mut app, mut engine, _) = probe_in_front(&sandbox, desktop);

    // Latin text: pasted whole (with ctrl+v on the key labelled V, by its key code), then read back.
    let o = on(&mut engine, "type", "entry", "Name", &[("text", "Hello, Grace 42")]);
    assert!(matches!(o.typing, Some(TypingCheck::Arrived { .. })), "{}", o.text());
    assert!(app.wait_for(|l| l == "name=Hello, Grace 42").is_some(), "the app received the Latin text");

    // A shortcut whose letter the layout lacks: ctrl+a selects the entry's text, so what is typed
    // next replaces it.
    let o = engine.call_args(&args(&[("action", "key"), ("keys", "ctrl+a")]));
    assert!(matches!(o.status, Status::Ok | Status::NoVisibleChange), "{}", o.text());
    // The layout's own script goes as keys, one letter at a time (a paste would change the entry once).
    let seen = std::cell::RefCell::new(Vec::new());
    let o = engine.call_args(&args(&[("action", "type"), ("text", "Привет")]));
    assert!(matches!(o.status, Status::Ok | Status::NoVisibleChange), "{}", o.text());
    let arrived = app.wait_for(|l| {
        seen.borrow_mut().push(l.to_owned());
        l == "name=Привет"
    });
    assert!(arrived.is_some(), "the app never held exactly the Cyrillic text (ctrl+a lost?): {:?}", seen.borrow());
    assert!(seen.borrow().iter().any(|l| l == "name=Прив"), "typed as keys, letter by letter: {:?}", seen.borrow());

    // A Latin letter alone would type the Cyrillic letter on its key: refused, nothing pressed.
    let o = engine.call_args(&args(&[("action", "key"), ("keys", "a")]));
    assert_eq!(o.status, Status::Error, "{}", o.text());
    assert!(o.text().contains("Russian"), "{}", o.text());

    // The person's layout is as they left it.
    let shell = handrail_gnome::ShellWindows::connect(sandbox.bus_address()).expect("the extension");
    assert_eq!(shell.layout_group().expect("the active layout"), 0, "Russian is still active");
    drop(engine);
    let typed_after: Vec<String> = app.pending().into_iter().filter(|l| l.starts_with("name=")).collect();
    assert!(typed_after.is_empty(), "the refused key reached the app: {typed_after:?}");
    drop(app);
    sandbox.stop().expect("clean teardown");
}

//! The keyboard paths around the guards, on real apps: a Chromium page, a GTK confirmation window
//! with a "_Delete" mnemonic and a GTK dialog whose delete button has a Thai mnemonic, each on a
//! private desktop with a terminal open beside them. What the apps
//! received is read back from the apps themselves (the page's title, the GTK app's stdout), never from
//! handrail's observation.

use std::time::{Duration, Instant};

mod common;

use common::Agent;
use handrail_core::{Config, Engine, GuardDecision, Mode, Outcome, Rule, Status, Vision};
use handrail_platform::Windows as _;
use handrail_sandbox::{Sandbox, SandboxOptions};
use handrail_testkit::{serve_page, LineApp};

/// The account page: everything it receives goes into its title, which X11 shows as the window title.
const PAGE: &str = r#"<!doctype html><html><head><meta charset="utf-8"><title>settings</title>
<style>body{font:20px "DejaVu Sans",sans-serif;margin:30px} input,button{font:20px "DejaVu Sans",sans-serif;margin:8px}
 .spin{width:20px;height:20px;background:#36c;animation:r 0.6s linear infinite} @keyframes r{to{transform:rotate(360deg)}}</style></head>
<body><div class="spin"></div>
<label>Display name <input id="name" aria-label="Display name"></label><br>
<button id="save">Save</button><button id="delete">Delete account</button><br>
<label>Passcode <input id="pass" type="password" aria-label="Passcode"></label>
<form id="close"><label>Reason <input id="reason" aria-label="Reason"></label> <button>Remove account</button></form>
<script>
 const state = {saved: 0, deleted: false, removed: false};
 const show = () => { document.title = `[saved=${state.saved} deleted=${state.deleted} pass=${document.getElementById('pass').value.length} removed=${state.removed}]`; };
 document.getElementById('close').onsubmit = (e) => { e.preventDefault(); state.removed = true; show(); };
 document.getElementById('save').onclick = () => { state.saved++; show(); };
 document.getElementById('delete').onclick = () => { state.deleted = true; show(); };
 document.getElementById('pass').oninput = show;
 show();
</script></body></html>"#;

/// A button that reads "Keep draft" until the pointer is on it, then "Delete account"; it counts in
/// the title how often the pointer arrived and how often it was clicked.
const LURE_PAGE: &str = r#"<!doctype html><html><head><meta charset="utf-8"><title>lure</title>
<style>body{font:20px "DejaVu Sans",sans-serif;margin:30px} button{font:20px "DejaVu Sans",sans-serif;margin:8px;width:260px}</style></head>
<body><p>Your draft</p><button id="lure">Keep draft</button>
<script>
 const lure = document.getElementById('lure');
 let hovered = 0, clicked = 0;
 const show = () => { document.title = `[hovered=${hovered} clicked=${clicked}]`; };
 lure.onmouseenter = () => { hovered++; lure.textContent = 'Delete account'; show(); };
 lure.onmouseleave = () => { lure.textContent = 'Keep draft'; };
 lure.onclick = () => { clicked++; show(); };
 show();
</script></body></html>"#;

/// A GTK app of testdata/apps, up and ready.
fn gtk_app(sandbox: &Sandbox, script: &str) -> LineApp {
    let path = format!("{}/../../testdata/apps/{script}", env!("CARGO_MANIFEST_DIR"));
    let mut command = sandbox.command("/usr/bin/python3");
    command.arg(path);
    let mut app = LineApp::spawn(command);
    assert!(app.wait_for(|l| l == "ready").is_some(), "{script} came up");
    app
}

impl Agent {
    /// Observes until an accessible element labelled `label` (of `role`) is listed; its id.
    fn find(&mut self, role: &str, label: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(40);
        loop {
            let o = self.call(&[("action", "see")]);
            let found = o.observation.as_ref().and_then(|obs| {
                obs.elements
                    .iter()
                    .find(|e| e.role.as_str() == role && e.label == label && e.source.has_ax())
                    .map(|e| e.id.to_string())
            });
            if let Some(id) = found {
                return id;
            }
            assert!(Instant::now() < deadline, "no {role} {label:?} on screen: {}", o.text());
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    fn on(&mut self, action: &str, role: &str, label: &str, extra: &[(&str, &str)]) -> Outcome {
        let id = self.find(role, label);
        let obs = self.engine.latest().map(|o| o.id.to_string()).expect("an observation");
        let mut pairs = vec![("action", action), ("observation_id", obs.as_str()), ("element_id", id.as_str())];
        pairs.extend_from_slice(extra);
        self.call(&pairs)
    }

    /// Observes until the focused element is the `role` labelled `label`.
    fn focus_is(&mut self, role: &str, label: &str) {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let o = self.call(&[("action", "see")]);
            let ok = o
                .observation
                .as_ref()
                .and_then(|obs| obs.focused())
                .is_some_and(|e| e.role.as_str() == role && e.label == label);
            if ok {
                return;
            }
            assert!(Instant::now() < deadline, "focus never reached {role} {label:?}: {}", o.text());
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

fn refused(o: &Outcome, rule: Rule) {
    assert_eq!(o.status, Status::Refused, "{}", o.text());
    assert_eq!(o.guard, GuardDecision::Refused { rule }, "{}", o.text());
}

fn page_title(desktop: &handrail_x11::windows::X11Windows) -> String {
    desktop.frontmost().ok().flatten().map(|w| w.title).unwrap_or_default()
}

#[test]
fn keyboard_paths_around_the_guards_are_refused_on_real_apps() {
    let sandbox = Sandbox::start(SandboxOptions { parent_death_signal: false, ..SandboxOptions::default() })
        .expect("sandbox starts");
    let terminal = common::terminal_beside(&sandbox);
    let mut confirm = gtk_app(&sandbox, "confirm_gtk.py");
    let launch = || common::sandbox_launch(&sandbox);
    let desktop = common::accessible_desktop(&sandbox, launch());
    let conn = handrail_x11::Conn::open(&sandbox.display()).expect("a second connection");
    let windows = handrail_x11::windows::X11Windows::new(conn, launch());
    let mut agent = Agent { engine: Engine::new(desktop, Config { vision: Vision::Capable, ..Config::default() }) };

    // --- The GTK confirmation window: mnemonic and default button. ---
    agent.turn("gtk", "", Mode::Interactive);
    let keep = agent.find("button", "Keep");
    let obs = agent.engine.latest().map(|o| o.id.to_string()).expect("obs");
    let detail = agent.call(&[("action", "inspect"), ("observation_id", &obs), ("element_id", &keep)]);
    assert!(detail.text().contains("keys=alt+k"), "GTK reports the mnemonic: {}", detail.text());
    refused(&agent.key("alt+d"), Rule::DestructiveTarget);
    refused(&agent.key("alt+shift+d"), Rule::DestructiveTarget);
    agent.on("click", "entry", "Reason", &[]);
    assert_eq!(agent.type_text("old").status, Status::Ok);
    assert!(confirm.wait_for(|l| l == "reason=old").is_some());
    refused(&agent.key("return"), Rule::DestructiveTarget);
    refused(&agent.type_text("\n"), Rule::DestructiveTarget);
    // Keep is allowed; its click arriving after everything above proves nothing else arrived first.
    let o = agent.on("click", "button", "Keep", &[]);
    assert!(matches!(o.status, Status::Ok | Status::NoVisibleChange), "{}", o.text());
    assert!(confirm.wait_for(|l| l == "keep-clicked").is_some());
    assert!(!confirm.seen.iter().any(|l| l == "delete-clicked"), "a refused path reached the app: {:?}", confirm.seen);
    // Unattended, even with the words behind it.
    agent.turn("gtk-unattended", "delete the old files", Mode::Unattended);
    refused(&agent.key("alt+d"), Rule::DestructiveTarget);
    // With the user's words behind it, the very same key does reach the app.
    agent.turn("gtk-asked", "delete the old files", Mode::Interactive);
    agent.find("button", "Delete");
    let o = agent.key("alt+d");
    assert!(matches!(o.guard, GuardDecision::AllowedByIntent { .. }), "{}", o.text());
    assert!(confirm.wait_for(|l| l == "delete-clicked").is_some(), "the mnemonic reached the app: {:?}", confirm.seen);
    drop(confirm);

    // --- The Chromium page: Tab to the Delete button, activation keys, single keys into a password. ---
    agent.turn("web", "change my display name to Ann", Mode::Interactive);
    let o = agent.call(&[("action", "open_url"), ("url", &serve_page(PAGE))]);
    assert!(matches!(o.status, Status::Ok | Status::NoVisibleChange), "{}", o.text());
    refused(&agent.on("click", "button", "Delete account", &[]), Rule::DestructiveTarget);
    // The rest of the pointer family: every press that could activate it, and a drop onto it.
    refused(&agent.on("double_click", "button", "Delete account", &[]), Rule::DestructiveTarget);
    refused(&agent.on("triple_click", "button", "Delete account", &[]), Rule::DestructiveTarget);
    let delete = agent.find("button", "Delete account");
    refused(&agent.on("drag", "button", "Save", &[("to_element_id", &delete)]), Rule::DestructiveTarget);
    // What is typed into a web input is read back from the page's accessible value.
    let o = agent.on("type", "entry", "Display name", &[("text", "Ann 👍 สวัสดี")]);
    assert!(matches!(o.typing, Some(handrail_core::TypingCheck::Arrived { .. })), "{}", o.text());
    let o = agent.on("click", "button", "Save", &[]);
    assert!(matches!(o.status, Status::Ok | Status::NoVisibleChange), "{}", o.text());
    assert_eq!(agent.key("tab").status, Status::Ok);
    agent.focus_is("button", "Delete account");
    refused(&agent.key("return"), Rule::DestructiveTarget);
    refused(&agent.key("space"), Rule::DestructiveTarget);
    refused(&agent.type_text(" "), Rule::DestructiveTarget);
    agent.turn("web-unattended", "", Mode::Unattended);
    agent.focus_is("button", "Delete account");
    refused(&agent.key("space"), Rule::DestructiveTarget);
    refused(&agent.type_text("\n"), Rule::DestructiveTarget);
    agent.turn("web-password", "sign in", Mode::Interactive);
    agent.on("click", "password_entry", "Passcode", &[]);
    refused(&agent.type_text("12#"), Rule::PasswordField);
    for k in ["1", "2", "shift+3", "ctrl+v"] {
        refused(&agent.key(k), Rule::PasswordField);
    }
    // Return in a form's text field submits the form: a click on its submit button.
    agent.turn("web-form", "tell them why I am unhappy", Mode::Interactive);
    let o = agent.on("type", "entry", "Reason", &[("text", "too slow")]);
    assert!(matches!(o.typing, Some(handrail_core::TypingCheck::Arrived { .. })), "{}", o.text());
    refused(&agent.key("return"), Rule::DestructiveTarget);
    refused(&agent.type_text("\n"), Rule::DestructiveTarget);
    // The page itself says what it got: one save, nothing deleted, an empty passcode, no form sent.
    let title = page_title(&windows);
    assert!(title.starts_with("[saved=1 deleted=false pass=0 removed=false]"), "the page received: {title}");

    // Control: the same activation key reaches the page once the user asked for the removal.
    agent.turn("web-asked", "delete my account", Mode::Interactive);
    agent.on("click", "button", "Save", &[]);
    agent.key("tab");
    agent.focus_is("button", "Delete account");
    let o = agent.key("return");
    assert!(matches!(o.guard, GuardDecision::AllowedByIntent { .. }), "{}", o.text());
    let deadline = Instant::now() + Duration::from_secs(10);
    while !page_title(&windows).contains("deleted=true") {
        assert!(Instant::now() < deadline, "the allowed Return never reached the page: {}", page_title(&windows));
        std::thread::sleep(Duration::from_millis(50));
    }

    // --- A label that changes under the pointer: judged when the pointer is on it, before the press. ---
    agent.turn("web-lure", "keep my draft", Mode::Interactive);
    // The pointer rests away from where the page will draw its button: left on the last page's
    // Save, it would be on the button as the page loads, and the page would say "Delete account"
    // from the start (Chromium updates hover after layout), which is another test.
    let parked = sandbox.command("xdotool").args(["mousemove", "1270", "790"]).status();
    assert!(parked.is_ok_and(|s| s.success()), "xdotool moved the pointer away");
    let o = agent.call(&[("action", "open_url"), ("url", &serve_page(LURE_PAGE))]);
    assert!(matches!(o.status, Status::Ok | Status::NoVisibleChange), "{}", o.text());
    let o = agent.on("click", "button", "Keep draft", &[]);
    refused(&o, Rule::DestructiveTarget);
    assert!(o.text().contains("with the pointer on") && o.text().contains("\"Delete account\""), "{}", o.text());
    // The page itself: the pointer arrived (its title says so once Chromium passes it on), and the
    // button was never pressed.
    let deadline = Instant::now() + Duration::from_secs(10);
    while !page_title(&windows).starts_with("[hovered=1 ") {
        assert!(Instant::now() < deadline, "the page never saw the pointer: {}", page_title(&windows));
        std::thread::sleep(Duration::from_millis(50));
    }
    let title = page_title(&windows);
    assert!(title.starts_with("[hovered=1 clicked=0]"), "the page received: {title}");

    drop(agent);
    drop(terminal);
    sandbox.stop().expect("clean teardown");
}

/// What a line app printed since the last look, for asserting that a refused step sent nothing.
fn nothing_arrived(app: &mut LineApp, after: &str) {
    let got = app.pending();
    assert!(got.is_empty(), "after a refused {after}, the app received {got:?}");
}

#[test]
fn a_gtk_dialog_gets_nothing_a_guard_refused_by_any_key() {
    let sandbox = Sandbox::start(SandboxOptions { parent_death_signal: false, ..SandboxOptions::default() })
        .expect("sandbox starts");
    let terminal = common::terminal_beside(&sandbox);
    let mut dialog = gtk_app(&sandbox, "delete_dialog_gtk.py");
    let desktop = common::accessible_desktop(&sandbox, common::sandbox_launch(&sandbox));
    let mut agent = Agent { engine: Engine::new(desktop, Config { vision: Vision::Capable, ..Config::default() }) };

    agent.turn("dialog", "check the old backups", Mode::Interactive);
    agent.find("button", "Keep");
    // The mnemonic on ล is reported by keysym name, which no key reads as: unknown, so judged.
    refused(&agent.key("alt+ล"), Rule::DestructiveTarget);
    nothing_arrived(&mut dialog, "alt+ล");
    // Focus walks onto the delete button; activation keys and typed blanks are clicks on it.
    assert_eq!(agent.key("tab").status, Status::Ok);
    agent.focus_is("button", "ลบถาวร");
    for key in ["return", "space", "shift+return"] {
        refused(&agent.key(key), Rule::DestructiveTarget);
        nothing_arrived(&mut dialog, key);
    }
    for text in [" ", "\n"] {
        refused(&agent.type_text(text), Rule::DestructiveTarget);
        nothing_arrived(&mut dialog, "typed blank");
    }
    // The PIN field: typing refused, and so is every key that would put a character in it.
    agent.on("click", "password_entry", "PIN", &[]);
    agent.focus_is("password_entry", "PIN");
    refused(&agent.type_text("1234"), Rule::PasswordField);
    for key in ["1", "shift+3", "ก", "space", "ctrl+v", "shift+insert"] {
        refused(&agent.key(key), Rule::PasswordField);
        nothing_arrived(&mut dialog, key);
    }
    // Nobody watching: refused even with the words behind it.
    agent.turn("dialog-unattended", "delete the old backups", Mode::Unattended);
    agent.find("button", "Keep");
    refused(&agent.key("alt+ล"), Rule::DestructiveTarget);
    nothing_arrived(&mut dialog, "unattended alt+ล");

    // Control: asked for, the very same key reaches the dialog's button.
    agent.turn("dialog-asked", "delete the old backups", Mode::Interactive);
    agent.find("button", "Keep");
    let o = agent.key("alt+ล");
    assert!(matches!(o.guard, GuardDecision::AllowedByIntent { .. }), "{}", o.text());
    assert!(
        dialog.wait_for(|l| l == "delete-clicked").is_some(),
        "alt+ล did not reach the app: {:?}\n{}",
        dialog.seen,
        o.text()
    );
    assert!(!dialog.seen.iter().any(|l| l.starts_with("pin=")), "the PIN got characters: {:?}", dialog.seen);

    drop(agent);
    drop(dialog);
    drop(terminal);
    sandbox.stop().expect("clean teardown");
}

/// One page with the same account settings in five interface languages: every click and keystroke it
/// receives goes into its title.
const WORLD_PAGE: &str = r#"<!doctype html><html><head><meta charset="utf-8"><title>konto</title>
<style>body{font:20px "DejaVu Sans","Noto Sans CJK JP",sans-serif;margin:30px} input,button{font:inherit;margin:6px}</style></head>
<body>
<button id="save">Speichern</button>
<button class="del" data-l="de">Konto löschen</button>
<button class="del" data-l="fr">Supprimer le compte</button>
<button class="del" data-l="es">Eliminar cuenta</button>
<button class="del" data-l="ja">アカウントを削除</button>
<button class="del" data-l="zh">删除账户</button><br>
<label>Kennwort <input id="kw" type="text" aria-label="Kennwort"></label>
<ul id="files" role="listbox" aria-label="Dateien">
 <li role="option" tabindex="0" aria-selected="false">bericht.txt</li><li role="option" tabindex="0" aria-selected="false">notizen.txt</li>
</ul>
<script>
 const got = {saved: 0, de: 0, fr: 0, es: 0, ja: 0, zh: 0};
 const rows = () => document.querySelectorAll('#files li').length;
 const show = () => { document.title = `[saved=${got.saved} de=${got.de} fr=${got.fr} es=${got.es} ja=${got.ja} zh=${got.zh} kw=${document.getElementById('kw').value.length} rows=${rows()}]`; };
 // A web list that deletes its selected row on Delete, as mail and file lists do.
 for (const li of document.querySelectorAll('#files li')) {
  li.onclick = () => { for (const o of document.querySelectorAll('#files li')) o.setAttribute('aria-selected', o === li); li.focus(); };
  li.onkeydown = (e) => { if (e.key === 'Delete' && li.getAttribute('aria-selected') === 'true') { li.remove(); show(); } };
 }
 document.getElementById('save').onclick = () => { got.saved++; show(); };
 for (const b of document.querySelectorAll('.del')) b.onclick = () => { got[b.dataset.l]++; show(); };
 document.getElementById('kw').oninput = show;
 show();
</script></body></html>"#;

/// Other interface languages on a real page: a destructive button is refused unless the request, in
/// the same language, asks for it, and always when nobody watches; a text field labelled "Kennwort"
/// takes no typing; Delete on a selected row of a web list is a removal. A terminal is open beside the
/// browser. The page's own record says what arrived.
#[test]
fn guards_hold_in_other_interface_languages_on_a_real_page() {
    let sandbox = Sandbox::start(SandboxOptions { parent_death_signal: false, ..SandboxOptions::default() })
        .expect("sandbox starts");
    let launch = || common::sandbox_launch(&sandbox);
    let desktop = common::accessible_desktop(&sandbox, launch());
    let conn = handrail_x11::Conn::open(&sandbox.display()).expect("a second connection");
    let windows = handrail_x11::windows::X11Windows::new(conn, launch());
    let mut agent = Agent { engine: Engine::new(desktop, Config { vision: Vision::Capable, ..Config::default() }) };

    let terminal = common::terminal_beside(&sandbox);
    agent.turn("open", "öffne die Kontoeinstellungen", Mode::Interactive);
    let o = agent.call(&[("action", "open_url"), ("url", &serve_page(WORLD_PAGE))]);
    assert!(matches!(o.status, Status::Ok | Status::NoVisibleChange), "{}", o.text());

    // (button, a request about something else, a request that asks for this removal), each in the
    // button's language.
    let cases = [
        ("Konto löschen", "ändere meinen Anzeigenamen", "lösche mein Konto"),
        ("Supprimer le compte", "modifie mon nom affiché", "supprime mon compte"),
        ("Eliminar cuenta", "cambia mi nombre visible", "elimina mi cuenta"),
        ("アカウントを削除", "表示名を変更して", "アカウントを削除して"),
        ("删除账户", "修改我的显示名称", "删除我的账户"),
    ];
    for (button, unrelated, _) in cases {
        agent.turn("other-task", unrelated, Mode::Interactive);
        refused(&agent.on("click", "button", button, &[]), Rule::DestructiveTarget);
        let negated = match button {
            "Konto löschen" => "lösche mein Konto nicht",
            "アカウントを削除" => "アカウントを削除しないで",
            _ => continue,
        };
        agent.turn("told-not-to", negated, Mode::Interactive);
        refused(&agent.on("click", "button", button, &[]), Rule::DestructiveTarget);
    }
    agent.turn("unattended", "lösche mein Konto", Mode::Unattended);
    refused(&agent.on("click", "button", "Konto löschen", &[]), Rule::DestructiveTarget);
    agent.turn("sign-in", "melde mich an", Mode::Interactive);
    agent.on("click", "entry", "Kennwort", &[]);
    refused(&agent.type_text("geheim"), Rule::PasswordField);
    refused(&agent.key("g"), Rule::PasswordField);
    // Delete on a selected row of the web list: a removal, whatever the row is called.
    agent.turn("rename", "benenne die Dateien um", Mode::Interactive);
    agent.on("click", "list_item", "bericht.txt", &[]);
    let o = agent.key("delete");
    refused(&o, Rule::DestructiveTarget);
    assert!(o.text().contains("\"bericht.txt\""), "{}", o.text());
    // A harmless button in the same language goes through: the refusals above were not about German.
    let o = agent.on("click", "button", "Speichern", &[]);
    assert!(matches!(o.status, Status::Ok | Status::NoVisibleChange), "{}", o.text());
    let deadline = Instant::now() + Duration::from_secs(10);
    while !page_title(&windows).starts_with("[saved=1") {
        assert!(Instant::now() < deadline, "the save never reached the page: {}", page_title(&windows));
        std::thread::sleep(Duration::from_millis(50));
    }
    let title = page_title(&windows);
    assert!(title.starts_with("[saved=1 de=0 fr=0 es=0 ja=0 zh=0 kw=0 rows=2]"), "the page received: {title}");

    // Control: asked for in its own language, each click reaches the page.
    for (button, _, asks) in cases {
        agent.turn("asked", asks, Mode::Interactive);
        let o = agent.on("click", "button", button, &[]);
        assert!(matches!(o.guard, GuardDecision::AllowedByIntent { .. }), "{button}: {}", o.text());
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    while !page_title(&windows).starts_with("[saved=1 de=1 fr=1 es=1 ja=1 zh=1 kw=0 rows=2]") {
        assert!(Instant::now() < deadline, "the allowed clicks did not all arrive: {}", page_title(&windows));
        std::thread::sleep(Duration::from_millis(50));
    }
    // Asked for, the same key reaches the page's list.
    agent.turn("asked-row", "lösche bericht.txt", Mode::Interactive);
    agent.on("click", "list_item", "bericht.txt", &[]);
    let o = agent.key("delete");
    assert!(matches!(o.guard, GuardDecision::AllowedByIntent { .. }), "{}", o.text());
    let deadline = Instant::now() + Duration::from_secs(10);
    while !page_title(&windows).contains("rows=1]") {
        assert!(Instant::now() < deadline, "the allowed Delete never reached the list: {}", page_title(&windows));
        std::thread::sleep(Duration::from_millis(50));
    }

    drop(agent);
    drop(terminal);
    sandbox.stop().expect("clean teardown");
}

/// Thunar on a scratch folder: the Delete key on a selected file moves it to the Trash (or, as root,
/// asks to delete it permanently), so it is judged as a removal. Its icon view lists no items to
/// accessibility; the file is found and clicked by OCR, as a model would. What happened is read from
/// the disk (the folder and the Trash) and from the X server (whether Thunar asked).
#[test]
fn the_delete_key_on_a_file_in_a_file_manager_is_a_removal() {
    let sandbox = Sandbox::start(SandboxOptions { parent_death_signal: false, ..SandboxOptions::default() })
        .expect("sandbox starts");
    let scratch = sandbox.home().join("scratch");
    std::fs::create_dir_all(&scratch).expect("scratch folder");
    std::fs::write(scratch.join("report.txt"), "q3 numbers").expect("a file");
    std::fs::write(scratch.join("notes.txt"), "keep").expect("a file");
    let trashed = sandbox.home().join(".local/share/Trash/files/report.txt");
    // A terminal in a corner first, as on a person's desktop; the file manager maps last and has the keyboard.
    let terminal = common::terminal_beside(&sandbox);
    let mut file_manager =
        sandbox.command("thunar").arg(&scratch).spawn().expect("thunar starts (scripts/setup-desktop)");
    let desktop = common::full_desktop(&sandbox, common::sandbox_launch(&sandbox));
    let mut agent = Agent { engine: Engine::new(desktop, Config { vision: Vision::Capable, ..Config::default() }) };

    // Select the file the way a model would: click its name, read off the screen.
    let select = |agent: &mut Agent| {
        let deadline = Instant::now() + Duration::from_secs(40);
        loop {
            agent.call(&[("action", "see")]);
            let o = agent.call(&[("action", "click"), ("target_text", "report.txt")]);
            if matches!(o.status, Status::Ok | Status::NoVisibleChange) {
                return;
            }
            assert!(Instant::now() < deadline, "report.txt never showed: {}", o.text());
            std::thread::sleep(Duration::from_millis(250));
        }
    };
    let on_disk = || (scratch.join("report.txt").exists(), trashed.exists());

    agent.turn("other-task", "rename the photos", Mode::Interactive);
    select(&mut agent);
    for keys in ["delete", "ctrl+delete"] {
        let o = agent.key(keys);
        refused(&o, Rule::DestructiveTarget);
        assert!(o.text().contains("would delete the selected \"report.txt\""), "{}", o.text());
    }
    agent.turn("unattended", "delete report.txt", Mode::Unattended);
    select(&mut agent);
    refused(&agent.key("delete"), Rule::DestructiveTarget);
    agent.turn("told-not-to", "tidy the folder but do not delete anything", Mode::Interactive);
    select(&mut agent);
    refused(&agent.key("delete"), Rule::DestructiveTarget);
    // Harmless keys on the same selection still go through (and wait for the screen to settle).
    assert!(matches!(agent.key("right").status, Status::Ok | Status::NoVisibleChange));
    // Nothing reached Thunar: the file is where it was, and Thunar never asked (as root a Delete it
    // receives opens its "Attention" question), as the X server lists its windows.
    assert_eq!(on_disk(), (true, false), "a refused Delete reached the file manager");
    let asked = sandbox.command("xdotool").args(["search", "--onlyvisible", "--name", "^Attention$"]).output();
    assert!(asked.is_ok_and(|o| o.stdout.is_empty()), "Thunar was asked to delete something");

    // Control: asked for, the same key reaches Thunar, which removes the file, and only that file. (As
    // root, Thunar does not use the Trash: it asks first whether to delete permanently; the request
    // backs that "Delete" button too.)
    agent.turn("asked", "delete report.txt", Mode::Interactive);
    select(&mut agent);
    let o = agent.key("delete");
    assert!(matches!(o.guard, GuardDecision::AllowedByIntent { .. }), "{}", o.text());
    // Thunar's question may come after the key's result on a busy machine: it is looked for on the
    // X server until the file is gone, and answered once (its focused "Delete").
    let asking = || {
        let found = sandbox.command("xdotool").args(["search", "--onlyvisible", "--name", "^Attention$"]).output();
        found.is_ok_and(|o| !o.stdout.is_empty())
    };
    let mut answered = false;
    let deadline = Instant::now() + Duration::from_secs(20);
    while on_disk().0 {
        if !answered && asking() {
            let o = agent.key("return");
            // Judged as the removal it is when the question's focused button is seen (the tree can
            // miss its deadline on a busy machine), and never refused: the person asked for it.
            if o.text().contains("button \"Delete\"") && o.text().contains("focused") {
                assert!(matches!(o.guard, GuardDecision::AllowedByIntent { .. }), "{}", o.text());
            }
            assert_ne!(o.status, Status::Refused, "{}", o.text());
            answered = true;
        }
        if Instant::now() > deadline {
            let seen = agent.call(&[("action", "see")]);
            panic!("the allowed Delete did not remove the file: {:?}\n{}\n{}", on_disk(), o.text(), seen.text());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(scratch.join("notes.txt").exists());

    drop(agent);
    let _ = file_manager.kill();
    let _ = file_manager.wait();
    drop(terminal);
    sandbox.stop().expect("clean teardown");
}

//! Several windows on one simulated desktop: what is covered is not listed, a covered target is never
//! clicked through onto the window in front, windows are elements that raise when clicked, and windows
//! that open or close between calls are named. What a click reached is read back from the simulated
//! widgets themselves.

mod common;

use common::{config, Fx};
use handrail_core::{Engine, Mode, Source, Status};
use handrail_platform::{Rect, Size};
use handrail_sim::{Reaction, SimCall, SimDesktop, Widget, WidgetId, WindowId, WindowSpec};

struct Desk {
    fx: Fx,
    back: WindowId,
    front: WindowId,
    save: WidgetId,
    partly: WidgetId,
}

/// "Account - Forms" behind, "Notes" in front covering its lower left: Save and Delete account lie
/// wholly under Notes, "Partly" sticks out to the right of it.
fn desk() -> Desk {
    let sim = SimDesktop::new(Size::new(1280, 800));
    let back = sim.add_window(WindowSpec::new("Forms", "Account - Forms").bounds(Rect::new(100, 80, 900, 600)));
    sim.add_widget(back, Widget::entry("Name").at(130, 140, 300, 28));
    let save = sim.add_widget(back, says_clicked(Widget::button("Save").key("save").at(130, 500, 90, 30), "save"));
    sim.add_widget(back, Widget::button("Delete account").at(240, 500, 160, 30));
    let partly =
        sim.add_widget(back, says_clicked(Widget::button("Partly").key("partly").at(600, 440, 200, 30), "partly"));
    let front = sim.add_window(WindowSpec::new("Notes", "Notes").bounds(Rect::new(80, 420, 600, 300)));
    sim.add_widget(front, Widget::entry("Note").at(100, 470, 400, 28));
    let engine = Engine::new(sim.desktop(), config());
    let mut fx = Fx { sim, engine, win: front };
    fx.turn("save my notes", Mode::Interactive);
    Desk { fx, back, front, save, partly }
}

/// A button that says it was clicked, so what a click reached is read from the widget itself.
fn says_clicked(button: Widget, key: &str) -> Widget {
    let label = format!("{} clicked", button_label(key));
    button.on_click(Reaction::set_label(key, label))
}

fn button_label(key: &str) -> &'static str {
    match key {
        "save" => "Save",
        _ => "Partly",
    }
}

fn clicks(sim: &SimDesktop) -> Vec<SimCall> {
    sim.calls().into_iter().filter(|c| matches!(c, SimCall::Click { .. })).collect()
}

#[test]
fn elements_of_a_covered_window_are_left_out_and_counted() {
    let mut d = desk();
    let o = d.fx.see();
    let obs = o.observation.clone().expect("an observation");
    let labels: Vec<&str> = obs.elements.iter().map(|e| e.label.as_str()).collect();
    assert!(!labels.contains(&"Save") && !labels.contains(&"Delete account"), "{}", o.text());
    assert!(labels.contains(&"Partly") && labels.contains(&"Name") && labels.contains(&"Note"), "{}", o.text());
    let back = &obs.windows[0];
    assert_eq!(back.title, "Account - Forms");
    let hidden: usize = obs.hidden.iter().map(|h| h.count).sum();
    assert_eq!(hidden, 2, "{}", o.text());
    let text = o.text();
    let window_id = d.fx.window_id("Account - Forms");
    assert!(
        text.contains(&format!("hidden: 2 elements of window {window_id} \"Account - Forms\"")),
        "the count names the window and how to raise it:\n{text}"
    );
    let windows: Vec<_> = obs.elements.iter().filter(|e| e.source == Source::Window).collect();
    assert_eq!(windows.len(), 2, "{text}");
    assert_eq!(windows[0].label, "Notes", "front first");
    assert!(text.contains(" active"), "{text}");
    let _ = (d.back, d.front);
}

#[test]
fn text_of_a_covered_button_is_not_found_and_nothing_is_clicked() {
    let mut d = desk();
    d.fx.see();
    d.fx.sim.clear_calls();
    let o = d.fx.call(&[("action", "click"), ("target_text", "Save")]);
    assert_eq!(o.status, Status::Error, "{}", o.text());
    assert!(clicks(&d.fx.sim).is_empty());
    assert_eq!(d.fx.sim.widget(d.save).label, "Save");
}

#[test]
fn a_partly_covered_target_is_clicked_in_its_visible_part() {
    let mut d = desk();
    d.fx.see();
    d.fx.sim.clear_calls();
    let o = d.fx.on("click", "Partly", &[]);
    assert_eq!(o.status, Status::Ok, "{}", o.text());
    let at = match clicks(&d.fx.sim).as_slice() {
        [SimCall::Click { at, .. }] => *at,
        other => panic!("one click expected, got {other:?}"),
    };
    assert!(at.x >= 680 && (440..470).contains(&at.y), "clicked at {at:?}, under the front window");
    assert_eq!(d.fx.sim.widget(d.partly).label, "Partly clicked", "the button itself got the click");
    assert_eq!(d.fx.sim.frontmost_title().as_deref(), Some("Account - Forms"), "its window was raised");
}

#[test]
fn clicking_a_window_element_raises_it() {
    let mut d = desk();
    d.fx.see();
    d.fx.sim.clear_calls();
    let o = d.fx.on_window("click", "Account - Forms");
    assert_eq!(o.status, Status::Ok, "{}", o.text());
    assert!(clicks(&d.fx.sim).is_empty(), "raised through the window manager, not by a click");
    assert!(d.fx.sim.calls().iter().any(|c| matches!(c, SimCall::Activate(_))));
    assert_eq!(d.fx.sim.frontmost_title().as_deref(), Some("Account - Forms"));
    let obs = o.observation.clone().expect("an observation");
    assert!(obs.elements.iter().any(|e| e.label == "Save"), "{}", o.text());
    assert!(obs.hidden.is_empty() || obs.hidden.iter().all(|h| obs.windows[h.window].title == "Notes"));
    // Now the button is visible and a click reaches it.
    let o = d.fx.on("click", "Save", &[]);
    assert_eq!(o.status, Status::Ok, "{}", o.text());
    assert_eq!(d.fx.sim.widget(d.save).label, "Save clicked");
}

#[test]
fn a_window_titled_like_a_destructive_button_is_raised_even_unattended() {
    let mut d = desk();
    d.fx.sim.set_title(d.back, "Delete account - Forms");
    d.fx.turn("save my notes", Mode::Unattended);
    d.fx.see();
    let o = d.fx.on_window("click", "Delete account - Forms");
    assert_eq!(o.status, Status::Ok, "raising a window activates nothing in it: {}", o.text());
}

#[test]
fn a_target_covered_since_the_observation_is_stale_and_not_clicked() {
    let mut d = desk();
    d.fx.sim.raise_window(d.back);
    d.fx.see();
    d.fx.sim.raise_window(d.front);
    d.fx.sim.clear_calls();
    let o = d.fx.on("click", "Save", &[]);
    assert_eq!(o.status, Status::Stale, "{}", o.text());
    let message = o.message.clone().unwrap_or_default();
    assert!(message.contains("covered by the window \"Notes\""), "{message}");
    assert!(clicks(&d.fx.sim).is_empty(), "never clicked through onto the window in front");
    assert_eq!(d.fx.sim.widget(d.save).label, "Save");
}

#[test]
fn a_window_element_only_raises() {
    let mut d = desk();
    d.fx.see();
    d.fx.sim.clear_calls();
    let o = d.fx.on_window("double_click", "Account - Forms");
    assert_eq!(o.status, Status::Error, "{}", o.text());
    assert!(o.message.unwrap_or_default().contains("is a window"));
    assert_eq!(d.fx.sim.side_effects(), 0);
}

#[test]
fn windows_that_open_or_close_between_calls_are_named() {
    let mut d = desk();
    d.fx.see();
    let alert =
        d.fx.sim.add_window(WindowSpec::dialog("Forms", "Unsaved changes").bounds(Rect::new(400, 300, 300, 150)));
    let o = d.fx.see();
    let text = o.text();
    assert!(text.contains("dialog opened: \"Unsaved changes\" (dialog, app \"Forms\")"), "{text}");
    assert_eq!(o.windows.len(), 1, "{text}");
    d.fx.sim.close_window(alert);
    let o = d.fx.see();
    assert!(o.text().contains("dialog closed: \"Unsaved changes\""), "{}", o.text());
    let o = d.fx.see();
    assert!(o.windows.is_empty(), "nothing new: {}", o.text());
}

#[test]
fn a_click_whose_only_effect_is_in_another_window_is_not_reported_as_reaching_its_target() {
    let mut d = desk();
    // "Sync" in Notes quietly relabels a button of the Forms window behind it, nothing in Notes.
    let sync = d.fx.sim.add_widget(
        d.front,
        Widget::button("Sync")
            .at(520, 470, 80, 28)
            .focus_on_click(false)
            .on_click(Reaction::set_label("partly", "Synced")),
    );
    d.fx.see();
    let o = d.fx.on("click", "Sync", &[]);
    assert_eq!(d.fx.sim.widget(d.partly).label, "Synced", "the click ran");
    assert_eq!(o.status, Status::NoVisibleChange, "{}", o.text());
    let elsewhere = o.elsewhere.clone().expect("the other window's change is named");
    assert!(elsewhere.contains("\"Notes\""), "names the target's window: {elsewhere}");
    assert!(o.message.clone().unwrap_or_default().contains("elsewhere"), "{}", o.text());
    assert!(o.text().contains("changed only elsewhere"), "{}", o.text());
    // Repeating the same click blindly is refused like any click that changed nothing.
    d.fx.sim.clear_calls();
    let again = d.fx.on("click", "Sync", &[]);
    assert_ne!(again.status, Status::Ok, "{}", again.text());
    assert!(clicks(&d.fx.sim).is_empty(), "{}", again.text());
    let _ = sync;
}

#[test]
fn a_dialog_the_target_app_opens_counts_as_reaching_the_target() {
    let mut d = desk();
    d.fx.sim.add_widget(
        d.front,
        Widget::button("Export").at(520, 470, 80, 28).focus_on_click(false).on_click(Reaction::open_window(
            WindowSpec::dialog("Notes", "Export notes").bounds(Rect::new(700, 100, 300, 150)),
        )),
    );
    d.fx.see();
    let o = d.fx.on("click", "Export", &[]);
    assert_eq!(o.status, Status::Ok, "{}", o.text());
    assert!(o.elsewhere.is_none(), "{}", o.text());
    assert!(o.text().contains("dialog opened: \"Export notes\""), "{}", o.text());
}

#[test]
fn a_click_that_changes_its_own_window_and_another_is_on_target() {
    let mut d = desk();
    let status = d.fx.sim.add_widget(d.front, Widget::text("Idle").key("status").at(100, 520, 200, 20));
    d.fx.sim.add_widget(
        d.front,
        Widget::button("Sync")
            .at(520, 470, 80, 28)
            .focus_on_click(false)
            .on_click(Reaction::set_label("partly", "Synced"))
            .on_click(Reaction::set_label("status", "Synced 1 note")),
    );
    d.fx.see();
    let o = d.fx.on("click", "Sync", &[]);
    assert_eq!(d.fx.sim.widget(status).label, "Synced 1 note");
    assert_eq!(o.status, Status::Ok, "{}", o.text());
    assert!(o.elsewhere.is_none(), "{}", o.text());
}

#[test]
fn keys_reaching_a_focused_element_under_a_pop_up_meet_the_guards() {
    let mut d = desk();
    d.fx.sim.raise_window(d.back);
    let delete = d.fx.sim.find("Delete account").expect("the button");
    let status = d.fx.sim.add_widget(d.back, Widget::text("Ready").at(500, 140, 200, 20));
    d.fx.sim.add_widget(
        d.back,
        Widget::button("Delete account really")
            .mnemonic('r')
            .at(130, 550, 200, 30)
            .on_click(Reaction::set_label(status, "ACCOUNT DELETED")),
    );
    // The button keeps keyboard focus while a notification from another app is drawn over it.
    d.fx.sim.focus(delete);
    d.fx.sim.add_window(WindowSpec::popup("Notifier", Rect::new(110, 480, 420, 120)));
    let o = d.fx.see();
    let obs = o.observation.clone().expect("an observation");
    assert!(obs.elements.iter().all(|e| !e.label.starts_with("Delete account")), "covered, not listed: {}", o.text());
    d.fx.sim.clear_calls();
    for keys in ["return", "space", "alt+r"] {
        let o = d.fx.call(&[("action", "key"), ("keys", keys)]);
        assert_eq!(o.status, Status::Refused, "{keys}: {}", o.text());
        assert!(o.text().contains("Delete account"), "the refusal names what the key reaches: {}", o.text());
    }
    let o = d.fx.call(&[("action", "type"), ("text", " ")]);
    assert_eq!(o.status, Status::Refused, "{}", o.text());
    assert_eq!(d.fx.sim.side_effects(), 0, "nothing reached the desktop");
    assert_eq!(d.fx.sim.widget(status).label, "Ready");
}

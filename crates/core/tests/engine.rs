//! The engine end to end on the simulated desktop: the pipeline, ids, diffs, expectations, turns.

mod common;

use std::time::Duration;

use common::{args, config, Fx};
use handrail_core::{
    Config, Engine, ExpectOutcome, GuardDecision, Markers, Mode, Outcome, Rule, Status, Turn, Vision, UNSUPPORTED,
};
use handrail_platform::{AxHealth, Rect, Size};
use handrail_sim::{Reaction, SimCall, SimDesktop, Widget, WindowSpec};

#[test]
fn see_lists_elements_interactive_first_with_stable_ids() {
    let (mut fx, _) = Fx::form();
    let first = fx.see();
    let obs = first.observation.clone().expect("observation");
    assert_eq!(obs.id.to_string(), "obs_1");
    let interactive: Vec<bool> = obs.elements.iter().map(|e| e.is_interactive()).collect();
    let first_static = interactive.iter().position(|i| !i).unwrap_or(interactive.len());
    assert!(interactive[first_static..].iter().all(|i| !i), "interactive elements come first");
    let text = first.text();
    assert!(text.starts_with("[ok] see"), "{text}");
    assert!(text.contains("[OBS obs_1] app=\"Forms\""), "{text}");
    assert!(text.contains("button \"Save\""), "{text}");

    let save = fx.id("Save");
    let second = fx.see();
    assert_eq!(second.observation.as_ref().map(|o| o.id.to_string()).as_deref(), Some("obs_2"));
    assert_eq!(fx.id("Save"), save, "an element that persists keeps its id");
}

#[test]
fn moved_elements_keep_ids_and_new_ones_get_new_ids() {
    let (mut fx, ids) = Fx::form();
    fx.see();
    let save = fx.id("Save");
    fx.sim.move_widget(ids.save, Rect::new(150, 510, 90, 30));
    fx.sim.add_widget(fx.win, Widget::button("Cancel").at(600, 500, 90, 30));
    fx.see();
    assert_eq!(fx.id("Save"), save);
    let cancel = fx.id("Cancel");
    assert_ne!(cancel, save);
    let n: u64 = cancel.trim_start_matches('e').parse().expect("number");
    assert!(n > 7, "new ids continue the sequence: {cancel}");
}

/// A busy app's accessibility tree missed two looks in a row (its text then read by OCR); when it
/// answers again its elements have the ids they had, so a model holding them goes on.
#[test]
fn elements_keep_their_ids_through_looks_that_missed_accessibility() {
    let (mut fx, _) = Fx::form();
    fx.see();
    let (save, agree) = (fx.id("Save"), fx.id("I agree"));
    fx.sim.miss_next_ax_snapshots(2);
    for _ in 0..2 {
        let missed = fx.see();
        let ax = missed.observation.as_ref().map(|o| o.ax);
        assert!(ax.is_some_and(|ax| ax != AxHealth::Ok), "{}", missed.text());
    }
    let whole = fx.see();
    assert_eq!(whole.observation.as_ref().map(|o| o.ax), Some(AxHealth::Ok), "{}", whole.text());
    assert_eq!((fx.id("Save"), fx.id("I agree")), (save, agree), "{}", whole.text());
}

/// A look whose accessibility tree missed its deadline (a busy machine) on either side of an action
/// that changed nothing is no evidence of change: the tree's elements did not vanish or appear, and
/// OCR's text kept where the tree is missing is not new text. Seen under load in the demo on GNOME: a
/// second click on Save reported "changed" from a look without the tree.
#[test]
fn a_look_that_missed_the_tree_does_not_make_a_change_of_nothing() {
    for (answered, missed, side) in [(1, 1, "after the action"), (0, 1, "before the action")] {
        let (mut fx, _) = Fx::form();
        fx.see();
        fx.sim.miss_ax_snapshots_after(answered, missed);
        let o = fx.on("click", "Does nothing", &[]);
        assert_eq!(o.status, Status::NoVisibleChange, "tree missed {side}:\n{}", o.text());
        let changes = o.changes.as_ref().expect("changes");
        assert!(changes.semantic.is_empty(), "tree missed {side}: {:?}", changes.semantic);
    }
    // A change the pixels show is still one when the tree is missing after it.
    let (mut fx, ids) = Fx::form();
    fx.see();
    fx.sim.miss_ax_snapshots_after(1, 1);
    let o = fx.on("click", "Save", &[]);
    assert_eq!(o.status, Status::Ok, "{}", o.text());
    assert_eq!(fx.sim.widget(ids.status).label, "Saved");
    assert!(o.changes.as_ref().is_some_and(|c| c.visual.changed()), "{}", o.text());
}

#[test]
fn click_with_delayed_reaction_reports_change_with_evidence_and_verifies_expect() {
    let (mut fx, ids) = Fx::form();
    fx.see();
    let o = fx.on("click", "Save", &[("expect", "text:Saved")]);
    assert_eq!(o.status, Status::Ok, "{}", o.text());
    assert!(matches!(o.expect, Some((_, ExpectOutcome::Verified))));
    assert!(o.tag() == "[ok+verified]");
    assert_eq!(fx.sim.widget(ids.status).label, "Saved");
    let changes = o.changes.as_ref().expect("changes");
    assert!(changes.visual.changed());
    assert!(changes.semantic.added.iter().any(|e| e.label == "Saved"));
    assert!(o.timings.settle >= Duration::from_millis(300), "settle waited for the reaction");
    assert_eq!(o.timings.settled, Some(true));
    assert!(o.text().contains("evidence: "), "{}", o.text());
}

#[test]
fn a_button_that_does_nothing_is_reported_honestly_and_a_blind_repeat_is_refused() {
    let (mut fx, _) = Fx::form();
    fx.see();
    let o = fx.on("click", "Does nothing", &[]);
    assert_eq!(o.status, Status::NoVisibleChange, "{}", o.text());
    assert!(o.text().starts_with("[no_visible_change]"));

    let effects = fx.sim.side_effects();
    let again = fx.on("click", "Does nothing", &[]);
    assert_eq!(again.status, Status::Refused, "{}", again.text());
    assert_eq!(again.guard, GuardDecision::Refused { rule: Rule::UnobservedRepeat }, "{}", again.text());
    assert!(again.message.as_deref().unwrap_or("").contains("observe first"));
    assert_eq!(fx.sim.side_effects(), effects, "the refused repeat did nothing");

    // After observing, the retry is allowed (and honestly reported again).
    fx.see();
    let retry = fx.on("click", "Does nothing", &[]);
    assert_eq!(retry.status, Status::NoVisibleChange);
    // A different action is not a repeat.
    let other = fx.on("click", "I agree", &[]);
    assert_eq!(other.status, Status::Ok, "{}", other.text());
}

#[test]
fn checkbox_state_change_is_semantic_evidence() {
    let (mut fx, ids) = Fx::form();
    fx.see();
    let o = fx.on("click", "I agree", &[]);
    assert_eq!(o.status, Status::Ok);
    assert!(fx.sim.widget(ids.agree).checked);
    let changes = o.changes.expect("changes");
    assert_eq!(changes.semantic.state_changed.len(), 1);
    assert!(o
        .observation
        .expect("obs")
        .elements
        .iter()
        .any(|e| e.label == "I agree" && e.states.contains(handrail_platform::States::CHECKED)));
}

#[test]
fn stale_observation_ids_are_refused_naming_the_latest() {
    let (mut fx, _) = Fx::form();
    fx.see();
    let old = fx.latest();
    let save = fx.id("Save");
    fx.see();
    let before = fx.sim.fingerprint();
    let effects = fx.sim.side_effects();
    let o = fx.call(&[("action", "click"), ("observation_id", &old), ("element_id", &save)]);
    assert_eq!(o.status, Status::Stale);
    assert!(o.message.as_deref().unwrap_or("").contains("the latest is obs_2"), "{}", o.text());
    assert_eq!(fx.sim.fingerprint(), before);
    assert_eq!(fx.sim.side_effects(), effects);

    // An id the latest observation does not list.
    let latest = fx.latest();
    let o = fx.call(&[("action", "click"), ("observation_id", &latest), ("element_id", "e999")]);
    assert_eq!(o.status, Status::Error);
    assert!(o.text().contains("e999 is not in obs_2"), "{}", o.text());
}

#[test]
fn a_target_that_moved_is_refused_as_stale_with_a_fresh_observation() {
    let (mut fx, ids) = Fx::form();
    fx.see();
    let save = fx.id("Save");
    let obs = fx.latest();
    fx.sim.move_widget(ids.save, Rect::new(700, 300, 90, 30));
    let o = fx.call(&[("action", "click"), ("observation_id", &obs), ("element_id", &save)]);
    assert_eq!(o.status, Status::Stale, "{}", o.text());
    assert!(o.message.as_deref().unwrap_or("").contains("moved"), "{}", o.text());
    assert!(o.observation.is_some(), "a fresh observation comes with it");
    assert_ne!(fx.latest(), obs);
    assert!(!fx.sim.calls().iter().any(|c| matches!(c, SimCall::Click { .. })), "nothing was clicked");
    assert_eq!(fx.sim.widget(ids.status).label, "Ready");

    // A target that vanished.
    fx.sim.set_visible(ids.nothing, false);
    let o = fx.on("click", "I agree", &[]);
    assert_eq!(o.status, Status::Ok);
    let obs = fx.latest();
    let agree = fx.id("I agree");
    fx.sim.set_visible(ids.agree, false);
    let o = fx.call(&[("action", "click"), ("observation_id", &obs), ("element_id", &agree)]);
    assert_eq!(o.status, Status::Stale);
    assert!(o.message.as_deref().unwrap_or("").contains("no longer on screen"), "{}", o.text());
}

#[test]
fn a_small_drift_is_followed_not_refused() {
    let (mut fx, ids) = Fx::form();
    fx.see();
    fx.sim.move_widget(ids.save, Rect::new(131, 501, 90, 30));
    let o = fx.on("click", "Save", &[]);
    assert_eq!(o.status, Status::Ok, "{}", o.text());
    assert_eq!(fx.sim.widget(ids.status).label, "Saved");
}

#[test]
fn typing_into_a_target_and_expect_outcomes() {
    let (mut fx, ids) = Fx::form();
    fx.see();
    let o = fx.on("type", "Name", &[("text", "Ada Lovelace"), ("expect", "focus:Name")]);
    assert_eq!(o.tag(), "[ok+verified]", "{}", o.text());
    assert_eq!(fx.sim.widget(ids.name).value, "Ada Lovelace");

    let o = fx.on("click", "Does nothing", &[("expect", "window:Settings")]);
    assert_eq!(o.tag(), "[no_visible_change+expectation_not_met]", "{}", o.text());
    assert!(o.text().contains("the window title is \"Account - Forms\""));

    fx.sim.set_ax_health(AxHealth::Unavailable);
    fx.see();
    let o = fx.call(&[("action", "key"), ("keys", "tab"), ("expect", "focus:Password")]);
    assert_eq!(o.tag().rsplit('+').next(), Some("expect_unknown]"), "{}", o.text());
    assert!(o.text().contains("use expect text:"), "{}", o.text());
}

#[test]
fn typing_into_the_focused_target_does_not_click_it_again() {
    let (mut fx, ids) = Fx::form();
    fx.see();
    // Not focused yet: the target is clicked to focus it, then typed into.
    fx.on("type", "Name", &[("text", "Ada")]);
    assert!(fx.sim.calls().iter().any(|c| matches!(c, SimCall::Click { .. })));
    // Now focused (a selection the agent made would sit there): typed into as it is.
    fx.sim.clear_calls();
    let o = fx.on("type", "Name", &[("text", " Lovelace")]);
    assert_eq!(o.status, Status::Ok, "{}", o.text());
    assert!(!fx.sim.calls().iter().any(|c| matches!(c, SimCall::Click { .. })), "{:?}", fx.sim.calls());
    assert_eq!(fx.sim.widget(ids.name).value, "Ada Lovelace");
}

#[test]
fn expect_waits_for_a_late_change_within_its_bound() {
    let (mut fx, _) = Fx::empty_with(|sim, win| {
        let status = sim.add_widget(win, Widget::text("Loading").at(130, 600, 200, 20));
        sim.add_widget(
            win,
            Widget::button("Fetch")
                .at(130, 500, 90, 30)
                .on_click(Reaction::set_label(status, "Loading data").after(Duration::from_millis(50))),
        );
        sim.add_widget(win, Widget::text("").key("late").at(130, 640, 200, 20));
        // A second change well after the first settle.
        let _ = status;
    });
    fx.see();
    fx.sim.schedule(Duration::from_millis(1500), Reaction::set_label("late", "Done"));
    let o = fx.on("click", "Fetch", &[("expect", "text:Done")]);
    assert_eq!(o.tag(), "[ok+verified]", "{}", o.text());
}

impl Fx {
    fn empty_with(build: impl FnOnce(&SimDesktop, handrail_sim::WindowId)) -> (Fx, ()) {
        let fx = Fx::empty();
        build(&fx.sim, fx.win);
        (fx, ())
    }
}

#[test]
fn spinners_neither_block_settle_nor_count_as_change() {
    let (mut fx, _) = Fx::form();
    fx.sim.add_widget(fx.win, Widget::spinner().at(900, 100, 32, 32));
    fx.see();
    let o = fx.on("click", "Does nothing", &[]);
    assert_eq!(o.status, Status::NoVisibleChange, "{}", o.text());
    assert!(o.timings.settle < Duration::from_millis(1000), "settle {:?}", o.timings.settle);
}

#[test]
fn text_targets_match_one_or_refuse_with_candidates() {
    let (mut fx, ids) = Fx::form();
    fx.sim.add_widget(fx.win, Widget::button("Save draft").at(600, 500, 120, 30));
    fx.see();
    let o = fx.call(&[("action", "click"), ("target_text", "save")]);
    assert_eq!(o.status, Status::Ok, "exact label wins over partial: {}", o.text());
    assert_eq!(fx.sim.widget(ids.status).label, "Saved");

    fx.sim.add_widget(fx.win, Widget::button("Open A").at(600, 550, 90, 30));
    fx.sim.add_widget(fx.win, Widget::button("Open B").at(700, 550, 90, 30));
    fx.see();
    let effects = fx.sim.side_effects();
    let o = fx.call(&[("action", "click"), ("target_text", "open")]);
    assert_eq!(o.status, Status::Refused, "{}", o.text());
    assert!(o.text().contains("\"Open A\"") && o.text().contains("\"Open B\""), "{}", o.text());
    assert_eq!(fx.sim.side_effects(), effects);

    let o = fx.call(&[("action", "click"), ("target_text", "no such thing")]);
    assert_eq!(o.status, Status::Error);
}

/// Two windows show "Delete account" buttons: pressing any would be refused, so the answer is the
/// guard's reason (the model must not learn "ambiguous" and retry by id); "Open" stays ambiguous.
#[test]
fn a_text_target_every_candidate_of_which_is_refused_says_why() {
    let (mut fx, _) = Fx::form();
    let other = fx.sim.add_window(WindowSpec::new("Other", "Other").bounds(Rect::new(820, 100, 400, 300)));
    fx.sim.add_widget(fx.win, Widget::button("Delete account").at(600, 500, 160, 30));
    fx.sim.add_widget(other, Widget::button("Delete account").at(850, 200, 160, 30));
    fx.turn("change my display name", Mode::Interactive);
    fx.see();
    let effects = fx.sim.side_effects();
    for text in ["Delete account", "delete"] {
        let o = fx.call(&[("action", "click"), ("target_text", text)]);
        assert_eq!(o.guard, GuardDecision::Refused { rule: Rule::DestructiveTarget }, "{}", o.text());
        assert!(o.text().contains("every one of them"), "{}", o.text());
    }
    // Hovering presses nothing: still a plain ambiguity.
    let o = fx.call(&[("action", "hover"), ("target_text", "Delete account")]);
    assert_eq!(o.status, Status::Refused, "{}", o.text());
    assert_eq!(o.guard, GuardDecision::Refused { rule: Rule::AmbiguousTarget }, "{}", o.text());
    assert!(o.text().contains("target one by element_id"), "{}", o.text());
    assert_eq!(fx.sim.side_effects(), effects);
    // Asked for: back to choosing one.
    fx.turn("delete my account", Mode::Interactive);
    fx.see();
    let o = fx.call(&[("action", "click"), ("target_text", "Delete account")]);
    assert!(o.text().contains("target one by element_id"), "{}", o.text());
}

#[test]
fn turns_reset_ids_budgets_and_memory() {
    let (mut fx, _) = Fx::form();
    fx.see();
    let obs = fx.latest();
    let save = fx.id("Save");
    fx.on("click", "Does nothing", &[]);
    fx.turn("new request", Mode::Interactive);
    assert!(fx.engine.latest().is_none());
    let o = fx.call(&[("action", "click"), ("observation_id", &obs), ("element_id", &save)]);
    assert_eq!(o.status, Status::Stale, "old observation ids are invalid after a new turn");
    let o = fx.call(&[("action", "click"), ("target_text", "Save")]);
    assert_eq!(o.status, Status::Error, "text targets need an observation of this turn");
    fx.see();
    assert_ne!(fx.latest(), obs, "observation numbers are never reused");
    let o = fx.on("click", "Does nothing", &[]);
    assert_eq!(o.status, Status::NoVisibleChange, "the repeat memory was forgotten");
}

#[test]
fn budgets_are_separate_and_lower_when_unattended() {
    let sim = SimDesktop::new(Size::new(800, 600));
    let win = sim.add_window(WindowSpec::new("A", "A").bounds(Rect::new(0, 0, 800, 600)));
    sim.add_widget(win, Widget::checkbox("Toggle").at(10, 40, 120, 24));
    let mut engine = Engine::new(
        sim.desktop(),
        Config {
            interactive: handrail_core::Budgets { mutations: 3, observations: 4 },
            unattended: handrail_core::Budgets { mutations: 1, observations: 2 },
            ..config()
        },
    );
    let see = args(&[("action", "see")]);
    let toggle = args(&[("action", "click"), ("target_text", "Toggle")]);
    // Before any observation a text target is an error, and errors spend no budget.
    for _ in 0..5 {
        assert_eq!(engine.call_args(&toggle).status, Status::Error);
    }
    assert_eq!(engine.call_args(&see).status, Status::Ok);
    for _ in 0..3 {
        assert_eq!(engine.call_args(&toggle).status, Status::Ok);
    }
    let o = engine.call_args(&toggle);
    assert_eq!(o.status, Status::Limit, "{}", o.text());
    assert!(o.text().contains("3 actions"));
    // Observing still works: a separate budget.
    for _ in 0..3 {
        assert_eq!(engine.call_args(&see).status, Status::Ok);
    }
    assert_eq!(engine.call_args(&see).status, Status::Limit);

    engine.begin_turn(handrail_core::Turn { id: "u".into(), intent: String::new(), mode: Mode::Unattended });
    assert_eq!(engine.call_args(&see).status, Status::Ok);
    assert_eq!(engine.call_args(&toggle).status, Status::Ok);
    assert_eq!(engine.call_args(&toggle).status, Status::Limit);
    assert_eq!(engine.call_args(&see).status, Status::Ok);
    assert_eq!(engine.call_args(&see).status, Status::Limit);
}

#[test]
fn open_app_and_expect_app() {
    let (mut fx, _) = Fx::form();
    fx.sim
        .register_app("Calculator", WindowSpec::new("Calculator", "Calculator").bounds(Rect::new(300, 200, 300, 400)));
    let o = fx.call(&[("action", "open_app"), ("app", "Calculator"), ("expect", "app:calculator")]);
    assert_eq!(o.tag(), "[ok+verified]", "{}", o.text());
    assert!(o.text().contains("app: \"Forms\" → \"Calculator\""), "{}", o.text());

    let o = fx.call(&[("action", "open_app"), ("app", "Calculater")]);
    assert_eq!(o.status, Status::Error);
    assert!(o.text().contains("Calculator"), "close matches are listed: {}", o.text());
}

#[test]
fn open_url_opens_vetted_urls_only() {
    let (mut fx, _) = Fx::form();
    let o = fx.call(&[("action", "open_url"), ("url", "https://example.com/path"), ("expect", "window:example.com")]);
    assert_eq!(o.tag(), "[ok+verified]", "{}", o.text());
    assert_eq!(fx.sim.opened_urls(), vec!["https://example.com/path".to_string()]);
}

#[test]
fn scroll_and_drag_and_hover_reach_the_desktop() {
    let fx_sim = SimDesktop::new(Size::new(1280, 800));
    let win = fx_sim.add_window(WindowSpec::new("Files", "Files").bounds(Rect::new(0, 0, 1280, 800)));
    let list =
        fx_sim.add_widget(win, Widget::list("Files", (1..=40).map(|i| format!("file{i}.txt"))).at(20, 60, 300, 240));
    let card = fx_sim.add_widget(win, Widget::button("Card").draggable().at(600, 100, 80, 40));
    fx_sim.add_widget(win, Widget::text("Drop here").at(900, 400, 120, 40));
    let mut engine = Engine::new(fx_sim.desktop(), config());
    engine.call_args(&args(&[("action", "see")]));
    let obs = engine.latest().expect("obs").clone();
    let list_id =
        obs.elements.iter().find(|e| e.label == "file1.txt").map(|e| e.id.to_string()).expect("first row listed");
    let o = engine.call_args(&args(&[
        ("action", "scroll"),
        ("observation_id", &obs.id.to_string()),
        ("element_id", &list_id),
        ("direction", "down"),
        ("amount", "5"),
    ]));
    assert_eq!(o.status, Status::Ok, "{}", o.text());
    assert_eq!(fx_sim.widget(list).offset, 5);
    // Toolkits do not always announce a scroll (Chromium, inside a page): the accessibility source is
    // told, before the look after it.
    let calls = fx_sim.calls();
    let scrolled = calls.iter().position(|c| matches!(c, SimCall::Scroll { .. })).expect("scrolled");
    let told = calls.iter().position(|c| matches!(c, SimCall::AxLayoutMayHaveMoved)).expect("source told");
    let next_look = calls[scrolled..].iter().position(|c| matches!(c, SimCall::AxSnapshot)).map(|i| i + scrolled);
    assert!(scrolled < told && next_look.is_some_and(|l| told < l), "{calls:?}");

    let o = engine.call_args(&args(&[("action", "drag"), ("target_text", "Card"), ("to_target_text", "Drop here")]));
    assert_eq!(o.status, Status::Ok, "{}", o.text());
    let moved = fx_sim.widget(card).bounds;
    assert!(Rect::new(900, 400, 120, 40).contains(moved.center()), "{moved}");

    let o = engine.call_args(&args(&[("action", "hover"), ("target_text", "Drop here")]));
    assert!(matches!(o.status, Status::Ok | Status::NoVisibleChange));
    assert!(fx_sim.calls().iter().any(|c| matches!(c, SimCall::MovePointer(_))));
}

/// Keys that scroll a view tell the accessibility source its layout may have moved; others leave it
/// to the events their effects raise (a look after them stays as cheap as the events allow).
#[test]
fn keys_that_scroll_a_view_tell_the_accessibility_source() {
    let (mut fx, _) = Fx::form();
    fx.see();
    let told = |fx: &Fx| fx.sim.calls().iter().filter(|c| matches!(c, SimCall::AxLayoutMayHaveMoved)).count();
    let o = fx.call(&[("action", "key"), ("keys", "ctrl+b")]);
    assert!(matches!(o.status, Status::Ok | Status::NoVisibleChange), "{}", o.text());
    assert_eq!(told(&fx), 0);
    for (keys, after) in [("Page_Down", 1), ("shift+Tab", 2), ("space", 3)] {
        let o = fx.call(&[("action", "key"), ("keys", keys)]);
        assert!(matches!(o.status, Status::Ok | Status::NoVisibleChange), "{keys}: {}", o.text());
        assert_eq!(told(&fx), after, "{keys}");
    }
}

#[test]
fn inspect_publishes_a_detail_observation_with_a_crop() {
    let (mut fx, _) = Fx::form();
    fx.see();
    let o = fx.call(&[("action", "inspect"), ("observation_id", &fx.latest()), ("region", "120,130,330,110")]);
    assert_eq!(o.status, Status::Ok, "{}", o.text());
    let obs = o.observation.clone().expect("detail observation");
    let detail = obs.inspect.as_ref().expect("inspect detail");
    let listed: Vec<&str> = detail.elements.iter().map(|i| obs.elements[*i].label.as_str()).collect();
    assert!(listed.contains(&"Name") && listed.contains(&"Password"), "{listed:?}");
    assert!(!listed.contains(&"Save"));
    let image = obs.image.as_ref().expect("image");
    assert_eq!(image.size, Size::new(330, 110), "the crop is full resolution");
    assert!(o.text().contains("native_role="), "{}", o.text());
    assert!(fx.sim.calls().iter().any(|c| matches!(c, SimCall::Capture { area: Some(_), max_size: None })));
    // Inspect by element; ids still valid against the detail observation.
    let o = fx.on("inspect", "Save", &[]);
    assert_eq!(o.status, Status::Ok);
    let o = fx.on("click", "Save", &[]);
    assert_eq!(o.status, Status::Ok, "{}", o.text());
}

/// When no focused element is reported, `expect focus:` says why as far as the screen tells: the
/// app lists nothing on the accessibility bus, or it lists elements and none has focus.
#[test]
fn an_unknown_focus_names_its_cause() {
    let (mut fx, _) = Fx::empty_with(|sim, win| {
        sim.add_widget(win, Widget::button("Start").at(130, 140, 120, 30));
    });
    fx.see();
    let o = fx.on("click", "Start", &[("expect", "focus:Start")]);
    let why = |o: &Outcome| match &o.expect {
        Some((_, ExpectOutcome::Unknown { why })) => why.clone(),
        other => panic!("{other:?}: {}", o.text()),
    };
    assert!(why(&o).contains("reports no focused element"), "{}", o.text());
    assert!(!why(&o).contains("web content"), "{}", o.text());

    let (mut fx, _) = Fx::empty_with(|sim, win| {
        sim.add_widget(win, Widget::canvas_text("Play").at(300, 300, 80, 30));
    });
    fx.see();
    let o = fx.on("click", "Play", &[("expect", "focus:Play")]);
    assert!(why(&o).contains("lists nothing on the accessibility bus"), "{}", o.text());
}

/// An element inspected after it moved (its window placed or scrolled since the observation) is
/// inspected where it is now, not where it was.
#[test]
fn inspect_of_an_element_follows_it_where_it_moved() {
    let (mut fx, ids) = Fx::form();
    fx.see();
    fx.sim.move_widget(ids.save, Rect::new(600, 300, 90, 30));
    let o = fx.on("inspect", "Save", &[]);
    assert_eq!(o.status, Status::Ok, "{}", o.text());
    let obs = o.observation.clone().expect("detail observation");
    let detail = obs.inspect.as_ref().expect("inspect detail");
    assert_eq!(detail.region, Rect::new(600, 300, 90, 30), "{}", o.text());
    let listed: Vec<&str> = detail.elements.iter().map(|i| obs.elements[*i].label.as_str()).collect();
    assert!(listed.contains(&"Save"), "{}", o.text());
}

#[test]
fn ocr_only_text_is_listed_and_clickable() {
    let (mut fx, _) = Fx::empty_with(|sim, win| {
        let status = sim.add_widget(win, Widget::text("").key("status").at(130, 600, 200, 20));
        sim.add_widget(
            win,
            Widget::canvas_text("Play").at(300, 300, 80, 30).on_click(Reaction::set_label(status, "Playing")),
        );
    });
    let o = fx.see();
    let obs = o.observation.expect("obs");
    let play = obs.elements.iter().find(|e| e.label == "Play").expect("OCR found it");
    assert_eq!(play.source.as_str(), "ocr");
    let o = fx.on("click", "Play", &[("expect", "text:Playing")]);
    assert_eq!(o.tag(), "[ok+verified]", "{}", o.text());
}

#[test]
fn accessibility_unavailable_keeps_the_visual_path() {
    let (mut fx, _) = Fx::form();
    fx.sim.set_ax_health(AxHealth::Unavailable);
    let o = fx.see();
    assert!(o.text().contains("ax=unavailable"));
    let obs = o.observation.expect("obs");
    assert!(obs.elements.iter().any(|e| e.label == "Save"), "OCR still lists text");
    let o = fx.call(&[("action", "click"), ("target_text", "Save"), ("expect", "text:Saved")]);
    assert_eq!(o.tag(), "[ok+verified]", "{}", o.text());
}

#[test]
fn observation_text_is_compact_and_capped() {
    let sim = SimDesktop::new(Size::new(1280, 800));
    let win = sim.add_window(WindowSpec::new("Big", "Big window").bounds(Rect::new(0, 0, 1280, 800)));
    for row in 0..20 {
        for col in 0..6 {
            sim.add_widget(
                win,
                Widget::button(format!("Button {row}-{col}")).at(10 + col * 200, 40 + row * 36, 180, 28),
            );
        }
    }
    let mut engine = Engine::new(sim.desktop(), config());
    let o = engine.call_args(&args(&[("action", "see")]));
    let text = o.text();
    let block = text.split("[OBS").nth(1).expect("OBS block");
    assert!(block.len() < 2600, "observation text is {} bytes", block.len());
    assert!(text.contains("more elements (inspect a region to list them)"), "{text}");
}

#[test]
fn results_are_deterministic() {
    let run = || {
        let (mut fx, _) = Fx::form();
        let mut texts = vec![fx.see().text()];
        texts.push(fx.on("type", "Name", &[("text", "x")]).text());
        texts.push(fx.on("click", "Save", &[("expect", "text:Saved")]).text());
        texts
    };
    assert_eq!(run(), run());
}

#[test]
fn the_capability_gate_makes_no_desktop_call_at_all() {
    for vision in [Vision::TextOnly { model: "qwen3:14b".into() }, Vision::Unknown { model: None }] {
        let (fx, _) = Fx::form();
        let before = fx.sim.fingerprint();
        let mut engine = Engine::new(fx.sim.desktop(), Config { vision: vision.clone(), ..Config::default() });
        for a in [
            vec![("action", "see")],
            vec![("action", "inspect"), ("region", "0,0,10,10")],
            vec![("action", "click"), ("target_text", "Save")],
            vec![("action", "type"), ("text", "hello")],
            vec![("action", "key"), ("keys", "ctrl+s")],
            vec![("action", "scroll"), ("direction", "down")],
            vec![("action", "open_app"), ("app", "xterm")],
            vec![("action", "open_url"), ("url", "https://example.com")],
            vec![("action", "nonsense")],
        ] {
            let o = engine.call_args(&args(&a));
            assert_eq!(o.status, Status::Unsupported);
            assert!(o.text().starts_with(&format!("[unsupported] {UNSUPPORTED}")));
            if matches!(vision, Vision::TextOnly { .. }) {
                assert_eq!(o.text(), format!("[unsupported] {UNSUPPORTED}"));
            } else {
                assert!(o.text().contains("--vision yes"), "{}", o.text());
            }
        }
        assert!(fx.sim.calls().is_empty(), "calls made: {:?}", fx.sim.calls());
        assert_eq!(fx.sim.fingerprint(), before);
    }
}

#[test]
fn bad_arguments_change_nothing() {
    let (mut fx, _) = Fx::form();
    fx.see();
    fx.sim.clear_calls();
    let before = fx.sim.fingerprint();
    for a in [
        vec![("action", "tap")],
        vec![("action", "click")],
        vec![("action", "click"), ("element_id", "e1")],
        vec![("action", "click"), ("region", "1,2,3,4")],
        vec![("action", "type"), ("text", "")],
        vec![("action", "key"), ("keys", "ctrl+banana")],
        vec![("action", "scroll"), ("direction", "diagonal")],
        vec![("action", "see"), ("expect", "smell:roses")],
    ] {
        let o = fx.call(&a);
        assert_eq!(o.status, Status::Error, "{a:?}: {}", o.text());
        assert!(o.message.as_deref().is_some_and(|m| !m.is_empty()));
    }
    assert!(fx.sim.calls().is_empty(), "{:?}", fx.sim.calls());
    assert_eq!(fx.sim.fingerprint(), before);
}

/// The grey value at (x, y) of a PGM image (the simulated desktop's encoder).
fn pgm_pixel(bytes: &[u8], x: usize, y: usize) -> u8 {
    // Header: "P5\n<w> <h>\n255\n".
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(40)]).to_string();
    let mut fields = text.split_ascii_whitespace();
    let (_, w) = (fields.next(), fields.next().and_then(|w| w.parse::<usize>().ok()).expect("width"));
    let header = text.match_indices('\n').nth(2).map(|(i, _)| i + 1).expect("header");
    bytes[header + y * w + x]
}

#[test]
fn set_of_marks_draws_listed_elements_on_the_image_only_when_asked() {
    let (mut fx, _) = Fx::form();
    let plain = fx.see();
    let obs = plain.observation.clone().expect("observation");
    let name = obs.elements.iter().find(|e| e.label == "Name").expect("Name").bounds;
    let (x, y) = (name.x as usize + 1, name.y as usize + name.height as usize / 2);
    let before = pgm_pixel(&obs.image.as_ref().expect("image").bytes, x, y);

    let marked = fx.call(&[("action", "see"), ("marks", "true")]);
    let mobs = marked.observation.clone().expect("observation");
    let after = pgm_pixel(&mobs.image.as_ref().expect("image").bytes, x, y);
    assert_ne!(before, after, "the Name entry's box is drawn on the marked image");
    // The trace's screenshot stays unmarked, and the listing is the same.
    let shot = mobs.screenshot.as_ref().expect("screenshot");
    let i = y * shot.stride + x * 4;
    let grey = |p: &[u8]| ((u32::from(p[0]) + u32::from(p[1]) + u32::from(p[2])) / 3) as i32;
    assert!((grey(&shot.pixels[i..i + 4]) - i32::from(before)).abs() < 40, "screenshot unmarked");
    assert_eq!(
        obs.elements.iter().map(|e| e.id).collect::<Vec<_>>(),
        mobs.elements.iter().map(|e| e.id).collect::<Vec<_>>()
    );

    // The next call without `marks` follows the configuration (off).
    let again = fx.see();
    let aobs = again.observation.clone().expect("observation");
    assert_eq!(pgm_pixel(&aobs.image.as_ref().expect("image").bytes, x, y), before);

    // Configured on: every call marks unless it says otherwise.
    fx.engine = Engine::new(fx.sim.desktop(), Config { marks: true, ..config() });
    let on = fx.see();
    let oobs = on.observation.clone().expect("observation");
    assert_ne!(pgm_pixel(&oobs.image.as_ref().expect("image").bytes, x, y), before);
    let off = fx.call(&[("action", "see"), ("marks", "false")]);
    let fobs = off.observation.clone().expect("observation");
    assert_eq!(pgm_pixel(&fobs.image.as_ref().expect("image").bytes, x, y), before);
}

#[test]
fn a_click_on_an_overlapped_control_aims_where_nothing_covers_it() {
    // Two buttons drawn over each other, as on pages that stack controls: TWO (added last) is on top
    // and covers ONE's centre; only a strip of ONE stays uncovered.
    let (mut fx, _) = Fx::empty_with(|sim, win| {
        let status = sim.add_widget(win, Widget::text("none").at(130, 600, 200, 20));
        sim.add_widget(
            win,
            Widget::button("ONE").at(145, 193, 40, 40).on_click(Reaction::set_label(status, "ONE clicked")),
        );
        sim.add_widget(
            win,
            Widget::button("TWO").at(146, 187, 40, 40).on_click(Reaction::set_label(status, "TWO clicked")),
        );
    });
    fx.see();
    let o = fx.on("click", "ONE", &[("expect", "text:ONE clicked")]);
    assert_eq!(o.tag(), "[ok+verified]", "{}", o.text());
    // Not overlapped: the centre, as always.
    let o = fx.on("click", "TWO", &[("expect", "text:TWO clicked")]);
    assert_eq!(o.tag(), "[ok+verified]", "{}", o.text());
}

#[test]
fn an_app_that_opens_with_a_spinner_is_not_waited_out_and_the_result_says_so() {
    let (mut fx, _) = Fx::empty_with(|sim, _| {
        let spec = WindowSpec::new("Factory", "Widget factory")
            .widget(Widget::spinner().at(40, 60, 32, 32))
            .widget(Widget::button("OK").at(40, 120, 80, 30));
        sim.register_app_delayed("Factory", spec, Duration::from_millis(200));
    });
    fx.see();
    let o = fx.call(&[("action", "open_app"), ("app", "factory")]);
    assert_eq!(o.status, Status::Ok, "{}", o.text());
    assert_eq!(o.timings.settled, Some(true), "{}", o.text());
    assert!(o.timings.settle < Duration::from_millis(1500), "{}", o.text());
    assert_eq!(o.animating.len(), 1, "{}", o.text());
    assert!(o.text().contains("still moving: "), "{}", o.text());
    // A later look does not repeat it: nothing began since.
    let o = fx.call(&[("action", "see")]);
    assert!(!o.text().contains("still moving"), "{}", o.text());
}

/// A page that knows the marker of the next call could print its end and forge text of the tool's own:
/// by default every call's marker comes from the system's randomness, never from a sequence that is
/// the same in every process.
#[test]
fn boundary_markers_are_unpredictable_by_default() {
    let first_markers = |n: usize| {
        let (fx, _) = Fx::form();
        let mut engine = Engine::new(fx.sim.desktop(), Config { vision: Vision::Capable, ..Config::default() });
        engine.begin_turn(Turn { id: "t".into(), intent: "look".into(), mode: Mode::Interactive });
        (0..n).map(|_| engine.call_args(&args(&[("action", "see")])).boundary).collect::<Vec<_>>()
    };
    let (a, b) = (first_markers(3), first_markers(3));
    for m in a.iter().chain(&b) {
        assert_eq!(m.len(), 12, "{m}");
        assert!(m.chars().all(|c| c.is_ascii_hexdigit()), "{m}");
    }
    assert_ne!(a[0], b[0], "two processes' first calls share a marker");
    assert!(a[0] != a[1] && a[1] != a[2], "{a:?}");
    // Seeded, as the tests here are: the same sequence each time.
    let seeded = |seed| {
        let (fx, _) = Fx::form();
        let mut engine = Engine::new(fx.sim.desktop(), Config { markers: Markers::Seeded(seed), ..config() });
        engine.begin_turn(Turn { id: "t".into(), intent: "look".into(), mode: Mode::Interactive });
        engine.call_args(&args(&[("action", "see")])).boundary
    };
    assert_eq!(seeded(7), seeded(7));
}

/// Every way a call stops carries a stable reason code beside its words, and its status follows
/// from it.
#[test]
fn every_stop_names_a_stable_reason() {
    use handrail_core::Reason;
    let (mut fx, _) = Fx::form();
    fx.turn("change my name", Mode::Interactive);
    let check = |o: &handrail_core::Outcome, reason: Reason| {
        assert_eq!(o.reason, Some(reason), "{}", o.text());
        assert_eq!(o.status, reason.status(), "{}", o.text());
    };
    check(&fx.call(&[("action", "click"), ("target_text", "Save")]), Reason::NoObservation);
    fx.see();
    check(
        &fx.call(&[("action", "click"), ("observation_id", "obs_999"), ("element_id", "e1")]),
        Reason::StaleObservation,
    );
    let latest = fx.latest();
    check(
        &fx.call(&[("action", "click"), ("observation_id", &latest), ("element_id", "e999")]),
        Reason::UnknownElement,
    );
    check(&fx.call(&[("action", "click"), ("target_text", "No such words anywhere")]), Reason::NoMatch);
    check(&fx.call(&[("action", "click")]), Reason::InvalidArguments);
    check(&fx.on("click", "Delete account", &[]), Reason::Guard(Rule::DestructiveTarget));
    check(&fx.call(&[("action", "key"), ("keys", "shift+delete")]), Reason::Guard(Rule::DangerousHotkey));
    let ok = fx.see();
    assert_eq!(ok.reason, None, "{}", ok.text());
    let mut blind =
        Engine::new(fx.sim.desktop(), Config { vision: Vision::TextOnly { model: "m".into() }, ..config() });
    check(&blind.call_args(&args(&[("action", "see")])), Reason::VisionRequired);
}

/// The target's app does not answer the pre-action look in time (a busy machine): the target is not
/// claimed gone, it could not be checked, and nothing is pressed.
#[test]
fn a_target_whose_app_did_not_answer_in_time_is_not_called_gone() {
    let (mut fx, ids) = Fx::form();
    fx.see();
    fx.sim.set_ax_health(handrail_platform::AxHealth::Partial);
    fx.sim.set_ax_missing_app(Some("Forms"));
    let o = fx.on("click", "Save", &[]);
    assert_eq!(o.status, Status::Stale, "{}", o.text());
    let message = o.message.clone().unwrap_or_default();
    assert!(message.contains("could not be checked") && message.contains("did not answer"), "{message}");
    assert!(!message.contains("no longer on screen"), "{message}");
    assert!(!fx.sim.calls().iter().any(|c| matches!(c, SimCall::Click { .. })), "nothing was clicked");
    assert_eq!(fx.sim.widget(ids.status).label, "Ready");
}

/// The window in front is not in the accessibility tree (its app gives none, or did not answer): the
/// header says `partial` and a line names the app; while the window is in the tree, nothing is said.
#[test]
fn a_front_window_missing_from_the_tree_is_said_by_its_app() {
    let (mut fx, _) = Fx::form();
    let o = fx.see();
    let text = o.text();
    assert!(text.contains("ax=ok") && !text.contains("\nax: "), "{text}");
    assert!(o.observation.as_ref().is_some_and(|obs| obs.ax_notes.is_empty()));
    fx.sim.set_ax_health(handrail_platform::AxHealth::Partial);
    fx.sim.set_ax_missing_app(Some("Forms"));
    let o = fx.see();
    let text = o.text();
    assert!(text.contains("ax=partial"), "{text}");
    assert!(text.contains("\nax: Forms: the window in front is not in the accessibility tree"), "{text}");
    let notes = o.observation.as_ref().map(|obs| obs.ax_notes.clone()).unwrap_or_default();
    assert_eq!(notes.len(), 1, "{notes:?}");
}

//! Turns for hosts that send none: inferred from idle time, with budgets that refill per window so the
//! tool never locks for good; hosts that name turns keep per-turn budgets. Virtual time throughout.

mod common;

use std::time::Duration;

use common::{args, config, Fx};
use handrail_core::{Budgets, Config, Engine, Mode, Outcome, Status, Turn, TurnSource};
use handrail_sim::{SimDesktop, Widget, WindowSpec};

const GAP: Duration = Duration::from_secs(600);
const WINDOW: Duration = Duration::from_secs(300);

fn inferred(gap: Duration, window: Duration) -> TurnSource {
    TurnSource::Inferred { idle_gap: gap, window }
}

/// A window with a checkbox that toggles on every click, an engine with 3 actions and 5 observations.
fn toggles(source: TurnSource) -> (SimDesktop, Engine) {
    let sim = SimDesktop::new(handrail_platform::Size::new(800, 600));
    let win = sim.add_window(WindowSpec::new("App", "App").bounds(handrail_platform::Rect::new(0, 0, 400, 300)));
    sim.add_widget(win, Widget::checkbox("Toggle").at(10, 40, 120, 24));
    let mut engine =
        Engine::new(sim.desktop(), Config { interactive: Budgets { mutations: 3, observations: 5 }, ..config() });
    let turn = Turn { id: "default".into(), intent: String::new(), mode: Mode::Interactive };
    engine.begin_turn_from(turn, source);
    (sim, engine)
}

fn see(engine: &mut Engine) -> Outcome {
    engine.call_args(&args(&[("action", "see")]))
}

fn toggle(engine: &mut Engine) -> Outcome {
    engine.call_args(&args(&[("action", "click"), ("target_text", "Toggle")]))
}

/// The whole seconds a `[limit]` says to wait.
fn wait_secs(o: &Outcome) -> u64 {
    let text = o.message.clone().unwrap_or_default();
    let (_, rest) = text.split_once("accepted again in ").unwrap_or_else(|| panic!("no wait in {text:?}"));
    rest.split(' ').next().and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("no number in {text:?}"))
}

#[test]
fn an_idle_gap_starts_a_new_turn_that_refills_and_forgets() {
    // A window longer than the gap, so only the gap can refill here.
    let (sim, mut engine) = toggles(inferred(GAP, Duration::from_secs(3600)));
    assert_eq!(see(&mut engine).status, Status::Ok);
    let old = engine.latest().map(|o| o.id.to_string()).expect("an observation");
    for _ in 0..3 {
        assert_eq!(toggle(&mut engine).status, Status::Ok);
    }
    assert_eq!(toggle(&mut engine).status, Status::Limit);
    assert_eq!(engine.turn().id, "default");

    // Just under the gap: the same turn.
    sim.advance(GAP - Duration::from_secs(1));
    assert_eq!(toggle(&mut engine).status, Status::Limit);
    assert_eq!(engine.turn().id, "default");

    // The person read the answer and typed the next request: a new turn, budgets full, state forgotten.
    sim.advance(GAP);
    let o = engine.call_args(&args(&[("action", "click"), ("observation_id", &old), ("target_text", "Toggle")]));
    assert_eq!(o.status, Status::Stale, "{}", o.text());
    assert!(o.text().contains("not an observation of this turn"), "{}", o.text());
    assert_eq!(engine.turn().id, "default#2");
    assert_eq!(engine.turn_source(), inferred(GAP, Duration::from_secs(3600)));
    assert_eq!(see(&mut engine).status, Status::Ok);
    for _ in 0..3 {
        assert_eq!(toggle(&mut engine).status, Status::Ok);
    }
    assert_eq!(toggle(&mut engine).status, Status::Limit);
}

#[test]
fn a_slow_model_stays_in_one_turn() {
    // A local vision model: 30 to 60 s per step, a see and an action per step, for 20 minutes.
    let sim = SimDesktop::new(handrail_platform::Size::new(800, 600));
    let win = sim.add_window(WindowSpec::new("App", "App").bounds(handrail_platform::Rect::new(0, 0, 400, 300)));
    sim.add_widget(win, Widget::checkbox("Toggle").at(10, 40, 120, 24));
    let mut engine = Engine::new(sim.desktop(), config());
    engine.begin_turn_from(Turn { id: "default".into(), ..Turn::default() }, TurnSource::inferred());
    let mut elapsed = Duration::ZERO;
    for step in 0..24u64 {
        let think = Duration::from_secs(30 + (step * 7) % 31);
        elapsed += think;
        sim.advance(think);
        let o = see(&mut engine);
        assert_eq!(o.status, Status::Ok, "step {step}: {}", o.text());
        let obs = engine.latest().map(|o| o.id.to_string()).expect("an observation");
        sim.advance(think);
        elapsed += think;
        // The observation the model saw a slow step ago is still this turn's.
        let o = engine.call_args(&args(&[("action", "click"), ("observation_id", &obs), ("target_text", "Toggle")]));
        assert_eq!(o.status, Status::Ok, "step {step}: {}", o.text());
        assert_eq!(engine.turn().id, "default", "step {step}");
    }
    assert!(elapsed > Duration::from_secs(1200), "{elapsed:?}");
}

#[test]
fn a_window_budget_says_exactly_when_and_which_flag() {
    let (sim, mut engine) = toggles(inferred(GAP, WINDOW));
    assert_eq!(see(&mut engine).status, Status::Ok);
    for _ in 0..3 {
        sim.advance(Duration::from_secs(10));
        assert_eq!(toggle(&mut engine).status, Status::Ok);
    }
    sim.advance(Duration::from_secs(10));
    let o = toggle(&mut engine);
    assert_eq!(o.status, Status::Limit, "{}", o.text());
    let text = o.text();
    assert!(text.contains("3 actions, interactive mode"), "{text}");
    assert!(text.contains("per 300 s window"), "{text}");
    assert!(text.contains("--max-actions N changes it"), "{text}");
    assert!(text.contains("--budget-window SECONDS the window"), "{text}");
    assert!(!text.contains("next turn"), "a host that sends no turns gets no next turn: {text}");
    // The window opened with the first see, 40 s (and a little input time) ago.
    let wait = wait_secs(&o);
    assert!((259..=260).contains(&wait), "{text}");

    // One second short of the promise: still refused, and the promise counts down.
    sim.advance(Duration::from_secs(wait - 1));
    let o = toggle(&mut engine);
    assert_eq!(o.status, Status::Limit, "{}", o.text());
    assert_eq!(wait_secs(&o), 1, "{}", o.text());
    // At the promised time: accepted, in the same turn (the gap has not passed: calls kept coming).
    sim.advance(Duration::from_secs(1));
    let o = toggle(&mut engine);
    assert_eq!(o.status, Status::Ok, "{}", o.text());
    assert_eq!(engine.turn().id, "default");

    // The observation budget holds per window too, and says so.
    for _ in 0..5 {
        let _ = see(&mut engine);
    }
    let o = see(&mut engine);
    assert_eq!(o.status, Status::Limit, "{}", o.text());
    assert!(o.text().contains("--max-observations N changes it"), "{}", o.text());
    assert!(wait_secs(&o) <= 300, "{}", o.text());
}

#[test]
fn two_hundred_fast_actions_without_host_turns_never_lock_for_good() {
    // Default budgets (50 actions per 5 minutes), a model taking 2 s per step.
    let sim = SimDesktop::new(handrail_platform::Size::new(800, 600));
    let win = sim.add_window(WindowSpec::new("App", "App").bounds(handrail_platform::Rect::new(0, 0, 400, 300)));
    sim.add_widget(win, Widget::checkbox("Toggle").at(10, 40, 120, 24));
    let mut engine = Engine::new(sim.desktop(), config());
    engine.begin_turn_from(Turn { id: "default".into(), ..Turn::default() }, TurnSource::inferred());
    assert_eq!(see(&mut engine).status, Status::Ok);
    let (mut done, mut limits) = (0, 0);
    while done < 200 {
        sim.advance(Duration::from_secs(2));
        let o = toggle(&mut engine);
        match o.status {
            Status::Ok => done += 1,
            Status::Limit => {
                limits += 1;
                // The model waits as told and carries on.
                sim.advance(Duration::from_secs(wait_secs(&o)));
            }
            _ => panic!("{}", o.text()),
        }
        assert!(limits <= 4, "locked: {}", o.text());
    }
    assert_eq!(limits, 3);
    assert_eq!(engine.turn().id, "default");
}

#[test]
fn host_turns_keep_per_turn_budgets() {
    let (sim, mut engine) = toggles(TurnSource::Host);
    assert_eq!(see(&mut engine).status, Status::Ok);
    for _ in 0..3 {
        assert_eq!(toggle(&mut engine).status, Status::Ok);
    }
    let o = toggle(&mut engine);
    assert_eq!(o.status, Status::Limit);
    assert!(o.text().contains("the action ceiling of this turn (3 actions, interactive mode)"), "{}", o.text());
    assert!(o.text().contains("the next turn refills it; --max-actions N changes it"), "{}", o.text());
    // Neither idle time nor windows refill a host's turn: its next turn does.
    sim.advance(Duration::from_secs(7200));
    assert_eq!(toggle(&mut engine).status, Status::Limit);
    assert_eq!(engine.turn().id, "default");
    engine.begin_turn(Turn { id: "t2".into(), ..Turn::default() });
    assert_eq!(see(&mut engine).status, Status::Ok);
    assert_eq!(toggle(&mut engine).status, Status::Ok);
}

#[test]
fn without_an_intent_a_removal_refusal_says_how_to_pass_one() {
    let (mut fx, _) = Fx::form();
    fx.engine.begin_turn_from(Turn { id: "default".into(), ..Turn::default() }, TurnSource::inferred());
    fx.see();
    let o = fx.on("click", "Delete account", &[]);
    assert_eq!(o.status, Status::Refused, "{}", o.text());
    let text = o.text();
    assert!(text.contains("no user request was given for this turn"), "{text}");
    assert!(text.contains("_meta as \"handrail/intent\""), "{text}");
    assert!(text.contains("--intent"), "{text}");
    assert!(text.contains("elicitation"), "{text}");

    // With an intent that does not ask for it, the refusal is the usual one.
    fx.turn("fill in my name", Mode::Interactive);
    fx.see();
    let o = fx.on("click", "Delete account", &[]);
    assert_eq!(o.status, Status::Refused);
    assert!(!o.text().contains("no user request was given"), "{}", o.text());
}

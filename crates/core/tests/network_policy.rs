//! Requests the browser's network guard refused reach the model: the engine drains
//! `Desktop::network` on every call past the capability gate, puts the entries on the outcome and the
//! text shows them inside the screen markers.

mod common;

use common::{args, Fx};
use handrail_core::{Config, Engine, Mode, Status, Vision};
use handrail_platform::BlockedRequest;
use handrail_sim::{Reaction, Widget};

const REASON: &str = "127.0.0.2 is not in the allowed domains (127.0.0.1)";

fn blocked(method: &str, url: &str) -> BlockedRequest {
    BlockedRequest { method: method.into(), url: url.into(), reason: REASON.into() }
}

#[test]
fn a_click_that_is_blocked_names_the_url_in_its_own_result() {
    let mut fx = Fx::empty();
    let w = fx.win;
    fx.sim.add_widget(
        w,
        Widget::link("Dashboard").at(130, 140, 120, 24).on_click(Reaction::block_request(
            "GET",
            "http://127.0.0.2:8080/dash",
            REASON,
        )),
    );
    fx.turn("open the dashboard", Mode::Interactive);
    fx.see();

    let o = fx.on("click", "Dashboard", &[]);
    assert_eq!(o.blocked, [blocked("GET", "http://127.0.0.2:8080/dash")], "{}", o.text());
    let text = o.text();
    let line = format!("blocked: GET \"http://127.0.0.2:8080/dash\" — {REASON} (handrail's URL policy; not sent)");
    assert!(text.contains(&line), "{text}");
    // Inside the screen markers: the page chose that URL.
    let start = text.find("<<<screen ").expect("screen marker");
    let end = text.find("<<<end screen ").expect("end marker");
    let at = text.find(&line).expect("blocked line");
    assert!(start < at && at < end, "{text}");
    assert!(fx.sim.pending_blocked().is_empty());

    // Drained: the next call does not repeat it.
    let again = fx.see();
    assert!(again.blocked.is_empty());
    assert!(!again.text().contains("blocked:"), "{}", again.text());
}

#[test]
fn requests_blocked_between_calls_reach_the_next_result_whatever_it_is() {
    let mut fx = Fx::empty();
    fx.sim.add_widget(fx.win, Widget::button("Save").at(130, 140, 90, 30));
    fx.turn("save", Mode::Interactive);
    fx.see();

    // A page script tries on its own while nobody acts: the next see reports it.
    fx.sim.block_request("POST", "http://127.0.0.2:8080/collect", REASON);
    fx.sim.block_request("POST", "http://127.0.0.2:8080/collect", REASON);
    let o = fx.see();
    assert_eq!(o.blocked.len(), 2);
    assert!(o.text().contains("blocked: POST \"http://127.0.0.2:8080/collect\" ×2 — "), "{}", o.text());

    // A refused call (a session-killing hotkey) still reports what was blocked meanwhile.
    fx.sim.block_request("CONNECT", "https://127.0.0.2:8443/", REASON);
    let refused = fx.call(&[("action", "key"), ("keys", "ctrl+alt+backspace")]);
    assert_eq!(refused.status, Status::Refused, "{}", refused.text());
    assert_eq!(refused.blocked, [blocked("CONNECT", "https://127.0.0.2:8443/")]);
    assert!(refused.text().contains("blocked: CONNECT \"https://127.0.0.2:8443/\" — "), "{}", refused.text());
    assert!(fx.sim.pending_blocked().is_empty());
}

#[test]
fn the_capability_gate_leaves_blocked_requests_untouched() {
    let (fx, _) = Fx::form();
    fx.sim.block_request("GET", "http://127.0.0.2:8080/", REASON);
    let mut engine =
        Engine::new(fx.sim.desktop(), Config { vision: Vision::TextOnly { model: "m".into() }, ..Config::default() });
    let o = engine.call_args(&args(&[("action", "see")]));
    assert_eq!(o.status, Status::Unsupported);
    assert!(o.blocked.is_empty());
    assert_eq!(fx.sim.pending_blocked().len(), 1, "a model that cannot see gets nothing from the desktop");
    assert!(fx.sim.calls().is_empty());
}

#[test]
fn a_desktop_without_a_network_guard_reports_nothing() {
    let mut fx = Fx::empty();
    fx.sim.add_widget(fx.win, Widget::button("Go").at(130, 140, 90, 30));
    let mut desktop = fx.sim.desktop();
    desktop.network = Box::new(handrail_platform::absent::NoNetworkPolicy);
    fx.sim.block_request("GET", "http://127.0.0.2:8080/", REASON);
    fx.engine = Engine::new(desktop, common::config());
    fx.turn("go", Mode::Interactive);
    let o = fx.see();
    assert!(o.blocked.is_empty());
    assert!(o.observation.is_some());
}

#[test]
fn credentials_in_a_blocked_url_never_reach_the_result() {
    let mut fx = Fx::empty();
    fx.turn("look", Mode::Interactive);
    // Even from a backend that forgot to redact.
    fx.sim.block_request("GET", "http://bob:hunter2@127.0.0.2:8080/x", "the URL contains credentials");
    let o = fx.see();
    assert_eq!(o.blocked[0].url, "http://127.0.0.2:8080/x");
    assert!(!o.text().contains("hunter2") && !o.text().contains("bob"), "{}", o.text());
    assert!(
        o.text().contains("blocked: GET \"http://127.0.0.2:8080/x\" — the URL contains credentials"),
        "{}",
        o.text()
    );
}

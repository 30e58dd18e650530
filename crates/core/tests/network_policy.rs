//! Requests the browser's network guard refused reach the model: the engine drains
//! `Desktop::network` on every call past the capability gate, puts the entries on the outcome and the
//! text shows them inside the screen markers.

mod common;

use std::time::Duration;

use common::{args, Fx};
use handrail_core::{Config, Engine, Mode, Rule, Status, Vision};
use handrail_platform::BlockedRequest;
use handrail_sim::{Reaction, SimCall, Widget};

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

/// A browser the person started: no proxy in front of it, an address bar that shows where it is, Back
/// on alt+Left.
fn users_browser() -> (Fx, handrail_sim::WidgetId, handrail_sim::WidgetId) {
    use handrail_platform::{Rect, Size};
    use handrail_sim::{SimDesktop, WindowSpec};
    let sim = SimDesktop::new(Size::new(1280, 800));
    let home = "127.0.0.1:8000/home";
    let browser = sim.add_window(
        WindowSpec::new("Chromium", "Home - Chromium")
            .bounds(Rect::new(0, 0, 1280, 800))
            .on_key("alt+left", Reaction::set_value("bar", home)),
    );
    let bar = sim.add_widget(
        browser,
        Widget::entry("Address and search bar")
            .key("bar")
            .attribute("class", "OmniboxViewViews")
            .value(home)
            .at(80, 40, 900, 28),
    );
    let link = sim.add_widget(
        browser,
        Widget::link("Partner dashboard")
            .at(100, 200, 200, 24)
            .on_click(Reaction::set_value("bar", "127.0.0.2:8000/dash")),
    );
    let mut cfg = common::config();
    cfg.url_policy.allowed_domains = vec!["127.0.0.1".into()];
    let engine = Engine::new(sim.desktop(), cfg);
    (Fx { sim, engine, win: browser }, bar, link)
}

/// A link the launched browser's proxy refuses: the bar then shows its address over handrail's
/// block page.
fn add_blocked_dashboard(fx: &Fx) {
    fx.sim.add_widget(
        fx.win,
        Widget::link("Blocked dashboard")
            .at(400, 200, 200, 24)
            .on_click(Reaction::block_request("GET", "http://127.0.0.2:8000/dash", REASON))
            .on_click(Reaction::set_value("bar", "127.0.0.2:8000/dash")),
    );
}

#[test]
fn a_navigation_the_proxy_did_not_stop_is_undone_and_reported() {
    let (mut fx, bar, _) = users_browser();
    fx.turn("look at my dashboard", Mode::Interactive);
    fx.see();
    let o = fx.on("click", "Partner dashboard", &[]);
    assert_eq!(o.status, Status::Refused, "{}", o.text());
    assert_eq!(o.guard, handrail_core::GuardDecision::Refused { rule: Rule::Url });
    let message = o.message.clone().unwrap_or_default();
    assert!(message.contains("http://127.0.0.2:8000/dash") && message.contains("went back"), "{message}");
    // The browser itself is back where it was, and the result's observation shows that.
    assert_eq!(fx.sim.widget(bar).value, "127.0.0.1:8000/home");
    let shown =
        o.observation.as_ref().and_then(|obs| obs.elements.iter().find(|e| e.label == "Address and search bar"));
    assert_eq!(shown.and_then(|e| e.value.as_deref()), Some("127.0.0.1:8000/home"), "{}", o.text());
    // A see afterwards has nothing to undo.
    let again = fx.see();
    assert_eq!(again.status, Status::Ok, "{}", again.text());
}

/// The tab strip missing from the observation before the action (an accessibility walk cut short on a
/// busy machine) and listed after it: the page navigated in its own tab, which is gone back from,
/// never closed with the browser's window.
#[test]
fn a_tab_strip_first_listed_after_the_action_is_not_a_new_tab() {
    let (mut fx, bar, _) = users_browser();
    fx.sim.add_widget(fx.win, Widget::tab("Home").key("tab").at(0, 0, 200, 30).hidden());
    // The click navigates the tab, and the tab strip appears in the tree only now.
    fx.sim.add_widget(
        fx.win,
        Widget::link("Partner report")
            .at(100, 260, 200, 24)
            .on_click(Reaction::set_value("bar", "127.0.0.2:8000/report"))
            .on_click(Reaction::show("tab")),
    );
    fx.turn("look at my dashboard", Mode::Interactive);
    fx.see();
    let o = fx.on("click", "Partner report", &[]);
    assert_eq!(o.status, Status::Refused, "{}", o.text());
    assert!(o.message.as_deref().unwrap_or_default().contains("went back"), "{}", o.text());
    assert!(!fx.sim.calls().iter().any(|c| matches!(c, SimCall::Key(k) if k == "ctrl+w")), "{:?}", fx.sim.calls());
    assert_eq!(fx.sim.widget(bar).value, "127.0.0.1:8000/home");
}

/// An accessible address bar that lags its page (Firefox refreshes its tree apart from its window):
/// after Back, the bar still shows the forbidden page the browser just left, then catches up. Nothing
/// is undone, nothing pressed, and the result shows where the browser really is.
#[test]
fn a_bar_that_shows_a_forbidden_address_only_while_it_catches_up_is_not_a_visit() {
    let (mut fx, bar, _) = users_browser();
    fx.sim.add_widget(
        fx.win,
        Widget::link("Back home")
            .at(400, 200, 200, 24)
            .on_click(Reaction::set_value("bar", "127.0.0.2:8000/dash"))
            .on_click(Reaction::set_value("bar", "127.0.0.1:8000/home").after(Duration::from_millis(300))),
    );
    fx.turn("go back home", Mode::Interactive);
    fx.see();
    let o = fx.on("click", "Back home", &[]);
    assert_ne!(o.status, Status::Refused, "{}", o.text());
    assert!(!fx.sim.calls().iter().any(|c| matches!(c, SimCall::Key(_))), "nothing pressed: {:?}", fx.sim.calls());
    let shown =
        o.observation.as_ref().and_then(|obs| obs.elements.iter().find(|e| e.label == "Address and search bar"));
    assert_eq!(shown.and_then(|e| e.value.as_deref()), Some("127.0.0.1:8000/home"), "{}", o.text());
    assert_eq!(fx.sim.widget(bar).value, "127.0.0.1:8000/home");
}

/// A page the proxy refused earlier in the session, shown again without a request (the browser's
/// history brings its block page back, or its accessible bar lags behind it on a busy machine): the
/// block page, not a visit, so nothing is undone. Another page of the same host is still a visit.
#[test]
fn a_block_page_the_history_brings_back_is_not_a_visit() {
    let (mut fx, bar, _) = users_browser();
    add_blocked_dashboard(&fx);
    fx.sim.add_widget(
        fx.win,
        Widget::link("Forward").at(400, 260, 200, 24).on_click(Reaction::set_value("bar", "127.0.0.2:8000/dash")),
    );
    fx.sim.add_widget(
        fx.win,
        Widget::link("Partner report")
            .at(400, 320, 200, 24)
            .on_click(Reaction::set_value("bar", "127.0.0.2:8000/report")),
    );
    fx.turn("look at my dashboard", Mode::Interactive);
    fx.see();
    let o = fx.on("click", "Blocked dashboard", &[]);
    assert_eq!(o.blocked.len(), 1, "{}", o.text());
    let o = fx.call(&[("action", "key"), ("keys", "alt+left")]);
    assert_ne!(o.status, Status::Refused, "{}", o.text());
    assert_eq!(fx.sim.widget(bar).value, "127.0.0.1:8000/home");
    fx.see();
    let keys_before = fx.sim.calls().iter().filter(|c| matches!(c, SimCall::Key(_))).count();
    let o = fx.on("click", "Forward", &[]);
    assert!(o.blocked.is_empty(), "no request this time: {}", o.text());
    assert_ne!(o.status, Status::Refused, "{}", o.text());
    let keys_after = fx.sim.calls().iter().filter(|c| matches!(c, SimCall::Key(_))).count();
    assert_eq!(keys_after, keys_before, "nothing pressed: {:?}", fx.sim.calls());
    assert_eq!(fx.sim.widget(bar).value, "127.0.0.2:8000/dash", "the block page stays to say why");
    // A page of the same host the proxy never refused: a visit, undone.
    fx.call(&[("action", "key"), ("keys", "alt+left")]);
    fx.see();
    let o = fx.on("click", "Partner report", &[]);
    assert_eq!(o.status, Status::Refused, "{}", o.text());
    assert!(o.message.as_deref().unwrap_or_default().contains("127.0.0.2:8000/report"), "{}", o.text());
}

#[test]
fn an_address_being_typed_is_not_a_visit() {
    let (mut fx, bar, _) = users_browser();
    fx.turn("look at my dashboard", Mode::Interactive);
    fx.see();
    let o = fx.on("click", "Address and search bar", &[]);
    assert_ne!(o.status, Status::Refused, "{}", o.text());
    let o = fx.call(&[("action", "type"), ("text", "127.0.0.2:8000/dash")]);
    assert_ne!(o.status, Status::Refused, "typing is judged when committed: {}", o.text());
    assert!(fx.sim.widget(bar).value.ends_with("127.0.0.2:8000/dash"), "nothing pressed over the typing");
}

#[test]
fn pages_the_person_opened_or_the_proxy_refused_are_left_alone() {
    // Already there before the action (the person went there): not the action's doing.
    let (mut fx, bar, _) = users_browser();
    fx.sim.set_value(bar, "127.0.0.2:8000/dash");
    fx.turn("look at my dashboard", Mode::Interactive);
    fx.see();
    let o = fx.call(&[("action", "scroll"), ("direction", "down"), ("amount", "1")]);
    assert_ne!(o.status, Status::Refused, "{}", o.text());
    assert_eq!(fx.sim.widget(bar).value, "127.0.0.2:8000/dash", "nothing pressed in the person's browser");
    // The launched browser's proxy refused it (the bar shows the URL over handrail's block page):
    // reported as blocked, nothing undone.
    let (mut fx, bar, _) = users_browser();
    add_blocked_dashboard(&fx);
    fx.turn("look at my dashboard", Mode::Interactive);
    fx.see();
    let o = fx.on("click", "Blocked dashboard", &[]);
    assert_eq!(o.blocked.len(), 1, "{}", o.text());
    assert_ne!(o.status, Status::Refused, "{}", o.text());
    assert_eq!(fx.sim.widget(bar).value, "127.0.0.2:8000/dash", "the block page stays to say why");
    // Without a policy there is nothing to hold the browser to.
    let (mut fx, bar, _) = users_browser();
    fx.engine = Engine::new(fx.sim.desktop(), common::config());
    fx.turn("look at my dashboard", Mode::Interactive);
    fx.see();
    let o = fx.on("click", "Partner dashboard", &[]);
    assert_ne!(o.status, Status::Refused, "{}", o.text());
    assert_eq!(fx.sim.widget(bar).value, "127.0.0.2:8000/dash");
}

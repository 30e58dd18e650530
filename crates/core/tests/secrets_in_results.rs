//! A refusal never repeats the secret it refused: a URL's password is redacted wherever a result
//! names the URL (the summary, the refusal, the address typed into a browser, a command typed into a
//! terminal). Each case is refused — so the secret was seen — and its whole text is searched.

mod common;

use common::{config, Fx};
use handrail_core::{Engine, Mode, Outcome, Status};
use handrail_platform::{Rect, Size};
use handrail_sim::{SimDesktop, Widget, WindowSpec};

const SECRET: &str = "hunter2";

fn no_secret(o: &Outcome) {
    assert_eq!(o.status, Status::Refused, "{}", o.text());
    let text = o.text();
    assert!(!text.contains(SECRET), "the result repeats the password:\n{text}");
    assert!(!o.summary.contains(SECRET), "{}", o.summary);
    assert!(!o.message.as_deref().unwrap_or_default().contains(SECRET), "{:?}", o.message);
}

/// A browser on an allowed domain with its address bar, and a terminal beside it.
fn desk(mode: Mode) -> Fx {
    let sim = SimDesktop::new(Size::new(1280, 800));
    let browser = sim.add_window(WindowSpec::new("Chromium", "Home - Chromium").bounds(Rect::new(0, 0, 1280, 400)));
    sim.add_widget(
        browser,
        Widget::entry("Address and search bar")
            .attribute("class", "OmniboxViewViews")
            .value("127.0.0.1:8000/home")
            .at(80, 40, 900, 28),
    );
    let term =
        sim.add_window(WindowSpec::new("XTerm", "root@box: ~").class("XTerm").bounds(Rect::new(0, 420, 1280, 380)));
    sim.add_widget(
        term,
        Widget::terminal("Terminal", Vec::<String>::new()).at(10, 430, 1260, 360).ax_hidden().focused(),
    );
    let mut cfg = config();
    cfg.url_policy.allowed_domains = vec!["127.0.0.1".into()];
    let engine = Engine::new(sim.desktop(), cfg);
    let mut fx = Fx { sim, engine, win: browser };
    fx.turn("look at the dashboard", mode);
    fx.see();
    fx
}

#[test]
fn open_url_refusals_redact_the_password() {
    let mut fx = desk(Mode::Interactive);
    for url in [
        "http://admin:hunter2@127.0.0.1:8000/dash",
        "http://admin:hunter2@127.0.0.2:8000/dash",
        "admin:hunter2@127.0.0.1/dash",
        "ftp://admin:hunter2@127.0.0.1/",
        "HTTP://admin:hunter2@127.0.0.1/",
    ] {
        let o = fx.call(&[("action", "open_url"), ("url", url)]);
        no_secret(&o);
    }
}

#[test]
fn an_address_typed_into_the_browser_is_redacted_in_its_refusal() {
    let mut fx = desk(Mode::Interactive);
    let o = fx.on("type", "Address and search bar", &[("text", "http://admin:hunter2@127.0.0.2:8000/dash\n")]);
    no_secret(&o);
    let o = fx.on("type", "Address and search bar", &[("text", "admin:hunter2@127.0.0.1/dash\n")]);
    no_secret(&o);
}

#[test]
fn a_command_naming_a_url_with_a_password_is_redacted_in_its_refusal() {
    let mut fx = desk(Mode::Unattended);
    for line in ["curl http://admin:hunter2@127.0.0.2/x\n", "git clone https://bob:hunter2@127.0.0.2/repo.git\n"] {
        let o = fx.call(&[("action", "type"), ("text", line)]);
        no_secret(&o);
    }
}

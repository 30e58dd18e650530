//! Two monitors side by side on one simulated screen: the observation names them, every element says
//! which one it is on, and coordinates stay in one screenshot space (a click on the second monitor
//! reaches its widget, read back from the widget itself).

mod common;

use common::{config, Fx};
use handrail_core::{Engine, Mode, Source, Status};
use handrail_platform::{Monitor, Rect, Size};
use handrail_sim::{Reaction, SimDesktop, Widget, WidgetId, WindowSpec};

struct Desk {
    fx: Fx,
    status: WidgetId,
}

/// A 2560x800 screen split into "DP-1" (left, primary) and "HDMI-1" (right); a window on each. The
/// screenshot is downscaled to fit 1280x800, so a screenshot pixel is two screen pixels.
fn desk() -> Desk {
    let sim = SimDesktop::new(Size::new(2560, 800));
    sim.set_monitors(vec![
        Monitor { name: "HDMI-1".into(), bounds: Rect::new(1280, 0, 1280, 800), primary: false },
        Monitor { name: "DP-1".into(), bounds: Rect::new(0, 0, 1280, 800), primary: true },
    ]);
    let left = sim.add_window(WindowSpec::new("Notes", "Notes").bounds(Rect::new(100, 100, 800, 500)));
    sim.add_widget(left, Widget::button("Save").at(140, 400, 120, 40));
    let right = sim.add_window(WindowSpec::new("Forms", "Account - Forms").bounds(Rect::new(1500, 100, 800, 500)));
    let status = sim.add_widget(right, Widget::text("Ready").at(1540, 300, 200, 30));
    sim.add_widget(
        right,
        Widget::button("Save form").at(1540, 400, 160, 40).on_click(Reaction::set_label(status, "Saved")),
    );
    let engine = Engine::new(sim.desktop(), config());
    let mut fx = Fx { sim, engine, win: right };
    fx.turn("save the form", Mode::Interactive);
    Desk { fx, status }
}

#[test]
fn the_observation_names_the_monitors_and_where_each_element_is() {
    let mut d = desk();
    let o = d.fx.see();
    let text = o.text();
    let obs = o.observation.clone().expect("an observation");
    assert_eq!((obs.screen, obs.image_size), (Size::new(2560, 800), Size::new(1280, 400)));
    let monitors: Vec<(String, Rect, bool)> = obs.monitors.iter().map(|m| (m.tag(), m.bounds, m.primary)).collect();
    assert_eq!(
        monitors,
        [("m1".to_string(), Rect::new(0, 0, 640, 400), true), ("m2".to_string(), Rect::new(640, 0, 640, 400), false)],
        "left to right, in screenshot coordinates"
    );
    assert!(text.contains(" monitors=2"), "{text}");
    assert!(text.contains("m1 monitor \"DP-1\" @ 0,0 640x400 primary\n"), "{text}");
    assert!(text.contains("m2 monitor \"HDMI-1\" @ 640,0 640x400\n"), "{text}");
    for (label, tag) in
        [("Save", "m1"), ("Save form", "m2"), ("Ready", "m2"), ("Notes", "m1"), ("Account - Forms", "m2")]
    {
        let e = obs.elements.iter().find(|e| e.label == label).unwrap_or_else(|| panic!("{label} in:\n{text}"));
        assert_eq!(obs.monitor_of(e).map(|m| m.tag()).as_deref(), Some(tag), "{label}");
        let line = text.lines().find(|l| l.starts_with(&format!("{} ", e.id))).expect("its line");
        assert!(line.ends_with(&format!(" {tag}")), "{line}");
    }
    let window = obs.elements.iter().find(|e| e.source == Source::Window && e.label == "Account - Forms");
    assert!(window.is_some_and(|w| w.bounds.x >= 640), "{text}");
}

#[test]
fn a_click_on_the_second_monitor_reaches_its_target() {
    let mut d = desk();
    d.fx.see();
    let o = d.fx.on("click", "Save form", &[]);
    assert_eq!(o.status, Status::Ok, "{}", o.text());
    assert_eq!(d.fx.sim.widget(d.status).label, "Saved", "the right window's status says the click arrived");
}

#[test]
fn one_monitor_adds_nothing_to_the_text() {
    let sim = SimDesktop::new(Size::new(1280, 800));
    let win = sim.add_window(WindowSpec::new("Notes", "Notes").bounds(Rect::new(100, 100, 800, 500)));
    sim.add_widget(win, Widget::button("Save").at(140, 400, 120, 40));
    let mut fx = Fx { engine: Engine::new(sim.desktop(), config()), sim, win };
    fx.turn("look", Mode::Interactive);
    let o = fx.see();
    let text = o.text();
    assert!(!text.contains("monitor"), "{text}");
    let obs = o.observation.expect("an observation");
    assert_eq!(obs.monitors.len(), 1);
    assert_eq!(obs.monitors[0].bounds, Rect::new(0, 0, 1280, 800));
}

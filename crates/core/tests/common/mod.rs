//! Shared fixtures for engine tests on the simulated desktop.
#![allow(dead_code)]

use std::time::Duration;

use handrail_core::{Config, Engine, Markers, Mode, Outcome, RawArgs, Turn, Vision};
use handrail_platform::{Rect, Size};
use handrail_sim::{Reaction, SimDesktop, Widget, WidgetId, WindowId, WindowSpec};

/// Builds raw arguments from name/value pairs.
pub fn args(pairs: &[(&str, &str)]) -> RawArgs {
    RawArgs::from_pairs(pairs).unwrap_or_else(|e| panic!("bad test arguments: {e}"))
}

pub struct Fx {
    pub sim: SimDesktop,
    pub engine: Engine,
    pub win: WindowId,
}

pub struct Ids {
    pub name: WidgetId,
    pub password: WidgetId,
    pub save: WidgetId,
    pub status: WidgetId,
    pub delete: WidgetId,
    pub nothing: WidgetId,
    pub agree: WidgetId,
}

/// Seeded markers: the engine tests compare whole results run after run.
pub fn config() -> Config {
    Config { vision: Vision::Capable, markers: Markers::Seeded(0x5eed), ..Config::default() }
}

impl Fx {
    /// An empty desktop with one window.
    pub fn empty() -> Fx {
        let sim = SimDesktop::new(Size::new(1280, 800));
        let win = sim.add_window(WindowSpec::new("Forms", "Account - Forms").bounds(Rect::new(100, 80, 900, 600)));
        let engine = Engine::new(sim.desktop(), config());
        Fx { sim, engine, win }
    }

    /// A form: name entry, password entry, Save (reacts after 300 ms), Delete account, a button that
    /// does nothing, a checkbox.
    pub fn form() -> (Fx, Ids) {
        let fx = Fx::empty();
        let w = fx.win;
        let s = &fx.sim;
        let status = s.add_widget(w, Widget::text("Ready").at(130, 600, 200, 20));
        let ids = Ids {
            name: s.add_widget(w, Widget::entry("Name").at(130, 140, 300, 28)),
            password: s.add_widget(w, Widget::password("Password").at(130, 190, 300, 28)),
            save: s.add_widget(
                w,
                Widget::button("Save")
                    .at(130, 500, 90, 30)
                    .on_click(Reaction::set_label(status, "Saved").after(Duration::from_millis(300))),
            ),
            delete: s.add_widget(
                w,
                Widget::button("Delete account")
                    .at(240, 500, 160, 30)
                    .on_click(Reaction::set_label(status, "Account deleted")),
            ),
            nothing: s.add_widget(w, Widget::button("Does nothing").at(420, 500, 140, 30)),
            agree: s.add_widget(w, Widget::checkbox("I agree").at(130, 240, 200, 24)),
            status,
        };
        (fx, ids)
    }

    pub fn turn(&mut self, intent: &str, mode: Mode) {
        self.engine.begin_turn(Turn { id: "t".into(), intent: intent.into(), mode });
    }

    pub fn call(&mut self, pairs: &[(&str, &str)]) -> Outcome {
        self.engine.call_args(&args(pairs))
    }

    pub fn see(&mut self) -> Outcome {
        let o = self.call(&[("action", "see")]);
        assert_eq!(o.status.as_str(), "ok", "{}", o.text());
        o
    }

    pub fn latest(&self) -> String {
        self.engine.latest().map(|o| o.id.to_string()).expect("an observation")
    }

    /// The element id (in the latest observation) labelled `label`.
    pub fn id(&self, label: &str) -> String {
        let obs = self.engine.latest().expect("an observation");
        obs.elements
            .iter()
            .find(|e| e.label == label && e.source.has_ax())
            .or_else(|| obs.elements.iter().find(|e| e.label == label))
            .map(|e| e.id.to_string())
            .unwrap_or_else(|| panic!("no element labelled {label:?} in {}", obs.id))
    }

    /// The element id (in the latest observation) of the window titled `title`.
    pub fn window_id(&self, title: &str) -> String {
        let obs = self.engine.latest().expect("an observation");
        obs.elements
            .iter()
            .find(|e| e.label == title && e.source == handrail_core::Source::Window)
            .map(|e| e.id.to_string())
            .unwrap_or_else(|| panic!("no window titled {title:?} in {}", obs.id))
    }

    /// Runs an action on the window titled `title` in the latest observation.
    pub fn on_window(&mut self, action: &str, title: &str) -> Outcome {
        let (obs, id) = (self.latest(), self.window_id(title));
        self.call(&[("action", action), ("observation_id", &obs), ("element_id", &id)])
    }

    /// Runs an action on the element labelled `label` of the latest observation.
    pub fn on(&mut self, action: &str, label: &str, extra: &[(&str, &str)]) -> Outcome {
        let (obs, id) = (self.latest(), self.id(label));
        let mut pairs: Vec<(&str, &str)> = vec![("action", action), ("observation_id", &obs), ("element_id", &id)];
        pairs.extend_from_slice(extra);
        self.call(&pairs)
    }
}

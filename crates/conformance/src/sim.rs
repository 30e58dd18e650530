//! The simulated desktop as a conformance backend: the probe is the same window built from simulated
//! widgets, and what it "received" is read back from the simulated world's state.

use std::cell::RefCell;
use std::time::Duration;

use handrail_platform::{Desktop, Rect, Size};
use handrail_sim::{Reaction, SimDesktop, Widget, WindowSpec};

use crate::{Harness, Probe};

const SCREEN: (u32, u32) = (1280, 800);

/// The keys the key check presses, with the line the GTK probe prints for each.
const KEY_LINES: &[(&str, &str)] = &[
    ("ctrl+shift+k", "key k ctrl+shift"),
    ("alt+x", "key x alt"),
    ("f5", "key F5 -"),
    ("shift+tab", "key ISO_Left_Tab shift"),
    ("escape", "key Escape -"),
    ("ctrl+return", "key Return ctrl"),
    ("ก", "key Thai_kokai -"),
    ("f6", "key F6 -"),
];

pub struct SimHarness {
    sim: SimDesktop,
    desktop: Desktop,
    opened: RefCell<usize>,
}

/// A fresh simulated desktop.
pub fn harness() -> SimHarness {
    let sim = SimDesktop::new(Size::new(SCREEN.0, SCREEN.1));
    let desktop = sim.desktop();
    SimHarness { sim, desktop, opened: RefCell::new(0) }
}

/// The probe's layout, offset per window so windows do not sit exactly on each other.
fn probe_spec(title: &str, n: usize) -> (WindowSpec, Vec<(&'static str, Rect)>) {
    let (ox, oy) = (40 + 30 * n as i32, 40 + 30 * n as i32);
    let at = |x: i32, y: i32, w: u32, h: u32| Rect::new(ox + x, oy + y, w, h);
    let layout = vec![
        ("Change", at(16, 40, 120, 34)),
        ("Later", at(150, 40, 120, 34)),
        ("Name", at(150, 90, 400, 34)),
        ("Card", at(16, 140, 120, 34)),
        ("Drop here", at(150, 140, 400, 34)),
        ("List", at(16, 190, 534, 240)),
    ];
    let k = |what: &str| format!("{title}/{what}");
    let mut spec = WindowSpec::new("conformance", title)
        .at(ox, oy, 600, 460)
        .widget(
            Widget::button("Change")
                .bounds(layout[0].1)
                .on_click(Reaction::set_label(k("clicks").as_str(), "clicked Change")),
        )
        .widget(Widget::button("Later").key(k("later")).bounds(layout[1].1))
        .widget(Widget::entry("Name").key(k("name")).bounds(layout[2].1))
        .widget(Widget::button("Card").bounds(layout[3].1).draggable())
        .widget(
            Widget::button("Drop here")
                .bounds(layout[4].1)
                .on_drop(Reaction::set_label(k("dropped").as_str(), "dropped")),
        )
        .widget(Widget::list("List", (0..200).map(|i| format!("Row {i}"))).key(k("list")).bounds(layout[5].1))
        .widget(Widget::text("").key(k("clicks")).at(ox + 300, oy + 440, 10, 10).ocr_hidden())
        .widget(Widget::text("").key(k("dropped")).at(ox + 320, oy + 440, 10, 10).ocr_hidden())
        .widget(Widget::text("").key(k("keylog")).at(ox + 340, oy + 440, 10, 10).ocr_hidden())
        .on_key("f9", Reaction::set_label(k("later").as_str(), "Done later").after(Duration::from_millis(300)));
    for (combo, line) in KEY_LINES {
        spec = spec.on_key(combo, Reaction::set_label(k("keylog").as_str(), *line));
    }
    (spec, layout)
}

impl Harness for SimHarness {
    fn name(&self) -> &'static str {
        "sim"
    }

    fn desktop(&self) -> &Desktop {
        &self.desktop
    }

    fn expected_screen(&self) -> (u32, u32) {
        SCREEN
    }

    fn open_probe(&self, title: &str) -> Box<dyn Probe + '_> {
        let n = {
            let mut opened = self.opened.borrow_mut();
            *opened += 1;
            *opened
        };
        let (spec, layout) = probe_spec(title, n);
        self.sim.add_window(spec);
        Box::new(SimProbe { sim: &self.sim, title: title.to_owned(), layout, seen: Seen::default() })
    }
}

#[derive(Default)]
struct Seen {
    clicks: String,
    name: String,
    later: String,
    dropped: String,
    keylog: String,
    offset: usize,
    queued: Vec<String>,
    /// Everything queued since the probe opened.
    all: Vec<String>,
}

struct SimProbe<'a> {
    sim: &'a SimDesktop,
    title: String,
    layout: Vec<(&'static str, Rect)>,
    seen: Seen,
}

impl SimProbe<'_> {
    fn label(&self, what: &str) -> String {
        self.sim
            .find(&format!("{}/{what}", self.title))
            .map(|id| self.sim.widget(id))
            .map(|w| w.label)
            .unwrap_or_default()
    }

    /// Turns what changed in the world since the last look into the GTK probe's event lines.
    fn look(&mut self) {
        let before = self.seen.queued.len();
        self.look_changes();
        let new = self.seen.queued[before..].to_vec();
        self.seen.all.extend(new);
    }

    fn look_changes(&mut self) {
        let clicks = self.label("clicks");
        if clicks != self.seen.clicks && !clicks.is_empty() {
            self.seen.queued.push(clicks.clone());
            // Back to empty, so a second click is a second event.
            if let Some(id) = self.sim.find(&format!("{}/clicks", self.title)) {
                self.sim.set_label(id, "");
            }
        }
        self.seen.clicks = String::new();
        let name =
            self.sim.find(&format!("{}/name", self.title)).map(|id| self.sim.widget(id).value).unwrap_or_default();
        if name != self.seen.name {
            self.seen.queued.push(format!("name={name}"));
            self.seen.name = name;
        }
        for (what, line) in [("later", "late-done"), ("dropped", "dropped")] {
            let now = self.label(what);
            let before = if what == "later" { &mut self.seen.later } else { &mut self.seen.dropped };
            if now != *before {
                if now == "Done later" || now == "dropped" {
                    self.seen.queued.push(line.to_owned());
                }
                *before = now;
            }
        }
        let keylog = self.label("keylog");
        if !keylog.is_empty() {
            self.seen.queued.push(keylog.clone());
            if let Some(id) = self.sim.find(&format!("{}/keylog", self.title)) {
                self.sim.set_label(id, "");
            }
        }
        self.seen.keylog = String::new();
        let offset = self.sim.find(&format!("{}/list", self.title)).map(|id| self.sim.widget(id).offset).unwrap_or(0);
        if offset != self.seen.offset {
            self.seen.queued.push(format!("scroll={}", offset * 24));
            self.seen.offset = offset;
        }
    }
}

impl Probe for SimProbe<'_> {
    fn bounds(&self, widget: &str) -> Rect {
        self.layout.iter().find(|(n, _)| *n == widget).map(|(_, r)| *r).unwrap_or_default()
    }

    fn expect(&mut self, within: Duration, want: &dyn Fn(&str) -> bool) -> Option<String> {
        let step = Duration::from_millis(10);
        let mut waited = Duration::ZERO;
        loop {
            self.look();
            if let Some(i) = self.seen.queued.iter().position(|l| want(l)) {
                let line = self.seen.queued.remove(i);
                self.seen.queued.drain(..i);
                return Some(line);
            }
            self.seen.queued.clear();
            if waited >= within {
                return None;
            }
            // Virtual time: waiting costs nothing.
            self.sim.advance(step);
            waited += step;
        }
    }

    fn drain(&mut self) -> Vec<String> {
        self.look();
        std::mem::take(&mut self.seen.queued)
    }

    fn said(&mut self) -> Vec<String> {
        self.look();
        self.seen.all.clone()
    }

    fn title(&self) -> &str {
        &self.title
    }
}

//! One bounded walk of the accessibility tree, with many calls in flight.
//!
//! The walk is a state machine over replies: the registry's applications → each application's windows →
//! each node's fields (phase A: role, states, name, description, children, interfaces, extents,
//! attributes) → for accepted nodes, their actions / text / value / a combo box's selected item (phase B)
//! and their children's phase A.
//! Children are probed first (states only; in tables states and extents); the other calls go only to
//! those shown.
//! Calls to one application are pipelined (up to [`MAX_IN_FLIGHT`]), applications run in parallel, so
//! the wall time is about the busiest application's own work, not the sum of round trips.
//!
//! Bounds: an application that makes no progress for `call_timeout` while it has calls outstanding is
//! given up (the snapshot is `Partial`); the whole walk stops at its deadline; at most `max_nodes` nodes
//! are accepted.
//!
//! Windows that the event cache says are unchanged are not walked: two calls (states, extents) confirm
//! they are still shown where they were, and their cached nodes are reused (shifted if the window moved).

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use handrail_platform::{AxHealth, AxLimits, AxNode, AxSnapshot, Rect, Role, States};

use crate::cache::{self, Cache, CachedWindow, Dirty, ObjRef, Plan, Reach};
use crate::roles::{self, bit, AtspiStates};
use crate::toolkit::{self, Toolkit};
use handrail_dbus::wire::{Arg, Call, Message, Value, FLAG_NO_AUTO_START};
use handrail_dbus::{self as dbus, Bus, Recv};

pub const ACCESSIBLE: &str = "org.a11y.atspi.Accessible";
const APPLICATION: &str = "org.a11y.atspi.Application";
const PROPERTIES: &str = "org.freedesktop.DBus.Properties";
const COMPONENT: &str = "org.a11y.atspi.Component";
const ACTION: &str = "org.a11y.atspi.Action";
const TEXT: &str = "org.a11y.atspi.Text";
const VALUE: &str = "org.a11y.atspi.Value";
const SELECTION: &str = "org.a11y.atspi.Selection";
pub const REGISTRY: &str = "org.a11y.atspi.Registry";
pub const ROOT_PATH: &str = "/org/a11y/atspi/accessible/root";

/// Calls outstanding per application at once: enough to keep it busy, few enough that an abandoned
/// walk leaves little queued work behind.
const MAX_IN_FLIGHT: usize = 128;
/// Characters of text read for a value or a text node's label.
const MAX_TEXT_CHARS: usize = 1000;
const MAX_ATTRIBUTES: usize = 24;
const MAX_ATTRIBUTE_CHARS: usize = 200;
/// `Component.GetExtents` coordinate types: screen, and window (what GTK 4 answers either way; asked
/// for screen coordinates, it logs a warning on every call).
const COORD_SCREEN: u32 = 0;
const COORD_WINDOW: u32 = 1;

/// Numbers about one snapshot, for logs and benchmarks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WalkStats {
    pub elapsed: Duration,
    pub health: AxHealth,
    pub nodes: usize,
    /// D-Bus calls sent.
    pub calls: usize,
    pub apps: usize,
    /// Applications given up on (no progress within `call_timeout`, or still busy at the deadline).
    pub apps_timed_out: usize,
    pub windows_walked: usize,
    /// Windows whose cached nodes were reused.
    pub windows_reused: usize,
    /// Of those, windows with nodes or subtrees read again (events named them).
    pub windows_patched: usize,
    /// Nodes and subtrees read again in reused windows.
    pub parts_read: usize,
    /// True when the node cap cut the tree.
    pub truncated: bool,
    /// True when this snapshot (re)connected to the bus.
    pub connected: bool,
}

impl Default for WalkStats {
    fn default() -> Self {
        Self {
            elapsed: Duration::ZERO,
            health: AxHealth::Unavailable,
            nodes: 0,
            calls: 0,
            apps: 0,
            apps_timed_out: 0,
            windows_walked: 0,
            windows_reused: 0,
            windows_patched: 0,
            parts_read: 0,
            truncated: false,
            connected: false,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FieldA {
    Role,
    State,
    Name,
    Description,
    Children,
    Interfaces,
    Extents,
    Attributes,
    /// How many children it says it has (`ChildCount`), asked before its children are: a spreadsheet's
    /// table says 2,147,483,647, and asking for those hangs the application.
    ChildCount,
}

/// What is asked of a node before the rest of phase A.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Probe {
    /// Everything at once: windows, where nearly every node is shown.
    Nothing,
    /// Its states (most hidden nodes say so: inactive views, collapsed menus) and its child count.
    States,
    /// Its states and extents: rows of tables. GTK 3 reports rows scrolled out of view as
    /// SHOWING and VISIBLE; only their extents (`G_MININT`) say they are not on screen, so probing
    /// the states alone fetched all eight fields of every row of a long list.
    StatesAndExtents,
}

impl Probe {
    fn fields(self) -> &'static [FieldA] {
        match self {
            Probe::Nothing => &PHASE_A,
            Probe::States => &[FieldA::State, FieldA::ChildCount],
            // Rows of tables (and GTK 4's nodes, whose lists only hold the rows they draw): most are
            // scrolled away, and a third call for each would cost a long list half as much again.
            Probe::StatesAndExtents => &[FieldA::State, FieldA::Extents],
        }
    }
}

const PHASE_A: [FieldA; 8] = [
    FieldA::Role,
    FieldA::State,
    FieldA::Name,
    FieldA::Description,
    FieldA::Children,
    FieldA::Interfaces,
    FieldA::Extents,
    FieldA::Attributes,
];

#[derive(Debug, Clone, Copy)]
enum FieldB {
    Actions,
    Text,
    /// A terminal's text: its newest lines are at the end, so the end is kept.
    TerminalText,
    Value,
    /// A combo box's selected child (`Selection.GetSelectedChild(0)`): what it shows.
    Selected,
    /// The same asked of the combo box's popup (its first child), where the combo itself has no
    /// selection (Chromium's `<select>`: the options sit in a hidden menu).
    PopupSelected,
    /// That child's name, asked once the child is known.
    SelectedName,
}

#[derive(Debug, Clone, Copy)]
enum Purpose {
    Apps,
    AppName(usize),
    AppToolkit(usize),
    AppWindows(usize),
    WinState(usize),
    WinExtents(usize),
    A(usize, FieldA),
    B(usize, FieldB),
    /// The parent of an object the cache does not know (index into `tracing`).
    Parent(usize),
    /// Where a cached node of window `.0` is now (index into its `moved_paths`).
    NodeExtents(usize, usize),
    /// Its states now (a toolkit may change some without an event: GTK 3's `default`).
    NodeStates(usize, usize),
    /// The attributes of a child kept by a `Children` part of window `.0` (index into `kept_paths`):
    /// its place among its siblings (`posinset`, `setsize`) changes with them, without an event.
    KeptAttributes(usize, usize),
    /// The states of a node of window `.0` left out as not shown (index into `hidden_paths`).
    HiddenStates(usize, usize),
    /// Its extents (what some toolkits say of not being shown).
    HiddenExtents(usize, usize),
}

struct Queued {
    path: Arc<str>,
    interface: &'static str,
    member: &'static str,
    args: Vec<Arg>,
    purpose: Purpose,
}

/// A destination (application connection, or the registry) with its own queue and liveness.
struct Dest {
    name: Arc<str>,
    queue: VecDeque<Queued>,
    in_flight: usize,
    last_progress: Instant,
    failed: bool,
}

struct App {
    bus: Arc<str>,
    name: String,
    /// The toolkit the app says it is built with (`ToolkitName`: "GAIL" for GTK 2), once answered.
    toolkit: Option<String>,
    /// Index in the registry's list, for output order.
    order: usize,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Mode {
    /// Cached and not invalidated: waiting for the state/extents check.
    Check,
    Walk,
    Reuse {
        dx: i32,
        dy: i32,
    },
    Dropped,
}

struct Win {
    obj: ObjRef,
    app: usize,
    order: (usize, usize),
    mode: Mode,
    active: bool,
    check_state: Option<Option<AtspiStates>>,
    check_extents: Option<Option<Rect>>,
    root: Option<usize>,
    /// How its nodes' answers are read, known once the window node itself is in.
    toolkit: Toolkit,
    /// Nodes of this window still being fetched (pending phase A, or accepted with phase B open).
    outstanding: usize,
    truncated: bool,
    /// Containers of this window whose children were not read, said why (see `AxSnapshot::notes`).
    unread: Vec<String>,
    /// Nodes or subtrees of a cached window read again, spliced into it when it is reused.
    parts: Vec<Part>,
    /// With parts: every cached node's extents asked again (paths, and the answers by path), since a
    /// change can move what follows it without an event (a web page's layout).
    moved_paths: Vec<Arc<str>>,
    moved: HashMap<Arc<str>, Option<Extents>>,
    restated: HashMap<Arc<str>, Option<AtspiStates>>,
    /// Children kept by `Children` parts, and their attributes read again.
    kept_paths: Vec<Arc<str>>,
    kept_attributes: HashMap<Arc<str>, Vec<(String, String)>>,
    /// Nodes this walk left out as not shown (see `CachedWindow::hidden`).
    hidden: Vec<Arc<str>>,
    /// With parts: the cached window's hidden nodes asked again, and their answers so far (states,
    /// extents) by index.
    hidden_paths: Vec<Arc<str>>,
    hidden_answers: HashMap<usize, HiddenAnswer>,
}

/// What a hidden node answered when asked again: its states, then (only if they say it is shown) its
/// extents. The outer `None`: not answered yet; the inner: answered with nothing (gone, or not asked).
type HiddenAnswer = (Option<Option<AtspiStates>>, Option<Option<Extents>>);

/// `x, y, width, height` as a toolkit answers them.
type Extents = (i32, i32, i32, i32);

/// A node or subtree of a cached window read again.
struct Part {
    path: Arc<str>,
    reach: Reach,
    /// Its node, once accepted (`None`: gone or not shown).
    root: Option<usize>,
    /// With reach `Children`: the children it had before, kept with their cached subtrees (their
    /// places among the new children, and their paths).
    kept: Vec<(usize, Arc<str>)>,
}

/// An object the cache does not know, followed up its parents to one it does.
struct Tracing {
    bus: Arc<str>,
    hops: u8,
}

/// Parents followed from an unknown object before its whole application is walked instead.
const MAX_HOPS: u8 = 3;
/// Unknown objects traced at most per snapshot, and per application; beyond, their applications are
/// walked.
const MAX_TRACED: usize = 64;
const MAX_TRACED_PER_APP: usize = 16;

#[derive(Default)]
struct NodeData {
    role: Option<String>,
    states: Option<AtspiStates>,
    name: String,
    description: String,
    children: Vec<ObjRef>,
    interfaces: Vec<String>,
    extents: Option<(i32, i32, i32, i32)>,
    attributes: Vec<(String, String)>,
    child_count: Option<i32>,
}

impl NodeData {
    /// On screen as far as the fields fetched so far tell, read as `toolkit` means them: its states
    /// say it is drawn, and its extents (when known) are not the toolkit's "not on screen" ones.
    fn shown(&self, toolkit: Toolkit) -> bool {
        toolkit.drawn(self.states, self.extents)
            || (self.role.as_deref() == Some("page tab") && toolkit.pages_placed_at_their_tab())
    }
}

struct Pending {
    obj: ObjRef,
    win: usize,
    parent: Option<usize>,
    slot: usize,
    remaining: u8,
    /// The probe's fields are asked so far; the rest of phase A follows if it shows the node on screen.
    probing: Option<Probe>,
    data: NodeData,
    /// The part of its window this node is the root of, when it is read again into a cached window.
    part: Option<usize>,
    /// Its children are asked once its child count is in and says there are some, not too many.
    children_after_count: bool,
}

struct Accepted {
    path: Arc<str>,
    win: usize,
    slot: usize,
    children: Vec<usize>,
    remaining: u8,
    /// A combo box's first child, its popup, asked for the selection where the combo has none.
    popup: Option<ObjRef>,
    node: AxNode,
}

/// The result of a walk, before it is merged into the cache.
pub struct WalkResult {
    pub snapshot: AxSnapshot,
    pub stats: WalkStats,
    /// Windows to cache (complete walks and reused ones), keyed by window object.
    pub fresh: Vec<(ObjRef, CachedWindow)>,
    /// Application names learned.
    pub app_names: Vec<(Arc<str>, String)>,
    /// The connection failed during the walk.
    pub connection_lost: bool,
}

struct Walker<'a> {
    bus: &'a mut Bus,
    limits: AxLimits,
    deadline: Instant,
    cache: &'a Cache,
    plan: Plan,
    tracing: Vec<Tracing>,
    late: &'a Mutex<Dirty>,
    own_name: String,
    dests: Vec<Dest>,
    dest_of: HashMap<Arc<str>, usize>,
    in_flight: HashMap<u32, (usize, Purpose)>,
    apps: Vec<App>,
    wins: Vec<Win>,
    pending: Vec<Option<Pending>>,
    nodes: Vec<Accepted>,
    calls: usize,
    truncated: bool,
    registry_failed: bool,
    connection_lost: bool,
}

/// Walks the tree on `bus`; never runs past `deadline`.
pub fn walk(
    bus: &mut Bus,
    limits: &AxLimits,
    deadline: Instant,
    cache: &Cache,
    plan: Plan,
    late: &Mutex<Dirty>,
) -> WalkResult {
    let own_name = bus.unique_name().to_owned();
    let mut w = Walker {
        bus,
        limits: *limits,
        deadline,
        cache,
        plan,
        tracing: Vec::new(),
        late,
        own_name,
        dests: Vec::new(),
        dest_of: HashMap::new(),
        in_flight: HashMap::new(),
        apps: Vec::new(),
        wins: Vec::new(),
        pending: Vec::new(),
        nodes: Vec::new(),
        calls: 0,
        truncated: false,
        registry_failed: false,
        connection_lost: false,
    };
    w.trace_unknown();
    let registry: Arc<str> = Arc::from(REGISTRY);
    w.enqueue(&registry, Arc::from(ROOT_PATH), ACCESSIBLE, "GetChildren", vec![], Purpose::Apps);
    w.run();
    w.finish()
}

impl Walker<'_> {
    /// Follows each object the cache does not know up its parents to one it does, whose subtree is
    /// then read again; where that fails, its application is walked whole. Runs before the walk: the
    /// plan decides how each window is read.
    fn trace_unknown(&mut self) {
        let unknown = std::mem::take(&mut self.plan.unknown);
        // Only where there is a cached window to read parts of; and an application with many unknown
        // objects (one that just drew a new view) is walked at once, cheaper than tracing each.
        let mut per_app: HashMap<Arc<str>, usize> = HashMap::new();
        for o in &unknown {
            *per_app.entry(o.bus.clone()).or_default() += 1;
        }
        for (i, o) in unknown.into_iter().enumerate() {
            if !self.cache.windows.keys().any(|w| w.bus == o.bus) {
                continue;
            }
            if i >= MAX_TRACED || per_app.get(&o.bus).is_some_and(|&n| n > MAX_TRACED_PER_APP) {
                self.plan.walk_app(&o.bus, self.cache);
                continue;
            }
            let k = self.tracing.len();
            self.tracing.push(Tracing { bus: o.bus.clone(), hops: 0 });
            self.get_property(&o, ACCESSIBLE, "Parent", Purpose::Parent(k));
        }
        if self.tracing.is_empty() {
            return;
        }
        self.run();
        // Calls still unanswered at the deadline leave their applications to be walked (there is no
        // time left for that either: the snapshot will be partial).
        let unanswered: Vec<Arc<str>> = self
            .in_flight
            .values()
            .filter_map(|(_, p)| match p {
                Purpose::Parent(k) => Some(self.tracing[*k].bus.clone()),
                _ => None,
            })
            .collect();
        for bus in unanswered {
            self.plan.walk_app(&bus, self.cache);
        }
        self.plan.settle();
    }

    fn on_parent(&mut self, k: usize, v: Option<Value>) {
        let parent = v.as_ref().and_then(obj_ref);
        match parent {
            Some(p) => match self.cache.window_of(&p).cloned() {
                Some(win) if win.path == p.path => {
                    self.plan.walk.insert(win);
                }
                Some(win) => self.plan.parts.entry(win).or_default().push((p.path.clone(), Reach::Subtree)),
                None if self.tracing[k].hops < MAX_HOPS => {
                    self.tracing[k].hops += 1;
                    self.get_property(&p, ACCESSIBLE, "Parent", Purpose::Parent(k));
                }
                None => {
                    let bus = self.tracing[k].bus.clone();
                    self.plan.walk_app(&bus, self.cache);
                }
            },
            // Gone, or a root: whatever changed around it cannot be placed.
            None => {
                let bus = self.tracing[k].bus.clone();
                self.plan.walk_app(&bus, self.cache);
            }
        }
    }

    fn dest(&mut self, name: &Arc<str>) -> usize {
        if let Some(&i) = self.dest_of.get(name) {
            return i;
        }
        self.dests.push(Dest {
            name: name.clone(),
            queue: VecDeque::new(),
            in_flight: 0,
            last_progress: Instant::now(),
            failed: false,
        });
        self.dest_of.insert(name.clone(), self.dests.len() - 1);
        self.dests.len() - 1
    }

    fn enqueue(
        &mut self,
        dest: &Arc<str>,
        path: Arc<str>,
        interface: &'static str,
        member: &'static str,
        args: Vec<Arg>,
        purpose: Purpose,
    ) {
        let d = self.dest(dest);
        if self.dests[d].failed {
            self.fail_purpose(purpose);
            return;
        }
        self.dests[d].queue.push_back(Queued { path, interface, member, args, purpose });
    }

    fn get_property(&mut self, obj: &ObjRef, interface: &str, property: &str, purpose: Purpose) {
        let args = vec![Arg::Str(interface.to_owned()), Arg::Str(property.to_owned())];
        self.enqueue(&obj.bus, obj.path.clone(), PROPERTIES, "Get", args, purpose);
    }

    /// Sends queued calls within each destination's in-flight window.
    fn pump(&mut self) {
        let now = Instant::now();
        for d in 0..self.dests.len() {
            while self.dests[d].in_flight < MAX_IN_FLIGHT {
                let Some(q) = self.dests[d].queue.pop_front() else { break };
                let flags = if d == 0 { 0 } else { FLAG_NO_AUTO_START };
                let call = Call {
                    destination: &self.dests[d].name,
                    path: &q.path,
                    interface: q.interface,
                    member: q.member,
                    args: &q.args,
                    flags,
                };
                match self.bus.queue(&call) {
                    Ok(serial) => {
                        if self.dests[d].in_flight == 0 {
                            // Liveness counts from when it had something to answer.
                            self.dests[d].last_progress = now;
                        }
                        self.dests[d].in_flight += 1;
                        self.in_flight.insert(serial, (d, q.purpose));
                        self.calls += 1;
                    }
                    Err(e) => {
                        log::debug!("cannot encode call {}.{}: {e}", q.interface, q.member);
                        self.fail_purpose(q.purpose);
                    }
                }
            }
        }
        if let Err(e) = self.bus.flush() {
            log::info!("a11y bus write failed: {e}");
            self.connection_lost = true;
        }
    }

    fn run(&mut self) {
        loop {
            self.pump();
            if self.connection_lost || self.in_flight.is_empty() {
                return;
            }
            let now = Instant::now();
            if now >= self.deadline {
                return;
            }
            // Wake for the deadline or the earliest liveness expiry.
            let mut wake = self.deadline;
            for d in self.dests.iter().filter(|d| d.in_flight > 0 && !d.failed) {
                wake = wake.min(d.last_progress + self.limits.call_timeout);
            }
            match self.bus.recv(wake.saturating_duration_since(now)) {
                Recv::Message(m) => {
                    self.on_message(*m);
                    // Handle everything already here before writing again.
                    while let Recv::Message(m) = self.bus.recv(Duration::ZERO) {
                        self.on_message(*m);
                    }
                    // Busy answering apps must not delay noticing a silent one.
                    self.expire();
                }
                Recv::Timeout => self.expire(),
                Recv::Closed => {
                    self.connection_lost = true;
                    return;
                }
            }
        }
    }

    /// Gives up on destinations that made no progress for `call_timeout`.
    fn expire(&mut self) {
        let now = Instant::now();
        let stale: Vec<usize> = (0..self.dests.len())
            .filter(|&d| {
                let x = &self.dests[d];
                x.in_flight > 0 && !x.failed && now.duration_since(x.last_progress) >= self.limits.call_timeout
            })
            .collect();
        for d in stale {
            self.fail_dest(d);
        }
    }

    fn fail_dest(&mut self, d: usize) {
        log::info!("a11y: {} did not answer within {:?}; skipping it", self.dests[d].name, self.limits.call_timeout);
        self.dests[d].failed = true;
        if d == 0 {
            self.registry_failed = true;
        }
        let serials: Vec<u32> = self.in_flight.iter().filter(|(_, (x, _))| *x == d).map(|(s, _)| *s).collect();
        let mut purposes: Vec<Purpose> =
            serials.iter().filter_map(|s| self.in_flight.remove(s)).map(|(_, p)| p).collect();
        purposes.extend(self.dests[d].queue.drain(..).map(|q| q.purpose));
        self.dests[d].in_flight = 0;
        for p in purposes {
            self.fail_purpose(p);
        }
    }

    /// A call that will never be answered: keep the bookkeeping consistent.
    fn fail_purpose(&mut self, p: Purpose) {
        match p {
            Purpose::Apps => self.registry_failed = true,
            Purpose::AppName(_) | Purpose::AppToolkit(_) | Purpose::AppWindows(_) => {}
            Purpose::WinState(w) | Purpose::WinExtents(w) => self.wins[w].mode = Mode::Dropped,
            Purpose::A(p, _) => {
                if let Some(pend) = self.pending[p].take() {
                    self.wins[pend.win].outstanding -= 1;
                    self.wins[pend.win].truncated = true; // incomplete: never cached
                }
            }
            Purpose::B(n, _) => {
                let win = self.nodes[n].win;
                self.wins[win].truncated = true;
                self.finish_b(n);
            }
            Purpose::Parent(k) => {
                let bus = self.tracing[k].bus.clone();
                self.plan.walk_app(&bus, self.cache);
            }
            Purpose::NodeExtents(w, _)
            | Purpose::NodeStates(w, _)
            | Purpose::KeptAttributes(w, _)
            | Purpose::HiddenStates(w, _)
            | Purpose::HiddenExtents(w, _) => {
                self.wins[w].outstanding -= 1;
                self.wins[w].truncated = true;
            }
        }
    }

    fn on_message(&mut self, m: Message) {
        let Some(serial) = m.reply_serial else { return };
        // Replies to calls of an earlier, abandoned walk land here too: ignored.
        let Some((d, purpose)) = self.in_flight.remove(&serial) else { return };
        self.dests[d].in_flight -= 1;
        self.dests[d].last_progress = Instant::now();
        let reply = dbus::into_result(m).and_then(|m| m.first());
        match reply {
            Ok(v) => self.on_reply(purpose, Some(v)),
            Err(e) => {
                log::trace!("a11y call for {purpose:?} failed: {e}");
                self.on_reply(purpose, None)
            }
        }
    }

    fn on_reply(&mut self, purpose: Purpose, v: Option<Value>) {
        match purpose {
            Purpose::Apps => match v {
                Some(v) => self.on_apps(&v),
                None => self.registry_failed = true,
            },
            Purpose::AppName(a) => {
                self.apps[a].name = v.as_ref().and_then(Value::as_str).unwrap_or_default().to_owned();
            }
            Purpose::AppToolkit(a) => {
                self.apps[a].toolkit = v.as_ref().and_then(Value::as_str).map(str::to_owned);
            }
            Purpose::AppWindows(a) => {
                if let Some(v) = v {
                    self.on_windows(a, &v);
                }
            }
            Purpose::WinState(w) => {
                let s = v.as_ref().and_then(states_of);
                self.wins[w].check_state = Some(s);
                self.check_window(w);
            }
            Purpose::WinExtents(w) => {
                let e = v.as_ref().and_then(extents_of).map(|(x, y, wd, h)| rect(x, y, wd, h));
                self.wins[w].check_extents = Some(e);
                self.check_window(w);
            }
            Purpose::A(p, field) => self.on_field_a(p, field, v),
            Purpose::B(n, field) => self.on_field_b(n, field, v),
            Purpose::Parent(k) => self.on_parent(k, v),
            Purpose::KeptAttributes(w, i) => {
                let path = self.wins[w].kept_paths[i].clone();
                if let Some(v) = v {
                    self.wins[w].kept_attributes.insert(path, attributes_of(&v));
                }
                self.wins[w].outstanding -= 1;
            }
            Purpose::NodeStates(w, i) => {
                let path = self.wins[w].moved_paths[i].clone();
                let states = v.as_ref().and_then(states_of);
                self.wins[w].restated.insert(path, states);
                self.wins[w].outstanding -= 1;
                if states.is_none() {
                    // Gone though no event said so: what else changed unannounced is anyone's guess.
                    self.walk_instead(w);
                }
            }
            Purpose::NodeExtents(w, i) => {
                let path = self.wins[w].moved_paths[i].clone();
                let extents = v.as_ref().and_then(extents_of);
                self.wins[w].moved.insert(path, extents);
                self.wins[w].outstanding -= 1;
                // A node that never had extents (no Component) answers none again; one that had them
                // and now does not is gone.
                let had = self.cache.windows.get(&self.wins[w].obj).and_then(|c| c.nodes.get(i + 1)).map(|n| n.bounds);
                if extents.is_none() && had.is_some_and(|b| b != Rect::default()) {
                    self.walk_instead(w);
                }
            }
            Purpose::HiddenStates(w, i) => {
                let states = v.as_ref().and_then(states_of);
                let win = &mut self.wins[w];
                win.outstanding -= 1;
                // Shown by its states: its extents decide (what GTK says of rows scrolled away).
                let ask_extents = states.is_some() && win.toolkit.drawn(states, None);
                let answers = win.hidden_answers.entry(i).or_default();
                answers.0 = Some(states);
                if !ask_extents {
                    answers.1 = Some(None);
                    return;
                }
                let coords = if win.toolkit.window_relative() { COORD_WINDOW } else { COORD_SCREEN };
                let (bus, path) = (win.obj.bus.clone(), win.hidden_paths[i].clone());
                win.outstanding += 1;
                self.enqueue(&bus, path, COMPONENT, "GetExtents", vec![Arg::U32(coords)], Purpose::HiddenExtents(w, i));
            }
            Purpose::HiddenExtents(w, i) => {
                self.wins[w].hidden_answers.entry(i).or_default().1 = Some(v.as_ref().and_then(extents_of));
                self.wins[w].outstanding -= 1;
                self.on_hidden_answer(w, i);
            }
        }
    }

    fn on_apps(&mut self, v: &Value) {
        let refs = obj_refs(v);
        for (i, app) in refs.into_iter().enumerate() {
            if *app.bus == *self.own_name {
                continue;
            }
            let a = self.apps.len();
            let name = self.cache.app_names.get(&app.bus).cloned();
            self.apps.push(App {
                bus: app.bus.clone(),
                name: name.clone().unwrap_or_default(),
                toolkit: None,
                order: i,
            });
            if name.is_none() {
                self.get_property(&app, ACCESSIBLE, "Name", Purpose::AppName(a));
            }
            // Asked before its windows, on the same connection: answered before any window is read.
            self.get_property(&app, APPLICATION, "ToolkitName", Purpose::AppToolkit(a));
            self.enqueue(&app.bus, app.path.clone(), ACCESSIBLE, "GetChildren", vec![], Purpose::AppWindows(a));
        }
    }

    fn on_windows(&mut self, a: usize, v: &Value) {
        for (i, obj) in obj_refs(v).into_iter().enumerate() {
            let w = self.wins.len();
            let known = self.cache.windows.get(&obj).filter(|_| !self.plan.walk.contains(&obj));
            let parts: Vec<Part> = match known {
                Some(_) => self.plan.parts.remove(&obj).unwrap_or_default(),
                None => Vec::new(),
            }
            .into_iter()
            .map(|(path, reach)| Part { path, reach, root: None, kept: Vec::new() })
            .collect();
            if !parts.is_empty() {
                let named: Vec<String> = parts.iter().map(|p| format!("{}:{:?}", p.path, p.reach)).collect();
                log::debug!("a11y: window {}{} read again in parts {named:?}", obj.bus, obj.path);
            }
            let (cached, toolkit) = (known.is_some(), known.map(|c| c.toolkit).unwrap_or_default());
            self.wins.push(Win {
                obj: obj.clone(),
                app: a,
                order: (self.apps[a].order, i),
                mode: if cached { Mode::Check } else { Mode::Walk },
                active: false,
                check_state: None,
                check_extents: None,
                root: None,
                toolkit,
                outstanding: 0,
                truncated: false,
                unread: Vec::new(),
                parts,
                moved_paths: Vec::new(),
                moved: HashMap::new(),
                restated: HashMap::new(),
                kept_paths: Vec::new(),
                kept_attributes: HashMap::new(),
                hidden: Vec::new(),
                hidden_paths: Vec::new(),
                hidden_answers: HashMap::new(),
            });
            if cached {
                self.enqueue(&obj.bus, obj.path.clone(), ACCESSIBLE, "GetState", vec![], Purpose::WinState(w));
                let coords = if toolkit.window_relative() { COORD_WINDOW } else { COORD_SCREEN };
                let args = vec![Arg::U32(coords)];
                self.enqueue(&obj.bus, obj.path.clone(), COMPONENT, "GetExtents", args, Purpose::WinExtents(w));
                // Read the changed parts meanwhile: if the window turns out moved or resized, they are
                // moot and it is walked whole.
                for k in 0..self.wins[w].parts.len() {
                    let part = ObjRef { bus: obj.bus.clone(), path: self.wins[w].parts[k].path.clone() };
                    self.start_part(part, w, k);
                }
                if !self.wins[w].parts.is_empty() {
                    self.ask_extents_again(w);
                }
            } else {
                self.start_node(obj, w, None, 0, Probe::Nothing);
            }
        }
    }

    /// Both checks of a cached window are in: reuse it, or walk it after all.
    fn check_window(&mut self, w: usize) {
        let (Some(state), Some(extents)) = (self.wins[w].check_state, self.wins[w].check_extents) else { return };
        if self.wins[w].mode != Mode::Check {
            return;
        }
        let Some(state) = state.filter(|s| s.on_screen()) else {
            self.wins[w].mode = Mode::Dropped;
            return;
        };
        self.wins[w].active = state.has(bit::ACTIVE);
        let cached = self.cache.windows.get(&self.wins[w].obj).map(|c| c.extents);
        // The app answered after emitting whatever events it had for earlier changes (one connection keeps
        // order, and the reader records events before passing replies on): the objects of this window
        // named since the snapshot began are read too, or the window is walked if that is all of it.
        // (Objects the cache does not know are traced in the next snapshot, their events still pending.)
        let obj = self.wins[w].obj.clone();
        let late = self.late.lock().unwrap_or_else(PoisonError::into_inner).parts_in(&obj, self.cache);
        let whole = late.iter().any(|(p, r)| *r == Reach::Window || (*p == obj.path && *r == Reach::Subtree))
            || self.wins[w].parts.len() + late.len() > cache::MAX_PARTS;
        self.wins[w].mode = match (extents, cached) {
            (Some(now), Some(then)) if !whole && now.width == then.width && now.height == then.height => {
                // (With parts, they were asked when the window's check began.)
                if (!late.is_empty() || self.plan.restate) && self.wins[w].parts.is_empty() {
                    self.ask_extents_again(w);
                } else if self.wins[w].parts.is_empty() && !self.wins[w].toolkit.announces_popups() {
                    self.ask_hidden_again(w);
                }
                for (path, reach) in late {
                    let known = self.wins[w].parts.iter().any(|p| p.path == path && p.reach >= reach);
                    if !known {
                        let k = self.wins[w].parts.len();
                        self.wins[w].parts.push(Part { path: path.clone(), reach, root: None, kept: Vec::new() });
                        self.start_part(ObjRef { bus: obj.bus.clone(), path }, w, k);
                    }
                }
                Mode::Reuse { dx: now.x - then.x, dy: now.y - then.y }
            }
            _ => {
                self.start_node(obj, w, None, 0, Probe::Nothing);
                Mode::Walk
            }
        };
    }

    /// Starts fetching a node: the fields of `probe` first, the others only if those show it on screen.
    /// Cheaper where most siblings are hidden (long lists, toolkits' hidden views), one round trip
    /// slower otherwise.
    fn start_node(&mut self, obj: ObjRef, win: usize, parent: Option<usize>, slot: usize, probe: Probe) {
        let p = self.pending.len();
        self.pending.push(Some(Pending {
            obj: obj.clone(),
            win,
            parent,
            slot,
            remaining: 0,
            probing: (probe != Probe::Nothing).then_some(probe),
            data: NodeData::default(),
            part: None,
            children_after_count: false,
        }));
        self.wins[win].outstanding += 1;
        self.queue_fields(p, &obj, probe.fields());
    }

    /// Window `w`, which was to be reused, is walked whole after all (the parts read meanwhile are moot).
    fn walk_instead(&mut self, w: usize) {
        if matches!(self.wins[w].mode, Mode::Check | Mode::Reuse { .. }) {
            self.wins[w].mode = Mode::Walk;
            let obj = self.wins[w].obj.clone();
            self.start_node(obj, w, None, 0, Probe::Nothing);
        }
    }

    /// Asks where every cached node of window `w` (but the window, just checked) is now, and its states.
    fn ask_extents_again(&mut self, w: usize) {
        let Some(cached) = self.cache.windows.get(&self.wins[w].obj) else { return };
        let paths: Vec<Arc<str>> = cached.paths.iter().skip(1).cloned().collect();
        let coords = if self.wins[w].toolkit.window_relative() { COORD_WINDOW } else { COORD_SCREEN };
        let bus = self.wins[w].obj.bus.clone();
        for (i, path) in paths.iter().enumerate() {
            self.wins[w].outstanding += 2;
            let extents = Purpose::NodeExtents(w, i);
            self.enqueue(&bus, path.clone(), COMPONENT, "GetExtents", vec![Arg::U32(coords)], extents);
            self.enqueue(&bus, path.clone(), ACCESSIBLE, "GetState", vec![], Purpose::NodeStates(w, i));
        }
        self.wins[w].moved_paths = paths;
        // After input that may have moved things (a scroll): whether what was left out as not shown is
        // shown now. Not after every event: a change a toolkit announces shows what it shows with
        // events of its own, and asking cost a third more calls of each part read on a changing page.
        if self.plan.restate || !self.wins[w].toolkit.announces_popups() {
            self.ask_hidden_again(w);
        }
    }

    /// Asks the nodes of window `w` left out as not shown whether they are shown now. (Their states
    /// first: most still say they are hidden, and their extents are not needed.)
    fn ask_hidden_again(&mut self, w: usize) {
        let Some(cached) = self.cache.windows.get(&self.wins[w].obj) else { return };
        let bus = self.wins[w].obj.bus.clone();
        // (More than a walk's worth of them, a long list scrolled away: left as they were rather than
        // asked one by one.)
        if cached.hidden.len() > self.limits.max_nodes {
            log::debug!("a11y: {} hidden nodes in a window, not asked again", cached.hidden.len());
            return;
        }
        let hidden = cached.hidden.clone();
        for (i, path) in hidden.iter().enumerate() {
            self.wins[w].outstanding += 1;
            self.enqueue(&bus, path.clone(), ACCESSIBLE, "GetState", vec![], Purpose::HiddenStates(w, i));
        }
        self.wins[w].hidden_paths = hidden;
    }

    /// Both answers about hidden node `i` of window `w` are in: one shown now (its window said nothing
    /// of it) has the window walked whole, its place in the tree being unknown here. One gone, or
    /// without extents, is simply no longer hidden there.
    fn on_hidden_answer(&mut self, w: usize, i: usize) {
        let Some(&(Some(states), Some(extents))) = self.wins[w].hidden_answers.get(&i) else { return };
        if states.is_some() && self.wins[w].toolkit.drawn(states, extents) {
            log::debug!("a11y: {} shown now without an event: window walked again", self.wins[w].hidden_paths[i]);
            self.walk_instead(w);
        }
    }

    /// Starts reading part `k` of window `win` again: all its fields at once but its children, which
    /// wait for its child count (the part may be a spreadsheet: asked for its 2,147,483,647 cells, the
    /// app hangs) and are not asked at all of a node read again for its own fields.
    fn start_part(&mut self, obj: ObjRef, win: usize, k: usize) {
        let p = self.pending.len();
        let children_after_count = self.wins[win].parts[k].reach != Reach::Node;
        self.pending.push(Some(Pending {
            obj: obj.clone(),
            win,
            parent: None,
            slot: 0,
            remaining: 0,
            probing: None,
            data: NodeData::default(),
            part: Some(k),
            children_after_count,
        }));
        self.wins[win].outstanding += 1;
        let fields: Vec<FieldA> =
            PHASE_A.into_iter().filter(|f| *f != FieldA::Children).chain([FieldA::ChildCount]).collect();
        self.queue_fields(p, &obj, &fields);
    }

    fn queue_fields(&mut self, p: usize, obj: &ObjRef, fields: &[FieldA]) {
        let mut toolkit = Toolkit::default();
        if let Some(pend) = self.pending[p].as_mut() {
            pend.remaining += fields.len() as u8;
            toolkit = self.wins[pend.win].toolkit;
        }
        let coords = if toolkit.window_relative() { COORD_WINDOW } else { COORD_SCREEN };
        for &field in fields {
            let purpose = Purpose::A(p, field);
            let path = obj.path.clone();
            match field {
                FieldA::Role if toolkit.role_by_number() => {
                    self.enqueue(&obj.bus, path, ACCESSIBLE, "GetRole", vec![], purpose)
                }
                FieldA::Role => self.enqueue(&obj.bus, path, ACCESSIBLE, "GetRoleName", vec![], purpose),
                FieldA::State => self.enqueue(&obj.bus, path, ACCESSIBLE, "GetState", vec![], purpose),
                FieldA::Name => self.get_property(obj, ACCESSIBLE, "Name", purpose),
                FieldA::Description => self.get_property(obj, ACCESSIBLE, "Description", purpose),
                FieldA::Children => self.enqueue(&obj.bus, path, ACCESSIBLE, "GetChildren", vec![], purpose),
                FieldA::Interfaces => self.enqueue(&obj.bus, path, ACCESSIBLE, "GetInterfaces", vec![], purpose),
                FieldA::Extents => {
                    self.enqueue(&obj.bus, path, COMPONENT, "GetExtents", vec![Arg::U32(coords)], purpose)
                }
                FieldA::Attributes => self.enqueue(&obj.bus, path, ACCESSIBLE, "GetAttributes", vec![], purpose),
                FieldA::ChildCount => self.get_property(obj, ACCESSIBLE, "ChildCount", purpose),
            }
            if self.pending[p].is_none() {
                return; // the destination has already failed
            }
        }
    }

    fn on_field_a(&mut self, p: usize, field: FieldA, v: Option<Value>) {
        let Some(pend) = self.pending[p].as_mut() else { return };
        let d = &mut pend.data;
        if let Some(v) = v {
            match field {
                // A name (`GetRoleName`), or a number (`GetRole`) named as libatspi names it.
                FieldA::Role => {
                    d.role = match v.as_u32() {
                        Some(code) => toolkit::role_name(code).map(str::to_owned),
                        None => v.as_str().map(str::to_owned),
                    }
                }
                FieldA::State => d.states = states_of(&v),
                FieldA::Name => d.name = clip(v.as_str().unwrap_or_default(), MAX_TEXT_CHARS),
                FieldA::Description => d.description = clip(v.as_str().unwrap_or_default(), MAX_TEXT_CHARS),
                FieldA::Children => d.children = obj_refs(&v),
                FieldA::Interfaces => {
                    d.interfaces =
                        v.as_array().unwrap_or_default().iter().filter_map(|s| s.as_str().map(str::to_owned)).collect()
                }
                FieldA::Extents => d.extents = extents_of(&v),
                FieldA::Attributes => d.attributes = attributes_of(&v),
                FieldA::ChildCount => d.child_count = v.as_i32(),
            }
        }
        pend.remaining -= 1;
        if pend.remaining > 0 {
            return;
        }
        if let Some(probe) = pend.probing.take() {
            if pend.data.shown(self.wins[pend.win].toolkit) {
                let obj = pend.obj.clone();
                let asked = probe.fields();
                // Children are asked only of a node that has some, and not too many to read; where the
                // probe did not ask how many, the count comes with the rest and the children after it.
                let count_known = pend.data.child_count.is_some();
                pend.children_after_count = !count_known;
                let rest: Vec<FieldA> = PHASE_A
                    .into_iter()
                    .filter(|f| !asked.contains(f))
                    .map(|f| if f == FieldA::Children && !count_known { FieldA::ChildCount } else { f })
                    .filter(|f| *f != FieldA::Children || children_wanted(pend.data.child_count, self.limits.max_nodes))
                    .collect();
                self.queue_fields(p, &obj, &rest);
                return;
            }
        }
        if std::mem::take(&mut pend.children_after_count)
            && pend.data.shown(self.wins[pend.win].toolkit)
            && children_wanted(pend.data.child_count, self.limits.max_nodes)
        {
            let obj = pend.obj.clone();
            self.queue_fields(p, &obj, &[FieldA::Children]);
            return;
        }
        if let Some(pend) = self.pending[p].take() {
            self.wins[pend.win].outstanding -= 1;
            self.accept(pend);
        }
    }

    /// Phase A is complete: keep the node (and fetch the rest) or prune it with its subtree.
    fn accept(&mut self, pend: Pending) {
        let Pending { obj, win, parent, slot, mut data, part, .. } = pend;
        let window_root = parent.is_none() && part.is_none();
        if window_root {
            let app_toolkit = self.apps[self.wins[win].app].toolkit.as_deref();
            self.wins[win].toolkit = Toolkit::of_window(&data.attributes, app_toolkit);
        }
        let toolkit = self.wins[win].toolkit;
        if !data.shown(toolkit) {
            // Remembered, to be asked again (see `CachedWindow::hidden`); a window's own root that is not
            // shown drops the window instead.
            if parent.is_some() || part.is_some() {
                self.wins[win].hidden.push(obj.path.clone());
            }
            return;
        }
        data.name = toolkit.readable_name(std::mem::take(&mut data.name));
        let (Some(native), Some(states)) = (data.role, data.states) else { return }; // gone meanwhile
        let holds_pages = native == "page tab list";
        let (x, y, w, h) = data.extents.unwrap_or((0, 0, 0, 0));
        if self.accepted() >= self.limits.max_nodes {
            self.truncated = true;
            self.wins[win].truncated = true;
            return;
        }
        if let Some(count) = data.child_count.filter(|&c| c as usize > self.limits.max_nodes) {
            let name = clip(data.name.trim(), 60);
            let what = if name.is_empty() { native.clone() } else { format!("{native} \"{name}\"") };
            self.wins[win].unread.push(format!(
                "{what} has {count} children, too many to read without stalling the app: it is listed with its \
                 active one alone (a sheet's cursor cell, once the app names it), the rest only as screen text"
            ));
        }
        let web_terminal = roles::is_web_terminal(&data.attributes);
        let role = if web_terminal { Role::Terminal } else { roles::map_role(&native, states) };
        let secret = roles::is_secret_role(&native);
        let n = self.nodes.len();
        if let Some(k) = part {
            self.wins[win].parts[k].root = Some(n);
        }
        if window_root {
            log::trace!("window {}{} {native:?} {:?}: states {:#x}", obj.bus, obj.path, data.name, states.0);
            self.wins[win].root = Some(n);
            self.wins[win].active = states.has(bit::ACTIVE);
        }
        let has = |i: &str| data.interfaces.iter().any(|x| x == i);
        let mut phase_b: Vec<FieldB> = Vec::new();
        if has(ACTION) {
            phase_b.push(FieldB::Actions);
        }
        // Secret fields: their text and value are never even asked for. A web terminal's text is not
        // its screen (that is drawn on a canvas): it is read off the screen instead.
        if !secret && !web_terminal {
            phase_b.extend(content_fields(role, states.has(bit::EDITABLE), data.name.trim().is_empty(), has));
            if role == Role::ComboBox && !has(SELECTION) && !data.children.is_empty() {
                phase_b.push(FieldB::PopupSelected);
            }
        }
        let popup = (role == Role::ComboBox).then(|| data.children.first().cloned()).flatten();
        let mapped = node_states(&native, role, states, toolkit, &data.attributes);
        let node = AxNode {
            role: Some(role),
            states: mapped,
            native_role: native,
            name: data.name,
            value: None,
            description: data.description,
            bounds: rect(x, y, w, h),
            app: String::new(),
            window: String::new(),
            actions: Vec::new(),
            key_bindings: Vec::new(),
            attributes: data.attributes,
            parent: None,
            window_relative: toolkit.window_relative(),
        };
        self.nodes.push(Accepted {
            path: obj.path.clone(),
            win,
            slot,
            children: Vec::new(),
            remaining: phase_b.len() as u8,
            popup,
            node,
        });
        if let Some(parent) = parent {
            self.nodes[parent].children.push(n);
        }
        if !phase_b.is_empty() {
            self.wins[win].outstanding += 1;
        }
        for field in phase_b {
            let purpose = Purpose::B(n, field);
            match field {
                FieldB::Actions => self.enqueue(&obj.bus, obj.path.clone(), ACTION, "GetActions", vec![], purpose),
                FieldB::Text => {
                    // All of it (-1), clipped once it arrives: Firefox answers an end past the text's
                    // length with nothing at all, where GTK and Chromium clip. GTK 4 answers -1 with
                    // nothing and clips: it is asked for as much as is kept.
                    let end = if toolkit == Toolkit::Gtk4 { MAX_TEXT_CHARS as i32 } else { -1 };
                    let args = vec![Arg::I32(0), Arg::I32(end)];
                    self.enqueue(&obj.bus, obj.path.clone(), TEXT, "GetText", args, purpose)
                }
                FieldB::TerminalText => {
                    // VTE's text is its screen, the scrollback before it: all of it (-1), then the tail.
                    let args = vec![Arg::I32(0), Arg::I32(-1)];
                    self.enqueue(&obj.bus, obj.path.clone(), TEXT, "GetText", args, purpose)
                }
                FieldB::Value => self.get_property(&obj, VALUE, "CurrentValue", purpose),
                FieldB::Selected => self.ask_selected_child(&obj, purpose),
                FieldB::PopupSelected => match self.nodes[n].popup.clone() {
                    Some(popup) => self.ask_selected_child(&popup, purpose),
                    None => self.finish_b(n),
                },
                FieldB::SelectedName => {} // asked of the selected child once it is known
            }
        }
        // Children are probed: in toolkits' trees most hidden nodes are leaves or small subtrees next to
        // shown siblings (list rows scrolled away, inactive views), and probing halved the calls of a
        // Chromium walk at no measurable cost in wall time.
        // Only tables: that is where GTK's rows live; Chromium's hidden list items and rows already say
        // so in their states, and asking their extents too cost it 5% more calls on a long page.
        // GTK 4 says which nodes are not drawn by their size alone.
        // GTK 2's notebook pages are read whole, their role with them: a page is kept by its role
        // (see `Toolkit::pages_placed_at_their_tab`), which a probe of its states would not learn.
        let probe = if role == Role::Table || toolkit == Toolkit::Gtk4 {
            Probe::StatesAndExtents
        } else if holds_pages && toolkit == Toolkit::Gtk2 {
            Probe::Nothing
        } else {
            Probe::States
        };
        // A node read again for its own fields keeps the descendants its window had; one whose children
        // changed keeps those it had, and only new ones are walked.
        let reach = part.map(|k| self.wins[win].parts[k].reach);
        // A container too big to read lists its active descendant (a sheet's cursor cell), when its
        // events named one; a descendant no longer there fails its calls and is left out.
        let mut data_children = std::mem::take(&mut data.children);
        if data.child_count.is_some_and(|c| c as usize > self.limits.max_nodes) {
            data_children = self.cache.active_descendants.get(&obj).cloned().into_iter().collect();
        }
        let children: Vec<(usize, ObjRef)> = match (reach, part) {
            (Some(Reach::Node), _) => Vec::new(),
            (Some(Reach::Children), Some(k)) => {
                let had: HashSet<Arc<str>> = self
                    .cache
                    .windows
                    .get(&self.wins[win].obj)
                    .and_then(|c| {
                        let at = c.paths.iter().position(|p| *p == obj.path)?;
                        Some(cache::children_of(&c.nodes, &c.paths, at).into_iter().map(|(p, _)| p).collect())
                    })
                    .unwrap_or_default();
                let (kept, new): (Vec<_>, Vec<_>) =
                    data_children.into_iter().enumerate().partition(|(_, c)| c.bus == obj.bus && had.contains(&c.path));
                for (_, c) in &kept {
                    let i = self.wins[win].kept_paths.len();
                    self.wins[win].kept_paths.push(c.path.clone());
                    self.wins[win].outstanding += 1;
                    self.enqueue(
                        &c.bus,
                        c.path.clone(),
                        ACCESSIBLE,
                        "GetAttributes",
                        vec![],
                        Purpose::KeptAttributes(win, i),
                    );
                }
                self.wins[win].parts[k].kept = kept.into_iter().map(|(i, c)| (i, c.path)).collect();
                new
            }
            _ => data_children.into_iter().enumerate().collect(),
        };
        let room = self.limits.max_nodes.saturating_sub(self.accepted());
        if children.len() > room {
            self.truncated = true;
            self.wins[win].truncated = true;
        }
        for (i, child) in children.into_iter().take(room) {
            self.start_node(child, win, Some(n), i, probe);
        }
    }

    fn accepted(&self) -> usize {
        self.nodes.len()
    }

    fn ask_selected_child(&mut self, obj: &ObjRef, purpose: Purpose) {
        self.enqueue(&obj.bus, obj.path.clone(), SELECTION, "GetSelectedChild", vec![Arg::I32(0)], purpose);
    }

    /// A combo box's selected child is known (or is not): ask its name, or the popup instead.
    fn on_selected_child(&mut self, n: usize, field: FieldB, child: Option<ObjRef>) {
        let next = match (child, field, self.nodes[n].popup.clone()) {
            (Some(child), _, _) => Some((child, FieldB::SelectedName)),
            (None, FieldB::Selected, Some(popup)) => Some((popup, FieldB::PopupSelected)),
            _ => None,
        };
        if let Some((obj, next)) = next {
            // One more call for this node before it is complete.
            self.nodes[n].remaining += 1;
            match next {
                FieldB::SelectedName => self.get_property(&obj, ACCESSIBLE, "Name", Purpose::B(n, next)),
                _ => self.ask_selected_child(&obj, Purpose::B(n, next)),
            }
        }
    }

    fn on_field_b(&mut self, n: usize, field: FieldB, v: Option<Value>) {
        if matches!(field, FieldB::Selected | FieldB::PopupSelected) {
            self.on_selected_child(n, field, v.as_ref().and_then(obj_ref));
        }
        if let Some(v) = v {
            let node = &mut self.nodes[n].node;
            match field {
                FieldB::Actions => {
                    // Each action is (name, description, key binding); the binding is what a mnemonic
                    // or accelerator press does, which the guards judge like a click.
                    let actions: Vec<(&str, &str)> = v
                        .as_array()
                        .unwrap_or_default()
                        .iter()
                        .filter_map(|a| {
                            let fields = a.as_struct()?;
                            let name = fields.first().and_then(Value::as_str)?;
                            Some((name, fields.get(2).and_then(Value::as_str).unwrap_or_default()))
                        })
                        .filter(|(name, _)| !name.is_empty())
                        .collect();
                    node.actions = actions.iter().map(|(name, _)| (*name).to_owned()).collect();
                    node.key_bindings = actions.iter().map(|(_, keys)| (*keys).to_owned()).collect();
                }
                FieldB::Text => {
                    // Double-check: never keep text of a secret field, whatever happened.
                    if !node.is_secure() {
                        let raw = v.as_str().unwrap_or_default();
                        if holds_typed_text(node.role(), node.states.contains(States::EDITABLE)) {
                            offer_value(node, input_text(raw), true);
                        } else if node.name.trim().is_empty() {
                            node.name = clean_text(raw);
                        }
                    }
                }
                FieldB::TerminalText => {
                    if !node.is_secure() {
                        node.value = Some(tail_text(v.as_str().unwrap_or_default()));
                    }
                }
                FieldB::Value => {
                    if let (false, Some(number)) = (node.is_secure(), v.as_f64()) {
                        offer_value(node, format_number(number), true);
                    }
                }
                FieldB::Selected | FieldB::PopupSelected => {}
                FieldB::SelectedName => {
                    if !node.is_secure() {
                        offer_value(node, clean_text(v.as_str().unwrap_or_default()), false);
                    }
                }
            }
        }
        self.finish_b(n);
    }

    fn finish_b(&mut self, n: usize) {
        let a = &mut self.nodes[n];
        if a.remaining == 0 {
            return;
        }
        a.remaining -= 1;
        if a.remaining == 0 {
            let win = a.win;
            self.wins[win].outstanding -= 1;
        }
    }

    fn finish(self) -> WalkResult {
        let finished_in_time = self.in_flight.is_empty() && !self.connection_lost;
        // Whatever is still outstanding did not make it.
        let left: Vec<usize> =
            (0..self.dests.len()).filter(|&d| self.dests[d].in_flight > 0 || !self.dests[d].queue.is_empty()).collect();
        let mut timed_out: HashSet<usize> =
            self.dests.iter().enumerate().filter(|(_, d)| d.failed).map(|(i, _)| i).collect();
        for d in left {
            if !self.dests[d].failed {
                log::info!("a11y: {} still busy at the walk deadline", self.dests[d].name);
                timed_out.insert(d);
            }
        }
        timed_out.remove(&0); // the registry is accounted for separately

        let mut stats = WalkStats {
            calls: self.calls,
            apps: self.apps.len(),
            apps_timed_out: timed_out.len(),
            truncated: self.truncated,
            ..WalkStats::default()
        };
        // A bus that went away mid-walk leaves no way to tell which applications were missed, and the
        // objects read so far belong to a connection that is gone: the snapshot is `Unavailable`, as
        // when there is no bus at all, and the next one connects afresh.
        let health = if self.registry_failed || self.connection_lost {
            AxHealth::Unavailable
        } else if !finished_in_time || !timed_out.is_empty() {
            AxHealth::Partial
        } else {
            AxHealth::Ok
        };

        // Keyboard focus lives in the active window; toolkits leave FOCUSED on nodes of inactive windows
        // (Chromium's hidden popups keep a focused document), which would make two foci.
        let any_active = self.wins.iter().any(|w| w.active && matches!(w.mode, Mode::Walk | Mode::Reuse { .. }));
        let mut order: Vec<usize> = (0..self.wins.len()).collect();
        // Active windows first so a node cap keeps what the user is looking at.
        order.sort_by_key(|&w| (!self.wins[w].active, self.wins[w].order));
        let mut out: Vec<AxNode> = Vec::new();
        let mut notes: Vec<String> = Vec::new();
        let mut fresh = Vec::new();
        for w in order {
            let win = &self.wins[w];
            let app = self.apps[win.app].name.clone();
            let local: Vec<AxNode> = match win.mode {
                Mode::Reuse { dx, dy } => {
                    let Some(cached) = self.cache.windows.get(&win.obj) else { continue };
                    let mut moved = cached.translated(dx, dy);
                    if !win.parts.is_empty() || !win.moved_paths.is_empty() || !win.hidden_paths.is_empty() {
                        // Parts read again are spliced in only when every one of them was read whole; a
                        // window left as it was is not cached, so the next snapshot walks it.
                        if win.outstanding == 0 && !win.truncated && finished_in_time_for(&self, win) {
                            self.splice_parts(win, &mut moved);
                            fresh.push((win.obj.clone(), moved.clone()));
                        }
                        stats.windows_patched += 1;
                        stats.parts_read += win.parts.len();
                    } else {
                        fresh.push((win.obj.clone(), moved.clone()));
                    }
                    notes.extend(moved.unread.iter().map(|u| format!("{app}: {u}")));
                    stats.windows_reused += 1;
                    moved.nodes
                }
                Mode::Walk => {
                    let Some(root) = win.root else { continue };
                    notes.extend(win.unread.iter().map(|u| format!("{app}: {u}")));
                    let (nodes, paths) = self.flatten(root);
                    let complete = win.outstanding == 0 && !win.truncated && finished_in_time_for(&self, win);
                    if complete {
                        let extents = nodes.first().map(|n| n.bounds).unwrap_or_default();
                        let cached = CachedWindow {
                            extents,
                            nodes: nodes.clone(),
                            paths,
                            toolkit: win.toolkit,
                            unread: win.unread.clone(),
                            hidden: win.hidden.clone(),
                        };
                        fresh.push((win.obj.clone(), cached));
                    }
                    stats.windows_walked += 1;
                    nodes
                }
                Mode::Check | Mode::Dropped => continue,
            };
            let title = local.first().map(|n| n.name.clone()).unwrap_or_default();
            let base = out.len();
            let room = self.limits.max_nodes.saturating_sub(base);
            if local.len() > room {
                stats.truncated = true;
            }
            let clear_focus = any_active && !win.active;
            for mut n in local.into_iter().take(room) {
                n.parent = n.parent.map(|p| p + base);
                if clear_focus {
                    n.states.remove(States::FOCUSED);
                }
                n.app = app.clone();
                n.window = title.clone();
                out.push(n);
            }
        }
        if self.connection_lost {
            out.clear();
        }
        if self.connection_lost {
            notes.clear();
        }
        // Containers left unread make the snapshot partial, whatever else it holds.
        let health = if health == AxHealth::Ok && !notes.is_empty() { AxHealth::Partial } else { health };
        stats.nodes = out.len();
        stats.health = health;
        let app_names = self.apps.iter().map(|a| (a.bus.clone(), a.name.clone())).collect();
        WalkResult {
            snapshot: AxSnapshot { health, nodes: out, notes },
            stats,
            fresh,
            app_names,
            connection_lost: self.connection_lost,
        }
    }

    /// Splices the parts of `win` read again into its cached nodes, deepest first: a part inside
    /// another one's subtree is then overwritten by the newer reading of that subtree.
    fn splice_parts(&self, win: &Win, cached: &mut CachedWindow) {
        let mut parts: Vec<(usize, &Part)> = win
            .parts
            .iter()
            .filter_map(|part| cached.paths.iter().position(|p| *p == part.path).map(|at| (at, part)))
            .collect();
        parts.sort_by_key(|p| std::cmp::Reverse(p.0));
        for (_, part) in parts {
            // Indices move with each splice: the part is found again by its path.
            let Some(at) = cached.paths.iter().position(|p| *p == part.path) else { continue };
            let read = match (part.reach, part.root) {
                (Reach::Children, Some(r)) => Some(self.with_kept_children(r, &part.kept, cached, at)),
                (_, r) => r.map(|r| self.flatten(r)),
            };
            cache::splice(&mut cached.nodes, &mut cached.paths, at, part.reach, read);
        }
        // Where each node is now and its states; one no longer on screen leaves with its subtree.
        let mut gone = Vec::new();
        for (i, path) in cached.paths.iter().enumerate() {
            let node = &mut cached.nodes[i];
            if let Some(attributes) = win.kept_attributes.get(path) {
                node.attributes = attributes.clone();
            }
            // (A node that did not answer its states had the window walked instead.)
            let Some(Some(raw)) = win.restated.get(path).copied() else { continue };
            let extents = win.moved.get(path).copied().flatten();
            if !win.toolkit.drawn(Some(raw), extents) {
                gone.push(path.clone());
                continue;
            }
            if let Some((x, y, w, h)) = extents {
                node.bounds = rect(x, y, w, h);
            }
            node.states = node_states(&node.native_role, node.role(), raw, win.toolkit, &node.attributes);
            if node.is_secure() {
                node.value = None;
            }
        }
        for path in gone.iter().rev() {
            if let Some(at) = cached.paths.iter().position(|p| p == path) {
                cache::splice(&mut cached.nodes, &mut cached.paths, at, Reach::Subtree, None);
            }
        }
        for note in &win.unread {
            if !cached.unread.contains(note) {
                cached.unread.push(note.clone());
            }
        }
        // Hidden now: those still there and still not shown when asked (one shown had the window walked
        // instead; not asked, they stay), those the parts left out, and those that went out of sight.
        let still_hidden: Vec<Arc<str>> = if win.hidden_paths.is_empty() {
            std::mem::take(&mut cached.hidden)
        } else {
            win.hidden_paths
                .iter()
                .enumerate()
                .filter(|(i, _)| matches!(win.hidden_answers.get(i), Some((Some(Some(_)), _))))
                .map(|(_, p)| p.clone())
                .collect()
        };
        let mut hidden: Vec<Arc<str>> =
            still_hidden.into_iter().chain(win.hidden.iter().cloned()).chain(gone).collect();
        hidden.sort();
        hidden.dedup();
        cached.hidden = hidden;
        if let Some(window) = cached.nodes.first() {
            cached.extents = window.bounds;
        }
    }

    /// Node `root` read again with its new children walked (see `flatten`) and the children it kept
    /// (`kept`: their places and paths) copied with their subtrees from `cached`, where the node is at
    /// `at`; in place order, parents local with the node at 0.
    fn with_kept_children(
        &self,
        root: usize,
        kept: &[(usize, Arc<str>)],
        cached: &CachedWindow,
        at: usize,
    ) -> (Vec<AxNode>, Vec<Arc<str>>) {
        enum Source<'a> {
            New(usize),
            Kept(&'a std::ops::Range<usize>),
        }
        let mut node = self.nodes[root].node.clone();
        node.parent = None;
        let mut nodes = vec![node];
        let mut paths = vec![self.nodes[root].path.clone()];
        let before = cache::children_of(&cached.nodes, &cached.paths, at);
        let mut children: Vec<(usize, Source<'_>)> =
            self.nodes[root].children.iter().map(|&c| (self.nodes[c].slot, Source::New(c))).collect();
        for (slot, path) in kept {
            if let Some((_, range)) = before.iter().find(|(p, _)| p == path) {
                children.push((*slot, Source::Kept(range)));
            }
        }
        children.sort_by_key(|(slot, _)| *slot);
        for (_, child) in children {
            let base = nodes.len();
            let (sub, sub_paths): (Vec<AxNode>, Vec<Arc<str>>) = match child {
                Source::New(c) => self.flatten(c),
                Source::Kept(range) => {
                    let first = range.start;
                    let sub = cached.nodes[range.clone()]
                        .iter()
                        .enumerate()
                        .map(|(i, n)| {
                            let mut n = n.clone();
                            n.parent = if i == 0 { None } else { n.parent.map(|p| p.saturating_sub(first)) };
                            n
                        })
                        .collect();
                    (sub, cached.paths[range.clone()].to_vec())
                }
            };
            for (i, mut n) in sub.into_iter().enumerate() {
                n.parent = if i == 0 { Some(0) } else { n.parent.map(|p| p + base) };
                nodes.push(n);
            }
            paths.extend(sub_paths);
        }
        (nodes, paths)
    }

    /// Depth-first, children in their toolkit order; parent indices local to the window.
    fn flatten(&self, root: usize) -> (Vec<AxNode>, Vec<Arc<str>>) {
        let mut nodes = Vec::new();
        let mut paths = Vec::new();
        let mut stack: Vec<(usize, Option<usize>)> = vec![(root, None)];
        while let Some((n, parent)) = stack.pop() {
            let idx = nodes.len();
            let mut node = self.nodes[n].node.clone();
            node.parent = parent;
            nodes.push(node);
            paths.push(self.nodes[n].path.clone());
            let mut children = self.nodes[n].children.clone();
            children.sort_by_key(|&c| self.nodes[c].slot);
            for &c in children.iter().rev() {
                stack.push((c, Some(idx)));
            }
        }
        (nodes, paths)
    }
}

/// A node's states as handrail names them, from what its toolkit answered.
fn node_states(
    native: &str,
    role: Role,
    raw: AtspiStates,
    toolkit: Toolkit,
    attributes: &[(String, String)],
) -> States {
    let mut mapped = roles::map_states(native, role, raw);
    if matches!(toolkit, Toolkit::Gtk4 | Toolkit::Gtk2) {
        // Drawn, as GTK 4 and GTK 2 say it (see `toolkit`), though one never says SHOWING and the
        // other not for a popup menu's items.
        mapped.remove(States::OFFSCREEN);
    }
    if roles::is_web_terminal(attributes) && roles::has_class(attributes, "focus") {
        // Keys go to its hidden input, which is never on screen; the terminal marks itself.
        mapped.insert(States::FOCUSED);
    }
    mapped
}

/// The calls that read what a node shows (its text, value or selection), beyond its name.
///
/// A spin button's text is what it shows (GTK leaves an insensitive one's text empty while its number
/// is still set), its number only where it has no text; an editable combo box shows its text; a combo
/// box shows its selected item, which GTK
/// gives through its Selection interface (its name is empty for an entry combo, or the first string of
/// the model's row, not always what is drawn) and Chromium through its popup's.
fn content_fields(role: Role, editable: bool, unnamed: bool, has: impl Fn(&str) -> bool) -> Vec<FieldB> {
    let wants_label_text =
        unnamed && matches!(role, Role::Text | Role::Heading | Role::Other | Role::Cell | Role::ListItem | Role::Link);
    let mut out = Vec::new();
    if has(TEXT) && role == Role::Terminal {
        out.push(FieldB::TerminalText);
    } else if has(TEXT) && (holds_typed_text(role, editable) || wants_label_text) {
        out.push(FieldB::Text);
    } else if has(VALUE) && matches!(role, Role::Slider | Role::SpinButton | Role::ScrollBar | Role::Other) {
        out.push(FieldB::Value);
    }
    if role == Role::ComboBox && has(SELECTION) {
        out.push(FieldB::Selected);
    }
    out
}

/// Whether a node's text is what was typed into it, its value: text fields, combo boxes with text of
/// their own (Firefox's address bar, a web page's autocomplete input; GTK's and Chromium's drop-down
/// combo boxes have none, and show their selected item instead), and editable cells (a spreadsheet's:
/// named by their address, holding what was typed).
fn holds_typed_text(role: Role, editable: bool) -> bool {
    role.is_text_input() || role == Role::ComboBox || (role == Role::Cell && editable)
}

/// Sets a node's value from one of several sources answering in any order. The primary reading (the
/// text a field shows, a slider's number) wins unless it is empty; a secondary one (a combo box's
/// selected item) fills in only where nothing better is known. Chromium's combo box text is empty while
/// its selection is not.
fn offer_value(node: &mut AxNode, value: String, primary: bool) {
    let unknown = node.value.as_deref().is_none_or(str::is_empty);
    let take =
        if primary { !value.is_empty() || unknown } else { unknown && (!value.is_empty() || node.value.is_none()) };
    if take {
        node.value = Some(value);
    }
}

/// A window's walk is only complete when its application did not time out.
fn finished_in_time_for(w: &Walker<'_>, win: &Win) -> bool {
    w.dest_of.get(&win.obj.bus).is_none_or(|&d| !w.dests[d].failed)
}

fn rect(x: i32, y: i32, w: i32, h: i32) -> Rect {
    Rect { x, y, width: w.max(0) as u32, height: h.max(0) as u32 }
}

fn states_of(v: &Value) -> Option<AtspiStates> {
    let words: Vec<u32> = v.as_array()?.iter().filter_map(Value::as_u32).collect();
    Some(AtspiStates::from_words(&words))
}

fn extents_of(v: &Value) -> Option<(i32, i32, i32, i32)> {
    match v.as_struct()? {
        [x, y, w, h] => Some((x.as_i32()?, y.as_i32()?, w.as_i32()?, h.as_i32()?)),
        _ => None,
    }
}

/// One object reference, `(so)`, as `GetSelectedChild` answers (none for the null object).
/// Whether a node that says it has `count` children is asked for them: some, and not so many that
/// building them would stall the app (`max_nodes` could not be listed anyway).
fn children_wanted(count: Option<i32>, max_nodes: usize) -> bool {
    count.is_some_and(|c| c > 0 && c as usize <= max_nodes)
}

pub(crate) fn obj_ref(v: &Value) -> Option<ObjRef> {
    obj_refs(&Value::Array(vec![v.unwrapped().clone()])).pop()
}

fn obj_refs(v: &Value) -> Vec<ObjRef> {
    v.as_array()
        .unwrap_or_default()
        .iter()
        .filter_map(|r| match r.as_struct()? {
            [bus, path] => {
                let (bus, path) = (bus.as_str()?, path.as_str()?);
                // at-spi uses this path for "no object".
                (!bus.is_empty() && path != "/org/a11y/atspi/null").then(|| ObjRef::new(bus, path))
            }
            _ => None,
        })
        .collect()
}

fn attributes_of(v: &Value) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = v
        .as_array()
        .unwrap_or_default()
        .iter()
        .filter_map(|e| match e.as_struct()? {
            [k, v] => Some((clip(k.as_str()?, MAX_ATTRIBUTE_CHARS), clip(v.as_str()?, MAX_ATTRIBUTE_CHARS))),
            _ => None,
        })
        .collect();
    out.sort();
    out.truncate(MAX_ATTRIBUTES);
    out
}

/// At most `max` characters.
fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => s[..i].to_owned(),
        None => s.to_owned(),
    }
}

/// A terminal's text, its last [`MAX_TEXT_CHARS`] characters (the newest output and the prompt).
fn tail_text(s: &str) -> String {
    let s = s.trim_end();
    let n = s.chars().count();
    s.chars().skip(n.saturating_sub(MAX_TEXT_CHARS)).filter(|&c| c != '\u{fffc}').collect()
}

/// Text contents without the object-replacement characters that stand for embedded children.
fn clean_text(s: &str) -> String {
    let s: String = s.chars().filter(|&c| c != '\u{fffc}').collect();
    clip(s.trim(), MAX_TEXT_CHARS)
}

/// What a text input holds, exactly as it holds it (spaces at either end are part of what was
/// typed, and the typing check compares them), without object-replacement characters.
fn input_text(s: &str) -> String {
    let s: String = s.chars().filter(|&c| c != '\u{fffc}').collect();
    clip(&s, MAX_TEXT_CHARS)
}

fn format_number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers_bound_and_clean() {
        assert_eq!(clip("abcdef", 3), "abc");
        assert_eq!(clip("ภาษาไทย", 2), "ภา");
        assert_eq!(clean_text(" a\u{fffc}b "), "ab");
        assert_eq!(input_text(" a\u{fffc}b "), " ab ");
        let screen = format!("{}$ echo last\nlast\n$   \n", "x".repeat(2 * MAX_TEXT_CHARS));
        let tail = tail_text(&screen);
        assert_eq!(tail.chars().count(), MAX_TEXT_CHARS);
        assert!(tail.ends_with("$ echo last\nlast\n$"), "{tail:?}");
        assert_eq!(format_number(3.0), "3");
        assert_eq!(format_number(0.5), "0.5");
        let v = Value::Array(vec![
            Value::Struct(vec![Value::Str(":1.2".into()), Value::Str("/a".into())]),
            Value::Struct(vec![Value::Str("".into()), Value::Str("/org/a11y/atspi/null".into())]),
        ]);
        assert_eq!(obj_refs(&v), vec![ObjRef::new(":1.2", "/a")]);
        let e = Value::Struct(vec![Value::I32(1), Value::I32(2), Value::I32(-3), Value::I32(4)]);
        assert_eq!(extents_of(&e).map(|(x, y, w, h)| rect(x, y, w, h)), Some(Rect { x: 1, y: 2, width: 0, height: 4 }));
    }

    #[test]
    fn value_sources_in_any_order_keep_the_best_reading() {
        let combo = || AxNode { role: Some(Role::ComboBox), ..AxNode::default() };
        // Chromium's combo: empty text, then or before its selected option's name.
        for text_first in [true, false] {
            let mut n = combo();
            let steps = [(String::new(), true), ("Guinea".to_owned(), false)];
            let order: Vec<_> = if text_first { steps.to_vec() } else { steps.iter().rev().cloned().collect() };
            for (v, primary) in order {
                offer_value(&mut n, v, primary);
            }
            assert_eq!(n.value.as_deref(), Some("Guinea"), "text first: {text_first}");
        }
        // Shown text beats the selection; an empty field stays empty rather than unknown.
        let mut n = combo();
        offer_value(&mut n, "Gui".into(), false);
        offer_value(&mut n, "Guinea-Bissau".into(), true);
        offer_value(&mut n, "Ghana".into(), false);
        assert_eq!(n.value.as_deref(), Some("Guinea-Bissau"));
        let mut n = combo();
        offer_value(&mut n, String::new(), false);
        assert_eq!(n.value.as_deref(), Some(""));
        let one = Value::Struct(vec![Value::Str(":1.2".into()), Value::Str("/a/7".into())]);
        assert_eq!(obj_ref(&one), Some(ObjRef::new(":1.2", "/a/7")));
        let null = Value::Struct(vec![Value::Str(":1.2".into()), Value::Str("/org/a11y/atspi/null".into())]);
        assert_eq!(obj_ref(&null), None);
        assert_eq!(obj_ref(&Value::Str("x".into())), None);
    }
}

//! [`AtspiSource`]: the `Accessibility` implementation.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use handrail_platform::{Accessibility, AxLimits, AxSnapshot};

use crate::cache::{Cache, Dirty, Reach};
use crate::walk::{self, WalkStats, REGISTRY};
use handrail_dbus::wire::{Arg, Call, Message};
use handrail_dbus::DbusError;
use handrail_dbus::{simple_call, Bus};

/// Signal interfaces whose events invalidate the cache.
const EVENT_INTERFACES: [&str; 4] = [
    "org.a11y.atspi.Event.Object",
    "org.a11y.atspi.Event.Window",
    "org.a11y.atspi.Event.Focus",
    "org.a11y.atspi.Event.Document",
];

/// Events registered with the registry. Toolkit bridges (at-spi2-atk, Qt) emit most event kinds only
/// when some client registered for them; children/property/state changes are always emitted.
const REGISTERED_EVENTS: [&str; 9] = [
    "Object:ChildrenChanged",
    "Object:ActiveDescendantChanged",
    "Object:PropertyChange",
    "Object:StateChanged",
    "Object:BoundsChanged",
    "Object:TextChanged",
    "Window",
    "Focus",
    "Document",
];

/// Part of the walk deadline kept for assembling the snapshot.
const ASSEMBLY_MARGIN: Duration = Duration::from_millis(10);

/// Reads the desktop's accessibility tree over AT-SPI.
///
/// Connects lazily (on the first snapshot, and again after the bus went away); without a session bus or
/// an accessibility bus every snapshot is `AxHealth::Unavailable`, quickly. Each snapshot is bounded by
/// the given [`AxLimits`]; windows no event touched since the last snapshot are reused from a cache.
pub struct AtspiSource {
    inner: Mutex<Inner>,
}

struct Inner {
    session_bus_address: String,
    a11y_bus_address: Option<String>,
    conn: Option<Conn>,
    cache: Cache,
    stats: WalkStats,
    /// Input may have moved what is shown without an event (see `layout_may_have_moved`).
    layout_moved: bool,
}

struct Conn {
    bus: Bus,
    dirty: Arc<Mutex<Dirty>>,
}

impl AtspiSource {
    /// A source that finds the accessibility bus through `org.a11y.Bus.GetAddress` on the given session
    /// bus (a D-Bus address such as `unix:path=/run/user/1000/bus`). Nothing is read from the process
    /// environment; nothing connects until the first snapshot.
    pub fn new(session_bus_address: impl Into<String>) -> Self {
        Self::build(session_bus_address.into(), None)
    }

    /// A source that connects to the accessibility bus at `a11y_bus_address` directly (for when the
    /// caller already knows it, e.g. from `AT_SPI_BUS_ADDRESS`).
    pub fn with_a11y_bus(a11y_bus_address: impl Into<String>) -> Self {
        Self::build(String::new(), Some(a11y_bus_address.into()))
    }

    fn build(session_bus_address: String, a11y_bus_address: Option<String>) -> Self {
        Self {
            inner: Mutex::new(Inner {
                session_bus_address,
                a11y_bus_address,
                conn: None,
                cache: Cache::default(),
                stats: WalkStats::default(),
                layout_moved: false,
            }),
        }
    }

    /// Numbers about the last snapshot.
    pub fn last_stats(&self) -> WalkStats {
        self.lock().stats
    }

    /// Forgets every cached window, so the next snapshot walks everything.
    pub fn clear_cache(&self) {
        self.lock().cache.clear_windows();
    }

    /// True while connected to an accessibility bus.
    pub fn is_connected(&self) -> bool {
        self.lock().conn.as_ref().is_some_and(|c| !c.bus.is_closed())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic elsewhere cannot leave the cache half-written in a harmful way: keep going.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl std::fmt::Debug for AtspiSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AtspiSource { .. }")
    }
}

impl Accessibility for AtspiSource {
    fn snapshot(&self, limits: &AxLimits) -> AxSnapshot {
        let start = Instant::now();
        let deadline = start + limits.deadline;
        let mut guard = self.lock();
        let inner = &mut *guard;

        if inner.conn.as_ref().is_some_and(|c| c.bus.is_closed()) {
            log::info!("a11y bus connection lost; reconnecting");
            inner.conn = None;
        }
        let mut connected = false;
        if inner.conn.is_none() {
            match connect(&inner.session_bus_address, inner.a11y_bus_address.as_deref(), limits, deadline) {
                Ok(c) => {
                    inner.conn = Some(c);
                    inner.cache.clear();
                    connected = true;
                }
                Err(e) => {
                    log::debug!("a11y bus unavailable: {e}");
                    inner.stats = WalkStats { elapsed: start.elapsed(), ..WalkStats::default() };
                    return AxSnapshot::unavailable();
                }
            }
        }
        let Some(conn) = inner.conn.as_mut() else { return AxSnapshot::unavailable() };
        if let Err(e) = conn.bus.set_write_timeout(limits.call_timeout) {
            log::debug!("cannot bound writes: {e}");
        }
        let mut dirty = std::mem::take(&mut *conn.dirty.lock().unwrap_or_else(PoisonError::into_inner));
        inner.cache.active_descendants.extend(dirty.active.drain());
        let mut plan = dirty.plan(&inner.cache);
        plan.restate = std::mem::take(&mut inner.layout_moved);
        let walk_deadline = deadline.checked_sub(ASSEMBLY_MARGIN.min(limits.deadline / 10)).unwrap_or(deadline);
        let result = walk::walk(&mut conn.bus, limits, walk_deadline, &inner.cache, plan, &conn.dirty);
        if result.connection_lost {
            inner.conn = None;
            inner.cache.clear();
        } else {
            inner.cache.replace(result.fresh, result.app_names);
        }
        inner.stats = WalkStats { elapsed: start.elapsed(), connected, ..result.stats };
        log::debug!(
            "a11y snapshot: {:?} in {:?}: {} nodes, {} calls, {} windows walked, {} reused ({} of them with {} parts \
             read again), {} events since last",
            inner.stats.health,
            inner.stats.elapsed,
            inner.stats.nodes,
            inner.stats.calls,
            inner.stats.windows_walked,
            inner.stats.windows_reused,
            inner.stats.windows_patched,
            inner.stats.parts_read,
            dirty.events,
        );
        result.snapshot
    }

    fn layout_may_have_moved(&self) {
        self.lock().layout_moved = true;
    }
}

/// Connects to the accessibility bus and subscribes to its events.
fn connect(session: &str, a11y: Option<&str>, limits: &AxLimits, deadline: Instant) -> Result<Conn, DbusError> {
    let step = || limits.call_timeout.min(deadline.saturating_duration_since(Instant::now()));
    let address = match a11y {
        Some(a) => a.to_owned(),
        None => a11y_bus_address(session, step())?,
    };
    let dirty = Arc::new(Mutex::new(Dirty::default()));
    let sink = dirty.clone();
    let on_signal = Box::new(move |m: &Message| {
        // Only the header is looked at, and a state change's first argument (the state's name): other
        // event payloads can carry text typed into a password field.
        if m.interface.starts_with("org.a11y.atspi.Event.") && !m.sender.is_empty() {
            let state = (m.member == "StateChanged").then(|| m.first().ok()).flatten();
            let reach = Reach::of_event(&m.interface, &m.member, state.as_ref().and_then(|v| v.as_str()));
            // An active-descendant change carries an object reference (no text): the one to list.
            let active = (m.member == "ActiveDescendantChanged")
                .then(|| m.values().ok()?.get(3).and_then(walk::obj_ref))
                .flatten();
            let mut dirty = sink.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(descendant) = active {
                dirty.note_active(&m.sender, &m.path, descendant);
            }
            dirty.note(&m.sender, &m.path, reach);
        }
    });
    let mut bus = Bus::connect(&address, step(), on_signal)?;
    let rules: Vec<[Arg; 1]> =
        EVENT_INTERFACES.iter().map(|i| [Arg::Str(format!("type='signal',interface='{i}'"))]).collect();
    let events: Vec<[Arg; 3]> = REGISTERED_EVENTS
        .iter()
        .map(|e| [Arg::Str((*e).to_owned()), Arg::StrArray(vec![]), Arg::Str(String::new())])
        .collect();
    let mut calls: Vec<Call<'_>> = rules
        .iter()
        .map(|args| {
            simple_call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "AddMatch", args)
        })
        .collect();
    calls.extend(
        events.iter().map(|args| simple_call(REGISTRY, "/org/a11y/atspi/registry", REGISTRY, "RegisterEvent", args)),
    );
    bus.send_all(&calls)?;
    log::debug!("connected to the a11y bus as {}", bus.unique_name());
    Ok(Conn { bus, dirty })
}

/// Asks the session bus at `session` where the accessibility bus is (`org.a11y.Bus.GetAddress`).
pub fn a11y_bus_address(session: &str, timeout: Duration) -> Result<String, DbusError> {
    if session.is_empty() {
        return Err(DbusError::Address(String::new()));
    }
    let deadline = Instant::now() + timeout;
    let mut bus = Bus::connect(session, timeout, Box::new(|_| {}))?;
    let left = deadline.saturating_duration_since(Instant::now());
    let reply =
        bus.call(&simple_call("org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus", "GetAddress", &[]), left, "GetAddress")?;
    let address = reply.first()?.as_str().unwrap_or_default().to_owned();
    if address.is_empty() {
        return Err(DbusError::Address(address));
    }
    Ok(address)
}

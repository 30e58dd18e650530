//! How mutter scales its monitors, from `org.gnome.Mutter.DisplayConfig`.
//!
//! mutter lays the stage out one of two ways (`GetCurrentState`'s `layout-mode`). In the
//! *physical* one — GNOME's default, integer scales only — stage coordinates are device pixels and
//! an app on a monitor at 200 % draws at twice its size, so its own coordinates (what AT-SPI
//! reports) are half the stage's. In the *logical* one (fractional scaling switched on) the stage
//! is in the apps' units already, and a monitor's screen cast is in its device pixels: mutter
//! divides a pointer position in that stream by the monitor's scale. [`MonitorScale`] says, for
//! each monitor, what to multiply an app's coordinates by to reach the stage's, and the stage's to
//! reach its stream's.

use std::sync::Mutex;

use handrail_dbus::wire::{Call, Value};
use handrail_dbus::Bus;
use handrail_platform::Rect;

use crate::error::GnomeError;
use crate::mutter::{CALL_TIMEOUT, DISPLAY_CONFIG, DISPLAY_CONFIG_PATH};

/// `layout-mode` when the stage counts device pixels.
const PHYSICAL_LAYOUT: u32 = 2;

/// One monitor's area on the stage and the factors from its apps' coordinates to the stage's and
/// from the stage's to its screen cast's.
#[derive(Debug, Clone, PartialEq)]
pub struct MonitorScale {
    /// The monitor's connector (`Meta-0`, `eDP-1`), which its stream records.
    pub connector: String,
    pub area: Rect,
    pub app_to_stage: f64,
    pub stage_to_stream: f64,
}

/// Reads the monitors' scales from mutter, on a connection of its own.
pub struct MonitorScales {
    bus: Mutex<Bus>,
}

impl std::fmt::Debug for MonitorScales {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MonitorScales").finish_non_exhaustive()
    }
}

impl MonitorScales {
    pub fn connect(address: &str) -> Result<MonitorScales, GnomeError> {
        Ok(MonitorScales { bus: Mutex::new(Bus::connect(address, CALL_TIMEOUT, Box::new(|_| {}))?) })
    }

    /// Every monitor's area and factor, as mutter has them now.
    pub fn current(&self) -> Result<Vec<MonitorScale>, GnomeError> {
        let call = Call {
            destination: DISPLAY_CONFIG,
            path: DISPLAY_CONFIG_PATH,
            interface: DISPLAY_CONFIG,
            member: "GetCurrentState",
            args: &[],
            flags: 0,
        };
        let reply = self.bus.lock().unwrap_or_else(|e| e.into_inner()).call(
            &call,
            CALL_TIMEOUT,
            "DisplayConfig.GetCurrentState",
        )?;
        let values = reply.values()?;
        monitor_scales(&values)
            .ok_or_else(|| GnomeError::Unexpected(format!("GetCurrentState in an unknown shape: {}", reply.signature)))
    }
}

/// The factor for a window whose frame is `frame` (stage coordinates): that of the monitor holding
/// its centre, else of the one it overlaps most; 1 when it is on none.
pub fn scale_of(monitors: &[MonitorScale], frame: Rect) -> f64 {
    let centre = frame.center();
    monitors
        .iter()
        .find(|m| m.area.contains(centre))
        .or_else(|| {
            monitors
                .iter()
                .filter_map(|m| Some((m, m.area.intersection(&frame)?.area())))
                .max_by_key(|(_, overlap)| *overlap)
                .map(|(m, _)| m)
        })
        .map_or(1.0, |m| m.app_to_stage)
}

/// The monitors of `GetCurrentState`'s reply (`u`, monitors `a((ssss)a(siiddada{sv})a{sv})`, logical
/// monitors `a(iiduba(ssss)a{sv})`, properties `a{sv}`); `None` when it has another shape.
pub(crate) fn monitor_scales(values: &[Value]) -> Option<Vec<MonitorScale>> {
    let [_, monitors, logical, properties] = values else { return None };
    let physical = properties
        .as_array()?
        .iter()
        .filter_map(Value::as_struct)
        .find(|kv| kv.first().and_then(Value::as_str) == Some("layout-mode"))
        .and_then(|kv| kv.get(1)?.as_u32())
        == Some(PHYSICAL_LAYOUT);
    let mut out = Vec::new();
    for lm in logical.as_array()? {
        let [x, y, scale, transform, _primary, specs, _props] = lm.as_struct()? else { return None };
        let (x, y, scale, transform) = (x.as_i32()?, y.as_i32()?, scale.as_f64()?, transform.as_u32()?);
        // Its size: its first monitor's current mode, turned with it, in stage units.
        let spec = specs.as_array()?.first()?;
        let connector = spec.as_struct()?.first()?.as_str()?.to_owned();
        let (w, h) = current_mode(monitors, spec)?;
        let (w, h) = if transform % 2 == 1 { (h, w) } else { (w, h) };
        let stage = |v: i32| if physical { v } else { (f64::from(v) / scale).round() as i32 };
        let (w, h) = (u32::try_from(stage(w)).ok()?, u32::try_from(stage(h)).ok()?);
        let (app_to_stage, stage_to_stream) = if physical { (scale, 1.0) } else { (1.0, scale) };
        out.push(MonitorScale { connector, area: Rect::new(x, y, w, h), app_to_stage, stage_to_stream });
    }
    Some(out)
}

/// The size of the current mode of the monitor `spec` (its `(ssss)`) names.
fn current_mode(monitors: &Value, spec: &Value) -> Option<(i32, i32)> {
    let monitor = monitors.as_array()?.iter().find(|m| m.as_struct().and_then(|f| f.first()) == Some(spec))?;
    let modes = monitor.as_struct()?.get(1)?.as_array()?;
    modes.iter().find_map(|mode| {
        let [_, w, h, _, _, _, props] = mode.as_struct()? else { return None };
        let current = props.as_array()?.iter().filter_map(Value::as_struct).any(|kv| {
            kv.first().and_then(Value::as_str) == Some("is-current")
                && matches!(kv.get(1).map(Value::unwrapped), Some(Value::Bool(true)))
        });
        current.then_some((w.as_i32()?, h.as_i32()?))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &str) -> Value {
        Value::Str(v.into())
    }

    fn kv(k: &str, v: Value) -> Value {
        Value::Struct(vec![s(k), Value::Variant(Box::new(v))])
    }

    fn spec(connector: &str) -> Value {
        Value::Struct(vec![s(connector), s("MetaVendor"), s("MetaVirtualMonitor"), s("0x00")])
    }

    fn mode(w: i32, h: i32, current: bool) -> Value {
        Value::Struct(vec![
            s(&format!("{w}x{h}@60.000")),
            Value::I32(w),
            Value::I32(h),
            Value::F64(60.0),
            Value::F64(1.0),
            Value::Array(vec![Value::F64(1.0), Value::F64(2.0)]),
            Value::Array(if current { vec![kv("is-current", Value::Bool(true))] } else { Vec::new() }),
        ])
    }

    fn state(layout_mode: u32, logical: Vec<(i32, i32, f64, u32, &str)>) -> Vec<Value> {
        let monitors = Value::Array(vec![
            Value::Struct(vec![
                spec("Meta-0"),
                Value::Array(vec![mode(1280, 800, false), mode(2560, 1600, true)]),
                Value::Array(Vec::new()),
            ]),
            Value::Struct(vec![spec("Meta-1"), Value::Array(vec![mode(1920, 1080, true)]), Value::Array(Vec::new())]),
        ]);
        let logical = Value::Array(
            logical
                .into_iter()
                .map(|(x, y, scale, transform, connector)| {
                    Value::Struct(vec![
                        Value::I32(x),
                        Value::I32(y),
                        Value::F64(scale),
                        Value::U32(transform),
                        Value::Bool(true),
                        Value::Array(vec![spec(connector)]),
                        Value::Array(Vec::new()),
                    ])
                })
                .collect(),
        );
        let props = Value::Array(vec![kv("layout-mode", Value::U32(layout_mode))]);
        vec![Value::U32(2), monitors, logical, props]
    }

    #[test]
    fn a_physical_layout_scales_apps_by_their_monitors_scale() {
        let got = monitor_scales(&state(2, vec![(0, 0, 2.0, 0, "Meta-0"), (2560, 0, 1.0, 1, "Meta-1")])).expect("read");
        assert_eq!(
            got,
            vec![
                MonitorScale {
                    connector: "Meta-0".into(),
                    area: Rect::new(0, 0, 2560, 1600),
                    app_to_stage: 2.0,
                    stage_to_stream: 1.0
                },
                // Turned a quarter: taller than wide.
                MonitorScale {
                    connector: "Meta-1".into(),
                    area: Rect::new(2560, 0, 1080, 1920),
                    app_to_stage: 1.0,
                    stage_to_stream: 1.0
                },
            ]
        );
        assert_eq!(scale_of(&got, Rect::new(600, 200, 1280, 1100)), 2.0);
        assert_eq!(scale_of(&got, Rect::new(2600, 100, 300, 300)), 1.0);
        // Mostly off screen: the monitor it overlaps; on none: its own units.
        assert_eq!(scale_of(&got, Rect::new(-900, 10, 1000, 100)), 2.0);
        assert_eq!(scale_of(&got, Rect::new(-900, -900, 10, 10)), 1.0);
    }

    #[test]
    fn a_logical_layout_is_in_the_apps_units_already() {
        let got = monitor_scales(&state(1, vec![(0, 0, 2.0, 0, "Meta-0")])).expect("read");
        let at_200 = MonitorScale {
            connector: "Meta-0".into(),
            area: Rect::new(0, 0, 1280, 800),
            app_to_stage: 1.0,
            stage_to_stream: 2.0,
        };
        assert_eq!(got, vec![at_200]);
        let got = monitor_scales(&state(1, vec![(0, 0, 1.25, 0, "Meta-0")])).expect("read");
        assert_eq!((got[0].area, got[0].stage_to_stream), (Rect::new(0, 0, 2048, 1280), 1.25));
    }

    #[test]
    fn another_shape_is_not_guessed_at() {
        assert_eq!(monitor_scales(&[]), None);
        let mut bad = state(2, vec![(0, 0, 2.0, 0, "Meta-9")]);
        assert_eq!(monitor_scales(&bad), None, "a logical monitor naming no known monitor");
        bad[2] = Value::Array(vec![Value::Struct(vec![Value::I32(0)])]);
        assert_eq!(monitor_scales(&bad), None);
    }
}

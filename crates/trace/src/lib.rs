//! Traces: what each call asked, what the guards decided, what happened, and what the screen looked
//! like before and after — recorded to a folder, and rendered to one self-contained HTML page.
//!
//! # Format (version 1)
//!
//! A trace is a folder:
//!
//! - `trace.json` — `{"format": "handrail-trace", "version": 1, "created": RFC 3339 time, "recorder":
//!   what wrote it, "handrail": version}`. Readers refuse other formats and newer versions.
//! - `steps.jsonl` — one JSON object per call, in order (`handrail_wire::TraceStep`: the audit record
//!   of the call, `version` and `reason` included, extended): `step` (1, 2, …), `time`, `turn`, `mode`,
//!   `tool`, `action`, `target` (the arguments that aim: ids, target text, keys, app, URL without
//!   credentials, `text_chars` — typed text is never recorded), `guard` (`decision`, `rule`/`marker`),
//!   `verdict` (the result's tag), `status`, `message`, `expect` (`kind`, `result`), `changed`,
//!   `timings_ms` (`capture`, `settle`, `observe`, `encode`, `total`), `blocked` (requests the
//!   browser's network guard refused since the previous call: `method`, `url` without credentials,
//!   `reason`; at most 16) and `blocked_count`, `observation` (the id the call
//!   published) and `before_observation`, `target_box` and `changed_box` (`[x, y, w, h]` in screenshot
//!   coordinates), `before` and `after` (image file names or null), and `text` (the result text the
//!   model read).
//! - `step-NNN-before.jpg`, `step-NNN-after.jpg` — the screenshots with overlays: the target's box in
//!   red, the changed region in blue, and every secure field (password entries) filled black;
//!   `step-NNN-thumb.jpg` — a small copy of the step's last picture for timelines (field `thumb`).
//!
//! Secure field contents never reach a trace: elements carry no value for them, OCR over them is
//! dropped by the engine, typed text is never written, and their pixels are blacked out.

pub mod report;

use std::fs::{self, File};
use std::io::{BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use handrail_core::observation::Observation;
use handrail_core::{Outcome, RawArgs, Turn};
use handrail_imaging::draw::{fill_rect, stroke_rect, Rgb};
use handrail_imaging::{encoder, ImageFormat};
use handrail_platform::{Frame, Rect};
use handrail_wire::{AuditRecord, TraceStep};
use serde_json::{json, Value};

pub const FORMAT: &str = "handrail-trace";
pub const VERSION: u64 = 1;

/// Width of the timeline pictures.
const THUMB_WIDTH: u32 = 240;

/// Why a trace could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    #[error("cannot write the trace in {0}: {1}")]
    Write(String, std::io::Error),
    #[error("cannot read the trace in {0}: {1}")]
    Read(String, std::io::Error),
    #[error("{0} is not a handrail trace (no trace.json)")]
    NotATrace(String),
    #[error("{path}: {why}")]
    Invalid { path: String, why: String },
    #[error("{0} was written by a newer handrail (trace version {1}; this one reads version {VERSION})")]
    TooNew(String, u64),
}

/// One call to record.
#[derive(Debug, Clone, Copy)]
pub struct Step<'a> {
    pub unix_ms: u64,
    pub turn: &'a Turn,
    /// `computer` or `read_image`.
    pub tool: &'a str,
    pub args: &'a RawArgs,
    /// The latest observation before the call (what the model was looking at).
    pub before: Option<&'a Arc<Observation>>,
    pub outcome: &'a Outcome,
}

/// Writes a trace folder, step by step. A step that cannot be written whole (a full disk) is taken
/// back out, so the trace stays readable up to the last step that was.
#[derive(Debug)]
pub struct TraceWriter {
    dir: PathBuf,
    steps: File,
    step: u32,
    /// Length of `steps.jsonl` after the last step written whole.
    complete_len: u64,
}

fn write_err(dir: &Path) -> impl Fn(std::io::Error) -> TraceError + '_ {
    move |e| TraceError::Write(dir.display().to_string(), e)
}

impl TraceWriter {
    /// Creates (or empties of an older trace) `dir` and writes the header. `recorder` says what is
    /// recording, e.g. `handrail serve`.
    pub fn create(dir: &Path, recorder: &str, unix_ms: u64) -> Result<Self, TraceError> {
        fs::create_dir_all(dir).map_err(write_err(dir))?;
        // A trace folder reused: old steps and images would mix with the new ones.
        if let Ok(entries) = fs::read_dir(dir) {
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().to_string();
                let ours = name == "steps.jsonl"
                    || name == "report.html"
                    || (name.starts_with("step-") && name.ends_with(".jpg"));
                if ours {
                    let _ = fs::remove_file(entry.path());
                }
            }
        }
        let header = json!({
            "format": FORMAT,
            "version": VERSION,
            "created": handrail_wire::rfc3339_utc(unix_ms),
            "recorder": recorder,
            "handrail": env!("CARGO_PKG_VERSION"),
        });
        fs::write(dir.join("trace.json"), format!("{header:#}\n")).map_err(write_err(dir))?;
        let steps = File::create(dir.join("steps.jsonl")).map_err(write_err(dir))?;
        Ok(Self { dir: dir.to_path_buf(), steps, step: 0, complete_len: 0 })
    }

    /// Continues the trace in `dir` (written earlier, e.g. by another session of the same run): new
    /// steps are appended and numbered after the last one.
    pub fn resume(dir: &Path) -> Result<Self, TraceError> {
        let existing = read(dir)?;
        let last = existing.steps.iter().filter_map(|s| s.get("step").and_then(Value::as_u64)).max().unwrap_or(0);
        let steps = fs::OpenOptions::new().append(true).open(dir.join("steps.jsonl")).map_err(write_err(dir))?;
        let complete_len = steps.metadata().map_err(write_err(dir))?.len();
        Ok(Self { dir: dir.to_path_buf(), steps, step: u32::try_from(last).unwrap_or(u32::MAX), complete_len })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Steps recorded so far.
    pub fn steps(&self) -> u32 {
        self.step
    }

    /// Records one call: its line in `steps.jsonl` and its before/after screenshots. On an error
    /// nothing of the step is left behind: its images are removed and `steps.jsonl` is cut back to the
    /// previous step.
    pub fn record(&mut self, step: Step<'_>) -> Result<(), TraceError> {
        self.step += 1;
        let written = self.write_step(self.step, step);
        if written.is_err() {
            self.take_back(self.step);
            self.step -= 1;
        }
        written
    }

    /// Removes what a step that failed half-way left: its images and any part of its line.
    fn take_back(&mut self, n: u32) {
        for kind in ["before", "after", "thumb"] {
            let _ = fs::remove_file(self.dir.join(format!("step-{n:03}-{kind}.jpg")));
        }
        // Cutting the file frees space, so this works on a full disk too.
        if self.steps.set_len(self.complete_len).is_ok() {
            let _ = self.steps.seek(SeekFrom::Start(self.complete_len));
        }
    }

    fn write_step(&mut self, n: u32, step: Step<'_>) -> Result<(), TraceError> {
        let outcome = step.outcome;
        let before_obs = step.before.filter(|b| b.inspect.is_none());
        // The engine says what the call aimed at; an inspected region is its own box.
        let target = outcome.targets.first();
        let target_box = target.map(|t| t.bounds).or_else(|| region_box(step.args));
        let changed_box = outcome.changes.as_ref().and_then(|c| c.visual.bounds);

        let before_file = match before_obs.and_then(|b| b.screenshot.as_ref().map(|s| (b, s))) {
            Some((obs, shot)) => {
                let name = format!("step-{n:03}-before.jpg");
                let thumb = outcome.observation.as_ref().and_then(|o| o.screenshot.as_ref()).is_none().then_some(n);
                self.image(&name, shot, obs, &[(target_box, Rgb::RED)], thumb)?;
                Some(name)
            }
            None => None,
        };
        let after_file = match outcome.observation.as_ref().and_then(|o| o.screenshot.as_ref().map(|s| (o, s))) {
            Some((obs, shot)) => {
                let name = format!("step-{n:03}-after.jpg");
                // The target may have moved: the same element (ids persist) where it is now.
                let moved = target.map(|t| obs.element(t.id).map_or(t.bounds, |now| now.bounds));
                self.image(&name, shot, obs, &[(changed_box, Rgb::BLUE), (moved, Rgb::RED)], Some(n))?;
                Some(name)
            }
            None => None,
        };

        let ctx = handrail_wire::AuditContext {
            unix_ms: step.unix_ms,
            turn: &step.turn.id,
            mode: step.turn.mode.as_str(),
            tool: step.tool,
        };
        let thumb = format!("step-{n:03}-thumb.jpg");
        let record = TraceStep {
            step: n,
            record: AuditRecord::of_call(ctx, step.args, outcome),
            status: outcome.status.into(),
            message: outcome.message.clone(),
            before_observation: step.before.map(|b| b.id.to_string()),
            target_box: target_box.as_ref().map(bounds),
            changed_box: changed_box.as_ref().map(bounds),
            before: before_file,
            after: after_file,
            thumb: self.dir.join(&thumb).exists().then_some(thumb),
            text: outcome.text(),
            image_size: outcome.observation.as_ref().map(|o| [o.image_size.width, o.image_size.height]),
        };
        // One write for the whole line, so a failure leaves at most one partial line to cut.
        let line = format!("{}\n", handrail_wire::to_value(&record));
        self.steps.write_all(line.as_bytes()).map_err(write_err(&self.dir))?;
        self.steps.flush().map_err(write_err(&self.dir))?;
        self.complete_len += line.len() as u64;
        Ok(())
    }

    /// Writes one overlaid screenshot; with `thumb`, also the step's small timeline picture.
    fn image(
        &self,
        name: &str,
        shot: &Frame,
        obs: &Observation,
        boxes: &[(Option<Rect>, Rgb)],
        thumb: Option<u32>,
    ) -> Result<(), TraceError> {
        let mut frame = shot.clone();
        for e in obs.elements.iter().filter(|e| e.is_secure()) {
            fill_rect(&mut frame, e.bounds, Rgb::BLACK);
        }
        for (r, color) in boxes {
            if let Some(r) = r {
                // A little outside the box, so the element itself stays visible.
                let grown = Rect::new(r.x - 3, r.y - 3, r.width + 6, r.height + 6);
                stroke_rect(&mut frame, grown, *color, 3);
            }
        }
        let jpeg = encoder(ImageFormat::Jpeg { quality: 75 });
        let failed = |e: handrail_platform::PlatformError| {
            TraceError::Write(self.dir.display().to_string(), std::io::Error::other(e.to_string()))
        };
        fs::write(self.dir.join(name), jpeg.encode(&frame).map_err(failed)?.bytes).map_err(write_err(&self.dir))?;
        if let Some(n) = thumb {
            let small = frame.size.fit_within(handrail_platform::Size::new(THUMB_WIDTH, THUMB_WIDTH));
            let thumb = handrail_imaging::resize_bgrx(&frame, small);
            fs::write(self.dir.join(format!("step-{n:03}-thumb.jpg")), jpeg.encode(&thumb).map_err(failed)?.bytes)
                .map_err(write_err(&self.dir))?;
        }
        Ok(())
    }
}

/// The region an `inspect` call named.
fn region_box(args: &RawArgs) -> Option<Rect> {
    let [x, y, w, h] = args.region.as_deref()? else { return None };
    let fit = |v: i64| i32::try_from(v).ok();
    let size = |v: i64| u32::try_from(v).ok();
    Some(Rect::new(fit(*x)?, fit(*y)?, size(*w)?, size(*h)?))
}

fn bounds(r: &Rect) -> [i64; 4] {
    [r.x.into(), r.y.into(), r.width.into(), r.height.into()]
}

/// A trace as read back: its header and its steps.
#[derive(Debug, Clone)]
pub struct Trace {
    pub dir: PathBuf,
    pub header: Value,
    pub steps: Vec<Value>,
}

/// Reads the trace in `dir`, checking its format and version.
pub fn read(dir: &Path) -> Result<Trace, TraceError> {
    let shown = dir.display().to_string();
    let header_path = dir.join("trace.json");
    let header_text = match fs::read_to_string(&header_path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(TraceError::NotATrace(shown)),
        Err(e) => return Err(TraceError::Read(shown, e)),
    };
    let header: Value = serde_json::from_str(&header_text)
        .map_err(|e| TraceError::Invalid { path: header_path.display().to_string(), why: format!("not JSON: {e}") })?;
    if header.get("format").and_then(Value::as_str) != Some(FORMAT) {
        return Err(TraceError::NotATrace(shown));
    }
    let version = header.get("version").and_then(Value::as_u64).unwrap_or(0);
    if version > VERSION {
        return Err(TraceError::TooNew(shown, version));
    }
    let steps_path = dir.join("steps.jsonl");
    let file = File::open(&steps_path).map_err(|e| TraceError::Read(shown.clone(), e))?;
    let mut steps = Vec::new();
    for (i, line) in BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| TraceError::Read(shown.clone(), e))?;
        if line.trim().is_empty() {
            continue;
        }
        let step: Value = serde_json::from_str(&line).map_err(|e| TraceError::Invalid {
            path: steps_path.display().to_string(),
            why: format!("line {} is not JSON: {e}", i + 1),
        })?;
        steps.push(step);
    }
    Ok(Trace { dir: dir.to_path_buf(), header, steps })
}

#[cfg(test)]
mod tests {
    use super::*;
    use handrail_core::{Config, Engine, Vision};
    use handrail_platform::Size;
    use handrail_sim::{SimDesktop, Widget, WindowSpec};

    #[test]
    fn a_step_that_cannot_be_written_leaves_nothing_of_itself() {
        let dir = std::env::temp_dir().join(format!("handrail-trace-full-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let sim = SimDesktop::new(Size::new(400, 300));
        let win = sim.add_window(WindowSpec::new("Form", "Form").bounds(Rect::new(0, 0, 400, 300)));
        sim.add_widget(win, Widget::button("Save").at(50, 50, 90, 30));
        let mut engine = Engine::new(sim.desktop(), Config { vision: Vision::Capable, ..Config::default() });
        let turn = Turn::default();
        let see = RawArgs::from_pairs(&[("action", "see")]).expect("args");
        let mut trace = TraceWriter::create(&dir, "test", 0).expect("create");
        let step = |trace: &mut TraceWriter, engine: &mut Engine| {
            let before = engine.latest().cloned();
            let outcome = engine.call_args(&see);
            let step = Step {
                unix_ms: 0,
                turn: &turn,
                tool: "computer",
                args: &see,
                before: before.as_ref(),
                outcome: &outcome,
            };
            trace.record(step)
        };
        step(&mut trace, &mut engine).expect("the first step");

        // Writes to /dev/full fail with ENOSPC, as on a full disk; the images still fit.
        let steps = std::mem::replace(
            &mut trace.steps,
            fs::OpenOptions::new().write(true).open("/dev/full").expect("/dev/full"),
        );
        let failed = step(&mut trace, &mut engine).expect_err("the line does not fit");
        assert!(failed.to_string().contains("No space left on device"), "{failed}");
        assert_eq!(trace.steps(), 1);
        let names: Vec<String> =
            fs::read_dir(&dir).expect("dir").flatten().map(|e| e.file_name().to_string_lossy().into()).collect();
        assert!(names.iter().all(|n| !n.starts_with("step-002")), "{names:?}");

        trace.steps = steps;
        step(&mut trace, &mut engine).expect("room again");
        let read_back = read(&dir).expect("readable");
        let numbers: Vec<u64> = read_back.steps.iter().filter_map(|s| s["step"].as_u64()).collect();
        assert_eq!(numbers, [1, 2], "numbered without a gap");
        let _ = fs::remove_dir_all(&dir);
    }
}

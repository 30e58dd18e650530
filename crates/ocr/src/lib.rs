//! In-process Tesseract OCR for handrail: the text of a screenshot as labels (English and Thai by
//! default), re-reading only what changed since the previous call.
//!
//! [`TesseractOcr`] implements [`handrail_platform::Ocr`]. It loads `libtesseract` at run time (see
//! `ffi.rs` for why not at build time), so a machine without Tesseract or without a language's
//! `.traineddata` still builds and runs: [`Ocr::available`] is false and
//! [`TesseractOcr::unavailable_reason`] says what to install; the engine reports `ocr=unavailable`.
//!
//! # Pipeline of one [`Ocr::recognize`] call
//! 1. The frame (BGRX) is validated and the area read (the whole frame, or the region plus a margin) is
//!    converted to 8-bit luminance: Tesseract thresholds one channel anyway, and one byte a pixel is
//!    cheaper to copy and upscale (3 ms against 23 ms for `upscale_bgrx` + `to_rgb`) and to read
//!    (Tesseract itself is ~15% faster on it than on RGB or BGRX, same recall).
//! 2. Skip regions ([`TesseractOcr::set_skip_regions`]) are painted flat.
//! 3. Incremental: the image is hashed in 16x16 tiles and compared with the previous call on the same
//!    frame geometry. Nothing changed → the previous lines, without running Tesseract (under 1 ms). Some
//!    tiles changed → only padded rectangles around them are read (`changes.rs`) and previous lines
//!    elsewhere are kept. More than half changed → a full pass.
//! 4. A full pass is cut into horizontal bands, one per engine ([`TesseractConfig::parallelism`]), at
//!    the emptiest row near each even split; a word belongs to the band holding its centre.
//! 5. Each piece is normalised (`grey.rs`: flat backgrounds → white, ink of either polarity → dark, long
//!    lines and bars erased — Tesseract's global threshold otherwise lands between two background greys
//!    and its layout analysis drops text enclosed by frames), upscaled 2x when [`Upscale`] says so, and
//!    read with the first language; spans it reads badly are read again in the other languages
//!    ([`TesseractConfig::split_languages`]). Bounds are mapped back to frame pixels.
//! 6. Terminal regions ([`Ocr::terminal_regions`]) are left out of all of the above and read whole on
//!    their own, upscaled further and segmented as one block (`terminal.rs`).
//! 7. Words are filtered (confidence, shape), grouped into labels (close words on one row; a wide gap
//!    splits "File   Edit   View") and Thai glyph tokens are joined without spaces (`layout.rs`).
//!
//! # Threads
//! A Tesseract API object must not be used by two threads at once. Each [`TesseractOcr`] owns a small
//! pool of engine sets (one per parallel band, created on first use and kept); a band takes a set out of
//! the pool for its duration, so no engine is ever shared. Calls on one instance are serialised (the
//! incremental memory is sequential by nature). `OMP_THREAD_LIMIT=1` must be in effect (see
//! [`ensure_thread_limit_or_reexec`]).
#![cfg(unix)]

mod changes;
mod cursor;
mod engine;
mod ffi;
mod grey;
mod languages;
mod layout;
mod terminal;
mod tessdata;
mod threads;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use handrail_platform::{Frame, Ocr, OcrLine, PlatformError, Rect};

pub use engine::PageSegMode;
pub use languages::{desktop_locale, locale_language};
pub use terminal::TerminalReading;
pub use tessdata::SEARCH_DIRS as TESSDATA_SEARCH_DIRS;
pub use threads::{ensure_thread_limit_or_reexec, thread_limit_in_effect, ThreadLimit, THREAD_LIMIT_VAR};

use changes::TileGrid;
use engine::{Engine, Word};

/// The pure layout step (Tesseract's words → labels), reachable for the fuzz targets in `fuzz/`. Not part
/// of the crate's API.
#[doc(hidden)]
pub mod fuzzing {
    use handrail_platform::{OcrLine, Rect};

    use crate::engine::Word;
    use crate::layout::{self, LayoutParams};

    fn words(words: &[(String, Rect, f32)]) -> Vec<Word> {
        words
            .iter()
            .map(|(text, bounds, confidence)| Word { text: text.clone(), bounds: *bounds, confidence: *confidence })
            .collect()
    }

    /// Groups recognised words (text, frame bounds, confidence) into labels, as a read does.
    pub fn group(recognised: &[(String, Rect, f32)], min_confidence: f32, max_gap: f32) -> Vec<OcrLine> {
        layout::group(&words(recognised), LayoutParams { min_confidence, max_gap, ..LayoutParams::default() })
    }

    /// The spans worth reading again in other languages, with the indices of the words each replaces.
    pub fn retry_spans(recognised: &[(String, Rect, f32)], min_height: u32) -> Vec<(Rect, Vec<usize>)> {
        layout::retry_spans(&words(recognised), min_height, layout::RETRY_CONFIDENCE)
    }
}
use grey::GreyImage;
use layout::LayoutParams;
use terminal::TerminalMemory;

/// Why OCR failed or is unavailable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OcrError {
    /// `libtesseract` could not be loaded.
    #[error("{0}")]
    LibraryMissing(String),
    /// A language's `.traineddata` is not installed.
    #[error("{0}")]
    LanguageMissing(String),
    /// The configuration is unusable (bad language name, path with NUL…).
    #[error("{0}")]
    Config(String),
    /// Tesseract refused to start with the configured languages and data.
    #[error("{0}")]
    Init(String),
    /// The frame is malformed.
    #[error("{0}")]
    Invalid(String),
    /// Recognition hit [`TesseractConfig::deadline`].
    #[error("{0}")]
    Timeout(String),
    /// Anything else.
    #[error("{0}")]
    Failed(String),
}

impl From<OcrError> for PlatformError {
    fn from(e: OcrError) -> Self {
        match e {
            OcrError::LibraryMissing(m) | OcrError::LanguageMissing(m) | OcrError::Config(m) | OcrError::Init(m) => {
                PlatformError::Unavailable(format!("OCR ({m})"))
            }
            OcrError::Invalid(m) => PlatformError::Invalid(m),
            OcrError::Timeout(m) => PlatformError::Timeout(format!("OCR: {m}")),
            OcrError::Failed(m) => PlatformError::Failed(m),
        }
    }
}

/// When to read an image at twice its size.
///
/// Measured on a 1280x800 GTK screen (13 px UI font, eng, one engine): 1x finds 20 of 23 known labels in
/// ~230 ms, 2x all 23 in ~400 ms — at 1x Tesseract loses short labels ("OK", "application.ui") and
/// merges words ("itis").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Upscale {
    /// Always read at 1x (fastest; misses small UI labels).
    Never,
    /// Always read at 2x.
    Always,
    /// 2x, unless the previous call found the text large (median height of its legible lines at least
    /// [`LARGE_TEXT`] frame pixels — a HiDPI screen captured at full size), then 1x; see [`auto_factor`].
    Auto,
}

/// Median label height (frame pixels) from which [`Upscale::Auto`] reads at 1x: text this tall is read as
/// well at 1x as 13 px UI text at 2x (which is 18–28 px tall after upscaling).
pub const LARGE_TEXT: u32 = 18;
/// Once reading at 1x, the median height below which [`Upscale::Auto`] goes back to 2x. The band between
/// this and [`LARGE_TEXT`] keeps text near the threshold from switching the scale on every call.
pub const SMALL_TEXT: u32 = 14;
/// Confidence (0–100) from which a line counts as evidence of the text's size. A low-confidence line is
/// often ink that is not text (an icon, a spinner beside a label) and measures the wrong thing.
const SIZE_EVIDENCE_CONFIDENCE: f32 = 70.0;

/// The height of most of the legible text: the median line height, each line counted once per
/// character, so a long line of body text outweighs a short tall word (and an even count of lines has
/// no tie to break arbitrarily).
fn text_height(lines: &[OcrLine]) -> Option<u32> {
    let mut heights: Vec<(u32, usize)> = lines
        .iter()
        .filter(|l| l.confidence >= SIZE_EVIDENCE_CONFIDENCE)
        .map(|l| (l.bounds.height, l.text.chars().filter(|c| !c.is_whitespace()).count()))
        .filter(|&(_, chars)| chars > 0)
        .collect();
    heights.sort_unstable();
    let total: usize = heights.iter().map(|&(_, chars)| chars).sum();
    let mut seen = 0;
    heights
        .into_iter()
        .find(|&(_, chars)| {
            seen += chars;
            seen * 2 >= total
        })
        .map(|(height, _)| height)
}

/// The scale [`Upscale::Auto`] reads at, given the lines a previous call read at `factor` (`None`:
/// nothing known, 2x).
///
/// Only legible lines count, and with none the scale stays: a page with one URL and a spinner beside a
/// label once made each call read a tall garbage line at 2x (→ 1x), then nothing large at 1x (→ 2x), so
/// every call was a full pass instead of an incremental one.
pub fn auto_factor(previous: Option<(u32, &[OcrLine])>) -> u32 {
    let Some((factor, lines)) = previous else {
        return 2;
    };
    match text_height(lines) {
        None => factor.clamp(1, 2),
        Some(h) if h >= LARGE_TEXT => 1,
        Some(h) if factor == 1 && h >= SMALL_TEXT => 1,
        Some(_) => 2,
    }
}

/// Settings of a [`TesseractOcr`].
#[derive(Debug, Clone, PartialEq)]
pub struct TesseractConfig {
    /// Tesseract language list, `+`-separated (`"eng+tha"`). Each needs `<lang>.traineddata`. The
    /// default is English, the desktop locale's language and Thai, those of them installed (see
    /// [`TesseractConfig::languages_for_locale`]).
    pub languages: String,
    /// The tessdata directory; `None` tries `TESSDATA_PREFIX`, then [`TESSDATA_SEARCH_DIRS`].
    pub datapath: Option<PathBuf>,
    /// The library to load; `None` tries `libtesseract.so.5`, `.so.4`, `.so` on the loader's path. The
    /// first instance in a process decides (one Tesseract per process).
    pub library: Option<PathBuf>,
    pub page_seg_mode: PageSegMode,
    pub upscale: Upscale,
    /// Words below this confidence (0–100) are dropped unless they look like real words.
    pub min_confidence: f32,
    /// Bound for one Tesseract pass; Tesseract stops and the call fails with [`OcrError::Timeout`].
    pub deadline: Duration,
    /// Engines reading in parallel (each holds its own models: ~40 MB for eng+tha).
    pub parallelism: usize,
    /// Re-read only what changed since the previous call (see the crate docs).
    pub incremental: bool,
    /// With several languages, read with the first alone and re-read in the others only the spans it
    /// read badly (a line of Thai comes back from eng as Latin soup at confidence ~0); `false` hands
    /// Tesseract the whole list instead, which retries every word its first language is unsure of — file
    /// names and identifiers included — in every other language: ~15% slower on a UI screen, same recall.
    pub split_languages: bool,
    /// Before reading: flatten backgrounds to white, turn ink of either polarity dark, and erase long
    /// lines and bars (see `grey.rs`). Makes every crop read like the whole screen and stops dialog
    /// frames and title bars from hiding the text they enclose.
    pub normalize_background: bool,
    /// Extra Tesseract parameters set on every engine (name, value).
    pub variables: Vec<(String, String)>,
    /// How regions named by [`Ocr::terminal_regions`] are read.
    pub terminal: TerminalReading,
}

impl TesseractConfig {
    /// The default language list for a desktop in `locale` (`de_DE.UTF-8`): `eng`, the locale's
    /// language and `tha`, those installed (`eng` always).
    pub fn languages_for_locale(locale: Option<&str>) -> String {
        languages::for_locale(locale, tessdata::installed)
    }
}

impl Default for TesseractConfig {
    fn default() -> Self {
        Self {
            languages: Self::languages_for_locale(desktop_locale().as_deref()),
            datapath: None,
            library: None,
            page_seg_mode: PageSegMode::SparseText,
            upscale: Upscale::Auto,
            min_confidence: 60.0,
            deadline: Duration::from_secs(10),
            parallelism: std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 2),
            incremental: true,
            split_languages: true,
            normalize_background: true,
            variables: Vec::new(),
            terminal: TerminalReading::default(),
        }
    }
}

/// Work counters (for tests and benchmarks).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OcrStats {
    /// `recognize` calls that ran or reused anything.
    pub calls: u64,
    /// Calls that read the whole area.
    pub full_passes: u64,
    /// Calls that read only changed regions.
    pub incremental_passes: u64,
    /// Calls answered from memory (nothing changed).
    pub reused: u64,
    /// Tesseract runs (one per band or region).
    pub tesseract_runs: u64,
    /// Frame pixels handed to Tesseract (before upscaling).
    pub pixels_read: u64,
    /// Rectangles (frame coordinates) read by the most recent call.
    pub last_regions: Vec<Rect>,
    /// Upscale factor of the most recent call that ran Tesseract (1 or 2).
    pub last_factor: u32,
    /// Terminal regions read (each a Tesseract run, also counted in `tesseract_runs`).
    pub terminal_passes: u64,
    /// Terminal regions answered from memory (unchanged).
    pub reused_terminals: u64,
    /// Upscale factor of the most recent terminal read.
    pub last_terminal_factor: u32,
}

/// What the previous call on one frame geometry saw.
struct Memory {
    key: (handrail_platform::Size, Rect, Rect),
    tiles: TileGrid,
    /// In frame coordinates.
    lines: Vec<OcrLine>,
    /// Upscale factor the lines were read at.
    factor: u32,
}

/// How many frame geometries are remembered (the full screen plus one inspected region, typically).
const MEMORIES: usize = 2;

/// Bands of a full pass overlap by this much (frame pixels), so Tesseract sees every owned word with
/// context, even one crossing a cut that found no empty row.
const BAND_OVERLAP: u32 = 48;
/// Below this height a full pass is not split.
const MIN_BAND_SPLIT: u32 = 256;
/// Padding around an explicitly requested region (frame pixels), so text its edge cuts is read whole.
const REGION_MARGIN: u32 = 16;
/// Padding around changed tiles (frame pixels; horizontal, vertical): horizontally at least the widest
/// word gap that still joins a label, vertically just some background around the changed glyphs.
const CHANGE_MARGIN: (u32, u32) = (16, 6);
/// Context around a piece being read that background normalisation looks at (frame pixels): the
/// normaliser's 3x3 cells of 16 px and the erased runs of up to [`grey::LONG_RUN`] px.
const NORMALIZE_CONTEXT: u32 = 64;
/// Lines less tall than this (frame pixels) are not re-read in the other languages (see
/// `layout::retry_spans`).
const MIN_RETRY_HEIGHT: u32 = 10;
/// Small doubtful lines re-read at most per piece of the screen read (see `reread_small_text`).
const MAX_SMALL_REREADS: usize = 8;
/// A span re-read in the other languages replaces the primary's reading only at this mean confidence
/// (real Thai text reads at 90+; an icon read as Thai glyphs at 30–65).
const RETRY_ACCEPT: f32 = 70.0;
/// Above this changed fraction of the area, one full pass is cheaper than many regions.
const FULL_PASS_FRACTION: f64 = 0.5;

/// One piece of an image to read, in coordinates of the area's grey image. Words touching an edge of
/// `read` that is not an edge of the frame are dropped: they are fragments of text the cut went through.
#[derive(Debug, Clone, Copy)]
struct Job {
    read: Rect,
    /// Words whose centre lies outside are someone else's.
    own: Rect,
}

/// The words one job read.
type JobResult = Result<Vec<Word>, OcrError>;

/// What an incremental call reads.
enum Plan {
    /// Nothing changed.
    Reuse,
    /// Everything.
    Full,
    /// These rectangles; the lines are the previous ones outside them.
    Regions(Vec<Rect>, Vec<OcrLine>),
}

/// The lines whose centre lies in `region` (all of them when `None`).
fn within(lines: Vec<OcrLine>, region: Option<Rect>) -> Vec<OcrLine> {
    match region {
        None => lines,
        Some(r) => lines.into_iter().filter(|l| r.contains(l.bounds.center())).collect(),
    }
}

/// Tesseract in-process, implementing [`Ocr`]. See the crate docs.
pub struct TesseractOcr {
    config: TesseractConfig,
    /// Ready to create engines, or why not.
    ready: Result<Ready, OcrError>,
    /// Set when creating the first engine failed (e.g. a corrupt traineddata).
    broken: Mutex<Option<OcrError>>,
    engines: Mutex<Vec<Engines>>,
    memory: Mutex<Vec<Memory>>,
    skip: Mutex<Vec<Rect>>,
    terminals: Mutex<Vec<Rect>>,
    terminal_memory: Mutex<Vec<TerminalMemory>>,
    stats: Mutex<OcrStats>,
}

#[derive(Clone)]
struct Ready {
    api: &'static ffi::Api,
    datapath: PathBuf,
    /// Tesseract language list of the primary engine (the first language when split).
    primary: String,
    /// The other languages, for re-reading spans the primary read badly (when split). A span is only
    /// replaced when read with more confidence, so Latin the primary merely struggled with stays.
    secondary: Option<String>,
}

/// One worker's engines.
struct Engines {
    primary: Engine,
    /// Created when first needed.
    secondary: Option<Engine>,
}

impl std::fmt::Debug for TesseractOcr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TesseractOcr")
            .field("languages", &self.config.languages)
            .field("available", &self.available())
            .finish_non_exhaustive()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding one of these leaves plain data behind; carry on with it.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Default for TesseractOcr {
    fn default() -> Self {
        Self::new(TesseractConfig::default())
    }
}

impl TesseractOcr {
    /// Checks that the library loads and every language's data exists (cheap: no model is loaded yet;
    /// see [`TesseractOcr::warm_up`]). Never fails: an unusable setup is reported by
    /// [`Ocr::available`] and [`TesseractOcr::unavailable_reason`].
    pub fn new(config: TesseractConfig) -> TesseractOcr {
        let ready = Self::prepare(&config);
        if let Err(e) = &ready {
            log::info!("ocr: unavailable: {e}");
        }
        TesseractOcr {
            config,
            ready,
            broken: Mutex::new(None),
            engines: Mutex::new(Vec::new()),
            memory: Mutex::new(Vec::new()),
            skip: Mutex::new(Vec::new()),
            terminals: Mutex::new(Vec::new()),
            terminal_memory: Mutex::new(Vec::new()),
            stats: Mutex::new(OcrStats::default()),
        }
    }

    fn prepare(config: &TesseractConfig) -> Result<Ready, OcrError> {
        let langs = tessdata::parse_languages(&config.languages)?;
        let names: Vec<String> = match &config.library {
            Some(p) => vec![p.display().to_string()],
            None => ffi::LIBRARY_NAMES.iter().map(|s| (*s).to_owned()).collect(),
        };
        let api = ffi::api(&names).map_err(OcrError::LibraryMissing)?;
        let datapath = tessdata::locate(config.datapath.as_deref(), &langs)?;
        let (primary, secondary) = if config.split_languages && langs.len() > 1 {
            (langs[0].clone(), Some(langs[1..].join("+")))
        } else {
            (langs.join("+"), None)
        };
        Ok(Ready { api, datapath, primary, secondary })
    }

    /// Why OCR is unavailable (what is missing and how to install it); `None` when it is available.
    pub fn unavailable_reason(&self) -> Option<String> {
        match &self.ready {
            Err(e) => Some(e.to_string()),
            Ok(_) => lock(&self.broken).as_ref().map(ToString::to_string),
        }
    }

    /// The configuration in use.
    pub fn config(&self) -> &TesseractConfig {
        &self.config
    }

    /// The tessdata directory in use (when available).
    pub fn datapath(&self) -> Option<&Path> {
        self.ready.as_ref().ok().map(|r| r.datapath.as_path())
    }

    /// Tesseract's version ("5.3.0") when the library is loaded.
    pub fn version(&self) -> Option<String> {
        self.ready.as_ref().ok().map(|r| ffi::version_of(r.api))
    }

    /// Loads the models of every engine a full pass will use now (80–120 ms each for eng+tha), so the first
    /// observation does not pay for it. Safe to call from a background thread.
    pub fn warm_up(&self) -> Result<(), OcrError> {
        let want = self.config.parallelism.max(1);
        let mut fresh = Vec::new();
        while lock(&self.engines).len() + fresh.len() < want {
            let mut set = self.new_engines()?;
            if let Some(spec) = self.ready()?.secondary.clone() {
                set.secondary = Some(self.new_engine(&spec)?);
            }
            fresh.push(set);
        }
        lock(&self.engines).extend(fresh);
        Ok(())
    }

    /// Regions (frame coordinates) whose text is known already — typically the bounds of accessibility
    /// elements with a name, so OCR does not read text twice. They are painted flat before reading and
    /// words centred in them are dropped; a change of the list re-reads the affected areas. Keep out
    /// controls whose label the accessibility tree lacks (OCR labels them) and secure fields do not need
    /// listing (the engine drops OCR over them anyway). The list applies to every later call until replaced;
    /// an empty list reads everything.
    pub fn set_skip_regions(&self, regions: Vec<Rect>) {
        *lock(&self.skip) = regions.into_iter().filter(|r| !r.is_empty()).collect();
    }

    /// Regions (frame coordinates) showing a terminal's character grid, read on their own as
    /// [`TesseractConfig::terminal`] says (see `terminal.rs`). Applies to every later call until replaced.
    pub fn set_terminal_regions(&self, regions: Vec<Rect>) {
        *lock(&self.terminals) = regions.into_iter().filter(|r| !r.is_empty()).collect();
    }

    /// Work counters so far.
    pub fn stats(&self) -> OcrStats {
        lock(&self.stats).clone()
    }

    /// Forgets the previous calls: the next one is a full pass.
    pub fn forget(&self) {
        lock(&self.memory).clear();
        lock(&self.terminal_memory).clear();
    }

    /// Like [`Ocr::recognize`], but always a full pass (the result still becomes the memory for the next
    /// incremental call).
    pub fn recognize_full(&self, frame: &Frame, region: Option<Rect>) -> Result<Vec<OcrLine>, OcrError> {
        self.run(frame, region, false)
    }

    fn ready(&self) -> Result<&Ready, OcrError> {
        let ready = self.ready.as_ref().map_err(Clone::clone)?;
        if let Some(e) = lock(&self.broken).as_ref() {
            return Err(e.clone());
        }
        Ok(ready)
    }

    fn new_engine(&self, languages: &str) -> Result<Engine, OcrError> {
        let ready = self.ready()?;
        let t = Instant::now();
        let result = Engine::new(ready.api, &ready.datapath, languages);
        match result {
            Ok(mut engine) => {
                for (name, value) in &self.config.variables {
                    engine.set_variable(name, value);
                }
                log::debug!("ocr: engine for {languages} ready in {:?}", t.elapsed());
                Ok(engine)
            }
            Err(e) => {
                // With the files present, a refusal means broken data: the same will happen every time.
                log::warn!("ocr: {e}");
                *lock(&self.broken) = Some(e.clone());
                Err(e)
            }
        }
    }

    fn new_engines(&self) -> Result<Engines, OcrError> {
        let primary = self.ready()?.primary.clone();
        Ok(Engines { primary: self.new_engine(&primary)?, secondary: None })
    }

    fn run(&self, frame: &Frame, region: Option<Rect>, incremental: bool) -> Result<Vec<OcrLine>, OcrError> {
        self.ready()?;
        handrail_imaging::validate(frame).map_err(|e| OcrError::Invalid(e.to_string()))?;
        let whole = Rect::from_size(frame.size);
        let wanted = match region {
            None => whole,
            Some(r) => match r.intersection(&whole) {
                Some(r) => r,
                None => return Ok(Vec::new()),
            },
        };
        // A region is read with a margin: text its edge cuts is then read whole (and left out when its
        // centre lies outside) instead of coming back as fragments, and a region drawn tightly around a
        // label still gives that label.
        let area = if region.is_some() { changes::pad(&wanted, REGION_MARGIN, REGION_MARGIN, &whole) } else { whole };
        threads::warn_if_unlimited();
        let t0 = Instant::now();

        let Some(mut grey) = GreyImage::from_area(frame, area) else {
            return Ok(Vec::new());
        };
        let to_local = |r: &Rect| Rect::new(r.x - area.x, r.y - area.y, r.width, r.height);
        let known: Vec<Rect> =
            lock(&self.skip).iter().filter_map(|r| r.intersection(&area)).map(|r| to_local(&r)).collect();
        for r in &known {
            let v = grey.outline_mean(*r);
            grey.fill(*r, v);
        }
        // Terminals are read on their own, with their own settings and memory; the rest of the pass sees
        // them as flat background, so a terminal scrolling does not re-read the screen around it.
        let terminals: Vec<Rect> =
            lock(&self.terminals).iter().filter_map(|r| r.intersection(&area)).map(|r| to_local(&r)).collect();
        let terminal_lines = self.read_terminals(&grey, &terminals, area, (frame.size, frame.origin), incremental)?;
        for r in &terminals {
            let v = grey.outline_mean(*r);
            grey.fill(*r, v);
        }
        let skip: Vec<Rect> = known.iter().chain(&terminals).copied().collect();
        let mut lines = self.read_screen(&grey, &skip, frame, area, incremental)?;
        lines.extend(terminal_lines);
        lines.sort_by_key(|l| (l.bounds.y, l.bounds.x));
        log::debug!("ocr: {} lines in {:?}", lines.len(), t0.elapsed());
        Ok(within(lines, region.map(|_| wanted)))
    }

    /// Reads `grey` (the area `area` of `frame`, skip regions already painted flat) everywhere but `skip`,
    /// incrementally when allowed. Lines come back in frame coordinates.
    fn read_screen(
        &self,
        grey: &GreyImage,
        skip: &[Rect],
        frame: &Frame,
        area: Rect,
        incremental: bool,
    ) -> Result<Vec<OcrLine>, OcrError> {
        let t0 = Instant::now();
        let whole = Rect::from_size(frame.size);
        let to_local = |r: &Rect| Rect::new(r.x - area.x, r.y - area.y, r.width, r.height);
        let tiles = TileGrid::of(grey);
        let key = (frame.size, frame.origin, area);
        let bounds = grey.bounds();

        // Held for the whole call: calls on one instance are sequential (engines are not held here).
        let mut memory = lock(&self.memory);
        let previous = memory.iter().position(|m| m.key == key).map(|i| memory.remove(i));
        // Text size is a property of the screen, so any remembered geometry tells (this one first).
        let factor = match self.config.upscale {
            Upscale::Never => 1,
            Upscale::Always => 2,
            Upscale::Auto => auto_factor(previous.as_ref().or(memory.last()).map(|m| (m.factor, m.lines.as_slice()))),
        };
        let previous = previous.filter(|_| incremental && self.config.incremental);
        let plan = match &previous {
            // Lines read at another scale may differ slightly; do not mix them.
            Some(prev) if prev.factor == factor => self.plan_incremental(prev, &tiles, area, &bounds),
            _ => Plan::Full,
        };
        let (jobs, kept) = match plan {
            Plan::Reuse => {
                let lines = previous.as_ref().map(|p| p.lines.clone()).unwrap_or_default();
                if let Some(prev) = previous {
                    memory.push(prev);
                }
                drop(memory);
                let mut stats = lock(&self.stats);
                stats.calls += 1;
                stats.reused += 1;
                stats.last_regions.clear();
                return Ok(lines);
            }
            Plan::Full => (self.bands(grey), Vec::new()),
            Plan::Regions(regions, kept) => (regions.into_iter().map(|r| Job { read: r, own: r }).collect(), kept),
        };
        let full = kept.is_empty() && jobs.iter().map(|j| j.own.area()).sum::<u64>() >= bounds.area();

        let frame_local = to_local(&whole);
        let mut words = self.read_jobs(grey, &jobs, skip, &frame_local, factor)?;
        for w in &mut words {
            w.bounds.x += area.x;
            w.bounds.y += area.y;
        }
        let params = LayoutParams { min_confidence: self.config.min_confidence, ..LayoutParams::default() };
        let mut lines = kept;
        lines.extend(layout::group(&words, params));

        memory.push(Memory { key, tiles, lines: lines.clone(), factor });
        if memory.len() > MEMORIES {
            memory.remove(0);
        }
        drop(memory);

        let mut stats = lock(&self.stats);
        stats.calls += 1;
        if full {
            stats.full_passes += 1;
        } else {
            stats.incremental_passes += 1;
        }
        stats.tesseract_runs += jobs.len() as u64;
        stats.last_factor = factor;
        stats.pixels_read += jobs.iter().map(|j| j.read.area()).sum::<u64>();
        stats.last_regions =
            jobs.iter().map(|j| Rect::new(j.read.x + area.x, j.read.y + area.y, j.read.width, j.read.height)).collect();
        drop(stats);
        log::debug!(
            "ocr: {} lines from {} job(s) ({}) in {:?}",
            lines.len(),
            jobs.len(),
            if full { "full" } else { "incremental" },
            t0.elapsed()
        );
        Ok(lines)
    }

    /// What to read given the previous call on the same geometry (all in the area's coordinates).
    fn plan_incremental(&self, prev: &Memory, tiles: &TileGrid, area: Rect, bounds: &Rect) -> Plan {
        let Some(clusters) = tiles.changed_since(&prev.tiles) else {
            return Plan::Full;
        };
        if clusters.is_empty() {
            return Plan::Reuse;
        }
        let local = |l: &OcrLine| Rect::new(l.bounds.x - area.x, l.bounds.y - area.y, l.bounds.width, l.bounds.height);
        let prev_rects: Vec<Rect> = prev.lines.iter().map(local).collect();
        let regions = changes::plan(&clusters, CHANGE_MARGIN, &prev_rects, bounds);
        let changed: u64 = regions.iter().map(Rect::area).sum();
        if changed as f64 > bounds.area() as f64 * FULL_PASS_FRACTION {
            return Plan::Full;
        }
        // Regions were grown over every previous line they touch, so a line either lies wholly inside a
        // region (and is read again) or is untouched.
        let kept = prev.lines.iter().filter(|l| !regions.iter().any(|r| r.intersects(&local(l)))).cloned().collect();
        Plan::Regions(regions, kept)
    }

    /// A full pass: horizontal bands with overlap, one per parallel engine. Each cut goes through the row
    /// with the least ink near the even split, so it falls between text lines: a word then lies wholly on
    /// one side and the band holding its centre is the only one to keep it (Thai tokens of one line, with
    /// marks reaching above and below, would otherwise be split between two different readings).
    fn bands(&self, grey: &GreyImage) -> Vec<Job> {
        let bounds = grey.bounds();
        let n = self.config.parallelism.max(1) as u32;
        if n == 1 || bounds.height < MIN_BAND_SPLIT {
            return vec![Job { read: bounds, own: bounds }];
        }
        let mut cuts = vec![0u32];
        for i in 1..n {
            let even = (u64::from(bounds.height) * u64::from(i) / u64::from(n)) as u32;
            let search = BAND_OVERLAP / 2;
            cuts.push(grey.quietest_row(even.saturating_sub(search), even + search, even));
        }
        cuts.push(bounds.height);
        cuts.windows(2)
            .filter(|c| c[1] > c[0])
            .map(|c| {
                let own = Rect::new(0, c[0] as i32, bounds.width, c[1] - c[0]);
                Job { read: changes::pad(&own, 0, BAND_OVERLAP, &bounds), own }
            })
            .collect()
    }

    /// Runs `jobs` over `grey` (the area's image) on up to `parallelism` engine sets, each on its own
    /// thread; words come back in the image's coordinates, in job order (so results do not depend on
    /// which thread ran what).
    fn read_jobs(
        &self,
        grey: &GreyImage,
        jobs: &[Job],
        skip: &[Rect],
        frame: &Rect,
        factor: u32,
    ) -> Result<Vec<Word>, OcrError> {
        let workers = self.config.parallelism.clamp(1, jobs.len().max(1));
        let results: Mutex<Vec<Option<JobResult>>> = Mutex::new((0..jobs.len()).map(|_| None).collect());
        let next = AtomicUsize::new(0);
        let work = || -> Result<(), OcrError> {
            let mut engines = self.take_engines()?;
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(i) else { break };
                let r = self.read_job(&mut engines, grey, job, skip, frame, factor);
                lock(&results)[i] = Some(r);
            }
            self.give_back(engines);
            Ok(())
        };
        if workers == 1 {
            work()?;
        } else {
            let outcomes: Vec<Result<(), OcrError>> = std::thread::scope(|s| {
                let handles: Vec<_> = (0..workers).map(|_| s.spawn(work)).collect();
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or_else(|_| Err(OcrError::Failed("OCR worker panicked".into()))))
                    .collect()
            });
            outcomes.into_iter().collect::<Result<(), OcrError>>()?;
        }
        let mut words = Vec::new();
        for r in results.into_inner().unwrap_or_else(|e| e.into_inner()) {
            words.extend(r.unwrap_or_else(|| Err(OcrError::Failed("OCR job was not run".into())))?);
        }
        Ok(words)
    }

    fn take_engines(&self) -> Result<Engines, OcrError> {
        let pooled = lock(&self.engines).pop();
        match pooled {
            Some(e) => Ok(e),
            None => self.new_engines(),
        }
    }

    fn give_back(&self, engines: Engines) {
        let mut pool = lock(&self.engines);
        if pool.len() < self.config.parallelism.max(1) {
            pool.push(engines);
        }
    }

    fn read_job(
        &self,
        engines: &mut Engines,
        grey: &GreyImage,
        job: &Job,
        skip: &[Rect],
        frame: &Rect,
        factor: u32,
    ) -> Result<Vec<Word>, OcrError> {
        let mut img = self.prepared(grey, job.read);
        if factor > 1 {
            img = img.upscale(factor);
        }
        // Screens are ~96 dpi; saying so (scaled with the image) keeps Tesseract's size heuristics sane.
        let ppi = 96 * factor;
        let mut raw = engines.primary.recognize(&img, self.config.page_seg_mode, ppi, self.config.deadline)?;
        self.reread_small_text(engines, &img, factor, &mut raw)?;
        if let Some(spec) = &self.ready()?.secondary {
            self.retry_in_other_languages(engines, spec, &img, factor, &mut raw)?;
        }
        let mut words = Vec::with_capacity(raw.len());
        for mut w in raw {
            let mapped = unscale(&w.bounds, &job.read, factor);
            let c = mapped.center();
            if !job.own.contains(c) || skip.iter().any(|r| r.contains(c)) {
                continue;
            }
            if touches_inner_edge(&mapped, &job.read, frame) {
                continue;
            }
            w.bounds = mapped;
            log::trace!("ocr: word {:?} {:?} {:.0}", w.text, w.bounds, w.confidence);
            words.push(w);
        }
        Ok(words)
    }

    /// The piece `read` of `grey` as Tesseract should see it: normalised (when configured) with enough
    /// context around it (aligned to the normaliser's cells) that the result equals normalising the whole
    /// image — only what is read pays for it, and a band or region comes out the same as in a full pass.
    fn prepared(&self, grey: &GreyImage, read: Rect) -> GreyImage {
        if !self.config.normalize_background {
            return grey.crop(read);
        }
        let context =
            align_out(&changes::pad(&read, NORMALIZE_CONTEXT, NORMALIZE_CONTEXT, &grey.bounds()), grey::CELL as u32)
                .intersection(&grey.bounds())
                .unwrap_or(read);
        let t = Instant::now();
        let mut around = grey.crop(context);
        around.normalize_background();
        around.erase_long_runs(grey::LONG_RUN);
        log::trace!("ocr: normalised {context:?} in {:?}", t.elapsed());
        around.crop(Rect::new(read.x - context.x, read.y - context.y, read.width, read.height))
    }

    /// Re-reads the spans the primary language read badly (see `layout::retry_spans`) with the other
    /// languages and keeps the new words where they are read with more confidence.
    fn retry_in_other_languages(
        &self,
        engines: &mut Engines,
        spec: &str,
        img: &GreyImage,
        factor: u32,
        words: &mut Vec<Word>,
    ) -> Result<(), OcrError> {
        let spans = layout::retry_spans(words, MIN_RETRY_HEIGHT * factor, layout::RETRY_CONFIDENCE);
        if spans.is_empty() {
            return Ok(());
        }
        if engines.secondary.is_none() {
            engines.secondary = Some(self.new_engine(spec)?);
        }
        let Engines { primary, secondary } = engines;
        let Some(secondary) = secondary.as_mut() else { return Ok(()) };
        let deadline = self.config.deadline;
        reread(secondary, img, factor, 1, spans, deadline, words, layout::reads_as_words, Some(primary))
    }

    /// Re-reads small text the primary language read badly (lines less tall than the language retry
    /// takes) with the primary language again, one line at a time and twice as large: Tesseract reads
    /// 7–9 px status text ("Free space: 3.1 GB", "Col 7") right at 2x but doubts it (43–53), and a line
    /// read alone, larger, is read with the confidence it deserves or not at all.
    fn reread_small_text(
        &self,
        engines: &mut Engines,
        img: &GreyImage,
        factor: u32,
        words: &mut Vec<Word>,
    ) -> Result<(), OcrError> {
        let tall = MIN_RETRY_HEIGHT * factor;
        // Every word that would be left out as doubtful, not only the language retry's worst ones; the
        // widest first, and only so many: a toolbar of icons must not cost a look much.
        let mut spans: Vec<_> = layout::retry_spans(words, 0, self.config.min_confidence)
            .into_iter()
            .filter(|(span, _)| span.height < tall)
            .collect();
        spans.sort_by_key(|(span, _)| std::cmp::Reverse(span.width));
        spans.truncate(MAX_SMALL_REREADS);
        if spans.is_empty() {
            return Ok(());
        }
        reread(&mut engines.primary, img, factor, 2, spans, self.config.deadline, words, |_| true, None)
    }
}

/// Re-reads each span of `img` (read at `factor`) with `engine`, one line at a time, `scale` times
/// larger, and keeps the new words where they are read confidently, with more confidence than the
/// words they replace, and as `plausible` judges them (`spans`: each span and the indices of its words
/// in `words`).
#[allow(clippy::too_many_arguments)] // one private call path, each argument a different thing
fn reread(
    engine: &mut Engine,
    img: &GreyImage,
    factor: u32,
    scale: u32,
    spans: Vec<(Rect, Vec<usize>)>,
    deadline: std::time::Duration,
    words: &mut Vec<Word>,
    plausible: fn(&[Word]) -> bool,
    mut first_language: Option<&mut Engine>,
) -> Result<(), OcrError> {
    let mut replaced = vec![false; words.len()];
    let mut extra = Vec::new();
    for (span, members) in spans {
        // A little background around the line, as Tesseract expects.
        let h = span.height;
        let read = changes::pad(&span, h / 2, h / 3, &img.bounds());
        let mut again = read_line(engine, img, read, &span, factor, scale, deadline)?;
        log::trace!("ocr: re-read {span:?} ({} words) at {scale}x", members.len());
        let before = mean_confidence(members.iter().map(|&i| &words[i]));
        let after = mean_confidence(again.iter());
        // Icons and title-bar fragments also read badly in every language, just differently: only a
        // confident reading replaces the first one.
        if again.is_empty() || after <= before || after < RETRY_ACCEPT || !plausible(&again) {
            continue;
        }
        // A short line the other language reads well may be small Latin it takes for its own script
        // ("4 items" as "4 1 ไอทาร" in a status bar): the first language reads it once more alone,
        // twice as large, and keeps it when it is as sure.
        let short = again.iter().map(|w| w.text.chars().filter(|c| !c.is_whitespace()).count()).sum::<usize>()
            <= SECOND_OPINION_CHARS;
        if let (true, Some(first)) = (short, first_language.as_deref_mut()) {
            let own = read_line(first, img, read, &span, factor, 2, deadline)?;
            let own_mean = mean_confidence(own.iter());
            log::trace!("ocr: {span:?} in the first language at 2x: {own_mean:.0} against {after:.0}");
            // The first language reads another script as Latin soup at 0–30; words it reads at 60 or
            // more are its own, however sure the other language is of its glyphs.
            if own_mean >= SECOND_OPINION_ACCEPT && layout::reads_as_words(&own) {
                again = own;
            }
        }
        for &i in &members {
            replaced[i] = true;
        }
        extra.append(&mut again);
    }
    let mut i = 0;
    words.retain(|_| {
        i += 1;
        !replaced[i - 1]
    });
    words.append(&mut extra);
    Ok(())
}

/// Another language's reading of at most this many characters is checked against the first
/// language's, read alone at twice the size (see [`reread`]).
const SECOND_OPINION_CHARS: usize = 16;
/// The first language's own reading of such a line wins at this mean confidence.
const SECOND_OPINION_ACCEPT: f32 = 60.0;

/// Reads `read` of `img` (read at `factor`) as one line, `scale` times larger; the words centred in
/// `span`, back in the image's coordinates and clipped to `span` (the margin may catch the edge of a
/// neighbouring line, and Thai tokens' boxes often reach into the next line).
fn read_line(
    engine: &mut Engine,
    img: &GreyImage,
    read: Rect,
    span: &Rect,
    factor: u32,
    scale: u32,
    deadline: std::time::Duration,
) -> Result<Vec<Word>, OcrError> {
    let piece = img.crop(read).upscale(scale);
    let mut words = engine.recognize(&piece, PageSegMode::SingleLine, 96 * factor * scale, deadline)?;
    words.retain_mut(|w| {
        w.bounds = unscale(&w.bounds, &read, scale);
        match w.bounds.intersection(span) {
            Some(clipped) if span.contains(w.bounds.center()) => {
                w.bounds = clipped;
                true
            }
            _ => false,
        }
    });
    Ok(words)
}

/// Mean confidence of `words`, weighted by their characters.
fn mean_confidence<'a>(words: impl Iterator<Item = &'a Word>) -> f32 {
    let (sum, n) = words.fold((0.0f32, 0usize), |(s, n), w| {
        let c = w.text.chars().count();
        (s + w.confidence * c as f32, n + c)
    });
    if n == 0 {
        0.0
    } else {
        sum / n as f32
    }
}

/// A box Tesseract found in the `factor`-times upscaled image of `read`, back in the pixels `read` is
/// given in: near edges floored, far ones ceiled (exact at 1x).
fn unscale(b: &Rect, read: &Rect, factor: u32) -> Rect {
    let f = i64::from(factor.max(1));
    let x0 = i64::from(read.x) + i64::from(b.x).div_euclid(f);
    let y0 = i64::from(read.y) + i64::from(b.y).div_euclid(f);
    let x1 = i64::from(read.x) + (b.right() + f - 1).div_euclid(f);
    let y1 = i64::from(read.y) + (b.bottom() + f - 1).div_euclid(f);
    Rect::new(x0 as i32, y0 as i32, (x1 - x0).max(1) as u32, (y1 - y0).max(1) as u32)
}

/// `r` grown outward to multiples of `step` (x and y must be non-negative, as inside an image).
fn align_out(r: &Rect, step: u32) -> Rect {
    let s = i64::from(step.max(1));
    let x0 = i64::from(r.x).div_euclid(s) * s;
    let y0 = i64::from(r.y).div_euclid(s) * s;
    let x1 = (r.right() + s - 1).div_euclid(s) * s;
    let y1 = (r.bottom() + s - 1).div_euclid(s) * s;
    Rect::new(x0 as i32, y0 as i32, (x1 - x0) as u32, (y1 - y0) as u32)
}

/// True when `word` touches an edge of `read` that is not also an edge of the whole `frame`.
fn touches_inner_edge(word: &Rect, read: &Rect, frame: &Rect) -> bool {
    (word.x <= read.x && read.x > frame.x)
        || (word.y <= read.y && read.y > frame.y)
        || (word.right() >= read.right() && read.right() < frame.right())
        || (word.bottom() >= read.bottom() && read.bottom() < frame.bottom())
}

impl Ocr for TesseractOcr {
    fn available(&self) -> bool {
        self.ready.is_ok() && lock(&self.broken).is_none()
    }

    fn recognize(&self, frame: &Frame, region: Option<Rect>) -> Result<Vec<OcrLine>, PlatformError> {
        self.run(frame, region, true).map_err(PlatformError::from)
    }

    fn skip_regions(&self, regions: &[Rect]) {
        self.set_skip_regions(regions.to_vec());
    }

    fn terminal_regions(&self, regions: &[Rect]) {
        self.set_terminal_regions(regions.to_vec());
    }
}

#[cfg(test)]
mod tests {
    use super::{auto_factor, LARGE_TEXT};
    use handrail_platform::{OcrLine, Rect};

    fn line(text: &str, height: u32, confidence: f32) -> OcrLine {
        OcrLine { text: text.into(), bounds: Rect::new(10, 10, 100, height), confidence }
    }

    #[test]
    fn the_scale_follows_legible_text_and_does_not_flip_near_the_threshold() {
        assert_eq!(auto_factor(None), 2, "nothing known");
        // Large legible text: 1x; UI-sized text: 2x.
        let large = [line("Large print", 30, 92.0), line("for tired eyes", 31, 90.0), line("OK", 12, 95.0)];
        assert_eq!(auto_factor(Some((2, &large))), 1);
        assert_eq!(auto_factor(Some((1, &large))), 1);
        let small = [line("File", 11, 95.0), line("Edit", 11, 93.0), line("127.0.0.1:8000", 10, 90.0)];
        assert_eq!(auto_factor(Some((2, &small))), 2);
        assert_eq!(auto_factor(Some((1, &small))), 2);
        // Near the threshold, 1x stays 1x and 2x stays 2x.
        let near = [line("Heading", LARGE_TEXT - 2, 90.0)];
        assert_eq!(auto_factor(Some((1, &near))), 1);
        assert_eq!(auto_factor(Some((2, &near))), 2);
    }

    #[test]
    fn illegible_lines_are_no_evidence_of_size() {
        // What a page with a spinner beside a label gave: at 2x a legible URL and a tall garbage line
        // (the label merged with the spinner's ink), at 1x the URL and a stray digit.
        let at_2x = [line("127.0.0.1:36343", 10, 90.0), line("kicked 0", 29, 60.0)];
        assert_eq!(auto_factor(Some((2, &at_2x))), 2, "the garbage line must not switch to 1x");
        // Even read with confidence, the short tall label does not outweigh the longer small line.
        let at_2x = [line("127.0.0.1:36343", 10, 90.0), line("clicked 0", 29, 75.0)];
        assert_eq!(auto_factor(Some((2, &at_2x))), 2);
        // Nothing legible at all: the scale stays what it was.
        let noise = [line("~", 40, 20.0)];
        assert_eq!(auto_factor(Some((2, &noise))), 2);
        assert_eq!(auto_factor(Some((1, &noise))), 1);
        assert_eq!(auto_factor(Some((1, &[]))), 1);
    }
    use super::*;

    #[test]
    fn engine_type_can_be_shared_and_boxed() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<TesseractOcr>();
        let _: Box<dyn Ocr> =
            Box::new(TesseractOcr::new(TesseractConfig { languages: "".into(), ..Default::default() }));
    }

    #[test]
    fn alignment_and_inner_edges() {
        assert_eq!(align_out(&Rect::new(17, 3, 10, 30), 16), Rect::new(16, 0, 16, 48));
        let frame = Rect::new(0, 0, 100, 100);
        let read = Rect::new(0, 20, 100, 30);
        // Touching the left frame edge is fine; touching the region's top edge is a cut fragment.
        assert!(!touches_inner_edge(&Rect::new(0, 25, 10, 10), &read, &frame));
        assert!(touches_inner_edge(&Rect::new(30, 20, 10, 10), &read, &frame));
        assert!(touches_inner_edge(&Rect::new(30, 40, 10, 10), &read, &frame));
    }

    #[test]
    fn unusable_configuration_reports_instead_of_failing() {
        let ocr = TesseractOcr::new(TesseractConfig { languages: "+".into(), ..Default::default() });
        assert!(!ocr.available());
        assert!(ocr.unavailable_reason().is_some_and(|r| r.contains("no OCR language")));
        let err = ocr.recognize(&Frame::solid(handrail_platform::Size::new(8, 8), [0; 4]), None);
        assert!(matches!(err, Err(PlatformError::Unavailable(_))));
    }
}

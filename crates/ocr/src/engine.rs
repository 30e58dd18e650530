//! A safe owner of one `TessBaseAPI`.
//!
//! Tesseract's API object is not thread-safe: one engine serves one thread at a time (`&mut self`), which
//! the pool in `lib.rs` guarantees. It is not tied to a thread, so it may move between threads (`Send`).

use std::ffi::{c_int, CStr, CString};
use std::path::Path;
use std::ptr::NonNull;
use std::time::Duration;

use handrail_platform::Rect;

use crate::ffi::{self, Api, TessBaseApi};
use crate::grey::GreyImage;
use crate::OcrError;

/// How Tesseract should segment the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageSegMode {
    /// PSM 11: find as much text as possible in no particular order — suits UI screens (labels scattered
    /// over the image, no columns or paragraphs).
    SparseText,
    /// PSM 3: fully automatic page layout (columns, paragraphs) — suits documents.
    Auto,
    /// PSM 6: one uniform block of text — a terminal's character grid (rows of one font, one column).
    SingleBlock,
    /// PSM 7: the image is one line of text (used to re-read a span in other languages).
    SingleLine,
}

impl PageSegMode {
    fn raw(self) -> c_int {
        match self {
            PageSegMode::SparseText => ffi::PSM_SPARSE_TEXT,
            PageSegMode::Auto => ffi::PSM_AUTO,
            PageSegMode::SingleBlock => ffi::PSM_SINGLE_BLOCK,
            PageSegMode::SingleLine => ffi::PSM_SINGLE_LINE,
        }
    }
}

/// One recognised word in the coordinates of the image it was read from.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Word {
    pub text: String,
    pub bounds: Rect,
    pub confidence: f32,
}

pub(crate) struct Engine {
    api: &'static Api,
    handle: NonNull<TessBaseApi>,
}

// SAFETY: a TessBaseAPI has no thread affinity; it only must not be used by two threads at once, which
// `&mut self` on every method enforces.
unsafe impl Send for Engine {}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Engine { .. }")
    }
}

/// Frees a string Tesseract allocated when dropped.
struct TessText<'a> {
    api: &'a Api,
    ptr: NonNull<std::ffi::c_char>,
}

impl TessText<'_> {
    fn to_string_lossy(&self) -> String {
        // SAFETY: `ptr` is a NUL-terminated string from Tesseract, alive until `drop`.
        unsafe { CStr::from_ptr(self.ptr.as_ptr()) }.to_string_lossy().into_owned()
    }
}

impl Drop for TessText<'_> {
    fn drop(&mut self) {
        // SAFETY: the string came from a Tesseract getter documented to be freed with TessDeleteText.
        unsafe { (self.api.delete_text)(self.ptr.as_ptr()) }
    }
}

/// Deletes a result iterator when dropped.
struct Results<'a> {
    api: &'a Api,
    it: NonNull<ffi::TessResultIterator>,
}

impl Drop for Results<'_> {
    fn drop(&mut self) {
        // SAFETY: the iterator came from TessBaseAPIGetIterator and is deleted exactly once.
        unsafe { (self.api.result_delete)(self.it.as_ptr()) }
    }
}

/// Deletes a progress monitor when dropped.
struct Monitor<'a> {
    api: &'a Api,
    ptr: NonNull<ffi::EtextDesc>,
}

impl Drop for Monitor<'_> {
    fn drop(&mut self) {
        // SAFETY: created by TessMonitorCreate, deleted exactly once, after the recognition using it ended.
        unsafe { (self.api.monitor_delete)(self.ptr.as_ptr()) }
    }
}

impl Engine {
    /// Creates an engine and loads `languages` (e.g. "eng+tha") from `datapath` (the tessdata directory).
    /// Callers check the traineddata files first; this reports Tesseract's own refusal.
    pub(crate) fn new(api: &'static Api, datapath: &Path, languages: &str) -> Result<Engine, OcrError> {
        let path = CString::new(datapath.as_os_str().as_encoded_bytes())
            .map_err(|_| OcrError::Config(format!("tessdata path {} contains NUL", datapath.display())))?;
        let langs = CString::new(languages)
            .map_err(|_| OcrError::Config(format!("language list {languages:?} contains NUL")))?;
        // SAFETY: TessBaseAPICreate has no preconditions; NULL (allocation failure) is handled.
        let raw = unsafe { (api.base_create)() };
        let handle = NonNull::new(raw).ok_or_else(|| OcrError::Init("TessBaseAPICreate returned NULL".into()))?;
        // Owned from here on, so every early return below frees it.
        let mut engine = Engine { api, handle };
        // Tesseract's messages (including a failed load's, which this call reports as an error itself)
        // would go to stderr; `debug_file` is a process-wide parameter, so set it before Init.
        engine.set_variable("debug_file", "/dev/null");
        // SAFETY: live handle, valid C strings; Tesseract copies them.
        let rc = unsafe { (api.base_init2)(handle.as_ptr(), path.as_ptr(), langs.as_ptr(), ffi::OEM_LSTM_ONLY) };
        if rc != 0 {
            return Err(OcrError::Init(format!(
                "Tesseract could not load {languages:?} from {} (code {rc})",
                datapath.display()
            )));
        }
        Ok(engine)
    }

    /// Sets a Tesseract parameter; false when Tesseract does not know it.
    pub(crate) fn set_variable(&mut self, name: &str, value: &str) -> bool {
        let (Ok(n), Ok(v)) = (CString::new(name), CString::new(value)) else {
            return false;
        };
        // SAFETY: live handle, valid C strings (copied by Tesseract).
        let ok = unsafe { (self.api.base_set_variable)(self.handle.as_ptr(), n.as_ptr(), v.as_ptr()) } != 0;
        if !ok {
            log::warn!("ocr: Tesseract rejected parameter {name}={value}");
        }
        ok
    }

    /// Recognises `image` and returns its words. `ppi` is the resolution Tesseract should assume;
    /// `deadline` bounds the recognition (Tesseract stops early and this returns `Timeout`).
    pub(crate) fn recognize(
        &mut self,
        image: &GreyImage,
        psm: PageSegMode,
        ppi: u32,
        deadline: Duration,
    ) -> Result<Vec<Word>, OcrError> {
        let (w, h) = (image.width, image.height);
        // Tesseract rejects images smaller than a few pixels (and prints about it); nothing to read there.
        if w < 3 || h < 3 {
            return Ok(Vec::new());
        }
        let (Ok(cw), Ok(ch)) = (c_int::try_from(w), c_int::try_from(h)) else {
            return Err(OcrError::Invalid(format!("image {w}x{h} is too large")));
        };
        if image.data.len() < w as usize * h as usize {
            return Err(OcrError::Invalid(format!("grey buffer of {} bytes for {w}x{h}", image.data.len())));
        }
        let api = self.api;
        let handle = self.handle.as_ptr();
        // SAFETY: live handle; the buffer holds w*h bytes (checked above), 1 byte a pixel, rows w bytes
        // apart. Tesseract copies the pixels during SetImage, so `image` may go after this call.
        unsafe {
            (api.base_set_page_seg_mode)(handle, psm.raw());
            (api.base_set_image)(handle, image.data.as_ptr(), cw, ch, 1, cw);
            (api.base_set_source_resolution)(handle, ppi.clamp(1, 2400) as c_int);
        }

        // SAFETY: TessMonitorCreate has no preconditions; NULL is handled.
        let monitor = NonNull::new(unsafe { (api.monitor_create)() })
            .map(|ptr| Monitor { api, ptr })
            .ok_or_else(|| OcrError::Failed("TessMonitorCreate returned NULL".into()))?;
        let ms = c_int::try_from(deadline.as_millis()).unwrap_or(c_int::MAX);
        // SAFETY: live monitor; the deadline is measured from now.
        unsafe { (api.monitor_set_deadline_msecs)(monitor.ptr.as_ptr(), ms) };
        // SAFETY: live handle with an image set; the monitor outlives the call.
        let rc = unsafe { (api.base_recognize)(handle, monitor.ptr.as_ptr()) };
        drop(monitor);
        if rc != 0 {
            // SAFETY: live handle; clearing drops the partial results and the image copy.
            unsafe { (api.base_clear)(handle) };
            return Err(OcrError::Timeout(format!(
                "recognition of {w}x{h} stopped (code {rc}, deadline {deadline:?})"
            )));
        }

        let words = self.collect_words();
        // SAFETY: live handle; frees the image copy and results now instead of holding them until the
        // next call (a 2560x1600 page is several MB).
        unsafe { (api.base_clear)(handle) };
        Ok(words)
    }

    /// Walks the recognised words. Called right after a successful Recognize.
    fn collect_words(&mut self) -> Vec<Word> {
        let api = self.api;
        // SAFETY: live handle after Recognize; NULL means no results (an empty page).
        let Some(it) = NonNull::new(unsafe { (api.base_get_iterator)(self.handle.as_ptr()) }) else {
            return Vec::new();
        };
        let results = Results { api, it };
        let it = results.it.as_ptr();
        // SAFETY: `it` is live; the page iterator is a view of the same object (not separately owned).
        let page = unsafe { (api.result_page_iterator_const)(it) };
        let mut words = Vec::new();
        loop {
            if let Some(word) = self.word_at(it, page) {
                words.push(word);
            }
            // SAFETY: live iterator; returns 0 at the end.
            if unsafe { (api.result_next)(it, ffi::RIL_WORD) } == 0 {
                break;
            }
        }
        words
    }

    fn word_at(&self, it: *mut ffi::TessResultIterator, page: *const ffi::TessPageIterator) -> Option<Word> {
        let api = self.api;
        let (mut l, mut t, mut r, mut b) = (0, 0, 0, 0);
        // SAFETY: live iterator; the out-pointers are valid locals. 0 means "no box here" (empty page).
        if unsafe { (api.page_bounding_box)(page, ffi::RIL_WORD, &mut l, &mut t, &mut r, &mut b) } == 0 {
            return None;
        }
        // SAFETY: live iterator; the returned string (or NULL) is ours to free, which TessText does.
        let text = NonNull::new(unsafe { (api.result_utf8_text)(it, ffi::RIL_WORD) })
            .map(|ptr| TessText { api, ptr }.to_string_lossy())?;
        // SAFETY: live iterator.
        let confidence = unsafe { (api.result_confidence)(it, ffi::RIL_WORD) };
        let text = text.trim().to_owned();
        if text.is_empty() || r <= l || b <= t {
            return None;
        }
        Some(Word {
            text,
            bounds: Rect::new(l, t, (r - l) as u32, (b - t) as u32),
            confidence: confidence.clamp(0.0, 100.0),
        })
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        // SAFETY: the handle came from TessBaseAPICreate and is deleted exactly once (its destructor
        // ends the engine and frees the models).
        unsafe { (self.api.base_delete)(self.handle.as_ptr()) }
    }
}

//! Sources for facilities a desktop does not have. They report absence honestly (`ax=unavailable`,
//! `ocr=unavailable`) so the engine keeps working on the visual path.

use crate::element::AxSnapshot;
use crate::frame::Frame;
use crate::geometry::Rect;
use crate::traits::{Accessibility, AxLimits, Ocr};
use crate::{OcrLine, PlatformError};

/// No accessibility bus: every snapshot is `AxHealth::Unavailable`.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoAccessibility;

impl Accessibility for NoAccessibility {
    fn snapshot(&self, _limits: &AxLimits) -> AxSnapshot {
        AxSnapshot::unavailable()
    }
}

/// No OCR engine installed.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoOcr;

impl Ocr for NoOcr {
    fn available(&self) -> bool {
        false
    }

    fn recognize(&self, _frame: &Frame, _region: Option<Rect>) -> Result<Vec<OcrLine>, PlatformError> {
        Err(PlatformError::Unavailable("OCR".into()))
    }
}

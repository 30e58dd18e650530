//! Without libtesseract OCR is unavailable, with a reason — not a crash. Its own test binary (process):
//! the library is loaded once per process and the first configuration decides.

use handrail_ocr::{TesseractConfig, TesseractOcr};
use handrail_platform::{Frame, Ocr, PlatformError, Size};

#[test]
fn missing_library_makes_ocr_unavailable_with_a_reason() {
    let ocr = TesseractOcr::new(TesseractConfig {
        library: Some("/nonexistent/libtesseract.so.5".into()),
        ..TesseractConfig::default()
    });
    assert!(!ocr.available());
    let why = ocr.unavailable_reason().expect("a reason");
    assert!(why.contains("libtesseract") && why.contains("tesseract-ocr"), "{why}");
    let err = ocr.recognize(&Frame::solid(Size::new(10, 10), [255; 4]), None).expect_err("unavailable");
    assert!(matches!(err, PlatformError::Unavailable(_)), "{err:?}");
}

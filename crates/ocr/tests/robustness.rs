//! Whatever the frame, recognition answers (possibly an error) and never panics.

use handrail_ocr::{TesseractConfig, TesseractOcr};
use handrail_platform::{Frame, Ocr, PlatformError, Rect, Size};

fn ocr() -> TesseractOcr {
    let ocr = TesseractOcr::new(TesseractConfig { parallelism: 1, ..TesseractConfig::default() });
    assert!(ocr.available(), "OCR unavailable: {:?}", ocr.unavailable_reason());
    ocr
}

/// Deterministic noise (xorshift) so failures reproduce.
fn noise(size: Size, seed: u64) -> Frame {
    let mut s = seed.max(1);
    let mut f = Frame::solid(size, [0, 0, 0, 0]);
    for b in f.pixels.iter_mut() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        *b = s as u8;
    }
    f
}

#[test]
fn garbage_frames_never_panic() {
    let ocr = ocr();
    let mut frames = vec![
        Frame::solid(Size::new(0, 0), [0; 4]),
        Frame::solid(Size::new(1, 1), [255; 4]),
        Frame::solid(Size::new(2, 500), [0; 4]),
        Frame::solid(Size::new(640, 2), [128; 4]),
        Frame::solid(Size::new(300, 200), [255; 4]),
        Frame::solid(Size::new(300, 200), [0; 4]),
        noise(Size::new(320, 240), 7),
        noise(Size::new(97, 13), 99),
    ];
    // Stripes and a checkerboard: many tiny components.
    let mut stripes = Frame::solid(Size::new(256, 256), [255; 4]);
    for (i, px) in stripes.pixels.chunks_exact_mut(4).enumerate() {
        let (x, y) = (i % 256, i / 256);
        if (x / 2 + y / 3) % 2 == 0 {
            px[..3].fill(0);
        }
    }
    frames.push(stripes);
    for f in &frames {
        for region in [None, Some(Rect::new(-50, -50, 100, 100)), Some(Rect::new(5000, 5000, 10, 10))] {
            let lines = ocr.recognize(f, region).expect("valid frames are read without error");
            for l in &lines {
                assert!(!l.text.trim().is_empty());
                assert!(Rect::from_size(f.size).contains_rect(&l.bounds), "{l:?} outside {:?}", f.size);
            }
        }
    }
}

#[test]
fn malformed_frames_are_invalid_not_a_panic() {
    let ocr = ocr();
    let mut short = Frame::solid(Size::new(100, 100), [255; 4]);
    short.pixels.truncate(1000);
    let mut narrow = Frame::solid(Size::new(100, 100), [255; 4]);
    narrow.stride = 10;
    let mut huge = Frame::solid(Size::new(4, 4), [255; 4]);
    huge.size = Size::new(u32::MAX, u32::MAX);
    for f in [short, narrow, huge] {
        assert!(matches!(ocr.recognize(&f, None), Err(PlatformError::Invalid(_))), "{f:?}");
    }
}

#[test]
fn missing_language_data_makes_ocr_unavailable_with_a_reason() {
    let ocr = TesseractOcr::new(TesseractConfig { languages: "eng+zzz".into(), ..TesseractConfig::default() });
    assert!(!ocr.available());
    let why = ocr.unavailable_reason().expect("a reason");
    assert!(why.contains("zzz.traineddata") && why.contains("tesseract-ocr-zzz"), "{why}");
    let err = ocr.recognize(&Frame::solid(Size::new(10, 10), [255; 4]), None).expect_err("unavailable");
    assert!(matches!(&err, PlatformError::Unavailable(m) if m.contains("zzz")), "{err:?}");

    let empty = std::env::temp_dir().join(format!("handrail-ocr-empty-{}", std::process::id()));
    std::fs::create_dir_all(&empty).expect("temp dir");
    let ocr = TesseractOcr::new(TesseractConfig { datapath: Some(empty.clone()), ..TesseractConfig::default() });
    assert!(!ocr.available());
    assert!(ocr.unavailable_reason().is_some_and(|w| w.contains("eng.traineddata")));
    let _ = std::fs::remove_dir_all(&empty);

    let bad = TesseractOcr::new(TesseractConfig { languages: "../eng".into(), ..TesseractConfig::default() });
    assert!(!bad.available());
}

#[test]
fn corrupt_language_data_is_reported_not_fatal() {
    let dir = std::env::temp_dir().join(format!("handrail-ocr-corrupt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join("eng.traineddata"), b"not a model").expect("write");
    let ocr = TesseractOcr::new(TesseractConfig {
        languages: "eng".into(),
        datapath: Some(dir.clone()),
        ..TesseractConfig::default()
    });
    // The file exists, so this only shows when Tesseract tries to load it.
    assert!(ocr.available());
    let err = ocr.recognize(&Frame::solid(Size::new(64, 64), [255; 4]), None).expect_err("corrupt model");
    assert!(matches!(err, PlatformError::Unavailable(_)), "{err:?}");
    assert!(!ocr.available());
    assert!(ocr.unavailable_reason().is_some());
    let _ = std::fs::remove_dir_all(&dir);
}

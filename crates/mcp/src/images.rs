//! `read_image`: image files shown to the model, with their own ids (`img_N`) and state, never mixed
//! with desktop observations.
//!
//! Files are only read under the configured roots (after resolving symlinks, so a link cannot point
//! out), only if their bytes are a PNG, JPEG, GIF or WebP image, and only up to a size limit. The file
//! is passed on as it is: its header is read for the format and dimensions, nothing is decoded.

use std::io::Read;
use std::path::{Path, PathBuf};

/// Where `read_image` may read, and how much.
#[derive(Debug, Clone)]
pub struct ImageRoots {
    roots: Vec<PathBuf>,
    pub max_bytes: u64,
}

impl ImageRoots {
    /// Roots that do not exist are dropped with a warning, so a typo does not widen anything.
    pub fn new(roots: impl IntoIterator<Item = PathBuf>) -> Self {
        let roots = roots
            .into_iter()
            .filter_map(|r| match r.canonicalize() {
                Ok(c) if c.is_dir() => Some(c),
                Ok(_) => {
                    log::warn!("image root {} is not a folder; ignored", r.display());
                    None
                }
                Err(e) => {
                    log::warn!("image root {} cannot be used ({e}); ignored", r.display());
                    None
                }
            })
            .collect();
        Self { roots, max_bytes: 8 * 1024 * 1024 }
    }

    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }
}

/// An image ready to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageFile {
    pub path: PathBuf,
    pub mime: &'static str,
    pub width: u32,
    pub height: u32,
    pub bytes: Vec<u8>,
}

/// Why a file cannot be shown.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImageError {
    #[error("read_image has no allowed folders; the server must be started with --image-root DIR")]
    NoRoots,
    #[error("`path` must be an absolute path (got {0:?})")]
    NotAbsolute(String),
    #[error("`path` is empty")]
    Empty,
    #[error("`path` is too long ({0} characters; at most 4096)")]
    TooLong(usize),
    #[error("`path` contains a control character")]
    ControlCharacter,
    #[error("{0} is not inside an allowed folder ({1})")]
    OutsideRoots(String, String),
    #[error("cannot read {0}: {1}")]
    Unreadable(String, String),
    #[error("{0} is not a regular file")]
    NotAFile(String),
    #[error("{path} is {size} bytes; read_image shows files up to {limit} bytes")]
    TooLarge { path: String, size: u64, limit: u64 },
    #[error("{0} is not a PNG, JPEG, GIF or WebP image")]
    NotAnImage(String),
}

/// Format and dimensions from an image's first bytes; `None` when they are not a supported image.
pub fn sniff(bytes: &[u8]) -> Option<(&'static str, u32, u32)> {
    let be16 = |i: usize| bytes.get(i..i + 2).map(|b| u32::from(u16::from_be_bytes([b[0], b[1]])));
    let le16 = |i: usize| bytes.get(i..i + 2).map(|b| u32::from(u16::from_le_bytes([b[0], b[1]])));
    let be32 = |i: usize| bytes.get(i..i + 4).map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
    let le24 = |i: usize| bytes.get(i..i + 3).map(|b| u32::from(b[0]) | u32::from(b[1]) << 8 | u32::from(b[2]) << 16);
    let nonzero = |w: u32, h: u32| (w > 0 && h > 0).then_some((w, h));

    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") && bytes.get(12..16) == Some(b"IHDR") {
        let (w, h) = nonzero(be32(16)?, be32(20)?)?;
        return Some(("image/png", w, h));
    }
    if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        let (w, h) = nonzero(le16(6)?, le16(8)?)?;
        return Some(("image/gif", w, h));
    }
    if bytes.starts_with(b"RIFF") && bytes.get(8..12) == Some(b"WEBP") {
        let (w, h) = match bytes.get(12..16)? {
            b"VP8 " => (le16(26)? & 0x3fff, le16(28)? & 0x3fff),
            b"VP8L" => {
                let bits = be32(21)?.swap_bytes();
                ((bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1)
            }
            b"VP8X" => (le24(24)? + 1, le24(27)? + 1),
            _ => return None,
        };
        let (w, h) = nonzero(w, h)?;
        return Some(("image/webp", w, h));
    }
    if bytes.starts_with(&[0xff, 0xd8]) {
        // Walk the segments to the first start-of-frame marker.
        let mut i = 2;
        loop {
            while bytes.get(i) == Some(&0xff) && bytes.get(i + 1) == Some(&0xff) {
                i += 1;
            }
            if *bytes.get(i)? != 0xff {
                return None;
            }
            let marker = *bytes.get(i + 1)?;
            match marker {
                0xd8 | 0x01 | 0xd0..=0xd7 => i += 2,
                0xd9 | 0xda => return None,
                0xc0..=0xcf if !matches!(marker, 0xc4 | 0xc8 | 0xcc) => {
                    let (w, h) = nonzero(be16(i + 7)?, be16(i + 5)?)?;
                    return Some(("image/jpeg", w, h));
                }
                _ => {
                    let len = be16(i + 2)? as usize;
                    if len < 2 {
                        return None;
                    }
                    i += 2 + len;
                }
            }
        }
    }
    None
}

fn validate(raw: &str) -> Result<&Path, ImageError> {
    if raw.is_empty() {
        return Err(ImageError::Empty);
    }
    let chars = raw.chars().count();
    if chars > 4096 {
        return Err(ImageError::TooLong(chars));
    }
    if raw.chars().any(char::is_control) {
        return Err(ImageError::ControlCharacter);
    }
    let path = Path::new(raw);
    if !path.is_absolute() {
        return Err(ImageError::NotAbsolute(raw.chars().take(80).collect()));
    }
    Ok(path)
}

/// Reads `raw` if it names an image under one of the roots.
pub fn read_image(roots: &ImageRoots, raw: &str) -> Result<ImageFile, ImageError> {
    if roots.roots.is_empty() {
        return Err(ImageError::NoRoots);
    }
    let path = validate(raw)?;
    let shown = path.display().to_string();
    let real = path.canonicalize().map_err(|e| ImageError::Unreadable(shown.clone(), e.to_string()))?;
    if !roots.roots.iter().any(|r| real.starts_with(r)) {
        let allowed = roots.roots.iter().map(|r| r.display().to_string()).collect::<Vec<_>>().join(", ");
        return Err(ImageError::OutsideRoots(shown, allowed));
    }
    let meta = std::fs::metadata(&real).map_err(|e| ImageError::Unreadable(shown.clone(), e.to_string()))?;
    if !meta.is_file() {
        return Err(ImageError::NotAFile(shown));
    }
    if meta.len() > roots.max_bytes {
        return Err(ImageError::TooLarge { path: shown, size: meta.len(), limit: roots.max_bytes });
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    std::fs::File::open(&real)
        .and_then(|f| f.take(roots.max_bytes + 1).read_to_end(&mut bytes))
        .map_err(|e| ImageError::Unreadable(shown.clone(), e.to_string()))?;
    let (mime, width, height) = sniff(&bytes).ok_or_else(|| ImageError::NotAnImage(shown.clone()))?;
    Ok(ImageFile { path: real, mime, width, height, bytes })
}

/// The ids handed out for images, separate from observation ids.
#[derive(Debug, Default)]
pub struct ImageBook {
    last: u64,
}

impl ImageBook {
    pub fn next_id(&mut self) -> String {
        self.last += 1;
        format!("img_{}", self.last)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(w: u32, h: u32) -> Vec<u8> {
        let mut v = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        v.extend_from_slice(&w.to_be_bytes());
        v.extend_from_slice(&h.to_be_bytes());
        v.extend_from_slice(&[8, 2, 0, 0, 0]);
        v
    }

    #[test]
    fn sniffs_the_formats() {
        assert_eq!(sniff(&png(640, 480)), Some(("image/png", 640, 480)));
        assert_eq!(sniff(b"GIF89a\x20\x03\x58\x02rest"), Some(("image/gif", 800, 600)));
        // JPEG: SOI, an APP0 segment, then SOF0 with height 2 and width 3.
        let jpeg = [0xff, 0xd8, 0xff, 0xe0, 0, 4, 0, 0, 0xff, 0xc0, 0, 11, 8, 0, 2, 0, 3, 1, 0, 0, 0];
        assert_eq!(sniff(&jpeg), Some(("image/jpeg", 3, 2)));
        let mut webp = b"RIFF\0\0\0\0WEBPVP8X\x0a\0\0\0\0\0\0\0".to_vec();
        webp.extend_from_slice(&[0x7f, 0x02, 0x00, 0xdf, 0x01, 0x00]);
        assert_eq!(sniff(&webp), Some(("image/webp", 640, 480)));
        assert_eq!(sniff(b"not an image"), None);
        assert_eq!(sniff(&png(0, 10)), None);
        assert_eq!(sniff(&[0xff, 0xd8, 0xff]), None);
    }

    #[test]
    fn reads_only_images_under_the_roots() {
        let dir = std::env::temp_dir().join(format!("handrail-images-{}", std::process::id()));
        let inside = dir.join("allowed");
        let outside = dir.join("other");
        std::fs::create_dir_all(&inside).expect("mkdir");
        std::fs::create_dir_all(&outside).expect("mkdir");
        std::fs::write(inside.join("a.png"), png(2, 3)).expect("write");
        std::fs::write(inside.join("notes.txt"), b"hello").expect("write");
        std::fs::write(outside.join("b.png"), png(2, 3)).expect("write");
        let roots = ImageRoots::new([inside.clone()]);

        let ok = read_image(&roots, inside.join("a.png").to_str().unwrap_or_default()).expect("reads");
        assert_eq!((ok.mime, ok.width, ok.height), ("image/png", 2, 3));

        let err = |p: &Path| read_image(&roots, p.to_str().unwrap_or_default()).expect_err("refused");
        assert!(matches!(err(&outside.join("b.png")), ImageError::OutsideRoots(..)));
        assert!(matches!(err(&inside.join("../other/b.png")), ImageError::OutsideRoots(..)));
        assert!(matches!(err(&inside.join("notes.txt")), ImageError::NotAnImage(..)));
        assert!(matches!(err(&inside.join("missing.png")), ImageError::Unreadable(..)));
        assert!(matches!(err(&inside), ImageError::NotAFile(..)));
        assert_eq!(read_image(&roots, "a.png"), Err(ImageError::NotAbsolute("a.png".into())));
        assert_eq!(read_image(&roots, ""), Err(ImageError::Empty));
        assert_eq!(read_image(&roots, "/tmp/a\u{0}b"), Err(ImageError::ControlCharacter));
        #[cfg(unix)]
        {
            let link = inside.join("link.png");
            let _ = std::fs::remove_file(&link);
            if std::os::unix::fs::symlink(outside.join("b.png"), &link).is_ok() {
                assert!(matches!(err(&link), ImageError::OutsideRoots(..)));
            }
        }
        assert_eq!(read_image(&ImageRoots::new([]), "/x.png"), Err(ImageError::NoRoots));
        let _ = std::fs::remove_dir_all(&dir);
    }

    proptest::proptest! {
        #[test]
        fn sniffing_never_panics(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..64)) {
            let _ = sniff(&bytes);
        }

        #[test]
        fn sniffing_never_panics_after_a_real_header(
            head in proptest::sample::select(vec![b"\x89PNG\r\n\x1a\n".to_vec(), vec![0xff, 0xd8], b"RIFF\0\0\0\0WEBPVP8L".to_vec(), b"GIF89a".to_vec()]),
            tail in proptest::collection::vec(proptest::num::u8::ANY, 0..64),
        ) {
            let mut bytes = head;
            bytes.extend(tail);
            let _ = sniff(&bytes);
        }
    }
}

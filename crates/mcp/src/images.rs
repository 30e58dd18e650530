//! `read_image`: image files shown to the model, with their own ids (`img_N`) and state, never mixed
//! with desktop observations.
//!
//! Files are only read under the configured roots (after resolving symlinks, so a link cannot point
//! out), only if their bytes are a PNG, JPEG, GIF or WebP image, and only up to a size limit. The file
//! is passed on as it is: its header is read for the format and dimensions, nothing is decoded.

use std::io::Read;
use std::path::{Path, PathBuf};

/// Format and dimensions from an image's first bytes (kept in `handrail-imaging`, which the fuzz targets
/// build without the MCP server's dependencies).
pub use handrail_imaging::sniff;

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
}

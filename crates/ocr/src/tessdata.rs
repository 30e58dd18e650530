//! Finding Tesseract's language models (`<lang>.traineddata`).

use std::path::{Path, PathBuf};

use crate::OcrError;

/// Directories searched, in order, after an explicit path and `TESSDATA_PREFIX`.
pub const SEARCH_DIRS: &[&str] = &[
    "/usr/share/tesseract-ocr/5/tessdata",
    "/usr/share/tesseract-ocr/4.00/tessdata",
    "/usr/share/tesseract-ocr/tessdata",
    "/usr/share/tesseract/tessdata",
    "/usr/share/tessdata",
    "/usr/local/share/tessdata",
    "/usr/local/share/tesseract-ocr/tessdata",
    "/opt/homebrew/share/tessdata",
];

/// Splits a Tesseract language list ("eng+tha") and checks each name is a plain file stem.
pub(crate) fn parse_languages(spec: &str) -> Result<Vec<String>, OcrError> {
    let langs: Vec<String> = spec.split('+').map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned).collect();
    if langs.is_empty() {
        return Err(OcrError::Config(format!("no OCR language in {spec:?} (e.g. \"eng+tha\")")));
    }
    for l in &langs {
        // Names become file names: no separators, no dots, nothing Tesseract would read as an option.
        if l.len() > 64 || !l.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
            return Err(OcrError::Config(format!("OCR language {l:?} is not a traineddata name (e.g. \"eng\")")));
        }
    }
    Ok(langs)
}

/// Candidate tessdata directories in search order (explicit path first; duplicates removed).
pub(crate) fn candidates(explicit: Option<&Path>) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Some(p) = explicit {
        dirs.push(p.to_path_buf());
    } else {
        if let Some(prefix) = std::env::var_os("TESSDATA_PREFIX").filter(|p| !p.is_empty()) {
            // Tesseract 4/5 want the tessdata directory itself; 3.x wanted its parent. Accept both.
            let p = PathBuf::from(prefix);
            dirs.push(p.join("tessdata"));
            dirs.push(p);
        }
        dirs.extend(SEARCH_DIRS.iter().map(PathBuf::from));
    }
    let mut seen = Vec::new();
    dirs.retain(|d| {
        let fresh = !seen.contains(d);
        seen.push(d.clone());
        fresh
    });
    dirs
}

/// Whether `lang`'s model is installed where [`locate`] would look.
pub(crate) fn installed(lang: &str) -> bool {
    locate(None, &[lang.to_owned()]).is_ok()
}

/// The first directory holding every language, or an error naming what is missing and where it looked.
pub(crate) fn locate(explicit: Option<&Path>, langs: &[String]) -> Result<PathBuf, OcrError> {
    let dirs = candidates(explicit);
    let has = |dir: &Path, lang: &str| dir.join(format!("{lang}.traineddata")).is_file();
    if let Some(dir) = dirs.iter().find(|d| langs.iter().all(|l| has(d, l))) {
        return Ok(dir.clone());
    }
    // Report against the directory that has the most of them (usually the system one).
    let best = dirs.iter().max_by_key(|d| langs.iter().filter(|l| has(d, l)).count());
    let missing: Vec<&str> = match best {
        Some(d) => langs.iter().filter(|l| !has(d, l)).map(String::as_str).collect(),
        None => langs.iter().map(String::as_str).collect(),
    };
    let looked: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    // Debian names packages with dashes: chi_sim is tesseract-ocr-chi-sim.
    let packages: Vec<String> =
        missing.iter().map(|l| format!("tesseract-ocr-{}", l.to_lowercase().replace('_', "-"))).collect();
    Err(OcrError::LanguageMissing(format!(
        "OCR language data missing: {} (looked in {}; set TESSDATA_PREFIX, or on Debian install {})",
        missing.iter().map(|l| format!("{l}.traineddata")).collect::<Vec<_>>().join(", "),
        looked.join(", "),
        packages.join(" ")
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn language_lists() {
        assert_eq!(parse_languages("eng+tha").ok(), Some(vec!["eng".to_owned(), "tha".to_owned()]));
        assert_eq!(parse_languages(" eng + ").ok(), Some(vec!["eng".to_owned()]));
        assert!(parse_languages("").is_err());
        assert!(parse_languages("+").is_err());
        assert!(parse_languages("../etc/passwd").is_err());
        assert!(parse_languages("eng.old").is_err());
        assert!(parse_languages("~eng").is_err());
    }

    #[test]
    fn missing_language_names_file_and_package() {
        let dir = std::env::temp_dir().join(format!("handrail-ocr-tessdata-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        std::fs::write(dir.join("eng.traineddata"), b"x").expect("write");
        assert_eq!(locate(Some(&dir), &["eng".to_owned()]).ok(), Some(dir.clone()));
        let err = locate(Some(&dir), &["eng".to_owned(), "xyz".to_owned()]).expect_err("xyz is missing");
        let msg = err.to_string();
        assert!(msg.contains("xyz.traineddata") && msg.contains("tesseract-ocr-xyz"), "{msg}");
        assert!(!msg.contains("eng.traineddata"), "{msg}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

//! Which languages OCR reads by default: English, the language of the desktop's locale, and Thai,
//! each only where its model is installed. Text outside the accessibility tree is read in these; a
//! German or Japanese desktop's screen text is lost when its language is not among them.

/// Tesseract's model name for the language of `locale` (`de_DE.UTF-8`, `ja_JP`, `zh_TW`, `pt`),
/// `None` for `C`, `POSIX` and languages not listed here.
pub fn locale_language(locale: &str) -> Option<&'static str> {
    let base = locale.split(['.', '@']).next().unwrap_or_default();
    let (language, territory) = base.split_once(['_', '-']).unwrap_or((base, ""));
    let code = match language.to_ascii_lowercase().as_str() {
        "en" => "eng",
        "de" => "deu",
        "fr" => "fra",
        "es" => "spa",
        "it" => "ita",
        "pt" => "por",
        "nl" => "nld",
        "sv" => "swe",
        "da" => "dan",
        "nb" | "nn" | "no" => "nor",
        "fi" => "fin",
        "pl" => "pol",
        "cs" => "ces",
        "sk" => "slk",
        "hu" => "hun",
        "ro" => "ron",
        "tr" => "tur",
        "el" => "ell",
        "ru" => "rus",
        "uk" => "ukr",
        "bg" => "bul",
        "ar" => "ara",
        "he" => "heb",
        "fa" => "fas",
        "hi" => "hin",
        "th" => "tha",
        "vi" => "vie",
        "id" => "ind",
        "ja" => "jpn",
        "ko" => "kor",
        "zh" if matches!(territory.to_ascii_uppercase().as_str(), "TW" | "HK" | "MO") => "chi_tra",
        "zh" => "chi_sim",
        _ => return None,
    };
    Some(code)
}

/// The desktop's locale as programs read it: `LC_ALL`, else `LC_MESSAGES`, else `LANG`.
pub fn desktop_locale() -> Option<String> {
    ["LC_ALL", "LC_MESSAGES", "LANG"].iter().find_map(|v| std::env::var(v).ok().filter(|s| !s.is_empty()))
}

/// The default language list for a desktop in `locale`: `eng`, the locale's language and `tha`, in
/// that order, without repeats, keeping only those `installed` says have a model (`eng` always, so
/// that a missing model is reported by the engine rather than silently dropped).
pub fn for_locale(locale: Option<&str>, installed: impl Fn(&str) -> bool) -> String {
    let mut languages = vec!["eng"];
    for l in [locale.and_then(locale_language), Some("tha")].into_iter().flatten() {
        if !languages.contains(&l) && installed(l) {
            languages.push(l);
        }
    }
    languages.join("+")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locales_name_their_models() {
        assert_eq!(locale_language("de_DE.UTF-8"), Some("deu"));
        assert_eq!(locale_language("ja_JP"), Some("jpn"));
        assert_eq!(locale_language("zh_TW.UTF-8"), Some("chi_tra"));
        assert_eq!(locale_language("zh_CN.UTF-8"), Some("chi_sim"));
        assert_eq!(locale_language("pt"), Some("por"));
        assert_eq!(locale_language("sr_RS@latin"), None);
        assert_eq!(locale_language("C.UTF-8"), None);
        assert_eq!(locale_language("POSIX"), None);
        assert_eq!(locale_language(""), None);
    }

    #[test]
    fn the_default_follows_the_locale_where_a_model_is_installed() {
        let all = |_: &str| true;
        assert_eq!(for_locale(Some("de_DE.UTF-8"), all), "eng+deu+tha");
        assert_eq!(for_locale(Some("th_TH.UTF-8"), all), "eng+tha");
        assert_eq!(for_locale(Some("en_US.UTF-8"), all), "eng+tha");
        assert_eq!(for_locale(None, all), "eng+tha");
        assert_eq!(for_locale(Some("C.UTF-8"), all), "eng+tha");
        // Only what is installed besides English.
        let english_only = |l: &str| l == "eng";
        assert_eq!(for_locale(Some("ja_JP.UTF-8"), english_only), "eng");
        let no_thai = |l: &str| l != "tha";
        assert_eq!(for_locale(Some("ru_RU.UTF-8"), no_thai), "eng+rus");
    }
}

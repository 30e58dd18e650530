//! Which languages Apple Vision is asked to read. Asked for by name (`--ocr-lang en-US+de-DE`), those;
//! otherwise English, the person's own language (from the locale) and Thai, the languages the design
//! notes name — each only when this Mac's Vision reads it (the list grows with macOS releases), so an
//! older Mac reads what it can instead of failing. A language asked for by name that Vision does not
//! read is an error that lists what it does.

/// What to ask Vision for, and what was asked for that it cannot read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    pub languages: Vec<String>,
    pub unsupported: Vec<String>,
}

/// The locale's language as Vision names languages: `de_DE.UTF-8` → `de-DE`; `C`/`POSIX` → none.
pub fn from_locale(locale: &str) -> Option<String> {
    let tag = locale.split(['.', '@']).next().unwrap_or_default().replace('_', "-");
    (!tag.is_empty() && tag != "C" && tag != "POSIX").then_some(tag)
}

/// Picks the languages (see the module docs). `asked`: named by the person; `locale`: `LANG` or
/// `LC_ALL`; `supported`: what this Mac's Vision reads.
pub fn choose(asked: &[String], locale: Option<&str>, supported: &[String]) -> Choice {
    // Vision names some languages by region ("zh-Hans", "en-US"): a bare "de" matches "de-DE".
    let find = |want: &str| -> Option<String> {
        let want = want.to_ascii_lowercase();
        supported
            .iter()
            .find(|s| s.to_ascii_lowercase() == want)
            .or_else(|| {
                let base = want.split('-').next().unwrap_or_default();
                supported.iter().find(|s| s.to_ascii_lowercase().split('-').next() == Some(base))
            })
            .cloned()
    };
    let mut languages: Vec<String> = Vec::new();
    let mut unsupported = Vec::new();
    fn add(l: Option<String>, languages: &mut Vec<String>) {
        if let Some(l) = l {
            if !languages.contains(&l) {
                languages.push(l);
            }
        }
    }
    if !asked.is_empty() {
        for a in asked {
            match find(a) {
                Some(l) => add(Some(l), &mut languages),
                None => unsupported.push(a.clone()),
            }
        }
        return Choice { languages, unsupported };
    }
    add(find("en-US"), &mut languages);
    if let Some(own) = locale.and_then(from_locale) {
        add(find(&own), &mut languages);
    }
    add(find("th-TH"), &mut languages);
    Choice { languages, unsupported }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn supported(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn by_default_english_the_persons_language_and_thai_when_vision_reads_them() {
        let sonoma = supported(&["en-US", "fr-FR", "de-DE", "ja-JP", "zh-Hans", "th-TH", "vi-VT"]);
        let c = choose(&[], Some("de_DE.UTF-8"), &sonoma);
        assert_eq!(c.languages, ["en-US", "de-DE", "th-TH"]);
        let old = supported(&["en-US", "fr-FR", "de-DE"]);
        assert_eq!(choose(&[], Some("th_TH.UTF-8"), &old).languages, ["en-US"], "an older Vision reads what it can");
        assert_eq!(choose(&[], Some("C"), &sonoma).languages, ["en-US", "th-TH"]);
    }

    #[test]
    fn asked_languages_are_matched_by_region_or_base_and_the_unknown_named() {
        let v = supported(&["en-US", "ja-JP", "zh-Hans", "th-TH"]);
        let asked: Vec<String> = ["ja", "zh-Hans", "xx-YY", "th-TH"].iter().map(|s| s.to_string()).collect();
        let c = choose(&asked, Some("en_US.UTF-8"), &v);
        assert_eq!(c.languages, ["ja-JP", "zh-Hans", "th-TH"]);
        assert_eq!(c.unsupported, ["xx-YY"]);
    }

    #[test]
    fn locales_become_language_tags() {
        assert_eq!(from_locale("pt_BR.UTF-8").as_deref(), Some("pt-BR"));
        assert_eq!(from_locale("sr_RS@latin").as_deref(), Some("sr-RS"));
        assert_eq!(from_locale("POSIX"), None);
        assert_eq!(from_locale(""), None);
    }
}

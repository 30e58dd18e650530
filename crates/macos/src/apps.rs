//! Finding an installed Mac app by the name a model gives ("Safari", "terminal", "TextEdit.app",
//! "com.apple.Notes"): whole names first, ignoring case and a trailing ".app", then bundle ids; a name
//! that matches nothing gets the closest installed names in its error, never a guess.

use std::path::PathBuf;

/// An installed app bundle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstalledApp {
    /// The bundle's name without ".app" ("Visual Studio Code").
    pub name: String,
    pub bundle_id: String,
    pub path: PathBuf,
}

/// What a name found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found<'a> {
    App(&'a InstalledApp),
    /// Nothing; the closest names (at most five), best first.
    Nothing {
        close: Vec<String>,
    },
}

fn normalise(s: &str) -> String {
    let s = s.trim();
    let s = s.strip_suffix(".app").or_else(|| s.strip_suffix(".APP")).unwrap_or(s);
    s.to_lowercase()
}

/// Finds `asked` among `apps`.
pub fn find<'a>(apps: &'a [InstalledApp], asked: &str) -> Found<'a> {
    let want = normalise(asked);
    if want.is_empty() {
        return Found::Nothing { close: Vec::new() };
    }
    if let Some(app) = apps.iter().find(|a| normalise(&a.name) == want) {
        return Found::App(app);
    }
    if let Some(app) = apps.iter().find(|a| a.bundle_id.to_lowercase() == want) {
        return Found::App(app);
    }
    // "terminal" for Terminal is handled above; "code" for Visual Studio Code is not a guess to make.
    let mut scored: Vec<(usize, &str)> =
        apps.iter().map(|a| (distance(&normalise(&a.name), &want), a.name.as_str())).collect();
    scored.sort();
    let limit = (want.chars().count() / 2).max(2);
    let mut close: Vec<String> = Vec::new();
    for (d, name) in scored {
        let contains = normalise(name).contains(&want) || want.contains(&normalise(name));
        if (d <= limit || contains) && !close.iter().any(|c| c == name) {
            close.push(name.to_owned());
        }
        if close.len() == 5 {
            break;
        }
    }
    Found::Nothing { close }
}

/// Edit distance between two names, in characters.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            let next = (row[j + 1] + 1).min(row[j] + 1).min(prev + cost);
            prev = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apps() -> Vec<InstalledApp> {
        [
            ("Safari", "com.apple.Safari"),
            ("Terminal", "com.apple.Terminal"),
            ("TextEdit", "com.apple.TextEdit"),
            ("Notes", "com.apple.Notes"),
        ]
        .iter()
        .map(|(n, b)| InstalledApp {
            name: (*n).into(),
            bundle_id: (*b).into(),
            path: format!("/Applications/{n}.app").into(),
        })
        .collect()
    }

    #[test]
    fn names_bundle_ids_and_dot_app_all_find_the_app() {
        let apps = apps();
        for asked in ["Safari", "safari", "Safari.app", " SAFARI ", "com.apple.safari"] {
            assert!(matches!(find(&apps, asked), Found::App(a) if a.name == "Safari"), "{asked}");
        }
    }

    #[test]
    fn an_unknown_name_gets_close_names_not_a_guess() {
        let apps = apps();
        let Found::Nothing { close } = find(&apps, "Textedit2") else { panic!("not found") };
        assert_eq!(close.first().map(String::as_str), Some("TextEdit"));
        let Found::Nothing { close } = find(&apps, "Microsoft Word") else { panic!("not found") };
        assert!(close.is_empty(), "{close:?}");
        assert_eq!(find(&apps, "  "), Found::Nothing { close: vec![] });
    }
}

//! Parsing the `keys` parameter of the `key` action into a canonical [`KeyCombo`].
//!
//! The model writes combinations in many dialects (`Ctrl+S`, `cmd+shift+t`, `Meta+BackSpace`, `delete+super`).
//! Guards compare combinations, so every spelling of one combination must parse to the same value: names
//! are case-insensitive, aliases collapse to one canonical name, order does not matter and duplicate
//! modifiers are harmless. Anything we cannot map with certainty is refused with an error that says what
//! would have worked, never guessed.

use handrail_platform::{Key, KeyCombo, Modifiers};

/// Longest accepted `keys` string, in characters. Real combinations are a few dozen characters at most;
/// the cap keeps error messages (which quote the input) short.
pub const MAX_KEYS_LEN: usize = 64;

/// Why a `keys` string was not accepted. The messages are shown to the model, so each says how to fix it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyParseError {
    #[error("empty key combination: give keys such as \"ctrl+s\", \"return\" or \"alt+f4\"")]
    Empty,
    #[error("key combination is too long ({len} characters, at most {max}): give one combination such as \"ctrl+shift+t\"", max = MAX_KEYS_LEN)]
    TooLong { len: usize },
    #[error("key combination contains a control character (U+{code:04X} at character {position}): name keys in words, e.g. \"tab\" or \"return\"")]
    ControlCharacter { code: u32, position: usize },
    #[error("empty key name in {input:?}: separate keys with a single \"+\" and write the plus key itself as \"plus\" (e.g. \"ctrl+plus\")")]
    EmptySegment { input: String },
    #[error("unknown key name {name:?}{}", unknown_key_advice(.suggestions, .rewrite.as_deref()))]
    UnknownKey {
        name: String,
        /// Known names close to `name`, best first.
        suggestions: Vec<&'static str>,
        /// `name` looks like several keys joined by `-` or spaces instead of `+`: the `+` spelling.
        rewrite: Option<String>,
    },
    #[error("{first:?} and {second:?} are both non-modifier keys: a combination is modifiers (ctrl, alt, shift, super) plus at most one other key; press them one after the other as separate key actions")]
    MultipleKeys { first: String, second: String },
}

fn unknown_key_advice(suggestions: &[&'static str], rewrite: Option<&str>) -> String {
    let mut out = String::new();
    if let Some(r) = rewrite {
        out.push_str(&format!(": separate keys with \"+\", as in {r:?}"));
    } else if suggestions.is_empty() {
        out.push_str(
            ": use a single character or a key name such as return, tab, escape, backspace, delete, space, \
             up, down, left, right, home, end, page_up, page_down, insert, menu, print, plus, minus or f1…f24, \
             with modifiers ctrl, alt, shift, super",
        );
    } else {
        out.push_str(" (did you mean ");
        for (i, s) in suggestions.iter().enumerate() {
            if i > 0 {
                out.push_str(" or ");
            }
            out.push('"');
            out.push_str(s);
            out.push('"');
        }
        out.push_str("?)");
    }
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Modifier {
    Ctrl,
    Alt,
    Shift,
    Super,
}

impl Modifier {
    fn key(self) -> Key {
        match self {
            Modifier::Ctrl => Key::Ctrl,
            Modifier::Alt => Key::Alt,
            Modifier::Shift => Key::Shift,
            Modifier::Super => Key::Super,
        }
    }

    fn set(self, m: &mut Modifiers) {
        match self {
            Modifier::Ctrl => m.ctrl = true,
            Modifier::Alt => m.alt = true,
            Modifier::Shift => m.shift = true,
            Modifier::Super => m.super_key = true,
        }
    }
}

/// Modifier spellings, after lower-casing and removing `_`, `-` and spaces. `altgr` is deliberately absent:
/// it is a different key (level-3 shift), and sending alt instead would type something else.
const MODIFIER_ALIASES: &[(&str, Modifier)] = &[
    ("ctrl", Modifier::Ctrl),
    ("control", Modifier::Ctrl),
    ("ctl", Modifier::Ctrl),
    ("alt", Modifier::Alt),
    ("option", Modifier::Alt),
    ("opt", Modifier::Alt),
    ("shift", Modifier::Shift),
    ("super", Modifier::Super),
    ("cmd", Modifier::Super),
    ("command", Modifier::Super),
    ("meta", Modifier::Super),
    ("win", Modifier::Super),
    ("windows", Modifier::Super),
    ("logo", Modifier::Super),
    ("mod4", Modifier::Super),
];

/// Named keys, after lower-casing and removing `_`, `-` and spaces, mapped to the canonical names
/// documented on [`KeyCombo`].
const KEY_ALIASES: &[(&str, &str)] = &[
    ("return", "return"),
    ("enter", "return"),
    ("ret", "return"),
    ("escape", "escape"),
    ("esc", "escape"),
    ("delete", "delete"),
    ("del", "delete"),
    ("forwarddelete", "delete"),
    ("backspace", "backspace"),
    ("bksp", "backspace"),
    ("bs", "backspace"),
    ("pageup", "page_up"),
    ("pgup", "page_up"),
    ("prior", "page_up"),
    ("pagedown", "page_down"),
    ("pgdn", "page_down"),
    ("pgdown", "page_down"),
    ("next", "page_down"),
    ("left", "left"),
    ("arrowleft", "left"),
    ("leftarrow", "left"),
    ("right", "right"),
    ("arrowright", "right"),
    ("rightarrow", "right"),
    ("up", "up"),
    ("arrowup", "up"),
    ("uparrow", "up"),
    ("down", "down"),
    ("arrowdown", "down"),
    ("downarrow", "down"),
    ("space", "space"),
    ("spacebar", "space"),
    ("insert", "insert"),
    ("ins", "insert"),
    ("tab", "tab"),
    ("home", "home"),
    ("end", "end"),
    ("menu", "menu"),
    ("contextmenu", "menu"),
    ("apps", "menu"),
    ("print", "print"),
    ("prtsc", "print"),
    ("prtscr", "print"),
    ("printscreen", "print"),
    ("plus", "+"),
    ("minus", "-"),
    // Punctuation by its X keysym name, so xdotool-style input works too.
    ("comma", ","),
    ("period", "."),
    ("dot", "."),
    ("slash", "/"),
    ("backslash", "\\"),
    ("semicolon", ";"),
    ("equal", "="),
    ("equals", "="),
    ("apostrophe", "'"),
    ("grave", "`"),
    ("backtick", "`"),
    ("bracketleft", "["),
    ("bracketright", "]"),
    ("asterisk", "*"),
    ("underscore", "_"),
];

/// What one `+`-separated segment names.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Modifier(Modifier),
    Key(Key),
}

/// Parses a key combination such as `ctrl+shift+t`, `CMD+Delete` or `return`.
///
/// Rules: segments are separated by `+` (write the plus key as `plus`); names are case-insensitive and
/// surrounding whitespace is ignored; order does not matter; a repeated modifier counts once; at most one
/// non-modifier key. A single character is that key (letters lower-cased: `ctrl+S` is `ctrl+s`, add
/// `shift` explicitly). Modifiers alone are a valid combination (`shift`, `ctrl+shift`): the last modifier
/// in canonical order (ctrl, alt, shift, super) becomes the key, the others stay modifiers, so the result
/// is the same whatever order they were written in.
pub fn parse_key_combo(input: &str) -> Result<KeyCombo, KeyParseError> {
    let trimmed = input.trim();
    let len = trimmed.chars().count();
    if len > MAX_KEYS_LEN {
        return Err(KeyParseError::TooLong { len });
    }
    if let Some((i, c)) = trimmed.chars().enumerate().find(|(_, c)| c.is_control()) {
        return Err(KeyParseError::ControlCharacter { code: u32::from(c), position: i + 1 });
    }
    if trimmed.is_empty() {
        return Err(KeyParseError::Empty);
    }

    let mut modifiers: Vec<Modifier> = Vec::new();
    let mut key: Option<Key> = None;
    for segment in trimmed.split('+') {
        let segment = segment.trim();
        if segment.is_empty() {
            return Err(KeyParseError::EmptySegment { input: trimmed.to_string() });
        }
        match parse_segment(segment)? {
            Token::Modifier(m) => {
                if !modifiers.contains(&m) {
                    modifiers.push(m);
                }
            }
            Token::Key(k) => match key {
                Some(existing) if existing != k => {
                    return Err(KeyParseError::MultipleKeys { first: existing.to_string(), second: k.to_string() });
                }
                _ => key = Some(k),
            },
        }
    }

    modifiers.sort();
    let key = match key {
        Some(k) => k,
        // Modifiers only: the highest one in canonical order is the key pressed.
        None => match modifiers.pop() {
            Some(m) => m.key(),
            None => return Err(KeyParseError::Empty),
        },
    };
    let mut mods = Modifiers::default();
    for m in modifiers {
        m.set(&mut mods);
    }
    Ok(KeyCombo { modifiers: mods, key })
}

/// The canonical spelling of a combination: its `Display` form, except that the plus key is written
/// `plus` so that the string parses back to the same combination (`ctrl++` is an input error).
pub fn canonical(combo: &KeyCombo) -> String {
    if combo.key == Key::Char('+') {
        let mut out = String::new();
        for m in combo.modifiers.names() {
            out.push_str(m);
            out.push('+');
        }
        out.push_str("plus");
        out
    } else {
        combo.to_string()
    }
}

fn parse_segment(segment: &str) -> Result<Token, KeyParseError> {
    let mut chars = segment.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        return Ok(Token::Key(Key::Char(single_char_key(c))));
    }
    let name = normalise_name(segment);
    if let Some(t) = lookup(&name) {
        return Ok(t);
    }
    // Side-specific modifiers: left_ctrl, RightShift, LCtrl, Control_L, Super_R, …
    let sideless = [
        name.strip_prefix("left"),
        name.strip_prefix("right"),
        name.strip_prefix('l'),
        name.strip_prefix('r'),
        name.strip_suffix('l'),
        name.strip_suffix('r'),
    ];
    if let Some(m) = sideless.into_iter().flatten().find_map(lookup_modifier) {
        return Ok(Token::Modifier(m));
    }
    Err(KeyParseError::UnknownKey {
        name: segment.to_string(),
        suggestions: suggest(&name),
        rewrite: plus_spelling(segment),
    })
}

/// A one-character key: letters are lower-cased unless lower-casing would produce several characters
/// (which could not be parsed back as one key).
fn single_char_key(c: char) -> char {
    let mut lower = c.to_lowercase();
    match (lower.next(), lower.next()) {
        (Some(l), None) => l,
        _ => c,
    }
}

/// Lower-cases and drops `_`, `-` and whitespace, so `Page_Up`, `page-up`, `page up` and `PageUp` agree.
fn normalise_name(segment: &str) -> String {
    segment.chars().filter(|c| !matches!(c, '_' | '-') && !c.is_whitespace()).flat_map(char::to_lowercase).collect()
}

fn lookup_modifier(name: &str) -> Option<Modifier> {
    MODIFIER_ALIASES.iter().find(|(n, _)| *n == name).map(|(_, m)| *m)
}

fn lookup(name: &str) -> Option<Token> {
    if let Some(m) = lookup_modifier(name) {
        return Some(Token::Modifier(m));
    }
    if let Some((_, canon)) = KEY_ALIASES.iter().find(|(n, _)| *n == name) {
        return Key::from_name(canon).map(Token::Key);
    }
    let n: u8 = name.strip_prefix('f')?.parse().ok()?;
    // `parse` accepts "+1" and "01"; only the plain spelling is a function key name.
    if (1..=24).contains(&n) && name[1..] == n.to_string() {
        return Some(Token::Key(Key::F(n)));
    }
    None
}

/// `ctrl-s` or `ctrl s`: every piece is a known name and only the separator is wrong; returns `ctrl+s`.
fn plus_spelling(segment: &str) -> Option<String> {
    let pieces: Vec<&str> = segment.split(|c: char| c == '-' || c.is_whitespace()).filter(|p| !p.is_empty()).collect();
    let all_known = pieces.len() > 1
        && pieces.iter().all(|p| {
            let mut cs = p.chars();
            cs.next().is_some() && (cs.next().is_none() || lookup(&normalise_name(p)).is_some())
        });
    all_known.then(|| pieces.join("+"))
}

/// Up to three known names within a small edit distance of `name`, closest first.
fn suggest(name: &str) -> Vec<&'static str> {
    let len = name.chars().count();
    if len == 0 || len > 24 {
        return Vec::new();
    }
    let limit = (len / 3).clamp(1, 2);
    let mut scored: Vec<(usize, &'static str)> = MODIFIER_ALIASES
        .iter()
        .map(|(n, _)| *n)
        .chain(KEY_ALIASES.iter().map(|(n, _)| *n))
        .map(|candidate| (edit_distance(name, candidate), candidate))
        .filter(|(d, _)| *d <= limit)
        .collect();
    scored.sort();
    let mut out: Vec<&'static str> = Vec::new();
    for (_, c) in scored {
        if !out.contains(&c) {
            out.push(c);
        }
        if out.len() == 3 {
            break;
        }
    }
    if out.is_empty() {
        // Function keys are not in the alias tables: f0, f25, f99…
        if let Some(rest) = name.strip_prefix('f') {
            if !rest.is_empty() && rest.chars().all(|c| c.is_ascii_digit()) {
                out.push("f1…f24");
            }
        }
    }
    out
}

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn combo(mods: &[&str], key: &str) -> KeyCombo {
        let mut m = Modifiers::default();
        for name in mods {
            match *name {
                "ctrl" => m.ctrl = true,
                "alt" => m.alt = true,
                "shift" => m.shift = true,
                "super" => m.super_key = true,
                other => panic!("bad modifier in test: {other}"),
            }
        }
        KeyCombo { modifiers: m, key: Key::from_name(key).unwrap_or_else(|| panic!("bad key in test: {key}")) }
    }

    #[test]
    fn parses_valid_combinations() {
        let cases: &[(&str, &[&str], &str)] = &[
            ("ctrl+s", &["ctrl"], "s"),
            ("Ctrl+S", &["ctrl"], "s"),
            ("  ctrl + shift + t  ", &["ctrl", "shift"], "t"),
            ("control+alt+delete", &["ctrl", "alt"], "delete"),
            ("ctl+c", &["ctrl"], "c"),
            ("option+a", &["alt"], "a"),
            ("opt+a", &["alt"], "a"),
            ("CMD+Shift+Delete", &["shift", "super"], "delete"),
            ("delete+super", &["super"], "delete"),
            ("super+delete", &["super"], "delete"),
            ("Meta+BackSpace", &["super"], "backspace"),
            ("command+q", &["super"], "q"),
            ("win+e", &["super"], "e"),
            ("windows+e", &["super"], "e"),
            ("logo+e", &["super"], "e"),
            ("mod4+e", &["super"], "e"),
            ("ctrl+ctrl+s", &["ctrl"], "s"),
            ("ctrl+control+s", &["ctrl"], "s"),
            ("s+s", &[], "s"),
            ("left_ctrl+c", &["ctrl"], "c"),
            ("Control_R+c", &["ctrl"], "c"),
            ("Super_L", &[], "super"),
            ("LShift+a", &["shift"], "a"),
            ("RCtrl+c", &["ctrl"], "c"),
            ("Alt_R+tab", &["alt"], "tab"),
            ("enter", &[], "return"),
            ("Return", &[], "return"),
            ("ret", &[], "return"),
            ("esc", &[], "escape"),
            ("Escape", &[], "escape"),
            ("del", &[], "delete"),
            ("Delete", &[], "delete"),
            ("forwarddelete", &[], "delete"),
            ("forward_delete", &[], "delete"),
            ("backspace", &[], "backspace"),
            ("bksp", &[], "backspace"),
            ("back_space", &[], "backspace"),
            ("bs", &[], "backspace"),
            ("pgup", &[], "page_up"),
            ("PageUp", &[], "page_up"),
            ("page_up", &[], "page_up"),
            ("page up", &[], "page_up"),
            ("prior", &[], "page_up"),
            ("pgdn", &[], "page_down"),
            ("pagedown", &[], "page_down"),
            ("Page_Down", &[], "page_down"),
            ("next", &[], "page_down"),
            ("ArrowLeft", &[], "left"),
            ("left", &[], "left"),
            ("arrowright", &[], "right"),
            ("Up", &[], "up"),
            ("arrowdown", &[], "down"),
            ("space", &[], "space"),
            ("spacebar", &[], "space"),
            ("ins", &[], "insert"),
            ("insert", &[], "insert"),
            ("tab", &[], "tab"),
            ("shift+tab", &["shift"], "tab"),
            ("home", &[], "home"),
            ("end", &[], "end"),
            ("menu", &[], "menu"),
            ("print", &[], "print"),
            ("PrtSc", &[], "print"),
            ("f1", &[], "f1"),
            ("F12", &[], "f12"),
            ("alt+f4", &["alt"], "f4"),
            ("f24", &[], "f24"),
            ("ctrl+plus", &["ctrl"], "+"),
            ("ctrl+minus", &["ctrl"], "-"),
            ("ctrl+-", &["ctrl"], "-"),
            ("ctrl+/", &["ctrl"], "/"),
            ("ctrl+comma", &["ctrl"], ","),
            ("ก", &[], "ก"),
            ("alt+É", &["alt"], "é"),
            ("1", &[], "1"),
            // Bare modifiers.
            ("shift", &[], "shift"),
            ("cmd", &[], "super"),
            ("ctrl+shift", &["ctrl"], "shift"),
            ("shift+ctrl", &["ctrl"], "shift"),
            ("super+alt", &["alt"], "super"),
        ];
        for (input, mods, key) in cases {
            assert_eq!(parse_key_combo(input), Ok(combo(mods, key)), "input {input:?}");
        }
    }

    #[test]
    fn order_and_aliases_do_not_matter() {
        let same = [
            "super+shift+delete",
            "delete+shift+super",
            "CMD+Shift+Delete",
            "shift+meta+del",
            "Win+SHIFT+Delete",
            "command + shift + delete",
        ];
        let first = parse_key_combo(same[0]);
        for s in same {
            assert_eq!(parse_key_combo(s), first, "input {s:?}");
        }
        assert_eq!(first.map(|c| c.to_string()).ok().as_deref(), Some("shift+super+delete"));
    }

    #[test]
    fn rejects_bad_input_with_specific_errors() {
        assert_eq!(parse_key_combo(""), Err(KeyParseError::Empty));
        assert_eq!(parse_key_combo("   "), Err(KeyParseError::Empty));
        assert!(matches!(parse_key_combo(&"a".repeat(65)), Err(KeyParseError::TooLong { len: 65 })));
        assert!(matches!(parse_key_combo("ctrl+\ts"), Err(KeyParseError::ControlCharacter { code: 9, position: 6 })));
        assert!(matches!(parse_key_combo("ctrl+\u{7f}"), Err(KeyParseError::ControlCharacter { .. })));
        for bad in ["ctrl++", "+", "++", "ctrl+", "+s", "ctrl++s", "ctrl+ +s"] {
            assert!(
                matches!(parse_key_combo(bad), Err(KeyParseError::EmptySegment { .. })),
                "input {bad:?}: {:?}",
                parse_key_combo(bad)
            );
        }
        assert_eq!(
            parse_key_combo("ctrl+a+b"),
            Err(KeyParseError::MultipleKeys { first: "a".into(), second: "b".into() })
        );
        assert!(matches!(parse_key_combo("return+tab"), Err(KeyParseError::MultipleKeys { .. })));
        for bad in ["altgr+e", "hyper+a", "f0", "f25", "f01", "escpe", "ctrl-s", "ctrl s", "ลบ"] {
            assert!(matches!(parse_key_combo(bad), Err(KeyParseError::UnknownKey { .. })), "input {bad:?}");
        }
    }

    #[test]
    fn error_messages_are_helpful() {
        let msg = |s: &str| parse_key_combo(s).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(msg("escpe").contains("did you mean \"escape\""), "{}", msg("escpe"));
        assert!(msg("retrun").contains("\"return\""), "{}", msg("retrun"));
        assert!(msg("ctrl-s").contains("as in \"ctrl+s\""), "{}", msg("ctrl-s"));
        assert!(msg("Ctrl Shift T").contains("\"Ctrl+Shift+T\""), "{}", msg("Ctrl Shift T"));
        assert!(msg("ctrl++").contains("\"plus\""), "{}", msg("ctrl++"));
        assert!(msg("f25").contains("f1…f24"), "{}", msg("f25"));
        assert!(msg("qwertyuiop").contains("key name such as return"), "{}", msg("qwertyuiop"));
        assert!(msg("a+b").contains("separate key actions"), "{}", msg("a+b"));
        assert!(msg("").starts_with("empty key combination"));
    }

    #[test]
    fn canonical_round_trips_the_plus_key() {
        let c = combo(&["ctrl", "shift"], "+");
        assert_eq!(canonical(&c), "ctrl+shift+plus");
        assert_eq!(parse_key_combo(&canonical(&c)), Ok(c));
        let d = combo(&["alt"], "f4");
        assert_eq!(canonical(&d), d.to_string());
    }

    fn name_strategy() -> impl Strategy<Value = String> {
        let names: Vec<&'static str> = MODIFIER_ALIASES
            .iter()
            .map(|(n, _)| *n)
            .chain(KEY_ALIASES.iter().map(|(n, _)| *n))
            .chain(["f1", "f12", "f24", "a", "Z", "7", "/", "ก", "é", "-"])
            .collect();
        prop::sample::select(names).prop_map(String::from)
    }

    proptest! {
        #[test]
        fn never_panics_and_errors_say_something(s in any::<String>()) {
            if let Err(e) = parse_key_combo(&s) {
                prop_assert!(!e.to_string().is_empty());
            }
        }

        #[test]
        fn near_miss_input_never_panics(s in "[a-zA-Z0-9+ _\\-]{0,70}") {
            if let Err(e) = parse_key_combo(&s) {
                prop_assert!(!e.to_string().is_empty());
            }
        }

        #[test]
        fn parse_display_parse_round_trips(parts in prop::collection::vec(name_strategy(), 1..5)) {
            let input = parts.join("+");
            if let Ok(c) = parse_key_combo(&input) {
                prop_assert_eq!(parse_key_combo(&canonical(&c)), Ok(c.clone()));
                if c.key != Key::Char('+') {
                    prop_assert_eq!(parse_key_combo(&c.to_string()), Ok(c));
                }
            }
        }

        #[test]
        fn order_is_irrelevant(mut parts in prop::collection::vec(name_strategy(), 1..5)) {
            let a = parse_key_combo(&parts.join("+"));
            parts.reverse();
            let b = parse_key_combo(&parts.join("+"));
            // Errors may name the offending keys in another order; successes must agree exactly.
            prop_assert_eq!(a.is_ok(), b.is_ok());
            if a.is_ok() {
                prop_assert_eq!(a, b);
            }
        }
    }
}

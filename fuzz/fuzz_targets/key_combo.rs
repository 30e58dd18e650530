//! Key combinations: `handrail_core::keys::parse_key_combo` and the dangerous-hotkey guard.
//!
//! Two kinds of input, picked by the first byte:
//! - a raw string: whatever parses, `canonical` parses back to the same combination; ASCII case and
//!   the order of the `+`-separated names never change the result; the guard's verdict is the one the
//!   rule table (restated here) gives;
//! - a spelling built from a model of the contract (aliases, side-specific modifiers, `_`/`-`/spaces
//!   inside names, case, order, repeats): it parses to exactly the combination the model expects, so
//!   no spelling of a dangerous combination is ever judged on anything but that combination.
//!
//! The guard itself: extra modifiers never make a dangerous combination safe, and the refusal names
//! the combination's canonical form.

#![no_main]

use handrail_core::guard::hotkey::hotkey_refusal;
use handrail_core::keys::{canonical, parse_key_combo, KeyParseError, MAX_KEYS_LEN};
use handrail_platform::{Key, KeyCombo, KeyPolicy, Modifiers};
use libfuzzer_sys::arbitrary::{self, Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Mod {
    Ctrl,
    Alt,
    Shift,
    Super,
}

impl Mod {
    fn name(self) -> &'static str {
        match self {
            Mod::Ctrl => "ctrl",
            Mod::Alt => "alt",
            Mod::Shift => "shift",
            Mod::Super => "super",
        }
    }
}

/// Modifier spellings the contract accepts (README: `cmd`/`meta`/`win` mean `super`).
const MODIFIERS: &[(&str, Mod)] = &[
    ("ctrl", Mod::Ctrl),
    ("control", Mod::Ctrl),
    ("ctl", Mod::Ctrl),
    ("alt", Mod::Alt),
    ("option", Mod::Alt),
    ("opt", Mod::Alt),
    ("shift", Mod::Shift),
    ("super", Mod::Super),
    ("cmd", Mod::Super),
    ("command", Mod::Super),
    ("meta", Mod::Super),
    ("win", Mod::Super),
    ("windows", Mod::Super),
    ("logo", Mod::Super),
    ("mod4", Mod::Super),
];

/// Named keys and their canonical names, the dangerous ones in all their spellings.
const KEYS: &[(&str, &str)] = &[
    ("delete", "delete"),
    ("del", "delete"),
    ("forwarddelete", "delete"),
    ("forward_delete", "delete"),
    ("backspace", "backspace"),
    ("back_space", "backspace"),
    ("bksp", "backspace"),
    ("bs", "backspace"),
    ("page_up", "page_up"),
    ("pageup", "page_up"),
    ("pgup", "page_up"),
    ("prior", "page_up"),
    ("page_down", "page_down"),
    ("pgdn", "page_down"),
    ("pgdown", "page_down"),
    ("next", "page_down"),
    ("return", "return"),
    ("enter", "return"),
    ("escape", "escape"),
    ("esc", "escape"),
    ("tab", "tab"),
    ("space", "space"),
    ("insert", "insert"),
    ("home", "home"),
    ("end", "end"),
    ("menu", "menu"),
    ("print", "print"),
    ("left", "left"),
    ("arrowright", "right"),
    ("up", "up"),
    ("downarrow", "down"),
    ("plus", "+"),
    ("minus", "-"),
    ("comma", ","),
    ("backslash", "\\"),
];

/// The Linux key policy's dangerous rules, restated: shift+delete; super with delete or backspace;
/// ctrl+alt with backspace, delete or F1…F12; ctrl+alt+shift with page up or down. Extra modifiers
/// never make one safe.
fn dangerous_model(c: &KeyCombo) -> bool {
    let m = c.modifiers;
    let ctrl_alt = m.ctrl && m.alt;
    match c.key {
        Key::Delete => m.shift || m.super_key || ctrl_alt,
        Key::Backspace => m.super_key || ctrl_alt,
        Key::PageUp | Key::PageDown => ctrl_alt && m.shift,
        Key::F(n) => ctrl_alt && (1..=12).contains(&n),
        _ => false,
    }
}

#[derive(Debug, Arbitrary)]
enum Token {
    /// A modifier spelling, optionally side-specific.
    Modifier {
        alias: u8,
        side: u8,
    },
    Named(u8),
    Function(u8),
    Char(char),
}

#[derive(Debug, Arbitrary)]
struct Spelling {
    tokens: Vec<Token>,
    /// Per token: case changes, separators inside names, spaces around the `+`.
    styles: Vec<u16>,
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else { return };
    if mode % 2 == 0 {
        if let Ok(s) = std::str::from_utf8(rest) {
            raw(s);
        }
    } else if let Ok(sp) = Spelling::arbitrary_take_rest(Unstructured::new(rest)) {
        modelled(&sp);
    }
});

fn raw(s: &str) {
    let parsed = parse_key_combo(s);
    if let Err(e) = &parsed {
        let msg = e.to_string();
        assert!(!msg.is_empty() && msg.chars().count() <= 1000, "error message: {msg}");
    }
    // ASCII case never matters.
    for other in [s.to_ascii_uppercase(), s.to_ascii_lowercase()] {
        let again = parse_key_combo(&other);
        assert_eq!(again.is_ok(), parsed.is_ok(), "{s:?} and {other:?} differ");
        if parsed.is_ok() {
            assert_eq!(again, parsed, "{s:?} and {other:?} differ");
        }
    }
    // Nor does order. (Control characters are refused inside the input but trimmed off its ends like
    // any whitespace, so with a tab or newline around a name the order can decide between the two.)
    if s.chars().any(char::is_control) {
        if let Ok(c) = parsed {
            judged(&c);
        }
        return;
    }
    let segments: Vec<&str> = s.trim().split('+').collect();
    let reversed: Vec<&str> = segments.iter().rev().copied().collect();
    let reversed = reversed.join("+");
    if segments.len() > 1
        && segments.iter().all(|p| !p.trim().is_empty())
        && reversed.trim().chars().count() <= MAX_KEYS_LEN
        && s.trim().chars().count() <= MAX_KEYS_LEN
    {
        let again = parse_key_combo(&reversed);
        assert_eq!(again.is_ok(), parsed.is_ok(), "{s:?} reversed differs");
        if parsed.is_ok() {
            assert_eq!(again, parsed, "{s:?} reversed differs");
        }
    }
    if let Ok(c) = parsed {
        judged(&c);
    }
}

/// Checks on any combination that parsed.
fn judged(c: &KeyCombo) {
    let canon = canonical(c);
    assert_eq!(parse_key_combo(&canon).as_ref(), Ok(c), "canonical form {canon:?} does not parse back");
    assert!(canon.chars().count() <= MAX_KEYS_LEN);
    let linux = KeyPolicy::linux();
    let verdict = linux.dangerous(c);
    assert_eq!(verdict.is_some(), dangerous_model(c), "guard verdict on {canon:?}");
    match hotkey_refusal(c, &linux) {
        Some(msg) => {
            assert!(verdict.is_some());
            assert!(msg.contains(&canon), "the refusal names {canon:?}: {msg}");
        }
        None => assert!(verdict.is_none()),
    }
    if verdict.is_some() {
        for extra in [Mod::Ctrl, Mod::Alt, Mod::Shift, Mod::Super] {
            let mut more = c.clone();
            set(&mut more.modifiers, extra);
            assert!(linux.dangerous(&more).is_some(), "{canon:?} plus {} became safe", extra.name());
        }
    }
}

fn set(m: &mut Modifiers, which: Mod) {
    match which {
        Mod::Ctrl => m.ctrl = true,
        Mod::Alt => m.alt = true,
        Mod::Shift => m.shift = true,
        Mod::Super => m.super_key = true,
    }
}

/// One token as written, and what it means: a modifier or a canonical key name.
fn spell(t: &Token, style: u16) -> (String, Result<Mod, String>) {
    let (base, meaning): (String, Result<Mod, String>) = match t {
        Token::Modifier { alias, side } => {
            let (name, m) = MODIFIERS[usize::from(*alias) % MODIFIERS.len()];
            let written = match side % 8 {
                0 => format!("left_{name}"),
                1 => format!("Right{name}"),
                2 => format!("l{name}"),
                3 => format!("r{name}"),
                4 => format!("{name}_L"),
                5 => format!("{name}_R"),
                _ => name.to_string(),
            };
            (written, Ok(m))
        }
        Token::Named(i) => {
            let (name, canon) = KEYS[usize::from(*i) % KEYS.len()];
            (name.to_string(), Err(canon.to_string()))
        }
        Token::Function(n) => {
            let n = n % 24 + 1;
            (format!("f{n}"), Err(format!("f{n}")))
        }
        Token::Char(c) => {
            let mut lower = c.to_lowercase();
            let canon = match (lower.next(), lower.next()) {
                (Some(l), None) => l.to_string(),
                _ => c.to_string(),
            };
            return (c.to_string(), Err(canon));
        }
    };
    // Names: ASCII case and `_`, `-` or a space inside them never matter.
    let mut out = String::new();
    for (i, ch) in base.chars().enumerate() {
        if style & 1 << (i % 8) != 0 {
            out.push(ch.to_ascii_uppercase());
        } else {
            out.push(ch.to_ascii_lowercase());
        }
        if i == usize::from(style >> 8) % 8 && i + 1 < base.len() {
            out.push(['_', '-', ' '][usize::from(style >> 11) % 3]);
        }
    }
    (out, meaning)
}

fn modelled(sp: &Spelling) {
    // Single characters the parser would read otherwise are not part of this model.
    let usable = |t: &&Token| match t {
        Token::Char(c) => !(c.is_whitespace() || c.is_control() || *c == '+'),
        _ => true,
    };
    let tokens: Vec<&Token> = sp.tokens.iter().filter(usable).take(6).collect();
    let mut written = Vec::new();
    let mut mods: Vec<Mod> = Vec::new();
    let mut keys: Vec<String> = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        let style = sp.styles.get(i).copied().unwrap_or(0);
        let (text, meaning) = spell(t, style);
        let pad = |bit: u16| if style & 1 << bit != 0 { " " } else { "" };
        written.push(format!("{}{text}{}", pad(14), pad(15)));
        match meaning {
            Ok(m) if !mods.contains(&m) => mods.push(m),
            Ok(_) => {}
            Err(k) if !keys.contains(&k) => keys.push(k),
            Err(_) => {}
        }
    }
    let input = written.join("+");
    let got = parse_key_combo(&input);

    let len = input.trim().chars().count();
    if len > MAX_KEYS_LEN {
        assert_eq!(got, Err(KeyParseError::TooLong { len }), "{input:?}");
        return;
    }
    if tokens.is_empty() {
        assert_eq!(got, Err(KeyParseError::Empty), "{input:?}");
        return;
    }
    if keys.len() > 1 {
        assert!(matches!(got, Err(KeyParseError::MultipleKeys { .. })), "{input:?}: {got:?}");
        return;
    }
    mods.sort();
    let key = match keys.pop() {
        Some(k) => k,
        None => mods.pop().expect("a modifier when there is no key").name().to_string(),
    };
    let mut modifiers = Modifiers::default();
    for m in mods {
        set(&mut modifiers, m);
    }
    let key = Key::from_name(&key).expect("the model's key names are canonical");
    let want = KeyCombo { modifiers, key };
    assert_eq!(got.as_ref(), Ok(&want), "{input:?}");
    judged(&want);

    // Any other order of the same names is the same combination.
    // (The length limit counts the trimmed input, which padding moved to the ends can change.)
    let mut reversed = written.clone();
    reversed.reverse();
    let reversed = reversed.join("+");
    if reversed.trim().chars().count() <= MAX_KEYS_LEN && len <= MAX_KEYS_LEN {
        assert_eq!(parse_key_combo(&reversed).as_ref(), Ok(&want), "{input:?} reversed");
    }
}

//! Keys on a Mac, end to end through the pure parts: a layout read from the system's answers (here
//! from fixtures of the German and Thai layouts), the key a combination is pressed on, and a menu
//! item's shortcut as the guards read it.

use handrail_core::bindings::parse_bindings;
use handrail_macos::keycodes::KeyError;
use handrail_macos::layout::{KeyboardLayout, Level, Translation};
use handrail_macos::menu_keys::{binding, modifier, MenuShortcut};
use handrail_platform::KeyPolicy;

fn layout(name: &str, fixture: &str) -> KeyboardLayout {
    let answers = fixture.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()).map(|l| {
        let mut f = l.split(' ');
        let code = u16::from_str_radix(f.next().expect("code"), 16).expect("hex code");
        let level = match f.next().expect("level") {
            "plain" => Level::Plain,
            "shift" => Level::Shift,
            "option" => Level::Option,
            "option-shift" => Level::OptionShift,
            other => panic!("level {other}"),
        };
        Translation { code, level, text: f.next().expect("text").to_owned(), dead: false }
    });
    KeyboardLayout::from_translations(name, answers)
}

#[test]
fn on_a_german_layout_cmd_z_is_pressed_where_the_z_is() {
    let de = layout("German", include_str!("fixtures/layout-german.txt"));
    assert!(de.types_latin());
    assert_eq!(de.combo_key('z', true), Ok(0x10), "the key the US layout calls y");
    assert_eq!(de.combo_key('y', true), Ok(0x06));
    assert_eq!(de.combo_key('ö', false), Ok(0x29));
    assert_eq!(de.combo_key('+', true), Ok(0x1E));
    // '@' needs option on this layout: as a combination's key it would add a modifier nobody asked for.
    assert_eq!(de.combo_key('@', true), Err(KeyError::NotOnLayout { ch: '@', layout: "German".into() }));
    assert_eq!(de.stroke('@').map(|s| s.code), Some(0x25));
}

#[test]
fn on_a_thai_layout_cmd_shortcuts_use_the_us_keys_and_thai_is_typed_as_text() {
    let th = layout("Thai", include_str!("fixtures/layout-thai.txt"));
    assert!(!th.types_latin());
    assert_eq!(th.combo_key('c', true), Ok(0x08), "cmd+c copies on the US C key");
    assert_eq!(th.combo_key('v', true), Ok(0x09));
    assert_eq!(th.combo_key('ก', false), Ok(0x02), "ก is on the US D key");
    assert!(matches!(th.combo_key('c', false), Err(KeyError::NotOnLayout { .. })), "no c without cmd");
}

#[test]
fn finders_delete_shortcuts_reach_the_guards_as_refused_hotkeys() {
    let mac = KeyPolicy::macos();
    for (m, does) in [(0, "Trash"), (modifier::OPTION, "immediately")] {
        let reported =
            binding(&MenuShortcut { char: String::new(), glyph: Some(0x17), modifiers: m }).expect("a binding");
        let read = parse_bindings(&reported);
        assert!(!read.unreadable, "{reported}");
        let combo = read.combos.first().expect("one combination");
        let refused = mac.dangerous(combo).unwrap_or_default();
        assert!(refused.contains(does), "{reported}: {refused:?}");
    }
    let unknown = binding(&MenuShortcut { char: String::new(), glyph: Some(0x8C), modifiers: 0 }).expect("a binding");
    assert!(parse_bindings(&unknown).unreadable, "{unknown}");
}

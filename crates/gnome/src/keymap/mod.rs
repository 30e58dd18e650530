//! Which keys mutter can press for a keysym, from the compositor's keymap and its active layout.
//!
//! mutter types a keysym by looking for a key that carries it **in the active layout only** (its
//! `pick_keycode_for_keyval_in_current_group`) and drops it otherwise. With a non-Latin layout
//! active (Russian, Greek, Hebrew…) that is every Latin letter: text and shortcuts alike (ctrl+v,
//! ctrl+a). A person's keyboard still works there because the key labelled V is in every layout of
//! the keymap, and apps match ctrl+v on that key's code in a Latin layout. So, with the keymap:
//!
//! - a character the active layout carries is typed as its keysym there (a Cyrillic letter as
//!   `Cyrillic_ef`, which mutter finds, not as the Unicode keysym, which it would not);
//! - a key the active layout lacks but another layout carries is pressed by its keycode, as a
//!   person presses the key with that label ([`Stroke::Keycode`]);
//! - text the active layout cannot type is pasted (the input module's clipboard route).
//!
//! The keymap comes from the compositor as any Wayland client receives it
//! (`handrail_wayland::seat_keymap`), compiled by libxkbcommon (loaded at run time); which layout is
//! active comes from GNOME Shell, through handrail's extension.

mod xkbcommon;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use handrail_platform::keysym::{self, Keysym};

pub use xkbcommon::compile;

/// Where a keysym is on the keyboard: an evdev key code and the shift level that carries it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyPlace {
    /// The Linux input key code (the XKB key code less 8), as `NotifyKeyboardKeycode` takes it.
    pub code: u32,
    /// 0 for the key's plain symbol, 1 with Shift, 2 with AltGr…
    pub level: u32,
}

/// One layout (XKB group) of a keymap.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Layout {
    /// Its name as the keymap gives it ("Russian", "English (US)").
    pub name: String,
    /// Each keysym it carries, at the lowest key code and level carrying it (mutter's own order).
    pub keys: HashMap<Keysym, KeyPlace>,
    /// Each character it types, with the keysym that types it (the first, in the same order).
    pub chars: HashMap<char, Keysym>,
}

/// Every layout of a compositor's keymap, in group order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Layouts(pub Vec<Layout>);

/// How one key is pressed through the remote-desktop session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stroke {
    /// By keysym, which mutter finds in the active layout.
    Keysym(Keysym),
    /// By key code: the key that carries the symbol in another layout of the keymap.
    Keycode(u32),
}

/// The keyboard as it is now: the keymap's layouts and which one is active.
#[derive(Debug, Clone)]
pub struct Keyboard {
    layouts: Arc<Layouts>,
    active: usize,
}

impl Keyboard {
    /// `active` is the group index GNOME Shell reports; out of range it wraps, as XKB wraps groups.
    pub fn new(layouts: Arc<Layouts>, active: usize) -> Keyboard {
        let n = layouts.0.len().max(1);
        Keyboard { layouts, active: active % n }
    }

    fn active(&self) -> Option<&Layout> {
        self.layouts.0.get(self.active)
    }

    /// The active layout's name, for messages.
    pub fn active_name(&self) -> &str {
        self.active().map(|l| l.name.as_str()).unwrap_or("no layout")
    }

    /// The keysym that types `c` in the active layout, if any key of it does.
    pub fn typing_keysym(&self, c: char) -> Option<Keysym> {
        self.active()?.chars.get(&c).copied()
    }

    /// How to press the key that carries `sym` (a key name's keysym): by keysym where the active
    /// layout has it (or has the same character under another keysym), else by the key code of the
    /// first other layout that has it; `None` when no layout has it.
    pub fn stroke(&self, sym: Keysym) -> Option<Stroke> {
        let c = keysym::to_char(sym);
        if let Some(layout) = self.active() {
            if layout.keys.contains_key(&sym) {
                return Some(Stroke::Keysym(sym));
            }
            if let Some(ks) = c.and_then(|c| layout.chars.get(&c)) {
                return Some(Stroke::Keysym(*ks));
            }
        }
        let others = self.layouts.0.iter().enumerate().filter(|(i, _)| *i != self.active).map(|(_, l)| l);
        for layout in others {
            let place = layout.keys.get(&sym).or_else(|| {
                let ks = c.and_then(|c| layout.chars.get(&c))?;
                layout.keys.get(ks)
            });
            if let Some(place) = place {
                return Some(Stroke::Keycode(place.code));
            }
        }
        None
    }
}

/// Reads the compositor's keymap when asked, compiling it again only when its text changed.
pub struct KeymapReader {
    fetch: Box<dyn Fn() -> Result<String, String> + Send + Sync>,
    last: Mutex<Option<(String, Arc<Layouts>)>>,
}

impl std::fmt::Debug for KeymapReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeymapReader").finish_non_exhaustive()
    }
}

impl KeymapReader {
    /// `fetch` returns the keymap's XKB text (or why it cannot).
    pub fn new(fetch: Box<dyn Fn() -> Result<String, String> + Send + Sync>) -> KeymapReader {
        KeymapReader { fetch, last: Mutex::new(None) }
    }

    /// The current layouts.
    pub fn layouts(&self) -> Result<Arc<Layouts>, String> {
        let text = (self.fetch)()?;
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((t, layouts)) = last.as_ref() {
            if *t == text {
                return Ok(Arc::clone(layouts));
            }
        }
        let layouts = Arc::new(compile(&text)?);
        *last = Some((text, Arc::clone(&layouts)));
        Ok(layouts)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A keymap of `layouts`, each given as (name, [(evdev code, [(symbol, character) by level])]);
    /// `'\0'` for a symbol that types no character.
    /// A key of a hand-made layout: its evdev code and (symbol, character) by level.
    pub(crate) type TestKey<'a> = (u32, &'a [(Keysym, char)]);

    pub(crate) fn layouts(layouts: &[(&str, &[TestKey<'_>])]) -> Arc<Layouts> {
        Arc::new(Layouts(
            layouts
                .iter()
                .map(|(name, keys)| {
                    let mut layout = Layout { name: name.to_string(), ..Layout::default() };
                    for (code, syms) in keys.iter() {
                        for (level, (ks, c)) in syms.iter().enumerate() {
                            layout.keys.entry(*ks).or_insert(KeyPlace { code: *code, level: level as u32 });
                            if *c != '\0' {
                                layout.chars.entry(*c).or_insert(*ks);
                            }
                        }
                    }
                    layout
                })
                .collect(),
        ))
    }

    // Keysyms of the Russian layout (keysymdef.h): Cyrillic_ef / EF on the key labelled A, Cyrillic_em on V.
    pub(crate) const CYRILLIC_EF: Keysym = 0x6c6;
    const CYRILLIC_CAPITAL_EF: Keysym = 0x6e6;
    const CYRILLIC_EM: Keysym = 0x6cd;

    /// Russian first, US second, as GNOME builds the keymap for a Russian user (`ru,us`); 30 is
    /// KEY_A, 47 KEY_V, 2 KEY_1, 57 KEY_SPACE, 28 KEY_ENTER.
    pub(crate) fn russian_and_us() -> Arc<Layouts> {
        let common: [TestKey<'_>; 3] =
            [(2, &[(0x31, '1'), (0x21, '!')]), (57, &[(0x20, ' ')]), (28, &[(keysym::RETURN, '\r')])];
        let ru: Vec<TestKey<'_>> =
            [(30, &[(CYRILLIC_EF, 'ф'), (CYRILLIC_CAPITAL_EF, 'Ф')][..]), (47, &[(CYRILLIC_EM, 'м')][..])]
                .into_iter()
                .chain(common)
                .collect();
        let us: Vec<TestKey<'_>> = [(30, &[(0x61, 'a'), (0x41, 'A')][..]), (47, &[(0x76, 'v'), (0x56, 'V')][..])]
            .into_iter()
            .chain(common)
            .collect();
        layouts(&[("Russian", &ru), ("English (US)", &us)])
    }

    #[test]
    fn the_active_layout_types_its_own_characters_with_its_own_keysyms() {
        let ru = Keyboard::new(russian_and_us(), 0);
        // Not the Unicode keysym U+0444 (mutter would find no key for it), the layout's legacy one.
        assert_eq!(ru.typing_keysym('ф'), Some(CYRILLIC_EF));
        assert_eq!(ru.typing_keysym('1'), Some(0x31));
        assert_eq!(ru.typing_keysym('a'), None, "no Latin a in the Russian layout");
        let us = Keyboard::new(russian_and_us(), 1);
        assert_eq!(us.typing_keysym('a'), Some(0x61));
        assert_eq!(us.typing_keysym('ф'), None);
    }

    #[test]
    fn a_key_the_active_layout_lacks_is_pressed_where_another_layout_has_it() {
        let ru = Keyboard::new(russian_and_us(), 0);
        assert_eq!(ru.stroke(0x76), Some(Stroke::Keycode(47)), "ctrl+v on the key labelled V");
        assert_eq!(ru.stroke(0x56), Some(Stroke::Keycode(47)), "V at Shift's level is the same key");
        assert_eq!(ru.stroke(keysym::RETURN), Some(Stroke::Keysym(keysym::RETURN)));
        // A key name's Unicode keysym finds the layout's own keysym for that character.
        assert_eq!(ru.stroke(0x0100_0444), Some(Stroke::Keysym(CYRILLIC_EF)));
        assert_eq!(ru.stroke(0x0100_0e01), None, "Thai is in neither layout");
        let us = Keyboard::new(russian_and_us(), 1);
        assert_eq!(us.stroke(0x76), Some(Stroke::Keysym(0x76)));
        assert_eq!(us.stroke(0x0100_0444), Some(Stroke::Keycode(30)), "ф is on the key labelled A");
        assert_eq!(Keyboard::new(russian_and_us(), 5).active_name(), "English (US)", "groups wrap as in XKB");
    }
}

//! The guards' words, one file per interface language: the labels that announce a removal (in two
//! tiers), the labels of password fields, the words of a user's request that ask for a removal, and
//! how that language says "don't".
//!
//! Every list applies to every text whatever its language: a page's language follows the site, not the
//! user, and an intent may mix languages. So a term must not be an ordinary word in another language
//! ("sil" is Turkish for delete and the start of "silent"): such terms are whole words or carry the
//! harmless words they occur in (`except`). Terms are written in the guards' normal form
//! ([`super::text::normalize`]); a test checks every one.
//!
//! How a term is matched depends on how its script marks words:
//! - [`Fit::Within`]: anywhere, even inside a word: compounds ("Kontolöschung"), scripts without spaces
//!   (Thai, Chinese, Japanese) and words that take prefixes (Indonesian "menghapus", Arabic "احذف"). In
//!   labels, terms outside ASCII are also matched with every space removed, since OCR spaces out glyphs.
//! - [`Fit::WordStart`]: at the start of a word, any ending: inflected words ("eliminar", "eliminación").
//! - [`Fit::Word`]: a whole word.

use super::destructive::RemovalKind;
use super::text::{normalize, squashed};

mod ar;
mod de;
mod en;
mod es;
mod fr;
mod hi;
mod id;
mod it;
mod ja;
mod ko;
mod nl;
mod pl;
mod pt;
mod ru;
mod th;
mod tr;
mod uk;
mod vi;
mod zh;

/// Every language, English first: the first marker found is the one a refusal names.
pub(crate) const LEXICONS: &[&Lexicon] = &[
    &en::LEXICON,
    &th::LEXICON,
    &zh::LEXICON,
    &ja::LEXICON,
    &ko::LEXICON,
    &es::LEXICON,
    &pt::LEXICON,
    &fr::LEXICON,
    &de::LEXICON,
    &it::LEXICON,
    &nl::LEXICON,
    &pl::LEXICON,
    &ru::LEXICON,
    &uk::LEXICON,
    &tr::LEXICON,
    &ar::LEXICON,
    &hi::LEXICON,
    &id::LEXICON,
    &vi::LEXICON,
];

/// One interface language's words.
pub(crate) struct Lexicon {
    /// The language's name in English, for refusals ("German").
    pub name: &'static str,
    /// Labels that announce a removal, most specific first.
    pub markers: &'static [Marker],
    /// Labels of fields that take a password or PIN.
    pub passwords: &'static [Term],
    /// Words of a request that ask for each kind of removal.
    pub intents: &'static [(RemovalKind, Term)],
    pub negation: Negation,
}

/// A label marker and the removal it announces.
pub(crate) struct Marker {
    pub term: Term,
    pub kind: RemovalKind,
    /// Only in unattended mode: broad words ("Trash", "Format") that are harmless while a person watches.
    pub unattended_only: bool,
}

/// A removal marker every mode refuses without backing.
pub(crate) const fn marker(term: Term, kind: RemovalKind) -> Marker {
    Marker { term, kind, unattended_only: false }
}

/// A broad removal marker, refused only when nobody is watching.
pub(crate) const fn broad(term: Term, kind: RemovalKind) -> Marker {
    Marker { term, kind, unattended_only: true }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fit {
    Within,
    WordStart,
    Word,
}

/// A word or phrase and how it must sit in a text to count.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Term {
    pub text: &'static str,
    pub fit: Fit,
    /// Harmless words the term occurs in ("borrador", a draft, holds "borra"): an occurrence inside one
    /// of them is not a match.
    pub except: &'static [&'static str],
}

pub(crate) const fn within(text: &'static str) -> Term {
    Term { text, fit: Fit::Within, except: &[] }
}

pub(crate) const fn word_start(text: &'static str) -> Term {
    Term { text, fit: Fit::WordStart, except: &[] }
}

pub(crate) const fn word(text: &'static str) -> Term {
    Term { text, fit: Fit::Word, except: &[] }
}

impl Term {
    pub(crate) const fn except(self, except: &'static [&'static str]) -> Term {
        Term { except, ..self }
    }
}

/// How a language negates a request ("don't delete"): a removal word negated this way backs nothing.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Negation {
    /// Whole words that negate when among the last three words before the removal word in its clause
    /// ("do **not** delete", "**ne** supprime pas", "**nie** usuwaj").
    pub words_before: &'static [&'static str],
    /// Text that negates when within the 16 characters before it in its clause (scripts without spaces:
    /// "อย่าลบ", "不要删除").
    pub just_before: &'static [&'static str],
    /// Text that negates when within the 12 characters after it in its clause (verb-final negation:
    /// "削除しないで", "삭제하지 마").
    pub just_after: &'static [&'static str],
    /// Whole words that negate anywhere after it in its clause ("lösche die Datei **nicht**").
    pub words_after: &'static [&'static str],
    /// Whole words that are the removal word negated (Turkish "silme", "silmeyin": don't delete).
    pub negative_words: &'static [&'static str],
}

impl Negation {
    pub(crate) const NONE: Negation =
        Negation { words_before: &[], just_before: &[], just_after: &[], words_after: &[], negative_words: &[] };
}

/// A text prepared once for matching many terms.
pub(crate) struct Prepared {
    /// [`normalize`]d.
    pub norm: String,
    /// `norm` without spaces.
    pub squash: String,
}

impl Prepared {
    pub(crate) fn new(text: &str) -> Prepared {
        let norm = normalize(text);
        let squash = squashed(&norm);
        Prepared { norm, squash }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.norm.is_empty()
    }
}

impl Term {
    /// Whether the term is in a label. Terms outside ASCII are matched with spaces removed as well
    /// when they fit anywhere, since OCR spaces out the glyphs of some scripts ("ล บ").
    pub(crate) fn in_label(&self, label: &Prepared) -> bool {
        if self.occurrences(&label.norm).next().is_some() {
            return true;
        }
        self.fit == Fit::Within
            && !self.text.is_ascii()
            && occurrences_squashed(&label.squash, &squashed(self.text), self.except)
    }

    /// Byte ranges in `hay` where the term occurs as its fit asks, outside its `except` words.
    pub(crate) fn occurrences<'h>(&self, hay: &'h str) -> impl Iterator<Item = (usize, usize)> + 'h {
        occurrences(hay, self.text, self.fit, self.except)
    }
}

/// Whether `text` occurs anywhere in the squashed `hay`, outside the `except` words (squashed too).
fn occurrences_squashed(hay: &str, text: &str, except: &[&str]) -> bool {
    let except: Vec<String> = except.iter().map(|w| squashed(w)).collect();
    hay.match_indices(text).any(|(at, _)| !except.iter().any(|w| inside(hay, at, text, w)))
}

/// Byte ranges in `hay` where `text` occurs as `fit` asks, outside the `except` words.
pub(crate) fn occurrences<'h>(
    hay: &'h str,
    text: &'h str,
    fit: Fit,
    except: &'static [&'static str],
) -> impl Iterator<Item = (usize, usize)> + 'h {
    hay.match_indices(text).map(|(at, m)| (at, at + m.len())).filter(move |&(start, end)| {
        let glued_before = hay[..start].chars().next_back().is_some_and(char::is_alphanumeric);
        let glued_after = hay[end..].chars().next().is_some_and(char::is_alphanumeric);
        let fits = match fit {
            Fit::Within => true,
            Fit::WordStart => !glued_before,
            Fit::Word => !glued_before && !glued_after,
        };
        fits && !except.iter().any(|w| inside(hay, start, text, w))
    })
}

/// Whether the occurrence of `term` at `at` in `hay` is part of `word` there.
fn inside(hay: &str, at: usize, term: &str, word: &str) -> bool {
    word.match_indices(term).any(|(offset, _)| {
        at.checked_sub(offset).and_then(|start| hay.get(start..)).is_some_and(|rest| rest.starts_with(word))
    })
}

/// Ends clauses in every script the lexicons cover.
const CLAUSE_ENDS: &[char] =
    &['.', ',', ';', ':', '!', '?', '。', '，', '、', '；', '：', '！', '？', '،', '؛', '؟', '।'];

/// Whether the occurrence `start..end` of a request word in `norm` is negated by any language's rule.
pub(crate) fn negated(norm: &str, start: usize, end: usize) -> bool {
    let before = &norm[..start];
    let after = &norm[end..];
    let clause_before = before.rfind(CLAUSE_ENDS).map_or(before, |i| &before[i..]);
    let clause_after = after.find(CLAUSE_ENDS).map_or(after, |i| &after[..i]);
    let words = |s: &'_ str| -> Vec<String> {
        s.split(|c: char| !(c.is_alphanumeric() || c == '\'')).filter(|t| !t.is_empty()).map(str::to_owned).collect()
    };
    let last_three: Vec<String> = words(clause_before).into_iter().rev().take(3).collect();
    let later: Vec<String> = words(clause_after);
    let tail = tail_chars(clause_before, 16);
    let head = head_chars(clause_after, 12);
    let word_start =
        before.char_indices().rev().take_while(|(_, c)| c.is_alphanumeric()).last().map_or(start, |(i, _)| i);
    let word_end = after.char_indices().find(|(_, c)| !c.is_alphanumeric()).map_or(norm.len(), |(i, _)| end + i);
    let whole_word = &norm[word_start..word_end];
    LEXICONS.iter().map(|l| &l.negation).any(|n| {
        n.words_before.iter().any(|w| last_three.iter().any(|t| t == w))
            || n.just_before.iter().any(|w| tail.contains(w))
            || n.just_after.iter().any(|w| head.contains(w))
            || n.words_after.iter().any(|w| later.iter().any(|t| t == w))
            || n.negative_words.contains(&whole_word)
    })
}

fn tail_chars(s: &str, n: usize) -> &str {
    s.char_indices().rev().nth(n - 1).map_or(s, |(i, _)| &s[i..])
}

fn head_chars(s: &str, n: usize) -> &str {
    s.char_indices().nth(n).map_or(s, |(i, _)| &s[..i])
}

/// Every marker in `label` for the tier, in [`LEXICONS`] order, each with its language.
pub(crate) fn markers_in(
    label: &Prepared,
    unattended: bool,
) -> impl Iterator<Item = (&'static Marker, &'static str)> + '_ {
    LEXICONS.iter().flat_map(move |l| {
        l.markers
            .iter()
            .filter(move |m| unattended || !m.unattended_only)
            .filter(move |m| m.term.in_label(label))
            .map(move |m| (m, l.name))
    })
}

/// Whether a request word for `kind` occurs in `norm` (a [`normalize`]d request) without a negation.
pub(crate) fn asks_for_kind(norm: &str, kind: RemovalKind) -> bool {
    LEXICONS
        .iter()
        .flat_map(|l| l.intents.iter())
        .filter(|(k, _)| *k == kind)
        .any(|(_, term)| term.occurrences(norm).any(|(start, end)| !negated(norm, start, end)))
}

/// The first password term in `label`.
pub(crate) fn password_in(label: &Prepared) -> Option<&'static str> {
    LEXICONS.iter().flat_map(|l| l.passwords.iter()).find(|t| t.in_label(label)).map(|t| t.text)
}

#[cfg(test)]
pub(crate) mod testing;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_term_is_written_in_normal_form() {
        let mut terms: Vec<(&str, Term)> = Vec::new();
        for l in LEXICONS {
            terms.extend(l.markers.iter().map(|m| (l.name, m.term)));
            terms.extend(l.passwords.iter().map(|t| (l.name, *t)));
            terms.extend(l.intents.iter().map(|(_, t)| (l.name, *t)));
        }
        for (language, t) in terms {
            assert!(!t.text.is_empty(), "{language}: an empty term");
            assert_eq!(normalize(t.text), t.text, "{language}: {:?} is not in normal form", t.text);
            for w in t.except {
                assert_eq!(normalize(w), *w, "{language}: {w:?} is not in normal form");
                assert!(w.contains(t.text), "{language}: {w:?} does not contain {:?}", t.text);
            }
        }
        for l in LEXICONS {
            let n = &l.negation;
            for w in n
                .words_before
                .iter()
                .chain(n.just_before)
                .chain(n.just_after)
                .chain(n.words_after)
                .chain(n.negative_words)
            {
                assert_eq!(normalize(w), *w, "{}: negation {w:?} is not in normal form", l.name);
            }
        }
    }

    #[test]
    fn every_language_covers_every_list() {
        for l in LEXICONS {
            assert!(l.markers.iter().any(|m| !m.unattended_only), "{}: no marker for both modes", l.name);
            assert!(l.markers.iter().any(|m| m.unattended_only), "{}: no broad marker", l.name);
            assert!(!l.passwords.is_empty(), "{}: no password label", l.name);
            for kind in [RemovalKind::Delete, RemovalKind::Trash, RemovalKind::Uninstall, RemovalKind::Format] {
                assert!(l.intents.iter().any(|(k, _)| *k == kind), "{}: no request word for {kind:?}", l.name);
            }
        }
    }

    #[test]
    fn fits() {
        let p = |s: &str| Prepared::new(s);
        assert!(within("lösch").in_label(&p("Kontolöschung")));
        assert!(word_start("elimin").in_label(&p("Eliminación")));
        assert!(!word_start("elimin").in_label(&p("preeliminar")));
        assert!(word("sil").in_label(&p("Sil")));
        assert!(!word("sil").in_label(&p("Silent mode")));
        assert!(!word_start("borra").except(&["borrador"]).in_label(&p("Guardar borrador")));
        assert!(word_start("borra").except(&["borrador"]).in_label(&p("Borrar borrador")));
        // Spaces OCR put between glyphs do not hide a term outside ASCII.
        assert!(within("删除").in_label(&p("删 除")));
    }

    #[test]
    fn negation_stays_in_its_clause() {
        let n = |s: &str, w: &str| {
            let norm = normalize(s);
            let at = norm.find(w).expect("word in text");
            negated(&norm, at, at + w.len())
        };
        assert!(n("do not delete it", "delete"));
        assert!(!n("no, delete it", "delete"));
        assert!(n("lösche die datei nicht", "lösch"));
        assert!(!n("lösche die datei, nicht den ordner", "lösch"));
        assert!(n("削除しないでください", "削除"));
        assert!(n("dosyayı silme", "sil"));
        assert!(!n("dosyayı silmek istiyorum", "sil"));
    }
}

#[cfg(test)]
mod properties {
    use super::*;
    use proptest::prelude::*;

    /// Every marker of every language, with the tier it belongs to.
    fn all_markers() -> Vec<(&'static str, &'static Marker)> {
        LEXICONS.iter().flat_map(|l| l.markers.iter().map(move |m| (l.name, m))).collect()
    }

    #[test]
    fn every_marker_is_found_in_capitals_and_with_hidden_characters() {
        for (language, m) in all_markers() {
            let dressed: String = m.term.text.to_uppercase().chars().flat_map(|c| [c, '\u{200B}']).collect();
            for label in [m.term.text.to_owned(), format!("Ok {dressed} ok")] {
                let p = Prepared::new(&label);
                assert!(markers_in(&p, true).next().is_some(), "{language} {:?} in {label:?}", m.term.text);
                if !m.unattended_only {
                    assert!(
                        markers_in(&p, false).next().is_some(),
                        "{language} {:?} (interactive) in {label:?}",
                        m.term.text
                    );
                }
            }
        }
    }

    proptest! {
        /// A marker standing as its own word is found whatever surrounds it, in any case, with invisible
        /// characters between its letters; and what interactive mode refuses, unattended mode refuses too.
        #[test]
        fn a_marker_is_found_however_it_is_dressed(
            which in any::<prop::sample::Index>(),
            before in "[A-Za-z0-9 ]{0,12}",
            after in "[A-Za-z0-9 ]{0,12}",
            upper in any::<bool>(),
            hidden in prop::collection::vec(prop::sample::select(vec!['\u{200B}', '\u{00AD}', '\u{2060}', '\u{FEFF}']), 0..3),
        ) {
            let markers = all_markers();
            let (language, m) = markers[which.index(markers.len())];
            let text: String = if upper { m.term.text.to_uppercase() } else { m.term.text.to_owned() };
            let mut dressed = String::new();
            for (i, c) in text.chars().enumerate() {
                dressed.push(c);
                if let Some(h) = hidden.get(i) {
                    dressed.push(*h);
                }
            }
            let label = format!("{before} {dressed} {after}");
            let p = Prepared::new(&label);
            prop_assert!(markers_in(&p, true).next().is_some(), "{language} {:?} not found in {label:?}", m.term.text);
            if !m.unattended_only {
                prop_assert!(markers_in(&p, false).next().is_some(), "{language} {:?} (interactive) in {label:?}", m.term.text);
            }
        }

        /// Unattended mode refuses everything interactive mode refuses, for any text.
        #[test]
        fn unattended_refuses_a_superset(label in "\\PC{0,40}") {
            let p = Prepared::new(&label);
            if markers_in(&p, false).next().is_some() {
                prop_assert!(markers_in(&p, true).next().is_some());
            }
        }
    }
}

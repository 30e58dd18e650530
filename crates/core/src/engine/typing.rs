//! Reading typed text back from the element that received it: `[ok]` after `type` means the text is
//! there, wherever that can be checked.
//!
//! The receiver is the one the guards judged: the target, else the focused element, as the pre-action
//! look showed it (with its text just before typing). After settling, the same element in the fresh
//! observation must hold exactly one more occurrence of the text than before. When it does not, the screen gets a
//! short grace to catch up (accessibility reports values through events) and is read again; then, once,
//! the text is sent the other way ([`TextRoute::Alternate`]: keys where a paste was used, or the
//! reverse) — but only where nothing half-typed is left behind: when nothing arrived; when the field
//! was empty (select all, then the second attempt replaces what the first left); or, in a single-line
//! entry whose own text survived whole around one inserted run of garbage, by selecting all and typing
//! the line as meant (the user's text with the meant text where the garbage was). Otherwise the result
//! says plainly what the field holds. In a multi-line editor a newline is text like any other, and so
//! is a Tab where the editor takes it ([`Element::takes_tab_as_text`]); elsewhere text with a newline
//! or Tab is not checked: Return may submit the field and Tab moves focus, so the field's text proves
//! nothing either way. Nor is text that would take the field past what accessibility reports of it.

use std::time::Duration;

use handrail_platform::{AxHealth, Desktop, PlatformError, SettleWatch, States, TextRoute};

use super::config::Config;
use super::observe::{observe, Fresh};
use super::recheck::Probe;
use super::Aim;
use crate::guard::terminal::{is_terminal_element, AX_TEXT_LIMIT};
use crate::identity::{match_elements, IdTracker};
use crate::observation::{Element, Observation};
use crate::outcome::TypingCheck;

/// How long the screen may take to show typed text after settling, before it counts as missing.
const GRACE: Duration = Duration::from_millis(600);
/// Further rounds of [`GRACE`] for text still arriving — the field holds a start of it that grew
/// since the last look: keys still queued in a busy app (Firefox's address bar on a loaded machine
/// was read holding "http:" of 28 characters). ~5 s at most; a start that stops growing ends it.
const ARRIVING_ROUNDS: u32 = 8;

/// The element `type` text goes to, as it was just before typing; `Err` says why it cannot be checked.
pub(super) fn receiver_before(text: &str, aims: &[Aim], probe: &Probe) -> Result<Element, String> {
    let element = match aims.first() {
        Some(aim) => {
            let partner = match_elements(&probe.elements, std::slice::from_ref(&aim.element))[0];
            partner.map(|i| probe.elements[i].clone()).unwrap_or_else(|| aim.element.clone())
        }
        None => match probe.focus.and_then(|i| probe.elements.get(i)) {
            Some(e) => e.clone(),
            None => return Err("no element is reported focused, so what received the text cannot be read".into()),
        },
    };
    if element.is_secure() {
        return Err("a secret field is never read back".into());
    }
    // In a multi-line editor a newline is text, and so is a Tab where the editor takes it; anywhere
    // else Return may submit the field and Tab moves focus, so the field's text proves nothing.
    if text.contains('\n') && !element.is_multi_line_editor() {
        return Err("the text holds a newline, which may submit the field".into());
    }
    if text.contains('\t') && !element.takes_tab_as_text() {
        return Err("the text holds a Tab, which moves focus".into());
    }
    // A spreadsheet's cell takes typed text into an editor of its own and holds it only once it is
    // committed: read back before, it would look empty, and the text would be sent twice.
    if element.role == handrail_platform::Role::Cell {
        return Err("a cell holds typed text only once it is committed (Return or Tab)".into());
    }
    if !(element.role.is_text_input() || element.states.contains(States::EDITABLE)) {
        return Err(format!("the receiving {} holds no text of its own", element.role));
    }
    match element.value.as_deref() {
        None => return Err(format!("the text of the receiving {} cannot be read", element.role)),
        Some(v) if is_terminal_element(&element) && v.chars().count() >= AX_TEXT_LIMIT => {
            return Err("the terminal holds more text than accessibility reports".into())
        }
        // Accessibility reports the first AX_TEXT_LIMIT characters of a field: past them, text that
        // arrived would read as missing (and be sent again).
        Some(v) if !is_terminal_element(&element) && v.chars().count() + text.chars().count() >= AX_TEXT_LIMIT => {
            return Err(format!(
                "the {} would hold more than the {AX_TEXT_LIMIT} characters accessibility reports",
                element.role
            ))
        }
        Some(_) => {}
    }
    Ok(element)
}

/// What the element shows compared with what was meant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Arrival {
    Exact,
    /// It holds what it held before.
    Nothing,
    /// Something else arrived.
    Wrong,
}

/// One more occurrence of the text than before is an arrival, whatever else the field did with it (an
/// address bar completing it inline, a field reformatting around it); two more is text typed twice.
fn arrival(before: &str, after: &str, text: &str) -> Arrival {
    if text.is_empty() {
        return Arrival::Exact;
    }
    let new = after.matches(text).count().saturating_sub(before.matches(text).count());
    match new {
        1 => Arrival::Exact,
        // Typing over a selection that held the text already.
        0 if after == text && before != text => Arrival::Exact,
        0 if after == before => Arrival::Nothing,
        _ => Arrival::Wrong,
    }
}

/// The receiver in `obs`, and its text.
fn after<'a>(obs: &'a Observation, before: &Element) -> Option<(&'a Element, &'a str)> {
    let partner = match_elements(std::slice::from_ref(before), &obs.elements).iter().position(Option::is_some);
    let e = partner.map(|i| &obs.elements[i])?;
    Some((e, e.value.as_deref()?))
}

/// Everything verifying needs from the call that typed.
pub(super) struct Typed<'a, 'w> {
    pub desktop: &'a Desktop,
    pub config: &'a Config,
    pub tracker: &'a mut IdTracker,
    pub marks: bool,
    pub watch: &'a mut (dyn SettleWatch + 'w),
}

impl Typed<'_, '_> {
    /// Checks `text` arrived in `before`'s element, retrying once the other way when that is safe;
    /// `fresh` becomes the latest look and `settle_time` grows by any waiting done here.
    pub(super) fn verify(
        &mut self,
        text: &str,
        before: &Element,
        fresh: &mut Fresh,
        settle_time: &mut Duration,
    ) -> Result<TypingCheck, PlatformError> {
        let terminal = is_terminal_element(before);
        let held = before.value.clone().unwrap_or_default();
        let first = self.read(text, &held, before, fresh, settle_time)?;
        let (element, holds, how) = match first {
            Read::Gone(why) => return Ok(TypingCheck::Unchecked { why }),
            Read::Holds { element, holds, arrival: Arrival::Exact, .. } => {
                let _ = holds;
                return Ok(TypingCheck::Arrived { element });
            }
            // Accessibility reports nothing new, but the screen shows the text in the field: it
            // arrived and is not reported (GTK 4.8 answers a request for all of an entry's text
            // with nothing). Sending it again would type it twice.
            Read::Holds { element, arrival: Arrival::Nothing, .. } if drawn_in(&fresh.obs, element, &held, text) => {
                return Ok(TypingCheck::Unchecked {
                    why: "accessibility reports the field's text unchanged, but the screen shows the typed text in \
                          it; it was not sent again"
                        .into(),
                });
            }
            Read::Holds { element, holds, arrival, focused } => {
                let safe = focused && !terminal && (arrival == Arrival::Nothing || held.is_empty());
                let replace = if safe || !focused || terminal || arrival != Arrival::Wrong {
                    None
                } else {
                    replacement(before, &held, &holds, text)
                };
                if !safe && replace.is_none() {
                    return Ok(TypingCheck::NotArrived { element, holds, retried: false });
                }
                (element, holds, replace.map_or(Retry::Again(arrival), Retry::Replace))
            }
        };
        log::warn!(
            "typed text did not arrive in {element} ({} chars held, {} meant); sending it again the other way",
            holds.chars().count(),
            text.chars().count()
        );
        let select_all = self.desktop.rules.keys.select_all.clone();
        match &how {
            Retry::Again(Arrival::Wrong) => {
                // The field was empty: select what the first attempt left, so the second replaces it.
                self.desktop.input.key(&select_all)?;
                self.desktop.input.type_text_via(text, TextRoute::Alternate)?;
            }
            Retry::Again(_) => self.desktop.input.type_text_via(text, TextRoute::Alternate)?,
            Retry::Replace(whole) => {
                // The first attempt's garbage sits between the user's own text: replace the whole
                // line with that text and what was meant, where the first attempt put it.
                self.desktop.input.key(&select_all)?;
                self.desktop.input.type_text_via(whole, TextRoute::Alternate)?;
            }
        }
        *settle_time += self.watch.wait(&self.config.settle)?.waited;
        *fresh = observe(self.desktop, self.config, self.tracker, None, self.marks)?;
        let retried = self.read(text, &held, before, fresh, settle_time)?;
        Ok(match retried {
            Read::Holds { element, arrival: Arrival::Exact, .. } => {
                TypingCheck::ArrivedOnRetry { element, first: holds }
            }
            Read::Holds { element, holds, .. } => TypingCheck::NotArrived { element, holds, retried: true },
            Read::Gone(why) => TypingCheck::Unchecked { why },
        })
    }

    /// Reads the receiver in `fresh`, giving the screen a short grace when the text is not there yet.
    fn read(
        &mut self,
        text: &str,
        held: &str,
        before: &Element,
        fresh: &mut Fresh,
        settle_time: &mut Duration,
    ) -> Result<Read, PlatformError> {
        let mut graced = false;
        let mut rounds = 0;
        let mut last: Option<String> = None;
        let mut looked_again = false;
        loop {
            let Some((e, holds)) = after(&fresh.obs, before) else {
                // A look whose accessibility did not answer whole (a busy machine) cannot tell that the
                // field is gone: it is looked at once more.
                if fresh.obs.ax != AxHealth::Ok && !looked_again {
                    looked_again = true;
                    *fresh = observe(self.desktop, self.config, self.tracker, None, self.marks)?;
                    continue;
                }
                return Ok(Read::Gone(format!(
                    "the receiving {} {:?} is no longer listed after typing",
                    before.role, before.label
                )));
            };
            let arrival = arrival(held, holds, text);
            let focused = e.states.contains(States::FOCUSED)
                || fresh.obs.focus.is_some_and(|i| std::ptr::eq(&fresh.obs.elements[i], e));
            let growing = last.as_deref() != Some(holds) && still_arriving(held, holds, text);
            let read = Read::Holds { element: e.id, holds: holds.to_string(), arrival, focused };
            if arrival == Arrival::Exact || (graced && !(growing && rounds < ARRIVING_ROUNDS)) {
                return Ok(read);
            }
            if graced {
                rounds += 1;
            }
            graced = true;
            last = Some(holds.to_string());
            if self.watch.wait_for_change(GRACE)? {
                *settle_time += self.watch.wait(&self.config.settle)?.waited;
            }
            *fresh = observe(self.desktop, self.config, self.tracker, None, self.marks)?;
        }
    }
}

/// Whether the receiver, which held `held`, now `holds` a proper start of `text` (over a selection
/// it replaced, or after what it held): the text is still arriving, not wrong.
fn still_arriving(held: &str, holds: &str, text: &str) -> bool {
    let part = |h: &str| !h.is_empty() && h.len() < text.len() && text.starts_with(h);
    part(holds) || holds.strip_prefix(held).is_some_and(part)
}

/// Whether OCR reads the start of `text` (its first dozen non-blank characters, at least three)
/// inside the receiver `element`'s bounds in `obs`, where accessibility's `held` text did not already
/// hold it.
fn drawn_in(obs: &Observation, element: crate::ids::ElementId, held: &str, text: &str) -> bool {
    let squeeze =
        |s: &str| -> String { s.chars().filter(|c| !c.is_whitespace()).flat_map(char::to_lowercase).collect() };
    let start: String = squeeze(text).chars().take(12).collect();
    if start.chars().count() < 3 || squeeze(held).contains(&start) {
        return false;
    }
    let Some(receiver) = obs.elements.iter().find(|e| e.id == element) else { return false };
    obs.elements
        .iter()
        .filter(|e| e.source.is_ocr_only() && receiver.bounds.contains(e.bounds.center()))
        .any(|e| squeeze(&e.label).contains(&start))
}

/// How the second attempt goes.
enum Retry {
    /// The text again (over a selection of everything, when the field was empty but is not now).
    Again(Arrival),
    /// The field's whole line, rewritten: the user's text with the meant text where the garbage is.
    Replace(String),
}

/// For a single-line entry whose user text survived whole, with garbage inserted at one place: the
/// line as it was meant to become (the user's text, the meant text at that place). None wherever
/// rewriting the line could lose anything: a multi-line or rich field, a value that may be cut short,
/// garbage that replaced some of the user's text.
fn replacement(before: &Element, held: &str, holds: &str, text: &str) -> Option<String> {
    if before.role != handrail_platform::Role::Entry {
        return None;
    }
    let (h, g): (Vec<char>, Vec<char>) = (held.chars().collect(), holds.chars().collect());
    if h.is_empty() || g.len() <= h.len() || g.len() >= AX_TEXT_LIMIT {
        return None;
    }
    let prefix = h.iter().zip(&g).take_while(|(a, b)| a == b).count();
    let suffix = h.iter().rev().zip(g.iter().rev()).take_while(|(a, b)| a == b).count().min(h.len() - prefix);
    if prefix + suffix != h.len() {
        return None;
    }
    let byte = held.char_indices().nth(prefix).map_or(held.len(), |(i, _)| i);
    Some(format!("{}{text}{}", &held[..byte], &held[byte..]))
}

enum Read {
    Holds { element: crate::ids::ElementId, holds: String, arrival: Arrival, focused: bool },
    Gone(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_rewritten_only_where_nothing_of_the_users_text_can_be_lost() {
        use crate::ids::ElementId;
        use crate::observation::{ElementDetail, Source};
        use handrail_platform::{Rect, Role};
        let field = |role| Element {
            id: ElementId(1),
            role,
            label: "Note".into(),
            value: None,
            bounds: Rect::new(0, 0, 100, 20),
            states: States::FOCUSED,
            source: Source::Ax,
            app: "app".into(),
            window: "w".into(),
            owner: None,
            detail: ElementDetail::default(),
        };
        let entry = field(Role::Entry);
        // Garbage at the end, at the start, in the middle (the caret was there): the meant text goes
        // where the garbage is, the user's text stays.
        assert_eq!(replacement(&entry, "ab", "abc?", "cd").as_deref(), Some("abcd"));
        assert_eq!(replacement(&entry, "ab", "?ab", "x").as_deref(), Some("xab"));
        assert_eq!(replacement(&entry, "ab", "a??b", "ไทย").as_deref(), Some("aไทยb"));
        assert_eq!(replacement(&entry, "สวัส", "สวัสดี?", "ดี").as_deref(), Some("สวัสดี"));
        // Repeated letters: any place the garbage can be read at gives the same line.
        assert_eq!(replacement(&entry, "aa", "aaX", "b").as_deref(), Some("aab"));
        // The user's text did not survive whole, nothing was added, or the field was empty.
        assert_eq!(replacement(&entry, "abc", "aXc", "b"), None);
        assert_eq!(replacement(&entry, "abc", "ab", "d"), None);
        assert_eq!(replacement(&entry, "", "x?", "xy"), None);
        // Multi-line, terminal or rich fields are never rewritten; nor a value that may be cut short.
        assert_eq!(replacement(&field(Role::TextArea), "ab", "abc?", "cd"), None);
        assert_eq!(replacement(&field(Role::Terminal), "ab", "abc?", "cd"), None);
        let long = "x".repeat(AX_TEXT_LIMIT);
        assert_eq!(replacement(&entry, "ab", &format!("ab{long}"), "cd"), None);
    }

    #[test]
    fn arrivals() {
        assert_eq!(arrival("", "héllo", "héllo"), Arrival::Exact);
        assert_eq!(arrival("ab", "abcd", "cd"), Arrival::Exact);
        assert_eq!(arrival("ab", "acdb", "cd"), Arrival::Exact, "at a caret inside");
        assert_eq!(arrival("old", "new", "new"), Arrival::Exact, "over a selection");
        assert_eq!(arrival("", "example.com/", "exa"), Arrival::Exact, "completed inline");
        assert_eq!(arrival("ab", "ab", "cd"), Arrival::Nothing);
        assert_eq!(arrival("", "", "ไทย"), Arrival::Nothing);
        assert_eq!(arrival("", "ไท", "ไทย"), Arrival::Wrong);
        assert_eq!(arrival("", "okok", "ok"), Arrival::Wrong, "twice is not exact");
        assert_eq!(arrival("cd", "cdcd", "cd"), Arrival::Exact);
        assert_eq!(arrival("$ \n", "$ ls\n", "ls"), Arrival::Exact);
        assert_eq!(arrival("$ ls\n", "$ ls\n", "ls"), Arrival::Nothing);
    }

    #[test]
    fn a_start_of_the_text_is_still_arriving_and_nothing_else_is() {
        let url = "http://127.0.0.1:8080/page";
        assert!(still_arriving("http://old/", "http:", url), "over the selected address");
        assert!(still_arriving("ab", "abhel", "hello"), "after what the field held");
        assert!(still_arriving("", "ไท", "ไทย"));
        for (held, holds) in [("", ""), ("ab", "ab"), ("", "hello"), ("", "hellx"), ("", "hello!"), ("ab", "xbhe")] {
            assert!(!still_arriving(held, holds, "hello"), "{held:?} → {holds:?}");
        }
    }
}

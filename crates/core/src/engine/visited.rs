//! After an action: where the browser in front went, checked against the allowed domains.
//!
//! The browser handrail launches reaches the network only through the URL-policy proxy, so nothing it
//! does can reach a forbidden host. A browser the person started (on `--display`) has no such proxy:
//! a link, a redirect, a form or a script can take it anywhere. For those, every action that sent
//! input is followed by a look at the front window's address bar; a page outside the allowed domains
//! that appeared during the action is undone (Escape stops a load in progress, alt+Left goes back; a
//! window or tab the action opened is closed with ctrl+w) and the result is `[refused]` by the `url` rule,
//! naming the page. An address is believed only once it held across two looks: accessible address
//! bars can lag their page, and undoing on a stale one would take the browser back from a page it
//! was allowed on.
//!
//! What this can and cannot guarantee: it undoes what it sees, after the fact. The request already
//! reached the forbidden host (and whatever the page sent with it); a page that navigated and came back
//! within the action, or one whose address the bar does not show, is not seen. Only the proxy of the
//! launched browser keeps requests from leaving. When the proxy itself refused the page (it is listed in
//! `blocked:` now, or it refused that page earlier in the session and the browser's history brought
//! its block page back), nothing reached the host and nothing is undone.

use std::time::Duration;

use handrail_platform::{AppRules, KeyCombo, Role, SettleRequest, States};

use super::observe::observe;
use super::Engine;
use crate::guard::navigation::{address_of, is_address_bar, visited_refusal, Address};
use crate::guard::Rule;
use crate::keys::parse_key_combo;
use crate::observation::{Element, Observation};
use crate::outcome::{GuardDecision, Outcome, Status};
use crate::render::quote_clipped;
use crate::request::ActionKind;

/// Pages refused by the proxy that the session remembers (the oldest are forgotten first).
pub(super) const REFUSED_PAGES: usize = 256;

/// A page's address as compared with the proxy's refusals: host, port and path, lower-cased host,
/// whatever the scheme, query or fragment (the address bar may show `127.0.0.2:8080/link` for the
/// proxy's `http://127.0.0.2:8080/link`), read as an address bar reads it.
fn page_key(address: &str) -> Option<String> {
    let Address::Url(url) = address_of(address) else { return None };
    let u = url::Url::parse(&url).ok()?;
    let host = u.host_str()?.to_ascii_lowercase();
    let port = u.port_or_known_default().map_or_else(String::new, |p| format!(":{p}"));
    Some(format!("{host}{port}{}", u.path()))
}

/// Looks taken after the first one to see a forbidden address hold (each waits for the screen to
/// settle, at least the response window): a lagging bar has caught up by the second.
const CONFIRM_LOOKS: usize = 3;
const CONFIRM_CEILING: Duration = Duration::from_millis(1500);

/// The address bar of the window in front, and the page it shows. A focused bar shows what is being
/// typed into it, which is not where the browser is (it is judged when committed, `guard::navigation`).
fn front_address<'o>(obs: &'o Observation, apps: &AppRules) -> Option<(&'o Element, String)> {
    let active = obs.windows.iter().rev().find(|w| w.active).map(|w| w.handle);
    obs.elements
        .iter()
        .filter(|e| is_address_bar(e, apps))
        .find(|e| match (active, e.owner) {
            (Some(a), Some(o)) => a == o,
            _ => obs.window.as_deref() == Some(e.window.as_str()),
        })
        .filter(|e| !e.states.contains(States::FOCUSED))
        .map(|e| (e, e.value.clone().unwrap_or_default()))
}

/// Browser tabs listed in the window in front.
fn tabs(obs: &Observation) -> usize {
    let active = obs.windows.iter().rev().find(|w| w.active).map(|w| w.handle);
    obs.elements.iter().filter(|e| e.role == Role::Tab && (active.is_none() || e.owner == active)).count()
}

fn sends_input(action: Option<ActionKind>) -> bool {
    !matches!(action, None | Some(ActionKind::See | ActionKind::Inspect | ActionKind::Hover))
}

impl Engine {
    /// Remembers the pages the proxy refused (the session's `refused_pages`).
    pub(super) fn remember_refused(&mut self, blocked: &[handrail_platform::BlockedRequest]) {
        let pages = &mut self.session.refused_pages;
        for key in blocked.iter().filter_map(|b| page_key(&b.url)) {
            if let Some(i) = pages.iter().position(|p| *p == key) {
                pages.remove(i);
            }
            pages.push_back(key);
            if pages.len() > REFUSED_PAGES {
                pages.pop_front();
            }
        }
    }

    /// Undoes a navigation the action caused to a page outside the allowed domains (see module docs).
    pub(super) fn undo_forbidden_visit(&mut self, before: Option<&Observation>, outcome: &mut Outcome) {
        if self.config.url_policy.allowed_domains.is_empty() || !sends_input(outcome.action) {
            return;
        }
        let rules = self.desktop.rules.clone();
        let front_address =
            |obs: &Observation| front_address(obs, &rules.apps).map(|(bar, shown)| (bar.clone(), shown));
        let Some(first) = outcome.observation.clone() else { return };
        let Some((_, first_shown)) = front_address(&first) else { return };
        if visited_refusal(&first_shown, &self.config.url_policy).is_none() {
            return;
        }
        // Already there before this action: not its doing (the person went there, or it was reported).
        if before.and_then(&front_address).is_some_and(|(_, was)| was == first_shown) {
            return;
        }
        // Undoing presses keys in a browser, so the bar must be believed first: a browser's accessible
        // address bar can lag its page (Firefox's tree is refreshed apart from its window), showing the
        // page the browser just left. Only an address that held across two looks is a visit.
        if let Err(e) = self.confirm_address(&first_shown, outcome) {
            log::warn!("looking again at the address bar failed: {e}");
        }
        let Some(after) = outcome.observation.clone() else { return };
        let Some((bar, shown)) = front_address(&after) else { return };
        let Some((url, why)) = visited_refusal(&shown, &self.config.url_policy) else { return };
        if before.and_then(&front_address).is_some_and(|(_, was)| was == shown) {
            return;
        }
        let url = crate::guard::url::redact_credentials(&url);
        let host_of = |u: &str| url::Url::parse(u).ok().and_then(|u| u.host_str().map(str::to_owned));
        let host = host_of(&url);
        if host.is_some() && outcome.blocked.iter().any(|b| host_of(&b.url) == host) {
            return; // The proxy refused it: nothing reached the host, and the browser shows why.
        }
        // Refused earlier in the session: the browser shows that block page again (its history went
        // back or forward to it, or its accessible bar lags behind a page it already left).
        if page_key(&url).is_some_and(|key| self.session.refused_pages.contains(&key)) {
            return;
        }
        let new_window = bar.owner.is_some_and(|h| before.is_some_and(|b| !b.windows.iter().any(|w| w.handle == h)));
        // A tab the action opened (window.open, a target=_blank link) has nothing to go back to. Only
        // when the tab strip was listed before (a walk cut short on a busy machine lists none) and
        // another tab is left: closing the last tab would close the browser's window.
        let new_tab = before.is_some_and(|b| tabs(b) > 0 && tabs(&after) > tabs(b)) && tabs(&after) > 1;
        // The OS's keys: ctrl+w and alt+left on Linux, cmd+w and cmd+[ on a Mac.
        let (close, back) = (rules.keys.close_tab.to_string(), rules.keys.go_back.to_string());
        let (keys, how): (Vec<&str>, &str) = if new_window {
            (vec![&close], "closed the window it opened")
        } else if new_tab {
            (vec!["escape", &close], "closed the tab it opened")
        } else {
            (vec!["escape", &back], "stopped it and went back")
        };
        let undone = self.press_and_observe(&keys, &self.config.settle.clone(), outcome);
        let still = outcome.observation.as_deref().and_then(&front_address).is_some_and(|(_, now)| now == shown);
        let result = match undone {
            Ok(()) if !still => format!("handrail {how}"),
            Ok(()) => format!("handrail tried to undo it ({}) but the page is still shown", keys.join(", ")),
            Err(e) => format!("undoing it failed: {e}"),
        };
        outcome.status = Status::Refused;
        outcome.guard = GuardDecision::Refused { rule: Rule::Url };
        outcome.message = Some(format!(
            "the action took the browser to {}: {why}; {result}. The request reached that site before it could be \
             undone; do not follow links or forms that leave the allowed domains",
            quote_clipped(&url, 120)
        ));
        log::warn!("navigation outside the allowed domains after {}: {url} ({why}); {result}", outcome.summary);
    }

    /// Looks again until the front address bar shows the same address twice running (at most
    /// [`CONFIRM_LOOKS`] more looks), starting from `shown` in the outcome's observation. The last look
    /// becomes the outcome's observation; requests refused meanwhile join its `blocked`.
    fn confirm_address(&mut self, shown: &str, outcome: &mut Outcome) -> Result<(), String> {
        let mut last = shown.to_owned();
        // A page that keeps moving (a video) must not hold the result for several full ceilings.
        let settle = SettleRequest { ceiling: self.config.settle.ceiling.min(CONFIRM_CEILING), ..self.config.settle };
        for _ in 0..CONFIRM_LOOKS {
            self.press_and_observe(&[], &settle, outcome)?;
            let mut late = self.desktop.network.take_blocked();
            for b in &mut late {
                b.url = crate::guard::url::redact_credentials(&b.url);
            }
            self.remember_refused(&late);
            outcome.blocked.extend(late);
            let apps = &self.desktop.rules.apps;
            let now = outcome.observation.as_deref().and_then(|o| front_address(o, apps)).map(|(_, now)| now);
            if now.as_deref() == Some(last.as_str()) {
                return Ok(());
            }
            match now {
                Some(now) => last = now,
                None => return Ok(()),
            }
        }
        Ok(())
    }

    /// Presses `keys` in order (none: only waits), waits for the screen to settle and puts the new
    /// observation in `outcome`.
    fn press_and_observe(
        &mut self,
        keys: &[&str],
        settle: &SettleRequest,
        outcome: &mut Outcome,
    ) -> Result<(), String> {
        let combos: Vec<KeyCombo> =
            keys.iter().map(|k| parse_key_combo(k).map_err(|e| e.to_string())).collect::<Result<_, _>>()?;
        let d = &self.desktop;
        let mut watch = d.settle.watch().map_err(|e| e.to_string())?;
        for c in &combos {
            d.input.key(c).map_err(|e| e.to_string())?;
        }
        let settle = watch.wait(settle).map_err(|e| e.to_string())?;
        drop(watch);
        let marks = self.session.marks;
        let fresh = observe(d, &self.config, &mut self.session.tracker, None, marks).map_err(|e| e.to_string())?;
        outcome.timings.settle += settle.waited;
        let obs = self.publish(fresh.obs);
        outcome.latest = Some(obs.id);
        outcome.observation = Some(obs);
        Ok(())
    }
}

//! Which turn a call runs in: the one a host names (`handrail/turn`, `handrail/intent`,
//! `handrail/mode` in a request's `_meta`), or, for hosts that name none, the command line's, with new
//! ones inferred from a new session or new words from the user.

use handrail_core::turn::next_inferred_id;
use handrail_core::{Mode, Turn, TurnSource};
use serde_json::Value;

/// The turn a request names through its `_meta` (all optional).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TurnMeta {
    pub id: Option<String>,
    pub intent: Option<String>,
    pub mode: Option<Mode>,
}

/// `_meta` key: the host's id for the current user request; a new id starts a new turn.
pub const META_TURN: &str = "handrail/turn";
/// `_meta` key: the user's own words for this turn (never the model's).
pub const META_INTENT: &str = "handrail/intent";
/// `_meta` key: `interactive` (a person is watching) or `unattended`.
pub const META_MODE: &str = "handrail/mode";

/// Why a request's `_meta` cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MetaError {
    #[error("`_meta.{0}` must be a string")]
    NotAString(&'static str),
    #[error("`_meta.{META_MODE}` must be \"interactive\" or \"unattended\" (got {0:?})")]
    BadMode(String),
    #[error("`_meta.{0}` is too long ({1} characters; at most {2})")]
    TooLong(&'static str, usize, usize),
    #[error("`_meta.{META_TURN}` must not be empty or contain control characters")]
    BadTurnId,
    #[error("turn {0:?} began with a different {1}; a new {1} needs a new turn id")]
    Changed(String, &'static str),
}

fn meta_string(
    meta: &serde_json::Map<String, Value>,
    key: &'static str,
    max: usize,
) -> Result<Option<String>, MetaError> {
    match meta.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => {
            let n = s.chars().count();
            if n > max {
                return Err(MetaError::TooLong(key, n, max));
            }
            Ok(Some(s.clone()))
        }
        Some(_) => Err(MetaError::NotAString(key)),
    }
}

impl TurnMeta {
    /// Reads the handrail keys of a request's `_meta`; other keys are ignored.
    pub fn from_meta(meta: &serde_json::Map<String, Value>) -> Result<Self, MetaError> {
        let id = meta_string(meta, META_TURN, 200)?;
        if id.as_deref().is_some_and(|i| i.trim().is_empty() || i.chars().any(char::is_control)) {
            return Err(MetaError::BadTurnId);
        }
        let intent = meta_string(meta, META_INTENT, 10_000)?;
        let mode = match meta_string(meta, META_MODE, 40)?.as_deref() {
            None => None,
            Some("interactive") => Some(Mode::Interactive),
            Some("unattended") => Some(Mode::Unattended),
            Some(other) => return Err(MetaError::BadMode(other.chars().take(40).collect())),
        };
        Ok(Self { id, intent, mode })
    }
}

/// The turn used when a request names none: from the command line, for hosts that cannot send `_meta`.
#[derive(Debug, Clone)]
pub struct TurnDefaults {
    pub id: String,
    pub intent: String,
    pub mode: Mode,
    /// How turns that no request names follow each other (idle gap, budget window).
    pub source: TurnSource,
}

impl Default for TurnDefaults {
    fn default() -> Self {
        Self { id: "default".into(), intent: String::new(), mode: Mode::Interactive, source: TurnSource::inferred() }
    }
}

/// Decides whether a request continues the current turn or starts a new one.
///
/// A request naming a turn id (`handrail/turn`) gets a host turn: a new id starts it, budgets hold per
/// turn. A request naming none gets inferred turns (`TurnDefaults::source`): the engine starts the next
/// one after the idle gap; here, a new MCP session or a new intent or mode in `_meta` without a turn id
/// starts one at once.
#[derive(Debug)]
pub struct Turns {
    defaults: TurnDefaults,
    current: Turn,
    source: TurnSource,
    /// A client opened a new session since the last call.
    new_session: bool,
    /// A call ran in the current turn (a session opened before any call needs no new turn).
    used: bool,
    /// The newest inferred turn's id, so a reset's unnamed turn never repeats one.
    last_inferred: String,
}

impl Turns {
    pub fn new(defaults: TurnDefaults) -> Self {
        let current = Turn { id: defaults.id.clone(), intent: defaults.intent.clone(), mode: defaults.mode };
        let source = defaults.source;
        let last_inferred = defaults.id.clone();
        Self { defaults, current, source, new_session: false, used: false, last_inferred }
    }

    pub fn current(&self) -> &Turn {
        &self.current
    }

    /// Where the current turn's successors come from.
    pub fn source(&self) -> TurnSource {
        self.source
    }

    /// A client initialised a new session: the next call naming no turn starts a new inferred turn.
    pub fn session_started(&mut self) {
        self.new_session |= self.used;
    }

    /// A call ran in `turn`: the engine may have moved on by itself (an idle gap), so follow it.
    pub fn ran(&mut self, turn: &Turn, source: TurnSource) {
        self.follow(turn, source);
        self.used = true;
    }

    fn follow(&mut self, turn: &Turn, source: TurnSource) {
        if source != TurnSource::Host {
            self.last_inferred = turn.id.clone();
        }
        self.used &= *turn == self.current;
        self.current = turn.clone();
        self.source = source;
    }

    /// `Ok(Some((turn, source)))` when the request starts a new turn, `Ok(None)` when it continues this one.
    pub fn resolve(&mut self, meta: &TurnMeta) -> Result<Option<(Turn, TurnSource)>, MetaError> {
        let new_session = std::mem::take(&mut self.new_session);
        let Some(id) = meta.id.as_ref() else {
            return self.resolve_unnamed(meta, new_session);
        };
        if *id == self.current.id {
            self.check_same(meta)?;
            return Ok(None);
        }
        // A host that names turns supplies the intent itself; the command-line intent belongs to the
        // default turn only.
        let turn = Turn {
            id: id.clone(),
            intent: meta.intent.clone().unwrap_or_default(),
            mode: meta.mode.unwrap_or(self.defaults.mode),
        };
        self.follow(&turn, TurnSource::Host);
        Ok(Some((turn, TurnSource::Host)))
    }

    /// A request naming no turn.
    fn resolve_unnamed(&mut self, meta: &TurnMeta, new_session: bool) -> Result<Option<(Turn, TurnSource)>, MetaError> {
        if self.source == TurnSource::Host {
            // The current turn is a host's: intent or mode alone apply to it only if they agree with it.
            self.check_same(meta)?;
            return Ok(None);
        }
        let intent_changed = meta.intent.as_ref().is_some_and(|i| *i != self.current.intent);
        let mode_changed = meta.mode.is_some_and(|m| m != self.current.mode);
        if !(new_session || intent_changed || mode_changed) {
            return Ok(None);
        }
        let turn = Turn {
            id: next_inferred_id(&self.current.id),
            intent: meta.intent.clone().unwrap_or_else(|| self.current.intent.clone()),
            mode: meta.mode.unwrap_or(self.current.mode),
        };
        let source = self.defaults.source;
        self.follow(&turn, source);
        Ok(Some((turn, source)))
    }

    /// A reset starts the turn `meta` names, else the next inferred one (see
    /// [`crate::reset::reset_turn`]); nothing of the old turn carries over.
    pub fn reset(&mut self, meta: &TurnMeta) -> (Turn, TurnSource) {
        let (turn, source) = crate::reset::reset_turn(&self.last_inferred, &self.defaults, meta);
        self.follow(&turn, source);
        self.used = false;
        self.new_session = false;
        (turn, source)
    }

    fn check_same(&self, meta: &TurnMeta) -> Result<(), MetaError> {
        if meta.intent.as_ref().is_some_and(|i| *i != self.current.intent) {
            return Err(MetaError::Changed(self.current.id.clone(), "intent"));
        }
        if meta.mode.is_some_and(|m| m != self.current.mode) {
            return Err(MetaError::Changed(self.current.id.clone(), "mode"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn meta(v: Value) -> Result<TurnMeta, MetaError> {
        TurnMeta::from_meta(v.as_object().expect("object"))
    }

    #[test]
    fn reads_the_turn_keys() {
        let m = meta(
            json!({"handrail/turn": "t1", "handrail/intent": "delete the draft", "handrail/mode": "unattended", "other": 1}),
        );
        assert_eq!(
            m,
            Ok(TurnMeta {
                id: Some("t1".into()),
                intent: Some("delete the draft".into()),
                mode: Some(Mode::Unattended)
            })
        );
        assert_eq!(meta(json!({})), Ok(TurnMeta::default()));
        assert_eq!(meta(json!({"handrail/turn": 5})), Err(MetaError::NotAString(META_TURN)));
        assert_eq!(meta(json!({"handrail/mode": "robot"})), Err(MetaError::BadMode("robot".into())));
        assert_eq!(meta(json!({"handrail/turn": " "})), Err(MetaError::BadTurnId));
        assert!(matches!(meta(json!({"handrail/intent": "x".repeat(10_001)})), Err(MetaError::TooLong(..))));
    }

    #[test]
    fn a_new_turn_id_starts_a_turn_and_the_same_id_continues_it() {
        let mut turns =
            Turns::new(TurnDefaults { id: "cli".into(), intent: "tidy up".into(), ..TurnDefaults::default() });
        assert_eq!(turns.resolve(&TurnMeta::default()), Ok(None));
        assert_eq!(turns.current().intent, "tidy up");

        let t1 = TurnMeta { id: Some("t1".into()), intent: Some("delete the draft".into()), mode: None };
        let (started, source) = turns.resolve(&t1).expect("ok").expect("new turn");
        assert_eq!(source, TurnSource::Host);
        assert_eq!(
            (started.id.as_str(), started.intent.as_str(), started.mode),
            ("t1", "delete the draft", Mode::Interactive)
        );
        assert_eq!(turns.resolve(&TurnMeta { id: Some("t1".into()), ..TurnMeta::default() }), Ok(None));
        assert_eq!(turns.resolve(&t1), Ok(None));

        let changed = TurnMeta { id: Some("t1".into()), intent: Some("delete everything".into()), mode: None };
        assert_eq!(turns.resolve(&changed), Err(MetaError::Changed("t1".into(), "intent")));

        // A host-named turn without an intent has none: the command-line intent is not inherited.
        let (t2, _) =
            turns.resolve(&TurnMeta { id: Some("t2".into()), ..TurnMeta::default() }).expect("ok").expect("new");
        assert_eq!(t2.intent, "");
    }

    #[test]
    fn without_turn_ids_a_new_session_or_a_new_intent_starts_an_inferred_turn() {
        let mut turns = Turns::new(TurnDefaults { intent: "tidy up".into(), ..TurnDefaults::default() });
        assert_eq!(turns.resolve(&TurnMeta::default()), Ok(None));
        // The first session's turn is fresh: it needs no new one.
        turns.session_started();
        assert_eq!(turns.resolve(&TurnMeta::default()), Ok(None));
        let now = turns.current().clone();
        turns.ran(&now, TurnSource::inferred());
        turns.session_started();
        let (t, source) = turns.resolve(&TurnMeta::default()).expect("ok").expect("new turn");
        assert_eq!((t.id.as_str(), t.intent.as_str(), source), ("default#2", "tidy up", TurnSource::inferred()));
        assert_eq!(turns.resolve(&TurnMeta::default()), Ok(None));

        // The host's explicit signal: new words from the user, without a turn id.
        let words = TurnMeta { intent: Some("delete the draft".into()), ..TurnMeta::default() };
        let (t, _) = turns.resolve(&words).expect("ok").expect("new turn");
        assert_eq!((t.id.as_str(), t.intent.as_str()), ("default#3", "delete the draft"));
        assert_eq!(turns.resolve(&words), Ok(None));

        // Once a host names turns, unnamed requests that disagree with its turn are errors, as before.
        let named = TurnMeta { id: Some("h1".into()), intent: Some("save".into()), mode: None };
        assert!(turns.resolve(&named).expect("ok").is_some());
        assert_eq!(turns.resolve(&words), Err(MetaError::Changed("h1".into(), "intent")));
        turns.session_started();
        assert_eq!(turns.resolve(&TurnMeta::default()), Ok(None));
    }
}

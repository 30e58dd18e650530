//! Guards (SPEC §5): checks that run in code before any side effect, each refusal explaining itself.
//!
//! Each guard is a pure function of the action's arguments, the turn (mode, the user's intent) and the
//! latest observation, so it can be tested without a desktop and nothing on the screen can argue with it:
//! screen text is only ever matched against fixed lists, never interpreted.
//!
//! - [`effect`]: which element an action reaches and what it does there; every guard below judges
//!   those effects, not only the element an action aims at.
//! - [`destructive`]: destructive target labels (§5.4).
//! - `lexicon`: the words those guards match, one file per interface language.
//! - [`command`]: destructive command lines about to run in a terminal (shell or SQL prompt).
//! - [`terminal`]: which receivers are terminals, and the line a key or newline sent there would run.
//! - [`hotkey`]: dangerous key combinations (§5.5).
//! - [`password`]: typing into password fields (§5.6).
//! - [`url`]: `open_url` credentials, schemes and allowed domains (§5.8).
//! - [`navigation`]: addresses committed in a browser's address bar, judged by the same URL rules.
//! - [`rule`]: the closed set of rule codes a refusal names.

pub mod command;
pub mod destructive;
pub mod effect;
pub mod hotkey;
pub mod navigation;
pub mod password;
pub mod rule;
pub mod terminal;
pub mod url;

mod lexicon;
mod text;

pub use self::command::{
    check_command, destructive_commands, intent_backs_kind, CommandFinding, CommandKind, CommandVerdict, Severity,
};
pub use self::destructive::{
    check_destructive, destructive_marker, intent_backs, DestructiveMatch, DestructiveVerdict, RemovalKind,
};
pub use self::effect::{effects, Effect, InputEffects, Reach, Scene};
pub use self::hotkey::hotkey_refusal;
pub use self::password::{is_password_field, password_marker, PASSWORD_REFUSAL};
pub use self::rule::Rule;
pub use self::url::{vet_url, UrlPolicy, UrlRefusal, CREDENTIALS_REFUSAL, MAX_URL_LEN};

//! The `computer` tool's arguments: the raw shape an edge decodes, and the validated request the engine
//! runs. Validation is pure and total: any input yields a request or a specific [`ArgError`].

use std::fmt;

use handrail_platform::{KeyCombo, Rect, ScrollDirection};

use crate::ids::{ElementId, IdError, ObservationId};
use crate::keys::{parse_key_combo, KeyParseError};

/// Longest text `type` accepts in one call (characters).
pub const MAX_TYPE_CHARS: usize = 4000;
/// Longest visible-text target (characters).
pub const MAX_TARGET_TEXT_CHARS: usize = 200;
/// Longest URL (characters, as the URL guard counts them).
pub const MAX_URL_CHARS: usize = 2048;
/// Longest application name (characters).
pub const MAX_APP_CHARS: usize = 120;
/// Longest expectation value (characters).
pub const MAX_EXPECT_CHARS: usize = 200;
/// Most scroll notches in one call.
pub const MAX_SCROLL_AMOUNT: i64 = 50;
/// Longest id string looked at before refusing.
const MAX_ID_CHARS: usize = 32;

/// Arguments as an edge decoded them: right JSON types, nothing else checked yet.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RawArgs {
    pub action: Option<String>,
    pub observation_id: Option<String>,
    pub element_id: Option<String>,
    pub target_text: Option<String>,
    pub to_element_id: Option<String>,
    pub to_target_text: Option<String>,
    pub region: Option<Vec<i64>>,
    pub text: Option<String>,
    pub keys: Option<String>,
    pub direction: Option<String>,
    pub amount: Option<i64>,
    pub app: Option<String>,
    pub url: Option<String>,
    pub expect: Option<String>,
    /// Draw each listed element's box and id on this call's screenshot (set-of-marks).
    pub marks: Option<bool>,
}

impl RawArgs {
    /// Builds arguments from `name=value` pairs, as a command line or a test script writes them:
    /// `amount` is parsed as an integer and `region` as comma-separated integers. Unknown names and
    /// unparsable numbers are errors naming the pair.
    pub fn from_pairs(pairs: &[(&str, &str)]) -> Result<RawArgs, String> {
        let mut a = RawArgs::default();
        for (name, value) in pairs {
            let s = Some((*value).to_string());
            match *name {
                "action" => a.action = s,
                "observation_id" => a.observation_id = s,
                "element_id" => a.element_id = s,
                "target_text" => a.target_text = s,
                "to_element_id" => a.to_element_id = s,
                "to_target_text" => a.to_target_text = s,
                "text" => a.text = s,
                "keys" => a.keys = s,
                "direction" => a.direction = s,
                "app" => a.app = s,
                "url" => a.url = s,
                "expect" => a.expect = s,
                "amount" => {
                    a.amount = Some(value.trim().parse().map_err(|_| format!("amount={value} is not an integer"))?)
                }
                "region" => {
                    let numbers: Result<Vec<i64>, _> = value.split(',').map(|n| n.trim().parse::<i64>()).collect();
                    a.region = Some(numbers.map_err(|_| format!("region={value} is not x,y,width,height"))?);
                }
                "marks" => {
                    a.marks = Some(match value.trim() {
                        "true" | "yes" | "1" => true,
                        "false" | "no" | "0" => false,
                        _ => return Err(format!("marks={value} is not true or false")),
                    })
                }
                other => return Err(format!("unknown parameter {other:?}")),
            }
        }
        Ok(a)
    }
}

/// The action names of the contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ActionKind {
    See,
    Inspect,
    Click,
    DoubleClick,
    TripleClick,
    RightClick,
    Hover,
    Drag,
    Type,
    Key,
    Scroll,
    OpenApp,
    OpenUrl,
}

impl ActionKind {
    pub const ALL: [ActionKind; 13] = [
        ActionKind::See,
        ActionKind::Inspect,
        ActionKind::Click,
        ActionKind::DoubleClick,
        ActionKind::TripleClick,
        ActionKind::RightClick,
        ActionKind::Hover,
        ActionKind::Drag,
        ActionKind::Type,
        ActionKind::Key,
        ActionKind::Scroll,
        ActionKind::OpenApp,
        ActionKind::OpenUrl,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ActionKind::See => "see",
            ActionKind::Inspect => "inspect",
            ActionKind::Click => "click",
            ActionKind::DoubleClick => "double_click",
            ActionKind::TripleClick => "triple_click",
            ActionKind::RightClick => "right_click",
            ActionKind::Hover => "hover",
            ActionKind::Drag => "drag",
            ActionKind::Type => "type",
            ActionKind::Key => "key",
            ActionKind::Scroll => "scroll",
            ActionKind::OpenApp => "open_app",
            ActionKind::OpenUrl => "open_url",
        }
    }

    pub fn parse(name: &str) -> Option<ActionKind> {
        let name = name.trim();
        Self::ALL.into_iter().find(|a| a.as_str() == name)
    }

    /// Observation calls draw on the observation budget; everything else on the mutation ceiling.
    pub fn is_observation(self) -> bool {
        matches!(self, ActionKind::See | ActionKind::Inspect)
    }

    /// Parameters this action accepts besides `action`, `observation_id` and `expect`.
    fn params(self) -> &'static [Param] {
        use Param::*;
        match self {
            ActionKind::See => &[],
            ActionKind::Inspect => &[ElementIdP, TargetText, Region],
            ActionKind::Click
            | ActionKind::DoubleClick
            | ActionKind::TripleClick
            | ActionKind::RightClick
            | ActionKind::Hover => &[ElementIdP, TargetText],
            ActionKind::Drag => &[ElementIdP, TargetText, ToElementId, ToTargetText],
            ActionKind::Type => &[ElementIdP, TargetText, Text],
            ActionKind::Key => &[Keys],
            ActionKind::Scroll => &[ElementIdP, TargetText, Direction, Amount],
            ActionKind::OpenApp => &[App],
            ActionKind::OpenUrl => &[Url],
        }
    }
}

impl fmt::Display for ActionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Param {
    ElementIdP,
    TargetText,
    ToElementId,
    ToTargetText,
    Region,
    Text,
    Keys,
    Direction,
    Amount,
    App,
    Url,
}

impl Param {
    fn name(self) -> &'static str {
        match self {
            Param::ElementIdP => "element_id",
            Param::TargetText => "target_text",
            Param::ToElementId => "to_element_id",
            Param::ToTargetText => "to_target_text",
            Param::Region => "region",
            Param::Text => "text",
            Param::Keys => "keys",
            Param::Direction => "direction",
            Param::Amount => "amount",
            Param::App => "app",
            Param::Url => "url",
        }
    }
}

/// What an action is aimed at.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Target {
    Element(ElementId),
    /// Visible text to match against the latest observation.
    Text(String),
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Element(id) => write!(f, "{id}"),
            Target::Text(t) => write!(f, "{}", crate::render::quote(t)),
        }
    }
}

/// The pointer actions that aim at one target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PointerKind {
    Click,
    DoubleClick,
    TripleClick,
    RightClick,
    Hover,
}

/// What `inspect` looks at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InspectSubject {
    Target(Target),
    /// Screenshot coordinates of the latest observation.
    Region(Rect),
}

/// One validated call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    See,
    Inspect(InspectSubject),
    Pointer {
        kind: PointerKind,
        target: Target,
    },
    Drag {
        from: Target,
        to: Target,
    },
    Type {
        target: Option<Target>,
        text: String,
    },
    Key {
        combo: KeyCombo,
    },
    Scroll {
        target: Option<Target>,
        direction: ScrollDirection,
        amount: u32,
    },
    OpenApp {
        app: String,
    },
    /// Syntactically a string only: the URL guard decides whether it may be opened.
    OpenUrl {
        url: String,
    },
}

/// What `expect` checks after an action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExpectKind {
    Focus,
    App,
    Window,
    Text,
}

impl ExpectKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ExpectKind::Focus => "focus",
            ExpectKind::App => "app",
            ExpectKind::Window => "window",
            ExpectKind::Text => "text",
        }
    }
}

/// `expect=<kind>:<value>`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Expect {
    pub kind: ExpectKind,
    pub value: String,
}

impl fmt::Display for Expect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.kind.as_str(), self.value)
    }
}

impl Expect {
    pub fn parse(input: &str) -> Result<Expect, ArgError> {
        let (kind, value) = input.split_once(':').ok_or_else(|| {
            ArgError::BadExpect(format!(
                "`expect` must look like kind:value with kind one of focus, app, window, text (got {})",
                crate::render::quote(&clip(input, 40))
            ))
        })?;
        let kind = match kind.trim().to_lowercase().as_str() {
            "focus" => ExpectKind::Focus,
            "app" => ExpectKind::App,
            "window" => ExpectKind::Window,
            "text" => ExpectKind::Text,
            other => {
                return Err(ArgError::BadExpect(format!(
                    "unknown expect kind {}; use focus:, app:, window: or text:",
                    crate::render::quote(&clip(other, 20))
                )))
            }
        };
        let value = value.trim();
        if value.is_empty() {
            return Err(ArgError::BadExpect(format!("`expect` {}: needs a value after the colon", kind.as_str())));
        }
        check_len("expect", value, MAX_EXPECT_CHARS)?;
        check_no_control("expect", value, false)?;
        Ok(Expect { kind, value: value.to_string() })
    }
}

/// A validated call of the `computer` tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub action: ActionKind,
    pub command: Command,
    /// The observation the element ids come from; must be the latest.
    pub observation: Option<ObservationId>,
    pub expect: Option<Expect>,
    /// Set-of-marks for this call's screenshot; `None` follows the configuration.
    pub marks: Option<bool>,
}

/// Why arguments were refused. Each message names the parameter and says what would be accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArgError {
    #[error("missing `action`; use one of: {}", action_names())]
    MissingAction,
    #[error("unknown action {0}; use one of: {names}", names = action_names())]
    UnknownAction(String),
    #[error("`{param}` is required for {action}")]
    Missing { param: &'static str, action: ActionKind },
    #[error("{action} needs a target: give `element_id` (with `observation_id`) or `target_text`")]
    MissingTarget { action: ActionKind },
    #[error("`{param}` is not used by {action}; it accepts {accepted}")]
    NotUsed { param: &'static str, action: ActionKind, accepted: String },
    #[error("give either `{a}` or `{b}`, not both")]
    Conflict { a: &'static str, b: &'static str },
    #[error("`{0}` must not be empty")]
    Empty(&'static str),
    #[error("`{param}` is too long ({len} characters; at most {max})")]
    TooLong { param: &'static str, len: usize, max: usize },
    #[error("`{0}` contains control characters")]
    ControlCharacters(&'static str),
    #[error("`{param}`: {source}")]
    BadId {
        param: &'static str,
        #[source]
        source: IdError,
    },
    #[error("`element_id` needs the `observation_id` it was listed in (the latest observation)")]
    ElementNeedsObservation,
    #[error("raw coordinates are disabled: target elements by `element_id` + `observation_id` (or `target_text`); `region` is only for inspect")]
    RawCoordinates,
    #[error("`region` {0}")]
    BadRegion(String),
    #[error("`direction` must be up, down, left or right (got {0})")]
    BadDirection(String),
    #[error("`amount` must be between 1 and {MAX_SCROLL_AMOUNT} notches (got {0})")]
    BadAmount(i64),
    #[error("`keys`: {0}")]
    BadKeys(#[from] KeyParseError),
    #[error("{0}")]
    BadExpect(String),
}

fn action_names() -> String {
    ActionKind::ALL.iter().map(|a| a.as_str()).collect::<Vec<_>>().join(", ")
}

fn clip(s: &str, max: usize) -> String {
    let mut out: String = s.chars().take(max).collect();
    if s.chars().count() > max {
        out.push('…');
    }
    out
}

fn check_len(param: &'static str, s: &str, max: usize) -> Result<(), ArgError> {
    let len = s.chars().count();
    if len > max {
        return Err(ArgError::TooLong { param, len, max });
    }
    Ok(())
}

/// Control characters (and the bidi overrides that can disguise text) are refused; typed text may hold
/// newlines and tabs, which become Return and Tab.
fn check_no_control(param: &'static str, s: &str, allow_newline_tab: bool) -> Result<(), ArgError> {
    let bad = s.chars().any(|c| {
        if allow_newline_tab && (c == '\n' || c == '\t') {
            return false;
        }
        c.is_control() || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
    });
    if bad {
        return Err(ArgError::ControlCharacters(param));
    }
    Ok(())
}

fn nonempty_text(param: &'static str, value: &str, max: usize) -> Result<String, ArgError> {
    check_len(param, value, max)?;
    check_no_control(param, value, false)?;
    let trimmed = value.trim();
    if trimmed.is_empty() {
        return Err(ArgError::Empty(param));
    }
    Ok(trimmed.to_string())
}

fn parse_element(param: &'static str, value: &str) -> Result<ElementId, ArgError> {
    if value.chars().count() > MAX_ID_CHARS {
        return Err(ArgError::TooLong { param, len: value.chars().count(), max: MAX_ID_CHARS });
    }
    ElementId::parse(value).map_err(|source| ArgError::BadId { param, source })
}

fn target_from(
    id_param: &'static str,
    id: Option<&String>,
    text_param: &'static str,
    text: Option<&String>,
) -> Result<Option<Target>, ArgError> {
    match (id, text) {
        (Some(_), Some(_)) => Err(ArgError::Conflict { a: id_param, b: text_param }),
        (Some(id), None) => Ok(Some(Target::Element(parse_element(id_param, id)?))),
        (None, Some(text)) => Ok(Some(Target::Text(nonempty_text(text_param, text, MAX_TARGET_TEXT_CHARS)?))),
        (None, None) => Ok(None),
    }
}

impl Request {
    /// Validates raw arguments. Checks, in order: the action, parameters the action does not use, then
    /// each parameter's own form.
    pub fn from_args(args: &RawArgs) -> Result<Request, ArgError> {
        let name = args.action.as_deref().ok_or(ArgError::MissingAction)?;
        let action =
            ActionKind::parse(name).ok_or_else(|| ArgError::UnknownAction(crate::render::quote(&clip(name, 40))))?;
        Self::reject_unused(action, args)?;

        let observation = match &args.observation_id {
            Some(s) if s.chars().count() > MAX_ID_CHARS => {
                return Err(ArgError::TooLong { param: "observation_id", len: s.chars().count(), max: MAX_ID_CHARS })
            }
            Some(s) => {
                Some(ObservationId::parse(s).map_err(|source| ArgError::BadId { param: "observation_id", source })?)
            }
            None => None,
        };
        let expect = args.expect.as_deref().map(Expect::parse).transpose()?;
        let target = target_from("element_id", args.element_id.as_ref(), "target_text", args.target_text.as_ref())?;
        if matches!(target, Some(Target::Element(_))) && observation.is_none() {
            return Err(ArgError::ElementNeedsObservation);
        }
        let need_target = |t: Option<Target>| t.ok_or(ArgError::MissingTarget { action });

        let command = match action {
            ActionKind::See => Command::See,
            ActionKind::Inspect => match (target, &args.region) {
                (Some(_), Some(_)) => return Err(ArgError::Conflict { a: "element_id/target_text", b: "region" }),
                (Some(t), None) => Command::Inspect(InspectSubject::Target(t)),
                (None, Some(region)) => Command::Inspect(InspectSubject::Region(parse_region(region)?)),
                (None, None) => return Err(ArgError::Missing { param: "element_id, target_text or region", action }),
            },
            ActionKind::Click
            | ActionKind::DoubleClick
            | ActionKind::TripleClick
            | ActionKind::RightClick
            | ActionKind::Hover => {
                let kind = match action {
                    ActionKind::Click => PointerKind::Click,
                    ActionKind::DoubleClick => PointerKind::DoubleClick,
                    ActionKind::TripleClick => PointerKind::TripleClick,
                    ActionKind::RightClick => PointerKind::RightClick,
                    _ => PointerKind::Hover,
                };
                Command::Pointer { kind, target: need_target(target)? }
            }
            ActionKind::Drag => {
                let from = need_target(target)?;
                let to = target_from(
                    "to_element_id",
                    args.to_element_id.as_ref(),
                    "to_target_text",
                    args.to_target_text.as_ref(),
                )?
                .ok_or(ArgError::Missing { param: "to_element_id or to_target_text", action })?;
                if matches!(to, Target::Element(_)) && observation.is_none() {
                    return Err(ArgError::ElementNeedsObservation);
                }
                Command::Drag { from, to }
            }
            ActionKind::Type => {
                let text = args.text.as_deref().ok_or(ArgError::Missing { param: "text", action })?;
                check_len("text", text, MAX_TYPE_CHARS)?;
                check_no_control("text", text, true)?;
                if text.is_empty() {
                    return Err(ArgError::Empty("text"));
                }
                Command::Type { target, text: text.to_string() }
            }
            ActionKind::Key => {
                let keys = args.keys.as_deref().ok_or(ArgError::Missing { param: "keys", action })?;
                Command::Key { combo: parse_key_combo(keys)? }
            }
            ActionKind::Scroll => {
                let direction = args.direction.as_deref().ok_or(ArgError::Missing { param: "direction", action })?;
                let direction = match direction.trim().to_lowercase().as_str() {
                    "up" => ScrollDirection::Up,
                    "down" => ScrollDirection::Down,
                    "left" => ScrollDirection::Left,
                    "right" => ScrollDirection::Right,
                    _ => return Err(ArgError::BadDirection(crate::render::quote(&clip(direction, 20)))),
                };
                let amount = args.amount.unwrap_or(3);
                if !(1..=MAX_SCROLL_AMOUNT).contains(&amount) {
                    return Err(ArgError::BadAmount(amount));
                }
                Command::Scroll { target, direction, amount: amount as u32 }
            }
            ActionKind::OpenApp => {
                let app = args.app.as_deref().ok_or(ArgError::Missing { param: "app", action })?;
                Command::OpenApp { app: nonempty_text("app", app, MAX_APP_CHARS)? }
            }
            ActionKind::OpenUrl => {
                let url = args.url.as_deref().ok_or(ArgError::Missing { param: "url", action })?;
                check_len("url", url, MAX_URL_CHARS)?;
                check_no_control("url", url, false)?;
                if url.trim().is_empty() {
                    return Err(ArgError::Empty("url"));
                }
                Command::OpenUrl { url: url.trim().to_string() }
            }
        };
        Ok(Request { action, command, observation, expect, marks: args.marks })
    }

    fn reject_unused(action: ActionKind, args: &RawArgs) -> Result<(), ArgError> {
        let given = [
            (Param::ElementIdP, args.element_id.is_some()),
            (Param::TargetText, args.target_text.is_some()),
            (Param::ToElementId, args.to_element_id.is_some()),
            (Param::ToTargetText, args.to_target_text.is_some()),
            (Param::Region, args.region.is_some()),
            (Param::Text, args.text.is_some()),
            (Param::Keys, args.keys.is_some()),
            (Param::Direction, args.direction.is_some()),
            (Param::Amount, args.amount.is_some()),
            (Param::App, args.app.is_some()),
            (Param::Url, args.url.is_some()),
        ];
        let accepted = action.params();
        for (param, present) in given {
            if present && !accepted.contains(&param) {
                if param == Param::Region {
                    return Err(ArgError::RawCoordinates);
                }
                let mut names: Vec<&str> = accepted.iter().map(|p| p.name()).collect();
                names.extend(["observation_id", "expect"]);
                return Err(ArgError::NotUsed { param: param.name(), action, accepted: names.join(", ") });
            }
        }
        Ok(())
    }

    /// The target this request aims at first (the drag source for drags), if any.
    pub fn target(&self) -> Option<&Target> {
        match &self.command {
            Command::Pointer { target, .. } => Some(target),
            Command::Drag { from, .. } => Some(from),
            Command::Type { target, .. } | Command::Scroll { target, .. } => target.as_ref(),
            Command::Inspect(InspectSubject::Target(t)) => Some(t),
            _ => None,
        }
    }
}

fn parse_region(region: &[i64]) -> Result<Rect, ArgError> {
    let [x, y, w, h] = region else {
        return Err(ArgError::BadRegion(format!("must be [x, y, width, height] (got {} numbers)", region.len())));
    };
    let limit = 1 << 20;
    if [*x, *y].iter().any(|v| *v < 0 || *v > limit) {
        return Err(ArgError::BadRegion("x and y must be within the screenshot".into()));
    }
    if *w <= 0 || *h <= 0 || *w > limit || *h > limit {
        return Err(ArgError::BadRegion("width and height must be positive".into()));
    }
    Ok(Rect::new(*x as i32, *y as i32, *w as u32, *h as u32))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(action: &str) -> RawArgs {
        RawArgs { action: Some(action.into()), ..RawArgs::default() }
    }

    #[test]
    fn click_by_element_needs_observation() {
        let mut a = args("click");
        a.element_id = Some("e3".into());
        assert_eq!(Request::from_args(&a), Err(ArgError::ElementNeedsObservation));
        a.observation_id = Some("obs_2".into());
        let r = Request::from_args(&a).expect("valid");
        assert_eq!(r.observation, Some(ObservationId(2)));
        assert_eq!(r.command, Command::Pointer { kind: PointerKind::Click, target: Target::Element(ElementId(3)) });
    }

    #[test]
    fn specific_errors() {
        assert_eq!(Request::from_args(&RawArgs::default()), Err(ArgError::MissingAction));
        assert!(matches!(Request::from_args(&args("tap")), Err(ArgError::UnknownAction(_))));
        assert_eq!(Request::from_args(&args("click")), Err(ArgError::MissingTarget { action: ActionKind::Click }));
        let mut a = args("click");
        a.region = Some(vec![1, 2, 3, 4]);
        assert_eq!(Request::from_args(&a), Err(ArgError::RawCoordinates));
        let mut a = args("see");
        a.url = Some("https://example.com".into());
        assert!(matches!(Request::from_args(&a), Err(ArgError::NotUsed { param: "url", .. })));
        let mut a = args("type");
        a.text = Some(String::new());
        assert_eq!(Request::from_args(&a), Err(ArgError::Empty("text")));
        a.text = Some("a\u{7}b".into());
        assert_eq!(Request::from_args(&a), Err(ArgError::ControlCharacters("text")));
        a.text = Some("x".repeat(MAX_TYPE_CHARS + 1));
        assert!(matches!(Request::from_args(&a), Err(ArgError::TooLong { param: "text", .. })));
        a.text = Some("line one\nline two\t!".into());
        assert!(Request::from_args(&a).is_ok());
        let mut a = args("scroll");
        a.direction = Some("sideways".into());
        assert!(matches!(Request::from_args(&a), Err(ArgError::BadDirection(_))));
        a.direction = Some("down".into());
        a.amount = Some(0);
        assert_eq!(Request::from_args(&a), Err(ArgError::BadAmount(0)));
        let mut a = args("see");
        a.expect = Some("colour:red".into());
        assert!(matches!(Request::from_args(&a), Err(ArgError::BadExpect(_))));
        a.expect = Some("text:".into());
        assert!(matches!(Request::from_args(&a), Err(ArgError::BadExpect(_))));
    }

    /// The URL limit was checked in bytes and reported in characters: 1,100 two-byte characters were
    /// refused as "too long (1120 characters; at most 2048)".
    #[test]
    fn url_length_is_counted_as_it_is_reported() {
        let mut a = args("open_url");
        a.url = Some(format!("https://example.com/{}", "é".repeat(1100)));
        assert!(Request::from_args(&a).is_ok());
        a.url = Some(format!("https://example.com/{}", "é".repeat(MAX_URL_CHARS)));
        match Request::from_args(&a) {
            Err(ArgError::TooLong { param: "url", len, max }) => assert!(len > max, "{len} > {max}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn inspect_region_is_checked() {
        let mut a = args("inspect");
        a.region = Some(vec![0, 0, 10]);
        assert!(matches!(Request::from_args(&a), Err(ArgError::BadRegion(_))));
        a.region = Some(vec![0, 0, 0, 10]);
        assert!(matches!(Request::from_args(&a), Err(ArgError::BadRegion(_))));
        a.region = Some(vec![5, 6, 7, 8]);
        assert_eq!(
            Request::from_args(&a).map(|r| r.command),
            Ok(Command::Inspect(InspectSubject::Region(Rect::new(5, 6, 7, 8))))
        );
    }

    #[test]
    fn pairs_build_arguments() {
        let a = RawArgs::from_pairs(&[("action", "scroll"), ("amount", "4"), ("direction", "up")]).expect("valid");
        assert_eq!((a.amount, a.direction.as_deref()), (Some(4), Some("up")));
        let a = RawArgs::from_pairs(&[("region", "1, 2,3,4")]).expect("valid");
        assert_eq!(a.region, Some(vec![1, 2, 3, 4]));
        assert!(RawArgs::from_pairs(&[("colour", "red")]).is_err());
        assert!(RawArgs::from_pairs(&[("amount", "many")]).is_err());
    }

    #[test]
    fn both_id_and_text_conflict() {
        let mut a = args("click");
        a.element_id = Some("e1".into());
        a.target_text = Some("Save".into());
        a.observation_id = Some("obs_1".into());
        assert!(matches!(Request::from_args(&a), Err(ArgError::Conflict { .. })));
    }
}

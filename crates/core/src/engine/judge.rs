//! Running SPEC §5's guards 4–8 for one action: the destructive, hotkey, password and URL rules, each
//! judging the effect the action has on the elements it reaches ([`crate::guard::effect`]).
//!
//! Judged twice for keyboard input: first against the latest observation, before anything touches the
//! desktop; then against the pre-action look taken just before acting, because keys act on whatever has
//! focus at that moment (a dialog that popped up since the observation has it now). The second pass
//! judges only elements the first did not, so a person is never asked twice about one element.

use handrail_platform::{AxHealth, FileState, OcrHealth, ShellFiles};

use super::recheck::Probe;
use super::stop::Stop;
use super::summary::summarize;
use super::{quote_clipped, Aim, Engine};
use crate::guard::command::{check_findings, destructive_commands, moves_shell, CommandKind, CommandVerdict};
use crate::guard::destructive::{check_destructive, check_selection_delete, DestructiveVerdict, DELETE_KEY};
use crate::guard::effect::{effects, Effect, Reach, Scene, TerminalReach};
use crate::guard::hotkey::hotkey_refusal;
use crate::guard::navigation::address_refusal;
use crate::guard::password::PASSWORD_REFUSAL;
use crate::guard::terminal::{asks_for_secret, replay, shown_line, urls_in_line, PendingLine, Stroke, TerminalId};
use crate::guard::url::{redact_urls_in, vet_url, UrlRefusal};
use crate::ids::ElementId;
use crate::observation::Element;
use crate::outcome::GuardDecision;
use crate::request::{Command, Request, Target};
use crate::turn::Mode;

/// What the guards decided for an action, and which reached elements they judged.
#[derive(Debug, Clone)]
pub(super) struct Judged {
    pub decision: GuardDecision,
    judged: Vec<(ElementId, Effect)>,
    /// Keyboard input the latest observation could not place (unattended): the pre-action look may
    /// still find its receiver; if it cannot, this is the refusal.
    unplaced: Option<String>,
    /// Input to a terminal was judged; the terminal's line as it will be once the input is sent.
    pub terminal: Option<(TerminalId, PendingLine)>,
}

impl Default for Judged {
    fn default() -> Self {
        Self { decision: GuardDecision::Passed, judged: Vec::new(), unplaced: None, terminal: None }
    }
}

impl Judged {
    /// For judging elements as new ones: the decision and the terminal's line so far, nothing
    /// recorded as judged.
    pub(super) fn afresh(&self) -> Judged {
        Judged { judged: Vec::new(), ..self.clone() }
    }

    /// This decision, with `first`'s record of which elements were judged.
    pub(super) fn keeping_record_of(self, first: Judged) -> Judged {
        Judged { judged: first.judged, ..self }
    }

    fn already(&self, e: &Element, effect: Effect) -> bool {
        e.id != ElementId::UNASSIGNED && self.judged.contains(&(e.id, effect))
    }
}

impl Engine {
    /// The guards against the latest observation, before any desktop call.
    pub(super) fn guards(&mut self, request: &Request, aims: &[Aim]) -> Result<Judged, Stop> {
        let latest = self.session.latest.clone();
        let last_clicked = self.session.last_clicked.clone();
        let reachable = latest.as_ref().map(|o| {
            keyboard_reachable(&o.elements, o.focus, &o.covered, o.covered_focus, &o.windows, is_keyboard(request))
        });
        // A copy: the guards below borrow the engine mutably (to ask the person).
        let keys = self.desktop.keys.clone();
        let scene = match (&latest, &reachable) {
            (Some(o), Some((elements, focus))) => Scene {
                elements,
                focus: *focus,
                ax: o.ax,
                last_clicked: last_clicked.as_ref(),
                front: o.front.as_ref(),
                ocr: o.ocr,
                keys: &keys,
            },
            _ => Scene {
                elements: &[],
                focus: None,
                ax: AxHealth::Unavailable,
                last_clicked: last_clicked.as_ref(),
                front: None,
                ocr: OcrHealth::Off,
                keys: &keys,
            },
        };
        let keyboard = is_keyboard(request);
        self.judge(request, aims, &scene, Judged::default(), keyboard)
    }

    /// Keyboard input again, against the screen just before acting: the elements focus and key bindings
    /// reach now that the first pass did not judge.
    pub(super) fn guards_on_probe(
        &mut self,
        request: &Request,
        aims: &[Aim],
        probe: &Probe,
        first: Judged,
    ) -> Result<Judged, Stop> {
        if !is_keyboard(request) {
            return Ok(first);
        }
        if !matches!(probe.ax, AxHealth::Ok | AxHealth::Partial) {
            return match first.unplaced {
                Some(message) => Err(Stop::refused("unknown_receiver", message)),
                None => Ok(first),
            };
        }
        let last_clicked = self.session.last_clicked.clone();
        let (elements, focus) =
            keyboard_reachable(&probe.elements, probe.focus, &probe.covered, probe.covered_focus, &probe.windows, true);
        let keys = self.desktop.keys.clone();
        let scene = Scene {
            elements: &elements,
            focus,
            ax: probe.ax,
            last_clicked: last_clicked.as_ref(),
            front: probe.front.as_ref(),
            // The pre-action look reads no text.
            ocr: OcrHealth::Off,
            keys: &keys,
        };
        self.judge(request, aims, &scene, Judged { unplaced: None, ..first }, false)
    }

    /// Acts on the destructive guard's verdict for one reached element: records an allowance, asks the
    /// person when one is watching and a host can ask, or refuses. `via` says how a non-target is reached.
    fn decide_destructive(
        &mut self,
        verdict: DestructiveVerdict,
        reach: &Reach<'_>,
        via: &str,
        judged: &mut Judged,
    ) -> Result<(), Stop> {
        let refuse = |message: String| Err(Stop::refused("destructive_target", message));
        match verdict {
            DestructiveVerdict::Allowed => Ok(()),
            DestructiveVerdict::AllowedByIntent { marker } => {
                judged.decision = GuardDecision::AllowedByIntent { marker: marker.to_string() };
                Ok(())
            }
            DestructiveVerdict::Refused { marker, label, reason, can_ask } => {
                let turn = &self.session.turn;
                let interactive = turn.mode == Mode::Interactive;
                // With no intent at all, say how the user's words can reach the turn.
                let how_intent = if turn.intent.trim().is_empty() && interactive {
                    format!("; no user request was given for this turn: {}", self.config.knobs.intent)
                } else {
                    String::new()
                };
                let asked = if can_ask && interactive {
                    let question = if marker == DELETE_KEY {
                        format!(
                            "The agent wants to {}, which would delete {label}; your request did not ask for that. Allow it?",
                            how(reach)
                        )
                    } else {
                        format!(
                            "The agent wants to act on {} ({}), which looks like a removal your request did not ask for. Allow it?",
                            quote_clipped(&label, 60),
                            how(reach),
                        )
                    };
                    self.confirm.as_mut().and_then(|c| c.confirm(&question))
                } else {
                    None
                };
                match asked {
                    Some(true) => {
                        judged.decision = GuardDecision::AllowedByPerson { marker: marker.to_string() };
                        Ok(())
                    }
                    Some(false) => refuse(format!("{reason}{via} (the person declined)")),
                    None => refuse(format!("{reason}{via}{how_intent}")),
                }
            }
        }
    }

    /// `defer_unplaced`: a receiver this scene cannot tell is left for the pre-action look to find.
    pub(super) fn judge(
        &mut self,
        request: &Request,
        aims: &[Aim],
        scene: &Scene<'_>,
        prior: Judged,
        defer_unplaced: bool,
    ) -> Result<Judged, Stop> {
        let summary = summarize(request);
        let refuse = |rule: &'static str, message: String| Stop::refused(rule, message);
        let targets: Vec<&Element> = aims.iter().map(|a| &a.element).collect();
        let found = effects(&request.command, &targets, scene);
        let mut judged = prior;
        let mode = self.session.turn.mode;

        // Destructive: everything the action activates, however it gets there.
        for reach in found.reaches.iter().filter(|r| r.effect == Effect::Activates) {
            if judged.already(reach.element, Effect::Activates) {
                continue;
            }
            let mut labels = vec![reach.element.label.clone()];
            if reach.is_target {
                labels.extend(text_targets(&request.command));
            }
            let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
            let turn = &self.session.turn;
            let via =
                if reach.is_target { String::new() } else { format!(" (this action reaches it: {})", how(reach)) };
            let verdict = check_destructive(&labels, turn.mode, &turn.intent);
            self.decide_destructive(verdict, reach, &via, &mut judged)?;
            judged.judged.push((reach.element.id, Effect::Activates));
        }

        // The Delete key on a selection: a removal, whatever the selected things are called.
        for reach in found.reaches.iter().filter(|r| r.effect == Effect::DeletesSelection) {
            if judged.already(reach.element, Effect::DeletesSelection) {
                continue;
            }
            let turn = &self.session.turn;
            let verdict = check_selection_delete(&reach.selection, &reach.element.label, turn.mode, &turn.intent);
            self.decide_destructive(verdict, reach, "", &mut judged)?;
            judged.judged.push((reach.element.id, Effect::DeletesSelection));
        }

        // Dangerous hotkeys, always.
        if let Command::Key { combo } = &request.command {
            if let Some(message) = hotkey_refusal(combo, &self.desktop.keys) {
                return Err(refuse("dangerous_hotkey", message));
            }
        }

        if found.crosses_focus {
            return Err(refuse(
                "focus_moves_while_typing",
                "refusing to type text with a Tab inside it: the Tab moves focus, and what follows it would land in \
                 an element that cannot be checked beforehand; type up to the Tab, press the key tab, then type the rest"
                    .into(),
            ));
        }

        // Password fields: anything that puts characters into one.
        if let Some(reach) = found.reaches.iter().find(|r| r.effect == Effect::EntersText) {
            let via = if reach.is_target { String::new() } else { format!(" ({})", how(reach)) };
            return Err(refuse("password_field", format!("{PASSWORD_REFUSAL}{via}")));
        }

        // Lines a terminal's shell would run.
        if let (Some(term), None) = (&found.terminal, &judged.terminal) {
            judged.terminal = Some(self.judge_terminal(request, term, scene, &mut judged.decision)?);
        }

        // Keyboard input nobody can place: a person watching sees where it goes; nobody watching, it waits.
        if let (Some(why), Mode::Unattended) = (&found.unknown_receiver, mode) {
            let message = format!(
                "refusing {summary}: it acts on whatever has focus, and {why}; with nobody watching, keyboard input \
                 must reach a known element: give the target (type with element_id) or click it first"
            );
            if !defer_unplaced {
                return Err(refuse("unknown_receiver", message));
            }
            judged.unplaced = Some(message);
        }

        // Addresses committed in a browser's address bar: the same URL rules as open_url.
        for reach in found.reaches.iter().filter(|r| r.effect == Effect::Commits) {
            if let Some(why) = reach.lines.iter().find_map(|l| address_refusal(l, &self.config.url_policy)) {
                return Err(refuse(
                    "url",
                    format!("refusing to open the address in the browser's address bar ({}): {why}", how(reach)),
                ));
            }
        }

        if let Command::OpenUrl { url } = &request.command {
            if let Err(why) = vet_url(url, &self.config.url_policy) {
                return Err(refuse("url", why.to_string()));
            }
        }
        Ok(judged)
    }
}

/// What keyboard input can reach: the visible elements, and for keyboard input also the covered ones
/// it reaches all the same (the focused element, and the active window's, whose key bindings fire
/// whether or not another window is drawn over them). Covered elements are appended, so indices into
/// the visible ones stay valid; `focus` points at the focused element wherever it is.
fn keyboard_reachable(
    visible: &[Element],
    focus: Option<usize>,
    covered: &[Element],
    covered_focus: Option<usize>,
    windows: &[crate::visibility::ScreenWindow],
    keyboard: bool,
) -> (Vec<Element>, Option<usize>) {
    let mut all = visible.to_vec();
    if !keyboard {
        return (all, focus);
    }
    let active = windows.iter().rev().find(|w| w.active).map(|w| w.handle);
    let mut focus = focus;
    for (i, e) in covered.iter().enumerate() {
        let focused = covered_focus == Some(i);
        if focused || (active.is_some() && e.owner == active) {
            if focused && focus.is_none() {
                focus = Some(all.len());
            }
            all.push(e.clone());
        }
    }
    (all, focus)
}

impl Engine {
    /// Replays the input through the terminal's pending line and judges every line it commits, before
    /// anything is sent: the command guard's tiers, a paste nobody can read, a line nobody can read.
    fn judge_terminal(
        &mut self,
        request: &Request,
        term: &TerminalReach<'_>,
        scene: &Scene<'_>,
        decision: &mut GuardDecision,
    ) -> Result<(TerminalId, PendingLine), Stop> {
        let refuse = |rule: &'static str, message: String| Stop::refused(rule, message);
        let id = TerminalId::new(scene.front, term.element);
        let mut line = match &self.session.terminal {
            Some((known, line)) if *known == id => line.clone(),
            _ => PendingLine::unknown(),
        };
        let area = if term.element.is_some() { None } else { scene.front.map(|f| f.bounds) };
        // OCR that read the terminal (no accessible text of its own) and found no text there saw a bare
        // prompt: its line is empty.
        let read_by_ocr = term.element.is_none_or(|e| e.value.is_none());
        let shown = shown_line(term.element, scene.elements, area)
            .or_else(|| (read_by_ocr && scene.ocr == OcrHealth::Ok).then(String::new));
        if shown.as_deref().is_some_and(asks_for_secret) {
            return Err(refuse(
                "password_field",
                format!(
                    "{PASSWORD_REFUSAL} (the terminal is asking for a password: {})",
                    quote_clipped(shown.as_deref().unwrap_or_default(), 60)
                ),
            ));
        }
        let strokes: Vec<Stroke<'_>> = match &request.command {
            Command::Type { text, .. } => text.chars().map(Stroke::Char).collect(),
            Command::Key { combo } if self.desktop.keys.is_paste(combo) => {
                return Err(refuse(
                    "terminal_command",
                    format!(
                        "refusing {combo} in the terminal ({}): a paste there runs whatever the clipboard holds, which cannot be judged beforehand; type the command instead",
                        term.how
                    ),
                ));
            }
            Command::Key { combo } => vec![Stroke::Key(combo)],
            _ => Vec::new(),
        };
        let mode = self.session.turn.mode;
        // Whose shell resolves the paths a command writes over: the process of the terminal's window.
        let terminal_pid = scene.front.and_then(|f| f.pid);
        // What the person allowed is asked once, however many readings name it.
        let mut approved: Vec<(&'static str, String)> = Vec::new();
        // A line this input runs first moved the shell (`cd`): later lines' relative paths are not
        // where the shell stands now.
        let mut moved = false;
        for commit in replay(&mut line, &strokes, shown.as_deref()) {
            let moved_earlier = moved;
            moved |= commit.unreadable || commit.readings.iter().any(|r| moves_shell(r));
            if commit.unreadable {
                let message = format!(
                    "refusing {}: it runs the line at the terminal's prompt, and part of that line was edited in ways that cannot be followed (completion, history, caret keys) and cannot be read from the screen; clear it (key ctrl+u) and type the whole command",
                    summarize(request)
                );
                let question =
                    "The agent wants to run the line at a terminal's prompt, which cannot be read. Allow it?";
                match self.ask_if(mode == Mode::Interactive, question) {
                    Some(true) => *decision = GuardDecision::AllowedByPerson { marker: "unreadable_line".into() },
                    Some(false) => return Err(refuse("terminal_command", format!("{message} (the person declined)"))),
                    None => return Err(refuse("terminal_command", message)),
                }
                continue;
            }
            // A guessed start inside the prompt reads as an unknown command: only known effects count,
            // unless the agent itself typed an expansion into the line (`$(echo rm)` typed at its start).
            let readings = commit.readings.iter().map(|r| (r, false));
            let guessed = commit.guessed.iter().map(|g| (g, !commit.typed_expansion));
            for (reading, known_effects_only) in readings.chain(guessed) {
                let mut findings = destructive_commands(reading);
                if known_effects_only {
                    findings.retain(|f| f.kind != CommandKind::Opaque);
                    if findings.is_empty() {
                        continue;
                    }
                }
                // Where the command would go on the network meets the allowed domains, as a browser would.
                if !self.config.url_policy.allowed_domains.is_empty() {
                    for url in urls_in_line(reading) {
                        if let Err(UrlRefusal::DomainNotAllowed { host, allowed }) =
                            vet_url(&url, &self.config.url_policy)
                        {
                            return Err(refuse(
                                "url",
                                format!(
                                    "refusing to run {} in the terminal: it reaches {host}, which is not in the allowed \
                                     domains ({allowed})",
                                    quote_clipped(&redact_urls_in(reading), 80)
                                ),
                            ));
                        }
                    }
                }
                let files = self.desktop.files.as_ref();
                let mut states = |paths: &[String]| shell_file_states(files, terminal_pid, moved_earlier, paths);
                match check_findings(findings, mode, &self.session.turn.intent, &mut states) {
                    CommandVerdict::Allowed => {}
                    CommandVerdict::AllowedByIntent { rule } => {
                        *decision = GuardDecision::AllowedByIntent { marker: rule.to_string() };
                    }
                    CommandVerdict::Refused { rule, command, .. } if approved.contains(&(rule, command.clone())) => {}
                    CommandVerdict::Refused { rule, command, reason, can_ask } => {
                        let question = format!(
                            "The agent wants to run {} in a terminal ({rule}), which your request did not ask for. Allow it?",
                            quote_clipped(&redact_urls_in(&command), 80)
                        );
                        match self.ask_if(can_ask && mode == Mode::Interactive, &question) {
                            Some(true) => {
                                *decision = GuardDecision::AllowedByPerson { marker: rule.to_string() };
                                approved.push((rule, command));
                            }
                            Some(false) => {
                                return Err(refuse("terminal_command", format!("{reason} (the person declined)")))
                            }
                            None => return Err(refuse("terminal_command", reason)),
                        }
                    }
                }
            }
        }
        Ok((id, line))
    }

    /// The person's answer, when `may_ask` and a way to ask exists.
    fn ask_if(&mut self, may_ask: bool, question: &str) -> Option<bool> {
        if !may_ask {
            return None;
        }
        self.confirm.as_mut().and_then(|c| c.confirm(question))
    }
}

/// What the terminal's shell finds at `paths`, asked of the desktop for the terminal window's
/// process; relative paths are unknown once an earlier line of the same input `moved` the shell.
fn shell_file_states(files: &dyn ShellFiles, pid: Option<u32>, moved: bool, paths: &[String]) -> Vec<FileState> {
    let Some(pid) = pid else { return vec![FileState::Unknown; paths.len()] };
    let resolvable = |p: &String| !moved || p.starts_with('/') || p.starts_with('~');
    let asked: Vec<String> = paths.iter().filter(|p| resolvable(p)).cloned().collect();
    let mut answers = if asked.is_empty() { Vec::new() } else { files.file_states(pid, &asked) }.into_iter();
    paths
        .iter()
        .map(|p| if resolvable(p) { answers.next().unwrap_or(FileState::Unknown) } else { FileState::Unknown })
        .collect()
}

/// Keyboard input, whose receiver is whatever has focus when it is sent.
fn is_keyboard(request: &Request) -> bool {
    matches!(request.command, Command::Key { .. } | Command::Type { target: None, .. })
}

/// How an action reaches an element, with the element's id where it has one already.
fn how(reach: &crate::guard::effect::Reach<'_>) -> String {
    if reach.element.id == ElementId::UNASSIGNED {
        format!("{} {} {}", reach.how, reach.element.role, quote_clipped(&reach.element.label, 40))
    } else {
        format!("{} {}", reach.how, reach.element.id)
    }
}

/// The visible texts an action's targets were given by, judged alongside the elements they found.
fn text_targets(command: &Command) -> Vec<String> {
    let targets: Vec<&Target> = match command {
        Command::Drag { from, to } => vec![from, to],
        Command::Pointer { target, .. } => vec![target],
        Command::Type { target: Some(t), .. } => vec![t],
        _ => Vec::new(),
    };
    targets
        .into_iter()
        .filter_map(|t| match t {
            Target::Text(s) => Some(s.clone()),
            Target::Element(_) => None,
        })
        .collect()
}

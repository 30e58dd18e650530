//! Lines a terminal's shell would run: the input is replayed through the terminal's pending line and
//! every line it commits is judged before anything is sent (the command guard's tiers, a paste nobody
//! can read, a line nobody can read, a password prompt, a host outside the allowed domains).

use handrail_platform::{FileState, OcrHealth, ShellFiles};

use super::{Guard, Judging};
use crate::engine::quote_clipped;
use crate::engine::stop::Stop;
use crate::engine::summary::summarize;
use crate::engine::Engine;
use crate::guard::command::{check_findings, destructive_commands, moves_shell, CommandKind, CommandVerdict};
use crate::guard::effect::{Scene, TerminalReach};
use crate::guard::password::PASSWORD_REFUSAL;
use crate::guard::terminal::{asks_for_secret, replay, shown_line, urls_in_line, PendingLine, Stroke, TerminalId};
use crate::guard::url::{redact_urls_in, vet_url, UrlRefusal};
use crate::guard::Rule;
use crate::outcome::GuardDecision;
use crate::request::{Command, Request};
use crate::turn::Mode;

pub(super) struct Terminal;

impl Guard for Terminal {
    fn rule(&self) -> Rule {
        Rule::TerminalCommand
    }

    fn judge(&self, engine: &mut Engine, j: &mut Judging<'_, '_>) -> Result<(), Stop> {
        if let (Some(term), None) = (&j.found.terminal, &j.judged.terminal) {
            let line = engine.judge_terminal(j.request, term, j.scene, &mut j.judged.decision)?;
            j.judged.terminal = Some(line);
        }
        Ok(())
    }
}

impl Engine {
    /// Replays the input through the terminal's pending line and judges every line it commits, before
    /// anything is sent: the command guard's tiers, a paste nobody can read, a line nobody can read.
    pub(super) fn judge_terminal(
        &mut self,
        request: &Request,
        term: &TerminalReach<'_>,
        scene: &Scene<'_>,
        decision: &mut GuardDecision,
    ) -> Result<(TerminalId, PendingLine), Stop> {
        let refuse = |rule: Rule, message: String| Stop::refused(rule, message);
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
                Rule::PasswordField,
                format!(
                    "{PASSWORD_REFUSAL} (the terminal is asking for a password: {})",
                    quote_clipped(shown.as_deref().unwrap_or_default(), 60)
                ),
            ));
        }
        let strokes: Vec<Stroke<'_>> = match &request.command {
            Command::Type { text, .. } => text.chars().map(Stroke::Char).collect(),
            Command::Key { combo } if self.desktop.rules.keys.is_paste(combo) => {
                return Err(refuse(Rule::TerminalCommand,
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
                    Some(false) => {
                        return Err(refuse(Rule::TerminalCommand, format!("{message} (the person declined)")))
                    }
                    None => return Err(refuse(Rule::TerminalCommand, message)),
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
                            return Err(refuse(Rule::Url,
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
                                return Err(refuse(Rule::TerminalCommand, format!("{reason} (the person declined)")))
                            }
                            None => return Err(refuse(Rule::TerminalCommand, reason)),
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

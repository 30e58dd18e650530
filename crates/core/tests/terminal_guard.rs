//! Commands typed into a terminal meet the command guard before the key that runs them is sent, on a
//! simulated desktop with a terminal beside other windows. What ran is read back from the simulated
//! shell itself (its history of lines run), never from the engine's observation.

mod common;

use common::{config, Fx};
use handrail_core::{Confirm, Engine, GuardDecision, Mode, Outcome, Rule, Status};
use handrail_platform::{OsRules, Rect, Size};
use handrail_sim::{SimDesktop, Widget, WidgetId, WindowSpec};
use proptest::prelude::*;

struct Term {
    fx: Fx,
    shell: WidgetId,
}

/// What kind of terminal the desktop has.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    /// VTE-like: an accessible `terminal` element whose text is readable.
    Accessible,
    /// xterm-like: no accessibility at all, known by its window class; the screen is read by OCR.
    WindowClass,
}

fn term(kind: Kind, mode: Mode, intent: &str) -> Term {
    let sim = SimDesktop::new(Size::new(1280, 800));
    let notes = sim.add_window(WindowSpec::new("Notes", "Notes").bounds(Rect::new(40, 40, 500, 400)));
    sim.add_widget(notes, Widget::spinner().at(60, 80, 40, 40));
    sim.add_widget(notes, Widget::button("Delete note").at(60, 140, 140, 30));
    let (app, class) = match kind {
        Kind::Accessible => ("Xfce Terminal", "Xfce4-terminal"),
        Kind::WindowClass => ("XTerm", "XTerm"),
    };
    let win = sim.add_window(WindowSpec::new(app, "root@box: /tmp").class(class).bounds(Rect::new(300, 200, 800, 500)));
    let mut shell = Widget::terminal("Terminal", ["/tmp/victim/", "/tmp/notes.txt"]).at(310, 240, 780, 440).focused();
    if kind == Kind::WindowClass {
        shell = shell.ax_hidden();
    }
    let shell = sim.add_widget(win, shell);
    sim.raise_window(win);
    // A command split into single keys with typos fixed by Backspace takes up to 39 actions; the
    // unattended ceiling (20) is not what these tests are about.
    let mut config = config();
    config.unattended.mutations = 100;
    let engine = Engine::new(sim.desktop(), config);
    let mut fx = Fx { sim, engine, win };
    fx.turn(intent, mode);
    fx.see();
    Term { fx, shell }
}

impl Term {
    fn typ(&mut self, text: &str) -> Outcome {
        self.fx.call(&[("action", "type"), ("text", text)])
    }

    fn key(&mut self, keys: &str) -> Outcome {
        self.fx.call(&[("action", "key"), ("keys", keys)])
    }

    fn ran(&self) -> Vec<String> {
        self.fx.sim.widget(self.shell).ran
    }

    fn line(&self) -> String {
        self.fx.sim.widget(self.shell).value
    }
}

fn refused(o: &Outcome, rule: Rule) {
    assert_eq!(o.status, Status::Refused, "{}", o.text());
    assert!(matches!(o.guard, GuardDecision::Refused { rule: r } if r == rule), "{}", o.text());
}

fn allowed(o: &Outcome) {
    assert!(matches!(o.status, Status::Ok | Status::NoVisibleChange), "{}", o.text());
}

const DISK: &str = "check the disk usage";

#[test]
fn destructive_commands_never_run_unattended() {
    for kind in [Kind::Accessible, Kind::WindowClass] {
        let mut t = term(kind, Mode::Unattended, DISK);
        for line in [
            "rm -rf /tmp/victim",
            "sudo rm -r /tmp/victim",
            "find /tmp/victim -delete",
            "cd /tmp && \\rm -fr victim",
            "git reset --hard",
            "echo x > /tmp/notes.txt",
            "bash -c 'rm -rf /tmp/victim'",
        ] {
            let o = t.typ(&format!("{line}\n"));
            refused(&o, Rule::TerminalCommand);
            assert!(o.message.as_deref().unwrap_or_default().contains("in the terminal"), "{}", o.text());
            assert_eq!(t.line(), "", "{kind:?} {line}: nothing may be typed when a line is refused");
            assert!(t.ran().is_empty(), "{kind:?} {line}: ran {:?}", t.ran());
            t.fx.see();
        }
        // Look-alikes and harmless commands run.
        for line in ["df -h", "echo rm -rf", "grep -r delete .", "ls --format=long"] {
            allowed(&t.typ(&format!("{line}\n")));
            t.fx.see();
        }
        assert_eq!(t.ran(), ["df -h", "echo rm -rf", "grep -r delete .", "ls --format=long"], "{kind:?}");
    }
}

#[test]
fn a_command_split_over_calls_is_judged_when_it_would_run() {
    for kind in [Kind::Accessible, Kind::WindowClass] {
        let mut t = term(kind, Mode::Unattended, DISK);
        allowed(&t.typ("rm -r"));
        allowed(&t.key("f"));
        allowed(&t.typ(" /tmp/vic"));
        allowed(&t.typ("tim"));
        for commit in ["return", "ctrl+m", "ctrl+j", "enter"] {
            refused(&t.key(commit), Rule::TerminalCommand);
        }
        refused(&t.typ("\n"), Rule::TerminalCommand);
        assert_eq!(t.line(), "rm -rf /tmp/victim", "{kind:?}");
        assert!(t.ran().is_empty());
        // Cleared, the line is harmless again.
        allowed(&t.key("ctrl+u"));
        allowed(&t.typ("ls /tmp\n"));
        assert_eq!(t.ran(), ["ls /tmp"], "{kind:?}");
    }
}

#[test]
fn edits_the_engine_cannot_follow_are_read_back_from_the_screen() {
    for kind in [Kind::Accessible, Kind::WindowClass] {
        // Tab completion finishes the path; the line shown on screen is judged.
        let mut t = term(kind, Mode::Unattended, DISK);
        allowed(&t.typ("rm -rf /tmp/vi"));
        allowed(&t.key("tab"));
        assert_eq!(t.line(), "rm -rf /tmp/victim/");
        t.fx.see();
        refused(&t.key("return"), Rule::TerminalCommand);
        assert!(t.ran().is_empty());

        // A line typed by someone else before handrail looked is read from the screen.
        let mut t = term(kind, Mode::Unattended, DISK);
        t.fx.sim.set_value(t.shell, "rm -rf /tmp/victim");
        t.fx.see();
        refused(&t.key("return"), Rule::TerminalCommand);
        // And completed by the agent: the screen shows the beginning, the agent typed the end.
        t.fx.sim.set_value(t.shell, "rm");
        t.fx.see();
        refused(&t.typ(" -rf /tmp/victim\n"), Rule::TerminalCommand);
        assert!(t.ran().is_empty(), "{kind:?} ran {:?}", t.ran());
    }
}

#[test]
fn a_command_name_typed_at_the_start_after_a_caret_move_is_judged() {
    for kind in [Kind::Accessible, Kind::WindowClass] {
        let mut t = term(kind, Mode::Unattended, DISK);
        // A harmless assignment first, so that no word of the final line names rm.
        allowed(&t.typ("R=rm\n"));
        allowed(&t.typ(" -rf /tmp/victim"));
        // Home moves the caret to the start of the line; the engine can no longer follow it.
        allowed(&t.key("home"));
        allowed(&t.typ("$R"));
        // What a real shell now shows: the expansion in front, where the caret was.
        t.fx.sim.set_value(t.shell, "$R -rf /tmp/victim");
        t.fx.see();
        let o = t.key("return");
        refused(&o, Rule::TerminalCommand);
        assert!(o.text().contains("unknown until run"), "{}", o.text());
        assert_eq!(t.ran(), ["R=rm"], "{kind:?}");
    }
    // A prompt that happens to end in `$` is still no command of its own.
    let mut t = term(Kind::WindowClass, Mode::Unattended, DISK);
    allowed(&t.typ("ls"));
    allowed(&t.key("home"));
    allowed(&t.typ("echo "));
    t.fx.sim.set_value(t.shell, "echo ls");
    t.fx.see();
    allowed(&t.key("return"));
}

#[test]
fn a_line_nobody_can_read_is_not_run_unattended() {
    let mut t = term(Kind::WindowClass, Mode::Unattended, DISK);
    t.fx.sim.set_value(t.shell, "rm -rf /tmp/victim");
    t.fx.sim.set_ocr_available(false);
    t.fx.see();
    let o = t.key("return");
    refused(&o, Rule::TerminalCommand);
    assert!(o.message.as_deref().unwrap_or_default().contains("cannot be read"), "{}", o.text());
    // A whole line typed by the agent is known without reading anything.
    allowed(&t.key("ctrl+c"));
    allowed(&t.typ("df -h\n"));
    assert_eq!(t.ran(), ["df -h"]);
}

#[test]
fn an_open_terminal_prompt_is_known_empty() {
    let sim = SimDesktop::new(Size::new(1280, 800));
    sim.register_app(
        "XTerm",
        WindowSpec::new("XTerm", "xterm")
            .class("XTerm")
            .bounds(Rect::new(100, 100, 700, 400))
            .widget(Widget::terminal("Terminal", Vec::<String>::new()).at(110, 130, 680, 360).ax_hidden().focused()),
    );
    sim.set_ocr_available(false);
    let engine = Engine::new(sim.desktop(), config());
    let win = sim.add_window(WindowSpec::new("Notes", "Notes"));
    let mut fx = Fx { sim, engine, win };
    fx.turn(DISK, Mode::Unattended);
    fx.see();
    allowed(&fx.call(&[("action", "open_app"), ("app", "XTerm")]));
    // No accessibility, no OCR: only because handrail opened it does it know the prompt is empty.
    allowed(&fx.call(&[("action", "type"), ("text", "df -h\n")]));
    refused(&fx.call(&[("action", "type"), ("text", "rm -rf /tmp/victim\n")]), Rule::TerminalCommand);
}

#[test]
fn pastes_and_password_prompts_in_a_terminal_are_refused() {
    let mut t = term(Kind::Accessible, Mode::Interactive, DISK);
    for paste in ["ctrl+shift+v", "shift+insert"] {
        refused(&t.key(paste), Rule::TerminalCommand);
    }
    t.fx.sim.set_value(t.shell, "[sudo] password for ann:");
    t.fx.see();
    refused(&t.typ("hunter2\n"), Rule::PasswordField);
    refused(&t.key("h"), Rule::PasswordField);
}

struct Answer(Option<bool>, std::sync::Arc<std::sync::Mutex<Vec<String>>>);

impl Confirm for Answer {
    fn confirm(&mut self, question: &str) -> Option<bool> {
        self.1.lock().expect("questions").push(question.to_string());
        self.0
    }
}

#[test]
fn interactive_removal_follows_the_request_or_the_person() {
    // Backed by the user's request.
    let mut t = term(Kind::Accessible, Mode::Interactive, "delete the victim directory in /tmp");
    let o = t.typ("rm -rf /tmp/victim\n");
    allowed(&o);
    assert!(matches!(o.guard, GuardDecision::AllowedByIntent { .. }), "{}", o.text());
    assert_eq!(t.ran(), ["rm -rf /tmp/victim"]);
    // Catastrophic whatever the request says.
    t.fx.see();
    refused(&t.typ("rm -rf ~\n"), Rule::TerminalCommand);

    // Not backed: refused, or asked; the person's answer decides.
    for (answer, runs) in [(None, false), (Some(false), false), (Some(true), true)] {
        let mut t = term(Kind::WindowClass, Mode::Interactive, DISK);
        let asked = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        t.fx.engine.set_confirm(Box::new(Answer(answer, asked.clone())));
        let o = t.typ("rm -rf /tmp/victim\n");
        if runs {
            allowed(&o);
            assert!(matches!(o.guard, GuardDecision::AllowedByPerson { .. }), "{}", o.text());
        } else {
            refused(&o, Rule::TerminalCommand);
        }
        assert_eq!(t.ran().len(), usize::from(runs), "{answer:?}");
        let asked = asked.lock().expect("questions");
        assert_eq!(asked.len(), 1, "asked once: {asked:?}");
        assert!(asked[0].contains("rm -rf /tmp/victim"), "{asked:?}");
    }
}

#[test]
fn keys_to_other_windows_are_not_judged_as_commands() {
    let mut t = term(Kind::Accessible, Mode::Unattended, DISK);
    // A command written into an editor's field is text, not a command.
    let win = t.fx.sim.add_window(WindowSpec::new("Editor", "notes.txt").bounds(Rect::new(200, 100, 600, 300)));
    let field = t.fx.sim.add_widget(win, Widget::entry("Body").at(220, 140, 500, 28).focused());
    t.fx.sim.raise_window(win);
    t.fx.see();
    allowed(&t.typ("rm -rf /tmp/victim"));
    assert_eq!(t.fx.sim.widget(field).value, "rm -rf /tmp/victim");
    assert!(t.ran().is_empty());
}

/// One piece of input the agent may send.
#[derive(Debug, Clone)]
enum Piece {
    Type(String),
    Key(String),
}

fn pieces_of(command: &'static str) -> impl Strategy<Value = Vec<Piece>> {
    let chars: Vec<char> = command.chars().collect();
    let n = chars.len();
    // Cut points, each piece sent as `type`, or (single characters) as a key; a harmless typo fixed by
    // Backspace may come anywhere, and a piece may be typed out of order with caret keys (its last
    // character first, then the caret back before it and the rest typed there), which the engine
    // cannot follow and must read back from the screen.
    (proptest::collection::vec(any::<bool>(), n), proptest::collection::vec(0u8..6, n)).prop_map(move |(cuts, how)| {
        let mut out = Vec::new();
        let mut run = String::new();
        for (i, c) in chars.iter().enumerate() {
            run.push(*c);
            if cuts[i] || i + 1 == n {
                let piece = std::mem::take(&mut run);
                let count = piece.chars().count();
                match (how[i], count) {
                    (0, 1) if piece == "\n" => out.push(Piece::Key("return".into())),
                    (1, 1) if piece == " " => out.push(Piece::Key("space".into())),
                    (1, 1) if piece.chars().all(|c| c.is_ascii_lowercase() || "-/".contains(c)) => {
                        out.push(Piece::Key(piece))
                    }
                    (2, _) => {
                        out.push(Piece::Type(format!("{piece}x")));
                        out.push(Piece::Key("backspace".into()));
                    }
                    (3 | 4, 2..) if !piece.contains('\n') => {
                        let (left, end) = if how[i] == 3 { ("left", "end") } else { ("ctrl+b", "ctrl+e") };
                        let (head, last) = piece.split_at(piece.len() - piece.chars().last().map_or(0, char::len_utf8));
                        out.push(Piece::Type(last.to_string()));
                        out.push(Piece::Key(left.into()));
                        out.push(Piece::Type(head.to_string()));
                        out.push(Piece::Key(end.into()));
                    }
                    (5, 2..) if !piece.contains('\n') => {
                        out.push(Piece::Type(piece));
                        out.push(Piece::Key("home".into()));
                        out.push(Piece::Key("end".into()));
                    }
                    _ => out.push(Piece::Type(piece)),
                }
            }
        }
        out
    })
}

/// Refused lines the property test splits: deleting, discarding work, a write over a file nobody can
/// check, a disk wipe.
const SPLIT_COMMANDS: &[&str] = &[
    "rm -rf /tmp/victim\n",
    "git reset --hard\n",
    "find /tmp/victim -delete\n",
    "echo x > /tmp/notes.txt\n",
    "dd if=/dev/zero of=/dev/sda\n",
];

fn split_command() -> impl Strategy<Value = (&'static str, Vec<Piece>)> {
    (0..SPLIT_COMMANDS.len()).prop_flat_map(|i| pieces_of(SPLIT_COMMANDS[i]).prop_map(move |p| (SPLIT_COMMANDS[i], p)))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// However a refused command is split over `type` and `key` calls, and whatever caret moves
    /// put it together, it never runs, and the calls before the commit type exactly what they say.
    #[test]
    fn no_split_gets_a_refused_line_through(
        (command, pieces) in split_command(),
        accessible in any::<bool>(),
    ) {
        let kind = if accessible { Kind::Accessible } else { Kind::WindowClass };
        let mut t = term(kind, Mode::Unattended, DISK);
        let mut refusals = 0;
        for p in &pieces {
            let o = match p {
                Piece::Type(s) => t.typ(s),
                Piece::Key(k) => t.key(k),
            };
            match o.status {
                Status::Refused => {
                    refusals += 1;
                    prop_assert_eq!(&o.guard, &GuardDecision::Refused { rule: Rule::TerminalCommand }, "{}", o.text());
                }
                Status::Ok => {}
                // As a careful agent does (and must, before sending the same input again).
                Status::NoVisibleChange => {
                    t.fx.see();
                }
                other => prop_assert!(false, "{other:?} for {p:?}: {}", o.text()),
            }
        }
        prop_assert!(t.ran().is_empty(), "ran {:?} via {:?}", t.ran(), pieces);
        prop_assert_eq!(refusals, 1, "{:?}", pieces);
        // Typed up to the refused piece, exactly.
        let whole = command.trim_end_matches('\n');
        prop_assert!(whole.starts_with(&t.line()), "line {:?} via {:?}", t.line(), pieces);
    }
}

#[test]
fn commands_reaching_hosts_outside_the_allowed_domains_are_refused() {
    let sim = SimDesktop::new(Size::new(1280, 800));
    let win = sim.add_window(WindowSpec::new("XTerm", "xterm").class("XTerm").bounds(Rect::new(100, 100, 700, 400)));
    let shell = sim.add_widget(
        win,
        Widget::terminal("Terminal", Vec::<String>::new()).at(110, 130, 680, 360).ax_hidden().focused(),
    );
    let mut cfg = config();
    cfg.url_policy.allowed_domains = vec!["example.com".into()];
    let engine = Engine::new(sim.desktop(), cfg);
    let mut t = Term { fx: Fx { sim, engine, win }, shell };
    t.fx.turn(DISK, Mode::Unattended);
    t.fx.see();
    allowed(&t.key("ctrl+c"));
    for line in ["curl -s https://evil.test/x", "git clone ssh://git@evil.test/r.git", "wget 'http://127.0.0.2:8080/'"]
    {
        let o = t.typ(&format!("{line}\n"));
        assert_eq!(o.status, Status::Refused, "{}", o.text());
        assert!(matches!(o.guard, GuardDecision::Refused { rule: Rule::Url }), "{}", o.text());
    }
    allowed(&t.typ("curl -s https://example.com/\n"));
    assert_eq!(t.ran(), ["curl -s https://example.com/"]);
}

#[test]
fn writing_over_a_file_is_judged_by_what_the_terminals_shell_finds() {
    use handrail_platform::FileState::{Absent, Existing};
    use handrail_sim::SimCall;
    for kind in [Kind::Accessible, Kind::WindowClass] {
        // Nothing can be told: a write that may replace a file is destructive, askable interactively.
        let mut t = term(kind, Mode::Interactive, DISK);
        let o = t.typ("df -h > usage.txt\n");
        refused(&o, Rule::TerminalCommand);
        let message = o.message.as_deref().unwrap_or_default();
        assert!(message.contains("whether \"usage.txt\" exists cannot be checked"), "{message}");
        assert!(t.ran().is_empty());

        // The shell's files are known: a new file is written, an existing one is not replaced, in
        // either mode, unless the request asks for it.
        for mode in [Mode::Interactive, Mode::Unattended] {
            let mut t = term(kind, mode, DISK);
            t.fx.sim.set_shell_files(&[("notes.txt", Existing), ("/tmp/notes.txt", Existing), ("old", Absent)]);
            allowed(&t.typ("df -h > usage.txt\n"));
            t.fx.see();
            let o = t.typ("df -h > notes.txt\n");
            refused(&o, Rule::TerminalCommand);
            assert!(o.message.as_deref().unwrap_or_default().contains("\"notes.txt\" exists"), "{}", o.text());
            t.fx.see();
            refused(&t.typ("date | tee /tmp/notes.txt\n"), Rule::TerminalCommand);
            t.fx.see();
            refused(&t.typ("cp usage.txt notes.txt\n"), Rule::TerminalCommand);
            t.fx.see();
            allowed(&t.typ("cp notes.txt copy.txt\n"));
            t.fx.see();
            // A cd earlier in the line, or in an earlier line of the same input: which usage.txt is
            // meant cannot be told. Nothing of that input runs.
            refused(&t.typ("cd /srv && df -h > usage.txt\n"), Rule::TerminalCommand);
            t.fx.see();
            refused(&t.typ("cd /srv\ndf -h > usage.txt\n"), Rule::TerminalCommand);
            t.fx.see();
            allowed(&t.typ("cd /srv\ndf -h > /tmp/usage.txt\n"));
            assert_eq!(
                t.ran(),
                ["df -h > usage.txt", "cp notes.txt copy.txt", "cd /srv", "df -h > /tmp/usage.txt"],
                "{kind:?} {mode:?}"
            );
            // The engine asked about the terminal window's own process.
            let pid = t.fx.sim.window(t.fx.win).pid;
            let asked: Vec<(u32, Vec<String>)> =
                t.fx.sim
                    .calls()
                    .into_iter()
                    .filter_map(|c| match c {
                        SimCall::FileStates { terminal_pid, paths } => Some((terminal_pid, paths)),
                        _ => None,
                    })
                    .collect();
            assert!(asked.iter().all(|(p, _)| *p == pid), "{asked:?} vs {pid}");
            assert!(asked.iter().any(|(_, paths)| paths == &["notes.txt".to_string()]), "{asked:?}");
        }
        // Asked for in the user's own words: replaced, interactively.
        let mut t = term(kind, Mode::Interactive, "overwrite notes.txt with today's disk usage");
        t.fx.sim.set_shell_files(&[("notes.txt", Existing)]);
        let o = t.typ("df -h > notes.txt\n");
        allowed(&o);
        assert!(matches!(o.guard, GuardDecision::AllowedByIntent { .. }), "{}", o.text());
    }
}

/// A terminal that exposes no accessibility is known by its window class, and which classes are
/// terminals is the desktop OS's rule: Terminal.app's bundle id on a Mac, nothing on Linux.
#[test]
fn which_windows_are_terminals_is_the_desktops_own_rule() {
    for (rules, is_terminal) in [(OsRules::macos(), true), (OsRules::linux(), false)] {
        let os = rules.os();
        let sim = SimDesktop::new(Size::new(1280, 800));
        // Another app's window behind it, as on a person's desktop.
        let notes = sim.add_window(WindowSpec::new("Notes", "Notes").bounds(Rect::new(40, 40, 500, 400)));
        sim.add_widget(notes, Widget::button("Delete note").at(60, 140, 140, 30));
        let win = sim.add_window(
            WindowSpec::new("Terminal", "ann — -zsh — 80×24")
                .class("com.apple.Terminal")
                .bounds(Rect::new(300, 200, 800, 500)),
        );
        let shell = sim.add_widget(
            win,
            Widget::terminal("Terminal", ["/tmp/victim/"]).at(310, 240, 780, 440).focused().ax_hidden(),
        );
        sim.raise_window(win);
        let mut desktop = sim.desktop();
        desktop.rules = rules;
        let engine = Engine::new(desktop, config());
        let mut fx = Fx { sim, engine, win };
        fx.turn(DISK, Mode::Unattended);
        fx.see();
        let o = fx.call(&[("action", "type"), ("text", "rm -rf /tmp/victim\n")]);
        if is_terminal {
            refused(&o, Rule::TerminalCommand);
            assert!(fx.sim.widget(shell).ran.is_empty(), "{os}: ran {:?}", fx.sim.widget(shell).ran);
        } else {
            // Not a terminal to this OS: keys to an unknown receiver, which nobody watching refuses for
            // that reason, not as a command.
            assert_eq!(o.status, Status::Refused, "{os}: {}", o.text());
            assert!(!matches!(o.guard, GuardDecision::Refused { rule: Rule::TerminalCommand }), "{os}: {}", o.text());
            assert!(fx.sim.widget(shell).ran.is_empty(), "{os}");
        }
    }
}

//! `type` reads its text back from the element that received it: `[ok]` means the text is there; a
//! lost or garbled attempt is sent again the other way when nothing half-typed would be left, and is
//! otherwise reported with what the field holds. What the fields hold is read from the simulated
//! desktop itself.

mod common;

use common::Fx;
use handrail_core::{Mode, Outcome, Status, TypingCheck};
use handrail_platform::AxHealth;
use handrail_sim::{SimCall, TypingFault, Widget};

fn desk() -> (Fx, handrail_sim::WidgetId, handrail_sim::WidgetId) {
    let mut fx = Fx::empty();
    let name = fx.sim.add_widget(fx.win, Widget::entry("Name").at(130, 140, 300, 28));
    let note = fx.sim.add_widget(fx.win, Widget::entry("Note").at(130, 200, 300, 28).value("ab"));
    fx.sim.add_widget(fx.win, Widget::spinner().at(500, 140, 30, 30));
    fx.turn("fill in the form", Mode::Interactive);
    fx.see();
    (fx, name, note)
}

fn type_into(fx: &mut Fx, label: &str, text: &str) -> Outcome {
    fx.see();
    fx.on("type", label, &[("text", text)])
}

fn alternates(fx: &Fx) -> usize {
    fx.sim.calls().iter().filter(|c| matches!(c, SimCall::TypeTextAlternate(_))).count()
}

#[test]
fn text_that_arrived_is_read_back() {
    let (mut fx, name, note) = desk();
    for text in ["Ann", " สวัสดี", " 你好 👍"] {
        let o = type_into(&mut fx, "Name", text);
        assert_eq!(o.status, Status::Ok, "{}", o.text());
        assert!(matches!(o.typing, Some(TypingCheck::Arrived { .. })), "{}", o.text());
        assert!(o.text().contains("typed: arrived"), "{}", o.text());
    }
    assert_eq!(fx.sim.widget(name).value, "Ann สวัสดี 你好 👍");
    let o = type_into(&mut fx, "Note", "cd");
    assert!(matches!(o.typing, Some(TypingCheck::Arrived { .. })), "{}", o.text());
    assert_eq!(fx.sim.widget(note).value, "abcd");
    assert_eq!(alternates(&fx), 0, "no second attempts when the first arrived");
}

#[test]
fn a_lost_attempt_is_sent_again_the_other_way() {
    let (mut fx, name, _) = desk();
    fx.sim.fail_next_typing(TypingFault::Lost);
    let o = type_into(&mut fx, "Name", "👍🎉 ok");
    assert_eq!(o.status, Status::Ok, "{}", o.text());
    assert!(matches!(o.typing, Some(TypingCheck::ArrivedOnRetry { .. })), "{}", o.text());
    assert!(o.text().contains("second attempt"), "{}", o.text());
    assert_eq!(fx.sim.widget(name).value, "👍🎉 ok", "exactly once");
    assert_eq!(alternates(&fx), 1);
}

#[test]
fn a_garbled_attempt_into_an_empty_field_is_replaced() {
    let (mut fx, name, _) = desk();
    fx.sim.fail_next_typing(TypingFault::Garbled("ไท?".into()));
    let o = type_into(&mut fx, "Name", "ไทย");
    assert!(matches!(o.typing, Some(TypingCheck::ArrivedOnRetry { ref first, .. }) if first == "ไท?"), "{}", o.text());
    assert_eq!(fx.sim.widget(name).value, "ไทย");
}

#[test]
fn a_garbled_attempt_between_the_users_own_text_is_replaced_keeping_that_text() {
    let (mut fx, _, note) = desk();
    fx.sim.fail_next_typing(TypingFault::Garbled("c?".into()));
    let o = type_into(&mut fx, "Note", "cd");
    assert_eq!(o.status, Status::Ok, "{}", o.text());
    assert!(matches!(o.typing, Some(TypingCheck::ArrivedOnRetry { ref first, .. }) if first == "abc?"), "{}", o.text());
    assert_eq!(fx.sim.widget(note).value, "abcd", "the user's \"ab\" kept, the garbage gone, the text once");
    assert_eq!(alternates(&fx), 1);
    // The second attempt rewrote the line the user had, with the text where the first one went.
    let calls = fx.sim.calls();
    assert!(calls.iter().any(|c| matches!(c, SimCall::TypeTextAlternate(t) if t == "abcd")), "{calls:?}");
}

#[test]
fn a_garbled_replacement_that_fails_again_is_reported_with_what_the_field_holds() {
    let (mut fx, _, note) = desk();
    fx.sim.fail_next_typing(TypingFault::Garbled("c?".into()));
    fx.sim.fail_next_alternate_typing(TypingFault::Lost);
    let o = type_into(&mut fx, "Note", "cd");
    assert_eq!(o.status, Status::Error, "{}", o.text());
    assert!(o.tag().starts_with("[error"), "{}", o.tag());
    match &o.typing {
        Some(TypingCheck::NotArrived { holds, retried, .. }) => {
            assert_eq!(holds, "abc?");
            assert!(retried);
        }
        other => panic!("{other:?}: {}", o.text()),
    }
    assert!(o.text().contains("holds \"abc?\""), "{}", o.text());
    assert_eq!(fx.sim.widget(note).value, "abc?", "nothing more was sent");
}

/// The look after typing missed accessibility (a busy machine): the field is looked for once more
/// rather than reported gone, and the text is read back.
#[test]
fn a_look_after_typing_that_missed_accessibility_is_taken_again() {
    let (mut fx, name, _) = desk();
    fx.see();
    let calls = fx.sim.calls().len();
    // The look before typing (asked twice when it misses) and the look after it.
    fx.sim.miss_next_ax_snapshots(3);
    let o = fx.on("type", "Name", &[("text", "Ann")]);
    let snapshots = fx.sim.calls()[calls..].iter().filter(|c| matches!(c, SimCall::AxSnapshot)).count();
    assert!(snapshots >= 4, "the missed looks were taken: {snapshots} snapshots");
    assert!(matches!(o.typing, Some(TypingCheck::Arrived { .. })), "{}", o.text());
    assert_eq!(fx.sim.widget(name).value, "Ann");
}

#[test]
fn what_cannot_be_read_back_says_so() {
    let (mut fx, _, _) = desk();
    let o = type_into(&mut fx, "Name", "Ann\n");
    assert!(matches!(o.typing, Some(TypingCheck::Unchecked { ref why }) if why.contains("newline")), "{}", o.text());
    assert!(o.text().contains("typed: unchecked"), "{}", o.text());

    let (mut fx, _, _) = desk();
    fx.sim.set_ax_health(AxHealth::Unavailable);
    fx.see();
    let o = fx.call(&[("action", "type"), ("text", "Ann")]);
    assert!(matches!(o.typing, Some(TypingCheck::Unchecked { .. })), "{}", o.text());
}

#[test]
fn a_terminal_is_checked_in_its_text() {
    let mut fx = Fx::empty();
    let shell =
        fx.sim.add_widget(fx.win, Widget::terminal("Terminal", Vec::<String>::new()).at(120, 120, 600, 300).focused());
    fx.turn("list the files", Mode::Unattended);
    fx.see();
    let o = fx.call(&[("action", "type"), ("text", "ls -l")]);
    assert!(matches!(o.typing, Some(TypingCheck::Arrived { .. })), "{}", o.text());
    // A terminal is never retyped into: what a retry would leave on the line cannot be undone.
    fx.sim.fail_next_typing(TypingFault::Lost);
    fx.see();
    let o = fx.call(&[("action", "type"), ("text", " /tmp")]);
    assert!(matches!(o.typing, Some(TypingCheck::NotArrived { retried: false, .. })), "{}", o.text());
    assert_eq!(fx.sim.widget(shell).value, "ls -l");
}

#[test]
fn an_attempt_lost_both_ways_is_reported_with_what_the_field_holds() {
    let (mut fx, name, _) = desk();
    fx.sim.fail_next_typing(TypingFault::Lost);
    fx.sim.fail_next_alternate_typing(TypingFault::Lost);
    let o = type_into(&mut fx, "Name", "สวัสดี 👍");
    assert_eq!(o.status, Status::Error, "{}", o.text());
    match &o.typing {
        Some(TypingCheck::NotArrived { holds, retried, .. }) => {
            assert_eq!(holds, "");
            assert!(retried, "an empty field is safe to type into again");
        }
        other => panic!("{other:?}: {}", o.text()),
    }
    let line = o.text().lines().find(|l| l.starts_with("typed: ")).map(str::to_string).unwrap_or_default();
    assert!(
        line.starts_with("typed: not_arrived — e")
            && line.ends_with("does not hold the text as meant; a second attempt sent the other way did not either"),
        "{line}"
    );
    assert_eq!(fx.sim.widget(name).value, "");
    assert_eq!(alternates(&fx), 1, "one second attempt, no more");
}

#[test]
fn a_retry_that_arrives_garbled_is_reported_not_retried_again() {
    let (mut fx, name, _) = desk();
    fx.sim.fail_next_typing(TypingFault::Lost);
    fx.sim.fail_next_alternate_typing(TypingFault::Garbled("日?".into()));
    let o = type_into(&mut fx, "Name", "日本");
    assert_eq!(o.status, Status::Error, "{}", o.text());
    assert!(
        matches!(&o.typing, Some(TypingCheck::NotArrived { holds, retried: true, .. }) if holds == "日?"),
        "{}",
        o.text()
    );
    assert!(o.text().contains("holds \"日?\""), "{}", o.text());
    assert_eq!(fx.sim.widget(name).value, "日?");
    assert_eq!(alternates(&fx), 1);
}

/// In a multi-line editor a newline and a Tab are text: typed there, and read back like any other
/// character.
#[test]
fn newlines_and_tabs_in_a_multi_line_editor_are_text_and_read_back() {
    let mut fx = Fx::empty();
    let notes = fx.sim.add_widget(fx.win, Widget::text_area("Notes").at(130, 140, 400, 120));
    let title = fx.sim.add_widget(fx.win, Widget::entry("Title").at(130, 300, 300, 28));
    fx.turn("write the notes", Mode::Interactive);
    fx.see();
    let o = type_into(&mut fx, "Notes", "def f():\n\treturn 1\n");
    assert_eq!(o.status, Status::Ok, "{}", o.text());
    assert!(matches!(o.typing, Some(TypingCheck::Arrived { .. })), "{}", o.text());
    assert_eq!(fx.sim.widget(notes).value, "def f():\n\treturn 1\n");
    // The focus stayed in the editor: nothing reached the title.
    assert_eq!(fx.sim.widget(title).value, "");
    // A lost attempt is sent again, exactly once, as in any field.
    fx.sim.fail_next_typing(TypingFault::Lost);
    let o = type_into(&mut fx, "Notes", "x\ty\n");
    assert!(matches!(o.typing, Some(TypingCheck::ArrivedOnRetry { .. })), "{}", o.text());
    assert_eq!(fx.sim.widget(notes).value, "def f():\n\treturn 1\nx\ty\n");
}

/// A Tab in a one-line field still moves the focus: refused before anything is typed. A newline
/// there is typed but not checked (it may have submitted the field).
#[test]
fn a_tab_or_newline_in_a_one_line_field_is_not_text() {
    let mut fx = Fx::empty();
    let title = fx.sim.add_widget(fx.win, Widget::entry("Title").at(130, 140, 300, 28));
    fx.turn("fill in the form", Mode::Interactive);
    fx.see();
    let o = type_into(&mut fx, "Title", "a\tb");
    assert_eq!(o.status, Status::Refused, "{}", o.text());
    assert_eq!(fx.sim.widget(title).value, "");
    let o = type_into(&mut fx, "Title", "a\n");
    assert!(matches!(o.typing, Some(TypingCheck::Unchecked { ref why }) if why.contains("newline")), "{}", o.text());
}

/// Text that takes a field past what accessibility reports of it (its first 1,000 characters) is
/// not checked: it would read as missing and be typed a second time.
#[test]
fn text_past_what_accessibility_reports_is_not_checked_nor_typed_twice() {
    let mut fx = Fx::empty();
    let notes = fx.sim.add_widget(fx.win, Widget::text_area("Notes").at(130, 140, 400, 120).value("x".repeat(990)));
    fx.turn("write the notes", Mode::Interactive);
    fx.see();
    let o = type_into(&mut fx, "Notes", "\nmore than ten characters");
    assert!(
        matches!(o.typing, Some(TypingCheck::Unchecked { ref why }) if why.contains("1000 characters")),
        "{}",
        o.text()
    );
    assert_eq!(alternates(&fx), 0);
    assert!(fx.sim.widget(notes).value.ends_with("x\nmore than ten characters"));
}

/// A field whose accessible text stays empty (GTK 4.8 answers a request for all of an entry's text
/// with nothing) while the screen shows what was typed: the text arrived, and is never sent again.
#[test]
fn text_the_screen_shows_in_the_field_is_not_typed_twice() {
    let mut fx = Fx::empty();
    let name = fx.sim.add_widget(fx.win, Widget::entry("Name").at(130, 140, 300, 28).text_unreported());
    fx.turn("fill in the form", Mode::Interactive);
    fx.see();
    let o = type_into(&mut fx, "Name", "Grace Hopper");
    assert!(
        matches!(o.typing, Some(TypingCheck::Unchecked { ref why }) if why.contains("screen shows")),
        "{}",
        o.text()
    );
    assert_eq!(fx.sim.widget(name).value, "Grace Hopper", "typed once");
    assert_eq!(alternates(&fx), 0);
    // Lost for real (nothing on screen either): sent again, as before.
    let (mut fx, name, _) = desk();
    fx.sim.fail_next_typing(TypingFault::Lost);
    let o = type_into(&mut fx, "Name", "Grace Hopper");
    assert!(matches!(o.typing, Some(TypingCheck::ArrivedOnRetry { .. })), "{}", o.text());
    assert_eq!(fx.sim.widget(name).value, "Grace Hopper");
}

//! The sim's own tests: it must behave like a desktop before engine tests can lean on it.

use std::time::Duration;

use handrail_platform::{
    AxHealth, AxLimits, Desktop, Encoder, KeyCombo, Modifiers, MouseButton, PlatformError, Point, Rect, Role,
    ScrollDirection, SettleReport, SettleRequest, Size, States,
};

use super::*;

const SCREEN: Size = Size::new(1280, 800);

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// A desktop with one editor window at (100,100) 600x400.
fn editor() -> (SimDesktop, Desktop, WindowId) {
    let sim = SimDesktop::new(SCREEN);
    let win = sim.add_window(WindowSpec::new("Mousepad", "Untitled 1 - Mousepad").at(100, 100, 600, 400));
    let desktop = sim.desktop();
    (sim, desktop, win)
}

fn centre(sim: &SimDesktop, id: WidgetId) -> Point {
    sim.widget(id).bounds.center()
}

fn click(sim: &SimDesktop, d: &Desktop, id: WidgetId) {
    d.input.click(centre(sim, id), MouseButton::Left, 1).unwrap();
}

fn key(d: &Desktop, name: &str) {
    let combo = KeyCombo::plain(handrail_platform::Key::from_name(name).expect("a key name"));
    d.input.key(&combo).unwrap();
}

fn ctrl(d: &Desktop, name: &str) {
    let combo = KeyCombo::ctrl(handrail_platform::Key::from_name(name).expect("a key name"));
    d.input.key(&combo).unwrap();
}

fn settle(d: &Desktop, act: impl FnOnce()) -> SettleReport {
    let mut watch = d.settle.watch().unwrap();
    act();
    watch.wait(&SettleRequest::default()).unwrap()
}

#[test]
fn click_toggles_checkbox_and_focuses_it() {
    let (sim, d, win) = editor();
    let wrap = sim.add_widget(win, Widget::checkbox("Word wrap"));
    assert!(!sim.widget(wrap).checked);
    click(&sim, &d, wrap);
    let s = sim.widget(wrap);
    assert!(s.checked && !s.focused, "the mouse does not focus checkboxes");
    click(&sim, &d, wrap);
    assert!(!sim.widget(wrap).checked);
    let ax = d.accessibility.snapshot(&AxLimits::default());
    let node = ax.nodes.iter().find(|n| n.name == "Word wrap").unwrap();
    assert_eq!(node.role, Some(Role::Checkbox));
    assert!(node.states.contains(States::FOCUSABLE));
    assert!(!node.states.contains(States::CHECKED));
    // Tab reaches it, and Space toggles it then.
    key(&d, "tab");
    key(&d, "space");
    assert!(sim.widget(wrap).checked && sim.widget(wrap).focused);
    let eager = sim.add_widget(win, Widget::button("Eager").focus_on_click(true));
    let report = settle(&d, || click(&sim, &d, eager));
    assert!(report.saw_change && sim.widget(eager).focused, "opted in: focus ring drawn");
}

#[test]
fn delayed_reaction_applies_only_after_a_wait_past_its_delay() {
    let (sim, d, win) = editor();
    let status = sim.add_widget(win, Widget::text("Ready"));
    let save =
        sim.add_widget(win, Widget::button("Save").on_click(Reaction::set_label(status, "Saved").after(ms(300))));

    let mut watch = d.settle.watch().unwrap();
    click(&sim, &d, save);
    assert_eq!(sim.widget(status).label, "Ready", "not before virtual time passes");
    let short = SettleRequest { response_window: ms(100), ..SettleRequest::default() };
    let report = watch.wait(&short).unwrap();
    assert!(!report.saw_change && report.settled);
    assert_eq!(report.waited, ms(100));
    assert_eq!(sim.widget(status).label, "Ready");

    let report = watch.wait(&SettleRequest::default()).unwrap();
    assert!(report.saw_change && report.settled);
    assert_eq!(sim.widget(status).label, "Saved");
    // Clicked at t=0 (+10 ms input), label at 300, quiet 120 later.
    assert_eq!(sim.now(), ms(420));
}

#[test]
fn nothing_happening_waits_out_the_response_window() {
    let (sim, d, win) = editor();
    let dud = sim.add_widget(win, Widget::button("Does nothing"));
    let before = sim.fingerprint();
    let start = sim.now();
    let report = settle(&d, || click(&sim, &d, dud));
    assert!(!report.saw_change && report.settled);
    assert_eq!(report.waited, SettleRequest::default().response_window);
    assert_eq!(sim.now() - start, ms(410));
    // Only the pointer moved.
    assert_ne!(before, sim.fingerprint());
    assert_eq!(sim.pointer(), centre(&sim, dud));
}

#[test]
fn spinner_present_before_watch_is_ignored() {
    let (sim, d, win) = editor();
    let spinner = sim.add_widget(win, Widget::spinner());
    let name = sim.add_widget(win, Widget::entry("Name"));
    let report = settle(&d, || click(&sim, &d, name));
    assert!(report.saw_change, "focus moved");
    assert!(report.settled);
    assert_eq!(report.ignored, vec![sim.widget(spinner).bounds]);
    assert!(report.waited <= ms(200), "quiet after the focus change: {:?}", report.waited);

    let report = settle(&d, || {});
    assert!(!report.saw_change && report.settled);
}

#[test]
fn spinner_started_after_watch_keeps_settle_busy_until_the_ceiling() {
    let (sim, d, win) = editor();
    let spinner = sim.add_widget(win, Widget::spinner().hidden());
    let load = sim.add_widget(win, Widget::button("Load").on_click(Reaction::show(spinner)));
    let report = settle(&d, || click(&sim, &d, load));
    assert!(report.saw_change);
    assert!(!report.settled);
    assert_eq!(report.waited, SettleRequest::default().ceiling);
    assert!(report.ignored.is_empty());
}

#[test]
fn spinner_that_stops_lets_the_screen_settle() {
    let (sim, d, win) = editor();
    let spinner = sim.add_widget(win, Widget::spinner().hidden());
    let done = sim.add_widget(win, Widget::text("Loaded").hidden());
    let load = sim.add_widget(
        win,
        Widget::button("Load")
            .on_click(Reaction::show(spinner))
            .on_click(Reaction::hide(spinner).after(ms(800)))
            .on_click(Reaction::show(done).after(ms(800))),
    );
    let report = settle(&d, || click(&sim, &d, load));
    assert!(report.saw_change && report.settled);
    assert!(sim.widget(done).shown);
    assert_eq!(sim.now(), ms(920));
}

#[test]
fn a_spinner_that_comes_with_a_new_window_lets_the_wait_go_once_it_has_turned_a_while() {
    let sim = SimDesktop::new(SCREEN);
    let spec = WindowSpec::new("Factory", "Widget factory").widget(Widget::spinner()).widget(Widget::button("OK"));
    sim.register_app_delayed("Factory", spec, ms(300));
    let d = sim.desktop();
    let launched_at = sim.now();
    let report = settle(&d, || {
        d.windows.launch_app("factory").unwrap();
    });
    assert!(report.saw_change && report.settled, "{report:?}");
    // The window opened 300 ms after the launch; its spinner held the wait for as long again as it
    // takes to count as part of the window.
    assert_eq!(sim.now(), launched_at + ms(300) + crate::backend::BEGAN_SUSTAIN, "{report:?}");
    assert_eq!(report.began.len(), 1, "the spinner is named: {report:?}");
    assert!(report.ignored.is_empty(), "{report:?}");
    // Its turns are still changes for whoever keeps looking, and the next watch knows it from the start.
    let mut watch = d.settle.watch().unwrap();
    assert!(!watch.wait_for_change(ms(500)).unwrap(), "a running spinner is background now");
    assert_eq!(watch.wait(&SettleRequest::default()).unwrap().ignored.len(), 1);
}

#[test]
fn spinner_pixels_change_with_virtual_time() {
    let (sim, d, win) = editor();
    let spinner = sim.add_widget(win, Widget::spinner());
    let area = Some(sim.widget(spinner).bounds);
    let a = d.screen.capture(area, None).unwrap();
    sim.advance(ms(50));
    let b = d.screen.capture(area, None).unwrap();
    sim.advance(ms(50));
    let c = d.screen.capture(area, None).unwrap();
    assert_eq!(a.pixels, b.pixels);
    assert_ne!(a.pixels, c.pixels);
}

#[test]
fn wait_for_change_jumps_to_the_next_reaction() {
    let (sim, d, win) = editor();
    let status = sim.add_widget(win, Widget::text("Working"));
    let mut watch = d.settle.watch().unwrap();
    sim.schedule(ms(700), Reaction::set_label(status, "Done"));
    assert!(!watch.wait_for_change(ms(500)).unwrap());
    assert_eq!(sim.now(), ms(500));
    assert!(watch.wait_for_change(ms(500)).unwrap());
    assert_eq!(sim.now(), ms(700));
    assert_eq!(sim.widget(status).label, "Done");
    // The wait after it settles from that change instead of waiting for another one.
    let report = watch.wait(&SettleRequest::default()).unwrap();
    assert!(report.saw_change && report.settled);
    assert_eq!(report.waited, SettleRequest::default().quiet);
    // A reaction that changes nothing is not a change.
    sim.schedule(ms(100), Reaction::set_label(status, "Done"));
    assert!(!watch.wait_for_change(ms(300)).unwrap());
}

#[test]
fn typing_goes_into_the_focused_entry() {
    let (sim, d, win) = editor();
    let search = sim.add_widget(win, Widget::entry("Search"));
    let other = sim.add_widget(win, Widget::entry("Replace"));
    d.input.type_text("lost").unwrap();
    assert_eq!(sim.widget(search).value, "", "nothing focused yet");
    click(&sim, &d, search);
    d.input.type_text("héllo wörld").unwrap();
    key(&d, "backspace");
    assert_eq!(sim.widget(search).value, "héllo wörl");
    assert_eq!(sim.widget(other).value, "");
    // Triple click selects everything; typing replaces it.
    d.input.click(centre(&sim, search), MouseButton::Left, 3).unwrap();
    assert!(sim.widget(search).select_all);
    d.input.type_text("new").unwrap();
    assert_eq!(sim.widget(search).value, "new");
    ctrl(&d, "a");
    key(&d, "backspace");
    assert_eq!(sim.widget(search).value, "");
    key(&d, "x");
    assert_eq!(sim.widget(search).value, "x");
    let ax = d.accessibility.snapshot(&AxLimits::default());
    let node = ax.nodes.iter().find(|n| n.name == "Search").unwrap();
    assert_eq!(node.value.as_deref(), Some("x"));
    assert!(node.states.contains(States::EDITABLE | States::FOCUSED));
}

#[test]
fn tab_cycles_focus_and_return_activates() {
    let (sim, d, win) = editor();
    let status = sim.add_widget(win, Widget::text("-"));
    let name = sim.add_widget(win, Widget::entry("Name").on_submit(Reaction::set_label(status, "submitted")));
    let ok = sim.add_widget(win, Widget::button("OK").on_click(Reaction::set_label(status, "ok")));
    let off = sim.add_widget(win, Widget::button("Off").disabled());
    key(&d, "tab");
    assert_eq!(sim.focused(), Some(name));
    key(&d, "return");
    assert_eq!(sim.widget(status).label, "submitted");
    key(&d, "tab");
    assert_eq!(sim.focused(), Some(ok));
    key(&d, "return");
    assert_eq!(sim.widget(status).label, "ok");
    key(&d, "tab");
    assert_eq!(sim.focused(), Some(name), "disabled buttons are skipped");
    let back =
        KeyCombo { modifiers: Modifiers { shift: true, ..Modifiers::default() }, key: handrail_platform::Key::Tab };
    d.input.key(&back).unwrap();
    assert_eq!(sim.focused(), Some(ok));
    click(&sim, &d, off);
    assert_eq!(sim.focused(), Some(ok), "disabled widgets take no focus");
    assert!(sim.calls().contains(&SimCall::Key("shift+tab".into())));
}

#[test]
fn password_value_never_reaches_ax_ocr_or_pixels() {
    let (sim, d, win) = editor();
    let pw = sim.add_widget(win, Widget::password("Password"));
    sim.set_value(pw, "hunter2");
    assert_eq!(sim.widget(pw).value, "hunter2");
    let ax = d.accessibility.snapshot(&AxLimits::default());
    let node = ax.nodes.iter().find(|n| n.role == Some(Role::PasswordEntry)).unwrap();
    assert_eq!(node.value, None);
    assert!(node.states.contains(States::SECURE));
    assert!(!format!("{ax:?}").contains("hunter2"));

    let frame = d.screen.capture(None, None).unwrap();
    let lines = d.ocr.recognize(&frame, None).unwrap();
    assert!(lines.iter().any(|l| l.text == "•••••••"));
    assert!(!lines.iter().any(|l| l.text.contains("hunter")));

    // Another secret of the same length draws the same pixels.
    sim.set_value(pw, "abcdefg");
    assert_eq!(d.screen.capture(None, None).unwrap().pixels, frame.pixels);

    // Typing into it works (the engine must refuse before it gets here).
    click(&sim, &d, pw);
    d.input.type_text("!").unwrap();
    assert_eq!(sim.widget(pw).value, "abcdefg!");
}

#[test]
fn ocr_maps_into_downscaled_and_cropped_frames() {
    let (sim, d, win) = editor();
    let label = sim.add_widget(win, Widget::text("Welcome back").at(300, 200, 140, 20));
    let full = d.screen.capture(None, None).unwrap();
    let at_full = d.ocr.recognize(&full, None).unwrap();
    let line = at_full.iter().find(|l| l.text == "Welcome back").unwrap();
    // Text starts 6 px in, vertically centred: 12 chars * 7 px - 1.
    assert_eq!(line.bounds, Rect::new(306, 205, 83, 10));
    assert_eq!(line.confidence, 95.0);
    assert!(at_full.iter().any(|l| l.text == "Untitled 1 - Mousepad"));

    let half = d.screen.capture(None, Some(Size::new(640, 640))).unwrap();
    assert_eq!(half.size, Size::new(640, 400));
    assert_eq!(half.origin, Rect::from_size(SCREEN));
    let lines = d.ocr.recognize(&half, None).unwrap();
    let line = lines.iter().find(|l| l.text == "Welcome back").unwrap();
    assert_eq!(line.bounds, Rect::new(153, 102, 42, 6));

    // A region (frame coordinates) keeps only lines centred inside it.
    let only = d.ocr.recognize(&half, Some(Rect::new(140, 95, 80, 20))).unwrap();
    assert_eq!(only.iter().map(|l| l.text.as_str()).collect::<Vec<_>>(), ["Welcome back"]);

    // A crop of the screen: coordinates relative to the crop.
    let crop = d.screen.capture(Some(Rect::new(250, 150, 400, 300)), Some(Size::new(200, 200))).unwrap();
    assert_eq!(crop.size, Size::new(200, 150));
    let lines = d.ocr.recognize(&crop, None).unwrap();
    let line = lines.iter().find(|l| l.text == "Welcome back").unwrap();
    assert_eq!(line.bounds, Rect::new(28, 27, 42, 6));
    assert!(!lines.iter().any(|l| l.text.contains("Mousepad")), "title is outside the crop");

    // Too small to read under heavy downscale.
    let tiny = d.screen.capture(None, Some(Size::new(160, 100))).unwrap();
    assert!(d.ocr.recognize(&tiny, None).unwrap().is_empty());
    let _ = label;
}

#[test]
fn ocr_reads_a_frame_as_it_was_captured() {
    let (sim, d, win) = editor();
    let label = sim.add_widget(win, Widget::text("Before"));
    let before = d.screen.capture(None, None).unwrap();
    sim.set_label(label, "After");
    let after = d.screen.capture(None, None).unwrap();
    let texts = |f| d.ocr.recognize(f, None).unwrap().into_iter().map(|l| l.text).collect::<Vec<_>>();
    assert!(texts(&before).contains(&"Before".to_string()));
    assert!(texts(&after).contains(&"After".to_string()));
    assert!(!texts(&after).contains(&"Before".to_string()));
}

#[test]
fn ocr_skips_hidden_and_covered_text_and_can_be_unavailable() {
    let (sim, d, win) = editor();
    sim.add_widget(win, Widget::text("Drawn only").ocr_hidden());
    sim.add_widget(win, Widget::canvas_text("Canvas words"));
    sim.add_widget(win, Widget::text("Covered").at(120, 300, 100, 20));
    sim.add_window(WindowSpec::new("Other", "Cover").at(110, 280, 200, 100));
    let frame = d.screen.capture(None, None).unwrap();
    let texts: Vec<String> = d.ocr.recognize(&frame, None).unwrap().into_iter().map(|l| l.text).collect();
    assert!(texts.contains(&"Canvas words".to_string()));
    assert!(!texts.contains(&"Drawn only".to_string()));
    assert!(!texts.contains(&"Covered".to_string()));
    let ax = d.accessibility.snapshot(&AxLimits::default());
    assert!(ax.nodes.iter().any(|n| n.name == "Drawn only"));
    assert!(!ax.nodes.iter().any(|n| n.name == "Canvas words"));

    sim.set_ocr_available(false);
    assert!(!d.ocr.available());
    assert!(matches!(d.ocr.recognize(&frame, None), Err(PlatformError::Unavailable(_))));
}

#[test]
fn capture_pixels_change_exactly_when_the_screen_does() {
    let (sim, d, win) = editor();
    let label = sim.add_widget(win, Widget::text("Status: idle"));
    let a = d.screen.capture(None, None).unwrap();
    assert_eq!(a.size, SCREEN);
    assert_eq!(a.stride, 1280 * 4);
    assert!(a.is_consistent());
    assert_eq!(d.screen.capture(None, None).unwrap().pixels, a.pixels, "deterministic");
    sim.set_label(label, "Status: idlf");
    let b = d.screen.capture(None, None).unwrap();
    assert_ne!(a.pixels, b.pixels);
    // The changed pixels are inside the label.
    let bounds = sim.widget(label).bounds;
    for y in 0..SCREEN.height {
        for (x, (pa, pb)) in a.row(y).chunks_exact(4).zip(b.row(y).chunks_exact(4)).enumerate() {
            if pa != pb {
                assert!(bounds.contains(Point::new(x as i32, y as i32)), "changed at {x},{y}");
            }
        }
    }
    // A downscaled capture still shows the change.
    sim.set_label(label, "Status: idle");
    let small_a = d.screen.capture(None, Some(Size::new(320, 200))).unwrap();
    sim.set_label(label, "Status: idlf");
    let small_b = d.screen.capture(None, Some(Size::new(320, 200))).unwrap();
    assert_ne!(small_a.pixels, small_b.pixels);
}

#[test]
fn capture_rejects_areas_off_screen() {
    let (_sim, d, _win) = editor();
    assert!(matches!(d.screen.capture(Some(Rect::new(2000, 0, 10, 10)), None), Err(PlatformError::Invalid(_))));
    assert!(matches!(d.screen.capture(None, Some(Size::new(0, 10))), Err(PlatformError::Invalid(_))));
    let clipped = d.screen.capture(Some(Rect::new(1270, 790, 50, 50)), None).unwrap();
    assert_eq!(clipped.size, Size::new(10, 10));
    assert_eq!(clipped.origin, Rect::new(1270, 790, 10, 10));
}

#[test]
fn launching_unknown_app_lists_close_matches() {
    let sim = SimDesktop::new(SCREEN);
    sim.register_app("Mousepad", WindowSpec::new("Mousepad", "Untitled 1 - Mousepad"));
    sim.register_app("Mail", WindowSpec::new("Mail", "Inbox"));
    sim.register_app("Calculator", WindowSpec::new("Calculator", "Calculator"));
    let d = sim.desktop();
    match d.windows.launch_app("mousepd") {
        Err(PlatformError::NotFound(msg)) => {
            assert!(msg.contains("Mousepad"), "{msg}");
            assert!(!msg.contains("Calculator"), "{msg}");
        }
        other => panic!("expected NotFound, got {other:?}"),
    }
    match d.windows.launch_app("calc") {
        Err(PlatformError::NotFound(msg)) => assert!(msg.contains("Calculator"), "{msg}"),
        other => panic!("expected NotFound, got {other:?}"),
    }
    match d.windows.launch_app("zzzzzzzz") {
        Err(PlatformError::NotFound(msg)) => assert!(msg.contains("no close matches"), "{msg}"),
        other => panic!("expected NotFound, got {other:?}"),
    }
    assert!(sim.windows().is_empty());

    let launched = d.windows.launch_app("mousepad").unwrap();
    assert_eq!(launched.app, "Mousepad");
    assert!(launched.pid.is_some());
    assert_eq!(sim.frontmost_title().as_deref(), Some("Untitled 1 - Mousepad"));
    d.windows.launch_app("Mail").unwrap();
    assert_eq!(sim.frontmost_app().as_deref(), Some("Mail"));
    // A second launch raises the running instance.
    d.windows.launch_app("Mousepad").unwrap();
    assert_eq!(sim.windows().len(), 2);
    assert_eq!(sim.frontmost_app().as_deref(), Some("Mousepad"));
    let info = d.windows.frontmost().unwrap().unwrap();
    assert_eq!(info.app, "Mousepad");
}

#[test]
fn delayed_launch_appears_during_settle() {
    let sim = SimDesktop::new(SCREEN);
    sim.register_app_delayed("Slow", WindowSpec::new("Slow", "Slow app"), ms(250));
    let d = sim.desktop();
    let mut watch = d.settle.watch().unwrap();
    let launched = d.windows.launch_app("slow").unwrap();
    assert_eq!(launched.pid, None);
    assert_eq!(sim.frontmost_title(), None);
    let report = watch.wait(&SettleRequest::default()).unwrap();
    assert!(report.saw_change && report.settled);
    assert_eq!(sim.frontmost_title().as_deref(), Some("Slow app"));
}

#[test]
fn open_url_opens_then_reuses_the_browser() {
    let sim = SimDesktop::new(SCREEN);
    let d = sim.desktop();
    let first = d.windows.open_url("https://example.com/").unwrap();
    assert_eq!(first.app, "Browser");
    assert!(sim.frontmost_title().unwrap().contains("https://example.com/"));
    let editor = sim.add_window(WindowSpec::new("Mousepad", "notes"));
    assert!(sim.window(editor).frontmost);
    d.windows.open_url("https://example.org/x").unwrap();
    assert_eq!(sim.windows().len(), 2);
    assert!(sim.frontmost_title().unwrap().contains("https://example.org/x"));
    assert_eq!(sim.opened_urls(), ["https://example.com/", "https://example.org/x"]);
    let address = sim.find("address").unwrap();
    assert_eq!(sim.widget(address).value, "https://example.org/x");
}

#[test]
fn fingerprint_is_unchanged_by_pure_reads() {
    let (sim, d, win) = editor();
    let pw = sim.add_widget(win, Widget::password("Password").focused());
    sim.set_value(pw, "secret");
    sim.add_widget(win, Widget::spinner());
    sim.add_widget(win, Widget::list("Files", ["a", "b", "c"]));
    let before = sim.fingerprint();
    let frame = d.screen.capture(None, Some(Size::new(640, 400))).unwrap();
    d.screen.screen_size().unwrap();
    d.ocr.recognize(&frame, None).unwrap();
    d.accessibility.snapshot(&AxLimits::default());
    d.windows.frontmost().unwrap();
    d.encoder.encode(&frame).unwrap();
    d.clock.now();
    let report = settle(&d, || {});
    assert!(!report.saw_change);
    assert_eq!(sim.fingerprint(), before);
    assert_eq!(sim.side_effects(), 0);
    assert_ne!(sim.now(), Duration::ZERO, "the wait did pass virtual time");

    // Any real change moves it.
    sim.set_value(pw, "secreT");
    assert_ne!(sim.fingerprint(), before);
}

#[test]
fn input_off_screen_is_invalid_and_changes_nothing() {
    let (sim, d, win) = editor();
    sim.add_widget(win, Widget::button("Save"));
    let before = sim.fingerprint();
    let t0 = sim.now();
    let off = Point::new(1280, 10);
    assert!(matches!(d.input.click(off, MouseButton::Left, 1), Err(PlatformError::Invalid(_))));
    assert!(matches!(d.input.move_pointer(Point::new(-1, 0)), Err(PlatformError::Invalid(_))));
    assert!(matches!(d.input.drag(Point::new(5, 5), off), Err(PlatformError::Invalid(_))));
    assert!(matches!(d.input.scroll(Some(off), ScrollDirection::Down, 1), Err(PlatformError::Invalid(_))));
    assert_eq!(sim.fingerprint(), before);
    assert_eq!(sim.now(), t0);
    assert_eq!(sim.side_effects(), 4, "attempts are counted");
    // Clicking the bare desktop is fine and does nothing but move the pointer.
    d.input.click(Point::new(5, 5), MouseButton::Left, 1).unwrap();
    assert_eq!(sim.pointer(), Point::new(5, 5));
}

#[test]
fn call_log_and_side_effects() {
    let (sim, d, win) = editor();
    let b = sim.add_widget(win, Widget::button("Go"));
    let frame = d.screen.capture(None, None).unwrap();
    d.ocr.recognize(&frame, Some(Rect::new(0, 0, 10, 10))).unwrap();
    click(&sim, &d, b);
    d.input.type_text("hi").unwrap();
    d.windows.launch_app("nope").unwrap_err();
    assert_eq!(
        sim.calls(),
        vec![
            SimCall::Capture { area: None, max_size: None },
            SimCall::Ocr { region: Some(Rect::new(0, 0, 10, 10)) },
            SimCall::Click { at: centre(&sim, b), button: MouseButton::Left, count: 1 },
            SimCall::TypeText("hi".into()),
            SimCall::LaunchApp("nope".into()),
        ]
    );
    assert_eq!(sim.side_effects(), 3);
    sim.clear_calls();
    assert!(sim.calls().is_empty());
}

#[test]
fn clicking_a_background_window_raises_it() {
    let (sim, d, win) = editor();
    let other = sim.add_window(WindowSpec::new("Terminal", "bash").at(400, 300, 600, 400));
    assert_eq!(sim.frontmost_title().as_deref(), Some("bash"));
    let report = settle(&d, || d.input.click(Point::new(150, 150), MouseButton::Left, 1).unwrap());
    assert!(report.saw_change);
    assert!(sim.window(win).frontmost);
    assert!(!sim.window(other).frontmost);
}

#[test]
fn dialogs_open_and_close_themselves() {
    let (sim, d, win) = editor();
    let status = sim.add_widget(win, Widget::text("unsaved"));
    let dialog = WindowSpec::dialog("Mousepad", "Save As")
        .at(300, 250, 300, 150)
        .widget(Widget::entry("File name").key("name").focused())
        .widget(
            Widget::button("Save")
                .on_click(Reaction::set_label(status, "saved"))
                .on_click(Reaction::close_this_window()),
        )
        .widget(Widget::button("Cancel").on_click(Reaction::close_this_window()));
    let save_as = sim.add_widget(win, Widget::button("Save As…").on_click(Reaction::open_window(dialog)));

    click(&sim, &d, save_as);
    assert_eq!(sim.frontmost_title().as_deref(), Some("Save As"));
    let ax = d.accessibility.snapshot(&AxLimits::default());
    assert_eq!(ax.nodes[0].role, Some(Role::Dialog));
    let name = sim.find("name").unwrap();
    assert_eq!(sim.focused(), Some(name));
    d.input.type_text("notes.txt").unwrap();
    assert_eq!(sim.widget(name).value, "notes.txt");
    let save = sim.find("Save").unwrap();
    assert_ne!(sim.widget(save).window, win, "the dialog's Save is found first");
    click(&sim, &d, save);
    assert_eq!(sim.widget(status).label, "saved");
    assert_eq!(sim.frontmost_title().as_deref(), Some("Untitled 1 - Mousepad"));
    assert!(!sim.widget(name).shown);

    // Escape closes a dialog too.
    click(&sim, &d, save_as);
    key(&d, "escape");
    assert_eq!(sim.windows().len(), 1);
}

#[test]
fn right_click_context_menu() {
    let (sim, d, win) = editor();
    let text = sim.add_widget(win, Widget::text("some text"));
    let menu = WindowSpec::popup("Mousepad", Rect::new(200, 200, 120, 60))
        .widget(Widget::menu_item("Copy").at(201, 201, 118, 24).on_click(Reaction::set_label(text, "copied")))
        .widget(Widget::menu_item("Paste").at(201, 225, 118, 24));
    let target = sim.add_widget(win, Widget::text("Right click me").on_right_click(Reaction::open_window(menu)));
    d.input.click(centre(&sim, target), MouseButton::Right, 1).unwrap();
    assert_eq!(sim.windows().len(), 2);
    assert_eq!(sim.frontmost_title().as_deref(), Some("Untitled 1 - Mousepad"), "popups are never frontmost");
    let copy = sim.find("Copy").unwrap();
    click(&sim, &d, copy);
    assert_eq!(sim.widget(text).label, "copied");
    assert_eq!(sim.windows().len(), 1, "activating an item closes the menu");

    // A click outside a popup only dismisses it.
    d.input.click(centre(&sim, target), MouseButton::Right, 1).unwrap();
    let status = sim.widget(text).label;
    d.input.click(centre(&sim, target), MouseButton::Left, 1).unwrap();
    assert_eq!(sim.windows().len(), 1);
    assert_eq!(sim.widget(text).label, status);
    assert!(sim.calls().contains(&SimCall::Click { at: centre(&sim, target), button: MouseButton::Right, count: 1 }));
}

#[test]
fn double_click_runs_double_click_reactions() {
    let (sim, d, win) = editor();
    let status = sim.add_widget(win, Widget::text("closed"));
    let file =
        sim.add_widget(win, Widget::list_item("report.pdf").on_double_click(Reaction::set_label(status, "open")));
    click(&sim, &d, file);
    assert_eq!(sim.widget(status).label, "closed");
    assert!(sim.widget(file).selected);
    d.input.click(centre(&sim, file), MouseButton::Left, 2).unwrap();
    assert_eq!(sim.widget(status).label, "open");
}

#[test]
fn tabs_select_exclusively() {
    let (sim, d, win) = editor();
    let a = sim.add_widget(win, Widget::tab("General").selected());
    let b = sim.add_widget(win, Widget::tab("Advanced"));
    click(&sim, &d, b);
    assert!(!sim.widget(a).selected && sim.widget(b).selected);
    let ax = d.accessibility.snapshot(&AxLimits::default());
    let node = ax.nodes.iter().find(|n| n.name == "Advanced").unwrap();
    assert!(node.states.contains(States::SELECTED));
}

#[test]
fn drag_moves_draggable_widgets_onto_drop_targets() {
    let (sim, d, win) = editor();
    let status = sim.add_widget(win, Widget::text("full"));
    let bin =
        sim.add_widget(win, Widget::button("Bin").at(500, 400, 80, 60).on_drop(Reaction::set_label(status, "dropped")));
    let file = sim.add_widget(win, Widget::list_item("old.txt").at(150, 200, 100, 24).draggable());
    let fixed = sim.add_widget(win, Widget::button("Fixed").at(150, 300, 100, 24));
    d.input.drag(centre(&sim, file), Point::new(540, 430)).unwrap();
    assert_eq!(sim.widget(file).bounds.center(), Point::new(540, 430));
    assert_eq!(sim.widget(status).label, "dropped");
    assert_eq!(sim.pointer(), Point::new(540, 430));
    let before = sim.widget(fixed).bounds;
    d.input.drag(centre(&sim, fixed), Point::new(300, 300)).unwrap();
    assert_eq!(sim.widget(fixed).bounds, before);
    let _ = bin;
}

#[test]
fn scrolling_a_list_shifts_its_items() {
    let (sim, d, win) = editor();
    let items: Vec<String> = (1..=20).map(|i| format!("Item {i}")).collect();
    let list = sim.add_widget(win, Widget::list("Files", items).at(120, 140, 200, 96));
    let visible = |d: &Desktop| {
        let ax = d.accessibility.snapshot(&AxLimits::default());
        ax.nodes.iter().filter(|n| n.role == Some(Role::ListItem)).map(|n| n.name.clone()).collect::<Vec<_>>()
    };
    assert_eq!(visible(&d), ["Item 1", "Item 2", "Item 3", "Item 4"]);
    let report = settle(&d, || d.input.scroll(Some(centre(&sim, list)), ScrollDirection::Down, 3).unwrap());
    assert!(report.saw_change);
    assert_eq!(sim.widget(list).offset, 3);
    assert_eq!(visible(&d), ["Item 4", "Item 5", "Item 6", "Item 7"]);
    d.input.scroll(None, ScrollDirection::Down, 100).unwrap();
    assert_eq!(sim.widget(list).offset, 16, "clamped to the last page");
    d.input.scroll(None, ScrollDirection::Up, 1).unwrap();
    assert_eq!(sim.widget(list).offset, 15);
    // OCR sees the rows that are visible.
    let frame = d.screen.capture(None, None).unwrap();
    let texts: Vec<String> = d.ocr.recognize(&frame, None).unwrap().into_iter().map(|l| l.text).collect();
    assert!(texts.contains(&"Item 16".to_string()) && !texts.contains(&"Item 1".to_string()));
    // Clicking a row selects it.
    d.input.click(Point::new(150, 140 + 24 + 5), MouseButton::Left, 1).unwrap();
    assert_eq!(sim.widget(list).selected_row, Some(16));
    // Scrolling over something else does nothing.
    let before = sim.fingerprint();
    d.input.scroll(Some(Point::new(650, 450)), ScrollDirection::Down, 1).unwrap();
    sim.advance(Duration::ZERO);
    assert_ne!(before, sim.fingerprint(), "the pointer moved");
    assert_eq!(sim.widget(list).offset, 15);
}

#[test]
fn hover_runs_hover_reactions_once() {
    let (sim, d, win) = editor();
    let tip = sim.add_widget(win, Widget::text("Saves the file").hidden());
    let save = sim.add_widget(
        win,
        Widget::button("Save").on_hover(Reaction::show(tip)).on_hover(Reaction::hide(tip).after(ms(2000))),
    );
    d.input.move_pointer(centre(&sim, save)).unwrap();
    assert!(sim.widget(tip).shown);
    sim.advance(ms(2000));
    assert!(!sim.widget(tip).shown);
    let c = centre(&sim, save);
    d.input.move_pointer(Point::new(c.x + 1, c.y)).unwrap();
    assert!(!sim.widget(tip).shown, "still hovering: no new hover");
}

#[test]
fn window_shortcuts_run_reactions() {
    let sim = SimDesktop::new(SCREEN);
    let title = "Untitled 1 - Mousepad";
    let win = sim.add_window(
        WindowSpec::new("Mousepad", format!("*{title}")).on_key("Ctrl+S", Reaction::set_title(WindowRef::This, title)),
    );
    let d = sim.desktop();
    ctrl(&d, "s");
    assert_eq!(sim.window(win).title, title);
}

#[test]
fn moved_and_disabled_widgets() {
    let (sim, d, win) = editor();
    let status = sim.add_widget(win, Widget::text("-"));
    let target =
        sim.add_widget(win, Widget::button("Jumpy").at(150, 150, 80, 24).on_click(Reaction::set_label(status, "hit")));
    let old = centre(&sim, target);
    sim.move_widget(target, Rect::new(400, 300, 80, 24));
    click_at(&d, old);
    assert_eq!(sim.widget(status).label, "-");
    sim.set_enabled(target, false);
    click(&sim, &d, target);
    assert_eq!(sim.widget(status).label, "-");
    let ax = d.accessibility.snapshot(&AxLimits::default());
    assert!(ax.nodes.iter().find(|n| n.name == "Jumpy").unwrap().states.contains(States::DISABLED));
    sim.set_enabled(target, true);
    click(&sim, &d, target);
    assert_eq!(sim.widget(status).label, "hit");
}

fn click_at(d: &Desktop, p: Point) {
    d.input.click(p, MouseButton::Left, 1).unwrap();
}

#[test]
fn accessibility_health_modes() {
    let (sim, d, win) = editor();
    sim.add_widget(win, Widget::button("Save"));
    let other = sim.add_window(WindowSpec::new("Terminal", "bash").at(700, 100, 400, 300));
    sim.add_widget(other, Widget::button("Run"));
    let limits = AxLimits::default();
    let ok = d.accessibility.snapshot(&limits);
    assert_eq!(ok.health, AxHealth::Ok);
    assert_eq!(ok.nodes.len(), 4);
    assert_eq!(ok.nodes[0].name, "bash", "front window first");
    assert_eq!(ok.nodes[1].parent, Some(0));
    assert_eq!(ok.nodes[1].app, "Terminal");
    assert_eq!(ok.nodes[3].parent, Some(2));
    assert_eq!(ok.nodes[3].actions, ["click"]);
    assert_eq!(ok.nodes[3].native_role, "push button");

    sim.set_ax_health(AxHealth::Partial);
    let partial = d.accessibility.snapshot(&limits);
    assert_eq!(partial.health, AxHealth::Partial);
    assert!(partial.nodes.iter().all(|n| n.app == "Mousepad"), "the frontmost app is missing");
    sim.set_ax_missing_app(Some("Mousepad"));
    assert!(d.accessibility.snapshot(&limits).nodes.iter().all(|n| n.app == "Terminal"));

    sim.set_ax_health(AxHealth::Unavailable);
    let none = d.accessibility.snapshot(&limits);
    assert_eq!(none.health, AxHealth::Unavailable);
    assert!(none.nodes.is_empty());
    sim.set_ax_health(AxHealth::PermissionRequired);
    assert_eq!(d.accessibility.snapshot(&limits).health, AxHealth::PermissionRequired);

    sim.set_ax_health(AxHealth::Ok);
    let capped = d.accessibility.snapshot(&AxLimits { max_nodes: 3, ..limits });
    assert_eq!(capped.health, AxHealth::Partial);
    assert_eq!(capped.nodes.len(), 3);
}

#[test]
fn encoder_writes_pgm() {
    let (sim, d, _win) = editor();
    let frame = d.screen.capture(None, Some(Size::new(320, 320))).unwrap();
    let img = d.encoder.encode(&frame).unwrap();
    assert_eq!(img.mime, "image/x-portable-graymap");
    assert_eq!(img.size, Size::new(320, 200));
    let header = b"P5\n320 200\n255\n";
    assert!(img.bytes.starts_with(header));
    assert_eq!(img.bytes.len(), header.len() + 320 * 200);
    let small = PgmEncoder::fit_within(Size::new(64, 64)).encode(&frame).unwrap();
    assert_eq!(small.size, Size::new(64, 40));
    assert!(sim.calls().contains(&SimCall::Encode));
}

#[test]
fn virtual_time_moves_only_when_told() {
    let (sim, d, win) = editor();
    let b = sim.add_widget(win, Widget::button("Go"));
    assert_eq!(d.clock.now(), Duration::ZERO);
    d.screen.capture(None, None).unwrap();
    d.accessibility.snapshot(&AxLimits::default());
    assert_eq!(d.clock.now(), Duration::ZERO);
    click(&sim, &d, b);
    key(&d, "a");
    assert_eq!(d.clock.now(), ms(20));
    sim.advance(ms(5));
    assert_eq!(sim.now(), ms(25));
}

#[test]
fn full_screen_capture_is_fast_enough() {
    let (sim, d, win) = editor();
    for i in 0..40 {
        sim.add_widget(
            win,
            Widget::button(format!("Button number {i}")).at(110 + (i % 4) * 140, 130 + (i / 4) * 30, 130, 24),
        );
    }
    let start = std::time::Instant::now();
    for _ in 0..5 {
        let frame = d.screen.capture(None, Some(Size::new(1280, 1280))).unwrap();
        d.ocr.recognize(&frame, None).unwrap();
    }
    // Generous: a debug build on a slow CI core.
    assert!(start.elapsed() < Duration::from_secs(5), "{:?}", start.elapsed());
}

#[test]
fn the_clock_stays_virtual_unless_told_to_follow_the_wall() {
    let (_sim, d, _) = editor();
    std::thread::sleep(ms(30));
    assert_eq!(d.clock.now(), Duration::ZERO, "real time does not count by default");
}

#[test]
fn a_clock_following_the_wall_adds_real_time_and_applies_what_falls_due() {
    let (sim, d, win) = editor();
    let status = sim.add_widget(win, Widget::text("Waiting"));
    sim.schedule(ms(40), Reaction::set_label(status, "Due"));
    // Virtual jumps still count: a wait moved time to 10 ms before the wall is followed.
    sim.advance(ms(10));
    // Taken before the clock's own anchor, so it bounds the real time the clock can have counted.
    let wall = std::time::Instant::now();
    sim.follow_wall_clock();
    std::thread::sleep(ms(60));
    let now = d.clock.now();
    let slept = wall.elapsed();
    assert!(now >= ms(70), "virtual 10 ms + at least 60 ms of real time, got {now:?}");
    assert!(now <= ms(10) + slept, "no more than the real time passed, got {now:?} after {slept:?}");
    assert_eq!(sim.widget(status).label, "Due", "the reaction due at 40 ms was applied");
    // Monotonic, and the real time between readings is not counted twice.
    let again = d.clock.now();
    let total = wall.elapsed();
    assert!(again >= now && again <= ms(10) + total, "{now:?} then {again:?} after {total:?}");
}

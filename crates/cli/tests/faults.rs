//! Faults from outside, injected into real components while handrail works: the accessibility bus
//! killed in the middle of a walk, an app stopped with SIGSTOP, the X server killed, Chromium killed
//! while `open_url` waits for it, the trace's disk filled up, a client that goes away in the middle of
//! a call, and SIGTERM while an action is sending input. For each: what the caller hears, that nothing
//! hangs, that nothing stays held down (as the X server itself says) and that nothing is left running.
//!
//! Every test starts its own private desktop, one at a time (`SERIAL`).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use handrail_core::{Config, Engine, RawArgs, Vision};
use handrail_platform::{AxLimits, CANCEL_CHECK_EVERY};
use handrail_sandbox::{marked_processes, Sandbox};
use handrail_testkit::mcp::{McpHttp, Message, Protocol, Reply};
use handrail_testkit::served::{signal_pid, Served};
use handrail_testkit::{wait_until, LineApp};

use common::desktop_with_probe;
use common::tools::probe_app;
use serde_json::{json, Value};

static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn handrail() -> &'static str {
    env!("CARGO_BIN_EXE_handrail")
}

/// Ends a test on a sandbox it owns: the client leaves, the server stops cleanly on SIGTERM, then the
/// app and the sandbox go.
fn stop_all(client: McpHttp, served: Served, app: LineApp, sandbox: Sandbox) {
    drop(client);
    let status = served.stop();
    assert!(status.success(), "serve stops cleanly: {status}");
    drop(app);
    sandbox.stop().expect("sandbox stops");
}

/// `handrail serve` on the display of a sandbox the test owns.
fn serve_on(sandbox: &Sandbox, extra: &[&str]) -> Served {
    let display = sandbox.display();
    let mut args = vec!["--display", display.as_str(), "--vision", "yes"];
    args.extend_from_slice(extra);
    Served::start(handrail(), &args, &sandbox.env())
}

fn client(served: &Served, protocol: Protocol) -> McpHttp {
    McpHttp::connect(&served.url, protocol, Duration::from_secs(120)).expect("an MCP session")
}

fn computer(client: &mut McpHttp, args: Value) -> Reply {
    client.call_tool("computer", args, json!({})).expect("the server answers")
}

/// What the X server reports held down on `display`.
fn held_down(display: &str) -> handrail_x11::HeldDown {
    let conn = handrail_x11::Conn::open(display).expect("the sandbox's X server");
    handrail_x11::held_down(&conn).expect("the X server answers")
}

/// Looks (`see`) until `want` holds for the text of a result; panics after 20 s with the last one.
fn see_until(client: &mut McpHttp, want: impl Fn(&str) -> bool) -> String {
    let mut last = String::new();
    let found = wait_until(Duration::from_secs(20), Duration::from_millis(200), || {
        last = computer(client, json!({"action": "see"})).text();
        want(&last).then(|| last.clone())
    });
    found.unwrap_or_else(|| panic!("never seen; the last look:\n{last}"))
}

/// A drag from the probe app's Name entry onto its "Does nothing" button, by the element ids of a
/// fresh look (their words alone are ambiguous: OCR also reads the entry's caption).
fn drag_args(client: &mut McpHttp) -> Value {
    let see = computer(client, json!({"action": "see"}));
    let obs = &see.structured()["observation"];
    let id = |role: &str, label: &str| {
        obs["elements"]
            .as_array()
            .and_then(|els| els.iter().find(|e| e["role"] == role && e["label"] == label))
            .map(|e| e["id"].clone())
            .unwrap_or_else(|| panic!("no {role} {label:?} in {}", see.text()))
    };
    json!({
        "action": "drag",
        "observation_id": obs["id"],
        "element_id": id("entry", "Name"),
        "to_element_id": id("button", "Does nothing"),
    })
}

/// Processes of the sandbox a serve process started (`--sandbox`), by its marker id.
fn sandbox_processes(root: &Path) -> Vec<u32> {
    let name = root.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    marked_processes(name.trim_start_matches("handrail-sandbox-"))
}

fn cmdline(pid: u32) -> String {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
        .unwrap_or_default()
}

/// Whether `app_pid` has bytes waiting unread on its connection to the accessibility bus run by
/// `bus_pid`: a call of the walk that the (stopped) app cannot answer. Read from the kernel's socket
/// table (`ss`), which lists each end's inode and its peer's.
fn unanswered_a11y_call(app_pid: u32, bus_pid: u32) -> bool {
    let Ok(out) = Command::new("ss").args(["-x", "-p", "-n"]).output() else { return false };
    let table = String::from_utf8_lossy(&out.stdout);
    let rows: Vec<Vec<&str>> = table.lines().map(|l| l.split_whitespace().collect()).collect();
    let owned_by = |row: &Vec<&str>, pid: u32| row.iter().any(|c| c.contains(&format!("pid={pid},")));
    let bus_ends: Vec<&str> = rows.iter().filter(|r| r.len() > 7 && owned_by(r, bus_pid)).map(|r| r[5]).collect();
    rows.iter().any(|r| {
        r.len() > 7 && owned_by(r, app_pid) && bus_ends.contains(&r[7]) && r[2].parse::<u64>().is_ok_and(|q| q > 0)
    })
}

/// Resumes a stopped process when dropped, even if the test fails.
struct Resume(u32);

impl Drop for Resume {
    fn drop(&mut self) {
        signal_pid(self.0, "CONT");
    }
}

/// The accessibility bus dies while a walk waits on an app: that look is `ax=unavailable` (at once,
/// not after the walk's timeout), and the next one reconnects to the bus the session bus starts again
/// on demand — the app in front, left on the dead bus, is said to be missing from the tree, and an app
/// started afterwards is read through the new one.
#[test]
fn the_accessibility_bus_dying_mid_walk_is_unavailable_and_the_next_call_recovers() {
    let _serial = serial();
    let (sandbox, app) = desktop_with_probe();
    let desktop = common::accessible_desktop(&sandbox, common::sandbox_launch(&sandbox));
    // A walk that waits long on a silent app, so the bus surely dies while it waits.
    let ax_limits =
        AxLimits { max_nodes: 4000, call_timeout: Duration::from_secs(30), deadline: Duration::from_secs(40) };
    let mut engine = Engine::new(desktop, Config { vision: Vision::Capable, ax_limits, ..Config::default() });
    let see = RawArgs::from_pairs(&[("action", "see")]).expect("args");
    let first = engine.call_args(&see).text();
    assert!(first.contains("ax=ok") && first.contains("button \"Change\""), "{first}");

    let app_pid = app.pid();
    let bus_pid = sandbox
        .processes()
        .into_iter()
        .find(|&p| cmdline(p).contains("accessibility.conf"))
        .expect("the accessibility bus's dbus-daemon");
    signal_pid(app_pid, "STOP");
    let resume = Resume(app_pid);
    let looking = std::thread::spawn(move || {
        let started = Instant::now();
        let text = engine.call_args(&see).text();
        (engine, text, started.elapsed())
    });
    let waiting = wait_until(Duration::from_secs(20), Duration::from_millis(5), || {
        unanswered_a11y_call(app_pid, bus_pid).then_some(())
    });
    assert!(waiting.is_some(), "the walk reached the stopped app");
    signal_pid(bus_pid, "KILL");
    let (mut engine, during, took) = looking.join().expect("the look returns");
    assert!(during.contains("ax=unavailable"), "{during}");
    assert!(took < Duration::from_secs(10), "the dead bus ended the walk at once, not its 30 s timeout: {took:?}");
    eprintln!("the look during which the bus died took {took:?}");
    drop(resume);

    // Each look asks the session bus for the accessibility bus again, and the bus launcher starts a new
    // one; until it is up, looks say `ax=unavailable` (a fresh answer each time, never a hang).
    let see = RawArgs::from_pairs(&[("action", "see")]).expect("args");
    let mut looks = 0;
    let mut last = String::new();
    let back = wait_until(Duration::from_secs(15), Duration::from_millis(100), || {
        looks += 1;
        last = engine.call_args(&see).text();
        assert!(["ax=ok", "ax=partial", "ax=unavailable"].iter().any(|h| last.contains(h)), "{last}");
        (!last.contains("ax=unavailable")).then_some(())
    });
    assert!(back.is_some(), "a look is back on a bus within 15 s; the last of {looks}: {last}");
    eprintln!("back on a bus at look {looks} after the bus died");
    // The app in front joined the bus that died, not the new one: its window is not in the tree, and
    // the header says so, naming it, instead of `ax=ok` over a list of screen text.
    assert!(last.contains("ax=partial"), "{last}");
    assert!(last.contains("ax: Probe_gtk.py: the window in front is not in the accessibility tree"), "{last}");
    let mut command = sandbox.command("/usr/bin/python3");
    command.arg(probe_app());
    let mut second = LineApp::spawn(command);
    assert!(second.wait_for(|l| l == "ready").is_some());
    let listed = wait_until(Duration::from_secs(20), Duration::from_millis(200), || {
        let text = engine.call_args(&see).text();
        (text.contains("ax=ok") && text.contains("button \"Change\"")).then_some(text)
    });
    assert!(listed.is_some(), "an app started after the bus came back is read through it");
    drop((engine, app, second));
    sandbox.stop().expect("sandbox stops");
}

/// A stopped app cannot hang a call: the look is `ax=partial` within the walk's bound, an action
/// aimed at the app returns too, and once it runs again the tree is whole again.
#[test]
fn a_stopped_app_gives_partial_within_the_bound_and_never_a_hang() {
    let _serial = serial();
    let (sandbox, app) = desktop_with_probe();
    let served = serve_on(&sandbox, &[]);
    let mut c = client(&served, Protocol::Sessions);
    see_until(&mut c, |t| t.contains("ax=ok") && t.contains("button \"Change\""));

    signal_pid(app.pid(), "STOP");
    let resume = Resume(app.pid());
    // The walk's deadline is 1.5 s (AxLimits::default); capture, OCR and settling come on top.
    let bound = AxLimits::default().deadline + Duration::from_secs(6);
    for args in [json!({"action": "see"}), json!({"action": "click", "target_text": "Change"})] {
        let started = Instant::now();
        let reply = computer(&mut c, args.clone());
        let took = started.elapsed();
        assert!(took < bound, "{args} took {took:?}");
        let structured = reply.structured();
        assert_eq!(structured["observation"]["ax"], "partial", "{args}: {}", reply.text());
        eprintln!("{args} with the app stopped: {took:?}");
    }
    drop(resume);
    see_until(&mut c, |t| t.contains("ax=ok") && t.contains("button \"Change\""));
    stop_all(c, served, app, sandbox);
}

/// The X server of `--sandbox` is killed: every call says plainly that the X server is gone, the
/// server keeps answering MCP, says on stderr that its desktop is gone, and still stops cleanly,
/// leaving nothing of the sandbox behind.
#[test]
fn the_x_server_dying_fails_every_call_clearly_and_the_server_keeps_answering() {
    let _serial = serial();
    let app = probe_app();
    let served = Served::start(handrail(), &["--sandbox", "--vision", "yes", "--", "/usr/bin/python3", &app], &[]);
    let mut c = client(&served, Protocol::Stateless);
    see_until(&mut c, |t| t.contains("button \"Change\""));
    let display = served.sandbox_display().expect("the sandbox's display");
    let root = served.sandbox_root().expect("the sandbox's root");
    let lock = format!("/tmp/.X{}-lock", display.trim_start_matches(':'));
    let xvfb: u32 = std::fs::read_to_string(&lock).expect("the X lock").trim().parse().expect("a pid");
    signal_pid(xvfb, "KILL");
    let said = served.wait_for_log(Duration::from_secs(10), |l| l.contains("private desktop") && l.contains("is gone"));
    let said = said.unwrap_or_else(|| panic!("serve says the desktop is gone:\n{}", served.log().join("\n")));
    assert!(said.contains(&format!("private desktop {display} is gone: its X server (Xvfb) exited")), "{said}");
    assert!(said.contains("killed by signal 9"), "{said}");
    eprintln!("serve said: {said}");

    let calls = [
        json!({"action": "see"}),
        json!({"action": "click", "target_text": "Change"}),
        json!({"action": "key", "keys": "ctrl+a"}),
        json!({"action": "type", "text": "hello"}),
        json!({"action": "scroll", "direction": "down"}),
        json!({"action": "open_app", "app": "xterm"}),
        json!({"action": "open_url", "url": "http://127.0.0.1:9/"}),
    ];
    for args in calls {
        let started = Instant::now();
        let reply = computer(&mut c, args.clone());
        assert!(started.elapsed() < Duration::from_secs(10), "{args} took {:?}", started.elapsed());
        let text = reply.text();
        assert!(text.starts_with("[error]") && text.contains("the X server is gone"), "{args}: {text}");
        assert_eq!(reply.structured()["reason"], "desktop_failed", "{args}");
        eprintln!("{args}: {}", text.lines().take(2).collect::<Vec<_>>().join(" | "));
    }
    // MCP itself keeps answering: the tool list, and read_image (which needs no desktop).
    let tools = c.request("tools/list", json!({})).expect("tools/list");
    assert!(tools.raw().contains("\"computer\""), "{}", tools.raw());
    let image = c.call_tool("read_image", json!({"path": "/nonexistent.png"}), json!({})).expect("read_image");
    assert!(image.text().starts_with("[error]"), "{}", image.text());
    drop(c);

    let status = served.stop();
    assert!(status.success(), "serve stops cleanly: {status}");
    let left = wait_until(Duration::from_secs(10), Duration::from_millis(50), || {
        (sandbox_processes(&root).is_empty() && !root.exists()).then_some(())
    });
    assert!(left.is_some(), "the sandbox is gone: {:?}", sandbox_processes(&root));
}

/// Chromium is killed while `open_url` waits for its window: the call says the browser exited,
/// nothing of it is left running, and the next `open_url` starts a fresh one.
#[test]
fn chromium_crashing_during_open_url_is_an_error_and_the_next_open_url_works() {
    let _serial = serial();
    let page = handrail_testkit::serve_page(
        "<!doctype html><title>Crash test page</title><h1>Crash test page</h1><p>served for the fault test</p>",
    );
    let served = Served::start(handrail(), &["--sandbox", "--vision", "yes"], &[]);
    let root = served.sandbox_root().expect("the sandbox's root");
    let mut c = client(&served, Protocol::Sessions);
    let browsers = || -> Vec<u32> {
        sandbox_processes(&root)
            .into_iter()
            .filter(|&p| std::fs::read_to_string(format!("/proc/{p}/comm")).is_ok_and(|c| c.starts_with("chromium")))
            .collect()
    };
    let pending = c
        .start_call("computer", json!({"action": "open_url", "url": page}), json!({}), false)
        .expect("open_url is sent");
    let browser = wait_until(Duration::from_secs(30), Duration::from_millis(2), || browsers().first().copied());
    let browser = browser.expect("Chromium started");
    signal_pid(browser, "KILL");
    let started = Instant::now();
    let reply = pending.answer().expect("open_url answers");
    assert!(started.elapsed() < Duration::from_secs(30), "open_url took {:?} after the crash", started.elapsed());
    let text = reply.text();
    assert!(text.starts_with("[error]") && text.contains("exited"), "{text}");
    let gone = wait_until(Duration::from_secs(15), Duration::from_millis(50), || browsers().is_empty().then_some(()));
    assert!(gone.is_some(), "no Chromium process is left: {:?}", browsers());

    let again = computer(&mut c, json!({"action": "open_url", "url": page, "expect": "window:Crash test page"}));
    assert!(again.text().starts_with("[ok"), "{}", again.text());
    drop(c);
    assert!(served.stop().success());
    assert!(sandbox_processes(&root).is_empty());
}

/// A tmpfs of `size` mounted at a fresh directory, unmounted when dropped. None where this process
/// may not mount (not root, no CAP_SYS_ADMIN).
struct SmallDisk(PathBuf);

impl SmallDisk {
    fn mount(size: &str) -> Option<SmallDisk> {
        let dir = std::env::temp_dir().join(format!("handrail-small-disk-{}", std::process::id()));
        std::fs::create_dir_all(&dir).ok()?;
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size},mode=700"), "handrail-test", dir.to_str()?])
            .status()
            .is_ok_and(|s| s.success());
        if !mounted {
            let _ = std::fs::remove_dir(&dir);
            return None;
        }
        Some(SmallDisk(dir))
    }

    /// Fills what is left with one file; returns its path.
    fn fill(&self) -> PathBuf {
        use std::io::Write;
        let path = self.0.join("filler");
        let mut file = std::fs::File::create(&path).expect("filler");
        let block = vec![0u8; 64 * 1024];
        while file.write_all(&block).is_ok() {}
        // Whatever a partial block left, byte by byte.
        while file.write_all(&[0]).is_ok() {}
        path
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
        let _ = std::fs::remove_dir(&self.0);
    }
}

/// The disk the trace is written to fills up: the calls go on, tracing stops with one warning, and
/// the trace keeps every step written before, readable (no half-written line or image).
#[test]
fn tracing_on_a_full_disk_stops_with_a_warning_and_calls_go_on() {
    let _serial = serial();
    let Some(disk) = SmallDisk::mount("8m") else {
        eprintln!("SKIPPED: mounting a small tmpfs needs root (CAP_SYS_ADMIN)");
        return;
    };
    let trace = disk.0.join("trace");
    let trace_arg = trace.display().to_string();
    let (sandbox, app) = desktop_with_probe();
    let served = serve_on(&sandbox, &["--trace", &trace_arg]);
    let mut c = client(&served, Protocol::Sessions);
    see_until(&mut c, |t| t.contains("button \"Change\""));
    let before = handrail_trace::read(&trace).expect("a readable trace").steps.len();
    assert!(before >= 1);

    let filler = disk.fill();
    for args in [
        json!({"action": "see"}),
        json!({"action": "click", "target_text": "Change"}),
        json!({"action": "see"}),
        json!({"action": "key", "keys": "tab"}),
    ] {
        let reply = computer(&mut c, args.clone());
        assert!(!reply.text().starts_with("[error]"), "{args}: {}", reply.text());
    }
    let warnings: Vec<String> = served.log().into_iter().filter(|l| l.contains("tracing stopped")).collect();
    assert_eq!(warnings.len(), 1, "one warning: {warnings:?}");
    assert!(warnings[0].contains("No space left on device"), "{}", warnings[0]);
    let kept = handrail_trace::read(&trace).expect("the trace is still readable");
    assert_eq!(kept.steps.len(), before, "the steps before the disk filled up, whole");
    let step_files = |n: usize| {
        std::fs::read_dir(&trace)
            .map(|d| {
                d.flatten().filter(|e| e.file_name().to_string_lossy().starts_with(&format!("step-{n:03}"))).count()
            })
            .unwrap_or(0)
    };
    assert_eq!(step_files(before + 1), 0, "nothing is left of the step that did not fit");

    // Room again: tracing stays stopped (a trace with a hole in it would mislead), calls go on.
    std::fs::remove_file(filler).expect("free the disk");
    let reply = computer(&mut c, json!({"action": "see"}));
    assert!(reply.text().starts_with("[ok]"), "{}", reply.text());
    assert_eq!(handrail_trace::read(&trace).expect("trace").steps.len(), before);
    stop_all(c, served, app, sandbox);
}

/// Starts a call that waits out an expectation that never comes true, and returns once its progress
/// says it is waiting (the input was sent and released by then).
fn call_left_waiting(c: &mut McpHttp) -> handrail_testkit::mcp::Pending {
    let args = json!({"action": "click", "target_text": "Change", "expect": "text:never shown"});
    let mut pending = c.start_call("computer", args, json!({}), true).expect("the call is sent");
    loop {
        match pending.next_message().expect("progress") {
            Message::Progress(step) if step.starts_with("waiting for text") => return pending,
            Message::Progress(_) => {}
            Message::Reply(r) => panic!("answered before waiting: {}", r.text()),
        }
    }
}

/// A client goes away in the middle of a call. On the stateless protocol the call is cancelled at
/// once; on the handshake protocol (where a client may come back for the answer) it runs to its own
/// end. Either way the engine is free for the next client, and nothing stays held down.
#[test]
fn a_client_that_disconnects_mid_call_leaves_nothing_held_and_frees_the_engine() {
    let _serial = serial();
    let (sandbox, app) = desktop_with_probe();
    let served = serve_on(&sandbox, &[]);
    let mut other = client(&served, Protocol::Sessions);
    see_until(&mut other, |t| t.contains("button \"Change\""));
    // The expectation's wait is 3 s (Config::default().expect_timeout).
    let expect_wait = Config::default().expect_timeout;
    for protocol in [Protocol::Stateless, Protocol::Sessions] {
        let mut leaving = client(&served, protocol);
        computer(&mut leaving, json!({"action": "see"}));
        let pending = call_left_waiting(&mut leaving);
        let left = Instant::now();
        drop(pending);
        drop(leaving);
        let reply = computer(&mut other, json!({"action": "see"}));
        let waited = left.elapsed();
        assert!(reply.text().starts_with("[ok] see"), "{}", reply.text());
        match protocol {
            // Cancelled: well before the expectation's wait would have ended.
            Protocol::Stateless => assert!(waited < expect_wait - Duration::from_millis(500), "{waited:?}"),
            // Ran to its end, bounded by its own wait.
            Protocol::Sessions => assert!(waited < expect_wait + Duration::from_secs(5), "{waited:?}"),
        }
        eprintln!("{protocol:?}: the next client was answered {waited:?} after the first left");
    }
    // A drag, the one action that holds a button for a while, left behind the same way.
    let mut leaving = client(&served, Protocol::Stateless);
    let args = drag_args(&mut leaving);
    let mut pending = leaving.start_call("computer", args, json!({}), true).expect("drag is sent");
    while let Ok(Message::Progress(step)) = pending.next_message() {
        if step.ends_with("sending the input") {
            break;
        }
    }
    drop(pending);
    drop(leaving);
    let reply = computer(&mut other, json!({"action": "see"}));
    assert!(reply.text().starts_with("[ok] see"), "{}", reply.text());
    let held = held_down(&sandbox.display());
    assert!(held.is_empty(), "nothing is held down: {held:?}");
    stop_all(other, served, app, sandbox);
}

/// SIGTERM arrives while a drag holds the mouse button (seen on the X server itself): the server
/// finishes the input it is sending, releases everything and exits cleanly; with `--sandbox`, the
/// desktop is torn down with it.
#[test]
fn sigterm_during_an_action_releases_everything_and_tears_the_sandbox_down() {
    let _serial = serial();
    let (sandbox, app) = desktop_with_probe();
    let display = sandbox.display();
    let mut served = serve_on(&sandbox, &[]);
    let mut c = client(&served, Protocol::Sessions);
    see_until(&mut c, |t| t.contains("entry \"Name\"") && t.contains("button \"Does nothing\""));
    let conn = handrail_x11::Conn::open(&display).expect("the X server");
    let args = drag_args(&mut c);
    let pending = c.start_call("computer", args, json!({}), false).expect("drag is sent");
    // The drag holds button 1 for ~110 ms: poll the server's own state far faster than that.
    let pressed = wait_until(Duration::from_secs(20), CANCEL_CHECK_EVERY / 20, || {
        handrail_x11::held_down(&conn).ok().filter(|h| h.buttons.contains(&1)).map(|_| ())
    });
    if pressed.is_none() {
        panic!("the drag never held the button: {}", pending.answer().map(|r| r.text()).unwrap_or_default());
    }
    served.signal("TERM");
    let status = served.wait_exit(Duration::from_secs(30)).expect("serve exits on SIGTERM");
    assert!(status.success(), "{status}: {}", served.log().join("\n"));
    drop(pending);
    let held = handrail_x11::held_down(&conn).expect("the X server answers");
    assert!(held.is_empty(), "nothing is held down after the server stopped mid-drag: {held:?}");
    drop((c, conn, served, app));
    sandbox.stop().expect("sandbox stops");

    // With its own sandbox: SIGTERM while a call waits, and the whole desktop goes with the server.
    let probe = probe_app();
    let mut served =
        Served::start(handrail(), &["--sandbox", "--vision", "yes", "--", "/usr/bin/python3", &probe], &[]);
    let root = served.sandbox_root().expect("the sandbox's root");
    let mut c = client(&served, Protocol::Stateless);
    see_until(&mut c, |t| t.contains("button \"Change\""));
    let pending = call_left_waiting(&mut c);
    assert!(!sandbox_processes(&root).is_empty());
    served.signal("TERM");
    let status = served.wait_exit(Duration::from_secs(30)).expect("serve exits on SIGTERM");
    assert!(status.success(), "{status}: {}", served.log().join("\n"));
    drop(pending);
    assert!(sandbox_processes(&root).is_empty(), "every process of the sandbox ended");
    assert!(!root.exists(), "the sandbox's files are removed");
}

//! What handrail's desktop tests share: a page served on loopback to the sandbox's browser, and real
//! apps that print what they receive on stdout, read back line by line with bounded waits. Tests only;
//! nothing here is part of handrail.

pub mod mcp;
pub mod served;

use std::io::{BufRead, BufReader, Write as _};
use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Serves `page` at `/` of a fresh 127.0.0.1 port (404 for any other path) for the rest of the test
/// process; returns its URL.
pub fn serve_page(page: &'static str) -> String {
    let base = serve_site(move |path| (path == "/").then_some(page));
    format!("{base}/")
}

/// How long a connection may stay silent before its request is given up: long, since browsers open
/// connections ahead of the requests they will carry (and a busy machine delays those).
const REQUEST_WAIT: Duration = Duration::from_secs(30);

/// Serves a fresh 127.0.0.1 port for the rest of the test process: each GET's path (query
/// included) goes to `route`, whose page is answered (404 for `None`). Returns `http://127.0.0.1:PORT`.
///
/// Every connection is answered on a thread of its own: a browser's idle pre-opened connection
/// never holds up, or times out, the requests behind it.
pub fn serve_site(route: impl Fn(&str) -> Option<&'static str> + Send + Sync + 'static) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a local port");
    let base = format!("http://{}", listener.local_addr().expect("address"));
    let route = std::sync::Arc::new(route);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let route = std::sync::Arc::clone(&route);
            std::thread::spawn(move || answer(stream, &*route));
        }
    });
    base
}

/// Reads one request's head and answers it through `route`.
fn answer(mut stream: std::net::TcpStream, route: &dyn Fn(&str) -> Option<&'static str>) {
    let _ = stream.set_read_timeout(Some(REQUEST_WAIT));
    let Ok(clone) = stream.try_clone() else { return };
    let mut reader = BufReader::new(clone);
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
        return; // opened and closed without a request
    }
    let mut header = String::new();
    while reader.read_line(&mut header).is_ok_and(|n| n > 2) {
        header.clear();
    }
    let mut parts = request_line.split_whitespace();
    let body = match (parts.next(), parts.next()) {
        (Some("GET"), Some(path)) => route(path),
        _ => None,
    };
    let (status, body) = match body {
        Some(body) => ("200 OK", body),
        None => ("404 Not Found", ""),
    };
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

/// Asks `probe` until it answers `Some`, every `every`, for at most `within` (asked at least once):
/// a bounded wait on a condition, never a fixed sleep.
pub fn wait_until<T>(within: Duration, every: Duration, mut probe: impl FnMut() -> Option<T>) -> Option<T> {
    let deadline = Instant::now() + within;
    loop {
        if let Some(found) = probe() {
            return Some(found);
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(every.min(deadline.saturating_duration_since(Instant::now())));
    }
}

/// How long [`LineApp::wait_for`] waits for a line: an app's start on a busy two-core machine takes
/// seconds (GTK 4 on a software renderer compiles its shaders first; 15 s was seen exceeded beside
/// a loaded test run).
pub const APP_LINE_WAIT: Duration = Duration::from_secs(30);

/// A running app whose stdout lines are what it received; killed on drop.
pub struct LineApp {
    child: Child,
    lines: mpsc::Receiver<String>,
    /// Every line read so far, in order.
    pub seen: Vec<String>,
}

impl LineApp {
    /// Starts `command` with its stdout piped.
    pub fn spawn(mut command: Command) -> LineApp {
        let mut child = command.stdout(Stdio::piped()).spawn().expect("the app starts");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        LineApp { child, lines, seen: Vec::new() }
    }

    /// The app's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The first line from now on matching `want`, within `within`.
    pub fn wait_for_within(&mut self, within: Duration, want: impl Fn(&str) -> bool) -> Option<String> {
        let deadline = Instant::now() + within;
        while let Ok(line) = self.lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            self.seen.push(line.clone());
            if want(&line) {
                return Some(line);
            }
        }
        None
    }

    /// [`wait_for_within`](Self::wait_for_within) [`APP_LINE_WAIT`]: generous for a loaded 2-core
    /// machine.
    pub fn wait_for(&mut self, want: impl Fn(&str) -> bool) -> Option<String> {
        self.wait_for_within(APP_LINE_WAIT, want)
    }
}

impl LineApp {
    /// Writes `line` to the app's stdin (which its command piped).
    pub fn tell(&mut self, line: &str) {
        use std::io::Write;
        let stdin = self.child.stdin.as_mut().expect("the app's stdin is piped");
        writeln!(stdin, "{line}").expect("a line to the app");
    }

    /// Every line already printed and not yet read, without waiting.
    pub fn pending(&mut self) -> Vec<String> {
        let lines: Vec<String> = self.lines.try_iter().collect();
        self.seen.extend(lines.iter().cloned());
        lines
    }
}

impl Drop for LineApp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A process started for a test, killed (and reaped) when dropped, even when the test fails.
pub struct Spawned(pub Child);

impl Drop for Spawned {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// An xterm in the bottom-left corner of a test desktop, beside the app under test, as a person's
/// desktop has more than one window; killed when dropped.
pub struct TerminalBeside {
    _process: Spawned,
}

impl TerminalBeside {
    /// Starts it with `command` (a program's command in the test desktop's session, such as
    /// `Sandbox::command`) and waits for its window. Start it before the app under test: the window
    /// manager activates the window mapped last, and a terminal mapped after the app would take the
    /// keyboard.
    pub fn start(command: impl Fn(&str) -> Command) -> TerminalBeside {
        let child = command("xterm").args(["-geometry", "60x10+0+560"]).spawn().expect("xterm starts");
        let terminal = TerminalBeside { _process: Spawned(child) };
        let deadline = Instant::now() + Duration::from_secs(20);
        let shown = || {
            let out = command("xdotool").args(["search", "--onlyvisible", "--class", "XTerm"]).output();
            out.is_ok_and(|o| o.status.success() && !o.stdout.is_empty())
        };
        while !shown() {
            assert!(Instant::now() < deadline, "xterm's window never appeared");
            std::thread::sleep(Duration::from_millis(50)); // polling interval, not a settle wait
        }
        terminal
    }
}

/// A flat OpenDocument spreadsheet (what Calc opens and saves as `.fods`): one sheet named `sheet`,
/// `rows` of text cells.
pub fn flat_ods(sheet: &str, rows: &[&[&str]]) -> String {
    let rows: String = rows
        .iter()
        .map(|row| {
            let cells: String = row
                .iter()
                .map(|c| {
                    format!("<table:table-cell office:value-type=\"string\"><text:p>{c}</text:p></table:table-cell>")
                })
                .collect();
            format!("<table:table-row>{cells}</table:table-row>\n")
        })
        .collect();
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
 xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"
 xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"
 office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.spreadsheet">
<office:body><office:spreadsheet><table:table table:name="{sheet}">
{rows}</table:table></office:spreadsheet></office:body></office:document>
"#
    )
}

/// LibreOffice Calc on a test desktop, with a profile of its own (no first-start wizard, no recovery
/// of another run) and VCL's GTK 3 plugin, the one on the accessibility bus (without a desktop session
/// Calc picks X11's, which has none). It ends with the sandbox it was started in, whose stop also
/// removes the pipe LibreOffice binds in /tmp: killed here first, its launcher takes `soffice.bin`
/// down with it before the sandbox can see that pipe, and the file stays behind.
pub struct Calc {
    _process: Child,
}

impl Calc {
    /// Starts it with `command` (as for [`TerminalBeside::start`]), its profile under `profile`, on
    /// `book` or a new sheet.
    pub fn start(command: impl Fn(&str) -> Command, profile: &std::path::Path, book: Option<&std::path::Path>) -> Calc {
        let mut soffice = command("soffice");
        soffice
            .args(["--norestore", "--nologo", "--nofirststartwizard", "--calc"])
            .arg(format!("-env:UserInstallation=file://{}", profile.display()))
            .args(book)
            .env("SAL_USE_VCLPLUGIN", "gtk3")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let process = soffice.spawn().expect("soffice starts (scripts/setup-desktop installs libreoffice-calc)");
        Calc { _process: process }
    }
}

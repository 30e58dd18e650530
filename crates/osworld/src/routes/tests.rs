//! The endpoints' shapes over a desktop whose commands and files are real (processes run with
//! `std::process`, files in a scratch home) and whose screen is a fixed picture: what OSWorld's
//! harness reads from each answer.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use handrail_platform::{AxHealth, AxNode, AxSnapshot, Rect, Role, States};
use serde_json::{json, Value};

use super::{answer, Answer, Request};
use crate::guest::{GuestDesktop, GuestError, Ran};

pub(crate) struct Scratch {
    home: PathBuf,
}

impl Scratch {
    pub(crate) fn new(name: &str) -> Scratch {
        let home = std::env::temp_dir().join(format!("handrail-osworld-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&home);
        std::fs::create_dir_all(home.join("Desktop")).expect("scratch home");
        Scratch { home }
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.home);
    }
}

impl GuestDesktop for Scratch {
    fn home(&self) -> &Path {
        &self.home
    }
    fn screenshot(&self) -> Result<Vec<u8>, GuestError> {
        Ok(b"\x89PNG\r\n\x1a\nfixed".to_vec())
    }
    fn screen_size(&self) -> Result<(u32, u32), GuestError> {
        Ok((1920, 1080))
    }
    fn accessibility(&self) -> Result<AxSnapshot, GuestError> {
        let terminal = AxNode {
            role: Some(Role::Terminal),
            native_role: "terminal".into(),
            name: String::new(),
            value: Some("$ ls\nDesktop\n\n".into()),
            description: String::new(),
            bounds: Rect::new(0, 0, 100, 100),
            states: States::FOCUSED,
            app: "xterm".into(),
            window: "xterm".into(),
            actions: Vec::new(),
            key_bindings: Vec::new(),
            attributes: Vec::new(),
            parent: None,
            window_relative: false,
        };
        Ok(AxSnapshot::new(AxHealth::Ok, vec![terminal]))
    }
    fn run(&self, argv: &[String], timeout: Duration, cwd: Option<&Path>) -> Result<Ran, GuestError> {
        let (program, args) = argv.split_first().ok_or_else(|| GuestError::BadRequest("empty".into()))?;
        let mut child = Command::new(program)
            .args(args)
            .current_dir(cwd.unwrap_or(&self.home))
            .env("HOME", &self.home)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .map_err(|e| GuestError::Failed(format!("[Errno 2] {e}: '{program}'")))?;
        let t0 = Instant::now();
        loop {
            if child.try_wait().map_err(|e| GuestError::Failed(e.to_string()))?.is_some() {
                let out = child.wait_with_output().map_err(|e| GuestError::Failed(e.to_string()))?;
                use std::os::unix::process::ExitStatusExt;
                return Ok(Ran {
                    exit_code: out.status.code(),
                    signal: out.status.signal(),
                    timed_out: false,
                    stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
                    stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
                });
            }
            if t0.elapsed() > timeout {
                let _ = child.kill();
                let _ = child.wait();
                return Ok(Ran { signal: Some(9), timed_out: true, ..Ran::default() });
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
    fn launch(&self, argv: &[String]) -> Result<(), GuestError> {
        Command::new(&argv[0]).args(&argv[1..]).spawn().map(drop).map_err(|e| GuestError::Failed(e.to_string()))
    }
    fn put_file(&self, relative: &str, bytes: &[u8]) -> Result<(), GuestError> {
        let path = self.home.join(relative);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| GuestError::Failed(e.to_string()))?;
        }
        std::fs::write(path, bytes).map_err(|e| GuestError::Failed(e.to_string()))
    }
    fn get_file(&self, relative: &str, _max: u64) -> Result<Vec<u8>, GuestError> {
        std::fs::read(self.home.join(relative)).map_err(|_| GuestError::NotFound(relative.into()))
    }
}

fn call(desktop: &Scratch, method: &str, path: &str, body: &[u8]) -> Answer {
    answer(desktop, &Request { method, path, content_type: Some("application/json"), body })
}

fn json_of(a: &Answer) -> Value {
    serde_json::from_slice(&a.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&a.body)))
}

#[test]
fn execute_answers_as_osworlds_guest_and_runs_in_the_home() {
    let d = Scratch::new("execute");
    // What the harness's PythonController sends for a pyautogui action, with python swapped for sh.
    let a = call(&d, "POST", "/execute", br#"{"command": ["sh", "-c", "pwd; echo err >&2; exit 3"], "shell": false}"#);
    assert_eq!(a.status, 200);
    let v = json_of(&a);
    assert_eq!(v["status"], "success");
    assert_eq!(v["output"], "/home/user\n", "the private home is shown as the task home");
    assert_eq!(v["error"], "err\n");
    assert_eq!(v["returncode"], 3);
    // A string without shell is split as shlex does; ~/ and /home/user name the private home.
    let a = call(&d, "POST", "/setup/execute", br#"{"command": "touch '/home/user/a b.txt' ~/c.txt"}"#);
    assert_eq!(json_of(&a)["returncode"], 0);
    assert!(d.home.join("a b.txt").exists() && d.home.join("c.txt").exists());
    let a = call(&d, "POST", "/execute", br#"{"command": "echo $HOME/x > /home/user/d.txt", "shell": true}"#);
    assert_eq!(json_of(&a)["returncode"], 0);
    assert_eq!(
        std::fs::read_to_string(d.home.join("d.txt")).ok().map(|s| s.trim().to_string()),
        d.home.join("x").to_str().map(String::from)
    );
    // A program that is not there: Python's exception, as a 500 with a message.
    let a = call(&d, "POST", "/execute", br#"{"command": ["no-such-program-here"]}"#);
    assert_eq!((a.status, json_of(&a)["status"].clone()), (500, json!("error")));
    let a = call(&d, "POST", "/execute", br#"{"command": "echo 'open"}"#);
    assert_eq!(a.status, 400);
    assert!(json_of(&a)["message"].as_str().is_some_and(|m| m.contains("no closing quotation")));
}

#[test]
fn files_go_in_and_out_of_the_home_under_the_tasks_name() {
    let d = Scratch::new("files");
    let body = b"--XyZ\r\nContent-Disposition: form-data; name=\"file_path\"\r\n\r\n/home/user/Desktop/in.csv\r\n--XyZ\r\nContent-Disposition: form-data; name=\"file_data\"; filename=\"in.csv\"\r\n\r\na,b\n1,2\n\r\n--XyZ--\r\n";
    let upload =
        |body: &[u8], ct| answer(&d, &Request { method: "POST", path: "/setup/upload", content_type: Some(ct), body });
    let a = upload(body, "multipart/form-data; boundary=XyZ");
    assert_eq!((a.status, String::from_utf8_lossy(&a.body).into_owned()), (200, "File Uploaded: 8 bytes".to_string()));
    assert_eq!(std::fs::read(d.home.join("Desktop/in.csv")).ok(), Some(b"a,b\n1,2\n".to_vec()));
    let outside = String::from_utf8_lossy(body).replace("/home/user/Desktop/in.csv", "/etc/in.csv");
    assert_eq!(upload(outside.as_bytes(), "multipart/form-data; boundary=XyZ").status, 403);
    assert_eq!(upload(b"x", "text/plain").status, 400);

    let get = |field: &[u8]| {
        answer(
            &d,
            &Request {
                method: "POST",
                path: "/file",
                content_type: Some("application/x-www-form-urlencoded"),
                body: field,
            },
        )
    };
    let a = get(b"file_path=%2Fhome%2Fuser%2FDesktop%2Fin.csv");
    assert_eq!(
        (a.status, a.body.clone(), a.attachment.clone()),
        (200, b"a,b\n1,2\n".to_vec(), Some("in.csv".to_string()))
    );
    assert_eq!(json_of(&get(b"file_path=~/nothing.txt")), json!({"error": "File not found"}));
    assert_eq!(get(b"file_path=~/nothing.txt").status, 404);
    assert_eq!(get(b"").status, 400);

    let a = call(&d, "POST", "/list_directory", br#"{"path": "/home/user"}"#);
    let tree = &json_of(&a)["directory_tree"];
    assert_eq!(tree["type"], "directory");
    assert!(
        tree["children"]
            .as_array()
            .is_some_and(|c| c.iter().any(|e| e["name"] == "Desktop" && e["children"][0]["name"] == "in.csv")),
        "{tree}"
    );
    assert_eq!(call(&d, "POST", "/list_directory", br#"{"path": "/home/user/Desktop/in.csv"}"#).status, 400);
    assert_eq!(call(&d, "POST", "/list_directory", br#"{}"#).status, 400);
    assert_eq!(json_of(&call(&d, "POST", "/desktop_path", b"")), json!({"desktop_path": "/home/user/Desktop"}));
}

#[test]
fn scripts_run_with_osworlds_answers() {
    let d = Scratch::new("scripts");
    let a = call(
        &d,
        "POST",
        "/run_bash_script",
        br#"{"script": "echo out; echo err >&2; exit 2", "working_dir": "/home/user/Desktop"}"#,
    );
    let v = json_of(&a);
    assert_eq!(
        (a.status, v["status"].clone(), v["returncode"].clone(), v["error"].clone()),
        (200, json!("error"), json!(2), json!(""))
    );
    assert_eq!(v["output"], "out\nerr\n", "stderr merged into the output");
    let a = call(&d, "POST", "/run_bash_script", br#"{"script": "pwd", "working_dir": "/home/user/nowhere"}"#);
    assert_eq!((a.status, json_of(&a)["returncode"].clone()), (400, json!(-1)));
    let a = call(&d, "POST", "/run_bash_script", br#"{"script": "sleep 5", "timeout": 0.3}"#);
    assert_eq!(a.status, 500);
    let a = call(&d, "POST", "/run_python", br#"{"code": "print(6 * 7)"}"#);
    let v = json_of(&a);
    assert_eq!(
        (v["status"].clone(), v["output"].clone(), v["return_code"].clone()),
        (json!("success"), json!("42\n"), json!(0))
    );
    let a = call(&d, "POST", "/run_python", br#"{"code": "raise SystemExit(4)"}"#);
    assert_eq!(json_of(&a)["error"], "Process exited with code 4");
    assert_eq!(call(&d, "POST", "/run_python", br#"{}"#).status, 400);
    assert!(
        !d.home.join(".cache/handrail-osworld").read_dir().is_ok_and(|mut e| e.next().is_some()),
        "scripts are removed"
    );
}

#[test]
fn the_screen_and_the_rest_answer_in_their_shapes() {
    let d = Scratch::new("screen");
    let a = call(&d, "GET", "/screenshot", b"");
    assert_eq!((a.status, a.content_type), (200, "image/png"));
    let at = json_of(&call(&d, "GET", "/accessibility", b""));
    assert!(at["AT"].as_str().is_some_and(|x| x.starts_with("<desktop-frame") && x.contains("<terminal ")), "{at}");
    assert_eq!(json_of(&call(&d, "GET", "/terminal", b"")), json!({"output": "$ ls\nDesktop", "status": "success"}));
    assert_eq!(json_of(&call(&d, "POST", "/screen_size", b"")), json!({"width": 1920, "height": 1080}));
    assert_eq!(call(&d, "GET", "/platform", b"").body, b"Linux".to_vec());
    assert_eq!(call(&d, "POST", "/screenshot", b"").status, 405);
    assert_eq!(call(&d, "GET", "/nothing", b"").status, 404);
    assert_eq!(call(&d, "POST", "/setup/download_file", b"{}").status, 501);
    assert_eq!(call(&d, "POST", "/setup/open_file", b"{}").body, b"Path not supplied!".to_vec());
    assert_eq!(
        call(&d, "POST", "/setup/open_file", br#"{"path": "/home/user/none.xlsx", "timeout_seconds": 1}"#).status,
        404
    );
    assert_eq!(call(&d, "POST", "/setup/activate_window", b"{}").status, 400);
    assert_eq!(super::screen::parse_mouse_location("X=12\nY=34\nSCREEN=0\nWINDOW=1\n"), Some((12, 34)));
}

//! The client against a real, private `dbus-daemon`.

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use handrail_dbus::wire::{Arg, Call};
use handrail_dbus::{Bus, DbusError};

const TIMEOUT: Duration = Duration::from_secs(5);

/// A private session bus, stopped when dropped.
struct Daemon {
    child: Child,
    address: String,
}

impl Daemon {
    fn start() -> Daemon {
        let mut child = Command::new("dbus-daemon")
            .args(["--session", "--nofork", "--nopidfile", "--print-address=1"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("dbus-daemon (apt-get install dbus)");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout")).read_line(&mut line).expect("its address");
        Daemon { child, address: line.trim().to_owned() }
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn bus_call<'a>(member: &'a str, args: &'a [Arg]) -> Call<'a> {
    Call {
        destination: "org.freedesktop.DBus",
        path: "/org/freedesktop/DBus",
        interface: "org.freedesktop.DBus",
        member,
        args,
        flags: 0,
    }
}

#[test]
fn a_call_is_answered_and_a_burst_waits_for_every_reply() {
    let daemon = Daemon::start();
    let mut bus = Bus::connect(&daemon.address, TIMEOUT, Box::new(|_| {})).expect("connect");
    assert!(bus.unique_name().starts_with(':'), "{}", bus.unique_name());

    let names = bus.call(&bus_call("ListNames", &[]), TIMEOUT, "ListNames").expect("ListNames");
    let listed: Vec<String> = names
        .first()
        .expect("a body")
        .as_array()
        .expect("an array")
        .iter()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect();
    assert!(listed.iter().any(|n| n == bus.unique_name()), "{listed:?}");

    // A burst of good calls: all answered, no error.
    let own = [Arg::Str(bus.unique_name().to_owned())];
    let burst = [bus_call("GetId", &[]), bus_call("NameHasOwner", &own), bus_call("GetNameOwner", &own)];
    bus.call_all(&burst, TIMEOUT, "a burst").expect("every call answered");

    // One bad call among good ones: its error comes back, after the others were answered.
    let nobody = [Arg::Str("org.example.Nobody".into())];
    let mixed = [bus_call("GetId", &[]), bus_call("GetNameOwner", &nobody), bus_call("GetId", &[])];
    match bus.call_all(&mixed, TIMEOUT, "a mixed burst") {
        Err(DbusError::Remote { name, .. }) => assert_eq!(name, "org.freedesktop.DBus.Error.NameHasNoOwner"),
        other => panic!("the bad call's error, not {other:?}"),
    }
    // Nothing of that burst is left to confuse the next call.
    bus.call(&bus_call("GetId", &[]), TIMEOUT, "GetId").expect("a later call");
}

#[test]
fn a_bus_that_goes_away_is_an_error_not_a_hang() {
    let daemon = Daemon::start();
    let mut bus = Bus::connect(&daemon.address, TIMEOUT, Box::new(|_| {})).expect("connect");
    drop(daemon);
    let err = bus.call_all(&[bus_call("GetId", &[])], TIMEOUT, "GetId").expect_err("no bus");
    assert!(matches!(err, DbusError::Closed | DbusError::Io(_)), "{err:?}");
}

#[test]
fn a_file_descriptor_in_a_reply_arrives_with_it() {
    let daemon = Daemon::start();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/dbus/fd_service.py");
    let mut service = Command::new("/usr/bin/python3")
        .arg(script)
        .env("DBUS_SESSION_BUS_ADDRESS", &daemon.address)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the service (python3-gi)");
    let mut line = String::new();
    BufReader::new(service.stdout.take().expect("stdout")).read_line(&mut line).expect("ready");
    assert_eq!(line.trim(), "ready");

    let mut bus = Bus::connect(&daemon.address, TIMEOUT, Box::new(|_| {})).expect("connect");
    let open = Call {
        destination: "org.handrail.FdTest",
        path: "/org/handrail/FdTest",
        interface: "org.handrail.FdTest",
        member: "Open",
        args: &[],
        flags: 0,
    };
    let reply = bus.call(&open, TIMEOUT, "Open").expect("Open");
    let _ = service.kill();
    let _ = service.wait();
    assert_eq!((reply.signature.as_str(), reply.unix_fds), ("h", 1));
    let Ok(handrail_dbus::wire::Value::Fd(index)) = reply.first() else {
        panic!("a descriptor index: {:?}", reply.values());
    };
    let fd = reply.fd(index).expect("the descriptor came with the reply");
    let mut text = String::new();
    std::fs::File::from(fd.try_clone().expect("dup")).read_to_string(&mut text).expect("read the pipe");
    assert_eq!(text, "hello through a descriptor");
}

//! Without a usable bus every snapshot is `Unavailable`, quickly, and never an error or a hang.

use std::os::unix::net::UnixListener;
use std::time::{Duration, Instant};

use handrail_atspi::AtspiSource;
use handrail_platform::{Accessibility, AxHealth, AxLimits};

fn limits() -> AxLimits {
    AxLimits { max_nodes: 100, call_timeout: Duration::from_millis(200), deadline: Duration::from_millis(800) }
}

#[test]
fn missing_or_bogus_session_bus_is_unavailable_at_once() {
    for address in [
        "",
        "unix:path=/nonexistent/handrail/bus",
        "tcp:host=127.0.0.1,port=1",
        "garbage",
        "unix:abstract=handrail-none",
    ] {
        let source = AtspiSource::new(address);
        for _ in 0..2 {
            // Lazily retried on every snapshot, each one fast.
            let t = Instant::now();
            let snap = source.snapshot(&limits());
            assert_eq!(snap.health, AxHealth::Unavailable, "{address:?}");
            assert!(snap.nodes.is_empty());
            assert!(t.elapsed() < Duration::from_millis(100), "{address:?}: {:?}", t.elapsed());
        }
        assert!(!source.is_connected());
    }
}

#[test]
fn a_bus_that_never_answers_is_unavailable_within_the_deadline() {
    let dir = std::env::temp_dir().join(format!("handrail-atspi-silent-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("bus");
    let _ = std::fs::remove_file(&path);
    let listener = UnixListener::bind(&path).expect("bind");
    listener.set_nonblocking(true).expect("nonblocking");
    // Accepts connections and never says a word, until the test is done.
    let (done, until_done) = std::sync::mpsc::channel::<()>();
    let held = std::thread::spawn(move || {
        let mut conns = Vec::new();
        loop {
            if let Ok((c, _)) = listener.accept() {
                conns.push(c);
            }
            match until_done.recv_timeout(Duration::from_millis(10)) {
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
                _ => break,
            }
        }
    });
    for source in [
        AtspiSource::new(format!("unix:path={}", path.display())),
        AtspiSource::with_a11y_bus(format!("unix:path={}", path.display())),
    ] {
        let t = Instant::now();
        let snap = source.snapshot(&limits());
        assert_eq!(snap.health, AxHealth::Unavailable);
        assert!(t.elapsed() <= limits().deadline, "took {:?}", t.elapsed());
    }
    drop(done);
    let _ = held.join();
    let _ = std::fs::remove_dir_all(&dir);
}

//! The proxy over real loopback sockets: an allowed origin on 127.0.0.1, a refused one on 127.0.0.2.

mod common;

use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};
use std::time::{Duration, Instant};

use common::{body_of, exchange, exchange_closing, get, head_of, policy, status, Origin};
use handrail_netguard::{Blocked, PolicyProxy, ProxyLimits};
use handrail_platform::{BlockedRequest, NetworkPolicy};

fn proxy() -> PolicyProxy {
    PolicyProxy::start(policy()).expect("the proxy starts")
}

#[test]
fn chromium_args_point_at_the_proxy_and_cover_loopback() {
    let p = proxy();
    assert!(p.addr().ip().is_loopback());
    assert_eq!(
        p.chromium_args(),
        vec![format!("--proxy-server=http://127.0.0.1:{}", p.addr().port()), "--proxy-bypass-list=<-loopback>".into()]
    );
}

#[test]
fn the_engine_drains_refusals_through_the_platform_trait() {
    let (p, b) = (proxy(), Origin::http("127.0.0.2"));
    let url = b.url("/dash");
    assert_eq!(status(&get(p.addr(), &url)), 403);
    // As a desktop holds it: a boxed `NetworkPolicy`.
    let network: Box<dyn NetworkPolicy> = Box::new(p);
    assert_eq!(
        network.take_blocked(),
        vec![BlockedRequest {
            method: "GET".into(),
            url,
            reason: "127.0.0.2 is not in the allowed domains (127.0.0.1)".into()
        }]
    );
    assert!(network.take_blocked().is_empty());
    assert_eq!(b.connections(), 0);
}

#[test]
fn allowed_get_returns_the_origin_body() {
    let (p, a) = (proxy(), Origin::http("127.0.0.1"));
    let resp = get(p.addr(), &a.url("/"));
    assert_eq!(status(&resp), 200, "{}", head_of(&resp));
    assert_eq!(body_of(&resp), b"hello from the origin");
    assert!(head_of(&resp).contains("\r\nConnection: close\r\n"));
    let got = a.requests();
    assert_eq!(got.len(), 1);
    let head = &got[0].head;
    assert!(head.starts_with(&format!("GET / HTTP/1.1\r\nHost: {}\r\n", a.addr)), "{head}");
    assert!(head.contains("\r\nUser-Agent: test\r\n") && head.ends_with("\r\nConnection: close\r\n\r\n"), "{head}");
    assert!(!head.to_ascii_lowercase().contains("proxy-connection"), "{head}");
    assert_eq!(p.stats().allowed, 1);
    assert!(p.take_blocked().is_empty());

    let big = get(p.addr(), &a.url("/big"));
    assert_eq!(status(&big), 200);
    assert_eq!(body_of(&big).len(), common::BIG);
}

#[test]
fn refused_get_gets_the_block_page_and_reaches_nothing() {
    let (p, b) = (proxy(), Origin::http("127.0.0.2"));
    let url = b.url("/secret?q=<1>&r=2");
    let resp = get(p.addr(), &url);
    assert_eq!(status(&resp), 403);
    let head = head_of(&resp);
    assert!(head.contains("\r\nContent-Type: text/html; charset=utf-8\r\n"), "{head}");
    let page = String::from_utf8_lossy(body_of(&resp)).into_owned();
    assert!(page.contains("<title>Blocked by handrail's URL policy</title>"), "{page}");
    assert!(page.contains("<h1>Blocked by handrail's URL policy</h1>"), "{page}");
    let escaped = format!("http://{}/secret?q=&lt;1&gt;&amp;r=2", b.addr);
    assert!(page.contains(&escaped), "{page}");
    assert!(page.contains("127.0.0.2 is not in the allowed domains (127.0.0.1)"), "{page}");
    assert_eq!(b.connections(), 0);
    assert_eq!(
        p.take_blocked(),
        vec![Blocked {
            url: format!("http://{}/secret?q=<1>&r=2", b.addr),
            reason: "127.0.0.2 is not in the allowed domains (127.0.0.1)".into(),
            method: "GET".into(),
        }]
    );
    assert!(p.take_blocked().is_empty(), "take_blocked drains");
    // Other spellings of the same address are the same address.
    for host in ["2130706434", "0x7f.0.0.2", "127.2", "127.0.0.2."] {
        let resp = get(p.addr(), &format!("http://{host}:{}/", b.addr.port()));
        assert_eq!(status(&resp), 403, "{host}");
    }
    // HEAD gets the page's head only.
    let resp = exchange(p.addr(), format!("HEAD {url} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes());
    assert_eq!(status(&resp), 403);
    assert!(body_of(&resp).is_empty());
    assert_eq!(b.connections(), 0);
    assert_eq!(p.stats().blocked, 6);
    assert_eq!(p.stats().allowed, 0);
}

#[test]
fn request_bodies_arrive_byte_exact() {
    let (p, a) = (proxy(), Origin::http("127.0.0.1"));
    let body: Vec<u8> = (0..=255u8).cycle().take(70_000).collect();
    let mut req = format!(
        "POST {} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/octet-stream\r\nContent-Length: {}\r\n\r\n",
        a.url("/upload"),
        a.addr,
        body.len()
    )
    .into_bytes();
    req.extend_from_slice(&body);
    let resp = exchange(p.addr(), &req);
    assert_eq!(status(&resp), 404, "the origin answered");

    let chunked = b"5;ext=1\r\nhello\r\n1A\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\nX-Trailer: t\r\n\r\n";
    let mut req = format!("PUT {} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n", a.url("/c")).into_bytes();
    req.extend_from_slice(chunked);
    let resp = exchange(p.addr(), &req);
    assert_eq!(status(&resp), 404);

    let got = a.requests();
    assert_eq!(got.len(), 2);
    assert!(got[0].head.starts_with("POST /upload HTTP/1.1\r\n"));
    assert_eq!(got[0].body, body);
    assert!(got[1].head.starts_with("PUT /c HTTP/1.1\r\n") && got[1].head.contains("Transfer-Encoding: chunked"));
    assert_eq!(got[1].body, chunked);
}

#[test]
fn nothing_after_the_body_is_forwarded() {
    let (p, a, b) = (proxy(), Origin::http("127.0.0.1"), Origin::http("127.0.0.2"));
    let smuggled = format!("GET {} HTTP/1.1\r\nHost: {}\r\n\r\n", b.url("/"), b.addr);
    let req = format!(
        "POST {} HTTP/1.1\r\nHost: {}\r\nContent-Length: 5\r\n\r\nhello{smuggled}{smuggled}",
        a.url("/p"),
        a.addr
    );
    let resp = exchange(p.addr(), req.as_bytes());
    assert_eq!(status(&resp), 404);
    let got = a.requests();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].body, b"hello");
    // Ambiguous framing is refused before anything is sent.
    let req = format!(
        "POST {} HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        a.url("/p")
    );
    assert_eq!(status(&exchange(p.addr(), req.as_bytes())), 400);
    assert_eq!(a.connections(), 1);
    assert_eq!(b.connections(), 0);
}

#[test]
fn expect_continue_is_answered_by_the_proxy() {
    let (p, a) = (proxy(), Origin::http("127.0.0.1"));
    let mut s = TcpStream::connect(p.addr()).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
    let head = format!("POST {} HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n", a.url("/e"));
    s.write_all(head.as_bytes()).expect("write");
    let mut interim = [0u8; 25];
    s.read_exact(&mut interim).expect("100 Continue");
    assert_eq!(&interim, b"HTTP/1.1 100 Continue\r\n\r\n");
    s.write_all(b"data").expect("write");
    assert_eq!(status(&common::read_to_close(&mut s)), 404);
    let got = a.requests();
    assert_eq!(got[0].body, b"data");
    assert!(!got[0].head.to_ascii_lowercase().contains("expect"));
}

#[test]
fn connect_to_an_allowed_host_tunnels_both_ways() {
    let (p, echo) = (proxy(), Origin::echo("127.0.0.1"));
    let mut s = TcpStream::connect(p.addr()).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
    write!(s, "CONNECT {0} HTTP/1.1\r\nHost: {0}\r\n\r\n", echo.addr).expect("write");
    let mut answer = [0u8; 39];
    s.read_exact(&mut answer).expect("answer");
    assert_eq!(&answer, b"HTTP/1.1 200 Connection Established\r\n\r\n");
    for round in 0..3 {
        let msg: Vec<u8> = (0..20_000u32).map(|i| (i * 7 + round) as u8).collect();
        s.write_all(&msg).expect("write");
        let mut back = vec![0u8; msg.len()];
        s.read_exact(&mut back).expect("echo");
        assert_eq!(back, msg);
    }
    s.shutdown(Shutdown::Write).expect("half close");
    assert!(common::read_to_close(&mut s).is_empty(), "the tunnel closes after the client");
    assert_eq!(echo.connections(), 1);
    assert_eq!(p.stats().allowed, 1);
}

#[test]
fn connect_to_a_refused_host_is_403_and_reaches_nothing() {
    let (p, echo) = (proxy(), Origin::echo("127.0.0.2"));
    let resp = exchange(p.addr(), format!("CONNECT {0} HTTP/1.1\r\nHost: {0}\r\n\r\n", echo.addr).as_bytes());
    assert_eq!(status(&resp), 403);
    assert!(String::from_utf8_lossy(body_of(&resp)).contains("blocked by handrail's URL policy"));
    let resp = exchange(p.addr(), b"CONNECT 127.0.0.2:443 HTTP/1.1\r\nHost: 127.0.0.2:443\r\n\r\n");
    assert_eq!(status(&resp), 403);
    assert_eq!(echo.connections(), 0);
    let blocked = p.take_blocked();
    let urls: Vec<&str> = blocked.iter().map(|b| b.url.as_str()).collect();
    assert_eq!(urls, [format!("https://{}/", echo.addr).as_str(), "https://127.0.0.2/"]);
    assert!(blocked.iter().all(|b| b.method == "CONNECT" && b.reason.contains("not in the allowed domains")));
}

#[test]
fn credentials_are_refused_and_redacted() {
    let (p, a, echo) = (proxy(), Origin::http("127.0.0.1"), Origin::echo("127.0.0.1"));
    let resp = get(p.addr(), &format!("http://user:s3cret@{}/x?token=1", a.addr));
    assert_eq!(status(&resp), 403);
    assert!(!String::from_utf8_lossy(&resp).contains("s3cret"));
    let resp =
        exchange(p.addr(), format!("CONNECT user:s3cret@{0} HTTP/1.1\r\nHost: {0}\r\n\r\n", echo.addr).as_bytes());
    assert_eq!(status(&resp), 403);
    assert_eq!((a.connections(), echo.connections()), (0, 0));
    assert_eq!(
        p.take_blocked(),
        vec![
            Blocked {
                url: format!("http://{}/x?token=1", a.addr),
                reason: "the URL contains credentials".into(),
                method: "GET".into()
            },
            Blocked {
                url: format!("https://{}/", echo.addr),
                reason: "the URL contains credentials".into(),
                method: "CONNECT".into()
            },
        ]
    );
}

#[test]
fn login_credentials_in_a_header_are_refused_like_those_in_a_url() {
    let (p, a) = (proxy(), Origin::http("127.0.0.1"));
    let url = a.url("/private");
    for auth in ["Basic dXNlcjpzM2NyZXQ=", "basic dXNlcjpzM2NyZXQ=", "Digest username=\"user\", realm=\"x\""] {
        let request = format!("GET {url} HTTP/1.1\r\nHost: {}\r\nAuthorization: {auth}\r\n\r\n", a.addr);
        let resp = exchange_closing(p.addr(), request.as_bytes());
        assert_eq!(status(&resp), 403, "{auth}");
        assert!(String::from_utf8_lossy(body_of(&resp)).contains("login credentials"), "{auth}");
    }
    assert_eq!(a.connections(), 0, "nothing reached the allowed origin with the login");
    let blocked = p.take_blocked();
    assert_eq!(blocked.len(), 3);
    assert!(blocked.iter().all(|b| b.url == url && !b.url.contains("s3cret")), "{blocked:?}");
    // A page's own bearer token is not a login of the user's: it goes through.
    let request =
        format!("GET {url} HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer abc.def\r\nConnection: close\r\n\r\n", a.addr);
    let resp = exchange_closing(p.addr(), request.as_bytes());
    assert_ne!(status(&resp), 403, "{}", head_of(&resp));
    assert_eq!(a.connections(), 1, "the origin answered the bearer request itself");
}

#[test]
fn other_schemes_are_refused_and_recorded() {
    let p = proxy();
    let resp = exchange(p.addr(), b"GET ftp://127.0.0.1/file.txt HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    assert_eq!(status(&resp), 403);
    assert_eq!(
        p.take_blocked(),
        vec![Blocked {
            url: "ftp://127.0.0.1/file.txt".into(),
            reason: "only http and https URLs are allowed, not \"ftp:\"".into(),
            method: "GET".into()
        }]
    );
    // https in absolute form is judged, then refused as something the proxy does not do.
    let resp = exchange(p.addr(), b"GET https://127.0.0.1/ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    assert_eq!(status(&resp), 501);
    let resp = exchange(p.addr(), b"GET https://127.0.0.2/ HTTP/1.1\r\nHost: 127.0.0.2\r\n\r\n");
    assert_eq!(status(&resp), 403);
}

#[test]
fn the_proxy_is_not_a_web_server_and_does_not_loop() {
    let p = proxy();
    let own = p.addr();
    let resp = exchange(own, format!("GET / HTTP/1.1\r\nHost: {own}\r\n\r\n").as_bytes());
    assert_eq!(status(&resp), 400);
    assert!(String::from_utf8_lossy(body_of(&resp)).contains("not a web server"));
    // 127.0.0.1 is allowed, but the proxy's own port is not a destination.
    let resp = get(own, &format!("http://{own}/"));
    assert_eq!(status(&resp), 400, "{}", String::from_utf8_lossy(&resp));
    assert!(String::from_utf8_lossy(body_of(&resp)).contains("proxy itself"));
    let resp = exchange(own, format!("CONNECT {own} HTTP/1.1\r\nHost: {own}\r\n\r\n").as_bytes());
    assert_eq!(status(&resp), 400);
    assert_eq!(status(&exchange(own, b"OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n")), 400);
}

#[test]
fn malformed_heads_get_400_and_the_proxy_keeps_serving() {
    let (p, a, b) = (proxy(), Origin::http("127.0.0.1"), Origin::http("127.0.0.2"));
    let target = a.url("/");
    let oversized = format!("GET {target} HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n", "a".repeat(40 * 1024));
    let many: String = (0..200).map(|i| format!("X-{i}: v\r\n")).collect();
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("garbage", b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03garbage\r\n\r\n".to_vec()),
        ("oversized head", oversized.into_bytes()),
        ("too many headers", format!("GET {target} HTTP/1.1\r\nHost: x\r\n{many}\r\n").into_bytes()),
        ("missing host", format!("GET {target} HTTP/1.1\r\nAccept: */*\r\n\r\n").into_bytes()),
        ("two hosts", format!("GET {target} HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n").into_bytes()),
        ("header without colon", format!("GET {target} HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n").into_bytes()),
        ("NUL in a header", format!("GET {target} HTTP/1.1\r\nHost: x\r\nX: a\0b\r\n\r\n").into_bytes()),
        ("NUL in the target", format!("GET {target}\0 HTTP/1.1\r\nHost: x\r\n\r\n").into_bytes()),
        ("bare LF", format!("GET {target} HTTP/1.1\nHost: x\n\n").into_bytes()),
        ("HTTP/2 preface", b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec()),
        ("truncated", format!("GET {target} HTTP/1.1\r\nHost:").into_bytes()),
        (
            "refused host, malformed",
            format!("GET {} HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n", b.url("/")).into_bytes(),
        ),
        ("CONNECT without port", b"CONNECT 127.0.0.1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".to_vec()),
        ("CONNECT with a path", b"CONNECT 127.0.0.2/x:443 HTTP/1.1\r\nHost: x\r\n\r\n".to_vec()),
    ];
    for (name, raw) in &cases {
        let resp = exchange_closing(p.addr(), raw);
        assert_eq!(status(&resp), 400, "{name}: {}", String::from_utf8_lossy(&resp));
        assert!(head_of(&resp).contains("Connection: close"), "{name}");
        let ok = get(p.addr(), &target);
        assert_eq!(status(&ok), 200, "serving after {name}");
    }
    assert_eq!(a.requests().len(), cases.len(), "only the good requests reached the origin");
    assert_eq!(b.connections(), 0);
    assert_eq!(p.stats().bad_requests, cases.len() as u64);
}

#[test]
fn a_silent_client_does_not_block_others_and_times_out() {
    let limits = ProxyLimits { head_timeout: Duration::from_millis(300), ..ProxyLimits::default() };
    let (p, a) = (PolicyProxy::start_with(policy(), limits).expect("start"), Origin::http("127.0.0.1"));
    let mut silent = TcpStream::connect(p.addr()).expect("connect");
    let mut trickle = TcpStream::connect(p.addr()).expect("connect");
    trickle.write_all(b"GET http://127.0.0.1/ HTTP/1.1\r\n").expect("write");
    assert_eq!(status(&get(p.addr(), &a.url("/"))), 200);
    silent.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
    trickle.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
    let start = Instant::now();
    assert_eq!(status(&common::read_to_close(&mut silent)), 408);
    let _ = trickle.write_all(b"Host: 127.0.0.1\r\n");
    assert_eq!(status(&common::read_to_close(&mut trickle)), 408);
    assert!(start.elapsed() < Duration::from_secs(5));
}

#[test]
fn connections_beyond_the_limit_get_503() {
    let limits = ProxyLimits { max_connections: 2, ..ProxyLimits::default() };
    let (p, a) = (PolicyProxy::start_with(policy(), limits).expect("start"), Origin::http("127.0.0.1"));
    let held: Vec<TcpStream> = (0..2).map(|_| TcpStream::connect(p.addr()).expect("connect")).collect();
    // Until both held connections have been accepted, a GET may still get through.
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut resp = get(p.addr(), &a.url("/"));
    while status(&resp) != 503 && Instant::now() < deadline {
        resp = get(p.addr(), &a.url("/"));
    }
    assert_eq!(status(&resp), 503);
    assert!(p.stats().overloaded >= 1);
    drop(held);
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut resp = get(p.addr(), &a.url("/"));
    while status(&resp) != 200 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
        resp = get(p.addr(), &a.url("/"));
    }
    assert_eq!(status(&resp), 200, "served again once the held connections closed");
}

#[test]
fn websocket_upgrades_are_judged_then_tunnelled() {
    let (p, a, b) = (proxy(), Origin::http("127.0.0.1"), Origin::http("127.0.0.2"));
    let mut s = TcpStream::connect(p.addr()).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
    write!(
        s,
        "GET {} HTTP/1.1\r\nHost: x\r\nConnection: keep-alive, Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Key: k\r\nSec-WebSocket-Version: 13\r\n\r\n",
        a.url("/ws")
    )
    .expect("write");
    let want = b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n";
    let mut answer = vec![0u8; want.len()];
    s.read_exact(&mut answer).expect("101");
    assert_eq!(answer, want);
    s.write_all(b"frame bytes").expect("write");
    let mut back = [0u8; 11];
    s.read_exact(&mut back).expect("echo");
    assert_eq!(&back, b"frame bytes");
    let head = &a.requests()[0].head;
    assert!(head.contains("\r\nUpgrade: websocket\r\n") && head.contains("\r\nConnection: Upgrade\r\n"), "{head}");
    drop(s);

    let resp = exchange(
        p.addr(),
        format!("GET {} HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n", b.url("/ws"))
            .as_bytes(),
    );
    assert_eq!(status(&resp), 403);
    assert_eq!(b.connections(), 0);
}

#[test]
fn dropping_the_proxy_closes_the_listener_and_open_tunnels() {
    let (p, echo) = (proxy(), Origin::echo("127.0.0.1"));
    let addr = p.addr();
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
    write!(s, "CONNECT {0} HTTP/1.1\r\nHost: {0}\r\n\r\n", echo.addr).expect("write");
    let mut answer = [0u8; 39];
    s.read_exact(&mut answer).expect("answer");
    let start = Instant::now();
    drop(p);
    assert!(start.elapsed() < Duration::from_secs(3));
    let mut buf = [0u8; 16];
    assert!(matches!(s.read(&mut buf), Ok(0) | Err(_)), "the tunnel was shut down");
    assert!(TcpStream::connect_timeout(&addr, Duration::from_secs(1)).is_err(), "nothing listens any more");
}

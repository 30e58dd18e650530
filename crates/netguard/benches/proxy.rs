//! What the URL-policy proxy costs a page load: sequential GETs of a 100 KB page from a loopback
//! origin, directly and through the proxy, taking turns each round so load from elsewhere on the
//! machine lands on both alike. Each GET is a fresh connection (the proxy serves one request per
//! connection, so the direct GETs do too). Prints medians, p90s and the median ratio.
//!
//! ```text
//! cargo bench -p handrail-netguard --bench proxy      # HANDRAIL_BENCH_RUNS=N GETs each (default 301)
//! ```

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::time::{Duration, Instant};

use handrail_core::guard::url::UrlPolicy;
use handrail_netguard::PolicyProxy;

const PAGE: usize = 100 * 1024;
const WARMUP: usize = 10;

fn origin() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a port");
    let addr = listener.local_addr().expect("address");
    let page: Vec<u8> = (0..PAGE).map(|i| b'a' + (i % 26) as u8).collect();
    std::thread::spawn(move || {
        for mut s in listener.incoming().flatten() {
            let mut head = Vec::new();
            let mut buf = [0u8; 4096];
            while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                match s.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => head.extend_from_slice(&buf[..n]),
                }
            }
            let _ = write!(
                s,
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {PAGE}\r\nConnection: close\r\n\r\n"
            );
            let _ = s.write_all(&page);
            let _ = s.shutdown(Shutdown::Write);
            let _ = s.set_read_timeout(Some(Duration::from_millis(200)));
            while matches!(s.read(&mut buf), Ok(n) if n > 0) {}
        }
    });
    addr
}

/// One GET of `target` sent to `to`; the time until the whole response has arrived.
fn fetch(to: SocketAddr, target: &str, host: SocketAddr) -> Duration {
    let start = Instant::now();
    let mut s = TcpStream::connect(to).expect("connect");
    s.set_nodelay(true).expect("nodelay");
    write!(s, "GET {target} HTTP/1.1\r\nHost: {host}\r\nUser-Agent: bench\r\n\r\n").expect("send");
    let mut got = Vec::with_capacity(PAGE + 512);
    s.read_to_end(&mut got).expect("response");
    let elapsed = start.elapsed();
    assert!(got.starts_with(b"HTTP/1.1 200 ") && got.len() > PAGE, "a whole page");
    elapsed
}

fn quantile(sorted: &[Duration], q: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

fn main() {
    let runs: usize = std::env::var("HANDRAIL_BENCH_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(301);
    let origin = origin();
    let proxy = PolicyProxy::start(UrlPolicy { allowed_domains: vec!["127.0.0.1".into()] }).expect("proxy");
    let absolute = format!("http://{origin}/");
    let (mut direct, mut proxied) = (Vec::new(), Vec::new());
    for i in 0..WARMUP + runs {
        let d = fetch(origin, "/", origin);
        let p = fetch(proxy.addr(), &absolute, origin);
        if i >= WARMUP {
            direct.push(d);
            proxied.push(p);
        }
    }
    direct.sort();
    proxied.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!("{runs} sequential GETs of a {} KB page on loopback, one connection each\n", PAGE / 1024);
    println!("| path | median | p90 |");
    println!("|---|---:|---:|");
    for (name, v) in [("direct", &direct), ("through the proxy", &proxied)] {
        println!("| {name} | {:.3} ms | {:.3} ms |", ms(quantile(v, 0.5)), ms(quantile(v, 0.9)));
    }
    let ratio = quantile(&proxied, 0.5).as_secs_f64() / quantile(&direct, 0.5).as_secs_f64();
    println!("\nmedian ratio (proxy ÷ direct): {ratio:.2}x");
    let stats = proxy.stats();
    assert_eq!((stats.blocked, stats.bad_requests), (0, 0));
}

//! What the URL-policy proxy costs a real page load: headless Chromium loads a page of 40 images, 2
//! style sheets and 2 scripts from a loopback origin, directly (`--no-proxy-server`) and through
//! `PolicyProxy` (the flags every browser handrail launches gets), taking turns each round. The page
//! itself measures its load: its `onload` writes `performance.now()` (milliseconds since navigation
//! start) into the DOM Chromium dumps, so browser start-up is not counted. Prints medians, p90s and
//! the median ratio.
//!
//! ```text
//! cargo bench -p handrail-netguard --bench page_load   # HANDRAIL_BENCH_RUNS=N loads each (default 21)
//! ```

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener};
use std::process::{Command, Stdio};
use std::time::Duration;

use handrail_core::guard::url::UrlPolicy;
use handrail_netguard::{PolicyProxy, CHROMIUM_NO_BYPASS_ARGS};

const CHROMIUM: &str = "/usr/bin/chromium";
const IMAGES: usize = 40;
const WARMUP: usize = 2;

/// A 1x1 GIF.
const GIF: &[u8] = b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;";

fn page() -> String {
    let images: String = (0..IMAGES).map(|i| format!("<img src=\"/img/{i}.gif\" width=8 height=8>")).collect();
    format!(
        "<!doctype html><html><head><title>load</title><link rel=stylesheet href=/a.css><link rel=stylesheet \
         href=/b.css><script src=/a.js></script><script src=/b.js></script></head><body>{images}<p id=t></p>\
         <script>onload=()=>document.getElementById('t').textContent='LOADED '+performance.now().toFixed(1)\
         </script></body></html>"
    )
}

fn origin() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a port");
    let addr = listener.local_addr().expect("address");
    let page = page();
    std::thread::spawn(move || {
        for mut s in listener.incoming().flatten() {
            let page = page.clone();
            std::thread::spawn(move || {
                let mut head = Vec::new();
                let mut buf = [0u8; 4096];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match s.read(&mut buf) {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                let head = String::from_utf8_lossy(&head);
                let path = head.split(' ').nth(1).unwrap_or("/");
                let path = path.rsplit_once("://").map_or(path, |(_, rest)| rest.find('/').map_or("/", |i| &rest[i..]));
                let (kind, body): (&str, Vec<u8>) = if path.starts_with("/img/") {
                    ("image/gif", GIF.to_vec())
                } else if path.ends_with(".css") {
                    ("text/css", b"p{margin:1px}".to_vec())
                } else if path.ends_with(".js") {
                    ("text/javascript", b"window.x=(window.x||0)+1;".to_vec())
                } else {
                    ("text/html", page.into_bytes())
                };
                let _ = write!(
                    s,
                    "HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-store\r\n\
                     Connection: close\r\n\r\n",
                    body.len()
                );
                let _ = s.write_all(&body);
                let _ = s.shutdown(Shutdown::Write);
            });
        }
    });
    addr
}

/// One load of `url` in a fresh headless Chromium with `args`; the page's own load time.
fn load(url: &str, args: &[String], profile: &std::path::Path) -> Duration {
    let _ = std::fs::remove_dir_all(profile);
    let out = Command::new(CHROMIUM)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"])
        .args(["--disable-component-update", "--disable-sync", "--dump-dom"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(url)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .expect("chromium runs");
    let dom = String::from_utf8_lossy(&out.stdout);
    let ms: f64 = dom
        .split("LOADED ")
        .nth(1)
        .and_then(|r| r.split('<').next())
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("the page did not report its load: {dom}"));
    Duration::from_secs_f64(ms / 1e3)
}

fn quantile(sorted: &[Duration], q: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

fn main() {
    let runs: usize = std::env::var("HANDRAIL_BENCH_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(21);
    let origin = origin();
    let proxy = PolicyProxy::start(UrlPolicy { allowed_domains: vec!["127.0.0.1".into()] }).expect("proxy");
    let url = format!("http://{origin}/");
    let mut through = proxy.chromium_args();
    through.extend(CHROMIUM_NO_BYPASS_ARGS.map(String::from));
    let direct_args = vec!["--no-proxy-server".to_string()];
    let profile = std::env::temp_dir().join(format!("handrail-page-load-{}", std::process::id()));
    let (mut direct, mut proxied) = (Vec::new(), Vec::new());
    for i in 0..WARMUP + runs {
        let d = load(&url, &direct_args, &profile);
        let p = load(&url, &through, &profile);
        if i >= WARMUP {
            direct.push(d);
            proxied.push(p);
        }
    }
    let _ = std::fs::remove_dir_all(&profile);
    direct.sort();
    proxied.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!("{runs} loads each of a page with {IMAGES} images, 2 style sheets and 2 scripts, headless Chromium\n");
    println!("| path | median | p90 |");
    println!("|---|---:|---:|");
    for (name, v) in [("direct", &direct), ("through the proxy", &proxied)] {
        println!("| {name} | {:.1} ms | {:.1} ms |", ms(quantile(v, 0.5)), ms(quantile(v, 0.9)));
    }
    let ratio = quantile(&proxied, 0.5).as_secs_f64() / quantile(&direct, 0.5).as_secs_f64();
    println!("\nmedian ratio (proxy ÷ direct): {ratio:.2}x");
    let stats = proxy.stats();
    // Chromium's own background requests (to hosts outside the list) are refused; the page's never are.
    println!("requests of Chromium's own refused by the proxy: {}", stats.blocked);
    assert_eq!(stats.bad_requests, 0);
    assert!(stats.allowed as usize >= runs * (IMAGES + 5), "the proxied loads went through the proxy: {stats:?}");
}

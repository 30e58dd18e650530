//! Arbitrary and half-valid request heads thrown at a running proxy over loopback: the proxy never
//! panics, keeps answering, and nothing ever reaches the refused origin on 127.0.0.2.

mod common;

use std::sync::OnceLock;

use common::{exchange_closing, get, policy, status, Origin};
use handrail_netguard::PolicyProxy;
use proptest::prelude::*;

struct World {
    proxy: PolicyProxy,
    allowed: Origin,
    refused: Origin,
    refused_echo: Origin,
}

fn world() -> &'static World {
    static WORLD: OnceLock<World> = OnceLock::new();
    WORLD.get_or_init(|| World {
        proxy: PolicyProxy::start(policy()).expect("the proxy starts"),
        allowed: Origin::http("127.0.0.1"),
        refused: Origin::http("127.0.0.2"),
        refused_echo: Origin::echo("127.0.0.2"),
    })
}

/// Request targets aimed at the refused origins in many spellings, at the allowed one, and junk.
fn target() -> impl Strategy<Value = String> {
    let w = world();
    let (b, e, a) = (w.refused.addr.port(), w.refused_echo.addr.port(), w.allowed.addr.port());
    prop_oneof![
        4 => Just(format!("http://127.0.0.2:{b}/")),
        1 => Just(format!("http://2130706434:{b}/")),
        1 => Just(format!("http://0x7f.0.0.2:{b}/x")),
        1 => Just(format!("http://127.2:{b}/")),
        1 => Just(format!("http://[::ffff:127.0.0.2]:{b}/")),
        1 => Just(format!("http://127.0.0.1:{a}@127.0.0.2:{b}/")),
        1 => Just(format!("http://127.0.0.1\\@127.0.0.2:{b}/")),
        1 => Just(format!("http://127.0.0.2:{b}#@127.0.0.1:{a}/")),
        1 => Just(format!("http://localhost:{a}/")),
        1 => Just(format!("127.0.0.2:{e}")),
        1 => Just(format!("127.0.0.2:{b}")),
        1 => Just(format!("[::ffff:7f00:2]:{e}")),
        1 => Just(format!("127.0.0.1:{a}")),
        1 => Just(format!("http://127.0.0.1:{a}/")),
        2 => "[!-~]{1,40}",
        4 => "(http|https|ftp|HTTP)://[0-9a-f.:@\\[\\]\\\\%x]{0,24}[/?#]?[!-~]{0,10}",
    ]
}

fn head() -> impl Strategy<Value = Vec<u8>> {
    let structured = (
        "(GET|POST|CONNECT|HEAD|PUT|[A-Z]{1,6})",
        target(),
        proptest::collection::vec("[A-Za-z-]{1,12}: [ -~]{0,20}", 0..4),
        proptest::collection::vec(any::<u8>(), 0..64),
        proptest::bool::weighted(0.2),
    )
        .prop_map(|(method, target, fields, junk, with_junk)| {
            let mut raw = format!("{method} {target} HTTP/1.1\r\nHost: 127.0.0.2\r\n").into_bytes();
            for f in fields {
                raw.extend_from_slice(f.as_bytes());
                raw.extend_from_slice(b"\r\n");
            }
            if with_junk {
                raw.extend_from_slice(&junk);
            }
            raw.extend_from_slice(b"\r\n\r\n");
            raw
        });
    prop_oneof![1 => proptest::collection::vec(any::<u8>(), 0..512), 3 => structured]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 160, ..ProptestConfig::default() })]

    #[test]
    fn no_input_reaches_a_refused_origin(raw in head()) {
        let w = world();
        let resp = exchange_closing(w.proxy.addr(), &raw);
        prop_assert!(resp.is_empty() || resp.starts_with(b"HTTP/1.1 "), "{:?}", String::from_utf8_lossy(&resp));
        prop_assert_eq!(w.refused.connections(), 0);
        prop_assert_eq!(w.refused_echo.connections(), 0);
        let ok = get(w.proxy.addr(), &w.allowed.url("/"));
        prop_assert_eq!(status(&ok), 200);
    }
}

//! `AtspiSource` against Chromium on a private sandbox desktop, showing a local form served by a tiny
//! HTTP server on 127.0.0.1.

mod common;

use std::time::Duration;

use common::{find, form_html, launch_chromium, serve, test_limits, wait_for, FORM_SECRET};
use handrail_atspi::AtspiSource;
use handrail_platform::{Accessibility, AxHealth, AxNode, Role, States};

fn attr<'a>(n: &'a AxNode, key: &str) -> Option<&'a str> {
    n.attributes.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
}

#[test]
fn chromium_form_roles_labels_and_secure_password() {
    let sandbox = common::start_sandbox();
    let source = AtspiSource::new(sandbox.bus_address());
    let limits = test_limits();
    let url = serve(form_html());
    let _chromium = launch_chromium(&sandbox, &url);

    let snap = wait_for(&source, &limits, Duration::from_secs(60), |s| {
        find(s, Role::Button, "Delete account").is_some() && s.nodes.iter().any(|n| n.role() == Role::PasswordEntry)
    })
    .unwrap_or_else(|s| panic!("the form never appeared:\n{}", common::dump(&s)));
    assert_eq!(snap.health, AxHealth::Ok);

    let doc =
        snap.nodes.iter().find(|n| n.role() == Role::Document && n.name == "Handrail Form").expect("page document");
    assert_eq!(doc.native_role, "document web");
    assert_eq!(doc.app, "Chromium");
    let inside_doc = |n: &AxNode| {
        n.bounds.x >= doc.bounds.x
            && n.bounds.y >= doc.bounds.y
            && n.bounds.x + n.bounds.width as i32 <= doc.bounds.x + doc.bounds.width as i32
            && n.bounds.y + n.bounds.height as i32 <= doc.bounds.y + doc.bounds.height as i32
    };

    let heading = find(&snap, Role::Heading, "Account settings").expect("heading");
    assert!(inside_doc(heading));

    let user = find(&snap, Role::Entry, "Username").expect("labelled text input");
    assert_eq!(user.value.as_deref(), Some("alice"));
    assert_eq!(attr(user, "id"), Some("user"));
    assert!(user.states.contains(States::EDITABLE));
    assert!(inside_doc(user));

    // A <select> carries the option it shows (read from its hidden popup's selection).
    let country = find(&snap, Role::ComboBox, "Country").expect("labelled select");
    assert_eq!(country.value.as_deref(), Some("Guinea"), "{country:?}");
    assert_eq!(attr(country, "id"), Some("country"));

    let pw = snap.nodes.iter().find(|n| n.role() == Role::PasswordEntry).expect("password input");
    assert_eq!(pw.name, "Password");
    assert_eq!(pw.native_role, "password text");
    assert!(pw.states.contains(States::SECURE));
    assert_eq!(pw.value, None);
    assert_eq!(attr(pw, "id"), Some("pw"));

    let delete = find(&snap, Role::Button, "Delete account").expect("button");
    assert_eq!(attr(delete, "id"), Some("del"));
    assert!(inside_doc(delete));
    assert!(delete.bounds.width > 40 && delete.bounds.height > 10);

    let english = snap.nodes.iter().find(|n| n.role() == Role::Text && n.name == "Welcome back to your account.");
    assert!(english.is_some_and(|n| attr(n, "id") == Some("en")), "English paragraph:\n{}", common::dump(&snap));
    let thai = snap.nodes.iter().find(|n| n.role() == Role::Text && n.name == "ยินดีต้อนรับกลับสู่บัญชีของคุณ");
    assert!(thai.is_some(), "Thai paragraph:\n{}", common::dump(&snap));

    // The preset password never appears anywhere, in any form.
    for n in &snap.nodes {
        let leaked = [n.name.as_str(), n.description.as_str(), n.value.as_deref().unwrap_or_default()]
            .iter()
            .chain(n.attributes.iter().map(|(_, v)| v).map(|v| v.as_str()).collect::<Vec<_>>().iter())
            .any(|t| t.contains(FORM_SECRET));
        assert!(!leaked, "secret leaked: {n:?}");
    }

    // One focused node at most (Chromium's hidden popups keep focused documents of their own).
    assert!(snap.nodes.iter().filter(|n| n.states.contains(States::FOCUSED)).count() <= 1, "{}", common::dump(&snap));

    // A warm snapshot reuses the page and equals a cold walk.
    wait_for(&source, &limits, Duration::from_secs(10), |_| source.last_stats().windows_walked == 0)
        .unwrap_or_else(|s| panic!("windows kept being re-walked:\n{}", common::dump(&s)));
    let warm = source.snapshot(&limits);
    assert!(source.last_stats().windows_reused >= 1);
    source.clear_cache();
    let cold = source.snapshot(&limits);
    assert_eq!(warm.nodes, cold.nodes);
}

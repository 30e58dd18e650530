//! The desktop portal's route on GNOME 48 (`xdg-desktop-portal` with GNOME's backend, run in the
//! sandbox from the Debian 13 root file system): the person's answer to GNOME's consent dialog —
//! given through its accessibility tree by `testdata/apps/portal_consent.py`, as a person would
//! click — decides what handrail gets, and a remembered answer is not asked again. (The whole
//! conformance suite on this route: `crates/conformance/tests/gnome48_portal.rs`.)

use std::time::{Duration, Instant};

use handrail_gnome::{GnomeDesktop, GnomeError, GnomeOptions, MutterSession, PortalOptions, RouteChoice};
use handrail_launch::LaunchEnv;
use handrail_platform::absent::NoOcr;
use handrail_platform::{Desktop, Rect};
use handrail_portal::{PortalError, TokenFile};
use handrail_sandbox::{Sandbox, SandboxOptions, Session, REMOVED_ENV};
use handrail_testkit::LineApp;

/// Bound on the person's answer (the helper waits 60 s for the dialog to show).
const CONSENT: Duration = Duration::from_secs(90);

fn gnome_48_with_portal() -> Sandbox {
    Sandbox::start(SandboxOptions {
        session: Session::Gnome,
        parent_death_signal: false,
        gnome_root: Some(handrail_sandbox::trixie_gnome_root()),
        gnome_portal: true,
        ..SandboxOptions::default()
    })
    .expect("a GNOME 48 sandbox with the desktop portal (run scripts/setup-trixie)")
}

fn token_file(sandbox: &Sandbox) -> TokenFile {
    TokenFile(sandbox.root().join("state/handrail/portal-restore-token"))
}

/// Connects through the portal, the restore token kept in the sandbox's state.
fn connect(sandbox: &Sandbox, consent_timeout: Duration) -> Result<Desktop, GnomeError> {
    let mut launch = LaunchEnv::new(sandbox.env(), sandbox.root().join("browser"));
    launch.removed = REMOVED_ENV.iter().map(|s| s.to_string()).collect();
    let mut options = GnomeOptions::new(sandbox.bus_address(), sandbox.pipewire_socket(), launch);
    options.route = RouteChoice::Portal(PortalOptions { token_file: Some(token_file(sandbox)), consent_timeout });
    let ax = Box::new(handrail_atspi::AtspiSource::new(sandbox.bus_address()));
    GnomeDesktop::connect(options, ax, Box::new(NoOcr))
}

/// The person at the screen, answering the dialog once it shows.
fn person(sandbox: &Sandbox, answer: &str) -> LineApp {
    let mut command = sandbox.command("/usr/bin/python3");
    command.arg(concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/apps/portal_consent.py")).arg(answer);
    LineApp::spawn(command)
}

fn answered(person: &mut LineApp, answer: &str) {
    let want = format!("answered {answer}");
    assert!(person.wait_for_within(CONSENT, |l| l == want).is_some(), "the person answered {answer}");
}

/// Whether the desktop's picture shows something (not a blank or black frame).
fn shows_the_desktop(desktop: &Desktop) -> bool {
    let size = desktop.screen.screen_size().expect("the screen's size");
    let frame = desktop.screen.capture(Some(Rect::new(0, 0, size.width, 40)), None).expect("a capture");
    let first = frame.row(0)[..3].to_vec();
    (0..frame.size.height).any(|y| frame.row(y).chunks(4).any(|px| px[..3] != first[..]))
}

/// The person's answers in turn on one desktop: a Cancel, a Share without remote interaction, a
/// Share; then a start nobody answers, which the kept token must carry.
#[test]
fn the_persons_answer_decides_and_a_remembered_yes_is_not_asked_again() {
    let sandbox = gnome_48_with_portal();

    let mut declining = person(&sandbox, "cancel");
    let declined = connect(&sandbox, CONSENT).expect_err("the person cancelled");
    answered(&mut declining, "cancel");
    assert!(matches!(declined, GnomeError::Portal(PortalError::Declined)), "{declined:?}");
    assert!(declined.to_string().contains("declined"), "{declined}");
    assert_eq!(token_file(&sandbox).load(), None, "nothing to remember from a refusal");

    let mut looking_only = person(&sandbox, "share-screen-only");
    let screen_only = connect(&sandbox, CONSENT).expect_err("shared without remote interaction");
    answered(&mut looking_only, "share-screen-only");
    assert!(matches!(screen_only, GnomeError::Portal(PortalError::Incomplete { .. })), "{screen_only:?}");
    assert!(screen_only.to_string().contains("Allow Remote Interaction"), "{screen_only}");

    // The refusals left nothing half open: the person's yes now gives a working session.
    let mut sharing = person(&sandbox, "share");
    let desktop = connect(&sandbox, CONSENT).expect("the portal session after the person shared");
    answered(&mut sharing, "share");
    assert!(shows_the_desktop(&desktop), "the screen cast shows GNOME's top bar");
    let token = token_file(&sandbox).load().expect("the portal's restore token was kept");
    drop(desktop);

    // Nobody answers now: the kept token must do (the dialog would wait out the 20 s and fail).
    let started = Instant::now();
    let desktop = connect(&sandbox, Duration::from_secs(20)).expect("a session from the remembered answer");
    assert!(started.elapsed() < Duration::from_secs(20));
    assert!(shows_the_desktop(&desktop));
    assert!(token_file(&sandbox).load().is_some(), "the token handed back is kept for the next start (was {token})");
}

#[test]
fn without_a_portal_the_route_says_so() {
    // A desktop whose bus has no portal (an X11 sandbox: nothing owns org.freedesktop.portal.Desktop).
    let sandbox = Sandbox::start(SandboxOptions { parent_death_signal: false, ..SandboxOptions::default() })
        .expect("an X11 sandbox");
    let err = MutterSession::start_portal(sandbox.bus_address(), &PortalOptions::default())
        .expect_err("no portal on the bus");
    assert!(matches!(err, GnomeError::Portal(PortalError::Unavailable(_))), "{err:?}");
    assert!(err.to_string().contains("portal is not available"), "{err}");
}

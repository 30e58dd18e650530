//! The desktop portal's route to mutter: the same remote-desktop session and screen casts, asked
//! for through `xdg-desktop-portal` (`handrail-portal`) instead of mutter's own interfaces.
//!
//! For a handrail that cannot reach mutter's interfaces (confined, or on a session bus that filters
//! them) and for people who want GNOME's own consent in the loop: the first start shows GNOME's
//! "Remote Desktop" dialog (share a monitor, allow remote interaction, remember the selection);
//! with a stored restore token later starts are granted without it. GNOME's portal backend passes
//! every input call on to mutter unchanged, so the session behaves as mutter's own does.

use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use handrail_dbus::wire::Arg;
use handrail_dbus::Bus;
use handrail_platform::Rect;
use handrail_portal::session::StartOptions;
use handrail_portal::{Response, TokenFile, CLIPBOARD};
use log::{debug, info, warn};

use crate::error::GnomeError;
use crate::mutter::{
    add_matches, clipboard_owner_of, monitor_state, Iface, MutterSession, Route, Stream, CALL_TIMEOUT,
};

/// How the portal route starts.
#[derive(Debug, Clone)]
pub struct PortalOptions {
    /// Where the restore token is kept between runs; `None` asks every start.
    pub token_file: Option<TokenFile>,
    /// How long the person may take to answer GNOME's dialog.
    pub consent_timeout: Duration,
}

impl Default for PortalOptions {
    fn default() -> PortalOptions {
        PortalOptions { token_file: None, consent_timeout: Duration::from_secs(120) }
    }
}

impl MutterSession {
    /// Starts a remote-desktop session recording every monitor through the desktop portal on the
    /// session bus at `address`, asking the person unless a stored restore token is honoured, and
    /// stores the token the portal hands back.
    pub fn start_portal(address: &str, options: &PortalOptions) -> Result<MutterSession, GnomeError> {
        let (response_tx, responses) = mpsc::channel();
        let (transfer, transfers) = mpsc::channel();
        let clipboard_owner = Arc::new(Mutex::new(None));
        let owner_heard = Arc::clone(&clipboard_owner);
        let mut bus = Bus::connect(
            address,
            CALL_TIMEOUT,
            Box::new(move |m| {
                if let Some(response) = Response::of(m) {
                    let _ = response_tx.send(response);
                } else if m.interface == CLIPBOARD {
                    // The portal's clipboard signals: mutter's, with the session handle first.
                    let Ok(values) = m.values() else { return };
                    match (m.member.as_str(), values.as_slice()) {
                        ("SelectionTransfer", [_, mime, serial]) => {
                            if let (Some(mime), Some(serial)) = (mime.as_str(), serial.as_u32()) {
                                let _ = transfer.send((mime.to_owned(), serial));
                            }
                        }
                        ("SelectionOwnerChanged", [_, options]) => {
                            if let Some(owner) = clipboard_owner_of(options) {
                                debug!("the clipboard's owner: {owner:?}");
                                *owner_heard.lock().unwrap_or_else(|e| e.into_inner()) = Some(owner);
                            }
                        }
                        _ => {}
                    }
                }
            }),
        )?;
        add_matches(
            &mut bus,
            [
                handrail_portal::request::RESPONSE_RULE.to_owned(),
                format!("type='signal',interface='{CLIPBOARD}',member='SelectionTransfer'"),
                format!("type='signal',interface='{CLIPBOARD}',member='SelectionOwnerChanged'"),
            ],
        )?;
        let restore_token = options.token_file.as_ref().and_then(TokenFile::load);
        let start = StartOptions { restore_token, consent_timeout: options.consent_timeout };
        let started = handrail_portal::session::start(&mut bus, &responses, &start)?;
        if let (Some(file), Some(token)) = (&options.token_file, &started.restore_token) {
            if let Err(e) = file.store(token) {
                warn!("keeping the portal's restore token in {}: {e}; the desktop will ask again", file.0.display());
            }
        } else if options.token_file.is_some() && started.version < 2 {
            info!("this desktop's portal (version {}) gives no restore token: it asks at every start", started.version);
        }
        let scales = monitor_scales(&mut bus);
        let streams = started
            .streams
            .iter()
            .map(|s| {
                let area = Rect::new(s.position.0, s.position.1, s.size.0, s.size.1);
                // The monitor at the stream's place: its connector and scale.
                let monitor = scales.iter().find(|m| (m.area.x, m.area.y) == s.position);
                Stream {
                    path: String::new(),
                    connector: monitor.map_or_else(|| format!("portal stream {}", s.node), |m| m.connector.clone()),
                    area,
                    node: s.node,
                    scale: monitor.map_or(1.0, |m| m.stage_to_stream),
                }
            })
            .collect();
        debug!("portal session {}: streams {streams:?}", started.session);
        let session = MutterSession::from_parts(
            bus,
            Route::Portal,
            started.session,
            streams,
            transfers,
            clipboard_owner,
            started.clipboard,
        );
        wake_keyboard(&session)?;
        Ok(session)
    }
}

/// The monitors as mutter's display configuration describes them, where it can be read; else none,
/// and pointer positions go unscaled (right unless fractional scaling is on).
fn monitor_scales(bus: &mut Bus) -> Vec<crate::display::MonitorScale> {
    match monitor_state(bus) {
        Ok((_, scales)) => scales,
        Err(e) => {
            debug!("mutter's display configuration is not readable here ({e}): pointer positions are not scaled");
            Vec::new()
        }
    }
}

/// Taps Control once through the session's keyboard, as mutter's own route does (see
/// `mutter::wake_keyboard`): behind the portal is a mutter session like any other. The press is
/// answered before the release goes: sent together, the portal passed the release on first
/// (its threads), mutter then counted Control as held, and ignored every later press of it
/// ("Received multiple virtual 0x1d key presses" in its log; shortcuts lost their Control).
fn wake_keyboard(session: &MutterSession) -> Result<(), GnomeError> {
    const CONTROL_L: i32 = 0xffe3;
    for pressed in [1, 0] {
        let (target, args) = session.call_args(Iface::Input, vec![Arg::I32(CONTROL_L), Arg::U32(pressed)]);
        session.bus().call(
            &target.call("NotifyKeyboardKeysym", &args),
            CALL_TIMEOUT,
            "waking the session's keyboard",
        )?;
    }
    Ok(())
}

//! What can go wrong asking the desktop portal.

use std::time::Duration;

use handrail_dbus::DbusError;

#[derive(Debug, thiserror::Error)]
pub enum PortalError {
    /// Nothing answers as the portal on this bus, or it lacks the remote-desktop portal.
    #[error("the desktop portal is not available: {0}")]
    Unavailable(String),
    /// The person closed the dialog or pressed Cancel.
    #[error(
        "the person declined to share the screen and allow remote control in the desktop's dialog; \
         start again and choose Share, with \"Allow Remote Interaction\" on"
    )]
    Declined,
    /// The person shared the screen but did not allow input (or the reverse).
    #[error(
        "the desktop's dialog was answered without {missing}: handrail needs the screen and remote \
         interaction both; start again and turn \"Allow Remote Interaction\" on"
    )]
    Incomplete { missing: &'static str },
    /// Nobody answered the dialog in time; the session is closed again.
    #[error(
        "nobody answered the desktop's screen-sharing dialog within {0:?}: it asks the person at the \
         screen to allow handrail to see and control it (once, if \"Remember This Selection\" is on)"
    )]
    NoAnswer(Duration),
    /// The portal ended a step without a result (its own failure, or the session was closed).
    #[error("the desktop portal ended {step} without a result")]
    Ended { step: &'static str },
    /// The portal answered something other than its interface says.
    #[error("the desktop portal answered {step} unexpectedly: {detail}")]
    Unexpected { step: &'static str, detail: String },
    #[error("the desktop portal's D-Bus: {0}")]
    Dbus(#[from] DbusError),
}

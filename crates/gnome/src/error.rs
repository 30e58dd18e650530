//! What can go wrong driving mutter.

use handrail_dbus::DbusError;
use handrail_platform::PlatformError;

#[derive(Debug, thiserror::Error)]
pub enum GnomeError {
    #[error("mutter's D-Bus: {0}")]
    Dbus(#[from] DbusError),
    /// mutter answered something other than its interface says.
    #[error("mutter answered unexpectedly: {0}")]
    Unexpected(String),
    /// The clipboard's owner did not hand over its content (too large, too slow, a broken pipe).
    #[error("reading the clipboard: {0}")]
    ClipboardRead(String),
    /// The person did not allow the portal session the clipboard, which text the active layout
    /// cannot type is pasted through.
    #[error(
        "the person did not allow clipboard access in the desktop's dialog, and the text holds \
         characters the active keyboard layout cannot type: allow it (\"Allow Clipboard Access\") \
         or switch to a layout that has them"
    )]
    ClipboardNotAllowed,
    #[error("no monitor to record: mutter lists none")]
    NoMonitor,
    /// GNOME Shell runs without handrail's extension (not installed, not enabled, or installed
    /// since the session started: GNOME Shell on Wayland loads new extensions at the next login).
    #[error(
        "handrail's GNOME Shell extension does not answer: install it with `handrail gnome-extension`, \
         log out and in again (GNOME on Wayland loads new extensions only at login), and enable it \
         (`gnome-extensions enable {uuid}`); without it GNOME tells no program where windows are",
        uuid = handrail_gnome_extension::UUID
    )]
    NoExtension,
    /// The desktop portal's route failed: not offered, declined, unanswered.
    #[error(transparent)]
    Portal(#[from] handrail_portal::PortalError),
    #[error(transparent)]
    Pipewire(#[from] handrail_pipewire::PipewireError),
}

impl From<GnomeError> for PlatformError {
    fn from(e: GnomeError) -> Self {
        match e {
            GnomeError::Dbus(DbusError::Timeout { what, after }) => {
                PlatformError::Timeout(format!("mutter's answer to {what} (waited {after:?})"))
            }
            other => PlatformError::Failed(other.to_string()),
        }
    }
}

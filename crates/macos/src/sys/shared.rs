//! What the parts of the Mac desktop share: the permission checks, the screen's pixel space and the
//! keyboard layout, each read from the system when first needed and again when it may have changed.

use std::sync::{Arc, Mutex, MutexGuard};

use handrail_platform::PlatformError;

use crate::layout::KeyboardLayout;
use crate::permission::{Grant, Permission, Permissions};
use crate::space::ScreenSpace;

#[derive(Clone)]
pub struct Shared {
    /// The app the person grants permissions to (the terminal or host handrail runs in).
    pub host: String,
    inner: Arc<Mutex<Inner>>,
}

#[derive(Default)]
struct Inner {
    permissions: Permissions,
    space: Option<ScreenSpace>,
    layout: Option<(String, KeyboardLayout)>,
}

impl Shared {
    pub fn new(host: String) -> Shared {
        Shared { host, inner: Arc::new(Mutex::new(Inner::default())) }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic elsewhere while holding the lock leaves plain data behind: keep using it.
        self.inner.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub fn permissions(&self) -> PermissionsGuard<'_> {
        PermissionsGuard(self.lock())
    }

    /// `permission` granted (checked with `probe`, see [`Permissions::check`]), or the refusal that
    /// says where to grant it.
    pub fn require(&self, permission: Permission, probe: impl FnOnce(bool) -> bool) -> Result<(), PlatformError> {
        match self.permissions().check(permission, &self.host, probe) {
            Grant::Granted => Ok(()),
            Grant::Denied(why) | Grant::NeedsRestart(why) => Err(PlatformError::Unavailable(why)),
        }
    }

    /// The screen's pixel space, read again from the displays (they change when one is plugged in,
    /// mirrored or rearranged; the read is cheap).
    pub fn space(&self) -> Result<ScreenSpace, PlatformError> {
        let space = super::displays::read_space()?;
        self.lock().space = Some(space.clone());
        Ok(space)
    }

    /// The current keyboard layout, read again when the person switched input sources.
    pub fn layout(&self) -> Result<KeyboardLayout, PlatformError> {
        let id = super::keyboard::current_source_id();
        let mut inner = self.lock();
        if let Some((known, layout)) = &inner.layout {
            if *known == id {
                return Ok(layout.clone());
            }
        }
        let layout = super::keyboard::read_layout()?;
        inner.layout = Some((id, layout.clone()));
        Ok(layout)
    }
}

pub struct PermissionsGuard<'a>(MutexGuard<'a, Inner>);

impl std::ops::Deref for PermissionsGuard<'_> {
    type Target = Permissions;
    fn deref(&self) -> &Permissions {
        &self.0.permissions
    }
}

impl std::ops::DerefMut for PermissionsGuard<'_> {
    fn deref_mut(&mut self) -> &mut Permissions {
        &mut self.0.permissions
    }
}

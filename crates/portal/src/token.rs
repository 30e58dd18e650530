//! The restore token, kept between runs.
//!
//! The portal hands out a restore token when the person ticked "Remember This Selection"; a later
//! start that passes it is granted without the dialog, and the portal answers with the token to use
//! next (the same or a new one: every start's is stored). It is a capability — whoever holds it may
//! start a session the person allowed — so it lives in a file only its owner may read.

use std::fs;
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Longest token kept; the portal's are UUIDs (36 characters).
const MAX_TOKEN: usize = 256;

/// A file holding one restore token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenFile(pub PathBuf);

impl TokenFile {
    /// `$XDG_STATE_HOME/handrail/portal-restore-token` (else under `$HOME/.local/state`): the
    /// person's own, across runs.
    pub fn in_state_home(xdg_state_home: Option<&Path>, home: Option<&Path>) -> Option<TokenFile> {
        let base = match xdg_state_home.filter(|p| p.is_absolute()) {
            Some(state) => state.to_owned(),
            None => home.filter(|p| p.is_absolute())?.join(".local/state"),
        };
        Some(TokenFile(base.join("handrail").join("portal-restore-token")))
    }

    /// The token stored, if there is a well-formed one.
    pub fn load(&self) -> Option<String> {
        let text = fs::read_to_string(&self.0).ok()?;
        let token = text.trim();
        if is_token(token) {
            Some(token.to_owned())
        } else {
            log::warn!("{}: not a restore token; the desktop will ask again", self.0.display());
            None
        }
    }

    /// Stores `token` (readable by its owner only), replacing the one before in one step.
    pub fn store(&self, token: &str) -> std::io::Result<()> {
        if !is_token(token) {
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a restore token"));
        }
        let dir = self.0.parent().ok_or_else(|| std::io::Error::other("a token file needs a directory"))?;
        fs::create_dir_all(dir)?;
        let partial = self.0.with_extension("partial");
        let mut file = fs::OpenOptions::new().write(true).create(true).truncate(true).mode(0o600).open(&partial)?;
        file.set_permissions(fs::Permissions::from_mode(0o600))?;
        file.write_all(token.as_bytes())?;
        file.write_all(b"\n")?;
        file.sync_all()?;
        fs::rename(&partial, &self.0)
    }

    /// Forgets the token (the portal refused it: the person revoked it, or it expired).
    pub fn forget(&self) {
        if let Err(e) = fs::remove_file(&self.0) {
            if e.kind() != std::io::ErrorKind::NotFound {
                log::warn!("forgetting the restore token {}: {e}", self.0.display());
            }
        }
    }
}

/// A token as portals make them: printable ASCII without spaces, not empty, not huge.
fn is_token(token: &str) -> bool {
    !token.is_empty() && token.len() <= MAX_TOKEN && token.bytes().all(|b| b.is_ascii_graphic())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("handrail-token-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn a_token_stored_is_loaded_and_only_its_owner_may_read_it() {
        let dir = scratch("store");
        let file = TokenFile(dir.join("state/handrail/portal-restore-token"));
        assert_eq!(file.load(), None, "nothing stored yet");
        file.store("bbef98d1-2065-4d29-a411-16379f838b2c").expect("stored");
        assert_eq!(file.load().as_deref(), Some("bbef98d1-2065-4d29-a411-16379f838b2c"));
        let mode = fs::metadata(&file.0).expect("the file").permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        file.store("next").expect("replaced");
        assert_eq!(file.load().as_deref(), Some("next"));
        file.forget();
        assert_eq!(file.load(), None);
        file.forget();
        let _ = fs::remove_dir_all(dir);
    }

    #[test]
    fn what_is_not_a_token_is_neither_stored_nor_loaded() {
        let dir = scratch("bad");
        let file = TokenFile(dir.join("t"));
        for bad in ["", "two words", "line\nbreak", "ü", &"x".repeat(MAX_TOKEN + 1)] {
            assert!(file.store(bad).is_err(), "{bad:?} stored");
        }
        fs::create_dir_all(&dir).expect("dir");
        fs::write(&file.0, "two words\n").expect("written");
        assert_eq!(file.load(), None);
        let _ = fs::remove_dir_all(dir);
    }

    #[test]
    fn the_token_lives_in_the_state_home() {
        let f = TokenFile::in_state_home(Some(Path::new("/s")), Some(Path::new("/h")));
        assert_eq!(f, Some(TokenFile("/s/handrail/portal-restore-token".into())));
        let f = TokenFile::in_state_home(None, Some(Path::new("/h")));
        assert_eq!(f, Some(TokenFile("/h/.local/state/handrail/portal-restore-token".into())));
        let f = TokenFile::in_state_home(Some(Path::new("relative")), Some(Path::new("/h")));
        assert_eq!(f, Some(TokenFile("/h/.local/state/handrail/portal-restore-token".into())), "relative: ignored");
        assert_eq!(TokenFile::in_state_home(None, None), None);
    }

    proptest! {
        #[test]
        fn any_token_stored_loads_back_the_same(token in "[!-~]{1,256}") {
            let dir = scratch("prop");
            let file = TokenFile(dir.join("t"));
            file.store(&token).expect("a token");
            prop_assert_eq!(file.load(), Some(token));
            let _ = fs::remove_dir_all(dir);
        }
    }
}

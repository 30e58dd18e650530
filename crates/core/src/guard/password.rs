//! Password fields (SPEC §5.6): typing into them is refused so credentials never pass through the model.
//!
//! Only the field about to receive the text is checked (the element just clicked or the action's target),
//! never the whole screen: a login form elsewhere must not block typing into a search box.

use handrail_platform::{Role, States};

use super::lexicon::{self, Prepared};

/// The exact refusal text (SPEC §5.6).
pub const PASSWORD_REFUSAL: &str =
    "refusing to type into what looks like a password field — enter credentials manually";

/// The password marker in `label`, if any (for messages and tests): the word for a password or PIN in
/// any language of [`super::lexicon`], since a label's language follows the page, not the user.
pub fn password_marker(label: &str) -> Option<&'static str> {
    let label = Prepared::new(label);
    if label.is_empty() {
        return None;
    }
    lexicon::password_in(&label)
}

/// Whether the field about to receive typed text is a password field: accessibility role
/// `PasswordEntry`, the `SECURE` state, or a label with a password marker.
pub fn is_password_field(role: Role, states: States, label: &str) -> bool {
    role == Role::PasswordEntry || states.contains(States::SECURE) || password_marker(label).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_password_fields() {
        let e = States::empty();
        let cases: &[(Role, States, &str, bool)] = &[
            (Role::PasswordEntry, e, "", true),
            (Role::PasswordEntry, e, "Search", true),
            (Role::Entry, States::SECURE, "", true),
            (Role::Entry, States::SECURE | States::FOCUSED, "Name", true),
            (Role::Entry, e, "Password", true),
            (Role::Entry, e, "Confirm password:", true),
            (Role::Entry, e, "PASSWORD", true),
            (Role::Entry, e, "Passcode", true),
            (Role::Entry, e, "passwd", true),
            (Role::Entry, e, "Passphrase", true),
            (Role::Entry, e, "Enter PIN", true),
            (Role::Entry, e, "PIN-Code", true),
            (Role::Entry, e, "pin:", true),
            (Role::Entry, e, "รหัสผ่าน", true),
            (Role::Entry, e, "รหัส ผ่าน", true),
            (Role::Entry, e, "กรอกรหัสผ่านของคุณ", true),
            (Role::Entry, e, "Passwort", true),
            (Role::Entry, e, "Pass\u{200B}word", true),
            (Role::Entry, e, "Search", false),
            (Role::Entry, e, "Username", false),
            (Role::Entry, e, "Email", false),
            (Role::Entry, e, "Spinner value", false),
            (Role::Entry, e, "Pinned notes", false),
            (Role::Entry, e, "Pinterest search", false),
            (Role::Entry, e, "Shipping address", false),
            (Role::Entry, e, "รหัสไปรษณีย์", false),
            (Role::Entry, e, "", false),
            (Role::TextArea, States::EDITABLE, "Message", false),
        ];
        for (role, states, label, want) in cases {
            assert_eq!(is_password_field(*role, *states, label), *want, "{role} {label:?}");
        }
    }

    #[test]
    fn refusal_text_is_exact() {
        assert_eq!(
            PASSWORD_REFUSAL,
            "refusing to type into what looks like a password field — enter credentials manually"
        );
    }
}

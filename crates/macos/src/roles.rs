//! macOS accessibility roles (`AXRole`, refined by `AXSubrole`) in handrail's role vocabulary.

use handrail_platform::Role;

/// The role of an element whose `AXRole` is `role` and `AXSubrole` is `subrole` (empty when it has
/// none). `in_terminal`: the element belongs to a terminal app (Terminal.app's screen is a text area).
pub fn role_of(role: &str, subrole: &str, in_terminal: bool) -> Role {
    match (role, subrole) {
        ("AXTextField", "AXSecureTextField") => Role::PasswordEntry,
        ("AXTextField" | "AXDateField" | "AXTimeField", _) => Role::Entry,
        ("AXTextArea", _) if in_terminal => Role::Terminal,
        ("AXTextArea", _) => Role::TextArea,
        ("AXCheckBox", "AXToggle" | "AXSwitch") => Role::ToggleButton,
        ("AXCheckBox", _) => Role::Checkbox,
        ("AXRadioButton", "AXTabButton") => Role::Tab,
        ("AXRadioButton", _) => Role::RadioButton,
        ("AXDisclosureTriangle", _) => Role::ToggleButton,
        ("AXButton" | "AXMenuButton" | "AXColorWell", _) => Role::Button,
        ("AXPopUpButton" | "AXComboBox", _) => Role::ComboBox,
        ("AXLink", _) => Role::Link,
        ("AXMenuItem" | "AXMenuBarItem", _) => Role::MenuItem,
        ("AXMenu", _) => Role::Menu,
        ("AXMenuBar", _) => Role::MenuBar,
        ("AXSlider", _) => Role::Slider,
        ("AXIncrementor" | "AXStepper", _) => Role::SpinButton,
        ("AXStaticText", _) => Role::Text,
        ("AXHeading", _) => Role::Heading,
        ("AXImage", _) => Role::Image,
        ("AXSheet", _) => Role::Dialog,
        ("AXWindow", "AXDialog" | "AXSystemDialog") => Role::Dialog,
        ("AXWindow", _) => Role::Window,
        ("AXToolbar", _) => Role::ToolBar,
        ("AXList", _) => Role::List,
        ("AXOutline" | "AXTable" | "AXGrid" | "AXBrowser", _) => Role::Table,
        ("AXRow", _) => Role::ListItem,
        ("AXCell", _) => Role::Cell,
        ("AXScrollBar", _) => Role::ScrollBar,
        ("AXWebArea", _) => Role::Document,
        ("AXGroup", "AXApplicationAlertDialog" | "AXApplicationDialog") => Role::Dialog,
        ("AXGroup", "AXApplicationAlert") => Role::Alert,
        (_, "AXTabButton") => Role::Tab,
        _ => Role::Other,
    }
}

/// `AXValue` of a checkbox, radio button or switch: 1 is on, 2 mixed (counted as not checked).
pub fn checked_from(role: Role, value: Option<f64>) -> bool {
    matches!(role, Role::Checkbox | Role::RadioButton | Role::ToggleButton | Role::Tab) && value == Some(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subroles_refine_roles() {
        assert_eq!(role_of("AXTextField", "AXSecureTextField", false), Role::PasswordEntry);
        assert_eq!(role_of("AXTextField", "AXSearchField", false), Role::Entry);
        assert_eq!(role_of("AXCheckBox", "AXSwitch", false), Role::ToggleButton);
        assert_eq!(role_of("AXCheckBox", "", false), Role::Checkbox);
        assert_eq!(role_of("AXRadioButton", "AXTabButton", false), Role::Tab);
        assert_eq!(role_of("AXWindow", "AXStandardWindow", false), Role::Window);
        assert_eq!(role_of("AXWindow", "AXDialog", false), Role::Dialog);
        assert_eq!(role_of("AXButton", "AXCloseButton", false), Role::Button);
        assert_eq!(role_of("AXGroup", "", false), Role::Other);
        assert_eq!(role_of("AXGroup", "AXApplicationAlertDialog", false), Role::Dialog, "a web dialog");
    }

    #[test]
    fn a_terminal_apps_text_area_is_its_terminal() {
        assert_eq!(role_of("AXTextArea", "", true), Role::Terminal);
        assert_eq!(role_of("AXTextArea", "", false), Role::TextArea);
        assert_eq!(role_of("AXTextField", "", true), Role::Entry, "a field in a terminal's settings");
    }

    #[test]
    fn only_a_value_of_one_checks() {
        assert!(checked_from(Role::Checkbox, Some(1.0)));
        assert!(!checked_from(Role::Checkbox, Some(2.0)), "mixed");
        assert!(!checked_from(Role::Checkbox, None));
        assert!(!checked_from(Role::Slider, Some(1.0)));
    }
}

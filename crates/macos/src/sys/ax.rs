//! The accessibility tree through `AXUIElement`: every app with a window on screen (its windows) and
//! the frontmost app's menu bar (with the menu that is open), walked by [`crate::walk`].

use std::ffi::c_void;
use std::ptr::NonNull;
use std::time::Instant;

use handrail_platform::{Accessibility, AxHealth, AxLimits, AxSnapshot, WindowKind, Windows};
use objc2_application_services::{AXCopyMultipleAttributeOptions, AXError, AXUIElement, AXValue, AXValueType};
use objc2_core_foundation::{
    kCFBooleanTrue, CFArray, CFBoolean, CFDictionary, CFRetained, CFString, CFType, CGPoint, CGSize,
};

use super::ax_element::attribute;
use super::cf;
use super::shared::Shared;
use super::windows::MacWindows;
use crate::menu_keys::MenuShortcut;
use crate::node::{AxValue as Value, RawElement};
use crate::permission::{Grant, Permission};
use crate::walk::{walk, ReadError, Root, Tree};

/// The attributes read from every element, in one call each.
const ATTRIBUTES: [&str; 22] = [
    "AXRole",
    "AXSubrole",
    "AXTitle",
    "AXDescription",
    "AXHelp",
    "AXPlaceholderValue",
    "AXValue",
    "AXFocused",
    "AXEnabled",
    "AXSelected",
    "AXExpanded",
    "AXMinimized",
    "AXPosition",
    "AXSize",
    "AXIdentifier",
    "AXDOMIdentifier",
    "AXDOMClassList",
    "AXMenuItemCmdChar",
    "AXMenuItemCmdGlyph",
    "AXMenuItemCmdModifiers",
    "AXTitleUIElement",
    "AXChildren",
];

struct Names {
    list: CFRetained<CFArray<CFString>>,
}

impl Names {
    fn new() -> Names {
        let strings: Vec<CFRetained<CFString>> = ATTRIBUTES.iter().map(|a| CFString::from_str(a)).collect();
        let refs: Vec<&CFString> = strings.iter().map(|s| &**s).collect();
        Names { list: CFArray::from_objects(&refs) }
    }
}

fn read_error(e: AXError) -> ReadError {
    match e {
        AXError::APIDisabled => ReadError::NotPermitted,
        AXError::CannotComplete => ReadError::Timeout,
        AXError::InvalidUIElement => ReadError::Gone,
        other => ReadError::Other(format!("AXError {}", other.0)),
    }
}

/// One attribute value, unless it is the error placeholder the multiple-value call puts in place
/// of an attribute the element lacks.
fn present(v: &CFType) -> bool {
    match v.downcast_ref::<AXValue>() {
        // SAFETY: reading the type of a live AXValue.
        Some(ax) => (unsafe { ax.r#type() }) != AXValueType::AXError,
        None => true,
    }
}

fn point(v: &CFType) -> Option<(f64, f64)> {
    let ax = v.downcast_ref::<AXValue>()?;
    let mut p = CGPoint { x: 0.0, y: 0.0 };
    // SAFETY: `p` is a CGPoint, the type asked for.
    let ok = unsafe { ax.value(AXValueType::CGPoint, NonNull::from(&mut p).cast::<c_void>()) };
    ok.then_some((p.x, p.y))
}

fn size(v: &CFType) -> Option<(f64, f64)> {
    let ax = v.downcast_ref::<AXValue>()?;
    let mut s = CGSize { width: 0.0, height: 0.0 };
    // SAFETY: `s` is a CGSize, the type asked for.
    let ok = unsafe { ax.value(AXValueType::CGSize, NonNull::from(&mut s).cast::<c_void>()) };
    ok.then_some((s.width, s.height))
}

struct MacTree {
    names: Names,
}

impl MacTree {
    fn values(&self, element: &AXUIElement) -> Result<Vec<Option<CFRetained<CFType>>>, ReadError> {
        let mut out: *const CFArray = std::ptr::null();
        // SAFETY: the names are CFStrings; `out` is a valid out-pointer to a +1 array.
        let err = unsafe {
            element.copy_multiple_attribute_values(
                self.names.list.as_opaque(),
                AXCopyMultipleAttributeOptions::empty(),
                NonNull::from(&mut out),
            )
        };
        if err != AXError::Success {
            return Err(read_error(err));
        }
        let Some(array) = NonNull::new(out as *mut CFArray) else { return Ok(vec![None; ATTRIBUTES.len()]) };
        // SAFETY: a +1 reference the call returned.
        let array = unsafe { CFRetained::from_raw(array) };
        let mut values: Vec<Option<CFRetained<CFType>>> =
            cf::items(&array).into_iter().map(|v| present(&v).then_some(v)).collect();
        values.resize(ATTRIBUTES.len(), None);
        Ok(values)
    }
}

fn index(name: &str) -> usize {
    ATTRIBUTES.iter().position(|a| *a == name).unwrap_or(0)
}

impl Tree for MacTree {
    type Handle = CFRetained<AXUIElement>;

    fn read(&self, element: &Self::Handle) -> Result<RawElement, ReadError> {
        let v = self.values(element)?;
        let at = |name: &str| v[index(name)].as_deref();
        let text = |name: &str| at(name).and_then(cf::string).unwrap_or_default();
        let flag = |name: &str| at(name).and_then(cf::boolean);
        let value = match at("AXValue") {
            None => Value::None,
            Some(x) => match (cf::string(x), x.downcast_ref::<CFBoolean>(), cf::number(x)) {
                (Some(s), _, _) => Value::Text(s),
                (_, Some(b), _) => Value::Bool(b.value()),
                (_, _, Some(n)) => Value::Number(n),
                _ => Value::None,
            },
        };
        let label = at("AXTitleUIElement")
            .and_then(|e| e.downcast_ref::<AXUIElement>())
            .and_then(|e| attribute(e, "AXValue").ok().flatten())
            .and_then(|v| cf::string(&v))
            .unwrap_or_default();
        let settable = |name: &str| {
            let name = CFString::from_str(name);
            let mut yes: u8 = 0;
            // SAFETY: `yes` is a valid Boolean out-pointer.
            let err = unsafe { element.is_attribute_settable(&name, NonNull::from(&mut yes)) };
            err == AXError::Success && yes != 0
        };
        let role = text("AXRole");
        let text_role = matches!(role.as_str(), "AXTextField" | "AXTextArea" | "AXComboBox");
        Ok(RawElement {
            subrole: text("AXSubrole"),
            title: text("AXTitle"),
            description: text("AXDescription"),
            help: text("AXHelp"),
            placeholder: text("AXPlaceholderValue"),
            label,
            value,
            value_settable: text_role && settable("AXValue"),
            focused: flag("AXFocused").unwrap_or(false),
            focusable: text_role || settable("AXFocused"),
            enabled: flag("AXEnabled"),
            selected: flag("AXSelected").unwrap_or(false),
            expanded: flag("AXExpanded"),
            is_default: false,
            minimized: flag("AXMinimized").unwrap_or(false),
            position: at("AXPosition").and_then(point),
            size: at("AXSize").and_then(size),
            actions: Vec::new(),
            shortcut: MenuShortcut {
                char: text("AXMenuItemCmdChar"),
                glyph: at("AXMenuItemCmdGlyph").and_then(cf::number).map(|g| g as i64),
                modifiers: at("AXMenuItemCmdModifiers").and_then(cf::number).map_or(0, |m| m as i64),
            },
            identifier: text("AXIdentifier"),
            dom_id: text("AXDOMIdentifier"),
            dom_classes: at("AXDOMClassList")
                .and_then(|l| l.downcast_ref::<CFArray>())
                .map(|l| cf::items(l).iter().filter_map(|c| cf::string(c)).collect())
                .unwrap_or_default(),
            role,
        })
    }

    fn children(&self, element: &Self::Handle) -> Result<Vec<Self::Handle>, ReadError> {
        let role = attribute(element, "AXRole").map_err(read_error)?.and_then(|r| cf::string(&r)).unwrap_or_default();
        // A closed menu's items are not on screen: only the open menu is walked.
        if role == "AXMenuBarItem" {
            let open = attribute(element, "AXSelected").map_err(read_error)?.and_then(|s| cf::boolean(&s));
            if open != Some(true) {
                return Ok(Vec::new());
            }
        }
        let Some(children) = attribute(element, "AXChildren").map_err(read_error)? else { return Ok(Vec::new()) };
        let Some(children) = children.downcast_ref::<CFArray>() else { return Ok(Vec::new()) };
        Ok(cf::items(children).into_iter().filter_map(|c| c.downcast::<AXUIElement>().ok()).collect())
    }
}

pub struct MacAccessibility {
    shared: Shared,
    windows: MacWindows,
    tree: MacTree,
}

// SAFETY: the AX elements and CF strings held are CoreFoundation objects, used from one thread at a
// time (the engine's).
unsafe impl Send for MacAccessibility {}

impl MacAccessibility {
    pub fn new(shared: Shared) -> Self {
        MacAccessibility { windows: MacWindows::new(shared.clone()), shared, tree: MacTree { names: Names::new() } }
    }

    fn trusted(&self) -> Grant {
        let host = self.shared.host.clone();
        self.shared.permissions().check(Permission::Accessibility, &host, |prompt| {
            // SAFETY: no arguments.
            let trusted = || unsafe { objc2_application_services::AXIsProcessTrusted() };
            if !prompt {
                return trusted();
            }
            // SAFETY: the framework's constant key and boolean.
            let (key, yes) = unsafe { (objc2_application_services::kAXTrustedCheckOptionPrompt, kCFBooleanTrue) };
            let Some(yes) = yes else { return trusted() };
            let options = CFDictionary::<CFString, CFBoolean>::from_slices(&[key], &[yes]);
            // SAFETY: a dictionary of the documented key and value types.
            unsafe { objc2_application_services::AXIsProcessTrustedWithOptions(Some(options.as_opaque())) }
        })
    }
}

impl Accessibility for MacAccessibility {
    fn snapshot(&self, limits: &AxLimits) -> AxSnapshot {
        if let Grant::Denied(why) | Grant::NeedsRestart(why) = self.trusted() {
            let mut s = AxSnapshot::new(AxHealth::PermissionRequired, Vec::new());
            s.notes.push(why);
            return s;
        }
        let started = Instant::now();
        let (Ok(space), Ok(stack)) = (self.shared.space(), self.windows.stack()) else {
            return AxSnapshot::unavailable();
        };
        let mut roots = Vec::new();
        let mut seen = Vec::new();
        let front = super::windows::front_pid();
        // Top of the stack first: what is in front matters most when the walk is cut short.
        for w in stack.iter().rev().filter(|w| w.kind == WindowKind::Normal) {
            let Some(pid) = w.info.pid else { continue };
            if seen.contains(&pid) {
                continue;
            }
            seen.push(pid);
            let Ok(pid_t) = i32::try_from(pid) else { continue };
            // SAFETY: any pid is accepted; an app that is gone answers with errors.
            let app = unsafe { AXUIElement::new_application(pid_t) };
            // SAFETY: setting a timeout on a live element.
            unsafe { app.set_messaging_timeout(limits.call_timeout.as_secs_f32()) };
            let in_terminal = handrail_platform::AppRules::macos().is_terminal_class(&w.info.class);
            if let Ok(Some(windows)) = attribute(&app, "AXWindows") {
                if let Some(windows) = windows.downcast_ref::<CFArray>() {
                    for window in cf::items(windows).into_iter().filter_map(|x| x.downcast::<AXUIElement>().ok()) {
                        let title = attribute(&window, "AXTitle")
                            .ok()
                            .flatten()
                            .and_then(|t| cf::string(&t))
                            .unwrap_or_default();
                        roots.push(Root { element: window, app: w.info.app.clone(), window: title, in_terminal });
                    }
                }
            }
            if Some(pid) == front {
                if let Ok(Some(bar)) = attribute(&app, "AXMenuBar") {
                    if let Ok(bar) = bar.downcast::<AXUIElement>() {
                        roots.push(Root {
                            element: bar,
                            app: w.info.app.clone(),
                            window: String::new(),
                            in_terminal: false,
                        });
                    }
                }
            }
        }
        walk(&self.tree, &roots, &space, limits, || started.elapsed())
    }
}

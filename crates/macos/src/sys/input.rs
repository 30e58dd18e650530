//! Input through CoreGraphics events posted at the HID level, as a person's mouse and keyboard would.

use std::time::Duration;

use handrail_platform::drag::DragPath;
use handrail_platform::{check_typed_length, Input, Key, KeyCombo, MouseButton, PlatformError, Point, ScrollDirection};
use objc2_core_foundation::{CFRetained, CGPoint};
use objc2_core_graphics::{
    CGEvent, CGEventField, CGEventFlags, CGEventSource, CGEventSourceStateID, CGEventTapLocation, CGEventType,
    CGMouseButton, CGScrollEventUnit,
};

use super::shared::Shared;
use crate::keycodes::{fixed_code, flags, missing_key_name, modifier_codes, modifier_flag, KeyError};
use crate::permission::Permission;
use crate::typing::{plan, TypingStep};

/// Between events of one gesture: apps coalesce events posted faster than they read them.
const EVENT_GAP: Duration = Duration::from_millis(8);

pub struct MacInput {
    shared: Shared,
    source: Option<CFRetained<CGEventSource>>,
}

// SAFETY: a CGEventSource is a CoreFoundation object, thread-safe to use from one thread at a time;
// MacInput is used by one thread at a time (`&self` calls are serialised by the engine).
unsafe impl Send for MacInput {}

impl MacInput {
    pub fn new(shared: Shared) -> Self {
        // Events from a private source carry no modifier state of the person's own keyboard.
        let source = CGEventSource::new(CGEventSourceStateID::Private);
        MacInput { shared, source }
    }

    fn allowed(&self) -> Result<(), PlatformError> {
        self.shared.require(Permission::PostEvents, |prompt| {
            if prompt {
                objc2_core_graphics::CGRequestPostEventAccess()
            } else {
                objc2_core_graphics::CGPreflightPostEventAccess()
            }
        })
    }

    fn to_points(&self, p: Point) -> Result<CGPoint, PlatformError> {
        let space = self.shared.space()?;
        if !space.on_a_display(p) {
            return Err(PlatformError::Invalid(format!("{},{} is on no display", p.x, p.y)));
        }
        let (x, y) = space.to_points(p);
        Ok(CGPoint { x, y })
    }

    fn post(&self, event: Option<CFRetained<CGEvent>>) -> Result<(), PlatformError> {
        let event = event.ok_or_else(|| PlatformError::Failed("CoreGraphics made no event".into()))?;
        CGEvent::post(CGEventTapLocation::HIDEventTap, Some(&event));
        std::thread::sleep(EVENT_GAP);
        Ok(())
    }

    fn mouse(
        &self,
        kind: CGEventType,
        at: CGPoint,
        button: CGMouseButton,
        click_state: i64,
    ) -> Result<(), PlatformError> {
        let event = CGEvent::new_mouse_event(self.source.as_deref(), kind, at, button);
        if let Some(e) = &event {
            CGEvent::set_integer_value_field(Some(e), CGEventField::MouseEventClickState, click_state);
        }
        self.post(event)
    }

    fn key_event(&self, code: u16, down: bool, flags: u64) -> Result<(), PlatformError> {
        let event = CGEvent::new_keyboard_event(self.source.as_deref(), code, down);
        if let Some(e) = &event {
            CGEvent::set_flags(Some(e), CGEventFlags(flags));
        }
        self.post(event)
    }

    /// The key code for a combination's key: fixed keys, else the current layout's key for the
    /// character.
    fn code_for(&self, combo: &KeyCombo) -> Result<u16, PlatformError> {
        match combo.key {
            Key::Char(ch) => {
                let layout = self.shared.layout()?;
                layout.combo_key(ch, combo.modifiers.super_key).map_err(|e| PlatformError::Invalid(e.to_string()))
            }
            key => fixed_code(key)
                .ok_or_else(|| PlatformError::Invalid(KeyError::NoSuchKey(missing_key_name(key)).to_string())),
        }
    }
}

fn buttons(button: MouseButton) -> (CGEventType, CGEventType, CGMouseButton) {
    match button {
        MouseButton::Left => (CGEventType::LeftMouseDown, CGEventType::LeftMouseUp, CGMouseButton::Left),
        MouseButton::Right => (CGEventType::RightMouseDown, CGEventType::RightMouseUp, CGMouseButton::Right),
        MouseButton::Middle => (CGEventType::OtherMouseDown, CGEventType::OtherMouseUp, CGMouseButton::Center),
    }
}

impl Input for MacInput {
    fn move_pointer(&self, to: Point) -> Result<(), PlatformError> {
        self.allowed()?;
        let at = self.to_points(to)?;
        self.mouse(CGEventType::MouseMoved, at, CGMouseButton::Left, 0)
    }

    fn click(&self, at: Point, button: MouseButton, count: u8) -> Result<(), PlatformError> {
        self.allowed()?;
        let at = self.to_points(at)?;
        let (down, up, which) = buttons(button);
        self.mouse(CGEventType::MouseMoved, at, which, 0)?;
        // The click state tells the app which click of a multi-click this is: 1 on a lone click, so it
        // is never joined to one before it, whatever the timing.
        for n in 1..=i64::from(count.max(1)) {
            let pressed = self.mouse(down, at, which, n);
            let released = self.mouse(up, at, which, n);
            pressed.and(released)?;
        }
        Ok(())
    }

    fn drag(&self, from: Point, to: Point) -> Result<(), PlatformError> {
        self.allowed()?;
        let path = DragPath::new(from, to);
        let start = self.to_points(path.start())?;
        let points: Vec<CGPoint> = path.steps().map(|p| self.to_points(p)).collect::<Result<_, _>>()?;
        self.mouse(CGEventType::MouseMoved, start, CGMouseButton::Left, 0)?;
        self.mouse(CGEventType::LeftMouseDown, start, CGMouseButton::Left, 1)?;
        let mut moved = Ok(());
        let mut last = start;
        for p in points {
            moved = self.mouse(CGEventType::LeftMouseDragged, p, CGMouseButton::Left, 1);
            if moved.is_err() {
                break;
            }
            last = p;
        }
        // Released wherever it got to, also when a step failed: no button stays down.
        let released = self.mouse(CGEventType::LeftMouseUp, last, CGMouseButton::Left, 1);
        moved.and(released)
    }

    fn scroll(&self, at: Option<Point>, direction: ScrollDirection, notches: u32) -> Result<(), PlatformError> {
        self.allowed()?;
        if let Some(p) = at {
            let at = self.to_points(p)?;
            self.mouse(CGEventType::MouseMoved, at, CGMouseButton::Left, 0)?;
        }
        // Wheel 1 is vertical (positive scrolls up), wheel 2 horizontal (positive scrolls left).
        let (vertical, horizontal) = match direction {
            ScrollDirection::Up => (1, 0),
            ScrollDirection::Down => (-1, 0),
            ScrollDirection::Left => (0, 1),
            ScrollDirection::Right => (0, -1),
        };
        for _ in 0..notches {
            let event = CGEvent::new_scroll_wheel_event2(
                self.source.as_deref(),
                CGScrollEventUnit::Line,
                2,
                vertical,
                horizontal,
                0,
            );
            self.post(event)?;
        }
        Ok(())
    }

    fn key(&self, combo: &KeyCombo) -> Result<(), PlatformError> {
        self.allowed()?;
        let code = self.code_for(combo)?;
        let held = modifier_codes(combo.modifiers);
        let mut down_flags = 0u64;
        let mut pressed = Vec::new();
        let mut result = Ok(());
        for m in &held {
            down_flags |= modifier_flag(*m);
            result = self.key_event(*m, true, down_flags);
            if result.is_err() {
                break;
            }
            pressed.push(*m);
        }
        if result.is_ok() {
            let f = flags(combo.modifiers, combo.key);
            result = self.key_event(code, true, f).and_then(|()| self.key_event(code, false, f));
        }
        // Every modifier pressed is released, in reverse, whatever happened.
        for m in pressed.into_iter().rev() {
            down_flags &= !modifier_flag(m);
            let released = self.key_event(m, false, down_flags);
            result = result.and(released);
        }
        result
    }

    fn type_text(&self, text: &str) -> Result<(), PlatformError> {
        check_typed_length(text)?;
        self.allowed()?;
        for step in plan(text) {
            match step {
                TypingStep::Key(code) => {
                    self.key_event(code, true, 0)?;
                    self.key_event(code, false, 0)?;
                }
                TypingStep::Text(units) => {
                    // A key-down carrying the text, then its key-up: apps insert the text once.
                    for down in [true, false] {
                        let event = CGEvent::new_keyboard_event(self.source.as_deref(), 0, down);
                        if let Some(e) = &event {
                            // SAFETY: `units` outlives the call; the length is its length.
                            unsafe { CGEvent::keyboard_set_unicode_string(Some(e), units.len() as _, units.as_ptr()) };
                        }
                        self.post(event)?;
                    }
                }
            }
        }
        Ok(())
    }
}

//! Acting on the desktop: the one place an action's input is sent.

use handrail_platform::{Desktop, Key, MouseButton, PlatformError, Point};

use super::Aim;
use crate::guard::url::{vet_url, UrlPolicy};
use crate::observation::Source;
use crate::request::{Command, PointerKind, Request};

/// Performs the action on the desktop.
pub(super) fn perform(
    desktop: &Desktop,
    request: &Request,
    aims: &[Aim],
    policy: &UrlPolicy,
) -> Result<(), PlatformError> {
    let first = aims.first().map(|a| a.point);
    let need = |p: Option<Point>| p.ok_or_else(|| PlatformError::Invalid("the action has no target".into()));
    match &request.command {
        // A window is raised through the window manager: a click at a point of it could land on
        // whatever lies in front, and a minimised window has no point at all.
        Command::Pointer { kind: PointerKind::Click, .. }
            if aims.first().is_some_and(|a| a.element.source == Source::Window) =>
        {
            let handle = aims
                .first()
                .and_then(|a| a.element.owner)
                .ok_or_else(|| PlatformError::Invalid("the window element has no window handle".into()))?;
            desktop.windows.activate(handle)
        }
        Command::Pointer { kind, .. } => {
            let p = need(first)?;
            match kind {
                PointerKind::Click => desktop.input.click(p, MouseButton::Left, 1),
                PointerKind::DoubleClick => desktop.input.click(p, MouseButton::Left, 2),
                PointerKind::TripleClick => desktop.input.click(p, MouseButton::Left, 3),
                PointerKind::RightClick => desktop.input.click(p, MouseButton::Right, 1),
                PointerKind::Hover => desktop.input.move_pointer(p),
            }
        }
        Command::Drag { .. } => {
            let to = aims.get(1).map(|a| a.point);
            desktop.input.drag(need(first)?, need(to)?)?;
            desktop.accessibility.layout_may_have_moved();
            Ok(())
        }
        Command::Type { text, target } => {
            // A target that already has focus is typed into as it is: clicking it again would move
            // the caret and drop a selection the agent just made (select all, then type to replace).
            let focused = aims.first().is_some_and(|a| a.element.states.contains(handrail_platform::States::FOCUSED));
            if target.is_some() && !focused {
                desktop.input.click(need(first)?, MouseButton::Left, 1)?;
            }
            desktop.input.type_text(text)
        }
        Command::Key { combo } => {
            desktop.input.key(combo)?;
            if scrolls_a_view(combo.key) {
                desktop.accessibility.layout_may_have_moved();
            }
            Ok(())
        }
        Command::Scroll { direction, amount, .. } => {
            desktop.input.scroll(first, *direction, *amount)?;
            desktop.accessibility.layout_may_have_moved();
            Ok(())
        }
        Command::OpenApp { app } => desktop.windows.launch_app(app).map(|_| ()),
        Command::OpenUrl { url } => {
            // Vetted again here so the URL that is opened is exactly the normalised, checked one.
            let vetted = vet_url(url, policy).map_err(|e| PlatformError::Invalid(e.to_string()))?;
            desktop.windows.open_url(&vetted).map(|_| ())
        }
        Command::See | Command::Inspect(_) => Ok(()),
    }
}

/// Keys that scroll the view they are pressed in (or move the focus into a part scrolled away), which
/// toolkits do not always announce. Other keys leave the layout to the events their effects raise.
fn scrolls_a_view(key: Key) -> bool {
    matches!(
        key,
        Key::PageUp
            | Key::PageDown
            | Key::Home
            | Key::End
            | Key::Up
            | Key::Down
            | Key::Left
            | Key::Right
            | Key::Space
            | Key::Tab
    )
}

/// Whether `command`'s effect should show on its target's window (pointing at something shows what
/// lies under the pointer, which may be anywhere).
pub(super) fn reaches_its_target(command: &Command) -> bool {
    match command {
        Command::Pointer { kind, .. } => *kind != PointerKind::Hover,
        Command::Drag { .. } | Command::Scroll { .. } => true,
        Command::Type { target, .. } => target.is_some(),
        _ => false,
    }
}

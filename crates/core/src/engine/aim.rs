//! Where an action's pointer goes on its target.

use handrail_platform::{Point, Rect};

use crate::observation::Element;
use crate::visibility::{visible_parts, ScreenWindow};

/// Where to click `target` (screenshot coordinates), or `None` when no part of it is visible.
///
/// Only the target's visible part counts: a point under a window stacked in front would land on that
/// window. Within it, the centre, unless another interactive element of the observation covers that
/// point — overlapping controls, where the one drawn on top would take the click; then the visible point
/// nearest the centre that no such element covers, else any visible point. Containers and contents
/// (boxes inside one another) do not count as covering.
pub(super) fn aim_point(target: &Element, elements: &[Element], windows: &[ScreenWindow]) -> Option<Point> {
    let b = target.bounds;
    let visible = visible_parts(target, windows);
    if visible.is_empty() {
        return None;
    }
    let centre = b.center();
    let seen = |p: &Point| visible.iter().any(|r| r.contains(*p));
    let covering: Vec<Rect> = elements
        .iter()
        .filter(|e| e.id != target.id && e.is_interactive())
        .map(|e| e.bounds)
        .filter(|r| r.intersects(&b) && !r.contains_rect(&b) && !b.contains_rect(r))
        .collect();
    if seen(&centre) && !covering.iter().any(|r| r.contains(centre)) {
        return Some(centre);
    }
    let mut candidates = grid(&b);
    // The middle of each visible piece: a thin strip left uncovered is often all there is.
    candidates.extend(visible.iter().map(Rect::center));
    let distance = |p: &Point| {
        let (dx, dy) = (i64::from(p.x) - i64::from(centre.x), i64::from(p.y) - i64::from(centre.y));
        dx * dx + dy * dy
    };
    let free = candidates
        .iter()
        .copied()
        .filter(|p| b.contains(*p) && seen(p) && !covering.iter().any(|r| r.contains(*p)))
        .min_by_key(distance);
    free.or_else(|| candidates.iter().copied().filter(|p| b.contains(*p) && seen(p)).min_by_key(distance))
        .or_else(|| visible.iter().max_by_key(|r| r.area()).map(Rect::center))
}

/// Points spread over `b`: a 9x9 grid and the middles of its edges.
fn grid(b: &Rect) -> Vec<Point> {
    let centre = b.center();
    let point = |x: i64, y: i64| Point::new(i32::try_from(x).unwrap_or(centre.x), i32::try_from(y).unwrap_or(centre.y));
    let (x0, y0, w, h) = (i64::from(b.x), i64::from(b.y), i64::from(b.width), i64::from(b.height));
    let mut points = Vec::with_capacity(85);
    for i in 0..9i64 {
        for j in 0..9i64 {
            points.push(point(x0 + (w * (2 * i + 1)) / 18, y0 + (h * (2 * j + 1)) / 18));
        }
    }
    points.extend([
        point(x0 + w / 2, y0 + h - 2),
        point(x0 + w / 2, y0 + 1),
        point(x0 + 1, y0 + h / 2),
        point(x0 + w - 2, y0 + h / 2),
    ]);
    points
}

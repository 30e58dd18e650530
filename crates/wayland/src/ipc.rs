//! sway's IPC (the i3 protocol over a Unix socket): the window tree with each window's place on the
//! screen, which Wayland itself never tells a client.
//!
//! A message is `i3-ipc`, the payload length and the message type (both u32, native byte order),
//! then a JSON payload. One short connection per request: sway answers in a millisecond, and no
//! subscription is left to drain.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::time::Duration;

use handrail_platform::{Point, Rect};
use serde_json::Value;

use crate::error::WaylandError;

const MAGIC: &[u8; 6] = b"i3-ipc";
const RUN_COMMAND: u32 = 0;
const GET_OUTPUTS: u32 = 3;
const GET_TREE: u32 = 4;
/// Bound on one request: sway answers at once unless it is hung.
const TIMEOUT: Duration = Duration::from_secs(2);
/// Largest answer accepted (a tree of hundreds of windows is well under a megabyte).
const MAX_REPLY: u32 = 16 * 1024 * 1024;

/// One application window as sway lays it out.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct View {
    /// sway's container id.
    pub id: u64,
    pub app_id: String,
    pub title: String,
    pub pid: Option<u32>,
    /// The window with its decorations, in layout coordinates.
    pub frame: Rect,
    /// The window's content (its window geometry, without decorations), in layout coordinates.
    pub content: Rect,
    /// Where the client's surface starts, in layout coordinates: the content less the surface's own
    /// margin (client-side shadows). Its (0, 0) is where the window-relative coordinates its toolkit
    /// reports start.
    pub surface: Point,
    pub focused: bool,
    /// Shown: on a workspace an output shows, and not a hidden tab.
    pub visible: bool,
    pub floating: bool,
}

/// A client of sway's IPC socket.
#[derive(Debug, Clone)]
pub struct SwayIpc {
    path: PathBuf,
}

impl SwayIpc {
    pub fn new(path: PathBuf) -> SwayIpc {
        SwayIpc { path }
    }

    fn request(&self, kind: u32, payload: &str) -> Result<Value, WaylandError> {
        let fail = |what: &str, e: std::io::Error| WaylandError::Ipc(format!("{what} {}: {e}", self.path.display()));
        let mut s = UnixStream::connect(&self.path).map_err(|e| fail("connecting to", e))?;
        s.set_read_timeout(Some(TIMEOUT)).map_err(|e| fail("configuring", e))?;
        s.set_write_timeout(Some(TIMEOUT)).map_err(|e| fail("configuring", e))?;
        let mut msg = Vec::with_capacity(14 + payload.len());
        msg.extend_from_slice(MAGIC);
        msg.extend_from_slice(&(payload.len() as u32).to_ne_bytes());
        msg.extend_from_slice(&kind.to_ne_bytes());
        msg.extend_from_slice(payload.as_bytes());
        s.write_all(&msg).map_err(|e| fail("writing to", e))?;
        let mut header = [0u8; 14];
        s.read_exact(&mut header).map_err(|e| fail("reading from", e))?;
        if &header[..6] != MAGIC {
            return Err(WaylandError::Ipc("the IPC reply does not start with i3-ipc".into()));
        }
        let len = u32::from_ne_bytes([header[6], header[7], header[8], header[9]]);
        if len > MAX_REPLY {
            return Err(WaylandError::Ipc(format!("an IPC reply of {len} bytes")));
        }
        let mut body = vec![0u8; len as usize];
        s.read_exact(&mut body).map_err(|e| fail("reading from", e))?;
        serde_json::from_slice(&body).map_err(|e| WaylandError::Ipc(format!("the IPC reply is not JSON: {e}")))
    }

    /// Every application window, bottom to top as drawn.
    pub fn views(&self) -> Result<Vec<View>, WaylandError> {
        Ok(views_of(&self.request(GET_TREE, "")?))
    }

    /// The active outputs' rectangles, in layout coordinates.
    pub fn outputs(&self) -> Result<Vec<(String, Rect)>, WaylandError> {
        let reply = self.request(GET_OUTPUTS, "")?;
        Ok(reply
            .as_array()
            .map(|outs| {
                outs.iter()
                    .filter(|o| o["active"].as_bool().unwrap_or(false))
                    .map(|o| (o["name"].as_str().unwrap_or_default().to_owned(), rect(&o["rect"])))
                    .collect()
            })
            .unwrap_or_default())
    }

    /// Runs sway commands (`[con_id=4] focus`); an error names the command sway refused.
    pub fn command(&self, command: &str) -> Result<(), WaylandError> {
        let reply = self.request(RUN_COMMAND, command)?;
        let failed: Vec<String> = reply
            .as_array()
            .map(|rs| {
                rs.iter()
                    .filter(|r| !r["success"].as_bool().unwrap_or(false))
                    .map(|r| r["error"].as_str().unwrap_or("failed").to_owned())
                    .collect()
            })
            .unwrap_or_default();
        if failed.is_empty() {
            Ok(())
        } else {
            Err(WaylandError::Ipc(format!("sway refused {command:?}: {}", failed.join("; "))))
        }
    }
}

fn rect(v: &Value) -> Rect {
    let n = |k: &str| v[k].as_i64().unwrap_or(0);
    Rect::new(n("x") as i32, n("y") as i32, n("width").max(0) as u32, n("height").max(0) as u32)
}

/// The views of a `get_tree` reply, bottom to top: per output, its workspaces' tiled windows in tree
/// order, then their floating windows in stacking order (sway draws floating windows over tiled
/// ones, the last on top). Workspaces an output does not show are hidden.
fn views_of(tree: &Value) -> Vec<View> {
    let mut tiled = Vec::new();
    let mut floating = Vec::new();
    collect(tree, false, &mut tiled, &mut floating);
    tiled.extend(floating);
    tiled
}

fn collect(node: &Value, in_floating: bool, tiled: &mut Vec<View>, floating: &mut Vec<View>) {
    let is_view = node["pid"].as_u64().is_some() || !node["app_id"].is_null() || node["window"].as_u64().is_some();
    let kind = node["type"].as_str().unwrap_or_default();
    if is_view && (kind == "con" || kind == "floating_con") {
        let frame = rect(&node["rect"]);
        let inner = rect(&node["window_rect"]);
        // `geometry` is the surface's window geometry: its x, y are the margin inside the surface.
        let margin = rect(&node["geometry"]);
        let app_id = node["app_id"]
            .as_str()
            .or_else(|| node["window_properties"]["class"].as_str())
            .unwrap_or_default()
            .to_owned();
        let view = View {
            id: node["id"].as_u64().unwrap_or(0),
            app_id,
            title: node["name"].as_str().unwrap_or_default().to_owned(),
            pid: node["pid"].as_u64().and_then(|p| u32::try_from(p).ok()),
            frame,
            content: Rect::new(frame.x + inner.x, frame.y + inner.y, inner.width, inner.height),
            surface: Point::new(frame.x + inner.x - margin.x, frame.y + inner.y - margin.y),
            focused: node["focused"].as_bool().unwrap_or(false),
            visible: node["visible"].as_bool().unwrap_or(false),
            floating: in_floating || kind == "floating_con",
        };
        if view.floating {
            floating.push(view);
        } else {
            tiled.push(view);
        }
        return;
    }
    // The scratchpad's hidden workspace holds windows nobody sees.
    if kind == "workspace" && node["name"].as_str() == Some("__i3_scratch") {
        return;
    }
    if let Some(children) = node["nodes"].as_array() {
        for c in children {
            collect(c, in_floating, tiled, floating);
        }
    }
    if let Some(children) = node["floating_nodes"].as_array() {
        for c in children {
            collect(c, true, tiled, floating);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_come_bottom_to_top_with_their_content_origin() {
        let tree = serde_json::json!({
        "type": "root", "nodes": [
          {"type": "output", "name": "__i3", "nodes": [
            {"type": "workspace", "name": "__i3_scratch", "nodes": [], "floating_nodes": [
              {"type": "floating_con", "id": 9, "pid": 1, "app_id": "hidden", "name": "h",
               "rect": {"x":0,"y":0,"width":1,"height":1}, "window_rect": {"x":0,"y":0,"width":1,"height":1}}]}]},
          {"type": "output", "name": "HEADLESS-1", "nodes": [
            {"type": "workspace", "name": "1", "nodes": [
              {"type": "con", "id": 4, "pid": 100, "app_id": "foot", "name": "~", "focused": false, "visible": true,
               "rect": {"x":0,"y":0,"width":640,"height":800}, "window_rect": {"x":2,"y":26,"width":636,"height":772}}
            ], "floating_nodes": [
              {"type": "floating_con", "id": 7, "pid": 200, "app_id": null,
               "window_properties": {"class": "XTerm"}, "name": "xterm", "focused": true, "visible": true,
               "rect": {"x":100,"y":100,"width":300,"height":200}, "window_rect": {"x":0,"y":0,"width":300,"height":200}}
            ]}]}]});
        let views = views_of(&tree);
        assert_eq!(views.iter().map(|v| v.id).collect::<Vec<_>>(), vec![4, 7]);
        assert_eq!(views[0].content, Rect::new(2, 26, 636, 772));
        assert_eq!(views[0].pid, Some(100));
        assert_eq!(views[1].app_id, "XTerm");
        assert!(views[1].floating && views[1].focused);
    }
}

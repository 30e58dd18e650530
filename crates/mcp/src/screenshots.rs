//! How a `computer` result carries its screenshot, and the screenshots (and trace report) the server
//! offers as MCP resources.
//!
//! Hosts cap tool results (25,000 tokens is common), and a screenshot is most of a result: inline it
//! is ~100 KiB of base64 in every result; as a resource link it is a URI the host fetches with
//! `resources/read` when it wants the picture; `none` leaves it out (the text block and the structured
//! content still describe the screen).

use std::collections::VecDeque;
use std::sync::Arc;

/// Where a result's screenshot goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ImageDelivery {
    /// In the result, as image content.
    #[default]
    Inline,
    /// A `resource_link` to `handrail://screenshot/obs_N`, read with `resources/read`.
    Resource,
    /// Not at all.
    None,
}

impl ImageDelivery {
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "inline" => Some(Self::Inline),
            "resource" => Some(Self::Resource),
            "none" => Some(Self::None),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Inline => "inline",
            Self::Resource => "resource",
            Self::None => "none",
        }
    }
}

/// URIs of screenshots start with this, followed by the observation id.
pub const SCREENSHOT_URI: &str = "handrail://screenshot/";
/// The trace's HTML report, when the server records a trace.
pub const TRACE_REPORT_URI: &str = "handrail://trace/report.html";

/// Screenshots kept for `resources/read`: the newest ones, a bounded number.
pub const SCREENSHOTS_KEPT: usize = 32;

/// One kept screenshot.
#[derive(Debug, Clone)]
pub struct Shot {
    pub observation: String,
    pub mime: &'static str,
    pub bytes: Arc<Vec<u8>>,
}

impl Shot {
    pub fn uri(&self) -> String {
        format!("{SCREENSHOT_URI}{}", self.observation)
    }
}

/// The screenshots a host may still read, oldest first.
#[derive(Debug, Default)]
pub struct Shelf {
    shots: VecDeque<Shot>,
}

impl Shelf {
    /// Keeps `shot`, dropping the oldest beyond [`SCREENSHOTS_KEPT`].
    pub fn keep(&mut self, shot: Shot) {
        self.shots.retain(|s| s.observation != shot.observation);
        self.shots.push_back(shot);
        while self.shots.len() > SCREENSHOTS_KEPT {
            self.shots.pop_front();
        }
    }

    /// The screenshot a URI names, if it is still kept.
    pub fn get(&self, uri: &str) -> Option<&Shot> {
        let observation = uri.strip_prefix(SCREENSHOT_URI)?;
        self.shots.iter().find(|s| s.observation == observation)
    }

    /// Newest first.
    pub fn newest_first(&self) -> impl Iterator<Item = &Shot> {
        self.shots.iter().rev()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shot(n: usize) -> Shot {
        Shot { observation: format!("obs_{n}"), mime: "image/jpeg", bytes: Arc::new(vec![0xff, 0xd8]) }
    }

    #[test]
    fn the_shelf_keeps_the_newest_screenshots() {
        let mut shelf = Shelf::default();
        for n in 1..=SCREENSHOTS_KEPT + 5 {
            shelf.keep(shot(n));
        }
        assert!(shelf.get("handrail://screenshot/obs_1").is_none(), "the oldest are gone");
        assert!(shelf.get(&format!("handrail://screenshot/obs_{}", SCREENSHOTS_KEPT + 5)).is_some());
        assert_eq!(shelf.newest_first().count(), SCREENSHOTS_KEPT);
        assert!(shelf.get("handrail://elsewhere/obs_7").is_none());
        assert_eq!(ImageDelivery::parse("resource"), Some(ImageDelivery::Resource));
        assert_eq!(ImageDelivery::parse("Resource"), None);
    }
}

//! Observation ids (`obs_N`) and element ids (`eN`).
//!
//! Both are process-wide monotonic counters that never reuse a number, so an id the model remembers
//! from an older turn can never silently name something new.

use std::fmt;

/// `obs_N`: one published observation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObservationId(pub u64);

/// `eN`: one element; kept across observations while the element persists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ElementId(pub u64);

impl ElementId {
    /// Marks an element seen in a quick probe that has no id yet (real ids start at 1).
    pub const UNASSIGNED: ElementId = ElementId(0);

    pub fn is_assigned(self) -> bool {
        self.0 != 0
    }
}

/// Why an id string was not accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{got}` is not a valid {what} (expected the form {form}, e.g. {example})")]
pub struct IdError {
    pub got: String,
    pub what: &'static str,
    pub form: &'static str,
    pub example: &'static str,
}

fn parse_numbered(input: &str, prefix: &str) -> Option<u64> {
    let digits = input.trim().strip_prefix(prefix)?;
    if digits.is_empty() || digits.len() > 18 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok().filter(|n| *n > 0)
}

fn shown(input: &str) -> String {
    let mut s: String = input.chars().filter(|c| !c.is_control()).take(40).collect();
    if input.chars().count() > 40 {
        s.push('…');
    }
    s
}

impl ObservationId {
    pub fn parse(input: &str) -> Result<Self, IdError> {
        parse_numbered(input, "obs_").map(ObservationId).ok_or_else(|| IdError {
            got: shown(input),
            what: "observation id",
            form: "obs_N",
            example: "obs_3",
        })
    }
}

impl ElementId {
    pub fn parse(input: &str) -> Result<Self, IdError> {
        parse_numbered(input, "e").map(ElementId).ok_or_else(|| IdError {
            got: shown(input),
            what: "element id",
            form: "eN",
            example: "e12",
        })
    }
}

impl fmt::Display for ObservationId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "obs_{}", self.0)
    }
}

impl fmt::Display for ElementId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_assigned() {
            write!(f, "e{}", self.0)
        } else {
            f.write_str("e?")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints() {
        assert_eq!(ObservationId::parse("obs_7"), Ok(ObservationId(7)));
        assert_eq!(ElementId::parse(" e12 "), Ok(ElementId(12)));
        assert_eq!(ObservationId(3).to_string(), "obs_3");
        assert_eq!(ElementId(4).to_string(), "e4");
    }

    #[test]
    fn rejects_malformed() {
        for bad in
            ["", "obs_", "obs_0", "obs_-1", "obs_1x", "OBS_1", "e", "e0", "e+1", "e1.5", "obs_99999999999999999999"]
        {
            assert!(ObservationId::parse(bad).is_err() || bad.starts_with('e'), "{bad}");
            assert!(ElementId::parse(bad).is_err(), "{bad}");
        }
        let err = ElementId::parse("button").unwrap_err();
        assert!(err.to_string().contains("expected the form eN"));
    }
}

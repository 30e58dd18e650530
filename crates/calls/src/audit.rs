//! The audit log: one JSON line per call (`handrail_wire::AuditRecord`), appended as calls run.

use std::io::Write;
use std::path::Path;

use handrail_wire::AuditRecord;

/// Appends one JSON line per call; a write failure is logged, never fatal to the call.
#[derive(Debug)]
pub struct AuditLog {
    file: std::fs::File,
}

impl AuditLog {
    pub fn open(path: &Path) -> std::io::Result<Self> {
        let file = std::fs::OpenOptions::new().create(true).append(true).open(path)?;
        Ok(Self { file })
    }

    pub fn write(&mut self, record: &AuditRecord) {
        let mut line = handrail_wire::to_value(record).to_string();
        line.push('\n');
        if let Err(e) = self.file.write_all(line.as_bytes()) {
            log::warn!("cannot write the audit log: {e}");
        }
    }
}

//! A stderr logger for the programs and tests that start sandboxes.

struct Stderr;

impl log::Log for Stderr {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        metadata.level() <= log::max_level()
    }

    fn log(&self, record: &log::Record<'_>) {
        if self.enabled(record.metadata()) {
            eprintln!("[{} {}] {}", record.level(), record.target(), record.args());
        }
    }

    fn flush(&self) {}
}

static LOGGER: Stderr = Stderr;

/// Sends `log` records to stderr (stdout stays free for program output), at the level named by
/// `HANDRAIL_LOG` (`error`, `warn`, `info`, `debug`, `trace`; default `info`). Only the first call in a
/// process installs it; later calls do nothing, so every test may call it.
pub fn log_to_stderr() {
    if log::set_logger(&LOGGER).is_ok() {
        let level = std::env::var("HANDRAIL_LOG")
            .ok()
            .and_then(|v| v.parse::<log::LevelFilter>().ok())
            .unwrap_or(log::LevelFilter::Info);
        log::set_max_level(level);
    }
}

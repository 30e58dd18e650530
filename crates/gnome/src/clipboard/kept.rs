//! The person's clipboard, read before a paste replaces it, to be given back afterwards.
//!
//! mutter hands a session another owner's content one MIME type at a time: `SelectionRead` answers
//! with a pipe the owner writes into, read to its end (one read at a time per session). Every type
//! the owner offers is read, so that what is given back pastes as before everywhere (rich text in an
//! editor, plain text in a terminal). An owner that does not write within [`READ_WAIT`], or content
//! past [`KEEP_LIMIT`] in all, leaves that type out, and the log says so.

use std::io::{ErrorKind, Read};
use std::time::{Duration, Instant};

use handrail_dbus::wire::Arg;
use log::{debug, warn};

use super::pipe_from;
use crate::error::GnomeError;
use crate::mutter::MutterSession;

/// How long the owner may take to write one type's content.
pub(crate) const READ_WAIT: Duration = Duration::from_millis(1500);
/// The most kept of one clipboard, all types together (a copied photo is a few megabytes).
pub(crate) const KEEP_LIMIT: usize = 64 << 20;
/// How long to wait between looks at a pipe the owner has not written to yet.
const PIPE_POLL: Duration = Duration::from_millis(2);

/// X11 selection targets Xwayland lists beside the content types: requests, not content.
const NOT_CONTENT: [&str; 7] =
    ["TARGETS", "MULTIPLE", "TIMESTAMP", "SAVE_TARGETS", "DELETE", "INSERT_SELECTION", "INSERT_PROPERTY"];

/// A clipboard's content by MIME type, in the order its owner offered them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Kept {
    contents: Vec<(String, Vec<u8>)>,
}

impl Kept {
    pub(crate) fn new(contents: Vec<(String, Vec<u8>)>) -> Kept {
        Kept { contents }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.contents.is_empty()
    }

    pub(crate) fn mime_types(&self) -> Vec<String> {
        self.contents.iter().map(|(mime, _)| mime.clone()).collect()
    }

    /// The content of type `mime`, when it was kept.
    pub(crate) fn content(&self, mime: &str) -> Option<&[u8]> {
        self.contents.iter().find(|(m, _)| m == mime).map(|(_, data)| data.as_slice())
    }
}

/// Whether `mime` names content worth keeping (not an X11 request target).
pub(crate) fn is_content(mime: &str) -> bool {
    !mime.is_empty() && !NOT_CONTENT.contains(&mime)
}

/// Reads every content type of `mime_types` from the clipboard's current owner, within the limits;
/// empty when nothing could be read.
pub(crate) fn read_clipboard(session: &MutterSession, mime_types: &[String]) -> Kept {
    let mut contents = Vec::new();
    let mut room = KEEP_LIMIT;
    for mime in mime_types.iter().filter(|m| is_content(m)) {
        match read_type(session, mime, room) {
            Ok(data) => {
                room -= data.len();
                contents.push((mime.clone(), data));
            }
            Err(e) => warn!("the clipboard's {mime} is not kept to give back after pasting: {e}"),
        }
    }
    debug!("kept the clipboard: {:?}", contents.iter().map(|(m, d)| (m, d.len())).collect::<Vec<_>>());
    Kept::new(contents)
}

/// One type's content, at most `room` bytes.
fn read_type(session: &MutterSession, mime: &str, room: usize) -> Result<Vec<u8>, GnomeError> {
    let deadline = Instant::now() + READ_WAIT;
    let pipe = loop {
        match pipe_from(session, "SelectionRead", &[Arg::Str(mime.to_owned())]) {
            // mutter closes the previous read's pipe before it counts that read as done (in a later
            // turn of its main loop): a read asked for in between is refused as parallel. The
            // previous one is finished; mutter only has not said so yet.
            Err(e) if is_read_in_parallel(&e) && Instant::now() < deadline => {
                std::thread::sleep(PARALLEL_READ_PAUSE);
            }
            other => break other?,
        }
    };
    // mutter made the pipe non-blocking: it is looked at until the owner closes it.
    read_pipe(pipe, room, READ_WAIT)
}

/// Between asking again for a read mutter refused as parallel to the one just finished.
const PARALLEL_READ_PAUSE: Duration = Duration::from_millis(10);

/// mutter's refusal of a `SelectionRead` while it still counts another as running.
fn is_read_in_parallel(e: &GnomeError) -> bool {
    matches!(e, GnomeError::Dbus(handrail_dbus::DbusError::Remote { name, .. })
        if name == "org.freedesktop.DBus.Error.LimitsExceeded")
}

/// Everything written into `pipe` until its writer closes it, within `wait` and `room` bytes.
fn read_pipe(mut pipe: impl Read, room: usize, wait: Duration) -> Result<Vec<u8>, GnomeError> {
    let deadline = Instant::now() + wait;
    let mut data = Vec::new();
    let mut chunk = [0u8; 64 * 1024];
    loop {
        match pipe.read(&mut chunk) {
            Ok(0) => return Ok(data),
            Ok(n) => {
                if data.len() + n > room {
                    return Err(GnomeError::ClipboardRead(format!("more than {room} bytes")));
                }
                data.extend_from_slice(&chunk[..n]);
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => {
                if Instant::now() >= deadline {
                    return Err(GnomeError::ClipboardRead(format!("its owner wrote nothing more within {wait:?}")));
                }
                std::thread::sleep(PIPE_POLL);
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(GnomeError::ClipboardRead(e.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    /// A pipe that yields these reads in turn (`None`: nothing written yet), then its end.
    struct Scripted(VecDeque<Option<Vec<u8>>>);

    impl Read for Scripted {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            match self.0.pop_front() {
                None => Ok(0),
                Some(None) => Err(ErrorKind::WouldBlock.into()),
                Some(Some(bytes)) => {
                    buf[..bytes.len()].copy_from_slice(&bytes);
                    Ok(bytes.len())
                }
            }
        }
    }

    fn scripted(reads: &[Option<&[u8]>]) -> Scripted {
        Scripted(reads.iter().map(|r| r.map(<[u8]>::to_vec)).collect())
    }

    #[test]
    fn a_pipe_is_read_to_its_end_across_pauses_within_its_limits() {
        let wait = Duration::from_secs(5);
        let pipe = scripted(&[Some(b"Hello, "), None, None, Some(b"world")]);
        assert_eq!(read_pipe(pipe, 100, wait).expect("read"), b"Hello, world");
        assert_eq!(read_pipe(scripted(&[]), 100, wait).expect("empty"), b"");
        let long = read_pipe(scripted(&[Some(b"12345"), Some(b"6789")]), 8, wait);
        assert!(long.is_err_and(|e| e.to_string().contains("more than 8 bytes")));
        // An owner that never writes nor closes.
        let silent = Scripted(std::iter::repeat_n(None, 1000).collect());
        let started = Instant::now();
        let quiet = read_pipe(silent, 8, Duration::from_millis(20));
        assert!(quiet.is_err_and(|e| e.to_string().contains("wrote nothing more")));
        assert!(started.elapsed() < Duration::from_secs(2));
    }

    #[test]
    fn only_mutters_parallel_read_refusal_is_asked_again() {
        let remote = |name: &str| {
            GnomeError::Dbus(handrail_dbus::DbusError::Remote {
                name: name.into(),
                message: "Tried to read in parallel".into(),
            })
        };
        assert!(is_read_in_parallel(&remote("org.freedesktop.DBus.Error.LimitsExceeded")));
        assert!(!is_read_in_parallel(&remote("org.freedesktop.DBus.Error.Failed")));
        assert!(!is_read_in_parallel(&GnomeError::ClipboardRead("slow".into())));
    }

    #[test]
    fn requests_are_not_content_and_kept_types_keep_their_order() {
        for request in NOT_CONTENT {
            assert!(!is_content(request));
        }
        for content in ["text/plain;charset=utf-8", "UTF8_STRING", "STRING", "TEXT", "text/html", "image/png"] {
            assert!(is_content(content), "{content}");
        }
        let kept = Kept::new(vec![("text/html".into(), b"<b>hi</b>".to_vec()), ("text/plain".into(), b"hi".to_vec())]);
        assert_eq!(kept.mime_types(), ["text/html", "text/plain"]);
        assert_eq!(kept.content("text/plain"), Some(&b"hi"[..]));
        assert_eq!(kept.content("image/png"), None);
        assert!(!kept.is_empty() && Kept::default().is_empty());
    }
}

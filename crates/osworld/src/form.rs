//! The form bodies OSWorld's harness sends (`requests.post(data=…)` and `files=…`): URL-encoded
//! fields, and multipart uploads of one file with its path beside it.

/// Why a form body could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormError {
    #[error("the multipart body names no boundary in its Content-Type")]
    NoBoundary,
    #[error("the multipart body does not start with its boundary")]
    NoFirstBoundary,
    #[error("a part of the multipart body has no end of headers")]
    UnterminatedHeaders,
    #[error("a part of the multipart body is not closed by the boundary")]
    UnterminatedPart,
    #[error("a part of the multipart body has no form-data name")]
    NoName,
}

/// `application/x-www-form-urlencoded` fields in order. `+` is a space; a `%` escape that is not
/// two hex digits stays as written (as the harness's own server reads it).
pub fn urlencoded(body: &[u8]) -> Vec<(String, String)> {
    body.split(|&b| b == b'&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (key, value) = match pair.iter().position(|&b| b == b'=') {
                Some(i) => (&pair[..i], &pair[i + 1..]),
                None => (pair, &[][..]),
            };
            (decode(key), decode(value))
        })
        .collect()
}

fn decode(raw: &[u8]) -> String {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        match raw[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = raw.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
                match hex.and_then(|h| u8::from_str_radix(h, 16).ok()).filter(|_| hex.is_some_and(is_hex)) {
                    Some(v) => {
                        out.push(v);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn is_hex(h: &str) -> bool {
    h.bytes().all(|b| b.is_ascii_hexdigit())
}

/// One field of a multipart form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    pub name: String,
    /// Set for a file field.
    pub filename: Option<String>,
    pub data: Vec<u8>,
}

/// The boundary a `multipart/form-data` Content-Type names.
pub fn boundary(content_type: &str) -> Option<String> {
    let (kind, params) = content_type.split_once(';')?;
    if !kind.trim().eq_ignore_ascii_case("multipart/form-data") {
        return None;
    }
    params
        .split(';')
        .find_map(|p| {
            let (k, v) = p.split_once('=')?;
            k.trim().eq_ignore_ascii_case("boundary").then(|| v.trim().trim_matches('"').to_string())
        })
        .filter(|b| !b.is_empty())
}

/// The parts of a `multipart/form-data` body delimited by `boundary`.
pub fn multipart(boundary: &str, body: &[u8]) -> Result<Vec<Part>, FormError> {
    if boundary.is_empty() {
        return Err(FormError::NoBoundary);
    }
    let delimiter = format!("--{boundary}");
    let delimiter = delimiter.as_bytes();
    let mut rest = body.strip_prefix(delimiter).ok_or(FormError::NoFirstBoundary)?;
    // Later delimiters follow a line end.
    let next = [b"\r\n".as_slice(), delimiter].concat();
    let mut parts = Vec::new();
    loop {
        if rest.starts_with(b"--") {
            return Ok(parts);
        }
        rest = rest.strip_prefix(b"\r\n").ok_or(FormError::UnterminatedPart)?;
        let headers_end = find(rest, b"\r\n\r\n").ok_or(FormError::UnterminatedHeaders)?;
        let headers = String::from_utf8_lossy(&rest[..headers_end]).into_owned();
        rest = &rest[headers_end + 4..];
        let end = find_delimiter(rest, &next).ok_or(FormError::UnterminatedPart)?;
        let (name, filename) = disposition(&headers).ok_or(FormError::NoName)?;
        parts.push(Part { name, filename, data: rest[..end].to_vec() });
        rest = &rest[end + next.len()..];
    }
}

/// The next delimiter line: `needle` followed by a line end or by `--` (the closing one); the same
/// bytes followed by anything else are data.
fn find_delimiter(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = find(&haystack[from..], needle) {
        let at = from + i;
        let after = &haystack[at + needle.len()..];
        if after.starts_with(b"\r\n") || after.starts_with(b"--") {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// `name` and `filename` of a part's `Content-Disposition: form-data; …` header.
fn disposition(headers: &str) -> Option<(String, Option<String>)> {
    let line = headers
        .split("\r\n")
        .find(|l| l.split_once(':').is_some_and(|(k, _)| k.trim().eq_ignore_ascii_case("content-disposition")))?;
    let (_, value) = line.split_once(':')?;
    let mut name = None;
    let mut filename = None;
    for param in params(value) {
        match param {
            (k, v) if k.eq_ignore_ascii_case("name") => name = Some(v),
            (k, v) if k.eq_ignore_ascii_case("filename") => filename = Some(v),
            _ => {}
        }
    }
    Some((name?, filename))
}

/// `key=value` parameters after the first `;`, values unquoted (a `;` inside quotes stays).
fn params(value: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut chars = value.chars().peekable();
    // Skip the disposition type.
    for c in chars.by_ref() {
        if c == ';' {
            break;
        }
    }
    loop {
        while chars.peek().is_some_and(|c| *c == ' ' || *c == ';') {
            chars.next();
        }
        let key: String = chars.by_ref().take_while(|c| *c != '=').collect();
        if key.is_empty() {
            return out;
        }
        let mut v = String::new();
        if chars.peek() == Some(&'"') {
            chars.next();
            while let Some(c) = chars.next() {
                match c {
                    '\\' => v.extend(chars.next()),
                    '"' => break,
                    c => v.push(c),
                }
            }
            for c in chars.by_ref() {
                if c == ';' {
                    break;
                }
            }
            out.push((key.trim().to_string(), v));
            continue;
        } else {
            v = chars.by_ref().take_while(|c| *c != ';').collect();
        }
        out.push((key.trim().to_string(), v.trim().to_string()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn url_encoded_fields_read_as_werkzeug_reads_them() {
        assert_eq!(
            urlencoded(b"file_path=%2Fhome%2Fuser%2FDesktop%2Fa+b.xlsx&x=1&flag&bad=%zz%4"),
            vec![
                ("file_path".to_string(), "/home/user/Desktop/a b.xlsx".to_string()),
                ("x".into(), "1".into()),
                ("flag".into(), String::new()),
                ("bad".into(), "%zz%4".into()),
            ]
        );
    }

    /// The body `requests` writes for `data={"file_path": …}, files={"file_data": …}`.
    #[test]
    fn an_upload_as_requests_sends_it() {
        let body = b"--b0undary\r\nContent-Disposition: form-data; name=\"file_path\"\r\n\r\n/home/user/x.txt\r\n--b0undary\r\nContent-Disposition: form-data; name=\"file_data\"; filename=\"x.txt\"\r\nContent-Type: text/plain\r\n\r\nline\r\n--b0undary-\r\nend\r\n--b0undary--\r\n";
        let parts = multipart("b0undary", body).expect("parses");
        assert_eq!(parts[0], Part { name: "file_path".into(), filename: None, data: b"/home/user/x.txt".to_vec() });
        assert_eq!(parts[1].filename.as_deref(), Some("x.txt"));
        assert_eq!(parts[1].data, b"line\r\n--b0undary-\r\nend".to_vec(), "a near-boundary inside the data stays");
        assert_eq!(boundary("multipart/form-data; boundary=\"b0undary\"").as_deref(), Some("b0undary"));
        assert_eq!(boundary("application/json"), None);
    }

    #[test]
    fn broken_multipart_bodies_are_refused() {
        assert_eq!(multipart("b", b"nothing"), Err(FormError::NoFirstBoundary));
        assert_eq!(
            multipart("b", b"--b\r\nContent-Disposition: form-data; name=\"a\"\r\n"),
            Err(FormError::UnterminatedHeaders)
        );
        assert_eq!(
            multipart("b", b"--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nvalue"),
            Err(FormError::UnterminatedPart)
        );
        assert_eq!(multipart("b", b"--b\r\nContent-Type: x\r\n\r\nv\r\n--b--"), Err(FormError::NoName));
    }

    proptest! {
        /// Any fields and file bytes, written as a multipart body, read back as written.
        #[test]
        fn written_parts_read_back(
            fields in proptest::collection::vec(("[a-z_]{1,12}", proptest::option::of("[a-zA-Z0-9 ._;-]{1,20}"), any::<Vec<u8>>()), 0..4),
        ) {
            let boundary = "----handrail-test-0f3c9a";
            let mut body = Vec::new();
            for (name, filename, data) in &fields {
                body.extend_from_slice(format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"").as_bytes());
                if let Some(f) = filename {
                    body.extend_from_slice(format!("; filename=\"{f}\"").as_bytes());
                }
                body.extend_from_slice(b"\r\n\r\n");
                body.extend_from_slice(data);
                body.extend_from_slice(b"\r\n");
            }
            body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
            let parts = multipart(boundary, &body).expect("a written body parses");
            prop_assert_eq!(parts.len(), fields.len());
            for (part, (name, filename, data)) in parts.iter().zip(&fields) {
                prop_assert_eq!(&part.name, name);
                prop_assert_eq!(&part.filename, filename);
                prop_assert_eq!(&part.data, data);
            }
        }

        /// Any bytes parse or are refused; URL-encoded values never panic.
        #[test]
        fn any_body_parses_or_is_refused(body in any::<Vec<u8>>(), b in "[a-z]{0,4}") {
            let _ = multipart(&b, &body);
            let _ = urlencoded(&body);
        }
    }
}

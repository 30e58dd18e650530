//! The D-Bus wire format: just enough marshalling to send method calls with simple arguments and to
//! decode any reply body or header, in either byte order.
//!
//! Decoding is driven by the signature and bounded (nesting depth, lengths checked against the buffer),
//! because replies come from arbitrary applications.

use crate::error::DbusError;

/// Message types.
pub const METHOD_CALL: u8 = 1;
pub const METHOD_RETURN: u8 = 2;
pub const ERROR: u8 = 3;
pub const SIGNAL: u8 = 4;

/// Header flag: do not start a service to deliver this call.
pub const FLAG_NO_AUTO_START: u8 = 0x2;

/// Header field codes.
const FIELD_PATH: u8 = 1;
const FIELD_INTERFACE: u8 = 2;
const FIELD_MEMBER: u8 = 3;
const FIELD_ERROR_NAME: u8 = 4;
const FIELD_REPLY_SERIAL: u8 = 5;
const FIELD_DESTINATION: u8 = 6;
const FIELD_SENDER: u8 = 7;
const FIELD_SIGNATURE: u8 = 8;
const FIELD_UNIX_FDS: u8 = 9;

/// The largest message accepted (the specification allows 128 MiB; nothing here needs that).
pub const MAX_MESSAGE: usize = 64 << 20;

/// Containers nest at most this deep (the specification's own limit is 64 in total).
const MAX_DEPTH: u32 = 64;

/// A decoded D-Bus value. Strings, object paths and signatures are all `Str`; dict entries are `Struct`s
/// of two.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Byte(u8),
    Bool(bool),
    I16(i16),
    U16(u16),
    I32(i32),
    U32(u32),
    I64(i64),
    U64(u64),
    F64(f64),
    Str(String),
    Fd(u32),
    Array(Vec<Value>),
    Struct(Vec<Value>),
    Variant(Box<Value>),
}

impl Value {
    /// The value inside any number of variants.
    pub fn unwrapped(&self) -> &Value {
        let mut v = self;
        while let Value::Variant(inner) = v {
            v = inner;
        }
        v
    }

    pub fn as_str(&self) -> Option<&str> {
        match self.unwrapped() {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_u32(&self) -> Option<u32> {
        match *self.unwrapped() {
            Value::U32(v) => Some(v),
            _ => None,
        }
    }

    pub fn as_i32(&self) -> Option<i32> {
        match *self.unwrapped() {
            Value::I32(v) => Some(v),
            _ => None,
        }
    }

    /// Any numeric value as a float (the Value interface uses doubles, some toolkits send integers).
    pub fn as_f64(&self) -> Option<f64> {
        match *self.unwrapped() {
            Value::F64(v) => Some(v),
            Value::I32(v) => Some(f64::from(v)),
            Value::U32(v) => Some(f64::from(v)),
            Value::I16(v) => Some(f64::from(v)),
            Value::U16(v) => Some(f64::from(v)),
            Value::Byte(v) => Some(f64::from(v)),
            Value::I64(v) => Some(v as f64),
            Value::U64(v) => Some(v as f64),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Value]> {
        match self.unwrapped() {
            Value::Array(v) => Some(v),
            _ => None,
        }
    }

    pub fn as_struct(&self) -> Option<&[Value]> {
        match self.unwrapped() {
            Value::Struct(v) => Some(v),
            _ => None,
        }
    }
}

/// An argument of an outgoing method call.
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    Str(String),
    /// An object path (`/org/gnome/Mutter/RemoteDesktop/Session/u1`).
    Path(String),
    Bool(bool),
    U32(u32),
    I32(i32),
    /// A window id, a handle (`t`).
    U64(u64),
    F64(f64),
    StrArray(Vec<String>),
    /// A dictionary of named values (`a{sv}`), as options and properties travel: each value goes in a
    /// variant of its own type.
    Dict(Vec<(String, Arg)>),
}

impl Arg {
    pub fn signature(&self) -> &'static str {
        match self {
            Arg::Str(_) => "s",
            Arg::Path(_) => "o",
            Arg::Bool(_) => "b",
            Arg::U32(_) => "u",
            Arg::I32(_) => "i",
            Arg::U64(_) => "t",
            Arg::F64(_) => "d",
            Arg::StrArray(_) => "as",
            Arg::Dict(_) => "a{sv}",
        }
    }

    /// How many containers deep its value goes, counted as the decoder counts them: an array, a
    /// dictionary entry and a variant are one level each.
    pub fn nesting(&self) -> u32 {
        match self {
            Arg::StrArray(_) => 1,
            Arg::Dict(entries) => entries.iter().map(|(_, value)| 3 + value.nesting()).max().unwrap_or(1),
            Arg::Str(_) | Arg::Path(_) | Arg::Bool(_) | Arg::U32(_) | Arg::I32(_) | Arg::U64(_) | Arg::F64(_) => 0,
        }
    }
}

/// Whether `path` is an object path D-Bus accepts: `/`, or `/`-separated non-empty elements of ASCII
/// letters, digits and `_`, without a trailing `/`.
pub fn is_object_path(path: &str) -> bool {
    path == "/"
        || path.strip_prefix('/').is_some_and(|rest| {
            rest.split('/').all(|e| !e.is_empty() && e.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
        })
}

fn protocol(msg: impl Into<String>) -> DbusError {
    DbusError::Protocol(msg.into())
}

fn alignment(code: u8) -> usize {
    match code {
        b'n' | b'q' => 2,
        b'b' | b'i' | b'u' | b'a' | b's' | b'o' | b'h' => 4,
        b'x' | b't' | b'd' | b'(' | b'{' => 8,
        _ => 1, // y, g, v
    }
}

/// End (exclusive) of the single complete type starting at `sig[start]`.
fn complete_type_end(sig: &[u8], start: usize) -> Result<usize, DbusError> {
    let mut i = start;
    // Array prefixes.
    while sig.get(i) == Some(&b'a') {
        i += 1;
    }
    match sig.get(i) {
        None => Err(protocol("truncated signature")),
        Some(b'(') | Some(b'{') => {
            // Each container must close with its own bracket and hold at least one type: an empty struct
            // takes no bytes, so an array of them (`a()`, `a{)`) would never end. Bit `d` of `dicts`
            // says whether the container open at depth `d` is a dict entry.
            let mut depth = 0u32;
            let mut dicts = 0u64;
            while let Some(&c) = sig.get(i) {
                match c {
                    b'(' | b'{' => {
                        if depth == MAX_DEPTH {
                            return Err(protocol("signature nested too deeply"));
                        }
                        dicts = dicts & !(1 << depth) | u64::from(c == b'{') << depth;
                        depth += 1;
                    }
                    b')' | b'}' => {
                        depth -= 1;
                        if (dicts >> depth & 1 == 1) != (c == b'}') {
                            return Err(protocol("mismatched brackets in signature"));
                        }
                        if matches!(sig[i - 1], b'(' | b'{') {
                            return Err(protocol("empty struct in signature"));
                        }
                        if depth == 0 {
                            return Ok(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            Err(protocol("unbalanced signature"))
        }
        Some(c) if b"ybnqiuxtdsoghv".contains(c) => Ok(i + 1),
        Some(c) => Err(protocol(format!("unknown type code {:?}", *c as char))),
    }
}

/// Splits a signature into its complete types.
pub fn split_signature(sig: &str) -> Result<Vec<&str>, DbusError> {
    let bytes = sig.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let end = complete_type_end(bytes, i)?;
        out.push(&sig[i..end]);
        i = end;
    }
    Ok(out)
}

/// Reads values out of a buffer whose offset 0 is 8-aligned in the message (the message start or the
/// body start).
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    big_endian: bool,
    depth: u32,
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8], big_endian: bool) -> Self {
        Self { buf, pos: 0, big_endian, depth: 0 }
    }

    pub fn position(&self) -> usize {
        self.pos
    }

    fn align(&mut self, n: usize) -> Result<(), DbusError> {
        let p = self.pos.div_ceil(n) * n;
        if p > self.buf.len() {
            return Err(protocol("padding past the end"));
        }
        self.pos = p;
        Ok(())
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], DbusError> {
        let end =
            self.pos.checked_add(n).filter(|&e| e <= self.buf.len()).ok_or_else(|| protocol("value past the end"))?;
        let s = &self.buf[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    fn fixed<const N: usize>(&mut self) -> Result<[u8; N], DbusError> {
        self.align(N)?;
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N)?);
        if self.big_endian {
            a.reverse(); // callers decode little-endian
        }
        Ok(a)
    }

    pub fn u32(&mut self) -> Result<u32, DbusError> {
        Ok(u32::from_le_bytes(self.fixed::<4>()?))
    }

    fn string(&mut self) -> Result<String, DbusError> {
        let len = self.u32()? as usize;
        let bytes = self.take(len)?;
        if self.take(1)? != [0] {
            return Err(protocol("string without terminating nul"));
        }
        // Applications do send invalid UTF-8 now and then; a replacement character beats failing the walk.
        Ok(String::from_utf8_lossy(bytes).into_owned())
    }

    fn signature(&mut self) -> Result<String, DbusError> {
        let len = usize::from(self.take(1)?[0]);
        let bytes = self.take(len)?;
        if self.take(1)? != [0] {
            return Err(protocol("signature without terminating nul"));
        }
        std::str::from_utf8(bytes).map(str::to_owned).map_err(|_| protocol("signature is not ASCII"))
    }

    /// Reads one value of the single complete type `ty`.
    pub fn value(&mut self, ty: &[u8]) -> Result<Value, DbusError> {
        let code = *ty.first().ok_or_else(|| protocol("empty type"))?;
        Ok(match code {
            b'y' => Value::Byte(self.take(1)?[0]),
            b'b' => Value::Bool(self.u32()? != 0),
            b'n' => Value::I16(i16::from_le_bytes(self.fixed::<2>()?)),
            b'q' => Value::U16(u16::from_le_bytes(self.fixed::<2>()?)),
            b'i' => Value::I32(i32::from_le_bytes(self.fixed::<4>()?)),
            b'u' => Value::U32(self.u32()?),
            b'h' => Value::Fd(self.u32()?),
            b'x' => Value::I64(i64::from_le_bytes(self.fixed::<8>()?)),
            b't' => Value::U64(u64::from_le_bytes(self.fixed::<8>()?)),
            b'd' => Value::F64(f64::from_le_bytes(self.fixed::<8>()?)),
            b's' | b'o' => Value::Str(self.string()?),
            b'g' => Value::Str(self.signature()?),
            b'a' => self.nested(|r| {
                let len = r.u32()? as usize;
                let elem = &ty[1..];
                let elem_code = *elem.first().ok_or_else(|| protocol("array without element type"))?;
                r.align(alignment(elem_code))?;
                let end = r
                    .pos
                    .checked_add(len)
                    .filter(|&e| e <= r.buf.len())
                    .ok_or_else(|| protocol("array past the end"))?;
                let mut items = Vec::new();
                while r.pos < end {
                    items.push(r.value(elem)?);
                }
                if r.pos != end {
                    return Err(protocol("array length mismatch"));
                }
                Ok(Value::Array(items))
            })?,
            b'(' | b'{' => self.nested(|r| {
                r.align(8)?;
                let inner = &ty[1..ty.len().saturating_sub(1)];
                let mut fields = Vec::new();
                let mut i = 0;
                while i < inner.len() {
                    let end = complete_type_end(inner, i)?;
                    fields.push(r.value(&inner[i..end])?);
                    i = end;
                }
                Ok(Value::Struct(fields))
            })?,
            b'v' => self.nested(|r| {
                let sig = r.signature()?;
                let bytes = sig.as_bytes();
                if bytes.is_empty() || complete_type_end(bytes, 0)? != bytes.len() {
                    return Err(protocol("variant signature is not one complete type"));
                }
                Ok(Value::Variant(Box::new(r.value(bytes)?)))
            })?,
            c => return Err(protocol(format!("unknown type code {:?}", c as char))),
        })
    }

    fn nested(&mut self, f: impl FnOnce(&mut Self) -> Result<Value, DbusError>) -> Result<Value, DbusError> {
        if self.depth >= MAX_DEPTH {
            return Err(protocol("values nested too deeply"));
        }
        self.depth += 1;
        let v = f(self);
        self.depth -= 1;
        v
    }

    /// Reads a sequence of values for a whole signature.
    pub fn values(&mut self, signature: &str) -> Result<Vec<Value>, DbusError> {
        split_signature(signature)?.into_iter().map(|t| self.value(t.as_bytes())).collect()
    }
}

/// Little-endian writer for outgoing messages.
#[derive(Default)]
struct Writer {
    buf: Vec<u8>,
}

impl Writer {
    fn align(&mut self, n: usize) {
        // n is a power of two.
        while self.buf.len() & (n - 1) != 0 {
            self.buf.push(0);
        }
    }

    fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }

    fn u32(&mut self, v: u32) {
        self.align(4);
        self.buf.extend_from_slice(&v.to_le_bytes());
    }

    fn string(&mut self, s: &str) -> Result<(), DbusError> {
        let len = u32::try_from(s.len()).map_err(|_| protocol("string too long"))?;
        self.u32(len);
        self.buf.extend_from_slice(s.as_bytes());
        self.buf.push(0);
        Ok(())
    }

    fn signature(&mut self, s: &str) -> Result<(), DbusError> {
        let len = u8::try_from(s.len()).map_err(|_| protocol("signature too long"))?;
        self.u8(len);
        self.buf.extend_from_slice(s.as_bytes());
        self.buf.push(0);
        Ok(())
    }

    fn arg(&mut self, arg: &Arg) -> Result<(), DbusError> {
        match arg {
            Arg::Str(s) => self.string(s)?,
            Arg::Path(p) => {
                if !is_object_path(p) {
                    return Err(protocol(format!("{p:?} is not an object path")));
                }
                self.string(p)?;
            }
            Arg::Bool(v) => self.u32(u32::from(*v)),
            Arg::U32(v) => self.u32(*v),
            Arg::I32(v) => {
                self.align(4);
                self.buf.extend_from_slice(&v.to_le_bytes());
            }
            Arg::U64(v) => {
                self.align(8);
                self.buf.extend_from_slice(&v.to_le_bytes());
            }
            Arg::F64(v) => {
                self.align(8);
                self.buf.extend_from_slice(&v.to_le_bytes());
            }
            Arg::Dict(entries) => {
                self.align(4);
                let len_at = self.buf.len();
                self.u32(0);
                // The length counts from the first entry, after its 8-byte alignment.
                self.align(8);
                let start = self.buf.len();
                for (key, value) in entries {
                    self.align(8);
                    self.string(key)?;
                    self.signature(value.signature())?;
                    self.arg(value)?;
                }
                let len = u32::try_from(self.buf.len() - start).map_err(|_| protocol("dictionary too long"))?;
                self.buf[len_at..len_at + 4].copy_from_slice(&len.to_le_bytes());
            }
            Arg::StrArray(items) => {
                self.align(4);
                let len_at = self.buf.len();
                self.u32(0);
                let start = self.buf.len(); // strings are 4-aligned already
                for s in items {
                    self.string(s)?;
                }
                let len = u32::try_from(self.buf.len() - start).map_err(|_| protocol("array too long"))?;
                self.buf[len_at..len_at + 4].copy_from_slice(&len.to_le_bytes());
            }
        }
        Ok(())
    }

    /// A header field `(y v)` holding a string-like value of type `code` (`s`, `o` or `g`).
    fn field_str(&mut self, field: u8, code: &str, value: &str) -> Result<(), DbusError> {
        self.align(8);
        self.u8(field);
        self.signature(code)?;
        if code == "g" {
            self.signature(value)
        } else {
            self.string(value)
        }
    }
}

/// What a method call says.
#[derive(Debug, Clone)]
pub struct Call<'a> {
    pub destination: &'a str,
    pub path: &'a str,
    pub interface: &'a str,
    pub member: &'a str,
    pub args: &'a [Arg],
    pub flags: u8,
}

/// Marshals a method call with serial `serial`.
pub fn encode_call(call: &Call<'_>, serial: u32) -> Result<Vec<u8>, DbusError> {
    let mut body = Writer::default();
    let mut signature = String::new();
    for a in call.args {
        // A call nested deeper than a peer (or this decoder) accepts would only come back as an error.
        if a.nesting() > MAX_DEPTH {
            return Err(protocol(format!(
                "an argument nests {} containers deep; D-Bus allows {MAX_DEPTH}",
                a.nesting()
            )));
        }
        signature.push_str(a.signature());
        body.arg(a)?;
    }
    let mut w = Writer::default();
    w.u8(b'l');
    w.u8(METHOD_CALL);
    w.u8(call.flags);
    w.u8(1);
    w.u32(u32::try_from(body.buf.len()).map_err(|_| protocol("body too long"))?);
    w.u32(serial);
    let fields_len_at = w.buf.len();
    w.u32(0);
    let fields_start = w.buf.len(); // 16: already 8-aligned
    w.field_str(FIELD_PATH, "o", call.path)?;
    w.field_str(FIELD_INTERFACE, "s", call.interface)?;
    w.field_str(FIELD_MEMBER, "s", call.member)?;
    if !call.destination.is_empty() {
        w.field_str(FIELD_DESTINATION, "s", call.destination)?;
    }
    if !signature.is_empty() {
        w.field_str(FIELD_SIGNATURE, "g", &signature)?;
    }
    let fields_len = u32::try_from(w.buf.len() - fields_start).map_err(|_| protocol("header too long"))?;
    w.buf[fields_len_at..fields_len_at + 4].copy_from_slice(&fields_len.to_le_bytes());
    w.align(8);
    w.buf.extend_from_slice(&body.buf);
    Ok(w.buf)
}

/// A received message. The body stays raw until asked for, so signals are never decoded (their payload
/// may carry text typed into a password field).
#[derive(Debug, Clone, Default)]
pub struct Message {
    pub kind: u8,
    pub reply_serial: Option<u32>,
    pub path: String,
    pub interface: String,
    pub member: String,
    pub error_name: String,
    pub destination: String,
    pub sender: String,
    pub signature: String,
    pub big_endian: bool,
    pub body: Vec<u8>,
    /// How many file descriptors the header says travel with the message.
    pub unix_fds: u32,
    /// The descriptors that came with it, in order (a body's `h` value is an index into them); the
    /// transport fills them in.
    pub fds: Vec<std::sync::Arc<std::os::fd::OwnedFd>>,
}

impl Message {
    /// The descriptor a body's `h` value `index` names, if it came.
    pub fn fd(&self, index: u32) -> Option<&std::os::fd::OwnedFd> {
        self.fds.get(index as usize).map(|f| &**f)
    }

    /// Decodes the body.
    pub fn values(&self) -> Result<Vec<Value>, DbusError> {
        Reader::new(&self.body, self.big_endian).values(&self.signature)
    }

    /// The first body value.
    pub fn first(&self) -> Result<Value, DbusError> {
        self.values()?.into_iter().next().ok_or_else(|| protocol("empty reply body"))
    }
}

/// Total length of the message whose first 16 bytes are `head`.
pub fn message_len(head: &[u8; 16]) -> Result<usize, DbusError> {
    let big = match head[0] {
        b'l' => false,
        b'B' => true,
        _ => return Err(protocol("bad endianness byte")),
    };
    let word = |at: usize| {
        let mut a = [0u8; 4];
        a.copy_from_slice(&head[at..at + 4]);
        if big {
            u32::from_be_bytes(a)
        } else {
            u32::from_le_bytes(a)
        }
    };
    let body = word(4) as usize;
    let fields = word(12) as usize;
    let header = (16usize + fields).div_ceil(8) * 8;
    let total = header.checked_add(body).ok_or_else(|| protocol("message too long"))?;
    if total > MAX_MESSAGE {
        return Err(protocol(format!("message of {total} bytes is too long")));
    }
    Ok(total)
}

/// Parses a whole message.
pub fn decode_message(buf: &[u8]) -> Result<Message, DbusError> {
    let big_endian = match buf.first() {
        Some(b'l') => false,
        Some(b'B') => true,
        _ => return Err(protocol("bad endianness byte")),
    };
    let mut r = Reader::new(buf, big_endian);
    let head = r.take(4)?;
    let kind = head[1];
    let body_len = r.u32()? as usize;
    let _serial = r.u32()?;
    let fields = r.value(b"a(yv)")?;
    r.align(8)?;
    let body_start = r.position();
    let body = buf.get(body_start..body_start + body_len).ok_or_else(|| protocol("body past the end"))?;
    let mut m = Message { kind, big_endian, body: body.to_vec(), ..Message::default() };
    for f in fields.as_array().unwrap_or_default() {
        let Some([Value::Byte(code), v]) = f.as_struct() else {
            continue;
        };
        let s = || v.as_str().unwrap_or_default().to_owned();
        match *code {
            FIELD_PATH => m.path = s(),
            FIELD_INTERFACE => m.interface = s(),
            FIELD_MEMBER => m.member = s(),
            FIELD_ERROR_NAME => m.error_name = s(),
            FIELD_REPLY_SERIAL => m.reply_serial = v.as_u32(),
            FIELD_DESTINATION => m.destination = s(),
            FIELD_SENDER => m.sender = s(),
            FIELD_SIGNATURE => m.signature = s(),
            FIELD_UNIX_FDS => m.unix_fds = v.as_u32().unwrap_or(0),
            _ => {}
        }
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What an argument decodes to.
    fn decoded(arg: &Arg) -> Value {
        match arg {
            Arg::Str(s) | Arg::Path(s) => Value::Str(s.clone()),
            Arg::Bool(v) => Value::Bool(*v),
            Arg::U32(v) => Value::U32(*v),
            Arg::I32(v) => Value::I32(*v),
            Arg::U64(v) => Value::U64(*v),
            Arg::F64(v) => Value::F64(*v),
            Arg::StrArray(v) => Value::Array(v.iter().cloned().map(Value::Str).collect()),
            Arg::Dict(entries) => Value::Array(
                entries
                    .iter()
                    .map(|(k, v)| Value::Struct(vec![Value::Str(k.clone()), Value::Variant(Box::new(decoded(v)))]))
                    .collect(),
            ),
        }
    }

    fn path() -> impl Strategy<Value = String> {
        prop_oneof![Just("/".to_owned()), "(/[A-Za-z0-9_]{1,8}){1,4}"]
    }

    fn arg() -> impl Strategy<Value = Arg> {
        let leaf = prop_oneof![
            ".{0,12}".prop_map(Arg::Str),
            path().prop_map(Arg::Path),
            any::<bool>().prop_map(Arg::Bool),
            any::<u32>().prop_map(Arg::U32),
            any::<i32>().prop_map(Arg::I32),
            any::<u64>().prop_map(Arg::U64),
            // Finite, so that decoded values compare equal.
            (-1e12f64..1e12).prop_map(Arg::F64),
            prop::collection::vec(".{0,6}", 0..4).prop_map(Arg::StrArray),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| prop::collection::vec(("[a-z-]{1,10}", inner), 0..4).prop_map(Arg::Dict))
    }

    proptest! {
        /// Every argument, nested dictionaries included, decodes to what was sent, whatever came
        /// before it (alignment).
        #[test]
        fn arguments_round_trip(args in prop::collection::vec(arg(), 0..6)) {
            let call = Call { destination: "org.example", path: "/", interface: "org.example.I", member: "M", args: &args, flags: 0 };
            let bytes = encode_call(&call, 1).expect("encodes");
            let m = decode_message(&bytes).expect("decodes");
            let signature: String = args.iter().map(Arg::signature).collect();
            prop_assert_eq!(&m.signature, &signature);
            prop_assert_eq!(m.values().expect("body"), args.iter().map(decoded).collect::<Vec<_>>());
        }

        #[test]
        fn object_paths_are_checked(p in "[/A-Za-z0-9_.-]{0,12}") {
            let valid = is_object_path(&p);
            let expected = p == "/" || (p.starts_with('/') && !p.ends_with('/') && !p.contains("//")
                && p.bytes().all(|b| b == b'/' || b.is_ascii_alphanumeric() || b == b'_'));
            prop_assert_eq!(valid, expected);
            let args = [Arg::Path(p.clone())];
            let call = Call { destination: "", path: "/", interface: "i.I", member: "M", args: &args, flags: 0 };
            prop_assert_eq!(encode_call(&call, 1).is_ok(), valid);
        }
    }

    /// `k` dictionaries each holding the next, the innermost holding a number: 3·k levels deep.
    fn nested_dicts(k: usize) -> Arg {
        (0..k).fold(Arg::U32(7), |inner, _| Arg::Dict(vec![("k".into(), inner)]))
    }

    #[test]
    fn calls_nested_past_the_limit_are_refused_before_sending() {
        // 21 levels of a{sv} are 63 containers: sent, and read back whole.
        let args = [nested_dicts(21)];
        let call = Call { destination: "", path: "/", interface: "i.I", member: "M", args: &args, flags: 0 };
        let bytes = encode_call(&call, 1).expect("63 containers deep is allowed");
        let m = decode_message(&bytes).expect("decodes");
        assert_eq!(m.values().expect("body"), vec![decoded(&args[0])]);
        // 22 levels are 66: refused with the reason, where the decoder (and a peer) would refuse it.
        let args = [nested_dicts(22)];
        let call = Call { destination: "", path: "/", interface: "i.I", member: "M", args: &args, flags: 0 };
        let err = encode_call(&call, 1).expect_err("66 containers deep");
        assert!(err.to_string().contains("66 containers deep"), "{err}");
        assert_eq!(Arg::Dict(vec![]).nesting(), 1, "an empty dictionary is one array");
    }

    #[test]
    fn call_round_trips_through_the_decoder() {
        let args =
            [Arg::Str("Accessible".into()), Arg::U32(7), Arg::I32(-3), Arg::StrArray(vec!["a".into(), "bc".into()])];
        let call = Call {
            destination: ":1.42",
            path: "/org/a11y/atspi/accessible/root",
            interface: "org.a11y.atspi.Accessible",
            member: "GetChildren",
            args: &args,
            flags: FLAG_NO_AUTO_START,
        };
        let bytes = encode_call(&call, 99).expect("encodes");
        let mut head = [0u8; 16];
        head.copy_from_slice(&bytes[..16]);
        assert_eq!(message_len(&head).expect("length"), bytes.len());
        let m = decode_message(&bytes).expect("decodes");
        assert_eq!((m.kind, bytes[2], bytes[8]), (METHOD_CALL, FLAG_NO_AUTO_START, 99));
        assert_eq!(m.path, call.path);
        assert_eq!(m.interface, call.interface);
        assert_eq!(m.member, call.member);
        assert_eq!(m.destination, call.destination);
        assert_eq!(m.signature, "suias");
        let v = m.values().expect("body");
        assert_eq!(
            v,
            vec![
                Value::Str("Accessible".into()),
                Value::U32(7),
                Value::I32(-3),
                Value::Array(vec![Value::Str("a".into()), Value::Str("bc".into())])
            ]
        );
    }

    /// A big-endian `a(so)` body as another machine's toolkit might send it.
    #[test]
    fn decodes_big_endian_struct_arrays_and_variants() {
        let mut b = Vec::new();
        // array length placeholder
        b.extend_from_slice(&[0, 0, 0, 0]);
        b.extend_from_slice(&[0, 0, 0, 0]); // pad to 8 for the struct
        let start = b.len();
        b.extend_from_slice(&2u32.to_be_bytes());
        b.extend_from_slice(b":1\0");
        b.push(0); // pad to 4
        b.extend_from_slice(&2u32.to_be_bytes());
        b.extend_from_slice(b"/a\0");
        let len = (b.len() - start) as u32;
        b[0..4].copy_from_slice(&len.to_be_bytes());
        let v = Reader::new(&b, true).values("a(so)").expect("decodes");
        assert_eq!(v, vec![Value::Array(vec![Value::Struct(vec![Value::Str(":1".into()), Value::Str("/a".into())])])]);

        let mut v = Vec::new();
        v.push(1u8);
        v.extend_from_slice(b"d\0");
        v.extend_from_slice(&[0; 5]);
        v.extend_from_slice(&2.5f64.to_be_bytes());
        let got = Reader::new(&v, true).values("v").expect("variant");
        assert_eq!(got[0].as_f64(), Some(2.5));
    }

    #[test]
    fn hostile_input_is_an_error_not_a_panic() {
        // Length claims more than is there.
        assert!(Reader::new(&[0xff, 0xff, 0xff, 0x7f], false).values("s").is_err());
        assert!(Reader::new(&[0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0], false).values("ay").is_err());
        // Unknown and unbalanced signatures.
        assert!(split_signature("(s").is_err());
        assert!(split_signature("z").is_err());
        // Deeply nested variants stop at the depth limit.
        let mut deep = Vec::new();
        for _ in 0..200 {
            deep.extend_from_slice(&[1, b'v', 0]);
        }
        assert!(Reader::new(&deep, false).values("v").is_err());
        // Truncated messages.
        assert!(decode_message(b"l\x02\x00\x01").is_err());
        assert!(decode_message(b"").is_err());
        assert!(message_len(b"x\x02\x00\x01\0\0\0\0\0\0\0\0\0\0\0\0").is_err());
        assert!(message_len(b"l\x02\x00\x01\xff\xff\xff\xff\0\0\0\0\0\0\0\0").is_err());
    }

    /// An empty struct takes no bytes, so an array of them never ended: decoding `a{)y` looped,
    /// allocating until memory ran out. The specification forbids empty structs; so does the decoder.
    #[test]
    fn empty_or_mismatched_containers_are_refused() {
        for sig in ["()", "a()", "a{)y", "(y}", "{y)", "(()y)", "a{}"] {
            assert!(split_signature(sig).is_err(), "{sig:?}");
        }
        assert!(Reader::new(&[2, 0, 0, 0, 0, 0, 0, 0, 0, 0], false).values("a{)y").is_err());
        assert!(Reader::new(&[8, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8], false).values("a()").is_err());
        let too_deep = format!("{}y{}", "(".repeat(65), ")".repeat(65));
        assert!(split_signature(&too_deep).is_err());
        assert_eq!(split_signature("a{sv}(i(ya{ss}))").ok().map(|t| t.len()), Some(2));
    }

    #[test]
    fn dict_of_strings_decodes() {
        let mut b = Vec::new();
        b.extend_from_slice(&0u32.to_le_bytes());
        b.extend_from_slice(&[0; 4]);
        let start = b.len();
        for s in ["id", "name"] {
            while b.len() % 8 != 0 {
                b.push(0);
            }
            b.extend_from_slice(&(s.len() as u32).to_le_bytes());
            b.extend_from_slice(s.as_bytes());
            b.push(0);
        }
        let len = (b.len() - start) as u32;
        b[0..4].copy_from_slice(&len.to_le_bytes());
        let v = Reader::new(&b, false).values("a{ss}").expect("dict");
        let entries = v[0].as_array().expect("array");
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0].as_struct().expect("entry")[1].as_str(), Some("name"));
    }
}

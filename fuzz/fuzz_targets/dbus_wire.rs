//! The D-Bus decoder of `handrail-dbus` on bytes an application on the bus could send.
//!
//! The first byte picks what the rest is:
//! - 0: a whole message. Decoding never panics, holds at most a bounded multiple of the input on the
//!   heap, and respects the lengths the header declares; a body that decodes re-encodes (with an encoder
//!   written here) to bytes that decode to the same values, in both byte orders.
//! - 1: a body with a signature of the fuzzer's choosing; the same checks.
//! - 2: a method call built from arbitrary parts (nested dictionaries, object paths, floats):
//!   `encode_call` → `decode_message` gives the same call, or the call is refused for a reason D-Bus has.

#![no_main]

use handrail_dbus::wire::{
    decode_message, encode_call, is_object_path, message_len, Arg, Call, Reader, Value, MAX_MESSAGE,
};
use handrail_fuzz::within_heap;
use libfuzzer_sys::arbitrary::{self, Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;

/// Heap a decode may hold: a `Value` is 32 bytes and a one-byte array element becomes one, so a
/// generous multiple of the input, plus room for small fixed allocations.
fn heap_limit(input: usize) -> usize {
    128 * input + (1 << 20)
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else { return };
    match mode % 3 {
        0 => whole_message(rest),
        1 => body(rest),
        _ => call_round_trip(rest),
    }
});

fn whole_message(bytes: &[u8]) {
    if let Some(head) = bytes.first_chunk::<16>() {
        if let Ok(total) = message_len(head) {
            assert!((16..=MAX_MESSAGE).contains(&total), "message_len {total} out of range");
        }
    }
    let (decoded, _) = within_heap(heap_limit(bytes.len()), || decode_message(bytes));
    let Ok(m) = decoded else { return };

    // The header's own words, read independently.
    let big = bytes[0] == b'B';
    assert!(bytes[0] == b'l' || big);
    assert_eq!(m.big_endian, big);
    assert_eq!(m.kind, bytes[1]);
    let word = |at: usize| {
        let w = [bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]];
        if big {
            u32::from_be_bytes(w)
        } else {
            u32::from_le_bytes(w)
        }
    };
    let body_len = word(4) as usize;
    let fields_len = word(12) as usize;
    assert_eq!(m.body.len(), body_len, "the body is exactly the declared length");
    let body_start = (16 + fields_len).div_ceil(8) * 8;
    assert!(body_start + body_len <= bytes.len(), "a decoded message lies inside its buffer");
    assert_eq!(&bytes[body_start..body_start + body_len], &m.body[..], "the body is the bytes after the header");
    let head: &[u8; 16] = bytes.first_chunk().expect("a decoded message has a full header");
    if let Ok(total) = message_len(head) {
        assert_eq!(total, body_start + body_len, "message_len agrees with the decoder");
    }

    let (values, _) = within_heap(heap_limit(m.body.len()), || m.values());
    if let Ok(values) = values {
        re_encodes(&m.signature, &values);
    }
}

fn body(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(big) = bool::arbitrary(&mut u) else { return };
    let Ok(signature) = signature(&mut u) else { return };
    let body = u.take_rest();
    let (values, _) = within_heap(heap_limit(body.len()), || {
        let mut r = Reader::new(body, big);
        r.values(&signature).map(|v| (v, r.position()))
    });
    if let Ok((values, end)) = values {
        assert!(end <= body.len(), "the reader stops inside its buffer");
        re_encodes(&signature, &values);
    }
}

/// A signature drawn mostly from type codes, so the fuzzer reaches containers quickly.
fn signature(u: &mut Unstructured<'_>) -> arbitrary::Result<String> {
    const CODES: &[u8] = b"ybnqiuxtdsoghvaaa(){}";
    let len = u.int_in_range(0..=24)?;
    let mut s = String::with_capacity(len);
    for _ in 0..len {
        if u.ratio(1, 16)? {
            s.push(char::from(u8::arbitrary(u)? & 0x7f));
        } else {
            s.push(char::from(*u.choose(CODES)?));
        }
    }
    Ok(s)
}

#[derive(Debug, Arbitrary)]
enum FuzzArg {
    Str(String),
    Path(String),
    Bool(bool),
    U32(u32),
    I32(i32),
    F64(f64),
    StrArray(Vec<String>),
    Dict(Vec<(String, FuzzArg)>),
}

impl FuzzArg {
    fn arg(&self) -> Arg {
        match self {
            FuzzArg::Str(s) => Arg::Str(s.clone()),
            FuzzArg::Path(s) => Arg::Path(s.clone()),
            FuzzArg::Bool(v) => Arg::Bool(*v),
            FuzzArg::U32(v) => Arg::U32(*v),
            FuzzArg::I32(v) => Arg::I32(*v),
            FuzzArg::F64(v) => Arg::F64(*v),
            FuzzArg::StrArray(v) => Arg::StrArray(v.clone()),
            FuzzArg::Dict(v) => Arg::Dict(v.iter().map(|(k, a)| (k.clone(), a.arg())).collect()),
        }
    }

    /// Whether every object path in it is one D-Bus accepts.
    fn paths_valid(&self) -> bool {
        match self {
            FuzzArg::Path(p) => is_object_path(p),
            FuzzArg::Dict(v) => v.iter().all(|(_, a)| a.paths_valid()),
            _ => true,
        }
    }

    /// How many containers deep its decoded value goes (an array, a dictionary entry and a variant are
    /// one each); the decoder, like D-Bus, stops at 64.
    fn depth(&self) -> u32 {
        match self {
            FuzzArg::StrArray(_) => 1,
            FuzzArg::Dict(v) if v.is_empty() => 1,
            FuzzArg::Dict(v) => 3 + v.iter().map(|(_, a)| a.depth()).max().unwrap_or(0),
            _ => 0,
        }
    }

    /// What it decodes to.
    fn decoded(&self) -> Value {
        match self {
            FuzzArg::Str(s) | FuzzArg::Path(s) => Value::Str(s.clone()),
            FuzzArg::Bool(v) => Value::Bool(*v),
            FuzzArg::U32(v) => Value::U32(*v),
            FuzzArg::I32(v) => Value::I32(*v),
            FuzzArg::F64(v) => Value::F64(*v),
            FuzzArg::StrArray(v) => Value::Array(v.iter().cloned().map(Value::Str).collect()),
            FuzzArg::Dict(v) => Value::Array(
                v.iter()
                    .map(|(k, a)| Value::Struct(vec![Value::Str(k.clone()), Value::Variant(Box::new(a.decoded()))]))
                    .collect(),
            ),
        }
    }
}

#[derive(Debug, Arbitrary)]
struct FuzzCall {
    destination: String,
    path: String,
    interface: String,
    member: String,
    args: Vec<FuzzArg>,
    flags: u8,
    serial: u32,
}

fn call_round_trip(data: &[u8]) {
    let Ok(c) = FuzzCall::arbitrary_take_rest(Unstructured::new(data)) else { return };
    let args: Vec<Arg> = c.args.iter().map(FuzzArg::arg).collect();
    let call = Call {
        destination: &c.destination,
        path: &c.path,
        interface: &c.interface,
        member: &c.member,
        args: &args,
        flags: c.flags,
    };
    let signature: String = args.iter().map(Arg::signature).collect();
    let paths_valid = c.args.iter().all(FuzzArg::paths_valid);
    let depth_valid = c.args.iter().all(|a| a.depth() <= 64);
    let bytes = match encode_call(&call, c.serial) {
        Ok(b) => b,
        Err(e) => {
            // What a call can get wrong: a signature past the 255 bytes D-Bus allows, an object path
            // that is not one, values nested deeper than 64 containers.
            assert!(
                signature.len() > 255 || !paths_valid || !depth_valid,
                "encode_call refused a valid call: {e}"
            );
            return;
        }
    };
    assert!(signature.len() <= 255, "encode_call wrote a signature D-Bus does not allow");
    assert!(paths_valid, "encode_call sent an object path D-Bus does not allow");
    assert!(depth_valid, "encode_call sent values nested deeper than D-Bus allows");
    let head: &[u8; 16] = bytes.first_chunk().expect("a header");
    assert_eq!(message_len(head).expect("our own header"), bytes.len());
    let m = decode_message(&bytes).expect("our own call decodes");
    assert_eq!((m.kind, m.big_endian, bytes[2]), (1, false, c.flags));
    assert_eq!(u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]), c.serial);
    assert_eq!((m.path.as_str(), m.interface.as_str(), m.member.as_str()), (call.path, call.interface, call.member));
    assert_eq!(m.destination, c.destination);
    assert_eq!(m.signature, signature);
    let values = m.values().expect("our own body decodes");
    let expected: Vec<Value> = c.args.iter().map(FuzzArg::decoded).collect();
    assert!(
        values.len() == expected.len() && values.iter().zip(&expected).all(|(a, b)| same(a, b)),
        "a call's arguments decoded differently\n{expected:?}\n{values:?}"
    );
}

/// Encodes `values` (typed by `signature`) in both byte orders and checks they decode to the same.
fn re_encodes(signature: &str, values: &[Value]) {
    let types = complete_types(signature.as_bytes());
    assert_eq!(types.len(), values.len(), "one value per complete type of {signature:?}");
    for big in [false, true] {
        let mut w = Writer { buf: Vec::new(), big };
        for (ty, v) in types.iter().zip(values) {
            w.value(ty, v);
        }
        let again = Reader::new(&w.buf, big).values(signature).expect("a re-encoded body decodes");
        assert!(
            again.len() == values.len() && again.iter().zip(values).all(|(a, b)| same(a, b)),
            "re-encoding changed the values of {signature:?} (big endian: {big})\n{values:?}\n{again:?}"
        );
    }
}

/// Value equality with floats compared bit for bit (NaN is a value too).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::F64(x), Value::F64(y)) => x.to_bits() == y.to_bits(),
        (Value::Array(x), Value::Array(y)) | (Value::Struct(x), Value::Struct(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Variant(x), Value::Variant(y)) => same(x, y),
        _ => a == b,
    }
}

/// The complete types of a signature the decoder accepted.
fn complete_types(sig: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < sig.len() {
        let end = type_end(sig, i);
        out.push(&sig[i..end]);
        i = end;
    }
    out
}

fn type_end(sig: &[u8], start: usize) -> usize {
    let mut i = start;
    while sig[i] == b'a' {
        i += 1;
    }
    if !matches!(sig[i], b'(' | b'{') {
        return i + 1;
    }
    let mut depth = 0usize;
    loop {
        match sig[i] {
            b'(' | b'{' => depth += 1,
            b')' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
}

fn alignment(code: u8) -> usize {
    match code {
        b'n' | b'q' => 2,
        b'b' | b'i' | b'u' | b'a' | b's' | b'o' | b'h' => 4,
        b'x' | b't' | b'd' | b'(' | b'{' => 8,
        _ => 1,
    }
}

/// A D-Bus marshaller for any value, written from the specification for this check.
struct Writer {
    buf: Vec<u8>,
    big: bool,
}

impl Writer {
    fn align(&mut self, n: usize) {
        while !self.buf.len().is_multiple_of(n) {
            self.buf.push(0);
        }
    }

    fn fixed<const N: usize>(&mut self, le: [u8; N]) {
        self.align(N);
        let mut b = le;
        if self.big {
            b.reverse();
        }
        self.buf.extend_from_slice(&b);
    }

    fn u32(&mut self, v: u32) {
        self.fixed(v.to_le_bytes());
    }

    fn value(&mut self, ty: &[u8], v: &Value) {
        match (ty[0], v) {
            (b'y', Value::Byte(b)) => self.buf.push(*b),
            (b'b', Value::Bool(b)) => self.u32(u32::from(*b)),
            (b'n', Value::I16(x)) => self.fixed(x.to_le_bytes()),
            (b'q', Value::U16(x)) => self.fixed(x.to_le_bytes()),
            (b'i', Value::I32(x)) => self.fixed(x.to_le_bytes()),
            (b'u', Value::U32(x)) | (b'h', Value::Fd(x)) => self.u32(*x),
            (b'x', Value::I64(x)) => self.fixed(x.to_le_bytes()),
            (b't', Value::U64(x)) => self.fixed(x.to_le_bytes()),
            (b'd', Value::F64(x)) => self.fixed(x.to_bits().to_le_bytes()),
            (b's' | b'o', Value::Str(s)) => {
                self.u32(u32::try_from(s.len()).expect("a decoded string fits a u32 length"));
                self.buf.extend_from_slice(s.as_bytes());
                self.buf.push(0);
            }
            (b'g', Value::Str(s)) => self.signature(s),
            (b'a', Value::Array(items)) => {
                let elem = &ty[1..];
                self.align(4);
                let len_at = self.buf.len();
                self.u32(0);
                self.align(alignment(elem[0]));
                let start = self.buf.len();
                for item in items {
                    self.value(elem, item);
                }
                let len = u32::try_from(self.buf.len() - start).expect("array length");
                let len = if self.big { len.to_be_bytes() } else { len.to_le_bytes() };
                self.buf[len_at..len_at + 4].copy_from_slice(&len);
            }
            (b'(' | b'{', Value::Struct(fields)) => {
                self.align(8);
                let inner = complete_types(&ty[1..ty.len() - 1]);
                assert_eq!(inner.len(), fields.len(), "a struct has one field per type of {ty:?}");
                for (t, f) in inner.iter().zip(fields) {
                    self.value(t, f);
                }
            }
            (b'v', Value::Variant(inner)) => {
                let sig = infer(inner).signature();
                self.signature(&sig);
                self.value(sig.as_bytes(), inner);
            }
            _ => panic!("the decoder produced {v:?} for type {:?}", String::from_utf8_lossy(ty)),
        }
    }

    fn signature(&mut self, s: &str) {
        self.buf.push(u8::try_from(s.len()).expect("a signature of at most 255 bytes"));
        self.buf.extend_from_slice(s.as_bytes());
        self.buf.push(0);
    }
}

/// The type of a value inside a variant, worked out from the value (empty arrays leave the element
/// type open; any type will do for them).
#[derive(Debug, Clone, PartialEq)]
enum Ty {
    Basic(u8),
    Array(Box<Ty>),
    Struct(Vec<Ty>),
    Variant,
    Open,
}

impl Ty {
    fn signature(&self) -> String {
        match self {
            Ty::Basic(c) => char::from(*c).to_string(),
            Ty::Array(t) => format!("a{}", t.signature()),
            Ty::Struct(ts) => format!("({})", ts.iter().map(Ty::signature).collect::<String>()),
            Ty::Variant => "v".to_string(),
            Ty::Open => "y".to_string(),
        }
    }
}

fn infer(v: &Value) -> Ty {
    match v {
        Value::Byte(_) => Ty::Basic(b'y'),
        Value::Bool(_) => Ty::Basic(b'b'),
        Value::I16(_) => Ty::Basic(b'n'),
        Value::U16(_) => Ty::Basic(b'q'),
        Value::I32(_) => Ty::Basic(b'i'),
        Value::U32(_) => Ty::Basic(b'u'),
        Value::I64(_) => Ty::Basic(b'x'),
        Value::U64(_) => Ty::Basic(b't'),
        Value::F64(_) => Ty::Basic(b'd'),
        Value::Str(_) => Ty::Basic(b's'),
        Value::Fd(_) => Ty::Basic(b'h'),
        Value::Variant(_) => Ty::Variant,
        Value::Struct(fields) => Ty::Struct(fields.iter().map(infer).collect()),
        Value::Array(items) => Ty::Array(Box::new(items.iter().map(infer).fold(Ty::Open, unify))),
    }
}

/// The one type two elements of an array share; they always have one, having been decoded with one.
fn unify(a: Ty, b: Ty) -> Ty {
    match (a, b) {
        (Ty::Open, t) | (t, Ty::Open) => t,
        (Ty::Array(x), Ty::Array(y)) => Ty::Array(Box::new(unify(*x, *y))),
        (Ty::Struct(xs), Ty::Struct(ys)) if xs.len() == ys.len() => {
            Ty::Struct(xs.into_iter().zip(ys).map(|(x, y)| unify(x, y)).collect())
        }
        (x, y) if x == y => x,
        (x, y) => panic!("elements of one array have different types: {x:?} and {y:?}"),
    }
}

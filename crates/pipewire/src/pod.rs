//! SPA PODs, the self-describing binary values PipeWire negotiates formats and buffers with: a
//! builder for the few parameters a video consumer sends, and a reader for the formats it receives.
//!
//! A POD is a 32-bit body size, a 32-bit type and the body, padded to 8 bytes; every POD starts
//! 8-aligned. Values are in the machine's byte order (PipeWire never crosses machines). Objects
//! hold properties (key, flags, POD); a *choice* holds one type of value several times (the current
//! one first) with a rule for the rest (enum, range, flags).
//!
//! The reader takes bytes from the library and never trusts a length: every size is checked
//! against what is left, and nesting is bounded.

use thiserror::Error;

pub const TYPE_ID: u32 = 3;
pub const TYPE_INT: u32 = 4;
pub const TYPE_RECTANGLE: u32 = 10;
pub const TYPE_FRACTION: u32 = 11;
pub const TYPE_OBJECT: u32 = 15;
pub const TYPE_CHOICE: u32 = 19;

/// Object types.
pub const OBJECT_FORMAT: u32 = 0x40003;
pub const OBJECT_PARAM_BUFFERS: u32 = 0x40004;
pub const OBJECT_PARAM_META: u32 = 0x40005;

/// Parameter ids (what an object describes).
pub const PARAM_ENUM_FORMAT: u32 = 3;
pub const PARAM_FORMAT: u32 = 4;
pub const PARAM_BUFFERS: u32 = 5;
pub const PARAM_META: u32 = 6;

/// Format keys.
pub const FORMAT_MEDIA_TYPE: u32 = 1;
pub const FORMAT_MEDIA_SUBTYPE: u32 = 2;
pub const FORMAT_VIDEO_FORMAT: u32 = 0x20001;
pub const FORMAT_VIDEO_SIZE: u32 = 0x20003;
pub const FORMAT_VIDEO_FRAMERATE: u32 = 0x20004;
pub const MEDIA_TYPE_VIDEO: u32 = 2;
pub const MEDIA_SUBTYPE_RAW: u32 = 1;

/// Buffer and metadata keys.
pub const BUFFERS_DATA_TYPE: u32 = 6;
pub const META_TYPE: u32 = 1;
pub const META_SIZE: u32 = 2;

pub const CHOICE_NONE: u32 = 0;
pub const CHOICE_RANGE: u32 = 1;
pub const CHOICE_ENUM: u32 = 3;
pub const CHOICE_FLAGS: u32 = 4;

/// How deep objects and choices may nest in what the reader accepts.
const MAX_DEPTH: usize = 16;

/// Why bytes are not the POD they should be.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PodError {
    #[error("POD truncated: {0}")]
    Truncated(&'static str),
    #[error("POD of type {found} where {wanted} was expected")]
    WrongType { wanted: &'static str, found: u32 },
    #[error("POD nested deeper than {MAX_DEPTH}")]
    TooDeep,
    #[error("POD choice holds no value")]
    EmptyChoice,
}

/// Builds PODs into an 8-aligned buffer.
#[derive(Debug, Default)]
pub struct Builder {
    buf: Vec<u8>,
}

impl Builder {
    pub fn new() -> Builder {
        Builder::default()
    }

    /// The bytes built so far.
    pub fn bytes(&self) -> &[u8] {
        &self.buf
    }

    /// The PODs built, each starting where [`Builder::start`] said, in storage PipeWire may read as
    /// `struct spa_pod` (8-aligned).
    pub fn into_aligned(self) -> AlignedPods {
        let mut words = vec![0u64; self.buf.len().div_ceil(8)];
        for (word, chunk) in words.iter_mut().zip(self.buf.chunks(8)) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            *word = u64::from_ne_bytes(b);
        }
        AlignedPods { words }
    }

    /// Where the next POD starts.
    pub fn start(&self) -> usize {
        self.buf.len()
    }

    fn u32(&mut self, v: u32) {
        self.buf.extend_from_slice(&v.to_ne_bytes());
    }

    fn pad(&mut self) {
        while !self.buf.len().is_multiple_of(8) {
            self.buf.push(0);
        }
    }

    /// A POD header whose size is filled in by [`Builder::close`].
    fn open(&mut self, ty: u32) -> usize {
        let at = self.buf.len();
        self.u32(0);
        self.u32(ty);
        at
    }

    fn close(&mut self, at: usize) {
        let size = u32::try_from(self.buf.len() - at - 8).unwrap_or(u32::MAX);
        self.buf[at..at + 4].copy_from_slice(&size.to_ne_bytes());
        self.pad();
    }

    pub fn id(&mut self, v: u32) {
        let at = self.open(TYPE_ID);
        self.u32(v);
        self.close(at);
    }

    pub fn int(&mut self, v: i32) {
        let at = self.open(TYPE_INT);
        self.u32(v as u32);
        self.close(at);
    }

    pub fn rectangle(&mut self, width: u32, height: u32) {
        let at = self.open(TYPE_RECTANGLE);
        self.u32(width);
        self.u32(height);
        self.close(at);
    }

    pub fn fraction(&mut self, num: u32, denom: u32) {
        let at = self.open(TYPE_FRACTION);
        self.u32(num);
        self.u32(denom);
        self.close(at);
    }

    /// A choice of `kind` over values of type `child` (each `values[i]` one value's words).
    fn choice(&mut self, kind: u32, child: u32, child_size: u32, values: &[&[u32]]) {
        let at = self.open(TYPE_CHOICE);
        self.u32(kind);
        self.u32(0);
        self.u32(child_size);
        self.u32(child);
        for v in values {
            for w in *v {
                self.u32(*w);
            }
        }
        self.close(at);
    }

    /// One of `ids`, the first preferred.
    pub fn choice_enum_id(&mut self, ids: &[u32]) {
        // An enum lists its default first, then every alternative (the default among them).
        let mut values: Vec<[u32; 1]> = ids.first().map(|&d| vec![[d]]).unwrap_or_default();
        values.extend(ids.iter().map(|&i| [i]));
        let refs: Vec<&[u32]> = values.iter().map(|v| &v[..]).collect();
        self.choice(CHOICE_ENUM, TYPE_ID, 4, &refs);
    }

    /// Any rectangle from `min` to `max`, `default` preferred.
    pub fn choice_range_rectangle(&mut self, default: (u32, u32), min: (u32, u32), max: (u32, u32)) {
        let v = [[default.0, default.1], [min.0, min.1], [max.0, max.1]];
        self.choice(CHOICE_RANGE, TYPE_RECTANGLE, 8, &[&v[0], &v[1], &v[2]]);
    }

    /// Any fraction from `min` to `max`, `default` preferred.
    pub fn choice_range_fraction(&mut self, default: (u32, u32), min: (u32, u32), max: (u32, u32)) {
        let v = [[default.0, default.1], [min.0, min.1], [max.0, max.1]];
        self.choice(CHOICE_RANGE, TYPE_FRACTION, 8, &[&v[0], &v[1], &v[2]]);
    }

    /// An int that may have any of the bits of `mask` (a memory-type mask, say).
    pub fn choice_flags_int(&mut self, mask: i32) {
        let v = [mask as u32];
        self.choice(CHOICE_FLAGS, TYPE_INT, 4, &[&v]);
    }

    /// An object of `object_type` describing `param`, its properties written by `props`.
    pub fn object(&mut self, object_type: u32, param: u32, props: impl FnOnce(&mut Props<'_>)) {
        let at = self.open(TYPE_OBJECT);
        self.u32(object_type);
        self.u32(param);
        props(&mut Props { b: self });
        self.close(at);
    }
}

/// Writes an object's properties.
pub struct Props<'a> {
    b: &'a mut Builder,
}

impl Props<'_> {
    /// A property `key` whose value `value` writes (one POD).
    pub fn prop(&mut self, key: u32, value: impl FnOnce(&mut Builder)) {
        self.b.u32(key);
        self.b.u32(0);
        value(self.b);
    }
}

/// Built PODs in 8-aligned storage.
#[derive(Debug, Clone)]
pub struct AlignedPods {
    words: Vec<u64>,
}

impl AlignedPods {
    /// A pointer to the POD starting at byte `offset` (from [`Builder::start`]).
    pub fn pod_at(&self, offset: usize) -> *const u8 {
        debug_assert!(offset.is_multiple_of(8) && offset < self.words.len() * 8);
        self.words.as_ptr().cast::<u8>().wrapping_add(offset)
    }

    pub fn bytes(&self) -> &[u8] {
        // SAFETY: any u64 storage may be read as bytes; the length is the storage's.
        unsafe { std::slice::from_raw_parts(self.words.as_ptr().cast::<u8>(), self.words.len() * 8) }
    }
}

/// One POD read from bytes: its type and body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pod<'a> {
    pub ty: u32,
    pub body: &'a [u8],
}

fn word(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at + 4)?;
    Some(u32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
}

/// The POD at the start of `bytes`, and what follows it (from the next 8-aligned offset).
pub fn read(bytes: &[u8]) -> Result<(Pod<'_>, &[u8]), PodError> {
    let size = word(bytes, 0).ok_or(PodError::Truncated("header"))? as usize;
    let ty = word(bytes, 4).ok_or(PodError::Truncated("header"))?;
    let body = bytes.get(8..8usize.saturating_add(size)).ok_or(PodError::Truncated("body"))?;
    let next = (8 + size).div_ceil(8) * 8;
    Ok((Pod { ty, body }, bytes.get(next..).unwrap_or(&[])))
}

/// The size of the POD at the start of `bytes` (header and body, unpadded), if its header is there.
pub fn total_size(header: &[u8]) -> Option<usize> {
    word(header, 0).map(|s| 8 + s as usize)
}

impl<'a> Pod<'a> {
    fn expect(&self, ty: u32, wanted: &'static str) -> Result<(), PodError> {
        if self.ty == ty {
            Ok(())
        } else {
            Err(PodError::WrongType { wanted, found: self.ty })
        }
    }

    /// The value itself, or the current value of a choice holding it.
    pub fn current(self) -> Result<Pod<'a>, PodError> {
        self.current_at(0)
    }

    fn current_at(self, depth: usize) -> Result<Pod<'a>, PodError> {
        if depth > MAX_DEPTH {
            return Err(PodError::TooDeep);
        }
        if self.ty != TYPE_CHOICE {
            return Ok(self);
        }
        let child_size = word(self.body, 8).ok_or(PodError::Truncated("choice"))? as usize;
        let child_ty = word(self.body, 12).ok_or(PodError::Truncated("choice"))?;
        let first = self.body.get(16..16usize.saturating_add(child_size)).ok_or(PodError::EmptyChoice)?;
        Pod { ty: child_ty, body: first }.current_at(depth + 1)
    }

    pub fn id(self) -> Result<u32, PodError> {
        let p = self.current()?;
        p.expect(TYPE_ID, "an id")?;
        word(p.body, 0).ok_or(PodError::Truncated("id"))
    }

    pub fn int(self) -> Result<i32, PodError> {
        let p = self.current()?;
        p.expect(TYPE_INT, "an int")?;
        word(p.body, 0).map(|w| w as i32).ok_or(PodError::Truncated("int"))
    }

    pub fn rectangle(self) -> Result<(u32, u32), PodError> {
        let p = self.current()?;
        p.expect(TYPE_RECTANGLE, "a rectangle")?;
        Ok((
            word(p.body, 0).ok_or(PodError::Truncated("rectangle"))?,
            word(p.body, 4).ok_or(PodError::Truncated("rectangle"))?,
        ))
    }

    /// An object's type, the parameter it describes, and its properties.
    pub fn object(self) -> Result<Object<'a>, PodError> {
        self.expect(TYPE_OBJECT, "an object")?;
        let object_type = word(self.body, 0).ok_or(PodError::Truncated("object"))?;
        let param = word(self.body, 4).ok_or(PodError::Truncated("object"))?;
        Ok(Object { object_type, param, props: self.body.get(8..).unwrap_or(&[]) })
    }
}

/// An object read from bytes.
#[derive(Debug, Clone, Copy)]
pub struct Object<'a> {
    pub object_type: u32,
    pub param: u32,
    props: &'a [u8],
}

impl<'a> Object<'a> {
    /// Every property, in order, as far as they are well formed (a malformed one ends the list
    /// with its error).
    pub fn props(&self) -> impl Iterator<Item = Result<(u32, Pod<'a>), PodError>> + 'a {
        let mut rest = self.props;
        let mut failed = false;
        std::iter::from_fn(move || {
            if failed || rest.is_empty() {
                return None;
            }
            let parsed = (|| {
                let key = word(rest, 0).ok_or(PodError::Truncated("property"))?;
                let (pod, after) = read(rest.get(8..).ok_or(PodError::Truncated("property"))?)?;
                Ok((key, pod, after))
            })();
            match parsed {
                Ok((key, pod, after)) => {
                    rest = after;
                    Some(Ok((key, pod)))
                }
                Err(e) => {
                    failed = true;
                    Some(Err(e))
                }
            }
        })
    }

    /// The value of property `key`, if present.
    pub fn get(&self, key: u32) -> Result<Option<Pod<'a>>, PodError> {
        for p in self.props() {
            let (k, pod) = p?;
            if k == key {
                return Ok(Some(pod));
            }
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn format_pod(formats: &[u32], size: (u32, u32)) -> Vec<u8> {
        let mut b = Builder::new();
        b.object(OBJECT_FORMAT, PARAM_ENUM_FORMAT, |p| {
            p.prop(FORMAT_MEDIA_TYPE, |b| b.id(MEDIA_TYPE_VIDEO));
            p.prop(FORMAT_MEDIA_SUBTYPE, |b| b.id(MEDIA_SUBTYPE_RAW));
            p.prop(FORMAT_VIDEO_FORMAT, |b| b.choice_enum_id(formats));
            p.prop(FORMAT_VIDEO_SIZE, |b| b.choice_range_rectangle(size, (1, 1), (16384, 16384)));
            p.prop(FORMAT_VIDEO_FRAMERATE, |b| b.choice_range_fraction((0, 1), (0, 1), (1000, 1)));
        });
        b.bytes().to_vec()
    }

    #[test]
    fn an_enum_format_has_the_layout_pipewire_reads() {
        let bytes = format_pod(&[8, 12], (1280, 800));
        let w = |i: usize| u32::from_ne_bytes(bytes[i * 4..i * 4 + 4].try_into().expect("4 bytes"));
        assert_eq!(bytes.len() % 8, 0);
        assert_eq!(w(0) as usize, bytes.len() - 8, "the object's size counts its body");
        assert_eq!((w(1), w(2), w(3)), (TYPE_OBJECT, OBJECT_FORMAT, PARAM_ENUM_FORMAT));
        // First property: key, flags, then an Id POD of 4 bytes padded to 8.
        assert_eq!((w(4), w(5), w(6), w(7), w(8)), (FORMAT_MEDIA_TYPE, 0, 4, TYPE_ID, MEDIA_TYPE_VIDEO));
        // The format choice: an enum of ids, default first then the alternatives.
        let obj = read(&bytes).expect("pod").0.object().expect("object");
        let choice = obj.get(FORMAT_VIDEO_FORMAT).expect("props").expect("format");
        assert_eq!(choice.ty, TYPE_CHOICE);
        let cw = |i: usize| u32::from_ne_bytes(choice.body[i * 4..i * 4 + 4].try_into().expect("4 bytes"));
        assert_eq!((cw(0), cw(2), cw(3), cw(4), cw(5), cw(6)), (CHOICE_ENUM, 4, TYPE_ID, 8, 8, 12));
        assert_eq!(choice.id(), Ok(8), "a choice's current value is its first");
        assert_eq!(obj.get(FORMAT_VIDEO_SIZE).expect("props").expect("size").rectangle(), Ok((1280, 800)));
    }

    #[test]
    fn wrong_types_and_truncation_are_errors() {
        let bytes = format_pod(&[8], (10, 10));
        let obj = read(&bytes).expect("pod").0.object().expect("object");
        let size = obj.get(FORMAT_VIDEO_SIZE).expect("props").expect("size");
        assert_eq!(size.id(), Err(PodError::WrongType { wanted: "an id", found: TYPE_RECTANGLE }));
        assert!(read(&bytes[..bytes.len() - 1]).is_err(), "a body shorter than its size");
        assert!(read(&bytes[..7]).is_err());
        assert_eq!(obj.get(0x999).expect("props"), None);
    }

    proptest! {
        /// What the builder writes reads back: every property, in order, with its value.
        #[test]
        fn built_formats_read_back(
            formats in prop::collection::vec(0u32..100, 1..8),
            w in 1u32..20000, h in 1u32..20000, mask in any::<i32>(),
        ) {
            let bytes = format_pod(&formats, (w, h));
            let (pod, rest) = read(&bytes).expect("pod");
            prop_assert!(rest.is_empty());
            let obj = pod.object().expect("object");
            let keys: Vec<u32> = obj.props().map(|p| p.expect("prop").0).collect();
            prop_assert_eq!(keys, vec![FORMAT_MEDIA_TYPE, FORMAT_MEDIA_SUBTYPE, FORMAT_VIDEO_FORMAT, FORMAT_VIDEO_SIZE, FORMAT_VIDEO_FRAMERATE]);
            prop_assert_eq!(obj.get(FORMAT_VIDEO_FORMAT).expect("ok").expect("format").id(), Ok(formats[0]));
            prop_assert_eq!(obj.get(FORMAT_VIDEO_SIZE).expect("ok").expect("size").rectangle(), Ok((w, h)));

            let mut b = Builder::new();
            b.object(OBJECT_PARAM_BUFFERS, PARAM_BUFFERS, |p| p.prop(BUFFERS_DATA_TYPE, |b| b.choice_flags_int(mask)));
            let (pod, _) = read(b.bytes()).expect("pod");
            prop_assert_eq!(pod.object().expect("object").get(BUFFERS_DATA_TYPE).expect("ok").expect("dt").int(), Ok(mask));
            let aligned = b.into_aligned();
            prop_assert_eq!(aligned.pod_at(0) as usize % 8, 0);
        }

        /// Any bytes: reading never panics, and whatever is read lies inside the input.
        #[test]
        fn reading_any_bytes_stays_inside_them(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
            let range = bytes.as_ptr_range();
            let inside = |s: &[u8]| s.is_empty() || (range.start <= s.as_ptr() && s.as_ptr_range().end <= range.end);
            if let Ok((pod, rest)) = read(&bytes) {
                prop_assert!(inside(pod.body) && inside(rest));
                let _ = pod.id();
                let _ = pod.rectangle();
                if let Ok(obj) = pod.object() {
                    for p in obj.props().take(64) {
                        match p {
                            Ok((_, v)) => { prop_assert!(inside(v.body)); let _ = v.current(); }
                            Err(_) => break,
                        }
                    }
                }
            }
        }
    }
}

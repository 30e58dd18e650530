//! `read_image`'s format sniffing, `handrail_imaging::sniff` (what `handrail_mcp::images` uses).
//!
//! Invariants: never panics and never allocates; when it names a format, the file starts with that
//! format's magic bytes and the size is the one the header encodes, as read by a second, independent
//! reading of each format's specification here; a header built for a known size is read as that size.

#![no_main]

use handrail_fuzz::within_heap;
use handrail_imaging::sniff;
use libfuzzer_sys::arbitrary::{self, Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;

#[derive(Debug, Arbitrary)]
enum Format {
    Png,
    Gif,
    Jpeg { segments: Vec<(u8, u8)>, fill: u8, sof: u8 },
    WebpLossy,
    WebpLossless,
    WebpExtended,
}

#[derive(Debug, Arbitrary)]
struct Built {
    format: Format,
    width: u32,
    height: u32,
    tail: Vec<u8>,
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else { return };
    let bytes: Vec<u8> = if mode % 2 == 0 {
        rest.to_vec()
    } else {
        let Ok(b) = Built::arbitrary_take_rest(Unstructured::new(rest)) else { return };
        let (bytes, expected) = build(&b);
        assert_eq!(sniff(&bytes), expected, "built {b:?}");
        bytes
    };
    let (got, held) = within_heap(0, || sniff(&bytes));
    assert_eq!(held, 0, "sniffing allocated");
    assert_eq!(got, reference(&bytes), "sniff and the reference reading disagree");
    if let Some((mime, w, h)) = got {
        assert!(w > 0 && h > 0);
        let magic: &[&[u8]] = match mime {
            "image/png" => &[b"\x89PNG\r\n\x1a\n"],
            "image/gif" => &[b"GIF87a", b"GIF89a"],
            "image/jpeg" => &[&[0xff, 0xd8]],
            "image/webp" => &[b"RIFF"],
            other => panic!("unknown type {other}"),
        };
        assert!(magic.iter().any(|m| bytes.starts_with(m)), "{mime} without its magic bytes");
    }
});

/// A header for the given size (reduced to what the format can hold) and what sniffing must say.
fn build(b: &Built) -> (Vec<u8>, Option<(&'static str, u32, u32)>) {
    let nonzero = |w: u32, h: u32, mime| (w > 0 && h > 0).then_some((mime, w, h));
    let mut v = Vec::new();
    let expected = match &b.format {
        Format::Png => {
            v.extend_from_slice(b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR");
            v.extend_from_slice(&b.width.to_be_bytes());
            v.extend_from_slice(&b.height.to_be_bytes());
            v.extend_from_slice(&[8, 6, 0, 0, 0]);
            nonzero(b.width, b.height, "image/png")
        }
        Format::Gif => {
            let (w, h) = (b.width as u16, b.height as u16);
            v.extend_from_slice(b"GIF89a");
            v.extend_from_slice(&w.to_le_bytes());
            v.extend_from_slice(&h.to_le_bytes());
            nonzero(u32::from(w), u32::from(h), "image/gif")
        }
        Format::Jpeg { segments, fill, sof } => {
            let (w, h) = (b.width as u16, b.height as u16);
            v.extend_from_slice(&[0xff, 0xd8]);
            for (marker, len) in segments.iter().take(4) {
                // Application and comment segments, any length.
                let marker = [0xe0, 0xe1, 0xed, 0xfe, 0xdb][usize::from(*marker) % 5];
                let len = usize::from(*len).max(2);
                v.extend_from_slice(&[0xff, marker]);
                v.extend_from_slice(&(len as u16).to_be_bytes());
                v.extend(std::iter::repeat_n(0x55, len - 2));
            }
            v.extend(std::iter::repeat_n(0xff, usize::from(*fill % 4)));
            let sof =
                [0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf][usize::from(*sof) % 13];
            v.extend_from_slice(&[0xff, sof, 0, 17, 8]);
            v.extend_from_slice(&h.to_be_bytes());
            v.extend_from_slice(&w.to_be_bytes());
            nonzero(u32::from(w), u32::from(h), "image/jpeg")
        }
        Format::WebpLossy => {
            let (w, h) = (b.width & 0x3fff, b.height & 0x3fff);
            v.extend_from_slice(b"RIFF\0\0\0\0WEBPVP8 \0\0\0\0");
            v.extend_from_slice(&[0x30, 0x01, 0x00, 0x9d, 0x01, 0x2a]);
            v.extend_from_slice(&(w as u16).to_le_bytes());
            v.extend_from_slice(&(h as u16).to_le_bytes());
            nonzero(w, h, "image/webp")
        }
        Format::WebpLossless => {
            let (w, h) = (b.width % 0x4000 + 1, b.height % 0x4000 + 1);
            v.extend_from_slice(b"RIFF\0\0\0\0WEBPVP8L\0\0\0\0\x2f");
            let bits = (w - 1) | (h - 1) << 14;
            v.extend_from_slice(&bits.to_le_bytes());
            Some(("image/webp", w, h))
        }
        Format::WebpExtended => {
            let (w, h) = (b.width % 0x100_0000 + 1, b.height % 0x100_0000 + 1);
            v.extend_from_slice(b"RIFF\0\0\0\0WEBPVP8X\x0a\0\0\0\0\0\0\0");
            v.extend_from_slice(&(w - 1).to_le_bytes()[..3]);
            v.extend_from_slice(&(h - 1).to_le_bytes()[..3]);
            Some(("image/webp", w, h))
        }
    };
    v.extend_from_slice(&b.tail);
    (v, expected)
}

/// Each format read from its specification, written without looking at `sniff`.
fn reference(b: &[u8]) -> Option<(&'static str, u32, u32)> {
    let at = |i: usize, n: usize| b.get(i..i + n);
    let size = |mime: &'static str, w: u32, h: u32| (w != 0 && h != 0).then_some((mime, w, h));
    // PNG: signature, then the IHDR chunk: length, "IHDR", width and height as big-endian u32.
    if at(0, 8) == Some(b"\x89PNG\r\n\x1a\n") {
        if at(12, 4) != Some(b"IHDR") {
            return None;
        }
        let w = u32::from_be_bytes(at(16, 4)?.try_into().ok()?);
        let h = u32::from_be_bytes(at(20, 4)?.try_into().ok()?);
        return size("image/png", w, h);
    }
    // GIF: "GIF87a"/"GIF89a", then the logical screen's width and height as little-endian u16.
    if matches!(at(0, 6), Some(b"GIF87a" | b"GIF89a")) {
        let w = u16::from_le_bytes(at(6, 2)?.try_into().ok()?);
        let h = u16::from_le_bytes(at(8, 2)?.try_into().ok()?);
        return size("image/gif", u32::from(w), u32::from(h));
    }
    // WebP: a RIFF container of form "WEBP" whose first chunk is VP8, VP8L or VP8X.
    if at(0, 4) == Some(b"RIFF") && at(8, 4) == Some(b"WEBP") {
        let chunk = at(12, 4)?;
        let data = 20; // after the chunk's type and length
        return match chunk {
            // A VP8 key frame: 3 bytes of frame tag, the start code 9d 01 2a, then 14-bit sizes.
            b"VP8 " => {
                if at(data + 3, 3) != Some(&[0x9d, 0x01, 0x2a]) {
                    return None;
                }
                let w = u16::from_le_bytes(at(data + 6, 2)?.try_into().ok()?) & 0x3fff;
                let h = u16::from_le_bytes(at(data + 8, 2)?.try_into().ok()?) & 0x3fff;
                size("image/webp", u32::from(w), u32::from(h))
            }
            // VP8L: the signature byte 0x2f, then 14 bits of width - 1 and 14 bits of height - 1.
            b"VP8L" => {
                if at(data, 1) != Some(&[0x2f]) {
                    return None;
                }
                let bits = u32::from_le_bytes(at(data + 1, 4)?.try_into().ok()?);
                size("image/webp", (bits & 0x3fff) + 1, (bits >> 14 & 0x3fff) + 1)
            }
            // VP8X: 4 bytes of flags, then 24-bit canvas width - 1 and height - 1.
            b"VP8X" => {
                let le24 = |i: usize| at(i, 3).map(|s| u32::from(s[0]) | u32::from(s[1]) << 8 | u32::from(s[2]) << 16);
                size("image/webp", le24(data + 4)? + 1, le24(data + 7)? + 1)
            }
            _ => None,
        };
    }
    // JPEG: SOI, then marker segments up to a start-of-frame, whose header holds the precision, the
    // height and the width. Markers may be preceded by any number of 0xff fill bytes.
    if at(0, 2) == Some(&[0xff, 0xd8]) {
        let mut i = 2;
        loop {
            if *b.get(i)? != 0xff {
                return None;
            }
            let mut m = i + 1;
            while *b.get(m)? == 0xff {
                m += 1;
            }
            let marker = b[m];
            i = m + 1;
            match marker {
                // Markers without a length.
                0x01 | 0xd0..=0xd8 => {}
                // End of image or start of scan before any frame: no size.
                0xd9 | 0xda => return None,
                // Start of frame: every 0xc0…0xcf except DHT (c4), JPG (c8) and DAC (cc).
                0xc0..=0xc3 | 0xc5..=0xc7 | 0xc9..=0xcb | 0xcd..=0xcf => {
                    let h = u16::from_be_bytes(at(i + 3, 2)?.try_into().ok()?);
                    let w = u16::from_be_bytes(at(i + 5, 2)?.try_into().ok()?);
                    return size("image/jpeg", u32::from(w), u32::from(h));
                }
                _ => {
                    let len = usize::from(u16::from_be_bytes(at(i, 2)?.try_into().ok()?));
                    if len < 2 {
                        return None;
                    }
                    i += len;
                }
            }
        }
    }
    None
}

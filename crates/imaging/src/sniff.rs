//! Recognising an image file by its first bytes: format and dimensions from the header, nothing decoded.
//! PNG, JPEG, GIF and WebP; the bytes may come from any file, so every read is bounds-checked.

/// Format and dimensions from an image's first bytes; `None` when they are not a supported image.
pub fn sniff(bytes: &[u8]) -> Option<(&'static str, u32, u32)> {
    let be16 = |i: usize| bytes.get(i..i + 2).map(|b| u32::from(u16::from_be_bytes([b[0], b[1]])));
    let le16 = |i: usize| bytes.get(i..i + 2).map(|b| u32::from(u16::from_le_bytes([b[0], b[1]])));
    let be32 = |i: usize| bytes.get(i..i + 4).map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
    let le24 = |i: usize| bytes.get(i..i + 3).map(|b| u32::from(b[0]) | u32::from(b[1]) << 8 | u32::from(b[2]) << 16);
    let nonzero = |w: u32, h: u32| (w > 0 && h > 0).then_some((w, h));

    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") && bytes.get(12..16) == Some(b"IHDR") {
        let (w, h) = nonzero(be32(16)?, be32(20)?)?;
        return Some(("image/png", w, h));
    }
    if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        let (w, h) = nonzero(le16(6)?, le16(8)?)?;
        return Some(("image/gif", w, h));
    }
    if bytes.starts_with(b"RIFF") && bytes.get(8..12) == Some(b"WEBP") {
        // A lossy frame's size follows its start code, a lossless one's its signature byte: without
        // them the bytes are not a WebP frame and hold no size.
        let (w, h) = match bytes.get(12..16)? {
            b"VP8 " if bytes.get(23..26) == Some(&[0x9d, 0x01, 0x2a]) => (le16(26)? & 0x3fff, le16(28)? & 0x3fff),
            b"VP8L" if bytes.get(20) == Some(&0x2f) => {
                let bits = be32(21)?.swap_bytes();
                ((bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1)
            }
            b"VP8X" => (le24(24)? + 1, le24(27)? + 1),
            _ => return None,
        };
        let (w, h) = nonzero(w, h)?;
        return Some(("image/webp", w, h));
    }
    if bytes.starts_with(&[0xff, 0xd8]) {
        // Walk the segments to the first start-of-frame marker.
        let mut i = 2;
        loop {
            while bytes.get(i) == Some(&0xff) && bytes.get(i + 1) == Some(&0xff) {
                i += 1;
            }
            if *bytes.get(i)? != 0xff {
                return None;
            }
            let marker = *bytes.get(i + 1)?;
            match marker {
                0xd8 | 0x01 | 0xd0..=0xd7 => i += 2,
                0xd9 | 0xda => return None,
                0xc0..=0xcf if !matches!(marker, 0xc4 | 0xc8 | 0xcc) => {
                    let (w, h) = nonzero(be16(i + 7)?, be16(i + 5)?)?;
                    return Some(("image/jpeg", w, h));
                }
                _ => {
                    let len = be16(i + 2)? as usize;
                    if len < 2 {
                        return None;
                    }
                    i += 2 + len;
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(w: u32, h: u32) -> Vec<u8> {
        let mut v = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        v.extend_from_slice(&w.to_be_bytes());
        v.extend_from_slice(&h.to_be_bytes());
        v.extend_from_slice(&[8, 2, 0, 0, 0]);
        v
    }

    #[test]
    fn sniffs_the_formats() {
        assert_eq!(sniff(&png(640, 480)), Some(("image/png", 640, 480)));
        assert_eq!(sniff(b"GIF89a\x20\x03\x58\x02rest"), Some(("image/gif", 800, 600)));
        // JPEG: SOI, an APP0 segment, then SOF0 with height 2 and width 3.
        let jpeg = [0xff, 0xd8, 0xff, 0xe0, 0, 4, 0, 0, 0xff, 0xc0, 0, 11, 8, 0, 2, 0, 3, 1, 0, 0, 0];
        assert_eq!(sniff(&jpeg), Some(("image/jpeg", 3, 2)));
        let mut webp = b"RIFF\0\0\0\0WEBPVP8X\x0a\0\0\0\0\0\0\0".to_vec();
        webp.extend_from_slice(&[0x7f, 0x02, 0x00, 0xdf, 0x01, 0x00]);
        assert_eq!(sniff(&webp), Some(("image/webp", 640, 480)));
        assert_eq!(sniff(b"not an image"), None);
        assert_eq!(sniff(&png(0, 10)), None);
        assert_eq!(sniff(&[0xff, 0xd8, 0xff]), None);
    }

    /// A `VP8 ` or `VP8L` chunk without its frame's start code or signature byte was read as an image
    /// of whatever size the bytes there happened to say.
    #[test]
    fn webp_frames_need_their_signature() {
        let lossy = |start: [u8; 3]| {
            let mut v = b"RIFF\0\0\0\0WEBPVP8 \0\0\0\0\x30\x01\x00".to_vec();
            v.extend_from_slice(&start);
            v.extend_from_slice(&[0x80, 0x02, 0xe0, 0x01]);
            v
        };
        assert_eq!(sniff(&lossy([0x9d, 0x01, 0x2a])), Some(("image/webp", 640, 480)));
        assert_eq!(sniff(&lossy([0x73, 0x9d, 0x01])), None);
        let lossless = |signature: u8| {
            let mut v = b"RIFF\0\0\0\0WEBPVP8L\0\0\0\0".to_vec();
            v.push(signature);
            v.extend_from_slice(&(639u32 | 479 << 14).to_le_bytes());
            v
        };
        assert_eq!(sniff(&lossless(0x2f)), Some(("image/webp", 640, 480)));
        assert_eq!(sniff(&lossless(0x00)), None);
    }

    proptest::proptest! {
        #[test]
        fn sniffing_never_panics(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..64)) {
            let _ = sniff(&bytes);
        }

        #[test]
        fn sniffing_never_panics_after_a_real_header(
            head in proptest::sample::select(vec![b"\x89PNG\r\n\x1a\n".to_vec(), vec![0xff, 0xd8], b"RIFF\0\0\0\0WEBPVP8L".to_vec(), b"GIF89a".to_vec()]),
            tail in proptest::collection::vec(proptest::num::u8::ANY, 0..64),
        ) {
            let mut bytes = head;
            bytes.extend(tail);
            let _ = sniff(&bytes);
        }
    }
}

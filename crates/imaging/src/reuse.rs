//! Not encoding the same picture twice.
//!
//! An agent often looks at a screen that has not changed since its last look (a `see` right after
//! an action's own observation, a click that changed nothing), and an encode costs ten times what
//! comparing two frames does.

use std::cell::RefCell;

use handrail_platform::{EncodedImage, Encoder, Frame, PlatformError};

/// An encoder that remembers the last frame it encoded and its answer, and answers a frame with the
/// same pixels again without encoding it. Errors are never remembered.
pub struct ReusesLast<E> {
    inner: E,
    last: RefCell<Option<(Frame, EncodedImage)>>,
}

impl<E: Encoder> ReusesLast<E> {
    pub fn new(inner: E) -> Self {
        Self { inner, last: RefCell::new(None) }
    }
}

/// The same picture: the encoded bytes depend on the size and on the pixels alone.
fn same_picture(a: &Frame, b: &Frame) -> bool {
    a.size == b.size && a.stride == b.stride && a.pixels == b.pixels
}

impl<E: Encoder> Encoder for ReusesLast<E> {
    fn encode(&self, frame: &Frame) -> Result<EncodedImage, PlatformError> {
        let mut last = self.last.borrow_mut();
        if let Some((_, image)) = last.as_ref().filter(|(seen, _)| same_picture(seen, frame)) {
            return Ok(image.clone());
        }
        let image = self.inner.encode(frame)?;
        match last.as_mut() {
            // The buffers are reused: a copy, not an allocation, per new picture.
            Some((seen, kept)) => {
                let Frame { size, screen, stride, pixels, origin } = frame;
                (seen.size, seen.screen, seen.stride, seen.origin) = (*size, *screen, *stride, *origin);
                seen.pixels.clone_from(pixels);
                (kept.mime, kept.size) = (image.mime, image.size);
                kept.bytes.clone_from(&image.bytes);
            }
            None => *last = Some((frame.clone(), image.clone())),
        }
        Ok(image)
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use handrail_platform::Size;

    use super::*;

    /// Counts its encodes; the "image" names the frame's first byte so answers can be told apart.
    struct Counting(Cell<u32>);

    impl Encoder for Counting {
        fn encode(&self, frame: &Frame) -> Result<EncodedImage, PlatformError> {
            if frame.size.width == 0 {
                return Err(PlatformError::Invalid("empty".into()));
            }
            self.0.set(self.0.get() + 1);
            Ok(EncodedImage { mime: "test/first-byte", size: frame.size, bytes: vec![frame.pixels[0]] })
        }
    }

    fn frame(grey: u8) -> Frame {
        Frame::solid(Size::new(4, 3), [grey, grey, grey, 0])
    }

    #[test]
    fn the_same_pixels_are_encoded_once_and_any_change_is_encoded_again() {
        let memo = ReusesLast::new(Counting(Cell::new(0)));
        let encodes = || memo.inner.0.get();
        assert_eq!(memo.encode(&frame(10)).map(|i| i.bytes), Ok(vec![10]));
        assert_eq!(memo.encode(&frame(10)).map(|i| i.bytes), Ok(vec![10]));
        assert_eq!(encodes(), 1);
        let mut one_pixel = frame(10);
        one_pixel.pixels[13] = 11; // a later pixel than the first: the answer must still be fresh
        assert_eq!(memo.encode(&one_pixel).map(|i| i.size), Ok(Size::new(4, 3)));
        assert_eq!(encodes(), 2);
        assert_eq!(memo.encode(&frame(20)).map(|i| i.bytes), Ok(vec![20]));
        assert_eq!(memo.encode(&frame(10)).map(|i| i.bytes), Ok(vec![10]));
        assert_eq!(encodes(), 4);
        let wider = Frame::solid(Size::new(6, 2), [10, 10, 10, 0]); // same bytes, another size
        assert_eq!(memo.encode(&wider).map(|i| i.size), Ok(Size::new(6, 2)));
        assert_eq!(encodes(), 5);
    }

    #[test]
    fn errors_are_not_remembered() {
        let memo = ReusesLast::new(Counting(Cell::new(0)));
        let empty = Frame::solid(Size::new(0, 0), [0, 0, 0, 0]);
        assert!(memo.encode(&empty).is_err());
        assert!(memo.encode(&empty).is_err());
        assert_eq!(memo.encode(&frame(5)).map(|i| i.bytes), Ok(vec![5]));
        assert_eq!(memo.inner.0.get(), 1);
    }
}

//! Property tests over the public API.

use handrail_imaging::{crop, frame_from_rgb, resize_bgrx, to_rgb, upscale_bgrx, PngEncoder};
use handrail_platform::{Encoder, Frame, Rect, Size};
use proptest::prelude::*;

/// A small frame with random pixels and random row padding.
fn frames() -> impl Strategy<Value = Frame> {
    (1u32..40, 1u32..40, 0usize..9).prop_flat_map(|(w, h, pad)| {
        let stride = w as usize * 4 + pad;
        proptest::collection::vec(any::<u8>(), stride * h as usize).prop_map(move |pixels| {
            let size = Size::new(w, h);
            Frame { size, screen: size, stride, pixels, origin: Rect::from_size(size) }
        })
    })
}

/// Per-channel (min, max) over the frame's real pixels (padding excluded).
fn channel_bounds(frame: &Frame) -> [(u8, u8); 3] {
    let mut bounds = [(u8::MAX, u8::MIN); 3];
    for y in 0..frame.size.height {
        for px in frame.row(y).chunks_exact(4) {
            for (b, &v) in bounds.iter_mut().zip(px) {
                *b = (b.0.min(v), b.1.max(v));
            }
        }
    }
    bounds
}

proptest! {
    #[test]
    fn resize_is_exact_in_size_and_a_convex_average(frame in frames(), tw in 1u32..50, th in 1u32..50) {
        let out = resize_bgrx(&frame, Size::new(tw, th));
        prop_assert_eq!(out.size, Size::new(tw, th));
        prop_assert!(out.is_consistent());
        prop_assert_eq!(out.origin, frame.origin);
        // Averages never leave the range of what they average.
        let bounds = channel_bounds(&frame);
        for px in out.pixels.chunks_exact(4) {
            for (&(lo, hi), &v) in bounds.iter().zip(px) {
                prop_assert!(lo <= v && v <= hi, "{} outside {}..={}", v, lo, hi);
            }
        }
    }

    #[test]
    fn solid_colour_survives_any_resize(
        w in 1u32..300, h in 1u32..300, tw in 1u32..300, th in 1u32..300, colour in any::<[u8; 3]>(),
    ) {
        let frame = Frame::solid(Size::new(w, h), [colour[0], colour[1], colour[2], 0]);
        let out = resize_bgrx(&frame, Size::new(tw, th));
        prop_assert!(out.pixels.chunks_exact(4).all(|p| p[..3] == colour));
        let up = upscale_bgrx(&frame.clone(), 3);
        prop_assert!(up.pixels.chunks_exact(4).all(|p| p[..3] == colour));
    }

    #[test]
    fn crop_matches_source_and_maps_origin(
        frame in frames(), x in -10i32..50, y in -10i32..50, w in 0u32..50, h in 0u32..50, scale in 1u32..4,
    ) {
        // Pretend the frame was downscaled from a larger area at (7, 11).
        let mut frame = frame;
        frame.origin = Rect::new(7, 11, frame.size.width * scale, frame.size.height * scale);
        let rect = Rect::new(x, y, w, h);
        let inside = rect.intersection(&Rect::from_size(frame.size));
        let cut = crop(&frame, rect);
        prop_assert_eq!(cut.is_some(), inside.is_some());
        if let (Some(cut), Some(r)) = (cut, inside) {
            prop_assert_eq!(cut.size, Size::new(r.width, r.height));
            prop_assert_eq!(
                cut.origin,
                Rect::new(7 + r.x * scale as i32, 11 + r.y * scale as i32, r.width * scale, r.height * scale)
            );
            prop_assert!(frame.origin.contains_rect(&cut.origin));
            for row in 0..r.height {
                let src = &frame.row(r.y as u32 + row)[r.x as usize * 4..][..r.width as usize * 4];
                prop_assert_eq!(cut.row(row), src);
            }
        }
    }

    #[test]
    fn rgb_and_png_round_trip(frame in frames()) {
        let rgb = to_rgb(&frame);
        prop_assert_eq!(to_rgb(&frame_from_rgb(frame.size.width, frame.size.height, &rgb)), rgb.clone());

        let img = PngEncoder::default().encode(&frame).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let mut reader = png::Decoder::new(std::io::Cursor::new(&img.bytes))
            .read_info()
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let mut buf = vec![0; reader.output_buffer_size().unwrap_or(0)];
        let info = reader.next_frame(&mut buf).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(&buf[..info.buffer_size()], &rgb[..]);
    }
}

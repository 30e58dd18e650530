//! Luminance of BGRX pixels: what the visual diff's thumbnails average and what OCR reads.
//!
//! Both pass over every pixel of every capture, several times per action, so the loop is compiled
//! twice: for the baseline target and, picked at run time, with AVX2, where the compiler vectorises
//! the same plain code eight to sixteen pixels at a time.

/// Rec. 601 luma in 8-bit fixed point, rounded (the weights sum to 256, so white stays 255).
#[inline(always)]
pub fn luma(b: u8, g: u8, r: u8) -> u8 {
    ((u32::from(r) * 77 + u32::from(g) * 150 + u32::from(b) * 29 + 128) >> 8) as u8
}

/// The luma of each BGRX pixel of `bgrx` into `out`, one byte a pixel; as many pixels as both hold.
pub fn luma_row(bgrx: &[u8], out: &mut [u8]) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has just been found to support AVX2, the only requirement of `luma_row_avx2`.
        unsafe { luma_row_avx2(bgrx, out) };
        return;
    }
    luma_row_plain(bgrx, out);
}

#[inline(always)]
fn luma_row_plain(bgrx: &[u8], out: &mut [u8]) {
    for (o, px) in out.iter_mut().zip(bgrx.chunks_exact(4)) {
        *o = luma(px[0], px[1], px[2]);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn luma_row_avx2(bgrx: &[u8], out: &mut [u8]) {
    luma_row_plain(bgrx, out);
}

/// Adds the luma of each BGRX pixel of `bgrx` to its place in `sums` (as many pixels as both hold):
/// one row's share of an area average. Each sum wraps past `u16::MAX`; callers add at most 257 rows.
pub fn add_luma_row(bgrx: &[u8], sums: &mut [u16]) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has just been found to support AVX2, the only requirement of `add_luma_row_avx2`.
        unsafe { add_luma_row_avx2(bgrx, sums) };
        return;
    }
    add_luma_row_plain(bgrx, sums);
}

#[inline(always)]
fn add_luma_row_plain(bgrx: &[u8], sums: &mut [u16]) {
    // Wrapping: an overflow check in the loop would keep the compiler from vectorising it.
    for (s, px) in sums.iter_mut().zip(bgrx.chunks_exact(4)) {
        *s = s.wrapping_add(u16::from(luma(px[0], px[1], px[2])));
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn add_luma_row_avx2(bgrx: &[u8], sums: &mut [u16]) {
    add_luma_row_plain(bgrx, sums);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn black_and_white_stay_black_and_white() {
        assert_eq!(luma(0, 0, 0), 0);
        assert_eq!(luma(255, 255, 255), 255);
        // Green weighs most, blue least (BGR argument order).
        assert!(luma(0, 255, 0) > luma(0, 0, 255) && luma(0, 0, 255) > luma(255, 0, 0));
    }

    proptest::proptest! {
        #[test]
        fn each_pixel_is_converted_alone(pixels in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..400)) {
            let mut out = vec![7u8; pixels.len() / 4 + 1];
            luma_row(&pixels, &mut out);
            for (i, px) in pixels.chunks_exact(4).enumerate() {
                proptest::prop_assert_eq!(out[i], luma(px[0], px[1], px[2]));
            }
            // Nothing past the last whole pixel is written.
            proptest::prop_assert_eq!(out[pixels.len() / 4], 7);
        }

        #[test]
        fn each_pixel_is_added_to_its_own_sum(
            pixels in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..400),
            start in proptest::prelude::any::<u16>(),
        ) {
            let mut sums = vec![start; pixels.len() / 4 + 1];
            add_luma_row(&pixels, &mut sums);
            for (i, px) in pixels.chunks_exact(4).enumerate() {
                proptest::prop_assert_eq!(sums[i], start.wrapping_add(u16::from(luma(px[0], px[1], px[2]))));
            }
            proptest::prop_assert_eq!(sums[pixels.len() / 4], start);
        }
    }
}

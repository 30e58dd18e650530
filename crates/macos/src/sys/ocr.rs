//! Text recognition with Apple Vision (`VNRecognizeTextRequest`, accurate level), in the languages
//! asked for that this Mac's Vision reads.

use handrail_imaging::crop;
use handrail_platform::{Frame, Ocr, OcrLine, PlatformError, Rect};
use objc2::rc::Retained;
use objc2::AnyThread;
use objc2_core_foundation::{CFData, CFRetained};
use objc2_core_graphics::{
    CGBitmapInfo, CGColorRenderingIntent, CGColorSpace, CGDataProvider, CGImage, CGImageAlphaInfo, CGImageByteOrderInfo,
};
use objc2_foundation::{NSArray, NSDictionary, NSString};
use objc2_vision::{VNImageRequestHandler, VNRecognizeTextRequest, VNRequest, VNRequestTextRecognitionLevel};

use crate::ocr_languages::choose;
use crate::vision_boxes::to_frame;

pub struct VisionOcr {
    /// BCP 47 codes, in order of preference ("en-US", "th-TH").
    languages: Vec<String>,
}

impl VisionOcr {
    /// Reads `asked` (Vision's language codes), else English, the locale's language and Thai, of
    /// those this Mac's Vision reads (see [`crate::ocr_languages`]). A language asked for that Vision
    /// does not read is refused, naming those it does.
    pub fn new(asked: Vec<String>) -> Result<Self, PlatformError> {
        let request = VNRecognizeTextRequest::new();
        request.setRecognitionLevel(VNRequestTextRecognitionLevel::Accurate);
        // SAFETY: a plain query of a fresh request.
        let supported: Vec<String> = unsafe { request.supportedRecognitionLanguagesAndReturnError() }
            .map(|l| l.to_vec().iter().map(|s| s.to_string()).collect())
            .map_err(|e| PlatformError::Unavailable(format!("Vision's languages: {}", e.localizedDescription())))?;
        let locale = std::env::var("LC_ALL").ok().filter(|l| !l.is_empty()).or_else(|| std::env::var("LANG").ok());
        let choice = choose(&asked, locale.as_deref(), &supported);
        if !choice.unsupported.is_empty() {
            return Err(PlatformError::NotFound(format!(
                "Vision on this Mac does not read {}; it reads {}",
                choice.unsupported.join(", "),
                supported.join(", ")
            )));
        }
        log::info!("Vision reads {}", choice.languages.join("+"));
        Ok(VisionOcr { languages: choice.languages })
    }
}

/// A BGRX frame as a CGImage (32-bit little-endian, alpha skipped first: the same bytes).
fn image_of(frame: &Frame) -> Option<CFRetained<CGImage>> {
    let data = CFData::from_bytes(&frame.pixels);
    let provider = CGDataProvider::with_cf_data(Some(&data))?;
    let space = CGColorSpace::new_device_rgb()?;
    let info = CGBitmapInfo(CGImageByteOrderInfo::Order32Little.0 | CGImageAlphaInfo::NoneSkipFirst.0);
    // SAFETY: the provider holds width × height × 4 bytes laid out with the stride given.
    unsafe {
        CGImage::new(
            frame.size.width as usize,
            frame.size.height as usize,
            8,
            32,
            frame.stride,
            Some(&space),
            info,
            Some(&provider),
            std::ptr::null(),
            false,
            CGColorRenderingIntent::RenderingIntentDefault,
        )
    }
}

impl Ocr for VisionOcr {
    fn available(&self) -> bool {
        true
    }

    fn recognize(&self, frame: &Frame, region: Option<Rect>) -> Result<Vec<OcrLine>, PlatformError> {
        let region = region.unwrap_or_else(|| Rect::from_size(frame.size));
        let part =
            crop(frame, region).ok_or_else(|| PlatformError::Invalid(format!("{region} is outside the frame")))?;
        let image = image_of(&part).ok_or_else(|| PlatformError::Failed("making an image for Vision".into()))?;
        let request = VNRecognizeTextRequest::new();
        request.setRecognitionLevel(VNRequestTextRecognitionLevel::Accurate);
        request.setUsesLanguageCorrection(false);
        let languages: Vec<Retained<NSString>> = self.languages.iter().map(|l| NSString::from_str(l)).collect();
        request.setRecognitionLanguages(&NSArray::from_retained_slice(&languages));
        let options = NSDictionary::new();
        // SAFETY: an empty options dictionary is valid for any handler.
        let handler =
            unsafe { VNImageRequestHandler::initWithCGImage_options(VNImageRequestHandler::alloc(), &image, &options) };
        let requests: Retained<NSArray<VNRequest>> =
            NSArray::from_retained_slice(&[Retained::into_super(Retained::into_super(request.clone()))]);
        handler
            .performRequests_error(&requests)
            .map_err(|e| PlatformError::Failed(format!("Vision: {}", e.localizedDescription())))?;
        let mut lines = Vec::new();
        for observation in request.results().map(|r| r.to_vec()).unwrap_or_default() {
            let Some(best) = observation.topCandidates(1).firstObject() else { continue };
            // SAFETY: reading properties of a finished observation.
            let b = unsafe { observation.boundingBox() };
            let Some(bounds) = to_frame(b.origin.x, b.origin.y, b.size.width, b.size.height, region) else { continue };
            let confidence = best.confidence();
            lines.push(OcrLine { text: best.string().to_string(), bounds, confidence: confidence * 100.0 });
        }
        Ok(lines)
    }
}

//! The structured result of a `read_image` call.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::result::RESULT_VERSION;

/// How a `read_image` call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ImageStatus {
    Ok,
    /// The model cannot see images.
    Unsupported,
    Error,
}

/// The structured result of `read_image`: the file's own id (`img_N`, never an observation), where it
/// was read from and what it is; or why it was not read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReadImageResult {
    /// [`RESULT_VERSION`].
    pub version: u32,
    pub status: ImageStatus,
    pub image_id: Option<String>,
    /// The file as resolved (symlinks followed).
    pub path: Option<String>,
    pub mime: Option<String>,
    pub width: Option<u32>,
    pub height: Option<u32>,
    pub bytes: Option<usize>,
    /// Why it was not read.
    pub message: Option<String>,
}

impl ReadImageResult {
    pub fn read(image_id: String, path: String, mime: &str, width: u32, height: u32, bytes: usize) -> Self {
        ReadImageResult {
            version: RESULT_VERSION,
            status: ImageStatus::Ok,
            image_id: Some(image_id),
            path: Some(path),
            mime: Some(mime.to_string()),
            width: Some(width),
            height: Some(height),
            bytes: Some(bytes),
            message: None,
        }
    }

    pub fn failed(status: ImageStatus, message: String) -> Self {
        ReadImageResult {
            version: RESULT_VERSION,
            status,
            image_id: None,
            path: None,
            mime: None,
            width: None,
            height: None,
            bytes: None,
            message: Some(message),
        }
    }
}

//! marimo's file API: list, read, create, update, delete (paths as the server sees them).

use bytes::Bytes;
use serde::Deserialize;
use serde_json::json;

use super::{MarimoClient, PostBody};
use crate::access_token::new_session_id;
use crate::error::{Error, Result};

/// One file or folder.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileInfo {
    /// The entry's path as marimo gives it (`<folder>/<name>` for a folder listed by its
    /// absolute path); the other file calls take it back as is.
    pub path: String,
    /// The last part of the path, the file or folder name.
    pub name: String,
    /// Whether the entry is a folder.
    #[serde(default)]
    pub is_directory: bool,
    /// Whether marimo recognises the file as a marimo notebook.
    #[serde(default)]
    pub is_marimo_file: bool,
    /// When the entry was last modified, in seconds since the Unix epoch (with a fraction);
    /// `None` when marimo did not say.
    pub last_modified: Option<f64>,
    /// The size in bytes; `None` when marimo did not say.
    pub size: Option<u64>,
}

/// A folder listing.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct FileList {
    /// The root of marimo's file tree as marimo reports it (the folder the server serves).
    pub root: String,
    /// The entries marimo listed for the folder.
    pub files: Vec<FileInfo>,
}

/// A file with (possibly cut) contents.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileDetails {
    /// The file's own entry.
    pub file: FileInfo,
    /// The contents as marimo sent them (possibly cut to a `maxBytes` that was asked for,
    /// base64 when `is_base64`); `None` when marimo sent none.
    pub contents: Option<String>,
    /// Whether `contents` is base64, as marimo sends files it does not treat as text.
    #[serde(default)]
    pub is_base64: bool,
    /// The file is larger than the `maxBytes` that was asked for.
    #[serde(default)]
    pub is_too_large: bool,
}

/// What a create, update or delete did.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct FileOpResult {
    /// Whether marimo did it; the client's calls turn `false` into an
    /// [`Error::FileOpFailed`], so a result they return always holds `true`.
    pub success: bool,
    /// marimo's own words about the operation, mostly given on failure; `None` when it gave
    /// none.
    pub message: Option<String>,
    /// The entry created or updated (for a create, under the name marimo really used);
    /// `None` when marimo sent none, as after a delete.
    pub info: Option<FileInfo>,
}

impl FileOpResult {
    /// The result as an error when marimo reports a failure.
    fn into_result(self, what: &str) -> Result<Self> {
        if self.success {
            Ok(self)
        } else {
            Err(Error::FileOpFailed {
                what: what.to_owned(),
                detail: self
                    .message
                    .unwrap_or_else(|| "marimo gave no reason".to_owned()),
            })
        }
    }
}

impl MarimoClient {
    /// Lists `folder` (marimo's served folder when `None`).
    pub async fn list_files(&self, folder: Option<&str>) -> Result<FileList> {
        let what = "listing files";
        let deadline = self.request_deadline();
        let body = json!({ "path": folder });
        let response = self
            .post_json("/api/files/list_files", &body, None, what, deadline)
            .await?;
        self.json_reply(response, what, deadline).await
    }

    /// Reads a file, at most `max_bytes` of it when given.
    pub async fn file_details(&self, path: &str, max_bytes: Option<u64>) -> Result<FileDetails> {
        let what = "reading a file";
        let deadline = self.request_deadline();
        let body = match max_bytes {
            Some(limit) => json!({ "path": path, "maxBytes": limit }),
            None => json!({ "path": path }),
        };
        let response = self
            .post_json("/api/files/file_details", &body, None, what, deadline)
            .await?;
        self.json_reply(response, what, deadline).await
    }

    /// Creates file `name` in `folder` (marimo never overwrites: it picks another name instead,
    /// which the returned info shows).
    pub async fn create_file(
        &self,
        folder: &str,
        name: &str,
        contents: &[u8],
    ) -> Result<FileOpResult> {
        let what = "creating a file";
        let deadline = self.request_deadline();
        let body = multipart_body(folder, name, contents)?;
        let response = self
            .post("/api/files/create", &body, None, what, deadline)
            .await?;
        let result: FileOpResult = self.json_reply(response, what, deadline).await?;
        result.into_result(what)
    }

    /// Replaces the contents of an existing file.
    pub async fn update_file(&self, path: &str, contents: &str) -> Result<FileOpResult> {
        let what = "updating a file";
        let deadline = self.request_deadline();
        let body = json!({ "path": path, "contents": contents });
        let response = self
            .post_json("/api/files/update", &body, None, what, deadline)
            .await?;
        let result: FileOpResult = self.json_reply(response, what, deadline).await?;
        result.into_result(what)
    }

    /// Deletes a file or folder.
    pub async fn delete_file(&self, path: &str) -> Result<FileOpResult> {
        let what = "deleting a file";
        let deadline = self.request_deadline();
        let body = json!({ "path": path });
        let response = self
            .post_json("/api/files/delete", &body, None, what, deadline)
            .await?;
        let result: FileOpResult = self.json_reply(response, what, deadline).await?;
        result.into_result(what)
    }
}

/// The multipart form marimo's create endpoint reads (fields path, type, name and file).
fn multipart_body(folder: &str, name: &str, contents: &[u8]) -> Result<PostBody> {
    for (label, value) in [("folder", folder), ("file name", name)] {
        if value.chars().any(|c| c.is_control() || c == '"') {
            return Err(Error::InvalidInput(format!(
                "the {label} {value:?} contains a quote or control character; choose another"
            )));
        }
    }
    let boundary = format!("hailer-{}", new_session_id());
    let mut bytes = Vec::with_capacity(contents.len() + 512);
    for (field, value) in [("path", folder), ("type", "file"), ("name", name)] {
        bytes.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"{field}\"\r\n\r\n{value}\r\n"
            )
            .as_bytes(),
        );
    }
    bytes.extend_from_slice(
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n\
             Content-Type: application/octet-stream\r\n\r\n"
        )
        .as_bytes(),
    );
    bytes.extend_from_slice(contents);
    bytes.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    Ok(PostBody {
        content_type: format!("multipart/form-data; boundary={boundary}"),
        bytes: Bytes::from(bytes),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn multipart_has_every_field_and_the_raw_bytes() {
        let body = multipart_body("/ws/notebooks", "new.py", b"x = 1\n").unwrap();
        let boundary = body
            .content_type
            .strip_prefix("multipart/form-data; boundary=")
            .unwrap();
        let text = String::from_utf8(body.bytes.to_vec()).unwrap();
        assert!(text.starts_with(&format!("--{boundary}\r\n")));
        assert!(text.contains("name=\"path\"\r\n\r\n/ws/notebooks\r\n"));
        assert!(text.contains("name=\"type\"\r\n\r\nfile\r\n"));
        assert!(text.contains(
            "filename=\"new.py\"\r\nContent-Type: application/octet-stream\r\n\r\nx = 1\n\r\n"
        ));
        assert!(text.ends_with(&format!("--{boundary}--\r\n")));
    }

    #[test]
    fn names_that_would_break_the_form_are_refused() {
        assert!(multipart_body("/ws", "a\"b.py", b"").is_err());
        assert!(multipart_body("/ws\r\n", "a.py", b"").is_err());
    }
}

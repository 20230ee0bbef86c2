//! The kernel's side of the copies: its notebooks folder through marimo's file API. Whatever
//! runs in the kernel can replace its marimo server, so every answer is bounded (the client
//! caps replies at 16 MiB) and checked again here.

use std::future::Future;

use hailer_marimo::MarimoClient;

use super::last_copied::KernelStamp;

/// A file or folder in the kernel.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelEntry {
    /// The path as the kernel names it (absolute, inside the kernel).
    pub path: String,
    /// Whether it is a folder, whose entries a copy pass lists in turn.
    pub is_directory: bool,
    /// Its modification time and size; `None` when the kernel did not report both.
    pub stamp: Option<KernelStamp>,
}

/// A file's contents as the kernel gave them.
#[derive(Debug, Clone, PartialEq)]
pub enum KernelRead {
    /// The whole file, as text, within the size asked for.
    Text(String),
    /// The file is larger than the size asked for (by the kernel's own flag, or by the text
    /// it sent anyway); nothing of it is kept.
    TooLarge,
    /// The file is binary (the kernel sent it as base64) or came without contents.
    NotText,
}

/// What the copies need from a kernel.
pub trait KernelFiles {
    /// The entries of `folder`.
    fn list(&self, folder: &str) -> impl Future<Output = Result<Vec<KernelEntry>, String>> + Send;
    /// A file's text, at most `max_bytes` of it.
    fn read(
        &self,
        path: &str,
        max_bytes: u64,
    ) -> impl Future<Output = Result<KernelRead, String>> + Send;
    /// Creates file `name` in `folder` (folders made as needed); returns its stamp.
    fn create(
        &self,
        folder: &str,
        name: &str,
        bytes: &[u8],
    ) -> impl Future<Output = Result<Option<KernelStamp>, String>> + Send;
}

impl KernelFiles for MarimoClient {
    async fn list(&self, folder: &str) -> Result<Vec<KernelEntry>, String> {
        let listing = self
            .list_files(Some(folder))
            .await
            .map_err(|e| e.to_string())?;
        Ok(listing
            .files
            .into_iter()
            .map(|file| KernelEntry {
                stamp: stamp(file.last_modified, file.size),
                path: file.path,
                is_directory: file.is_directory,
            })
            .collect())
    }

    async fn read(&self, path: &str, max_bytes: u64) -> Result<KernelRead, String> {
        let details = self
            .file_details(path, Some(max_bytes))
            .await
            .map_err(|e| e.to_string())?;
        Ok(if details.is_too_large {
            KernelRead::TooLarge
        } else if details.is_base64 {
            KernelRead::NotText
        } else {
            match details.contents {
                Some(text) if text.len() as u64 <= max_bytes => KernelRead::Text(text),
                Some(_) => KernelRead::TooLarge,
                None => KernelRead::NotText,
            }
        })
    }

    async fn create(
        &self,
        folder: &str,
        name: &str,
        bytes: &[u8],
    ) -> Result<Option<KernelStamp>, String> {
        let result = self
            .create_file(folder, name, bytes)
            .await
            .map_err(|e| e.to_string())?;
        let info = result.info;
        let expected = format!("{}/{name}", folder.trim_end_matches('/'));
        match info {
            Some(info) if info.path == expected => Ok(stamp(info.last_modified, info.size)),
            Some(info) => Err(format!(
                "marimo wrote {} instead of {expected} (a file of that name was there already)",
                info.path
            )),
            None => Ok(None),
        }
    }
}

fn stamp(modified: Option<f64>, size: Option<u64>) -> Option<KernelStamp> {
    Some(KernelStamp {
        modified: modified?,
        size: size?,
    })
}

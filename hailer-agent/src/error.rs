//! What can go wrong in the agent's own machinery (the store, the credential store), worded for
//! the analyst: what happened and how to fix it. Model and tool failures are not here: a tool
//! failure is text for the model, and a model failure ends a turn as a `TurnEvent::Failed`.

use std::io;
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(
        "Could not {action} {path}: {source}. Check that the folder exists and that you may \
         write to it."
    )]
    Io {
        action: &'static str,
        path: PathBuf,
        source: io::Error,
    },

    #[error(
        "Could not open the conversation store {path}: {source}. If the file is damaged, move it \
         away (its conversation is lost) and start again."
    )]
    Open {
        path: PathBuf,
        source: rusqlite::Error,
    },

    #[error(
        "The conversation store {path} was written by a newer Hailer (format {found}; this \
         version reads up to {known}). Update Hailer, or move the file away to start a new \
         conversation."
    )]
    NewerSchema {
        path: PathBuf,
        found: i64,
        known: i64,
    },

    #[error(
        "The conversation store failed while {action}: {source}. If this repeats, start a new \
         conversation with /new."
    )]
    Sqlite {
        action: &'static str,
        source: rusqlite::Error,
    },

    #[error(
        "Item {seq} of the stored conversation cannot be read: {detail}. Start a new \
         conversation with /new."
    )]
    CorruptItem { seq: i64, detail: String },

    #[error("Could not write an item of the conversation: {0}.")]
    Encode(#[from] serde_json::Error),

    #[error(
        "The conversation thread '{0}' no longer exists: a new conversation replaced it. Send \
         the message again."
    )]
    UnknownThread(String),

    #[error(
        "The credential file {path} cannot be read: {detail}. Remove it and run `hailer login` \
         again for each provider."
    )]
    CredentialFile { path: PathBuf, detail: String },

    #[error(
        "The OS credential store is not available: {reason}. Set credentials_store = \"file\" \
         (or \"auto\") in hailer.toml to keep keys in a file only you can read."
    )]
    KeyringUnavailable { reason: String },

    #[error("The OS credential store failed: {reason}.")]
    Keyring { reason: String },

    #[error("Nothing was stored: the key is empty.")]
    EmptyKey,
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Names the action of a failed SQLite call.
pub(crate) trait SqlContext<T> {
    fn while_(self, action: &'static str) -> Result<T>;
}

impl<T> SqlContext<T> for rusqlite::Result<T> {
    fn while_(self, action: &'static str) -> Result<T> {
        self.map_err(|source| Error::Sqlite { action, source })
    }
}

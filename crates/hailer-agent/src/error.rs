//! What can go wrong in the agent's own machinery (the store, the credential store), worded for
//! the analyst: what happened and how to fix it. Model and tool failures are not here: a tool
//! failure is text for the model, and a model failure ends a turn as a `TurnEvent::Failed`.

use std::io;
use std::path::PathBuf;

/// A failure of the conversation store or of the credential store, with a message that says
/// what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file of the conversation store or the credential file could not be created, read,
    /// written or restricted to its owner.
    #[error(
        "Could not {action} {path}: {source}. Check that the folder exists and that you may \
         write to it."
    )]
    Io {
        /// What was being done, as a verb phrase followed by the path (`read`, `create the
        /// folder of`, `restrict access to`).
        action: &'static str,
        /// The file concerned: `threads.sqlite` or `credentials.json`.
        path: PathBuf,
        /// What the operating system said.
        source: io::Error,
    },

    /// SQLite could not open the conversation store, set up its connection or read its format
    /// version.
    #[error(
        "Could not open the conversation store {path}: {source}. If the file is damaged, move it \
         away (its conversation is lost) and start again."
    )]
    Open {
        /// The store's file.
        path: PathBuf,
        /// What SQLite said.
        source: rusqlite::Error,
    },

    /// The store's format version is higher than this build knows; the file is left as it is.
    #[error(
        "The conversation store {path} was written by a newer Hailer (format {found}; this \
         version reads up to {known}). Update Hailer, or move the file away to start a new \
         conversation."
    )]
    NewerSchema {
        /// The store's file.
        path: PathBuf,
        /// The format version recorded in the file (SQLite's `user_version`).
        found: i64,
        /// The highest format version this build reads.
        known: i64,
    },

    /// A query or transaction on the open conversation store failed.
    #[error(
        "The conversation store failed while {action}: {source}. If this repeats, start a new \
         conversation with /new."
    )]
    Sqlite {
        /// What the store was doing, as a gerund phrase (`saving an item`, `reading the
        /// conversation`).
        action: &'static str,
        /// What SQLite said.
        source: rusqlite::Error,
    },

    /// A stored item has an unknown kind or a payload that does not decode.
    #[error(
        "Item {seq} of the stored conversation cannot be read: {detail}. Start a new \
         conversation with /new."
    )]
    CorruptItem {
        /// The item's sequence number in its thread.
        seq: i64,
        /// What is wrong with it.
        detail: String,
    },

    /// An item, or the credential file's contents, could not be turned into JSON.
    #[error("Could not write an item of the conversation: {0}.")]
    Encode(#[from] serde_json::Error),

    /// The thread with this id is not in the store, usually because a new conversation
    /// deleted it.
    #[error(
        "The conversation thread '{0}' no longer exists: a new conversation replaced it. Send \
         the message again."
    )]
    UnknownThread(String),

    /// The credential file exists but is not a JSON object of names to keys.
    #[error(
        "The credential file {path} cannot be read: {detail}. Remove it and run `hailer login` \
         again for each provider."
    )]
    CredentialFile {
        /// The credential file.
        path: PathBuf,
        /// Where the file stopped parsing (line and column), never its contents.
        detail: String,
    },

    /// The OS credential store cannot be reached: no service answers, it is locked, or the
    /// platform call failed.
    #[error(
        "The OS credential store is not available: {reason}. Set credentials_store = \"file\" \
         (or \"auto\") in hailer.toml to keep keys in a file only you can read."
    )]
    KeyringUnavailable {
        /// Why, as the platform put it (never a stored secret).
        reason: String,
    },

    /// The OS credential store answered but the call failed, for example because the stored
    /// key is not text or several entries match.
    #[error("The OS credential store failed: {reason}.")]
    Keyring {
        /// What went wrong, worded for the user (never a stored secret).
        reason: String,
    },

    /// [`crate::Credentials::store_key`] was given a key that is empty or only spaces.
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

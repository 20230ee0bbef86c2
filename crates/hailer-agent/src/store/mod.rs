//! The conversation store, `.hailer/threads.sqlite` in a workspace.
//!
//! One row per thread with its counters, one row per item. Every write is its own transaction,
//! so a message is on disk the moment it is complete and a killed process loses at most the
//! message it was in the middle of. A new conversation (`/new`, `--new`) deletes every thread;
//! switching the model in a running session starts a thread beside the others, and a later start
//! with a model resumes that model's latest thread.

mod items;
mod payload;
mod schema;

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use rusqlite::{Connection, OptionalExtension, Row, params};

use crate::error::{Error, Result, SqlContext};
use crate::usage::TokenUsage;

/// The store's file name inside a workspace's state folder.
pub const STORE_FILE: &str = "threads.sqlite";
/// The workspace's state folder.
pub const STATE_FOLDER: &str = hailer_platform::STATE_FOLDER_NAME;

/// A thread and its counters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadInfo {
    /// 32 lower-case hex digits.
    pub id: String,
    /// The model the thread was started for; a different model needs another thread.
    pub model: String,
    /// The provider id the thread was started for.
    pub provider: String,
    /// Seconds since the Unix epoch.
    pub created_at: i64,
    /// Finished turns, counted by [`ConversationStore::add_usage`].
    pub turns: u64,
    /// Tokens over all turns whose usage was reported.
    pub input_tokens: u64,
    /// Output tokens over all turns whose usage was reported.
    pub output_tokens: u64,
    /// The input tokens of the latest model call, when reported: the best estimate of how much
    /// context the next call carries.
    pub context_tokens: Option<u64>,
}

impl ThreadInfo {
    /// Whether the thread was started for this model: a different model or provider needs a
    /// new thread.
    pub fn is_for(&self, model: &str, provider: &str) -> bool {
        self.model == model && self.provider == provider
    }
}

/// How [`ConversationStore::resume_or_start`] found the workspace's conversation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resumption {
    /// The latest thread of this model and provider goes on; it has this many turns so far.
    Resumed {
        /// The thread that goes on.
        thread: ThreadInfo,
        /// Its finished turns, the same as `thread.turns`.
        turns: u64,
    },
    /// There was no thread, so a new one was started.
    Started {
        /// The new, empty thread.
        thread: ThreadInfo,
    },
    /// The store held threads only of other models or providers; they were deleted and a new
    /// thread started.
    ModelChanged {
        /// The new, empty thread.
        thread: ThreadInfo,
        /// The model of the thread that was current before.
        previous_model: String,
        /// The provider of the thread that was current before.
        previous_provider: String,
    },
}

impl Resumption {
    /// The thread turns now go to, whichever way it was found.
    pub fn thread(&self) -> &ThreadInfo {
        match self {
            Self::Resumed { thread, .. }
            | Self::Started { thread }
            | Self::ModelChanged { thread, .. } => thread,
        }
    }
}

/// An open conversation store.
#[derive(Debug)]
pub struct ConversationStore {
    conn: Connection,
    path: PathBuf,
}

const THREAD_COLUMNS: &str =
    "id, model, provider, created_at, turns, input_tokens, output_tokens, context_tokens";

fn thread_row(row: &Row<'_>) -> rusqlite::Result<ThreadInfo> {
    let count = |index| -> rusqlite::Result<u64> {
        row.get::<_, i64>(index)
            .map(|value| u64::try_from(value).unwrap_or(0))
    };
    Ok(ThreadInfo {
        id: row.get(0)?,
        model: row.get(1)?,
        provider: row.get(2)?,
        created_at: row.get(3)?,
        turns: count(4)?,
        input_tokens: count(5)?,
        output_tokens: count(6)?,
        context_tokens: row
            .get::<_, Option<i64>>(7)?
            .and_then(|value| u64::try_from(value).ok()),
    })
}

fn new_thread_id() -> String {
    let mut bytes = [0u8; 16];
    rand::fill(&mut bytes);
    hex::encode(bytes)
}

fn now_secs() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| {
            i64::try_from(elapsed.as_secs()).unwrap_or(i64::MAX)
        })
}

fn to_sql_count(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

/// Creates the file readable by its owner only (a no-op when it exists, but it is made private
/// again), and its folder: 0600 and 0700 on Unix, an owner-only access list on Windows
/// (`hailer_platform::create_dir_all_private`, `restrict_file`).
fn prepare_file(path: &Path) -> Result<()> {
    let io = |action, source| Error::Io {
        action,
        path: path.to_owned(),
        source,
    };
    if let Some(folder) = path
        .parent()
        .filter(|folder| !folder.as_os_str().is_empty())
    {
        hailer_platform::create_dir_all_private(folder)
            .map_err(|source| io("create the folder of", source))?;
    }
    hailer_platform::private_open_options()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|source| io("create the conversation store", source))?;
    hailer_platform::restrict_file(path).map_err(|source| io("restrict access to", source))?;
    Ok(())
}

impl ConversationStore {
    /// Opens (creating if needed) the store at `path`, brings it to the current format.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref().to_owned();
        prepare_file(&path)?;
        let mut conn = Connection::open(&path).map_err(|source| Error::Open {
            path: path.clone(),
            source,
        })?;
        schema::configure(&conn, &path)?;
        schema::migrate(&mut conn, &path)?;
        Ok(Self { conn, path })
    }

    /// Opens the store of the workspace at `workspace` (`.hailer/threads.sqlite`).
    pub fn open_in_workspace(workspace: impl AsRef<Path>) -> Result<Self> {
        let folder = hailer_platform::state_folder_of(workspace.as_ref());
        hailer_platform::ensure_state_folder(&folder).map_err(|source| Error::Io {
            action: "create the folder of",
            path: folder.join(STORE_FILE),
            source,
        })?;
        Self::open(folder.join(STORE_FILE))
    }

    /// The store's file, as given to [`Self::open`].
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The workspace's current thread, if there is one.
    pub fn current_thread(&self) -> Result<Option<ThreadInfo>> {
        let sql = format!("SELECT {THREAD_COLUMNS} FROM threads ORDER BY rowid DESC LIMIT 1");
        self.conn
            .query_row(&sql, [], thread_row)
            .optional()
            .while_("reading the current thread")
    }

    /// The thread with this id; `Ok(None)` when the store has none (a new conversation may
    /// have deleted it).
    pub fn thread(&self, thread: &str) -> Result<Option<ThreadInfo>> {
        let sql = format!("SELECT {THREAD_COLUMNS} FROM threads WHERE id = ?1");
        self.conn
            .query_row(&sql, [thread], thread_row)
            .optional()
            .while_("reading a thread")
    }

    fn require_thread(&self, thread: &str) -> Result<ThreadInfo> {
        self.thread(thread)?
            .ok_or_else(|| Error::UnknownThread(thread.to_owned()))
    }

    /// Starts a new thread for this model, deleting every other thread: a new conversation
    /// replaces the old one.
    pub fn new_thread(&mut self, model: &str, provider: &str) -> Result<ThreadInfo> {
        let id = new_thread_id();
        let created_at = now_secs();
        let tx = self.conn.transaction().while_("starting a new thread")?;
        tx.execute("DELETE FROM threads", [])
            .while_("deleting the old thread")?;
        tx.execute(
            "INSERT INTO threads (id, model, provider, created_at) VALUES (?1, ?2, ?3, ?4)",
            params![id, model, provider, created_at],
        )
        .while_("starting a new thread")?;
        tx.commit().while_("starting a new thread")?;
        tracing::debug!(thread = %id, model, provider, "new conversation thread");
        self.require_thread(&id)
    }

    /// Starts a new thread for this model and keeps the others: a model switch inside a
    /// running session leaves the earlier conversation where a later start can resume it.
    pub fn add_thread(&mut self, model: &str, provider: &str) -> Result<ThreadInfo> {
        let id = new_thread_id();
        self.conn
            .execute(
                "INSERT INTO threads (id, model, provider, created_at) VALUES (?1, ?2, ?3, ?4)",
                params![id, model, provider, now_secs()],
            )
            .while_("starting a thread for another model")?;
        tracing::debug!(thread = %id, model, provider, "conversation thread added");
        self.require_thread(&id)
    }

    /// The latest thread started for this model and provider.
    pub fn latest_thread_for(&self, model: &str, provider: &str) -> Result<Option<ThreadInfo>> {
        let sql = format!(
            "SELECT {THREAD_COLUMNS} FROM threads WHERE model = ?1 AND provider = ?2 \
             ORDER BY rowid DESC LIMIT 1"
        );
        self.conn
            .query_row(&sql, [model, provider], thread_row)
            .optional()
            .while_("reading the model's latest thread")
    }

    /// Goes on with the latest thread started for this model and provider; when there is none,
    /// starts a new one, replacing any thread of another model.
    pub fn resume_or_start(&mut self, model: &str, provider: &str) -> Result<Resumption> {
        if let Some(thread) = self.latest_thread_for(model, provider)? {
            let turns = thread.turns;
            return Ok(Resumption::Resumed { thread, turns });
        }
        match self.current_thread()? {
            Some(previous) => Ok(Resumption::ModelChanged {
                thread: self.new_thread(model, provider)?,
                previous_model: previous.model,
                previous_provider: previous.provider,
            }),
            None => Ok(Resumption::Started {
                thread: self.new_thread(model, provider)?,
            }),
        }
    }

    /// Counts one finished turn and adds its usage, when known.
    pub fn add_usage(&mut self, thread: &str, usage: Option<TokenUsage>) -> Result<()> {
        let usage = usage.unwrap_or_default();
        let changed = self
            .conn
            .prepare_cached(
                "UPDATE threads SET turns = turns + 1, input_tokens = input_tokens + ?2, \
                 output_tokens = output_tokens + ?3 WHERE id = ?1",
            )
            .and_then(|mut update| {
                update.execute(params![
                    thread,
                    to_sql_count(usage.input),
                    to_sql_count(usage.output)
                ])
            })
            .while_("counting a turn")?;
        if changed == 0 {
            return Err(Error::UnknownThread(thread.to_owned()));
        }
        Ok(())
    }

    /// Records the input tokens of the latest model call (`None` after the history shrank).
    pub fn set_context_tokens(&mut self, thread: &str, tokens: Option<u64>) -> Result<()> {
        self.conn
            .prepare_cached("UPDATE threads SET context_tokens = ?2 WHERE id = ?1")
            .and_then(|mut update| update.execute(params![thread, tokens.map(to_sql_count)]))
            .while_("recording the context size")?;
        Ok(())
    }

    /// How many turns the thread has had.
    pub fn turns(&self, thread: &str) -> Result<u64> {
        Ok(self.require_thread(thread)?.turns)
    }

    /// SQLite's own consistency check: `"ok"` for a sound file.
    pub fn integrity_check(&self) -> Result<String> {
        self.conn
            .query_row("PRAGMA integrity_check", [], |row| row.get(0))
            .while_("checking the file")
    }
}

//! The store's tables and how a file is brought up to the current format. `PRAGMA user_version`
//! holds the format number; each step moves one version forward inside a transaction.

use std::path::Path;

use rusqlite::Connection;

use crate::error::{Error, Result, SqlContext};

/// The format this version writes.
pub(crate) const CURRENT_VERSION: i64 = 1;

/// Step `n` brings a file from version `n` to `n + 1`.
const STEPS: [&str; 1] = [r"
    CREATE TABLE threads (
        id                TEXT PRIMARY KEY,
        model             TEXT NOT NULL,
        provider          TEXT NOT NULL,
        created_at        INTEGER NOT NULL,
        turns             INTEGER NOT NULL DEFAULT 0,
        input_tokens      INTEGER NOT NULL DEFAULT 0,
        output_tokens     INTEGER NOT NULL DEFAULT 0,
        context_tokens    INTEGER
    );
    CREATE TABLE items (
        thread_id  TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
        seq        INTEGER NOT NULL,
        kind       TEXT NOT NULL,
        payload    TEXT NOT NULL,
        PRIMARY KEY (thread_id, seq)
    ) WITHOUT ROWID;
"];

/// Connection settings: write-ahead log, durable at each commit as far as a process crash goes
/// (`synchronous=NORMAL` may lose the last commits only on power loss), foreign keys on.
pub(crate) fn configure(conn: &Connection, path: &Path) -> Result<()> {
    let open = |source| Error::Open {
        path: path.to_owned(),
        source,
    };
    conn.busy_timeout(std::time::Duration::from_secs(5))
        .map_err(open)?;
    conn.pragma_update(None, "journal_mode", "WAL")
        .map_err(open)?;
    conn.pragma_update(None, "synchronous", "NORMAL")
        .map_err(open)?;
    conn.pragma_update(None, "foreign_keys", "ON")
        .map_err(open)?;
    Ok(())
}

/// Brings the file to [`CURRENT_VERSION`]; refuses a file from a newer version.
pub(crate) fn migrate(conn: &mut Connection, path: &Path) -> Result<()> {
    let found: i64 = conn
        .pragma_query_value(None, "user_version", |row| row.get(0))
        .map_err(|source| Error::Open {
            path: path.to_owned(),
            source,
        })?;
    if found > CURRENT_VERSION {
        return Err(Error::NewerSchema {
            path: path.to_owned(),
            found,
            known: CURRENT_VERSION,
        });
    }
    for version in found..CURRENT_VERSION {
        let Some(step) = usize::try_from(version)
            .ok()
            .and_then(|index| STEPS.get(index))
        else {
            continue;
        };
        let tx = conn.transaction().while_("upgrading the store's format")?;
        tx.execute_batch(step)
            .while_("upgrading the store's format")?;
        tx.pragma_update(None, "user_version", version + 1)
            .while_("upgrading the store's format")?;
        tx.commit().while_("upgrading the store's format")?;
        tracing::debug!(
            from = version,
            to = version + 1,
            "conversation store upgraded"
        );
    }
    Ok(())
}

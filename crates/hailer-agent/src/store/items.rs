//! Reading and writing a thread's items.

use rusqlite::{Transaction, params};

use super::{ConversationStore, payload};
use crate::error::{Error, Result, SqlContext};
use crate::item::{StoredItem, ThreadItem};

fn encode(item: &ThreadItem) -> Result<String> {
    Ok(payload::encode(item)?)
}

fn thread_exists(tx: &Transaction<'_>, thread: &str) -> Result<()> {
    let exists: bool = tx
        .prepare_cached("SELECT EXISTS (SELECT 1 FROM threads WHERE id = ?1)")
        .and_then(|mut query| query.query_row([thread], |row| row.get(0)))
        .while_("looking up the thread")?;
    if exists {
        Ok(())
    } else {
        Err(Error::UnknownThread(thread.to_owned()))
    }
}

/// Appends items after the thread's last one (or from `first_seq` when given) inside `tx`.
fn insert_items(
    tx: &Transaction<'_>,
    thread: &str,
    first_seq: Option<i64>,
    items: &[ThreadItem],
) -> Result<Vec<i64>> {
    let first = match first_seq {
        Some(seq) => seq,
        None => tx
            .prepare_cached("SELECT COALESCE(MAX(seq), 0) + 1 FROM items WHERE thread_id = ?1")
            .and_then(|mut query| query.query_row([thread], |row| row.get::<_, i64>(0)))
            .while_("numbering a new item")?,
    };
    let mut insert = tx
        .prepare_cached("INSERT INTO items (thread_id, seq, kind, payload) VALUES (?1, ?2, ?3, ?4)")
        .while_("saving an item")?;
    let mut seqs = Vec::with_capacity(items.len());
    for (seq, item) in (first..).zip(items) {
        insert
            .execute(params![thread, seq, item.kind(), encode(item)?])
            .while_("saving an item")?;
        seqs.push(seq);
    }
    Ok(seqs)
}

impl ConversationStore {
    /// The thread's items in order.
    pub fn load_items(&self, thread: &str) -> Result<Vec<StoredItem>> {
        let mut query = self
            .conn
            .prepare_cached(
                "SELECT seq, kind, payload FROM items WHERE thread_id = ?1 ORDER BY seq",
            )
            .while_("reading the conversation")?;
        let rows = query
            .query_map([thread], |row| {
                Ok((
                    row.get::<_, i64>(0)?,
                    row.get::<_, String>(1)?,
                    row.get::<_, String>(2)?,
                ))
            })
            .while_("reading the conversation")?;
        let mut items = Vec::new();
        for row in rows {
            let (seq, kind, payload) = row.while_("reading the conversation")?;
            let item = payload::decode(&kind, &payload)
                .map_err(|detail| Error::CorruptItem { seq, detail })?;
            items.push(StoredItem { seq, item });
        }
        Ok(items)
    }

    /// Appends one item, durably, and returns its sequence number.
    pub fn append(&mut self, thread: &str, item: &ThreadItem) -> Result<i64> {
        let seqs = self.replace_tail(thread, None, std::slice::from_ref(item))?;
        Ok(seqs.first().copied().unwrap_or_default())
    }

    /// In one transaction: deletes the items from `from_seq` on (none when `None`), then appends
    /// `items`. Returns their sequence numbers.
    pub fn replace_tail(
        &mut self,
        thread: &str,
        from_seq: Option<i64>,
        items: &[ThreadItem],
    ) -> Result<Vec<i64>> {
        let tx = self.conn.transaction().while_("saving the conversation")?;
        thread_exists(&tx, thread)?;
        if let Some(from_seq) = from_seq {
            tx.prepare_cached("DELETE FROM items WHERE thread_id = ?1 AND seq >= ?2")
                .and_then(|mut delete| delete.execute(params![thread, from_seq]))
                .while_("rewriting the end of the conversation")?;
        }
        let seqs = insert_items(&tx, thread, None, items)?;
        tx.commit().while_("saving the conversation")?;
        Ok(seqs)
    }

    /// In one transaction: deletes every item up to and including `upto_seq` and puts one
    /// summary item in their place, before the items that remain.
    pub fn replace_prefix(&mut self, thread: &str, upto_seq: i64, summary: &str) -> Result<()> {
        let tx = self.conn.transaction().while_("saving a summary")?;
        thread_exists(&tx, thread)?;
        tx.prepare_cached("DELETE FROM items WHERE thread_id = ?1 AND seq <= ?2")
            .and_then(|mut delete| delete.execute(params![thread, upto_seq]))
            .while_("removing summarised items")?;
        insert_items(
            &tx,
            thread,
            Some(upto_seq),
            &[ThreadItem::Summary(summary.to_owned())],
        )?;
        tx.execute(
            "UPDATE threads SET context_tokens = NULL WHERE id = ?1",
            [thread],
        )
        .while_("saving a summary")?;
        tx.commit().while_("saving a summary")?;
        Ok(())
    }
}

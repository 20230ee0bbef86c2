//! The conversation store: threads, resumption, model switches, items, file modes, format.

use hailer_agent::ConversationStore;
use hailer_agent::{Error, Resumption, ThreadItem, TokenUsage};
use pretty_assertions::assert_eq;

fn temp_store() -> (tempfile::TempDir, ConversationStore) {
    let dir = tempfile::tempdir().unwrap();
    let store = ConversationStore::open_in_workspace(dir.path()).unwrap();
    (dir, store)
}

#[test]
fn resume_starts_then_resumes_and_a_model_switch_starts_afresh() {
    let (dir, mut store) = temp_store();
    let started = store.resume_or_start("gpt-a", "openai").unwrap();
    assert!(matches!(started, Resumption::Started { .. }), "{started:?}");
    let thread = started.thread().id.clone();
    assert_eq!(thread.len(), 32);
    store
        .append(&thread, &ThreadItem::User("hi".into()))
        .unwrap();
    store
        .add_usage(
            &thread,
            Some(TokenUsage {
                input: 10,
                output: 2,
            }),
        )
        .unwrap();
    store.add_usage(&thread, None).unwrap();
    drop(store);

    let mut store = ConversationStore::open_in_workspace(dir.path()).unwrap();
    let resumed = store.resume_or_start("gpt-a", "openai").unwrap();
    assert_eq!(
        resumed,
        Resumption::Resumed {
            thread: store.thread(&thread).unwrap().unwrap(),
            turns: 2
        }
    );
    let info = resumed.thread();
    assert_eq!((info.input_tokens, info.output_tokens), (10, 2));

    let switched = store.resume_or_start("gpt-b", "openai").unwrap();
    let Resumption::ModelChanged {
        thread: new,
        previous_model,
        previous_provider,
    } = switched
    else {
        panic!("{switched:?}");
    };
    assert_eq!(
        (previous_model.as_str(), previous_provider.as_str()),
        ("gpt-a", "openai")
    );
    assert_ne!(new.id, thread);
    assert_eq!(new.turns, 0);
    assert!(
        store.thread(&thread).unwrap().is_none(),
        "the old thread is deleted"
    );
    assert!(store.load_items(&thread).unwrap().is_empty());
    assert!(!new.is_for("gpt-a", "openai") && new.is_for("gpt-b", "openai"));
}

#[test]
fn new_replaces_the_current_thread() {
    let (_dir, mut store) = temp_store();
    let old = store.new_thread("m", "p").unwrap().id;
    store.append(&old, &ThreadItem::User("old".into())).unwrap();
    let new = store.new_thread("m", "p").unwrap().id;
    assert_eq!(store.current_thread().unwrap().unwrap().id, new);
    assert!(store.thread(&old).unwrap().is_none());
    let error = store
        .append(&old, &ThreadItem::User("late".into()))
        .unwrap_err();
    assert!(matches!(error, Error::UnknownThread(_)), "{error}");
    assert!(error.to_string().contains("Send the message again"));
}

#[test]
fn a_model_switch_keeps_the_old_thread_and_a_later_start_resumes_the_models_own() {
    let (dir, mut store) = temp_store();
    let first = store.new_thread("gpt-a", "openai").unwrap().id;
    store
        .append(&first, &ThreadItem::User("asked of a".into()))
        .unwrap();
    store.add_usage(&first, None).unwrap();
    let switched = store.add_thread("other-b", "scripted").unwrap();
    assert_ne!(switched.id, first);
    assert_eq!(switched.turns, 0, "the new thread's counters start at zero");
    assert_eq!(store.current_thread().unwrap().unwrap().id, switched.id);
    assert_eq!(
        store.load_items(&first).unwrap().len(),
        1,
        "the old thread is kept"
    );
    drop(store);

    // The next start with the configured model goes on with that model's conversation.
    let mut store = ConversationStore::open_in_workspace(dir.path()).unwrap();
    let resumed = store.resume_or_start("gpt-a", "openai").unwrap();
    assert_eq!(
        resumed,
        Resumption::Resumed {
            thread: store.thread(&first).unwrap().unwrap(),
            turns: 1
        }
    );
    // A new conversation deletes every thread.
    let fresh = store.new_thread("gpt-a", "openai").unwrap().id;
    assert!(store.thread(&first).unwrap().is_none());
    assert!(store.thread(&switched.id).unwrap().is_none());
    assert_eq!(store.current_thread().unwrap().unwrap().id, fresh);
}

#[test]
fn items_keep_their_order_and_tails_and_prefixes_can_be_replaced() {
    let (_dir, mut store) = temp_store();
    let thread = store.new_thread("m", "p").unwrap().id;
    let seqs: Vec<i64> = (0..5)
        .map(|n| {
            store
                .append(&thread, &ThreadItem::User(format!("m{n}")))
                .unwrap()
        })
        .collect();
    assert_eq!(seqs, [1, 2, 3, 4, 5]);
    store
        .replace_tail(&thread, Some(4), &[ThreadItem::User("m3 merged".into())])
        .unwrap();
    store
        .replace_prefix(&thread, 2, "summary of m0 and m1")
        .unwrap();
    let items: Vec<(i64, ThreadItem)> = store
        .load_items(&thread)
        .unwrap()
        .into_iter()
        .map(|stored| (stored.seq, stored.item))
        .collect();
    assert_eq!(
        items,
        [
            (2, ThreadItem::Summary("summary of m0 and m1".into())),
            (3, ThreadItem::User("m2".into())),
            (4, ThreadItem::User("m3 merged".into())),
        ]
    );
}

#[cfg(unix)]
#[test]
fn the_file_and_its_folder_are_private() {
    use hailer_agent::{STATE_FOLDER, STORE_FILE};
    use std::os::unix::fs::PermissionsExt;
    let (dir, store) = temp_store();
    let folder = dir.path().join(STATE_FOLDER);
    let file = folder.join(STORE_FILE);
    assert_eq!(store.path(), file);
    let mode =
        |path: &std::path::Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&file), 0o600);
    assert_eq!(mode(&folder), 0o700);
}

#[test]
fn a_store_from_a_newer_version_is_refused_with_advice() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("threads.sqlite");
    drop(ConversationStore::open(&path).unwrap());
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.pragma_update(None, "user_version", 99).unwrap();
    drop(conn);
    let error = ConversationStore::open(&path).unwrap_err();
    assert!(
        matches!(error, Error::NewerSchema { found: 99, .. }),
        "{error}"
    );
    assert!(error.to_string().contains("Update Hailer"), "{error}");
}

#[test]
fn a_damaged_item_is_reported_not_panicked_on() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("threads.sqlite");
    let mut store = ConversationStore::open(&path).unwrap();
    let thread = store.new_thread("m", "p").unwrap().id;
    store
        .append(&thread, &ThreadItem::User("fine".into()))
        .unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute("UPDATE items SET payload = '{broken'", [])
        .unwrap();
    let error = store.load_items(&thread).unwrap_err();
    assert!(
        matches!(error, Error::CorruptItem { seq: 1, .. }),
        "{error}"
    );
    assert!(error.to_string().contains("/new"), "{error}");
}

#[test]
fn a_file_that_is_not_a_database_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("threads.sqlite");
    std::fs::write(
        &path,
        "this is not SQLite, just text that is long enough to look like a header",
    )
    .unwrap();
    let error = ConversationStore::open(&path).unwrap_err();
    assert!(error.to_string().contains("move it"), "{error}");
}

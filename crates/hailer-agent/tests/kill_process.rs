//! Kill safety with a real kill: this binary starts itself as a writer process that appends items
//! and reports each committed one, kills it with SIGKILL mid-stream, then checks that every
//! reported item is in the reopened store and that SQLite finds the file sound.
//!
//! It runs without the test harness so the same binary can be the writer. It answers the test
//! runners' listing protocol (`--list --format terse`, as cargo-nextest asks) with its one test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use hailer_agent::ConversationStore;
use hailer_agent::ThreadItem;

const WRITER_VAR: &str = "HAILER_AGENT_KILL_TEST_WRITER";
const THREAD_VAR: &str = "HAILER_AGENT_KILL_TEST_THREAD";
/// Items the parent waits for before it kills the writer.
const BEFORE_KILL: usize = 150;
/// The one test this binary runs, as listed to test runners.
const TEST_NAME: &str = "kill_mid_write_and_check";

fn item(n: u64) -> ThreadItem {
    ThreadItem::User(format!("{n}:{}", "d".repeat(12_000)))
}

/// The writer: appends forever, printing each sequence number once its transaction committed.
fn write_until_killed(path: &Path, thread: &str) {
    let mut store = ConversationStore::open(path).expect("the writer opens the store");
    let mut out = std::io::stdout().lock();
    for n in 0.. {
        let seq = store.append(thread, &item(n)).expect("append");
        writeln!(out, "{seq} {n}").expect("report");
        out.flush().expect("report");
    }
}

fn kill_mid_write_and_check() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join("threads.sqlite");
    let thread = {
        let mut store = ConversationStore::open(&path).expect("the store opens");
        store.new_thread("m", "p").expect("a thread").id
    };
    let mut child = Command::new(std::env::current_exe().expect("this binary"))
        .env(WRITER_VAR, &path)
        .env(THREAD_VAR, &thread)
        .stdout(Stdio::piped())
        .spawn()
        .expect("the writer starts");
    let stdout = child.stdout.take().expect("the writer's output");
    let mut committed = Vec::new();
    for line in BufReader::new(stdout).lines() {
        let line = line.expect("a report line");
        let (seq, n) = line.split_once(' ').expect("seq and n");
        committed.push((seq.parse::<i64>().unwrap(), n.parse::<u64>().unwrap()));
        if committed.len() == BEFORE_KILL {
            child.kill().expect("SIGKILL the writer");
            break;
        }
    }
    child.wait().expect("the writer is reaped");
    assert_eq!(committed.len(), BEFORE_KILL, "the writer stopped early");

    let store = ConversationStore::open(&path).expect("the store reopens after the kill");
    assert_eq!(store.integrity_check().expect("integrity check"), "ok");
    let loaded = store.load_items(&thread).expect("the items load");
    assert!(
        loaded.len() >= BEFORE_KILL,
        "only {} items survived",
        loaded.len()
    );
    for (seq, n) in committed {
        let found = loaded.iter().find(|stored| stored.seq == seq);
        assert_eq!(
            found.map(|stored| &stored.item),
            Some(&item(n)),
            "item {n} (seq {seq}) was reported committed but is missing"
        );
    }
}

fn main() {
    if let Some(path) = std::env::var_os(WRITER_VAR) {
        let thread = std::env::var(THREAD_VAR).expect("the thread to write to");
        write_until_killed(Path::new(&path), &thread);
        return;
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|arg| arg == "--list") {
        // No ignored tests; otherwise the one test.
        if !args.iter().any(|arg| arg == "--ignored") {
            println!("{TEST_NAME}: test");
        }
        return;
    }
    kill_mid_write_and_check();
    println!("{TEST_NAME}: 1 passed, 0 failed");
}

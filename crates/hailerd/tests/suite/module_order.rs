//! hailerd's modules depend in one direction (docs/ARCHITECTURE.md, "Module order"):
//! `api` → `agent` → `session` → `kernel` → the leaves (`audit`, `notebooks`, `checks`,
//! `events`, `owner_lock`). A module names only modules below it, never one beside or above.

use std::path::{Path, PathBuf};

/// Each ordered module with its rank: a module may name only modules of a higher rank.
const ORDER: &[(&str, u8)] = &[
    ("api", 0),
    ("agent", 1),
    ("session", 2),
    ("kernel", 3),
    ("audit", 4),
    ("notebooks", 4),
    ("checks", 4),
    ("events", 4),
    ("owner_lock", 4),
];

fn rank(module: &str) -> Option<u8> {
    ORDER
        .iter()
        .find(|(name, _)| *name == module)
        .map(|(_, rank)| *rank)
}

/// The top-level modules `text` names as `crate::<module>`, including inside
/// `crate::{a, b::c}` groups.
fn named_modules(text: &str) -> Vec<String> {
    let mut named = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("crate::") {
        rest = &rest[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0usize;
            let mut item = String::new();
            let mut items = Vec::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => items.push(std::mem::take(&mut item)),
                    _ => {}
                }
                if depth == 0 && c != ',' {
                    item.push(c);
                }
            }
            items.push(item);
            for item in items {
                let name: String = item
                    .trim()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    named.push(name);
                }
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            named.push(name);
        }
    }
    named
}

/// Where the module `from`, in a file that reads `text`, names one it must not.
fn violations(from: &str, text: &str) -> Vec<String> {
    let Some(own) = rank(from) else {
        return Vec::new();
    };
    named_modules(text)
        .into_iter()
        .filter(|named| named != from)
        .filter(|named| rank(named).is_some_and(|theirs| theirs <= own))
        .collect()
}

fn rust_files(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .collect();
        entries.sort();
        for entry in entries {
            rust_files(&entry, out);
        }
    } else if path.is_file() && path.extension().is_some_and(|ext| ext == "rs") {
        out.push(path.to_path_buf());
    }
}

#[test]
fn every_module_names_only_modules_below_it() {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    let mut read = 0;
    for (module, _) in ORDER {
        let mut files = Vec::new();
        rust_files(&src.join(module), &mut files);
        rust_files(&src.join(format!("{module}.rs")), &mut files);
        assert!(!files.is_empty(), "no source for the module {module}");
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            read += 1;
            for named in violations(module, &text) {
                found.push(format!(
                    "{}: `{module}` names `crate::{named}`, which is not below it",
                    file.strip_prefix(&src).unwrap_or(&file).display()
                ));
            }
        }
    }
    assert!(read > 40, "only {read} files were read");
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn references_against_the_order_are_found_in_every_form() {
    assert_eq!(
        violations("kernel", "use crate::session::Sessions;"),
        ["session"]
    );
    assert_eq!(
        violations("session", "use crate::{audit::Audit, agent::Agent};"),
        ["agent"]
    );
    assert_eq!(
        violations(
            "audit",
            "use crate::{\n    notebooks::{a, b},\n    kernel::KernelError,\n};"
        ),
        ["notebooks", "kernel"]
    );
    assert_eq!(
        violations("agent", "let x = crate::api::error::ApiError::Gone;"),
        ["api"]
    );
    assert!(violations("api", "use crate::{agent, session::Session, state};").is_empty());
    assert!(violations("session", "crate::kernel::Kernel; crate::session::x").is_empty());
}

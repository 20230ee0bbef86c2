//! The README's quick start says what is true: every `hailer` command it names is accepted by
//! the real `hailer` as written (each is run with `--help` appended, which parses every word
//! before it), and the ones that need no Docker image, no key and no model run for real in a
//! fresh workspace and succeed.

use hailer_tests::TestWorkspace;

/// The README's "Quick start" section.
fn quick_start() -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md");
    let readme = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    let start = readme
        .find("\n## Quick start\n")
        .unwrap_or_else(|| panic!("the README has no Quick start section"));
    let rest = &readme[start + 1..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |at| at + 3);
    rest[..end].to_owned()
}

/// Each `hailer ...` line of the section's `sh` blocks, its comment removed.
fn commands(section: &str) -> Vec<String> {
    let mut commands = Vec::new();
    let mut in_sh = false;
    for line in section.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with("```") {
            in_sh = !in_sh && trimmed == "```sh";
            continue;
        }
        if !in_sh || !trimmed.starts_with("hailer") {
            continue;
        }
        let without_comment = match trimmed.find("  #") {
            Some(at) => &trimmed[..at],
            None => trimmed,
        };
        commands.push(without_comment.trim().to_owned());
    }
    commands
}

/// Words as a POSIX shell splits this simple line (single and double quotes, no escapes).
fn words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut started = false;
    for c in line.chars() {
        match (quote, c) {
            (Some(open), c) if c == open => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                started = true;
            }
            (None, c) if c.is_whitespace() => {
                if started {
                    words.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            (None, c) => {
                word.push(c);
                started = true;
            }
        }
    }
    if started {
        words.push(word);
    }
    words
}

#[test]
fn every_command_of_the_readme_quick_start_is_accepted_and_the_local_ones_run() {
    let section = quick_start();
    let commands = commands(&section);
    for expected in [
        "hailer demo",
        "hailer init",
        "hailer --new",
        "hailer cancel",
        "hailer run \"Which region sold the most in March?\"",
    ] {
        assert!(
            commands.iter().any(|command| command == expected),
            "the quick start no longer names {expected}: {commands:?}"
        );
    }
    let workspace = TestWorkspace::empty(Vec::new());
    for command in &commands {
        let mut args = words(command);
        assert_eq!(args.remove(0), "hailer", "{command}");
        args.push("--help".to_owned());
        let arguments: Vec<&str> = args.iter().map(String::as_str).collect();
        let output = workspace.hailer(&arguments);
        assert!(
            output.status.success(),
            "`{command}` is refused:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        println!("accepted: {command}");
    }

    // Those that need no image, key or model run for real, in a fresh folder.
    for command in [
        "hailer init",
        "hailer config check",
        "hailer status",
        "hailer audit",
        "hailer daemon status",
    ] {
        assert!(commands.iter().any(|named| named == command), "{command}");
        let args = words(command);
        let arguments: Vec<&str> = args[1..].iter().map(String::as_str).collect();
        let output = workspace.hailer(&arguments);
        assert!(
            output.status.success(),
            "`{command}` failed:\n{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        println!("ran: {command}");
    }
    let _ = workspace.hailer(&["daemon", "stop"]);
}

#[test]
fn quick_start_lines_split_as_a_shell_splits_them() {
    assert_eq!(
        words("hailer run \"Which region sold?\""),
        ["hailer", "run", "Which region sold?"]
    );
    assert_eq!(
        words("hailer exec -c 'print(data_files)'"),
        ["hailer", "exec", "-c", "print(data_files)"]
    );
    assert_eq!(
        commands(
            "```sh\nhailer init                 # scaffold\n```\n```powershell\nhailer x\n```"
        ),
        ["hailer init"]
    );
}

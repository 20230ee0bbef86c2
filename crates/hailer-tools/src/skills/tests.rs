#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let skill = dir.path().join("monthly-pack");
    std::fs::create_dir_all(skill.join("reference")).unwrap();
    std::fs::write(
        skill.join(SKILL_FILE),
        "---\nname: Monthly Pack\ndescription: Builds the monthly KPI pack.\n---\n# Steps\n1. Load the periods.\n",
    )
    .unwrap();
    std::fs::write(skill.join("reference/checks.md"), "Check totals.\n").unwrap();
    let plain = dir.path().join("plain");
    std::fs::create_dir_all(&plain).unwrap();
    std::fs::write(plain.join(SKILL_FILE), "Just instructions.\n").unwrap();
    std::fs::create_dir_all(dir.path().join("not-a-skill")).unwrap();
    dir
}

#[test]
fn discovers_skills_with_their_front_matter() {
    let dir = workspace();
    let skills = discover(dir.path());
    let summary: Vec<(&str, &str, &str)> = skills
        .iter()
        .map(|s| (s.name.as_str(), s.folder.as_str(), s.description.as_str()))
        .collect();
    assert_eq!(
        summary,
        vec![
            (
                "Monthly Pack",
                "monthly-pack",
                "Builds the monthly KPI pack."
            ),
            ("plain", "plain", ""),
        ]
    );
    assert!(discover(&dir.path().join("missing")).is_empty());
}

#[test]
fn finds_by_name_or_folder_in_any_case() {
    let dir = workspace();
    assert_eq!(
        find(dir.path(), "monthly pack").unwrap().folder,
        "monthly-pack"
    );
    assert_eq!(
        find(dir.path(), "MONTHLY-PACK").unwrap().name,
        "Monthly Pack"
    );
    let unknown = find(dir.path(), "nope").unwrap_err();
    assert_eq!(unknown.message, "there is no skill named 'nope'");
    assert_eq!(unknown.hint, "Available skills: Monthly Pack, plain.");
}

#[test]
fn loads_and_reads_files() {
    let dir = workspace();
    let loaded = load_skill(dir.path(), "monthly pack").unwrap();
    insta::assert_snapshot!(loaded);
    assert_eq!(
        read_skill_file(dir.path(), "monthly-pack", "reference\\checks.md").unwrap(),
        "Check totals.\n"
    );
    let escape = read_skill_file(dir.path(), "monthly-pack", "../plain/SKILL.md").unwrap_err();
    assert_eq!(
        escape.message,
        "'../plain/SKILL.md' climbs out of the skill's folder"
    );
    let missing = read_skill_file(dir.path(), "monthly-pack", "reference/nope.md").unwrap_err();
    assert_eq!(
        missing.message,
        "there is no file 'reference/nope.md' in this skill"
    );
    assert_eq!(
        missing.hint,
        "Name one of the skill's files: SKILL.md, reference/checks.md."
    );
    assert!(
        load_skill(dir.path(), "plain")
            .unwrap()
            .ends_with("This skill has no other files.")
    );
}

#[test]
fn attaching_a_skill_puts_it_before_the_message() {
    let dir = workspace();
    let message = attach_to_message(dir.path(), "plain", "Go.").unwrap();
    assert_eq!(
        message,
        "[Hailer] The user attached the skill 'plain' to this message. Follow its instructions below.\n\n<skill name=\"plain\">\nJust instructions.\n</skill>\n\nGo."
    );
}

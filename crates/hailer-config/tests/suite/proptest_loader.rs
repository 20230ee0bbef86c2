//! Hostile input never panics: arbitrary bytes, and TOML documents built from the schema's own
//! key names with random values, go through the whole loader.

use crate::common::Scratch;
use hailer_config::KEY_SCHEMA as SCHEMA;
use hailer_config::{ClientEnv, DomainRule, MemoryLimit, check, load};
use proptest::prelude::*;

fn any_value() -> impl Strategy<Value = toml::Value> {
    let leaf = prop_oneof![
        any::<String>().prop_map(toml::Value::String),
        prop_oneof![
            Just("docker"),
            Just("unsafe-local"),
            Just("local"),
            Just("4g"),
            Just("0"),
            Just("*"),
            Just("**.example.com"),
            Just("https://x.example/v1"),
            Just(""),
            Just("../.."),
            Just("~"),
            Just("/"),
            Just("DEBUG"),
            Just("chat"),
            Just("sk-123"),
            Just("notebooks/a.py"),
        ]
        .prop_map(|s| toml::Value::String(s.to_owned())),
        any::<i64>().prop_map(toml::Value::Integer),
        any::<f64>().prop_map(toml::Value::Float),
        any::<bool>().prop_map(toml::Value::Boolean),
    ];
    prop_oneof![
        6 => leaf.clone(),
        1 => prop::collection::vec(leaf.clone(), 0..4).prop_map(toml::Value::Array),
        1 => prop::collection::btree_map("[a-zA-Z_ -]{0,8}", leaf, 0..4)
            .prop_map(|map| toml::Value::Table(map.into_iter().collect())),
    ]
}

/// A key of the schema (any section's), a retired or secret one, or noise.
fn any_key() -> impl Strategy<Value = String> {
    let schema_keys: Vec<String> = SCHEMA
        .iter()
        .flat_map(|(_, keys)| keys.iter().map(|k| (*k).to_owned()))
        .chain(["api_key", "marimo_url", "runtime", "token"].map(str::to_owned))
        .collect();
    prop_oneof![
        4 => prop::sample::select(schema_keys),
        1 => "[a-z_]{1,12}",
    ]
}

fn any_section() -> impl Strategy<Value = String> {
    let names: Vec<String> = SCHEMA
        .iter()
        .map(|(name, _)| (*name).to_owned())
        .chain(["model_providers.acme", "model_providers.openai", "kernal"].map(str::to_owned))
        .collect();
    prop::sample::select(names)
}

fn any_document() -> impl Strategy<Value = String> {
    prop::collection::vec(
        (
            any_section(),
            prop::collection::vec((any_key(), any_value()), 0..6),
        ),
        0..6,
    )
    .prop_map(|sections| {
        let mut root = toml::Table::new();
        for (section, entries) in sections {
            let mut table = toml::Table::new();
            for (key, value) in entries {
                table.insert(key, value);
            }
            insert_dotted(&mut root, &section, table);
        }
        toml::to_string(&root).unwrap_or_default()
    })
}

fn insert_dotted(root: &mut toml::Table, dotted: &str, table: toml::Table) {
    match dotted.split_once('.') {
        Some((head, rest)) => {
            let entry = root
                .entry(head.to_owned())
                .or_insert_with(|| toml::Value::Table(toml::Table::new()));
            if let toml::Value::Table(inner) = entry {
                insert_dotted(inner, rest, table);
            }
        }
        None => {
            root.insert(dotted.to_owned(), toml::Value::Table(table));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        let scratch = Scratch::with_config(&bytes);
        let report = check(&scratch.inputs());
        // Every problem says where and how to fix it.
        for problem in report.all() {
            prop_assert!(!problem.message.is_empty() && !problem.hint.is_empty());
        }
    }

    #[test]
    fn schema_shaped_documents_never_panic(doc in any_document(), kernel in "[a-z-]{0,14}") {
        let scratch = Scratch::with_config(doc.as_bytes());
        let mut inputs = scratch.inputs();
        inputs.env = ClientEnv::from_pairs([("HAILER_KERNEL", kernel)]);
        let report = check(&inputs);
        let loaded = load(&inputs);
        // load fails exactly when check finds something fatal in the configuration itself.
        let config_fatal = report.fatal.iter().any(|p| p.area == hailer_config::Area::Config);
        prop_assert_eq!(loaded.is_err(), config_fatal, "{:#?}", report);
        for problem in report.all() {
            let from_file = matches!(problem.origin, hailer_config::Origin::File { .. });
            prop_assert!(!from_file || problem.message.starts_with("hailer.toml"), "{}", problem);
        }
    }

    #[test]
    fn domain_rules_round_trip_and_never_panic(entry in "\\PC{0,40}", host in "\\PC{0,40}") {
        if let Ok(rule) = DomainRule::parse(&entry) {
            prop_assert_eq!(DomainRule::parse(&rule.to_string()), Ok(rule.clone()));
            let _ = rule.matches(&host);
        }
    }

    #[test]
    fn memory_limits_never_panic(text in "\\PC{0,30}") {
        if let Ok(limit) = MemoryLimit::parse(&text) {
            prop_assert!(limit.bytes >= hailer_config::KERNEL_MINIMUM_BYTES);
        }
    }
}

//! The environment a kernel gets: the parent's, minus every variable that looks like a secret by
//! its name or holds a URL with credentials (`HTTPS_PROXY=http://user:password@proxy`).
//!
//! There is deliberately no way to let a secret-looking name through.

use std::collections::BTreeMap;

/// The environment for a kernel, and what was left out of it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScrubbedEnv {
    /// The variables the kernel may see.
    pub vars: BTreeMap<String, String>,
    /// The names that were withheld (names only: values never leave the parent map), sorted.
    pub withheld: Vec<String>,
}

impl ScrubbedEnv {
    /// How many variables were withheld.
    pub fn withheld_count(&self) -> usize {
        self.withheld.len()
    }
}

/// Whether a variable of this name holds a secret: the one rule, shared with the redactor.
pub(crate) use hailer_redact::is_secret_name;

/// Whether `name` is withheld from a kernel, given the caller's extra names (each provider's
/// key variable, `OPENAI_API_KEY`, the variables named by HTTP-header settings).
pub(crate) fn is_withheld(name: &str, extra_names: &[&str]) -> bool {
    is_secret_name(name)
        || extra_names
            .iter()
            .any(|extra| extra.eq_ignore_ascii_case(name))
}

/// Builds the kernel's environment from an explicit parent map (never read from the process
/// here, so callers and tests decide what the parent is).
pub fn scrub_environment<I>(parent: I, extra_names: &[&str]) -> ScrubbedEnv
where
    I: IntoIterator<Item = (String, String)>,
{
    let mut scrubbed = ScrubbedEnv::default();
    for (name, value) in parent {
        if is_withheld(&name, extra_names) || hailer_redact::has_url_credentials(&value) {
            scrubbed.withheld.push(name);
        } else {
            scrubbed.vars.insert(name, value);
        }
    }
    scrubbed.withheld.sort();
    scrubbed.withheld.dedup();
    scrubbed
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use hailer_redact::{EXACT_NAMES, SECRET_SUFFIXES};
    use proptest::prelude::*;

    fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn withholds_each_rule_and_keeps_the_rest() {
        let cases: &[(&str, bool)] = &[
            ("PASSWORD", true),
            ("password", true),
            ("SECRET", true),
            ("Token", true),
            ("PGPASSWORD", true),
            ("MYSQL_PWD", true),
            ("OPENAI_API_KEY", true),
            ("aws_secret_access_key", true),
            ("GITHUB_TOKEN", true),
            ("DJANGO_SECRET", true),
            ("DB_PASSWORD", true),
            ("FTP_PASSWD", true),
            ("SMB_PWD", true),
            ("GOOGLE_APPLICATION_CREDENTIALS", true),
            ("AZURE_STORAGE_CONNECTION_STRING", true),
            ("MAPSAPIKEY", true),
            ("mapsApiKey", true),
            ("FAKE_LLM_KEY", true),
            ("PATH", false),
            ("HOME", false),
            ("LANG", false),
            ("KEYBOARD", false),
            ("TOKENIZERS_PARALLELISM", false),
            ("PASSWORD_HINT", false),
            ("MY_KEYS", false),
            ("SECRETARY", false),
            ("KEY", false),
        ];
        for (name, withheld) in cases {
            assert_eq!(is_withheld(name, &[]), *withheld, "{name}");
        }
    }

    #[test]
    fn extra_names_are_withheld_in_any_case() {
        let parent = env(&[
            ("MY_PROVIDER_AUTH", "a"),
            ("corp_header_value", "b"),
            ("PATH", "/bin"),
        ]);
        let scrubbed = scrub_environment(parent, &["my_provider_auth", "CORP_HEADER_VALUE"]);
        assert_eq!(
            scrubbed.withheld,
            vec!["MY_PROVIDER_AUTH", "corp_header_value"]
        );
        assert_eq!(scrubbed.withheld_count(), 2);
        assert_eq!(scrubbed.vars.len(), 1);
        assert_eq!(scrubbed.vars.get("PATH").map(String::as_str), Some("/bin"));
    }

    #[test]
    fn a_url_with_credentials_is_withheld_whatever_its_name() {
        let parent = env(&[
            ("HTTPS_PROXY", "http://user:s3cretpass@proxy.example:3128"),
            ("PIP_INDEX_URL", "https://ana:pw@m.example/simple"),
            ("HTTP_PROXY", "http://proxy.example:3128"),
        ]);
        let scrubbed = scrub_environment(parent, &[]);
        assert_eq!(scrubbed.withheld, vec!["HTTPS_PROXY", "PIP_INDEX_URL"]);
        assert_eq!(
            scrubbed.vars.get("HTTP_PROXY").map(String::as_str),
            Some("http://proxy.example:3128")
        );
    }

    #[test]
    fn empty_parent_gives_empty_env() {
        let scrubbed = scrub_environment(Vec::new(), &["X"]);
        assert!(scrubbed.vars.is_empty());
        assert_eq!(scrubbed.withheld_count(), 0);
    }

    proptest! {
        #[test]
        fn every_variable_is_kept_or_counted_and_no_secret_survives(
            names in proptest::collection::btree_set("[A-Za-z_][A-Za-z0-9_]{0,24}", 0..40),
        ) {
            let parent: Vec<(String, String)> =
                names.iter().map(|n| (n.clone(), format!("value-of-{n}"))).collect();
            let scrubbed = scrub_environment(parent, &["EXTRA_NAME"]);
            prop_assert_eq!(scrubbed.vars.len() + scrubbed.withheld_count(), names.len());
            for name in scrubbed.vars.keys() {
                let upper = name.to_ascii_uppercase();
                prop_assert!(!SECRET_SUFFIXES.iter().any(|s| upper.ends_with(s)), "{}", name);
                prop_assert!(!EXACT_NAMES.contains(&upper.as_str()), "{}", name);
                prop_assert!(upper != "EXTRA_NAME");
            }
            for name in &scrubbed.withheld {
                prop_assert!(is_withheld(name, &["EXTRA_NAME"]));
            }
        }

        #[test]
        fn a_secret_suffix_is_withheld_whatever_comes_before(
            prefix in "[A-Za-z0-9_]{0,20}",
            suffix_index in 0usize..SECRET_SUFFIXES.len(),
            lower in any::<bool>(),
        ) {
            let mut name = format!("{prefix}{}", SECRET_SUFFIXES[suffix_index]);
            if lower {
                name = name.to_ascii_lowercase();
            }
            prop_assert!(is_withheld(&name, &[]));
        }
    }
}

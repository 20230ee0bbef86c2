#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use proptest::prelude::*;

#[test]
fn patterns_mask_credentials() {
    let redactor = Redactor::default();
    let cases = [
        ("Authorization: Bearer abc.def", "Authorization: [redacted]"),
        (
            "\"authorization\": \"Basic xyz\"",
            "\"authorization\": \"[redacted]\"",
        ),
        ("'Authorization': 'xyz123'", "'Authorization': '[redacted]'"),
        ("sent bearer 0123456789abcdef", "sent bearer [redacted]"),
        ("key sk-proj-ABCdef123456 used", "key sk-[redacted] used"),
        ("shown as sk-proj-****abcd", "shown as sk-[redacted]"),
        (
            "http://h/?access_token=abc&x=1",
            "http://h/?access_token=[redacted]&x=1",
        ),
        (
            "http://127.0.0.1:1/#token=deadbeef",
            "http://127.0.0.1:1/#token=[redacted]",
        ),
        (
            "proxy http://user:s3cretpass@proxy.example:3128 refused",
            "proxy http://user:[redacted]@proxy.example:3128 refused",
        ),
        (
            "https://:tok3n-only@pypi.example/simple",
            "https://:[redacted]@pypi.example/simple",
        ),
        (
            "git@github.com:a/b and ssh://git@host/x",
            "git@github.com:a/b and ssh://git@host/x",
        ),
        ("nothing here", "nothing here"),
    ];
    for (input, expected) in cases {
        assert_eq!(redactor.redact(input), expected, "{input}");
    }
}

#[test]
fn nothing_to_mask_borrows_the_text() {
    let redactor = Redactor::new(["a-long-secret"]);
    assert!(matches!(redactor.redact("plain words"), Cow::Borrowed(_)));
}

#[test]
fn secrets_and_key_shapes_are_redacted_together() {
    let redactor = Redactor::new(["super-secret-value", "short"]);
    let text = "key super-secret-value, Authorization: Bearer abc.def, \
                \"authorization\": \"xyz123\", sk-proj-ABCDEF123456 and short";
    let clean = redactor.redact(text);
    for secret in ["super-secret-value", "abc.def", "xyz123", "ABCDEF123456"] {
        assert!(!clean.contains(secret), "{clean}");
    }
    assert!(
        clean.contains("short"),
        "short values are not searched for: {clean}"
    );
    assert!(clean.contains(MASK));
}

#[test]
fn secret_env_values_are_masked_and_others_kept() {
    let redactor = Redactor::with_env([
        ("MY_API_KEY", "value-of-the-key"),
        ("db_password", "hunter2hunter2"),
        ("GITHUB_TOKEN", "ghp_0123456789"),
        ("CLIENT_SECRET", "s3cr3t-value"),
        ("HOME", "/home/someone"),
        ("SHORT_KEY", "abc"),
    ]);
    let line =
        "k=value-of-the-key p=hunter2hunter2 t=ghp_0123456789 s=s3cr3t-value h=/home/someone x=abc";
    assert_eq!(
        redactor.redact(line),
        "k=[redacted] p=[redacted] t=[redacted] s=[redacted] h=/home/someone x=abc"
    );
}

#[test]
fn the_name_rule() {
    let cases = [
        ("MY_API_KEY", true),
        ("PGPASSWORD", true),
        ("MYSQL_PWD", true),
        ("AZURE_CREDENTIALS", true),
        ("DB_CONNECTION_STRING", true),
        ("SERVICEAPIKEY", true),
        ("token", true),
        ("github_token", true),
        ("HOME", false),
        ("PATH", false),
        ("KEYBOARD", false),
        ("TOKENIZERS_PARALLELISM", false),
    ];
    for (name, secret) in cases {
        assert_eq!(is_secret_name(name), secret, "{name}");
        let redactor = Redactor::with_env([(name, "a-long-secret-value")]);
        assert_eq!(
            redactor.redact("v=a-long-secret-value") == "v=[redacted]",
            secret,
            "{name}"
        );
    }
}

#[test]
fn added_secrets_are_shared_between_clones_and_the_longest_goes_whole() {
    let redactor = Redactor::default();
    let clone = redactor.clone();
    redactor.add_secret("per-run-token-value");
    redactor.add_secret("per-run-token-value-longer");
    redactor.add_secret("  padded-secret \n");
    assert_eq!(clone.redact("t=per-run-token-value"), "t=[redacted]");
    assert_eq!(clone.redact("t=per-run-token-value-longer"), "t=[redacted]");
    assert_eq!(clone.redact("p=padded-secret"), "p=[redacted]");
    assert_eq!(format!("{clone:?}"), "Redactor { secrets: 3 }");
}

proptest! {
    #[test]
    fn a_registered_secret_is_gone_wherever_it_is(
        prefix in ".{0,40}", suffix in ".{0,40}", secret in "[A-Za-z0-9]{6,40}"
    ) {
        let redactor = Redactor::new([secret.clone()]);
        let text = format!("{prefix}{secret}{suffix}");
        let clean = redactor.redact(&text);
        prop_assert!(!clean.contains(&secret));
    }
}

#[test]
fn a_url_with_credentials_is_a_secret_whatever_its_name() {
    let cases = [
        (
            "HTTPS_PROXY",
            "http://user:s3cretpass@proxy.example:3128",
            true,
        ),
        ("PIP_INDEX_URL", "https://ana:pw@m.example/simple", true),
        ("HTTPS_PROXY", "http://proxy.example:3128", false),
        ("PIP_INDEX_URL", "https://ana@m.example/simple", false),
        ("DATABASE_URL", "postgres://app:hunter22@db/x", true),
        ("PATH", "/usr/bin:/bin", false),
        ("NOTE", "mailto:someone@example.com", false),
        ("MY_TOKEN", "plain", true),
    ];
    for (name, value, secret) in cases {
        assert_eq!(is_secret_variable(name, value), secret, "{name}={value}");
    }
    let redactor = Redactor::with_env([
        ("HTTPS_PROXY", "http://user:s3cretpass@proxy.example:3128"),
        ("NO_PROXY", "127.0.0.1,localhost"),
    ]);
    assert_eq!(
        redactor.redact("via http://user:s3cretpass@proxy.example:3128, password s3cretpass"),
        "via [redacted], password [redacted]"
    );
    assert_eq!(
        redactor.redact("127.0.0.1,localhost"),
        "127.0.0.1,localhost"
    );
}

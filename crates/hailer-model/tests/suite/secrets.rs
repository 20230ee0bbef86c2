//! The key never shows: not in Debug output, not in error messages, even when the endpoint
//! echoes it.

use hailer_model::{Item, ModelError, Redactor, WireApi};
use hailer_scripted_model::{Fault, Script};
use secrecy::SecretString;

use super::support::{KEY, MODES, client, failure, label, request, settings, start};

#[tokio::test]
async fn debug_output_never_holds_the_key_or_secret_headers() {
    let server = start(Script::new()).await;
    let mut provider = settings(&server, WireApi::Responses, true);
    provider
        .env_http_headers
        .insert("X-Token".to_owned(), SecretString::from("header-secret-77"));
    let debug = format!("{provider:?} {:?}", client(provider.clone()));
    assert!(!debug.contains(KEY), "{debug}");
    assert!(!debug.contains("header-secret-77"), "{debug}");
    assert!(debug.contains("scripted"), "{debug}");
}

#[tokio::test]
async fn errors_never_hold_the_key_even_when_the_endpoint_echoes_it() {
    let echoes = [
        Fault::status(401).message("Incorrect API key provided: {api_key}."),
        Fault::status(400).message("Bad header Authorization: Bearer {api_key}"),
        Fault::status(500).message("upstream failed for key {api_key}"),
    ];
    for (wire, stream) in MODES {
        for fault in &echoes {
            let mode = format!("{} {}", label(wire, stream), fault.status);
            let server = start(
                Script::new()
                    .fault(fault.clone())
                    .fault(fault.clone())
                    .fault(fault.clone()),
            )
            .await;
            let error = failure(
                &client(settings(&server, wire, stream)),
                &request(vec![Item::user("x")]),
            )
            .await;
            let shown = format!("{error} {error:?}");
            assert!(!shown.contains(KEY), "{mode}: {shown}");
            assert!(!shown.contains("4f9c2a7b"), "{mode}: {shown}");
            assert!(shown.contains("[redacted]"), "{mode}: {shown}");
        }
    }
}

#[tokio::test]
async fn other_key_shaped_text_is_redacted_too() {
    let server = start(
        Script::new()
            .fault(Fault::status(401).message("Key sk-proj-AAAABBBBCCCCDDDD1111 is revoked.")),
    )
    .await;
    let error = failure(
        &client(settings(&server, WireApi::Chat, false)),
        &request(vec![Item::user("x")]),
    )
    .await;
    assert!(matches!(error, ModelError::Unauthorized { .. }));
    assert!(!error.to_string().contains("AAAABBBB"), "{error}");
    let redactor = Redactor::new([KEY.to_owned()]);
    assert_eq!(redactor.redact(&format!("k={KEY}")), "k=[redacted]");
}

//! The key never shows: not in turn events, not in errors, not in any `Debug` output.

use std::collections::BTreeMap;

use hailer_agent::CredentialsStore;
use hailer_agent::{Credentials, TurnOutcome, TurnSettings};
use hailer_model::WireApi;
use hailer_scripted_model::{Fault, Script};
use secrecy::SecretString;
use serde_json::json;

use super::credentials::{FROM_ENV, FakeKeyring, STORED};
use super::support::{KEY, MODES, Workspace, client, label, registry, start};

#[tokio::test]
async fn an_endpoint_echoing_the_key_does_not_leak_it_into_events_or_errors() {
    for (wire, stream) in MODES {
        let mode = label(wire, stream);
        let script = Script::new()
            .tool_call("echo", json!({"text": "fine"}))
            .fault(Fault::status(401).message("Incorrect API key provided: {api_key}."));
        let server = start(script).await;
        let client = client(&server, wire, stream);
        let mut workspace = Workspace::new();
        let (outcome, events) = workspace
            .turn(&client, &registry(), &TurnSettings::default(), "go")
            .await;
        assert_eq!(
            server.requests()[0].bearer_token(),
            Some(KEY),
            "{mode}: the key was sent"
        );
        let TurnOutcome::Failed { message, .. } = &outcome else {
            panic!("{mode}: {outcome:?}");
        };
        assert!(message.contains("HTTP 401"), "{mode}: {message}");
        let everything = format!("{outcome:?} {events:?} {client:?} {:?}", workspace.store);
        assert!(!everything.contains(KEY), "{mode}: {everything}");
        assert!(
            !everything.contains(&KEY[8..]),
            "{mode}: a part of the key leaked"
        );
    }
}

#[test]
fn resolved_keys_and_credential_objects_hide_the_key_in_debug() {
    let dir = tempfile::tempdir().unwrap();
    let credentials =
        Credentials::with_keyring(CredentialsStore::Auto, dir.path(), FakeKeyring::default());
    credentials
        .store_key("p", "P_KEY", &SecretString::from(STORED))
        .unwrap();
    let from_store = credentials.resolve_key("p", "P_KEY", &BTreeMap::new());
    let env: BTreeMap<String, String> = [("P_KEY".to_owned(), FROM_ENV.to_owned())].into();
    let from_env = credentials.resolve_key("p", "P_KEY", &env);
    let shown = format!("{from_store:?} {from_env:?} {credentials:?}");
    assert!(!shown.contains(STORED), "{shown}");
    assert!(!shown.contains(FROM_ENV), "{shown}");
    assert!(from_store.is_ok() && from_env.is_ok());
}

#[tokio::test]
async fn tool_events_do_not_carry_the_key_of_the_request() {
    let server = start(Script::new().reply_text("ok")).await;
    let client = client(&server, WireApi::Chat, true);
    let mut workspace = Workspace::new();
    let (_, events) = workspace
        .turn(&client, &registry(), &TurnSettings::default(), "hello")
        .await;
    assert!(!format!("{events:?}").contains(KEY));
}

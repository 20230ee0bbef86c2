//! The committed OpenAPI document (docs/openapi.json) must match what the code generates.
//! Run with HAILER_UPDATE_OPENAPI=1 to rewrite it after changing the API.

use std::path::PathBuf;

#[test]
fn committed_openapi_document_matches_the_code() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/openapi.json");
    let generated = format!("{}\n", hailerd::openapi_json());
    if std::env::var_os("HAILER_UPDATE_OPENAPI").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "docs/openapi.json is out of date; regenerate it with \
         HAILER_UPDATE_OPENAPI=1 cargo test -p hailerd --test all openapi"
    );
    let document: serde_json::Value = serde_json::from_str(&generated).unwrap();
    for route in [
        "/v1/daemon",
        "/v1/daemon/shutdown",
        "/v1/events",
        "/v1/openapi.json",
    ] {
        assert!(
            document["paths"].get(route).is_some(),
            "{route} undocumented"
        );
    }
}

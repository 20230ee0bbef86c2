//! A reply the endpoint cut off (`finish_reason: "length"` on Chat, `status: "incomplete"` on
//! Responses) fails the same way on both wires, with the fix; the output-token limit goes in the
//! field each wire uses.

use hailer_model::{Item, ModelError, WireApi};
use hailer_scripted_model::{Reply, Script};
use serde_json::json;

use super::support::{MODES, client, failure, label, request, settings, start};

#[tokio::test]
async fn a_cut_off_reply_fails_alike_on_both_wires() {
    for limit in [None, Some(64)] {
        for (wire, stream) in MODES {
            let mode = format!("{} limit={limit:?}", label(wire, stream));
            let script = Script::new().reply(Reply::text("The total is made of").cut_off());
            let server = start(script).await;
            let mut settings = settings(&server, wire, stream);
            settings.max_output_tokens = limit;
            let error = failure(&client(settings), &request(vec![Item::user("total?")])).await;
            assert!(
                matches!(error, ModelError::CutOff { .. }),
                "{mode}: {error:?}"
            );
            let text = error.to_string();
            assert!(
                text.starts_with("The model's answer was cut off before it ended:"),
                "{mode}: {text}"
            );
            match limit {
                Some(limit) => {
                    assert!(
                        text.contains(&format!("the limit of {limit} output tokens")),
                        "{mode}: {text}"
                    );
                    assert!(
                        text.contains("Raise max_output_tokens for provider 'scripted'"),
                        "{mode}: {text}"
                    );
                }
                None => assert!(
                    text.contains("set max_output_tokens for provider 'scripted'"),
                    "{mode}: {text}"
                ),
            }
            assert!(!error.is_retryable(), "{mode}");
            assert_eq!(server.requests().len(), 1, "{mode}: sent once");
        }
    }
}

#[tokio::test]
async fn the_output_limit_goes_in_the_field_of_each_wire() {
    for (wire, stream) in MODES {
        let mode = label(wire, stream);
        let server = start(Script::new().reply_text("Short.")).await;
        let mut settings = settings(&server, wire, stream);
        settings.max_output_tokens = Some(4096);
        let body = client(settings).request_body(&request(vec![Item::user("hi")]));
        let (field, other) = match wire {
            WireApi::Responses => ("max_output_tokens", "max_tokens"),
            WireApi::Chat => ("max_tokens", "max_output_tokens"),
        };
        assert_eq!(body[field], json!(4096), "{mode}: {body}");
        assert!(body.get(other).is_none(), "{mode}: {body}");
        assert!(
            body.get("max_completion_tokens").is_none(),
            "{mode}: {body}"
        );
    }
}

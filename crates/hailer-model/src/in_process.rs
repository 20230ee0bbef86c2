//! A model that answers inside this process, with no endpoint: Hailer's scripted demo model.
//! Its replies go through the same events as an endpoint's, so the turn loop, the tools and
//! every client treat them alike.

use std::sync::Arc;

use tokio::sync::mpsc;

use crate::conversation::ModelRequest;
use crate::error::Result;
use crate::events::{Completion, ModelEvent};

/// A model in this process.
pub trait LocalModel: Send + Sync + 'static {
    /// The complete reply to `request` (text, tool calls, or both).
    fn reply(&self, request: &ModelRequest) -> Completion;
}

/// Sends `model`'s reply to `request` as events: the text a line at a time, then each tool
/// call, the usage, and the completion.
pub(crate) fn answer(
    model: Arc<dyn LocalModel>,
    request: ModelRequest,
    tx: mpsc::Sender<Result<ModelEvent>>,
) {
    tokio::spawn(async move {
        let completion = model.reply(&request);
        let mut events: Vec<ModelEvent> = completion
            .text
            .split_inclusive('\n')
            .map(|line| ModelEvent::TextDelta(line.to_owned()))
            .collect();
        for call in &completion.tool_calls {
            events.push(ModelEvent::ToolCallStarted {
                call_id: call.call_id.clone(),
                name: call.name.clone(),
            });
            events.push(ModelEvent::ToolCallDone {
                call_id: call.call_id.clone(),
                name: call.name.clone(),
                arguments: call.arguments.clone(),
            });
        }
        if let Some(usage) = completion.usage {
            events.push(ModelEvent::Usage(usage));
        }
        events.push(ModelEvent::Completed(completion));
        for event in events {
            if tx.send(Ok(event)).await.is_err() {
                return;
            }
        }
    });
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::ModelClient;
    use crate::conversation::{Item, ToolCall, Usage};
    use crate::settings::{ProviderSettings, WireApi};

    struct Echo;

    impl LocalModel for Echo {
        fn reply(&self, request: &ModelRequest) -> Completion {
            let asked = match request.items.last() {
                Some(Item::User(text)) => text.clone(),
                _ => String::new(),
            };
            Completion {
                text: format!("you said:\n{asked}\n"),
                tool_calls: vec![ToolCall {
                    call_id: "c1".to_owned(),
                    name: "marimo_status".to_owned(),
                    arguments: "{}".to_owned(),
                }],
                usage: Some(Usage::default()),
            }
        }
    }

    #[tokio::test]
    async fn a_local_model_streams_through_the_same_events() {
        let settings =
            ProviderSettings::new("demo", "http://unused.invalid", WireApi::Responses, "echo");
        let client = ModelClient::local(settings, Arc::new(Echo));
        assert!(client.is_local());
        let request = ModelRequest {
            items: vec![Item::user("hello")],
            ..ModelRequest::default()
        };
        let mut events = client.stream(&request);
        let mut seen = Vec::new();
        while let Some(event) = events.recv().await {
            seen.push(event.unwrap());
        }
        assert_eq!(
            seen[..2],
            [
                ModelEvent::TextDelta("you said:\n".to_owned()),
                ModelEvent::TextDelta("hello\n".to_owned())
            ]
        );
        assert!(matches!(seen[2], ModelEvent::ToolCallStarted { .. }));
        assert!(matches!(seen.last(), Some(ModelEvent::Completed(c)) if c.tool_calls.len() == 1));
        let whole = client.complete(&request).await.unwrap();
        assert_eq!(whole.text, "you said:\nhello\n");
    }
}

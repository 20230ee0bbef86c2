//! The scripted demo model: `wire_api = "demo"` in a provider (written only by `hailer demo`)
//! makes the agent use this model, inside the daemon, instead of an endpoint. It calls the real
//! tools through the real turn loop; only its choices are scripted (`hailer_demo::next_tour_move`).

use hailer_demo::TourMove as Move;
use hailer_model::{Completion, Item, LocalModel, ModelRequest, ToolCall, Usage};

/// The tour, as a model.
#[derive(Debug, Default)]
pub(super) struct DemoModel;

impl LocalModel for DemoModel {
    fn reply(&self, request: &ModelRequest) -> Completion {
        let last_user = request
            .items
            .iter()
            .rposition(|item| matches!(item, Item::User(_)));
        let (message, results) = match last_user {
            Some(at) => {
                let message = match &request.items[at] {
                    Item::User(text) => text.as_str(),
                    _ => "",
                };
                let results: Vec<&str> = request.items[at + 1..]
                    .iter()
                    .filter_map(|item| match item {
                        Item::ToolResult(result) => Some(result.output.as_str()),
                        _ => None,
                    })
                    .collect();
                (message, results)
            }
            None => ("", Vec::new()),
        };
        // A scripted model reads no tokens and writes none.
        let usage = Some(Usage::default());
        match hailer_demo::next_tour_move(message, &results) {
            Move::Call { step, arguments } => Completion {
                text: String::new(),
                tool_calls: vec![ToolCall {
                    call_id: call_id(step),
                    name: hailer_demo::TOUR_TOOL.to_owned(),
                    arguments,
                }],
                usage,
            },
            Move::Answer(text) => Completion {
                text,
                tool_calls: Vec::new(),
                usage,
            },
        }
    }
}

/// A call id no other call of the conversation has.
fn call_id(step: usize) -> String {
    let mut bytes = [0u8; 6];
    rand::fill(&mut bytes);
    format!("demo_{step}_{}", hex::encode(bytes))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn the_model_takes_the_step_after_the_last_result() {
        let mut request = ModelRequest {
            items: vec![Item::user(hailer_demo::TOUR_QUESTION)],
            ..ModelRequest::default()
        };
        let first = DemoModel.reply(&request);
        assert_eq!(first.tool_calls.len(), 1);
        assert_eq!(first.tool_calls[0].name, "marimo_execute");
        assert!(first.tool_calls[0].arguments.contains("describe_periods"));
        request
            .items
            .push(Item::assistant("", first.tool_calls.clone()));
        request.items.push(Item::tool_result(
            &first.tool_calls[0].call_id,
            "sales.csv (csv, 9 bytes)",
        ));
        let second = DemoModel.reply(&request);
        assert!(second.tool_calls[0].arguments.contains("load_sales"));
        assert_ne!(second.tool_calls[0].call_id, first.tool_calls[0].call_id);

        // A new message that is not about the tour starts nothing.
        request.items.push(Item::user("and the weather?"));
        let other = DemoModel.reply(&request);
        assert!(other.tool_calls.is_empty());
        assert!(other.text.contains("scripted demo model"));
    }
}

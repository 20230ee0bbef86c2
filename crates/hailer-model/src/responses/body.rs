//! The request body: model, input, tools, stream and, when set, reasoning and
//! `max_output_tokens`. Nothing else: no `parallel_tool_calls`, no temperature.

use serde_json::{Map, Value, json};

use crate::conversation::{Item, ModelRequest, ToolSpec};
use crate::settings::ProviderSettings;

fn input_items(request: &ModelRequest) -> Vec<Value> {
    let mut input = Vec::with_capacity(request.items.len() + 1);
    if !request.instructions.is_empty() {
        input.push(json!({"role": "system", "content": request.instructions}));
    }
    for item in &request.items {
        match item {
            Item::User(text) => input.push(json!({"role": "user", "content": text})),
            Item::Assistant(message) => {
                if !message.text.is_empty() {
                    input.push(json!({"role": "assistant", "content": message.text}));
                }
                for call in &message.tool_calls {
                    input.push(json!({
                        "type": "function_call",
                        "call_id": call.call_id,
                        "name": call.name,
                        "arguments": call.arguments,
                    }));
                }
            }
            Item::ToolResult(result) => input.push(json!({
                "type": "function_call_output",
                "call_id": result.call_id,
                "output": result.output,
            })),
        }
    }
    input
}

fn tool(spec: &ToolSpec) -> Value {
    // The Responses API makes function tools strict unless told otherwise; ours are plain.
    json!({
        "type": "function",
        "name": spec.name,
        "description": spec.description,
        "parameters": spec.parameters,
        "strict": false,
    })
}

pub(crate) fn request_body(settings: &ProviderSettings, request: &ModelRequest) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(settings.model));
    body.insert("input".into(), Value::Array(input_items(request)));
    if !request.tools.is_empty() {
        let tools = request.tools.iter().map(tool).collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    body.insert("stream".into(), json!(settings.stream));
    if let Some(effort) = request.reasoning_effort {
        body.insert("reasoning".into(), json!({"effort": effort.as_str()}));
    }
    if let Some(limit) = settings.max_output_tokens {
        body.insert("max_output_tokens".into(), json!(limit));
    }
    Value::Object(body)
}

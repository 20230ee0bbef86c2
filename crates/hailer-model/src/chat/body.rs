//! The request body: model, messages, tools, stream and, only when asked for, `stream_options`,
//! `reasoning_effort` and `max_tokens`. Nothing else: no `parallel_tool_calls`, no temperature.

use serde_json::{Map, Value, json};

use crate::conversation::{Item, ModelRequest, ToolSpec};
use crate::settings::ProviderSettings;

fn messages(request: &ModelRequest) -> Vec<Value> {
    let mut messages = Vec::with_capacity(request.items.len() + 1);
    if !request.instructions.is_empty() {
        messages.push(json!({"role": "system", "content": request.instructions}));
    }
    for item in &request.items {
        match item {
            Item::User(text) => messages.push(json!({"role": "user", "content": text})),
            Item::Assistant(message) => {
                let mut entry = json!({"role": "assistant"});
                entry["content"] = if message.text.is_empty() && !message.tool_calls.is_empty() {
                    Value::Null
                } else {
                    json!(message.text)
                };
                if !message.tool_calls.is_empty() {
                    let calls = message.tool_calls.iter().map(|call| {
                        json!({
                            "id": call.call_id,
                            "type": "function",
                            "function": {"name": call.name, "arguments": call.arguments},
                        })
                    });
                    entry["tool_calls"] = Value::Array(calls.collect());
                }
                messages.push(entry);
            }
            Item::ToolResult(result) => messages.push(json!({
                "role": "tool",
                "tool_call_id": result.call_id,
                "content": result.output,
            })),
        }
    }
    messages
}

fn tool(spec: &ToolSpec) -> Value {
    json!({
        "type": "function",
        "function": {
            "name": spec.name,
            "description": spec.description,
            "parameters": spec.parameters,
        },
    })
}

pub(crate) fn request_body(settings: &ProviderSettings, request: &ModelRequest) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(settings.model));
    body.insert("messages".into(), Value::Array(messages(request)));
    if !request.tools.is_empty() {
        let tools = request.tools.iter().map(tool).collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    body.insert("stream".into(), json!(settings.stream));
    if settings.include_usage() {
        body.insert("stream_options".into(), json!({"include_usage": true}));
    }
    if let Some(effort) = request.reasoning_effort {
        body.insert("reasoning_effort".into(), json!(effort.as_str()));
    }
    // `max_tokens`, not its newer name `max_completion_tokens`: every OpenAI-compatible server
    // honours `max_tokens` (vLLM, llama.cpp, Ollama, llamafile, LiteLLM, OpenRouter), while several
    // silently ignore `max_completion_tokens` (llama.cpp until 2026, llamafile,
    // llama-cpp-python), and a limit that is silently dropped is the failure this setting exists
    // to prevent. OpenAI's reasoning models refuse `max_tokens` loudly, with a 400 whose hint
    // names max_output_tokens; OpenAI itself is best reached on the Responses wire.
    if let Some(limit) = settings.max_output_tokens {
        body.insert("max_tokens".into(), json!(limit));
    }
    Value::Object(body)
}

//! The history checks strict endpoints make: every tool call answered before the conversation goes
//! on, no tool result without its call, no two user messages in a row.

use std::collections::BTreeSet;

use serde_json::Value;

/// Which wire API a request came in on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Wire {
    /// The Responses API, `POST /v1/responses`: the conversation is in `input`.
    Responses,
    /// Chat Completions, `POST /v1/chat/completions`: the conversation is in `messages`.
    Chat,
}

/// Checks a request body; `Err` holds the message of a 400 answer.
pub fn check_request(wire: Wire, body: &Value) -> Result<(), String> {
    if !body.get("model").is_some_and(Value::is_string) {
        return Err("Missing required parameter: 'model'.".to_owned());
    }
    let list_key = match wire {
        Wire::Responses => "input",
        Wire::Chat => "messages",
    };
    let Some(items) = body.get(list_key).and_then(Value::as_array) else {
        return Err(format!(
            "Missing required parameter: '{list_key}' (an array)."
        ));
    };
    let mut history = HistoryCheck::default();
    for item in items {
        match wire {
            Wire::Responses => history.responses_item(item)?,
            Wire::Chat => history.chat_message(item)?,
        }
    }
    history.finish()
}

#[derive(Default)]
struct HistoryCheck {
    pending_calls: BTreeSet<String>,
    answered_calls: BTreeSet<String>,
    last_was_user: bool,
}

impl HistoryCheck {
    fn call(&mut self, call_id: Option<&str>) -> Result<(), String> {
        let call_id = call_id.ok_or("A tool call has no call id.")?;
        self.pending_calls.insert(call_id.to_owned());
        self.last_was_user = false;
        Ok(())
    }

    fn result(&mut self, call_id: Option<&str>) -> Result<(), String> {
        let call_id = call_id.ok_or("A tool result has no call id.")?;
        if !self.pending_calls.remove(call_id) {
            let why = if self.answered_calls.contains(call_id) {
                "was already answered"
            } else {
                "has no matching tool call before it"
            };
            return Err(format!("The tool result for call '{call_id}' {why}."));
        }
        self.answered_calls.insert(call_id.to_owned());
        self.last_was_user = false;
        Ok(())
    }

    fn message(&mut self, role: &str) -> Result<(), String> {
        if let Some(call_id) = self.pending_calls.first() {
            return Err(format!(
                "The tool call '{call_id}' has no result before the next message."
            ));
        }
        match role {
            "user" if self.last_was_user => {
                return Err("Two user messages in a row are not accepted.".to_owned());
            }
            "user" => self.last_was_user = true,
            "system" | "developer" => {}
            "assistant" => self.last_was_user = false,
            other => return Err(format!("Unknown message role '{other}'.")),
        }
        Ok(())
    }

    fn finish(self) -> Result<(), String> {
        match self.pending_calls.first() {
            Some(call_id) => Err(format!(
                "No tool output found for the tool call '{call_id}'."
            )),
            None => Ok(()),
        }
    }

    fn responses_item(&mut self, item: &Value) -> Result<(), String> {
        let kind = item
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("message");
        let call_id = item.get("call_id").and_then(Value::as_str);
        match kind {
            "function_call" => self.call(call_id),
            "function_call_output" => self.result(call_id),
            "message" => {
                let role = item.get("role").and_then(Value::as_str).unwrap_or("");
                self.message(role)
            }
            "reasoning" => Ok(()),
            other => Err(format!("Unsupported input item type '{other}'.")),
        }
    }

    fn chat_message(&mut self, message: &Value) -> Result<(), String> {
        let role = message.get("role").and_then(Value::as_str).unwrap_or("");
        if role == "tool" {
            return self.result(message.get("tool_call_id").and_then(Value::as_str));
        }
        self.message(role)?;
        let calls = message.get("tool_calls").and_then(Value::as_array);
        for call in calls.into_iter().flatten() {
            self.call(call.get("id").and_then(Value::as_str))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{Wire, check_request};

    fn responses(input: serde_json::Value) -> Result<(), String> {
        check_request(Wire::Responses, &json!({"model": "m", "input": input}))
    }

    fn chat(messages: serde_json::Value) -> Result<(), String> {
        check_request(Wire::Chat, &json!({"model": "m", "messages": messages}))
    }

    #[test]
    fn complete_histories_pass() {
        let input = json!([
            {"role": "system", "content": "s"},
            {"role": "user", "content": "u"},
            {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": "o"},
            {"role": "assistant", "content": "a"},
            {"role": "user", "content": "u2"},
        ]);
        assert_eq!(responses(input), Ok(()));
        let messages = json!([
            {"role": "user", "content": "u"},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "c1"}]},
            {"role": "tool", "tool_call_id": "c1", "content": "o"},
            {"role": "user", "content": "u2"},
        ]);
        assert_eq!(chat(messages), Ok(()));
    }

    #[test]
    fn broken_histories_fail_with_a_reason() {
        let dangling = json!([{"role": "user", "content": "u"},
            {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"}]);
        assert!(responses(dangling).is_err_and(|why| why.contains("c1")));
        let orphan = json!([{"role": "user", "content": "u"},
            {"role": "tool", "tool_call_id": "c9", "content": "o"}]);
        assert!(chat(orphan).is_err_and(|why| why.contains("c9")));
        let doubled = json!([{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]);
        assert!(chat(doubled).is_err_and(|why| why.contains("Two user messages")));
        let interrupted = json!([{"role": "user", "content": "u"},
            {"role": "assistant", "tool_calls": [{"id": "c1"}]},
            {"role": "user", "content": "next"}]);
        assert!(chat(interrupted).is_err_and(|why| why.contains("c1")));
        assert!(check_request(Wire::Chat, &json!({"messages": []})).is_err());
    }
}

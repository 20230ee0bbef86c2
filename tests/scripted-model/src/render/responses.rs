//! The Responses API: `POST /responses`.

use serde_json::{Value, json};

use super::{Frame, FrameKind, RenderContext, split_arguments, split_text};
use crate::script::Reply;

fn usage(reply: &Reply) -> Value {
    match reply.usage {
        Some(usage) => json!({
            "input_tokens": usage.input,
            "output_tokens": usage.output,
            "total_tokens": usage.input + usage.output,
        }),
        None => Value::Null,
    }
}

fn message_item(ctx: &RenderContext<'_>, text: &str) -> Value {
    json!({
        "type": "message",
        "id": format!("msg_{}", ctx.serial),
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    })
}

fn call_item(ctx: &RenderContext<'_>, reply: &Reply, index: usize, arguments: &str) -> Value {
    let name = reply.tool_calls.get(index).map(|call| call.name.as_str());
    json!({
        "type": "function_call",
        "id": format!("fc_{}_{index}", ctx.serial),
        "status": "completed",
        "call_id": ctx.call_id(reply, index),
        "name": name,
        "arguments": arguments,
    })
}

fn output_items(ctx: &RenderContext<'_>, reply: &Reply) -> Vec<Value> {
    let mut output = Vec::new();
    if !reply.text.is_empty() {
        output.push(message_item(ctx, &reply.text));
    }
    for (index, call) in reply.tool_calls.iter().enumerate() {
        output.push(call_item(ctx, reply, index, &call.arguments_text()));
    }
    output
}

/// The whole response object, as a non-streaming request gets it.
pub fn whole(ctx: &RenderContext<'_>, reply: &Reply) -> Value {
    let mut response = json!({
        "id": format!("resp_{}", ctx.serial),
        "object": "response",
        "status": "completed",
        "model": ctx.model,
        "output": output_items(ctx, reply),
        "usage": usage(reply),
    });
    if reply.cut_off {
        response["status"] = json!("incomplete");
        response["incomplete_details"] = json!({"reason": "max_output_tokens"});
    }
    response
}

fn frame(kind: FrameKind, data: &Value) -> Frame {
    let event = data
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("message");
    Frame::new(kind, format!("event: {event}\ndata: {data}\n\n"))
}

/// The SSE frames of a streamed response.
pub fn frames(ctx: &RenderContext<'_>, reply: &Reply) -> Vec<Frame> {
    let response_id = format!("resp_{}", ctx.serial);
    let mut frames = vec![frame(
        FrameKind::Opening,
        &json!({
            "type": "response.created",
            "response": {"id": response_id, "object": "response", "status": "in_progress",
                         "model": ctx.model, "output": []},
        }),
    )];
    let mut output_index = 0;
    if !reply.text.is_empty() {
        let item_id = format!("msg_{}", ctx.serial);
        frames.push(frame(
            FrameKind::Opening,
            &json!({
                "type": "response.output_item.added", "output_index": output_index,
                "item": {"type": "message", "id": item_id, "status": "in_progress",
                         "role": "assistant", "content": []},
            }),
        ));
        for delta in split_text(&reply.text, reply.deltas) {
            frames.push(frame(
                FrameKind::TextDelta,
                &json!({
                    "type": "response.output_text.delta", "item_id": item_id,
                    "output_index": output_index, "content_index": 0, "delta": delta,
                }),
            ));
        }
        frames.push(frame(
            FrameKind::Progress,
            &json!({
                "type": "response.output_text.done", "item_id": item_id,
                "output_index": output_index, "content_index": 0, "text": reply.text,
            }),
        ));
        frames.push(frame(
            FrameKind::Progress,
            &json!({
                "type": "response.output_item.done", "output_index": output_index,
                "item": message_item(ctx, &reply.text),
            }),
        ));
        output_index += 1;
    }
    for (index, call) in reply.tool_calls.iter().enumerate() {
        let arguments = call.arguments_text();
        let mut started = call_item(ctx, reply, index, "");
        started["status"] = json!("in_progress");
        frames.push(frame(
            FrameKind::ToolCallStarted,
            &json!({"type": "response.output_item.added", "output_index": output_index,
                    "item": started}),
        ));
        let item_id = format!("fc_{}_{index}", ctx.serial);
        for delta in split_arguments(&arguments) {
            frames.push(frame(
                FrameKind::Progress,
                &json!({"type": "response.function_call_arguments.delta", "item_id": item_id,
                        "output_index": output_index, "delta": delta}),
            ));
        }
        frames.push(frame(
            FrameKind::Progress,
            &json!({"type": "response.function_call_arguments.done", "item_id": item_id,
                    "output_index": output_index, "arguments": arguments}),
        ));
        frames.push(frame(
            FrameKind::Progress,
            &json!({"type": "response.output_item.done", "output_index": output_index,
                    "item": call_item(ctx, reply, index, &arguments)}),
        ));
        output_index += 1;
    }
    frames.push(frame(
        FrameKind::Finish,
        &json!({
            "type": if reply.cut_off { "response.incomplete" } else { "response.completed" },
            "response": whole(ctx, reply),
        }),
    ));
    frames
}

//! Chat Completions: `POST /chat/completions`.

use serde_json::{Value, json};

use super::{Frame, FrameKind, RenderContext, split_arguments, split_text};
use crate::script::Reply;

fn usage(reply: &Reply) -> Value {
    match reply.usage {
        Some(usage) => json!({
            "prompt_tokens": usage.input,
            "completion_tokens": usage.output,
            "total_tokens": usage.input + usage.output,
        }),
        None => Value::Null,
    }
}

fn finish_reason(reply: &Reply) -> &'static str {
    if reply.cut_off {
        "length"
    } else if reply.tool_calls.is_empty() {
        "stop"
    } else {
        "tool_calls"
    }
}

/// The whole completion, as a non-streaming request gets it.
pub fn whole(ctx: &RenderContext<'_>, reply: &Reply) -> Value {
    let tool_calls: Vec<Value> = reply
        .tool_calls
        .iter()
        .enumerate()
        .map(|(index, call)| {
            json!({
                "id": ctx.call_id(reply, index),
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments_text()},
            })
        })
        .collect();
    let mut message = json!({
        "role": "assistant",
        "content": if reply.text.is_empty() { Value::Null } else { json!(reply.text) },
    });
    if !tool_calls.is_empty() {
        message["tool_calls"] = Value::Array(tool_calls);
    }
    let mut completion = json!({
        "id": format!("chatcmpl-{}", ctx.serial),
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": ctx.model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason(reply)}],
    });
    if reply.usage.is_some() {
        completion["usage"] = usage(reply);
    }
    completion
}

fn chunk(ctx: &RenderContext<'_>, choices: Value) -> Value {
    json!({
        "id": format!("chatcmpl-{}", ctx.serial),
        "object": "chat.completion.chunk",
        "created": 1_700_000_000,
        "model": ctx.model,
        "choices": choices,
    })
}

fn frame(kind: FrameKind, data: &Value) -> Frame {
    Frame::new(kind, format!("data: {data}\n\n"))
}

fn delta_frame(ctx: &RenderContext<'_>, kind: FrameKind, delta: Value) -> Frame {
    let choices = json!([{"index": 0, "delta": delta, "finish_reason": null}]);
    frame(kind, &chunk(ctx, choices))
}

/// The SSE frames of a streamed completion; the usage chunk only when the request asked for it.
pub fn frames(ctx: &RenderContext<'_>, reply: &Reply, include_usage: bool) -> Vec<Frame> {
    let mut frames = vec![delta_frame(
        ctx,
        FrameKind::Opening,
        json!({"role": "assistant", "content": ""}),
    )];
    for delta in split_text(&reply.text, reply.deltas) {
        frames.push(delta_frame(
            ctx,
            FrameKind::TextDelta,
            json!({"content": delta}),
        ));
    }
    for (index, call) in reply.tool_calls.iter().enumerate() {
        let started = json!({"tool_calls": [{
            "index": index, "id": ctx.call_id(reply, index), "type": "function",
            "function": {"name": call.name, "arguments": ""},
        }]});
        frames.push(delta_frame(ctx, FrameKind::ToolCallStarted, started));
        for piece in split_arguments(&call.arguments_text()) {
            let progress =
                json!({"tool_calls": [{"index": index, "function": {"arguments": piece}}]});
            frames.push(delta_frame(ctx, FrameKind::Progress, progress));
        }
    }
    let finish = json!([{"index": 0, "delta": {}, "finish_reason": finish_reason(reply)}]);
    frames.push(frame(FrameKind::Finish, &chunk(ctx, finish)));
    if include_usage {
        let mut usage_chunk = chunk(ctx, json!([]));
        usage_chunk["usage"] = usage(reply);
        frames.push(frame(FrameKind::Trailer, &usage_chunk));
    }
    frames.push(Frame::new(
        FrameKind::Trailer,
        "data: [DONE]\n\n".to_owned(),
    ));
    frames
}

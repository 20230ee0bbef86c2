//! A scripted OpenAI-compatible model server for tests.
//!
//! It speaks the Responses API (`POST /v1/responses`) and Chat Completions
//! (`POST /v1/chat/completions`), also without the `/v1` prefix, streaming or not as each request
//! asks. Each request consumes the next step of a [`Script`]: a reply (text in deltas, tool calls,
//! usage, pauses, stalls, cuts) or a fault (an HTTP error with a JSON body). Every request is
//! recorded for assertions, and like strict real endpoints the server answers 400 to a history with
//! a tool call lacking its result, a result lacking its call, or two user messages in a row.
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! use hailer_scripted_model::{Script, ScriptedModel};
//! use serde_json::json;
//!
//! let script = Script::new()
//!     .tool_call("marimo_execute", json!({"code": "print(1)"}))
//!     .reply_text("It printed 1.");
//! let server = ScriptedModel::start(script).await?;
//! println!("{}", server.base_url());
//! # Ok(())
//! # }
//! ```

#![warn(missing_docs)]

mod deliver;
pub mod record;
pub mod render;
pub mod script;
pub mod server;
pub mod validate;

pub use record::{Delivery, DeliveryOutcome, RecordedRequest};
pub use script::{
    CutPoint, Fault, Interruption, InterruptionKind, Reply, Script, ScriptedToolCall,
    ScriptedUsage, Step,
};
pub use server::ScriptedModel;
pub use validate::Wire;

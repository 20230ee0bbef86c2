//! Chat Completions: `POST {base_url}/chat/completions`.

mod body;
mod parse;

pub(crate) use body::request_body;
pub(crate) use parse::{StreamParser, parse_whole};

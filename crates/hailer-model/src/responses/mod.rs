//! The Responses API: `POST {base_url}/responses`.

mod body;
mod parse;

pub(crate) use body::request_body;
pub(crate) use parse::{StreamParser, parse_whole};

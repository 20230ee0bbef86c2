//! The agent tools' arguments: one typed struct per tool, read from the model's JSON in one
//! place, and the one way a tool reaches the live session's kernel.

use std::sync::{Arc, Weak};

use hailer_agent::tool_error;
use hailerd_kernel::Kernel;
use hailerd_session::{Session, SessionError};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Reads a tool's arguments into its struct. `Err` holds the tool result that tells the model
/// which argument is missing or not a string (every tool's arguments are strings), and how to
/// call again.
pub(super) fn read<T: DeserializeOwned>(tool: &str, arguments: Value) -> Result<T, String> {
    // A model that sends no arguments at all for a tool with only optional ones means "none".
    let arguments = if arguments.is_null() {
        Value::Object(serde_json::Map::new())
    } else {
        arguments
    };
    T::deserialize(&arguments).map_err(|error| match bad_argument(&error, &arguments) {
        Some(name) => tool_error(
            &format!("{tool} needs a string argument `{name}`"),
            &format!("Call it again with {{\"{name}\": \"...\"}}."),
        ),
        None => tool_error(
            &format!("{tool} cannot use these arguments: {error}"),
            "Call it again with an object of string arguments, as its parameters name them.",
        ),
    })
}

/// The argument a failed read is about: the one serde found missing, else the first that is
/// neither a string nor null.
fn bad_argument(error: &serde_json::Error, arguments: &Value) -> Option<String> {
    let text = error.to_string();
    if let Some(rest) = text.strip_prefix("missing field `") {
        return rest.split('`').next().map(str::to_owned);
    }
    arguments
        .as_object()?
        .iter()
        .find(|(_, value)| !value.is_string() && !value.is_null())
        .map(|(name, _)| name.clone())
}

/// A tool's result: what it answers, or the error result that stopped it.
pub(super) fn reply(outcome: Result<String, String>) -> String {
    outcome.unwrap_or_else(|error| error)
}

/// An argument that may not be blank; `Err` holds the tool result that says so.
pub(super) fn not_blank(value: Option<String>, name: &str, tool: &str) -> Result<String, String> {
    match value {
        Some(value) if !value.trim().is_empty() => Ok(value),
        _ => Err(tool_error(
            &format!("{tool} needs `{name}`"),
            &format!("Call {tool} again with a non-empty \"{name}\"."),
        )),
    }
}

/// The live session, or the tool result saying it has ended.
pub(super) fn live(session: &Weak<Session>) -> Result<Arc<Session>, String> {
    session
        .upgrade()
        .ok_or_else(|| tool_error("the session has ended", "Tell the user to start a new one."))
}

/// The live session and its running kernel, or the tool result saying why there is none.
pub(super) async fn live_kernel(
    session: &Weak<Session>,
) -> Result<(Arc<Session>, Arc<Kernel>), String> {
    let session = live(session)?;
    let kernel = session
        .kernel()
        .await
        .map_err(|error| session_error(&error))?;
    Ok((session, kernel))
}

/// A session error as a tool result, with what the model can do about it.
pub(super) fn session_error(error: &SessionError) -> String {
    let hint = match error {
        SessionError::KernelFailed { hint, .. } => hint.clone().unwrap_or_else(|| {
            "Tell the user the kernel is down; they can see why with `hailer session status`."
                .to_owned()
        }),
        SessionError::KernelTimeout(_) | SessionError::Kernel(_) => {
            "Call marimo_status to see the kernel's state before trying again.".to_owned()
        }
        SessionError::Notebook(_) => "Call notebook_list to see the notebooks.".to_owned(),
        _ => String::new(),
    };
    tool_error(&error.to_string(), &hint)
}

/// `marimo_execute`'s arguments.
#[derive(Debug, Deserialize)]
pub(super) struct ExecuteArgs {
    /// The Python to run.
    pub code: String,
}

/// `notebook_cells`' arguments.
#[derive(Debug, Deserialize)]
pub(super) struct CellsArgs {
    /// Keeps the cells whose name or code matches; none lists every cell.
    pub pattern: Option<String>,
}

/// `notebook_create`'s arguments.
#[derive(Debug, Deserialize)]
pub(super) struct CreateArgs {
    /// The new notebook's name.
    pub name: String,
    /// `starter` (the default) or `empty`.
    pub template: Option<String>,
}

/// `notebook_open`'s arguments.
#[derive(Debug, Deserialize)]
pub(super) struct OpenArgs {
    /// A name, file name or path inside the notebooks folder.
    pub notebook: String,
}

/// `notebook_close`'s arguments.
#[derive(Debug, Deserialize)]
pub(super) struct CloseArgs {
    /// Which notebook; none for the active one.
    pub notebook: Option<String>,
}

/// The arguments of the tools that take one name: `list_periods` (optional), `load_skill`.
#[derive(Debug, Deserialize)]
pub(super) struct NameArgs {
    /// The name.
    pub name: Option<String>,
}

/// `read_skill_file`'s arguments.
#[derive(Debug, Deserialize)]
pub(super) struct SkillFileArgs {
    /// The skill.
    pub name: Option<String>,
    /// The file, relative to the skill's folder.
    pub path: Option<String>,
}

/// `fetch_page`'s arguments.
#[derive(Debug, Deserialize)]
pub(super) struct FetchArgs {
    /// The page's address.
    pub url: Option<String>,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use serde_json::json;

    #[test]
    fn a_missing_or_mistyped_argument_is_a_tool_error_naming_it() {
        let said = "ERROR: marimo_execute needs a string argument `code`\n\
                    Call it again with {\"code\": \"...\"}.";
        let missing = read::<ExecuteArgs>("marimo_execute", json!({})).unwrap_err();
        assert_eq!(missing, said);
        let mistyped = read::<ExecuteArgs>("marimo_execute", json!({"code": 3})).unwrap_err();
        assert_eq!(mistyped, said);
        let not_an_object = read::<ExecuteArgs>("marimo_execute", json!("1 + 1")).unwrap_err();
        assert!(
            not_an_object.starts_with("ERROR: marimo_execute cannot use these arguments"),
            "{not_an_object}"
        );
        let code = read::<ExecuteArgs>("marimo_execute", json!({"code": "1 + 1"})).unwrap();
        assert_eq!(code.code, "1 + 1");
    }

    #[test]
    fn absent_null_and_missing_optional_arguments_all_mean_none() {
        for arguments in [Value::Null, json!({}), json!({"pattern": null})] {
            let args = read::<CellsArgs>("notebook_cells", arguments).unwrap();
            assert_eq!(args.pattern, None);
        }
    }

    #[test]
    fn a_blank_required_argument_is_refused_by_name() {
        assert_eq!(
            not_blank(Some("a".into()), "name", "load_skill").unwrap(),
            "a"
        );
        for blank in [None, Some(String::new()), Some("  ".into())] {
            let refused = not_blank(blank, "name", "load_skill").unwrap_err();
            assert!(refused.contains("load_skill needs `name`"), "{refused}");
        }
    }
}

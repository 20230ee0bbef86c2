//! The parts of the system prompt and of the turn's message that come from the workspace's
//! `.config/hailer` folders: context notes, the skills index and the web access section (re-read
//! at the start of every turn, their problems posted as session notices), and the expansion of
//! `/skill` and `/prompt` requests.

use hailer_config::Config;
use hailer_protocol::{NoticeLevel, StartTurnParams};
use hailer_tools::Failure;
use hailer_tools::{SectionSources as Sources, Sections};

use hailerd_session::{Session, SessionError};

/// The context, skills and web sections for `config`, read now.
pub(super) fn workspace_sections(config: &Config) -> Sections {
    hailer_tools::build_sections(Sources {
        context_dir: &config.hailer.context_dir,
        max_context_bytes: config.hailer.max_context_bytes,
        skills_dir: &config.hailer.skills_dir,
        allowed_domains: &config.web.allowed_domains,
    })
}

/// The system prompt for the turn about to start: the session's instructions followed by the
/// workspace sections, re-read now. Their warnings go to the session's clients.
pub(super) fn instructions_for_turn(base: &str, session: &Session) -> String {
    let sections = workspace_sections(&session.loaded().config);
    for notice in &sections.notices {
        session.notice(NoticeLevel::Warning, notice.clone());
    }
    format!("{}\n\n{}", base.trim_end(), sections.text)
}

/// The user message of a turn: the text, a skill attached to it, or a rendered prompt.
pub fn turn_message(config: &Config, params: &StartTurnParams) -> Result<String, SessionError> {
    let unknown = |failure: Failure| SessionError::UnknownName {
        message: failure.message,
        hint: failure.hint,
    };
    match (&params.skill, &params.prompt) {
        (Some(_), Some(_)) => Err(SessionError::Invalid(
            "a turn takes a skill or a prompt, not both".to_owned(),
        )),
        (Some(skill), None) => {
            let message = if skill.message.trim().is_empty() {
                &params.text
            } else {
                &skill.message
            };
            hailer_tools::attach_skill(&config.hailer.skills_dir, &skill.name, message)
                .map_err(unknown)
        }
        (None, Some(prompt)) => {
            let args = if prompt.args.trim().is_empty() {
                &params.text
            } else {
                &prompt.args
            };
            hailer_tools::render_prompt(&config.hailer.prompts_dir, &prompt.name, args)
                .map_err(unknown)
        }
        (None, None) => Ok(params.text.clone()),
    }
}

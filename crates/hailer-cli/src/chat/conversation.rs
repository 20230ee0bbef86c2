//! `/new` and `/model`: a new conversation in the running session, with the same model or
//! another one.

use hailer_protocol::{ConversationStarted, NewConversationParams, SessionInfo};

use super::daemon_link::{CLIENT, Link, REQUEST_TIMEOUT};
use super::panel;
use super::screen::Screen;
use super::slash::Context;
use hailer_render::clean;

/// `/new`: deletes the stored conversation; the same model goes on. True when it started.
pub(super) async fn start_new(context: &Context<'_>) -> bool {
    let Some(link) = context.link else {
        return false;
    };
    match request(context, link, None).await {
        Ok(_) => {
            context.screen.line(
                "Started a fresh conversation: the agent no longer sees the earlier turns, and \
                 the counters start again.",
            );
            true
        }
        Err(refusal) => {
            show_refusal(context.screen, &refusal);
            false
        }
    }
}

/// `/model [provider:]name`: with no name, shows the model in use and how to switch; with one,
/// switches to it for the rest of this session. True when a new conversation started.
pub(super) async fn model(context: &Context<'_>, rest: &str) -> bool {
    let screen = context.screen;
    if rest.is_empty() {
        show_model(context).await;
        return false;
    }
    let Some(link) = context.link else {
        return false;
    };
    match request(context, link, Some(rest)).await {
        Ok(started) => {
            screen.line(format!(
                "Now using {}:{}, in a new conversation (the earlier one is kept). The next \
                 session starts with the configured model again.",
                started.provider, started.model
            ));
            true
        }
        Err(refusal) => {
            show_refusal(screen, &refusal);
            false
        }
    }
}

/// Why the daemon did not start the conversation.
enum Refusal {
    /// The daemon's own words.
    Said {
        status: u16,
        message: String,
        hint: Option<String>,
    },
    Failed(anyhow::Error),
}

async fn request(
    context: &Context<'_>,
    link: &Link,
    model: Option<&str>,
) -> Result<ConversationStarted, Refusal> {
    // The provider's key and header variables go along, as on session start.
    let env = crate::session_client::start_params(context.flags)
        .map(|params| params.env)
        .unwrap_or_default();
    let params = NewConversationParams {
        model: model.map(str::to_owned),
        client: CLIENT.to_owned(),
        env,
    };
    let path = format!("/v1/sessions/{}/conversation", link.session.id);
    let reply = link
        .endpoint
        .post(&path, &params, REQUEST_TIMEOUT)
        .await
        .map_err(Refusal::Failed)?;
    if let Some(body) = reply.error_body() {
        return Err(Refusal::Said {
            status: reply.status,
            message: body.message,
            hint: body.hint,
        });
    }
    reply.json::<ConversationStarted>().map_err(Refusal::Failed)
}

fn show_refusal(screen: &Screen, refusal: &Refusal) {
    let style = screen.style;
    match refusal {
        Refusal::Said { status: 409, .. } => screen.line(style.yellow(
            "A turn is running in this session; wait for it to end (or press Ctrl+C to cancel it) \
             and try again.",
        )),
        Refusal::Said { message, hint, .. } => {
            screen.line(style.red(&clean(message)));
            if let Some(hint) = hint {
                screen.line(format!("  {}", clean(hint)));
            }
        }
        Refusal::Failed(error) => screen.line(style.red(&clean(&format!("{error:#}")))),
    }
}

/// The model in use (the daemon's word when connected), the declared providers and the usage.
async fn show_model(context: &Context<'_>) {
    let screen = context.screen;
    let (provider, name) = match context.link {
        Some(link) => {
            let info = link
                .endpoint
                .get(
                    &format!("/v1/sessions/{}", link.session.id),
                    REQUEST_TIMEOUT,
                )
                .await
                .and_then(crate::http::Reply::json::<SessionInfo>)
                .unwrap_or_else(|_| link.session.clone());
            panel::session_model(&info, context.loaded)
        }
        None => match context.loaded {
            Some(loaded) => (
                loaded.config.model.provider.clone(),
                loaded.config.model.name.clone(),
            ),
            None => (
                String::new(),
                "(unknown until the session is ready)".to_owned(),
            ),
        },
    };
    match context.loaded {
        Some(loaded) => {
            screen.line(format!(
                "Model: {name}, provider {}",
                panel::provider_named(loaded, &provider)
            ));
            let declared: Vec<&str> = loaded
                .config
                .model_providers
                .keys()
                .map(String::as_str)
                .collect();
            screen.line(format!("  Providers: {}", declared.join(", ")));
        }
        None => screen.line(format!("Model: {name}, provider {provider}")),
    }
    screen.line(
        "  Usage: /model [provider:]name switches the model for this session, in a new \
         conversation.",
    );
}

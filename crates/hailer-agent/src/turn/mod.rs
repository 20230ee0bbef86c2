//! One turn of the conversation: the user's message in, the model's answer out, with every tool
//! call the model makes on the way.
//!
//! The history is repaired, the user's message saved, then the model is called and its tool calls
//! run until a reply has no tool calls. Each completed reply and each tool result is saved the
//! moment it exists. Cancellation drops the model call at once and cancels running tools; the
//! calls left without results are saved as interrupted, so the history stays valid.

mod events;
mod model_call;
pub(crate) mod stop;
mod tool_calls;

use hailer_model::{AssistantMessage, Completion, ModelClient, ModelRequest, ReasoningEffort};
use tokio_util::sync::CancellationToken;

pub use events::{EventSink, TurnEvent};
pub(crate) use model_call::{StreamBudget, call_model};
pub use tool_calls::{argument_preview, call_code, result_output, result_preview};

use self::stop::Stop;
use self::tool_calls::Batch;
use crate::blocking::off_the_worker;
use crate::item::{StoredItem, ThreadItem, model_view};
use crate::repair::with_user_message;
use crate::store::ConversationStore;
use crate::summarise::{Summariser, estimate_tokens, instructions_with_summary};
use crate::tool::{DEFAULT_MAX_TOOL_OUTPUT_CHARS, ToolRegistry};
use crate::usage::TokenUsage;

/// How often an empty answer is asked for again before the turn fails.
const EMPTY_ANSWER_RETRIES: usize = 1;

/// The default cap on model calls in one turn.
pub(crate) const DEFAULT_MAX_MODEL_CALLS: usize = 40;

/// The default cap on what the model sends in one turn (text and tool-call arguments, over all
/// its calls): far above any answer, far below what would strain memory.
pub(crate) const DEFAULT_MAX_STREAM_BYTES: usize = 16 * 1024 * 1024;

/// How turns run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnSettings {
    /// Model calls allowed in one turn before it ends with a message saying so.
    pub max_model_calls: usize,
    /// Tool results are capped to this many characters before the model or the store sees them.
    pub max_tool_output_chars: usize,
    /// Bytes the model may send in one turn before it ends with a message saying so.
    pub max_stream_bytes: usize,
    /// Sent with every call when set.
    pub reasoning_effort: Option<ReasoningEffort>,
    /// Whether the user set `reasoning_effort` themselves. When they did not (a default), an
    /// endpoint that refuses it is asked again without it, once, and the user is told.
    pub reasoning_effort_written: bool,
    /// When older turns are condensed, checked before every model call of the turn.
    pub summariser: Summariser,
}

impl Default for TurnSettings {
    fn default() -> Self {
        Self {
            max_model_calls: DEFAULT_MAX_MODEL_CALLS,
            max_tool_output_chars: DEFAULT_MAX_TOOL_OUTPUT_CHARS,
            max_stream_bytes: DEFAULT_MAX_STREAM_BYTES,
            reasoning_effort: None,
            reasoning_effort_written: false,
            summariser: Summariser::default(),
        }
    }
}

/// How a turn ended; the same as its last event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TurnOutcome {
    /// The model gave a reply without tool calls: the answer.
    Finished {
        /// The text of that last reply.
        text: String,
        /// Tokens over all the turn's model calls; `None` when no call reported usage.
        usage: Option<TokenUsage>,
    },
    /// The turn stopped early: a model error, an empty answer, a store failure, or a cap on
    /// model calls or streamed bytes. The conversation so far is kept.
    Failed {
        /// What went wrong, for the user; a model error's text has secrets masked again.
        message: String,
        /// What the user can do next.
        hint: String,
    },
    /// The cancellation token fired; tool calls left without a result are saved as
    /// interrupted.
    Cancelled,
}

impl TurnOutcome {
    fn event(&self) -> TurnEvent {
        match self.clone() {
            Self::Finished { text, usage } => TurnEvent::Finished { text, usage },
            Self::Failed { message, hint } => TurnEvent::Failed { message, hint },
            Self::Cancelled => TurnEvent::Cancelled,
        }
    }
}

/// Everything a turn works with.
pub struct Turn<'a> {
    /// The model client every call of the turn goes through: endpoint, model, key.
    pub client: &'a ModelClient,
    /// The system prompt, sent with every call and never stored.
    pub instructions: &'a str,
    /// The conversation store the history is read from and every message is saved to.
    pub store: &'a mut ConversationStore,
    /// The id of the thread in `store` the turn belongs to; it must exist.
    pub thread: &'a str,
    /// The tools the model is offered and whose calls are run.
    pub tools: &'a ToolRegistry,
    /// The caps and the summariser of this turn.
    pub settings: &'a TurnSettings,
    /// Where the turn's [`TurnEvent`]s go as they happen.
    pub events: &'a dyn EventSink,
    /// Cancels the turn: the model call is dropped and running tools are told to stop.
    pub cancel: &'a CancellationToken,
}

/// What a turn keeps track of as it goes.
struct Progress {
    budget: StreamBudget,
    usage: Option<TokenUsage>,
    user_saved: bool,
    history: Vec<StoredItem>,
    reported_input: Option<u64>,
    /// The endpoint refused the default reasoning setting: the rest of the turn goes without.
    reasoning_dropped: bool,
}

/// One model call; an empty answer (no text and no tool call) is asked for again once, and a
/// second one fails the turn. Every call's usage counts. A reasoning setting the user did not
/// write (`may_drop_reasoning`) that the endpoint refuses is left out, and the call made again.
async fn answer(
    client: &ModelClient,
    request: &ModelRequest,
    events: &dyn EventSink,
    cancel: &CancellationToken,
    progress: &mut Progress,
    may_drop_reasoning: bool,
) -> Result<Completion, Stop> {
    let mut request = std::borrow::Cow::Borrowed(request);
    for _ in 0..=EMPTY_ANSWER_RETRIES {
        let called = call_model(client, &request, Some(events), cancel, &mut progress.budget).await;
        let completion = match called {
            Err(Stop::ReasoningRefused { .. })
                if may_drop_reasoning && !progress.reasoning_dropped =>
            {
                progress.reasoning_dropped = true;
                events.emit(TurnEvent::ReasoningDropped {
                    text: reasoning_dropped_notice(client, request.reasoning_effort),
                });
                request.to_mut().reasoning_effort = None;
                call_model(client, &request, Some(events), cancel, &mut progress.budget)
                    .await
                    .map_err(Stop::into_failed)?
            }
            other => other.map_err(Stop::into_failed)?,
        };
        progress.usage = TokenUsage::accumulate(progress.usage, completion.usage);
        if !completion.text.trim().is_empty() || !completion.tool_calls.is_empty() {
            return Ok(completion);
        }
        tracing::warn!("the model sent an empty answer");
    }
    Err(Stop::empty_answer(client, EMPTY_ANSWER_RETRIES))
}

/// What the user is told, once, when the default reasoning setting was left out.
fn reasoning_dropped_notice(client: &ModelClient, effort: Option<ReasoningEffort>) -> String {
    let settings = client.settings();
    let effort = effort.map_or_else(String::new, |effort| format!(" \"{}\"", effort.as_str()));
    format!(
        "Model '{}' of provider '{}' does not accept the default reasoning_effort{effort}, which \
         hailer.toml does not set: it was asked again without it, and this conversation goes on \
         without it. Set reasoning_effort = \"\" under [model] to say so in hailer.toml.",
        settings.model, settings.provider_id
    )
}

fn new_turn_id() -> String {
    let mut bytes = [0u8; 8];
    rand::fill(&mut bytes);
    hex::encode(bytes)
}

impl Turn<'_> {
    /// Runs the turn to its end. Events go to `events` as they happen; the last one matches the
    /// returned outcome.
    pub async fn run(mut self, user_text: &str) -> TurnOutcome {
        let turn_id = new_turn_id();
        tracing::debug!(%turn_id, thread = %self.thread, "turn started");
        self.events.emit(TurnEvent::Started {
            turn_id: turn_id.clone(),
            text: user_text.to_owned(),
        });
        let mut progress = Progress {
            budget: StreamBudget::new(self.settings.max_stream_bytes),
            usage: None,
            user_saved: false,
            history: Vec::new(),
            reported_input: None,
            reasoning_dropped: false,
        };
        let outcome = match self.drive(user_text, &mut progress).await {
            Ok(outcome) => outcome,
            Err(Stop::Cancelled) => TurnOutcome::Cancelled,
            Err(stop) => match stop.into_failed() {
                Stop::Failed { message, hint } | Stop::ReasoningRefused { message, hint } => {
                    TurnOutcome::Failed { message, hint }
                }
                Stop::Cancelled => TurnOutcome::Cancelled,
            },
        };
        if progress.user_saved
            && let Err(error) = off_the_worker(|| self.store.add_usage(self.thread, progress.usage))
        {
            tracing::warn!(%error, "the turn's usage could not be counted");
        }
        tracing::debug!(%turn_id, ?outcome, "turn ended");
        self.events.emit(outcome.event());
        outcome
    }

    /// The reasoning setting the turn's next call carries.
    fn reasoning_effort(&self, progress: &Progress) -> Option<ReasoningEffort> {
        if progress.reasoning_dropped {
            None
        } else {
            self.settings.reasoning_effort
        }
    }

    fn save(&mut self, progress: &mut Progress, item: ThreadItem) -> Result<(), crate::Error> {
        let seq = off_the_worker(|| self.store.append(self.thread, &item))?;
        progress.history.push(StoredItem { seq, item });
        Ok(())
    }

    /// Repairs the stored history and saves the user's message (merged into an unanswered one).
    /// The store's reads and commits run off the async worker.
    fn begin(&mut self, user_text: &str, progress: &mut Progress) -> Result<(), Stop> {
        off_the_worker(|| self.begin_now(user_text, progress))
    }

    fn begin_now(&mut self, user_text: &str, progress: &mut Progress) -> Result<(), Stop> {
        let thread = self.store.thread(self.thread)?;
        progress.reported_input = thread.and_then(|thread| thread.context_tokens);
        let stored = self.store.load_items(self.thread)?;
        let next = with_user_message(stored.iter().map(|stored| stored.item.clone()), user_text);
        let same = stored
            .iter()
            .zip(&next)
            .take_while(|(stored, next)| stored.item == **next)
            .count();
        let from_seq = stored.get(same).map(|stored| stored.seq);
        if same < stored.len() {
            tracing::info!(
                changed = stored.len() - same,
                "repaired the conversation's history"
            );
        }
        let seqs = self
            .store
            .replace_tail(self.thread, from_seq, &next[same..])?;
        progress.user_saved = true;
        progress.history = stored;
        progress.history.truncate(same);
        progress.history.extend(
            seqs.into_iter()
                .zip(next.into_iter().skip(same))
                .map(|(seq, item)| StoredItem { seq, item }),
        );
        Ok(())
    }

    async fn summarise_if_due(&mut self, progress: &mut Progress) -> Result<(), Stop> {
        let summariser = &self.settings.summariser;
        let estimate = estimate_tokens(
            self.instructions,
            &progress.history,
            progress.reported_input,
        );
        if !summariser.is_due(estimate) {
            return Ok(());
        }
        let summary = match summariser
            .summarise(
                self.client,
                &progress.history,
                self.reasoning_effort(progress),
                self.cancel,
                &mut progress.budget,
            )
            .await
        {
            Ok(Some(summary)) => summary,
            Ok(None) => return Ok(()),
            Err(Stop::Cancelled) => return Err(Stop::Cancelled),
            Err(Stop::Failed { message, .. } | Stop::ReasoningRefused { message, .. }) => {
                tracing::warn!(%message, "older turns could not be summarised; going on without");
                return Ok(());
            }
        };
        progress.usage = TokenUsage::accumulate(progress.usage, summary.completion.usage);
        off_the_worker(|| {
            self.store
                .replace_prefix(self.thread, summary.upto_seq, &summary.text)
        })?;
        progress
            .history
            .retain(|stored| stored.seq > summary.upto_seq);
        progress.history.insert(
            0,
            StoredItem {
                seq: summary.upto_seq,
                item: ThreadItem::Summary(summary.text),
            },
        );
        progress.reported_input = None;
        tracing::info!(
            estimate,
            kept = progress.history.len() - 1,
            "summarised older turns"
        );
        Ok(())
    }

    async fn drive(
        &mut self,
        user_text: &str,
        progress: &mut Progress,
    ) -> Result<TurnOutcome, Stop> {
        self.begin(user_text, progress)?;
        let tools = self.tools.specs();
        for _ in 0..self.settings.max_model_calls {
            self.summarise_if_due(progress).await?;
            let (summary, items) = model_view(progress.history.iter().map(|stored| &stored.item));
            let request = ModelRequest {
                instructions: instructions_with_summary(self.instructions, summary.as_deref()),
                items,
                tools: tools.clone(),
                reasoning_effort: self.reasoning_effort(progress),
            };
            let completion = answer(
                self.client,
                &request,
                self.events,
                self.cancel,
                progress,
                !self.settings.reasoning_effort_written,
            )
            .await?;
            if let Some(usage) = completion.usage {
                progress.reported_input = Some(usage.input);
                self.store
                    .set_context_tokens(self.thread, Some(usage.input))?;
            }
            if let Some(total) = progress.usage {
                self.events.emit(TurnEvent::Usage {
                    input: total.input,
                    output: total.output,
                });
            }
            let calls = completion.tool_calls;
            let text = completion.text;
            self.save(
                progress,
                ThreadItem::Assistant(AssistantMessage {
                    text: text.clone(),
                    tool_calls: calls.clone(),
                }),
            )?;
            if calls.is_empty() {
                return Ok(TurnOutcome::Finished {
                    text,
                    usage: progress.usage,
                });
            }
            let batch = Batch {
                tools: self.tools,
                max_output_chars: self.settings.max_tool_output_chars,
                events: self.events,
                cancel: self.cancel,
            };
            let (store, thread) = (&mut *self.store, self.thread);
            let history = &mut progress.history;
            batch
                .run(&calls, |item| {
                    let seq = off_the_worker(|| store.append(thread, &item))?;
                    history.push(StoredItem { seq, item });
                    Ok(())
                })
                .await?;
        }
        Err(Stop::step_cap(self.settings.max_model_calls))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The daemon spawns turns on the runtime: the turn's future must be `Send`.
    #[allow(dead_code)]
    fn a_turn_can_be_spawned(turn: Turn<'_>) {
        fn is_send<T: Send>(_: T) {}
        is_send(turn.run("question"));
    }

    #[test]
    fn outcomes_end_with_their_own_event() {
        let finished = TurnOutcome::Finished {
            text: "done".into(),
            usage: None,
        };
        assert_eq!(
            finished.event(),
            TurnEvent::Finished {
                text: "done".into(),
                usage: None
            }
        );
        assert!(finished.event().is_final());
        assert_eq!(TurnOutcome::Cancelled.event(), TurnEvent::Cancelled);
    }
}

//! `hailer` and `hailer notebook`: the terminal chat with the workspace's session.
//!
//! The prompt comes up at once; the daemon, the session and its kernel start behind it. One
//! message typed meanwhile waits and goes out exactly once when the session is ready. Answers
//! stream in as Markdown, line by line; other clients' turns in the same session show too.

mod composer;
mod conversation;
mod daemon_link;
mod history_view;
mod panel;
mod screen;
mod slash;
mod terminal;
mod turn_view;

#[cfg(test)]
mod render_tests;

use std::collections::VecDeque;
use std::process::ExitCode;
use std::time::Duration;

use hailer_config::HailerHome;
use hailer_config::Loaded;
use hailer_platform::Interrupts;
use hailer_protocol::SessionEvent;

pub(crate) use panel::provider as provider_line;
pub(crate) use terminal::width as terminal_width;

use crate::session_client::{self, SessionFlags};
use composer::{Composer, Input, Verdict};
use daemon_link::{Link, TurnRefused};
use hailer_render::Style;
use screen::Screen;
use turn_view::{TurnOutcome, TurnView};

/// What `hailer notebook` was asked for.
#[derive(Debug, Clone, Default)]
pub(crate) struct ChatOptions {
    pub flags: SessionFlags,
    /// Line-oriented input and output, no colours, no cursor control.
    pub plain: bool,
    /// Never open a browser.
    pub no_browser: bool,
    /// Show the installers' own output of a kernel set-up too (`--verbose`).
    pub verbose: bool,
}

/// Whether the loop goes on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flow {
    Continue,
    Exit(u8),
}

pub(crate) async fn run(home: &HailerHome, options: ChatOptions) -> anyhow::Result<ExitCode> {
    let loaded = load_config(&options.flags);
    // Not a workspace: said before the line editor takes the terminal, which stays as it was.
    if let Some(loaded) = &loaded
        && let Some(missing) = loaded.preflight().fatal.iter().find(|problem| {
            problem.area == hailer_config::Area::Config && loaded.config_path.is_none()
        })
    {
        eprintln!("hailer: {}\n{}", missing.message, missing.hint);
        return Ok(ExitCode::FAILURE);
    }
    let plain = options.plain || !terminal::is_capable();
    let _terminal = terminal::ModeGuard::save();
    let started = if plain {
        None
    } else {
        Composer::interactive(Style::detect(false), Some(history_path(home))).ok()
    };
    let (composer, screen) =
        started.unwrap_or_else(|| (Composer::plain(), Screen::plain(Style::detect(true))));
    let mut chat = Chat {
        view: TurnView::new(&screen).with_verbose(options.verbose),
        screen,
        composer,
        loaded,
        options,
        link: None,
        last_seq: 0,
        busy: false,
        queued: VecDeque::new(),
        closing: false,
    };
    let code = chat.run(home).await?;
    Ok(ExitCode::from(code))
}

/// Where the line editor keeps its history.
fn history_path(home: &HailerHome) -> std::path::PathBuf {
    home.state_dir.join("chat-history.txt")
}

/// The configuration as this shell sees it, for the panel, `/context` and `/model`.
fn load_config(flags: &SessionFlags) -> Option<Loaded> {
    let overrides = hailer_config::Overrides {
        workspace: flags.workspace.clone(),
        config: flags.config.clone(),
        kernel: flags.kernel.clone(),
        ..Default::default()
    };
    let inputs = hailer_config::LoadInputs::from_process(overrides).ok()?;
    hailer_config::load(&inputs).ok()
}

struct Chat {
    screen: Screen,
    composer: Composer,
    view: TurnView,
    loaded: Option<Loaded>,
    options: ChatOptions,
    link: Option<Link>,
    /// A turn runs (this client's or another's), or this client is starting one.
    busy: bool,
    /// Messages waiting for the session (one, typed during startup) or, in plain mode, for the
    /// running turn to end.
    queued: VecDeque<String>,
    /// Plain mode's input ended: leave once the queue is done.
    closing: bool,
    /// The sequence number of the last event seen, to resume after a dropped connection.
    last_seq: u64,
}

/// How many times a dropped event stream is followed again (about 30 s in all).
const RESUME_TRIES: u32 = 18;

impl Chat {
    async fn run(&mut self, home: &HailerHome) -> anyhow::Result<u8> {
        let mut interrupts = Interrupts::listen()?;
        let connect = daemon_link::connect(home.clone(), self.options.flags.clone());
        tokio::pin!(connect);
        let mut connecting = true;
        let mut input_open = true;
        if self.screen.is_interactive() {
            self.screen.line(
                self.screen
                    .style
                    .dim("Starting the session… you can type already."),
            );
        }
        loop {
            let flow = tokio::select! {
                input = self.composer.inputs.recv(), if input_open => {
                    let input = input.unwrap_or_else(|| {
                        input_open = false;
                        Input::Eof
                    });
                    self.on_input(input).await
                }
                result = &mut connect, if connecting => {
                    connecting = false;
                    match result {
                        Ok(link) => self.on_connected(link).await,
                        Err(error) => {
                            self.screen.line(self.screen.style.red(&format!("hailer: {error:#}")));
                            Flow::Exit(1)
                        }
                    }
                }
                envelope = daemon_link::next_envelope(self.link.as_mut().map(|link| &mut link.socket)) => {
                    match envelope {
                        Some(envelope) => {
                            self.last_seq = self.last_seq.max(envelope.seq);
                            self.on_event(&envelope.event).await
                        }
                        None => self.resume().await,
                    }
                }
                // SIGINT while the editor is not reading (it reads Ctrl+C itself in raw mode):
                // nothing waits for a verdict.
                _ = interrupts.recv() => self.on_interrupt(String::new()).await.1,
            };
            if let Flow::Exit(code) = flow {
                self.composer.answer(Verdict::Stop);
                self.screen.clear_prompt();
                return Ok(code);
            }
            if self.closing && !self.busy && self.queued.is_empty() && self.link.is_some() {
                self.leave();
                return Ok(0);
            }
        }
    }

    /// The event stream closed without the session saying it stopped: follow it again from
    /// the last event seen, for a while, saying so.
    async fn resume(&mut self) -> Flow {
        let style = self.screen.style;
        let Some(link) = self.link.as_mut() else {
            return Flow::Exit(1);
        };
        self.screen
            .line(style.yellow("The connection to hailerd dropped; reconnecting…"));
        let mut wait = Duration::from_millis(100);
        let mut last_error = None;
        for _ in 0..RESUME_TRIES {
            tokio::time::sleep(wait).await;
            wait = (wait * 2).min(Duration::from_secs(2));
            match session_client::resume_events(&link.endpoint, &link.session.id, self.last_seq)
                .await
            {
                Ok(socket) => {
                    link.socket = socket;
                    self.screen.line(style.dim(
                        "Reconnected: what happened meanwhile follows, and nothing is shown twice.",
                    ));
                    return Flow::Continue;
                }
                Err(error) => last_error = Some(error),
            }
        }
        let why = last_error
            .map(|error| format!(" ({error:#})"))
            .unwrap_or_default();
        self.screen.line(style.red(&format!(
            "The connection to hailerd is lost{why}; the session may have stopped. Run hailer \
             again."
        )));
        Flow::Exit(1)
    }

    async fn on_connected(&mut self, link: Link) -> Flow {
        let style = self.screen.style;
        for line in panel::lines(&link.session, self.loaded.as_ref(), style) {
            self.screen.line(line);
        }
        let config_warnings: Vec<&str> = self
            .loaded
            .iter()
            .flat_map(|loaded| loaded.warnings.iter().map(|w| w.message.as_str()))
            .collect();
        for warning in &link.session.warnings {
            if config_warnings.contains(&warning.as_str()) {
                self.screen
                    .line(style.yellow(&format!("warning: {warning}")));
            } else {
                self.screen.line(warning.clone());
            }
        }
        if let Some(note) = &link.session.conversation_note {
            self.screen.line(note.clone());
        }
        if let Some(problem) = &link.session.agent_problem {
            self.screen
                .line(style.yellow(&format!("The agent is not available: {}", problem.message)));
            if let Some(hint) = &problem.hint {
                self.screen.line(hint.clone());
            }
        }
        if link.attached {
            let others = match link.session.clients {
                0 => String::new(),
                1 => " with 1 other client".to_owned(),
                n => format!(" with {n} other clients"),
            };
            self.screen.line(style.dim(&format!(
                "Attached to the session already running in hailerd{others}."
            )));
            if self.options.flags.new_thread {
                self.screen
                    .line("Its conversation starts afresh, as --new asked.");
            }
        }
        if self.screen.is_interactive() {
            self.screen.line(style.dim("Type /help for commands."));
        }
        self.link = Some(link);
        self.send_next_queued().await
    }

    async fn on_event(&mut self, event: &SessionEvent) -> Flow {
        if let SessionEvent::Stopped { reason } = event {
            self.screen.line(
                self.screen
                    .style
                    .red(&format!("The session stopped: {reason}")),
            );
            return Flow::Exit(1);
        }
        match self.view.show(&self.screen, event) {
            Some(TurnOutcome::Started { .. }) => self.busy = true,
            Some(TurnOutcome::Ended { .. }) => {
                self.busy = false;
                return self.send_next_queued().await;
            }
            None => {}
        }
        Flow::Continue
    }

    async fn on_input(&mut self, input: Input) -> Flow {
        let (verdict, flow) = match input {
            Input::Line(line) => self.on_line(line).await,
            Input::Interrupt(typed) => self.on_interrupt(typed).await,
            Input::Eof if !self.screen.is_interactive() => {
                self.closing = true;
                (Verdict::Accepted, Flow::Continue)
            }
            Input::Eof => {
                self.leave();
                (Verdict::Stop, Flow::Exit(0))
            }
        };
        if let Flow::Continue = flow {
            self.composer.answer(verdict);
        }
        flow
    }

    async fn on_line(&mut self, line: String) -> (Verdict, Flow) {
        let text = line.trim();
        if text.is_empty() {
            return (Verdict::Accepted, Flow::Continue);
        }
        let message = line.trim_end().to_owned();
        if !self.screen.is_interactive() {
            // Plain mode: every line in order, each when the one before is done.
            self.queued.push_back(message);
            return (Verdict::Accepted, self.send_next_queued().await);
        }
        if text.starts_with('/') {
            return self.slash(text).await;
        }
        let style = self.screen.style;
        if self.link.is_none() {
            if self.queued.is_empty() {
                self.queued.push_back(message);
                self.screen.line(style.dim(
                    "Your message goes out as soon as the session is ready (Ctrl+C takes it back).",
                ));
                return (Verdict::Accepted, Flow::Continue);
            }
            self.screen.line(style.yellow(
                "One message is already waiting for the session; this one stays in your draft.",
            ));
            return (Verdict::KeepDraft(message), Flow::Continue);
        }
        if self.busy {
            self.screen
                .line(style.yellow("Still working. Ctrl+C cancels; your draft is kept."));
            return (Verdict::KeepDraft(message), Flow::Continue);
        }
        match self.send(&message).await {
            Ok(()) => (Verdict::Accepted, Flow::Continue),
            Err(_) => (Verdict::KeepDraft(message), Flow::Continue),
        }
    }

    /// Ctrl+C: cancels the running turn (what was typed stays in the editor), takes a waiting
    /// message back, clears a typed line, or else leaves.
    async fn on_interrupt(&mut self, typed: String) -> (Verdict, Flow) {
        let style = self.screen.style;
        let keep = if typed.is_empty() {
            Verdict::Accepted
        } else {
            Verdict::KeepDraft(typed.clone())
        };
        if self.busy
            && let Some(link) = &self.link
        {
            self.screen.line(style.dim("Cancelling…"));
            let path = format!("/v1/sessions/{}/cancel", link.session.id);
            if let Err(error) = link
                .endpoint
                .post(&path, &serde_json::json!({}), daemon_link::REQUEST_TIMEOUT)
                .await
            {
                self.screen
                    .line(style.red(&format!("The turn could not be cancelled: {error:#}")));
            }
            return (keep, Flow::Continue);
        }
        if self.link.is_none()
            && self.screen.is_interactive()
            && let Some(message) = self.queued.pop_front()
        {
            self.screen
                .line(style.dim("Your waiting message is back in the draft."));
            return (Verdict::KeepDraft(message), Flow::Continue);
        }
        if !typed.trim().is_empty() {
            // As in a shell: the line goes, the chat stays; Ctrl+C on an empty line leaves.
            return (Verdict::Accepted, Flow::Continue);
        }
        self.leave();
        (Verdict::Stop, Flow::Exit(0))
    }

    /// Works through waiting lines while the session is ready and idle: slash commands run,
    /// the first message starts a turn.
    async fn send_next_queued(&mut self) -> Flow {
        while self.link.is_some() && !self.busy {
            let Some(line) = self.queued.pop_front() else {
                return Flow::Continue;
            };
            if !self.screen.is_interactive() {
                self.screen
                    .line(format!("{} {line}", self.screen.style.bold_cyan("You >")));
            }
            if line.trim_start().starts_with('/') {
                if let (_, Flow::Exit(code)) = self.slash(line.trim()).await {
                    return Flow::Exit(code);
                }
                continue;
            }
            match self.send(&line).await {
                Ok(()) => return Flow::Continue,
                Err(TurnRefused::Busy) => {
                    // Another client's turn came first: wait for it to end.
                    self.queued.push_front(line);
                    return Flow::Continue;
                }
                Err(TurnRefused::Failed(_)) => {}
            }
        }
        Flow::Continue
    }

    /// Starts a turn; a refusal is shown and the chat stays idle.
    async fn send(&mut self, message: &str) -> Result<(), TurnRefused> {
        self.send_ask(&daemon_link::Ask::message(message), message)
            .await
    }

    /// Starts a turn for `ask`; `shown` is how this terminal's own message is echoed.
    async fn send_ask(&mut self, ask: &daemon_link::Ask, shown: &str) -> Result<(), TurnRefused> {
        let Some(link) = &self.link else {
            return Err(TurnRefused::Failed(anyhow::anyhow!("not connected")));
        };
        self.busy = true;
        self.view.own_text = Some(shown.to_owned());
        let result =
            daemon_link::start_turn(&link.endpoint, &link.session.id, ask, &self.options.flags)
                .await;
        if let Err(refused) = &result {
            self.view.own_text = None;
            self.busy = false;
            let said = match refused {
                TurnRefused::Busy => self.screen.style.yellow(
                    "Another turn is running in this session; wait for it or press Ctrl+C to cancel it.",
                ),
                TurnRefused::Failed(error) => self.screen.style.red(&format!("{error:#}")),
            };
            self.screen.line(said);
        }
        result.map(|_| ())
    }

    /// Says goodbye and what happens to the session.
    fn leave(&self) {
        let style = self.screen.style;
        let Some(_link) = &self.link else {
            self.screen.line("Bye.");
            return;
        };
        let linger = self
            .loaded
            .as_ref()
            .map(|loaded| loaded.config.daemon.session_linger_secs);
        let mut said = String::from("Bye. The session keeps running in hailerd");
        match linger {
            Some(secs) => said.push_str(&format!(
                " and stops {secs} s after its last client leaves ([daemon].session_linger_secs)."
            )),
            None => said.push_str(" until it has had no client for its linger time."),
        }
        if self.busy {
            said.push_str(" The running turn goes on there.");
        }
        self.screen.line(style.dim(&said));
    }

    async fn slash(&mut self, line: &str) -> (Verdict, Flow) {
        let context = slash::Context {
            screen: &self.screen,
            link: self.link.as_ref(),
            loaded: self.loaded.as_ref(),
            view: &self.view,
            busy: self.busy,
            no_browser: self.options.no_browser,
            flags: &self.options.flags,
        };
        match slash::run(&context, line).await {
            slash::Outcome::Done => (Verdict::Accepted, Flow::Continue),
            slash::Outcome::ConversationStarted => {
                self.view.started_conversation();
                (Verdict::Accepted, Flow::Continue)
            }
            slash::Outcome::Ask(ask) => match self.send_ask(&ask, line).await {
                Ok(()) => (Verdict::Accepted, Flow::Continue),
                // The refusal was shown; the command stays for the user to fix or resend.
                Err(_) => (Verdict::KeepDraft(line.to_owned()), Flow::Continue),
            },
            slash::Outcome::KeepDraft => (Verdict::KeepDraft(line.to_owned()), Flow::Continue),
            slash::Outcome::Exit => {
                self.leave();
                (Verdict::Stop, Flow::Exit(0))
            }
        }
    }
}

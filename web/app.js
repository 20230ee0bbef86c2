// Hailer's chat page. Plain script, no build step. Model output never reaches innerHTML unless
// the daemon rendered and sanitised it (POST /v1/render); everything else is set as text.
"use strict";

(() => {
  const TOKEN_KEY = "hailer.token";
  const WS_PROTOCOL = "hailer.v1";
  const WS_TOKEN_PREFIX = "hailer.token.";
  const RETRY_MS = [250, 500, 1000, 2000, 4000];
  // How often a page whose session ended looks for a restarted daemon (about ten minutes).
  const END_WATCH_ATTEMPTS = 160;
  const NODES_PER_FRAME = 2500;
  // The newest messages stay laid out always; those before them are left to the browser to lay
  // out when they come into view (the `settled` class).
  const LAID_OUT = 12;

  const $ = (id) => document.getElementById(id);

  class AuthError extends Error {}

  // ---- the token: from the link's fragment to sessionStorage, never in the address bar ----

  // The link is `/#token=...&session=...`; both leave the address bar at once.
  function takeFragment() {
    const fragment = new URLSearchParams(location.hash.slice(1));
    const given = fragment.get("token");
    if (location.hash) history.replaceState(null, "", location.pathname + location.search);
    if (given && /^[0-9A-Za-z_-]+$/.test(given)) sessionStorage.setItem(TOKEN_KEY, given);
    return { token: sessionStorage.getItem(TOKEN_KEY), session: fragment.get("session") };
  }

  const { token, session: linkedSession } = takeFragment();
  // A new link opened over this page changes only the fragment: start again with it.
  window.addEventListener("hashchange", () => {
    if (new URLSearchParams(location.hash.slice(1)).has("token")) {
      takeFragment();
      location.reload();
    }
  });
  let everConnected = false;

  function showGate(reason) {
    sessionStorage.removeItem(TOKEN_KEY);
    closeSocket();
    $("app").hidden = true;
    $("gate").hidden = false;
    $("gate-reason").textContent = reason;
    setConnection("Not signed in", true);
  }

  function setConnection(text, bad) {
    const element = $("connection");
    element.textContent = text;
    element.classList.toggle("bad", Boolean(bad));
  }

  async function api(method, path, body) {
    const headers = { Authorization: `Bearer ${token}` };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: "no-store",
      credentials: "omit",
    });
    if (response.status === 401) throw new AuthError("unauthorized");
    const data = await response.json().catch(() => ({}));
    if (!response.ok) {
      const error = new Error(data.hint ? `${data.message} ${data.hint}` : data.message || response.statusText);
      error.status = response.status;
      throw error;
    }
    everConnected = true;
    return data;
  }

  function refused() {
    showGate(
      everConnected
        ? "The daemon restarted, so this page's sign-in no longer counts."
        : "This page was opened without a valid sign-in link."
    );
  }

  // ---- the conversation: a list of items, drawn into the page once per frame ----

  // Events never touch the page's layout: they queue new nodes and changes to shown ones, and
  // the next animation frame applies them all, then keeps the view at the bottom when the
  // reader was following it. So a frame costs one layout however many events arrived in it.
  const conversation = {
    items: [],
    pending: [],
    changes: [],
    texts: new Set(),
    scheduled: false,
    settled: 0,
    // Whether the view keeps to the newest message; only the reader's own scrolling changes it.
    following: true,
    // Where the last frame scrolled the view to: a scroll event that finds it there is that
    // frame's own, not the reader's.
    ownTop: null,
    turns: new Map(),
    tools: new Map(),

    reset() {
      this.items = [];
      this.pending = [];
      this.changes = [];
      this.texts.clear();
      this.following = true;
      this.ownTop = null;
      this.settled = 0;
      this.turns.clear();
      this.tools.clear();
      $("conversation").replaceChildren();
    },

    add(item) {
      item.node = buildNode(item);
      this.items.push(item);
      this.pending.push(item.node);
      this.schedule();
      return item;
    },

    // Shows `item.text` as its text at the next frame.
    showText(item) {
      this.texts.add(item);
      this.schedule();
    },

    // Runs `change` (a write to nodes, never a read of their layout) at the next frame.
    change(change) {
      this.changes.push(change);
      this.schedule();
    },

    // Brings the view to the bottom at the next frame, when the reader follows it.
    follow() {
      this.schedule();
    },

    schedule() {
      if (this.scheduled) return;
      this.scheduled = true;
      requestAnimationFrame(() => this.flush());
    },

    flush() {
      this.scheduled = false;
      const view = scroller();
      for (const item of this.texts) item.textNode.textContent = item.text;
      this.texts.clear();
      const changes = this.changes;
      this.changes = [];
      for (const change of changes) change();
      const batch = this.pending.splice(0, NODES_PER_FRAME);
      if (batch.length) {
        const fragment = document.createDocumentFragment();
        for (const node of batch) fragment.append(node);
        const list = $("conversation");
        list.append(fragment);
        const upTo = list.children.length - LAID_OUT;
        for (let index = this.settled; index < upTo; index += 1) list.children[index].classList.add("settled");
        this.settled = Math.max(this.settled, upTo);
      }
      if (this.following) {
        // Every write of the frame is done: this read lays the page out once, and the frame
        // is painted from that layout.
        view.scrollTop = view.scrollHeight;
        this.ownTop = view.scrollTop;
      }
      if (this.pending.length) this.schedule();
    },

    // What scrolls (`target`) moved: once the reader is near the bottom the view follows the
    // conversation again; while they read further up, it does not.
    scrolled(target) {
      const view = scroller();
      if (target !== (view === document.scrollingElement ? document : view)) return;
      const top = view.scrollTop;
      if (top === this.ownTop) return;
      this.ownTop = null;
      this.following = view.scrollHeight - top - view.clientHeight < 80;
    },
  };

  // What scrolls the conversation: its own list, or on a phone's narrow layout the whole page.
  function scroller() {
    const list = $("conversation");
    return getComputedStyle(list).overflowY === "visible" ? document.scrollingElement : list;
  }

  function element(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function buildNode(item) {
    const node = element("li", `msg ${item.kind}`);
    if (item.kind === "user") {
      node.append(element("span", "who", item.client ? `You (${item.client})` : "You"));
      node.append(element("div", "text", item.text));
    } else if (item.kind === "assistant") {
      node.append(element("span", "who", "Agent"));
      item.textNode = element("div", "text", item.text || "");
      node.append(item.textNode);
      if (item.streaming) {
        node.setAttribute("aria-live", "polite");
        node.setAttribute("aria-busy", "true");
      }
    } else if (item.kind === "tool") {
      node.classList.add("tool");
      node.append(window.hailerWork.toolNode(item));
    } else if (item.kind === "chart") {
      item.figure = window.hailerWork.chartNode(item.chart, current && current.notebookLink);
      // The picture's height is known once it loads: keep the bottom in view then.
      item.figure.addEventListener("load", () => conversation.follow(), true);
      node.append(item.figure);
    } else {
      node.textContent = item.text;
    }
    return node;
  }

  // The turn's charts move under its answer once it has one, so each answer shows its charts.
  function placeCharts(turn, answer) {
    if (!answer || !turn.charts) return;
    const charts = turn.charts;
    turn.charts = [];
    for (const chart of charts) {
      const waiting = conversation.pending.indexOf(chart.node);
      if (waiting >= 0) conversation.pending.splice(waiting, 1);
    }
    conversation.change(() => {
      for (const chart of charts) {
        chart.node.remove();
        answer.node.append(chart.figure);
      }
    });
  }

  async function renderMarkdown(item) {
    try {
      const { html } = await api("POST", "/v1/render", { markdown: item.text });
      // The daemon sanitised it: no script, handler, style, image or javascript: link survives.
      conversation.change(() => {
        conversation.texts.delete(item);
        item.textNode.innerHTML = html;
        item.textNode.classList.add("html");
      });
    } catch (error) {
      if (error instanceof AuthError) refused();
      // Otherwise the plain text stays.
    }
  }

  // ---- session events ----

  let current = null; // { id, info, socket, lastSeq, retry, stopped, usage }

  function turnOf(turnId) {
    let turn = conversation.turns.get(turnId);
    if (!turn) {
      turn = { answer: null };
      conversation.turns.set(turnId, turn);
    }
    return turn;
  }

  function answerOf(turnId) {
    const turn = turnOf(turnId);
    if (!turn.answer || turn.answer.closed) {
      turn.answer = conversation.add({ kind: "assistant", text: "", streaming: true });
    }
    return turn.answer;
  }

  function closeAnswer(turnId, finalText) {
    const turn = turnOf(turnId);
    let answer = turn.answer;
    if (finalText !== undefined && finalText !== "" && (!answer || answer.closed)) answer = answerOf(turnId);
    if (!answer) return null;
    if (finalText !== undefined && finalText !== "") answer.text = finalText;
    conversation.showText(answer);
    answer.streaming = false;
    answer.closed = true;
    conversation.change(() => answer.node.setAttribute("aria-busy", "false"));
    return answer;
  }

  function applyEnvelope(envelope) {
    if (!current) return;
    if (envelope.seq > 0) {
      if (envelope.seq <= current.lastSeq) return; // seen before a reconnect
      current.lastSeq = envelope.seq;
    }
    const event = envelope.event;
    switch (event.type) {
      case "attached":
        showInfo(event.session);
        break;
      case "history":
        showHistory(event.turns || []);
        break;
      case "kernel":
        current.info.kernel = event.status;
        showKernel();
        // The kernel turns idle after every run: fetch the notebook's link only when it is not
        // known yet, and forget it when the kernel (and so its token) may be replaced.
        if (event.status !== "idle" && event.status !== "running") {
          current.linkedNotebook = null;
        } else if (event.status === "idle" && current.linkedNotebook !== current.info.activeNotebook) {
          showNotebook(current.info.activeNotebook);
        }
        loadSessions();
        if (event.message) {
          const text = event.hint ? `${event.message} ${event.hint}` : event.message;
          conversation.add({ kind: "notice", text });
        }
        break;
      case "notebookSwitched":
        current.info.activeNotebook = event.notebook;
        showNotebook(event.notebook);
        break;
      case "turnStarted":
        conversation.add({ kind: "user", text: event.text, client: event.client });
        turnOf(event.turn_id);
        setRunning(true);
        break;
      case "textDelta": {
        const answer = answerOf(event.turn_id);
        answer.text += event.delta;
        conversation.showText(answer);
        break;
      }
      case "toolCallStarted": {
        const turn = turnOf(event.turn_id);
        if (turn.answer) closeAnswer(event.turn_id);
        const item = conversation.add({ ...window.hailerWork.toolItem(event), done: false });
        // Keyed by turn and call: a model may give its calls the same ids in every turn.
        conversation.tools.set(`${event.turn_id}/${event.call_id}`, item);
        break;
      }
      case "toolCallFinished": {
        let item = conversation.tools.get(`${event.turn_id}/${event.call_id}`);
        if (!item) item = conversation.add({ ...window.hailerWork.toolItem(event), done: false });
        item.done = true;
        item.ok = event.ok;
        item.result = event.output || event.preview;
        if (item.statusNode) conversation.change(() => window.hailerWork.finishTool(item));
        break;
      }
      case "chart": {
        const turn = turnOf(event.turn_id);
        if (!turn.charts) turn.charts = [];
        turn.charts.push(conversation.add({ kind: "chart", chart: event.chart }));
        break;
      }
      case "usage":
        showUsage(event.usage, false);
        break;
      case "turnFinished": {
        const answer = closeAnswer(event.turn_id, event.text);
        placeCharts(turnOf(event.turn_id), answer);
        showUsage(event.usage, true);
        setRunning(false);
        if (answer && answer.text) renderMarkdown(answer);
        loadShortcuts(current);
        loadAudit(current);
        break;
      }
      case "turnFailed":
        closeAnswer(event.turn_id);
        conversation.add({ kind: "error", text: event.hint ? `${event.message} ${event.hint}` : event.message });
        setRunning(false);
        loadAudit(current);
        break;
      case "turnCancelled":
        closeAnswer(event.turn_id);
        conversation.add({ kind: "notice", text: "The answer was cancelled." });
        setRunning(false);
        loadAudit(current);
        break;
      case "conversationStarted":
        startedAfresh(event);
        break;
      case "notice":
        conversation.add({ kind: event.level === "error" ? "error" : "notice", text: event.message });
        break;
      case "kernelSetup": {
        // The kernel's environment set-up: its steps and notes, not the installers' output.
        const line = event.line || {};
        if (line.kind === "progress" && !line.output) {
          conversation.add({ kind: "notice", text: line.line });
        } else if (line.kind === "done") {
          conversation.add({ kind: "notice", text: `The environment is set up. Full output: ${line.log || "(no log)"}` });
        } else if (line.kind === "failed") {
          conversation.add({ kind: "error", text: `${line.message}${line.log ? ` Full output: ${line.log}` : ""}` });
        }
        break;
      }
      case "lagged":
        conversation.add({ kind: "notice", text: `This page missed ${event.missed} events; the session view may be incomplete.` });
        break;
      case "stopped":
        current.stopped = true;
        current.info.kernel = "stopped";
        showKernel();
        conversation.add({ kind: "notice", text: `The session ended: ${event.reason}` });
        setRunning(false);
        $("send").disabled = true;
        $("new-conversation").disabled = true;
        showNewConfirm(false);
        break;
      default:
        break;
    }
  }

  // The conversation so far, sent when the page attaches: shown as live turns are, once (a
  // page that already shows turns keeps them). It is drawn in one frame; the answers' Markdown
  // is rendered newest first, so what the reader sees at the bottom is ready first.
  function showHistory(turns) {
    if (conversation.items.length) return;
    const answers = [];
    for (const turn of turns) {
      conversation.add({ kind: "user", text: turn.text });
      for (const call of turn.tools || []) {
        const known = call.ok !== undefined && call.ok !== null;
        conversation.add({
          ...window.hailerWork.toolItem(call),
          done: known,
          ok: known && call.ok,
          result: known ? call.output || call.result : "",
        });
      }
      const charts = { charts: (turn.charts || []).map((chart) => conversation.add({ kind: "chart", chart })) };
      if (turn.answer) {
        const answer = conversation.add({ kind: "assistant", text: turn.answer, streaming: false });
        answer.closed = true;
        placeCharts(charts, answer);
        answers.push(answer);
      }
    }
    for (const answer of answers.reverse()) renderMarkdown(answer);
  }

  // A new conversation began (here or in another client): the earlier turns leave the view.
  function startedAfresh(event) {
    const model = `${event.provider}:${event.model}`;
    current.info.model = model;
    $("fact-model").textContent = model;
    conversation.reset();
    current.usage = { input: 0, output: 0, turn: null };
    $("fact-tokens").textContent = "none yet";
    const ours = current.askedForNew > 0;
    if (ours) current.askedForNew -= 1;
    const who = ours ? "You" : event.client === "browser" ? "Another page" : `The ${event.client} client`;
    const text =
      event.reason === "model"
        ? `${who} switched the model to ${model}: a new conversation begins.`
        : `${who} started a new conversation: the agent no longer sees the earlier turns.`;
    conversation.add({ kind: "notice", text });
  }

  function showInfo(info) {
    current.info = info;
    $("session-title").textContent = info.workspace;
    $("fact-model").textContent = info.model || "unknown";
    $("fact-runtime").textContent = info.kernelLine;
    showNotebook(info.activeNotebook);
    $("unsafe-warning").hidden = info.runtime !== "unsafe-local";
    const warnings = $("session-warnings");
    const problem = info.agentProblem
      ? [`The agent is not available: ${info.agentProblem.message}${info.agentProblem.hint ? ` ${info.agentProblem.hint}` : ""}`]
      : [];
    const note = info.conversationNote ? [info.conversationNote] : [];
    warnings.replaceChildren(...[...(info.warnings || []), ...note, ...problem].map((text) => element("li", "", text)));
    showKernel();
  }

  // The active notebook: its name, made a link that opens it in marimo once the kernel runs
  // (the link carries the kernel's token, so it is fetched, never kept in the address bar).
  let notebookAsk = 0;
  async function showNotebook(name) {
    const fact = $("fact-notebook");
    const ask = ++notebookAsk;
    fact.replaceChildren(document.createTextNode(name || "none"));
    const session = current;
    if (session) {
      session.linkedNotebook = null;
      session.notebookLink = null;
    }
    if (!session || !["idle", "running"].includes(session.info.kernel)) return;
    try {
      const list = await api("GET", `/v1/sessions/${encodeURIComponent(session.id)}/notebooks`);
      if (session !== current || ask !== notebookAsk || !list.active) return;
      session.info.activeNotebook = list.active;
      if (!list.activeLink) {
        fact.replaceChildren(document.createTextNode(list.active));
        return;
      }
      session.notebookLink = list.activeLink;
      const link = element("a", "", list.active);
      link.href = list.activeLink;
      link.target = "_blank";
      link.rel = "noopener noreferrer";
      link.title = `Open ${list.active} in marimo, in a new tab`;
      fact.replaceChildren(link);
      session.linkedNotebook = list.active;
    } catch (error) {
      if (error instanceof AuthError) refused();
    }
  }

  function showKernel() {
    const state = $("fact-kernel-state");
    const status = current.info.kernel;
    state.textContent = status;
    state.className = `state ${status}`;
    if (current.info.kernelError && status === "failed") {
      state.title = [current.info.kernelError, current.info.kernelHint].filter(Boolean).join(" ");
    }
  }

  function showUsage(usage, final) {
    if (!usage) return;
    const turnTokens = (usage.inputTokens || 0) + (usage.outputTokens || 0);
    if (final) {
      current.usage.input += usage.inputTokens || 0;
      current.usage.output += usage.outputTokens || 0;
      current.usage.turn = null;
    } else {
      current.usage.turn = turnTokens;
    }
    const { input, output, turn } = current.usage;
    let text = `${input.toLocaleString()} in · ${output.toLocaleString()} out`;
    if (turn !== null) text += ` (this answer so far: ${turn.toLocaleString()})`;
    $("fact-tokens").textContent = text;
  }

  function setRunning(running) {
    current.running = running;
    $("cancel").disabled = !running;
  }

  // ---- the session's WebSocket, reconnecting and catching up by sequence number ----

  function closeSocket() {
    if (current && current.socket) {
      current.socket.onclose = null;
      current.socket.close();
      current.socket = null;
    }
  }

  function connect(session) {
    const after = session.lastSeq > 0 ? `?after=${session.lastSeq}` : "";
    const url = `ws://${location.host}/v1/sessions/${encodeURIComponent(session.id)}/events${after}`;
    const socket = new WebSocket(url, [WS_PROTOCOL, WS_TOKEN_PREFIX + token]);
    session.socket = socket;
    socket.onopen = () => {
      session.retry = 0;
      everConnected = true;
      setConnection("Connected");
    };
    socket.onmessage = (message) => {
      if (current !== session) return;
      try {
        applyEnvelope(JSON.parse(message.data));
      } catch (error) {
        console.warn("ignored an event the page cannot read", error);
      }
    };
    socket.onclose = () => {
      if (current !== session || session.socket !== socket) return;
      session.socket = null;
      if (session.stopped) {
        setConnection("Session ended");
        watchAfterEnd(session);
        return;
      }
      setConnection("Connection lost; reconnecting…", true);
      const delay = RETRY_MS[Math.min(session.retry, RETRY_MS.length - 1)];
      session.retry += 1;
      setTimeout(() => reconnect(session), delay);
    };
  }

  async function reconnect(session) {
    if (current !== session) return;
    try {
      await api("GET", `/v1/sessions/${encodeURIComponent(session.id)}`);
    } catch (error) {
      if (error instanceof AuthError) return refused();
      if (error.status === 404) {
        conversation.add({ kind: "notice", text: "This session no longer exists (the daemon may have restarted)." });
        current.stopped = true;
        setConnection("Session ended", true);
        $("send").disabled = true;
        $("new-conversation").disabled = true;
        showNewConfirm(false);
        return;
      }
      // The daemon is unreachable: try again later.
      const delay = RETRY_MS[Math.min(session.retry, RETRY_MS.length - 1)];
      session.retry += 1;
      setTimeout(() => reconnect(session), delay);
      return;
    }
    connect(session);
  }

  // After the session ended, find out whether the daemon itself went away: one that comes back
  // has a new token (the sign-in notice); one that still runs no longer knows the session.
  async function watchAfterEnd(session, attempt = 0) {
    if (current !== session || attempt >= END_WATCH_ATTEMPTS) return;
    try {
      await api("GET", `/v1/sessions/${encodeURIComponent(session.id)}`);
    } catch (error) {
      if (error instanceof AuthError) return refused();
      if (error.status === 404) return;
    }
    // Unreachable (a daemon stopping or restarting), or the session not gone yet: look again.
    const delay = RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)];
    setTimeout(() => watchAfterEnd(session, attempt + 1), delay);
  }

  function openSession(info) {
    closeSocket();
    conversation.reset();
    current = {
      id: info.id,
      info,
      socket: null,
      lastSeq: 0,
      retry: 0,
      stopped: false,
      running: false,
      usage: { input: 0, output: 0, turn: null },
      askedForNew: 0,
    };
    showNewConfirm(false);
    $("fact-tokens").textContent = "none yet";
    $("send").disabled = false;
    $("new-conversation").disabled = false;
    $("composer-error").textContent = "";
    showInfo(info);
    loadShortcuts(current);
    $("audit-list").replaceChildren();
    $("audit").hidden = false;
    loadAudit(current);
    setRunning(false);
    $("session").hidden = false;
    $("app").classList.add("in-session");
    connect(current);
    $("message").focus();
  }

  // ---- the audit panel: what ran on the data in this session, newest first ----

  async function loadAudit(session) {
    if (!session) return;
    let list;
    try {
      list = await api("GET", `/v1/sessions/${encodeURIComponent(session.id)}/audit`);
    } catch (error) {
      if (error instanceof AuthError) return refused();
      return;
    }
    if (session !== current) return;
    // Records never change once written: only those past the newest one shown are added, so
    // a long session's panel is not built again after every answer.
    const entries = list.entries || [];
    const newest = entries.reduce((seq, entry) => Math.max(seq, entry.seq || 0), 0);
    const shown = session.auditSeq || 0;
    const panel = $("audit-list");
    if (newest < shown) {
      panel.replaceChildren(...entries.slice().reverse().map(window.hailerAudit.item));
    } else {
      const fresh = entries.filter((entry) => (entry.seq || 0) > shown).reverse();
      if (fresh.length) panel.prepend(...fresh.map(window.hailerAudit.item));
    }
    session.auditSeq = newest;
    $("audit-empty").hidden = entries.length > 0;
  }

  // ---- /skill and /prompt: the workspace's skills and prompt templates ----

  // The turn request for what was typed: `/skill <name> [message]` and `/prompt <name> [args]`
  // name a skill or a prompt template (the daemon reads them fresh for every message);
  // anything else is a plain message.
  function turnRequest(text) {
    const match = /^\/(skill|prompt)(?=\s|$)(?:\s+(\S+))?\s*([\s\S]*)$/.exec(text);
    if (!match) return { text, client: "browser" };
    const [, kind, name, rest] = match;
    if (!name) {
      throw new Error(kind === "skill"
        ? "Name the skill: /skill <name> [message]."
        : "Name the prompt: /prompt <name> [args].");
    }
    return kind === "skill"
      ? { text: "", client: "browser", skill: { name, message: rest.trim() } }
      : { text: "", client: "browser", prompt: { name, args: rest.trim() } };
  }

  // Buttons that start a /skill or /prompt message, refreshed after every answer.
  async function loadShortcuts(session) {
    if (!session) return;
    const id = encodeURIComponent(session.id);
    const none = (key) => () => ({ [key]: [] });
    const [skills, prompts] = await Promise.all([
      api("GET", `/v1/sessions/${id}/skills`).catch(none("skills")),
      api("GET", `/v1/sessions/${id}/prompts`).catch(none("prompts")),
    ]);
    if (session !== current) return;
    const entries = [
      ...(skills.skills || []).map((skill) => ({ text: `/skill ${skill.name.includes(" ") ? skill.folder : skill.name}`, title: skill.description })),
      ...(prompts.prompts || []).map((name) => ({ text: `/prompt ${name}`, title: "" })),
    ];
    $("shortcut-list").replaceChildren(...entries.map((entry) => {
      const button = element("button", "quiet", entry.text);
      button.type = "button";
      if (entry.title) button.title = entry.title;
      button.addEventListener("click", () => {
        const box = $("message");
        box.value = `${entry.text} `;
        box.focus();
      });
      const item = element("li");
      item.append(button);
      return item;
    }));
    $("shortcuts").hidden = entries.length === 0;
  }

  // ---- sessions list and start ----

  async function loadSessions() {
    try {
      const { sessions } = await api("GET", "/v1/sessions");
      setConnection(current && current.socket ? "Connected" : "Signed in");
      const list = $("session-list");
      list.replaceChildren(
        ...sessions.map((info) => {
          const item = element("li");
          const button = element("button", "quiet", `${info.workspace} (${info.runtime}, kernel ${info.kernel})`);
          button.type = "button";
          button.addEventListener("click", () => openSession(info));
          item.append(button);
          return item;
        })
      );
      $("no-sessions").hidden = sessions.length > 0;
      $("app").hidden = false;
      return sessions;
    } catch (error) {
      if (error instanceof AuthError) refused();
      else setConnection(`Cannot reach the daemon: ${error.message}`, true);
      return [];
    }
  }

  async function startSession(event) {
    event.preventDefault();
    const path = $("workspace").value.trim();
    $("start-error").textContent = "";
    if (!path.startsWith("/")) {
      $("start-error").textContent = "Give the workspace folder as an absolute path, starting with /.";
      return;
    }
    try {
      const { session } = await api("POST", "/v1/sessions", { cwd: path, workspace: path, client: "browser" });
      await loadSessions();
      openSession(session);
    } catch (error) {
      if (error instanceof AuthError) refused();
      else $("start-error").textContent = error.message;
    }
  }

  async function send(event) {
    event.preventDefault();
    if (!current || current.stopped) return;
    const box = $("message");
    const text = box.value.trim();
    if (!text) return;
    $("composer-error").textContent = "";
    $("send").disabled = true;
    try {
      await api("POST", `/v1/sessions/${encodeURIComponent(current.id)}/turns`, turnRequest(text));
      box.value = "";
    } catch (error) {
      if (error instanceof AuthError) refused();
      else $("composer-error").textContent = error.status === 409 ? "The agent is still answering: wait, or cancel the answer." : error.message;
    } finally {
      $("send").disabled = Boolean(current && current.stopped);
    }
  }

  async function cancel() {
    if (!current) return;
    try {
      await api("POST", `/v1/sessions/${encodeURIComponent(current.id)}/cancel`);
    } catch (error) {
      if (error instanceof AuthError) refused();
      else $("composer-error").textContent = error.message;
    }
  }

  // ---- a new conversation, after the user confirms ----

  function showNewConfirm(shown) {
    $("new-confirm").hidden = !shown;
    $("new-conversation").setAttribute("aria-expanded", String(shown));
  }

  function askNewConversation() {
    if (!current || current.stopped) return;
    $("composer-error").textContent = "";
    showNewConfirm(true);
    $("new-confirm-yes").focus();
  }

  function keepConversation() {
    showNewConfirm(false);
    $("new-conversation").focus();
  }

  async function startNewConversation() {
    if (!current || current.stopped) return;
    const session = current;
    $("new-confirm-yes").disabled = true;
    session.askedForNew += 1;
    try {
      await api("POST", `/v1/sessions/${encodeURIComponent(session.id)}/conversation`, { model: null, client: "browser" });
      showNewConfirm(false);
      $("message").focus();
    } catch (error) {
      session.askedForNew -= 1;
      if (error instanceof AuthError) refused();
      else {
        showNewConfirm(false);
        $("composer-error").textContent =
          error.status === 409 ? "The agent is still answering: wait, or cancel the answer, then start anew." : error.message;
        $("new-conversation").focus();
      }
    } finally {
      $("new-confirm-yes").disabled = false;
    }
  }

  function backToList() {
    closeSocket();
    current = null;
    $("session").hidden = true;
    $("audit").hidden = true;
    $("app").classList.remove("in-session");
    loadSessions();
    $("refresh").focus();
  }

  // A way for benchmarks and diagnostics to feed recorded envelopes into the open session view.
  window.hailerPage = {
    feed(envelopes) {
      for (const envelope of envelopes) applyEnvelope(envelope);
    },
    pendingNodes: () => conversation.pending.length,
    // Closes the session's connection as a network failure would; the page reconnects.
    dropConnection() {
      if (current && current.socket) current.socket.close(4000, "dropped");
    },
    lastSeq: () => (current ? current.lastSeq : 0),
  };

  function start() {
    if (!token) {
      showGate("This page was opened without a sign-in link.");
      return;
    }
    $("start-form").addEventListener("submit", startSession);
    $("refresh").addEventListener("click", loadSessions);
    $("composer").addEventListener("submit", send);
    $("cancel").addEventListener("click", cancel);
    $("new-conversation").addEventListener("click", askNewConversation);
    $("new-confirm-yes").addEventListener("click", startNewConversation);
    $("new-confirm-no").addEventListener("click", keepConversation);
    $("new-confirm").addEventListener("keydown", (event) => {
      if (event.key === "Escape") {
        event.preventDefault();
        keepConversation();
      }
    });
    $("back").addEventListener("click", backToList);
    // The list scrolls on a laptop's layout, the whole page on a phone's.
    const scrolled = (event) => conversation.scrolled(event.target);
    $("conversation").addEventListener("scroll", scrolled, { passive: true });
    window.addEventListener("scroll", scrolled, { passive: true });
    $("message").addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        $("composer").requestSubmit();
      }
    });
    setConnection("Connecting…");
    loadSessions().then((sessions) => {
      const linked = sessions.find((info) => info.id === linkedSession);
      if (!current && (linked || sessions.length === 1)) openSession(linked || sessions[0]);
    });
  }

  start();
})();

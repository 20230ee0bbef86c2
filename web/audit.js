// The chat page's audit panel: one list item per audit record, code and URLs collapsible.
// Everything is set as text; nothing from a record reaches innerHTML.
"use strict";

(() => {
  function element(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  const OUTCOMES = { ok: "ok", error: "error", cancelled: "cancelled", outOfMemory: "out of memory" };
  const KINDS = {
    exec: "exec", cell: "cell", fetch: "fetch", copyBack: "copy back",
    kernelStart: "kernel start", kernelStop: "kernel stop", trust: "trust",
  };

  function item(entry) {
    const node = element("li");
    node.dataset.kind = entry.kind;
    const head = element("p", "audit-head");
    const parts = [entry.time.replace("T", " ").replace(/Z$/, ""), KINDS[entry.kind] || entry.kind, entry.client];
    if (entry.turn) parts.push(`turn ${entry.turn}`);
    if (entry.durationMs !== undefined) parts.push(`${entry.durationMs} ms`);
    head.append(element("span", "", parts.join(" · ")));
    if (entry.outcome) {
      head.append(" · ", element("span", entry.outcome === "ok" ? "outcome-ok" : "outcome-bad", OUTCOMES[entry.outcome] || entry.outcome));
    } else if (entry.kind === "exec") {
      head.append(" · started");
    }
    node.append(head);
    const text = entry.code || entry.url;
    if (text) {
      const details = element("details");
      const lines = text.split("\n");
      details.append(element("summary", "", lines.length > 1 ? `${lines[0]} …` : lines[0]));
      const pre = element("pre");
      pre.append(element("code", "", text));
      details.append(pre);
      if (entry.sha256) details.append(element("p", "audit-detail", `sha256 ${entry.sha256}`));
      node.append(details);
    }
    if (entry.detail) node.append(element("p", "audit-detail", entry.detail));
    return node;
  }

  window.hailerAudit = { item };
})();

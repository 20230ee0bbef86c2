// The agent's work on the chat page: each tool call's code (highlighted, collapsible) with its
// result, and the charts its cells drew. Everything is set as text or as a checked data: URL of
// a picture; nothing from the model or the kernel reaches innerHTML.
"use strict";

(() => {
  const FIRST_LINE_CHARS = 80;
  const PICTURE_PREFIXES = ["data:image/svg+xml;base64,", "data:image/png;base64,"];
  const KEYWORDS = new Set((
    "False None True and as assert async await break class continue def del elif else except " +
    "finally for from global if import in is lambda nonlocal not or pass raise return try while " +
    "with yield match case"
  ).split(" "));
  const BUILTINS = new Set("print len range sum min max sorted list dict set tuple str int float bool open".split(" "));
  // One token at a time: comment, string (triple or single quoted, with prefixes), number, name.
  const TOKEN = /(#[^\n]*)|((?:[rRbBuUfF]{0,2})(?:"""[\s\S]*?(?:"""|$)|'''[\s\S]*?(?:'''|$)|"(?:[^"\\\n]|\\.)*"?|'(?:[^'\\\n]|\\.)*'?))|(\b\d[\d_]*(?:\.\d[\d_]*)?(?:[eE][+-]?\d+)?\b)|([A-Za-z_][A-Za-z0-9_]*)/g;

  function element(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // Python code as text nodes and classed spans.
  function highlight(code) {
    const fragment = document.createDocumentFragment();
    let at = 0;
    const plain = (end) => {
      if (end > at) fragment.append(document.createTextNode(code.slice(at, end)));
    };
    TOKEN.lastIndex = 0;
    for (let match = TOKEN.exec(code); match; match = TOKEN.exec(code)) {
      let kind = null;
      if (match[1]) kind = "tok-comment";
      else if (match[2]) kind = "tok-string";
      else if (match[3]) kind = "tok-number";
      else if (KEYWORDS.has(match[4])) kind = "tok-keyword";
      else if (BUILTINS.has(match[4])) kind = "tok-builtin";
      if (!kind) continue;
      plain(match.index);
      fragment.append(element("span", kind, match[0]));
      at = match.index + match[0].length;
    }
    plain(code.length);
    return fragment;
  }

  function firstLine(code) {
    const lines = code.split("\n").filter((line) => line.trim() !== "");
    if (!lines.length) return "";
    const first = lines[0].trim();
    const cut = first.length > FIRST_LINE_CHARS ? `${first.slice(0, FIRST_LINE_CHARS)}…` : first;
    return lines.length > 1 && cut === first ? `${cut} …` : cut;
  }

  function codeBlock(code, highlighted) {
    const pre = element("pre");
    const node = element("code", highlighted ? "python" : "");
    if (highlighted) node.append(highlight(code));
    else node.textContent = code;
    pre.append(node);
    return pre;
  }

  // item: { name, code (full code, or the arguments' preview when the call ran none), hasCode,
  // done, ok, result }
  function toolNode(item) {
    const details = element("details", "tool-call");
    const summary = element("summary");
    item.statusNode = element("span", "tool-status", "running…");
    const label = item.hasCode ? firstLine(item.code) : item.name;
    summary.append(element("span", "tool-name", item.name), element("code", "tool-first", label), item.statusNode);
    details.append(summary, element("h3", "", item.hasCode ? "Code" : "Arguments"));
    details.append(codeBlock(item.code, item.hasCode));
    item.resultNode = element("div", "tool-result");
    details.append(item.resultNode);
    if (item.done) finishTool(item);
    return details;
  }

  // The first line of a failed call's result, without the "ERROR:" its text starts with.
  function errorLine(result) {
    const first = (result || "").split("\n").map((line) => line.trim()).find((line) => line !== "") || "";
    const bare = first.startsWith("ERROR:") ? first.slice("ERROR:".length).trim() : first;
    return bare.length > FIRST_LINE_CHARS ? `${bare.slice(0, FIRST_LINE_CHARS)}…` : bare;
  }

  function finishTool(item) {
    const error = item.ok ? "" : errorLine(item.result);
    item.statusNode.textContent = item.ok ? "done" : error ? `failed: ${error}` : "failed";
    item.statusNode.className = `tool-status ${item.ok ? "status-ok" : "status-failed"}`;
    const heading = element("h3", "", "Result");
    item.resultNode.replaceChildren(heading, codeBlock(item.result || "(no output)", false));
  }

  // The code and result a tool event or a past call carries.
  function toolItem(call) {
    const hasCode = typeof call.code === "string" && call.code !== "";
    return {
      kind: "tool",
      // A client's own call (another agent over MCP) says whose it is.
      name: call.client ? `${call.name} (${call.client})` : call.name,
      code: hasCode ? call.code : call.preview || "",
      hasCode,
    };
  }

  function pictureOf(chart) {
    const url = chart.image && chart.image.dataUrl;
    return typeof url === "string" && PICTURE_PREFIXES.some((prefix) => url.startsWith(prefix)) ? url : null;
  }

  // A chart as a figure: its picture (when the kernel drew one) and a caption that links to its
  // cell in marimo when `notebookLink` (the active notebook's link) is known.
  function chartNode(chart, notebookLink) {
    const figure = element("figure", "chart");
    figure.dataset.chart = chart.id;
    const title = chart.title || "Chart";
    const url = pictureOf(chart);
    if (url) {
      const image = element("img");
      image.src = url;
      image.alt = title;
      image.loading = "lazy";
      figure.append(image);
    } else {
      figure.append(element("p", "chart-missing", "This chart could not be drawn here; it is in the notebook."));
    }
    const caption = element("figcaption");
    caption.append(element("span", "chart-title", title), " · ");
    const where = `cell ${chart.cell} in ${chart.notebook}`;
    if (notebookLink) {
      const link = element("a", "", where);
      // marimo scrolls to a named cell given in the link's fragment.
      const named = chart.cell && chart.cell !== chart.cellId;
      link.href = named ? `${notebookLink}#scrollTo=${encodeURIComponent(chart.cell)}` : notebookLink;
      link.target = "_blank";
      link.rel = "noopener noreferrer";
      link.title = `Open ${chart.notebook} in marimo, in a new tab`;
      caption.append(link);
    } else {
      caption.append(element("span", "", where));
    }
    figure.append(caption);
    return figure;
  }

  window.hailerWork = { highlight, toolNode, finishTool, toolItem, chartNode };
})();

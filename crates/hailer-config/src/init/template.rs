//! The text `hailer init` writes: the commented `hailer.toml` and the example files.

use crate::schema::{Choice, Runtime};

/// The commented `hailer.toml`, with the given kernel runtime.
pub fn hailer_toml(runtime: Runtime) -> String {
    let runtime_note = match runtime {
        Runtime::Docker => "isolated: no network, data read-only",
        Runtime::UnsafeLocal => "runs as you, with your files and network: NOT isolated",
        Runtime::Sandbox => "your Python in the system's sandbox: no network, data read-only",
    };
    format!(
        r#"# hailer.toml: the settings of this Hailer workspace.
# Lines starting with # are comments; remove the # in front of a setting to change it.
# Relative paths start at this folder. API keys never go in this file: keep them in the
# environment variable a provider's env_key names, or store them with `hailer login <provider>`.

[hailer]
# notebook = "notebooks/analysis.py"      # the notebook a session opens first
# notebooks_dir = "notebooks"             # the folder of notebooks (default: the notebook's folder)
# data_dir = "data"                       # your CSV, Parquet, JSON and Excel files
# context_dir = ".config/hailer/context"  # notes sent to the model with every question
# skills_dir = ".config/hailer/skills"    # instructions the agent loads when it needs them
# prompts_dir = ".config/hailer/prompts"  # ready-made questions for /prompt
# max_tool_output_chars = 12000           # longest tool result the model is shown
# max_context_bytes = 24000               # most context-note text sent with a question
# log_level = "WARNING"                   # DEBUG, INFO, WARNING, ERROR or CRITICAL

[model]
# name = "gpt-5.5"
# provider = "openai"                     # or the id of a [model_providers.<id>] section
# reasoning_effort = "medium"             # minimal, low, medium, high or xhigh; "" sends none
# summarize_after_tokens = 100000         # older turns are summarised past this size; 0 = never
# credentials_store = "auto"              # where `hailer login` keeps keys: auto, keyring or file

# Another OpenAI-compatible endpoint (then set provider = "acme" above):
# [model_providers.acme]
# name = "Acme LLM"
# base_url = "https://llm.acme.example/v1"
# env_key = "ACME_API_KEY"                # the variable holding the key, never the key itself
# wire_api = "responses"                  # or "chat" for endpoints with /chat/completions only
# stream = true
# stream_options = true
# max_output_tokens = 4096                # the most tokens one answer may have; unset = no limit
# http_headers = {{ "X-Team" = "analytics" }}
# env_http_headers = {{ "X-Project" = "ACME_PROJECT" }}
# query_params = {{ "api-version" = "2025-01-01" }}

[web]
# Sites the agent may read pages from; an empty list allows none.
# "example.com" is that host only, "*.example.com" its subdomains, "**.example.com" both.
allowed_domains = []
# max_page_bytes = 200000

[kernel]
runtime = "{runtime}"{padding}# {runtime_note}
# The other choices are {other}. The docker settings below apply to docker only.
# image = ""                              # default: the published image of this Hailer's kernel contract
# base_image = ""                         # hailer kernel build's base; default: the official Python image
# memory = "4g"                           # memory limit (256m at least), without extra swap
# cpus = 2                                # CPU limit
# network = false                         # true lets notebook code reach the internet and this machine
# python = "python3.12"                   # unsafe-local only: the Python its environment is made from
# exec_timeout_secs = 300                 # how long one run of code may take (--exec-timeout for one session)

[daemon]
# session_linger_secs = 300               # how long a session stays after its last window closed

[checks]
# lint = true                             # ruff on the cells the agent changes
# typecheck = true                        # ty on the cells the agent changes
# format = true                           # format those cells before they run
# ruff = "/usr/local/bin/ruff"            # default: next to the kernel's Python, then PATH
# ty = "/usr/local/bin/ty"                # default: next to the kernel's Python, then PATH
"#,
        runtime = runtime.word(),
        padding = " ".repeat(30usize.saturating_sub(runtime.word().len())),
        other = Runtime::ALL
            .iter()
            .filter(|other| **other != runtime)
            .map(|other| format!("\"{}\"", other.word()))
            .collect::<Vec<_>>()
            .join(" and "),
    )
}

/// `.config/hailer/context/`: one short note.
pub(super) const CONTEXT_EXAMPLE: (&str, &str) = (
    "00-about-this-workspace.md",
    r#"# About this workspace

Every note in this folder is sent to the model with each question, so keep them short and
factual. Replace this text with what a newcomer to your data would need to know, such as:

- what each file in data/ holds, and where it comes from;
- what the important columns mean, with their units and currencies;
- the fiscal calendar, and which periods are complete;
- the words your team uses ("active customer" means ... here).

Do not put passwords, keys or personal data in these notes.
"#,
);

/// `.config/hailer/skills/<name>/SKILL.md`: one skill with its front matter.
pub(super) const SKILL_EXAMPLE: (&str, &str) = (
    "data-quality-check",
    r"---
name: data-quality-check
description: Checks a table for gaps, duplicates and odd values before it is analysed.
---

# Data quality check

Use this before the first analysis of a new file, or when asked whether a file can be trusted.

1. Load the table with Polars; report its row count and its columns with their types.
2. Count missing values per column and name the columns where more than 5% are missing.
3. Count duplicated rows, and duplicated values in what looks like the key column.
4. For numeric and date columns show the minimum, median and maximum; point out negative
   amounts, dates in the future and values far outside the rest.
5. End with three bullets: what looks sound, what looks wrong, what to ask whoever owns the data.

Show aggregates and small samples only, never whole tables.
",
);

/// `.config/hailer/prompts/`: one prompt using `{{args}}`.
pub(super) const PROMPT_EXAMPLE: (&str, &str) = (
    "first-look.md",
    r"Take a first look at these files in the data folder: {{args}}

(If no file is named above, look at all of them.) For each table, give its size and its
columns with their types, point out anything unusual, and end with three questions about the
data that would be worth answering next.
",
);

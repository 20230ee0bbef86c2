//! hailer.toml: schema, discovery, precedence and validation.
//!
//! Everything about a workspace's configuration, shared by the daemon and the thin client:
//!
//! * [`load`] finds the workspace and its `hailer.toml`, applies the client's `HAILER_*`
//!   variables and flags (flag > environment > file > default) and returns a typed [`Config`],
//!   or every fatal problem at once;
//! * [`check`] collects every problem, including those that look at the disk (for `doctor`);
//! * [`check_data_dir_mount`] holds the rules for the folder a docker kernel may mount;
//! * [`AllowedDomains`] decides which hosts the page-fetching tool may reach;
//! * [`Trust`] keeps a workspace's settings that run programs or route secrets off until the
//!   user agreed to them;
//! * [`clean_text`] is the one filter between text Hailer did not write and a terminal;
//! * [`init()`] scaffolds a workspace.
//!
//! The loader never reads the process environment: the daemon's environment is not the user's.

#![warn(missing_docs)]
#![cfg_attr(not(test), warn(clippy::print_stdout))]

mod daemon_env;
mod discovery;
mod document;
mod domains;
mod env;
mod error;
mod home;
mod init;
mod inputs;
mod keys;
mod load;
mod mount_rules;
mod paths;
mod problem;
mod sanitize;
mod schema;
mod trust;
mod validate;

pub use daemon_env::{daemon_environment, is_daemon_environment};
pub use discovery::{CONFIG_FILE, Workspace, WorkspaceSource, find_config_file, find_workspace};
pub use document::MAX_CONFIG_BYTES;
pub use domains::{AllowedDomains, DomainError, DomainRule};
pub use env::{
    ClientEnv, HAILER_CONFIG, HAILER_KERNEL, HAILER_KERNEL_IMAGE, HAILER_LOG_LEVEL, HAILER_MODEL,
    HAILER_MODEL_PROVIDER, HAILER_WORKSPACE,
};
pub use error::{ConfigError, Error, Result};
pub use home::HailerHome;
pub use init::{
    InitAction, InitEntry, InitReport, RuntimeMismatch, STARTER_NOTEBOOK, hailer_toml, init,
};
pub use inputs::{LoadInputs, Overrides, Provenance, Sources};
pub use keys::SCHEMA as KEY_SCHEMA;
pub use load::{Loaded, check, load};
pub use mount_rules::{
    AppDataDirs, CredentialFolders, Exposed, MountFolders, MountReason, MountRefusal, Relation,
    check_data_dir_mount, judge,
};
pub use problem::{Area, Origin, Problem, Report, Severity};
pub use sanitize::{clean as clean_text, escape_visible, has_control, is_control};
pub use schema::{
    ChecksSettings, Choice, Config, CredentialsStore, DaemonSettings, HailerSettings,
    KERNEL_MINIMUM_BYTES, KernelSettings, LogLevel, MemoryError, MemoryLimit, ModelSettings,
    OPENAI_BASE_URL, ProviderSettings, ReasoningEffort, Runtime, WebSettings, WireApi, defaults,
    kernel_line,
};
pub use trust::{
    GatedSetting, SettingStatus, Trust, TrustDecision, TrustError, TrustState, TrustStore,
    grant as grant_trust, revoke as revoke_trust,
};
pub use validate::kernel::{is_image_reference, parse_kernel_flag};

//! One module per `hailer` subcommand.

pub(crate) mod audit;
pub(crate) mod cancel;
pub(crate) mod config;
pub(crate) mod daemon;
pub(crate) mod demo;
pub(crate) mod doctor;
pub(crate) mod exec;
pub(crate) mod foreground;
pub(crate) mod init;
pub(crate) mod kernel;
pub(crate) mod kernel_ready;
pub(crate) mod login;
pub(crate) mod mcp;
pub(crate) mod open;
pub(crate) mod run;
pub(crate) mod status;
pub(crate) mod trust;

//! One module per `hailer` subcommand.

pub mod config;
pub mod daemon;
pub mod doctor;
pub mod exec;
pub mod init;
pub mod kernel;
pub mod login;
pub mod open;
pub mod run;
pub mod status;

//! One module per `hailer` subcommand.

pub mod audit;
pub mod config;
pub mod daemon;
pub mod demo;
pub mod doctor;
pub mod exec;
pub mod foreground;
pub mod init;
pub mod kernel;
pub mod kernel_ready;
pub mod login;
pub mod open;
pub mod run;
pub mod status;
pub mod trust;

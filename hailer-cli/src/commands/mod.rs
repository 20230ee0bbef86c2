//! One module per `hailer` subcommand.

pub mod daemon;

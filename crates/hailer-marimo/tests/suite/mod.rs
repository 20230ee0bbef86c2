mod hostile_marimo;
mod launch_failures;
mod python_env;
mod python_literal;
mod real_marimo;
pub(crate) mod support;

mod agent_tools;
mod agent_turns;
mod cli_init;
mod daemon_guard;
mod daemon_lifecycle;
mod kernel_install_local;
mod session_docker;
mod session_local;

mod agent_turns;
mod agent_workspace_tools;
mod cli_init;
mod daemon_guard;
mod daemon_lifecycle;
mod kernel_install_local;
mod session_docker;
mod session_local;

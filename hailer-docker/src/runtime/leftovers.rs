//! A workspace's labelled objects: the leftovers of sessions that were killed, `hailer kernel
//! stop`, and the kernels `hailer status` lists.

use bollard::query_parameters::{ListContainersOptions, ListNetworksOptions};

use super::removal::{self, Object, Removal};
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::labels::{CONTRACT_LABEL, OWNER_LABEL, ROLE_LABEL, Role, workspace_filter};

/// A kernel container of a workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelInfo {
    /// The container's name without the leading `/`, `hailer-kernel-<workspace id>-<suffix>`;
    /// the first 12 characters of the id when the engine gave no name.
    pub name: String,
    /// The engine's full container id.
    pub id: String,
    /// The engine's state: `running`, `exited`, ...
    pub state: String,
    /// The owner lock id of the session that started it.
    pub owner: Option<String>,
    /// The kernel contract of the image it was started from; `None` when the container has
    /// no contract label.
    pub contract: Option<String>,
}

/// A labelled object and its owner.
#[derive(Debug)]
struct Labelled {
    object: Object,
    owner: Option<String>,
}

/// Removes every object of `workspace_id` whose owner is not alive (or that has no owner
/// label), running or not. Objects of live owners and of other workspaces stay.
pub async fn cleanup_leftovers(
    engine: &Engine,
    workspace_id: &str,
    is_owner_alive: impl Fn(&str) -> bool,
) -> Result<Removal> {
    let orphaned = |item: &Labelled| {
        item.owner
            .as_deref()
            .is_none_or(|owner| !is_owner_alive(owner))
    };
    remove_selected(engine, workspace_id, orphaned).await
}

/// Removes every object of `workspace_id`, whichever session started it.
pub async fn stop_workspace(engine: &Engine, workspace_id: &str) -> Result<Removal> {
    remove_selected(engine, workspace_id, |_| true).await
}

async fn remove_selected(
    engine: &Engine,
    workspace_id: &str,
    select: impl Fn(&Labelled) -> bool,
) -> Result<Removal> {
    let containers: Vec<Object> = containers(engine, workspace_id)
        .await?
        .into_iter()
        .map(|(item, _)| item)
        .filter(&select)
        .map(|item| item.object)
        .collect();
    let networks: Vec<Object> = networks(engine, workspace_id)
        .await?
        .into_iter()
        .filter(&select)
        .map(|item| item.object)
        .collect();
    Ok(removal::remove_all(engine.docker(), &containers, &networks).await)
}

/// The names of every container and network of `workspace_id`, containers first.
pub async fn list_workspace_objects(engine: &Engine, workspace_id: &str) -> Result<Vec<String>> {
    let mut names: Vec<String> = containers(engine, workspace_id)
        .await?
        .into_iter()
        .map(|(item, _)| item.object.name)
        .collect();
    names.extend(
        networks(engine, workspace_id)
            .await?
            .into_iter()
            .map(|item| item.object.name),
    );
    Ok(names)
}

/// The kernel containers of `workspace_id`, running or not.
pub async fn list_kernels(engine: &Engine, workspace_id: &str) -> Result<Vec<KernelInfo>> {
    Ok(containers(engine, workspace_id)
        .await?
        .into_iter()
        .filter(|(_, details)| details.role.as_deref() == Some(Role::Kernel.as_str()))
        .map(|(item, details)| KernelInfo {
            name: item.object.name,
            id: item.object.id,
            state: details.state,
            owner: item.owner,
            contract: details.contract,
        })
        .collect())
}

#[derive(Debug)]
struct ContainerDetails {
    role: Option<String>,
    state: String,
    contract: Option<String>,
}

async fn containers(
    engine: &Engine,
    workspace_id: &str,
) -> Result<Vec<(Labelled, ContainerDetails)>> {
    let options = ListContainersOptions {
        all: true,
        filters: Some(workspace_filter(workspace_id)),
        ..Default::default()
    };
    let list = engine
        .docker()
        .list_containers(Some(options))
        .await
        .map_err(Error::engine("list the workspace's containers"))?;
    Ok(list
        .into_iter()
        .filter_map(|summary| {
            let id = summary.id?;
            let labels = summary.labels.unwrap_or_default();
            let name = summary
                .names
                .and_then(|names| names.into_iter().next())
                .map(|name| name.trim_start_matches('/').to_owned())
                .unwrap_or_else(|| id.chars().take(12).collect());
            let details = ContainerDetails {
                role: labels.get(ROLE_LABEL).cloned(),
                state: summary
                    .state
                    .map(|state| state.to_string())
                    .unwrap_or_default(),
                contract: labels.get(CONTRACT_LABEL).cloned(),
            };
            Some((
                Labelled {
                    object: Object { id, name },
                    owner: labels.get(OWNER_LABEL).cloned(),
                },
                details,
            ))
        })
        .collect())
}

async fn networks(engine: &Engine, workspace_id: &str) -> Result<Vec<Labelled>> {
    let options = ListNetworksOptions {
        filters: Some(workspace_filter(workspace_id)),
    };
    let list = engine
        .docker()
        .list_networks(Some(options))
        .await
        .map_err(Error::engine("list the workspace's networks"))?;
    Ok(list
        .into_iter()
        .filter_map(|network| {
            let id = network.id?;
            let labels = network.labels.unwrap_or_default();
            Some(Labelled {
                object: Object {
                    name: network.name.unwrap_or_else(|| id.clone()),
                    id,
                },
                owner: labels.get(OWNER_LABEL).cloned(),
            })
        })
        .collect())
}

//! A workspace's labelled objects: the leftovers of sessions that were killed, `hailer kernel
//! stop`, and the kernels `hailer status` lists.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use bollard::query_parameters::{ListContainersOptions, ListNetworksOptions};

use super::removal::{self, Object, Removal};
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::labels::{
    CONTRACT_LABEL, OWNER_LABEL, ROLE_LABEL, Role, WORKSPACE_LABEL, WORKSPACE_PATH_LABEL,
    workspace_filter,
};

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

/// A labelled object, its owner and the workspace folder it names.
#[derive(Debug)]
struct Labelled {
    object: Object,
    owner: Option<String>,
    workspace: Option<PathBuf>,
}

impl Labelled {
    fn new(object: Object, labels: &HashMap<String, String>) -> Self {
        Self {
            object,
            owner: labels.get(OWNER_LABEL).cloned(),
            workspace: labels.get(WORKSPACE_PATH_LABEL).map(PathBuf::from),
        }
    }
}

/// Whether `owner` has the form of an owner lock id (16 hex characters), so it can name a
/// lock file and nothing else.
fn is_owner_id(owner: &str) -> bool {
    owner.len() == 16 && owner.bytes().all(|byte| byte.is_ascii_hexdigit())
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
    remove_selected(engine, &workspace_filter(workspace_id), orphaned).await
}

/// Removes the objects of every workspace whose owner is not alive: `is_owner_alive` is asked
/// with the workspace folder the object names and its owner lock id. Objects without both
/// labels (or with an owner that is no lock id) stay; the start of their workspace decides.
pub async fn cleanup_all_leftovers(
    engine: &Engine,
    is_owner_alive: impl Fn(&Path, &str) -> bool,
) -> Result<Removal> {
    let orphaned = |item: &Labelled| match (&item.workspace, item.owner.as_deref()) {
        (Some(workspace), Some(owner)) => is_owner_id(owner) && !is_owner_alive(workspace, owner),
        _ => false,
    };
    let every_workspace = HashMap::from([("label".to_owned(), vec![WORKSPACE_LABEL.to_owned()])]);
    remove_selected(engine, &every_workspace, orphaned).await
}

/// Removes every object of `workspace_id`, whichever session started it.
pub async fn stop_workspace(engine: &Engine, workspace_id: &str) -> Result<Removal> {
    remove_selected(engine, &workspace_filter(workspace_id), |_| true).await
}

async fn remove_selected(
    engine: &Engine,
    filter: &HashMap<String, Vec<String>>,
    select: impl Fn(&Labelled) -> bool,
) -> Result<Removal> {
    let containers: Vec<Object> = containers(engine, filter)
        .await?
        .into_iter()
        .map(|(item, _)| item)
        .filter(&select)
        .map(|item| item.object)
        .collect();
    let networks: Vec<Object> = networks(engine, filter)
        .await?
        .into_iter()
        .filter(&select)
        .map(|item| item.object)
        .collect();
    Ok(removal::remove_all(engine.docker(), &containers, &networks).await)
}

/// The names of every container and network of `workspace_id`, containers first.
pub async fn list_workspace_objects(engine: &Engine, workspace_id: &str) -> Result<Vec<String>> {
    let filter = workspace_filter(workspace_id);
    let mut names: Vec<String> = containers(engine, &filter)
        .await?
        .into_iter()
        .map(|(item, _)| item.object.name)
        .collect();
    names.extend(
        networks(engine, &filter)
            .await?
            .into_iter()
            .map(|item| item.object.name),
    );
    Ok(names)
}

/// The kernel containers of `workspace_id`, running or not.
pub async fn list_kernels(engine: &Engine, workspace_id: &str) -> Result<Vec<KernelInfo>> {
    Ok(containers(engine, &workspace_filter(workspace_id))
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
    filter: &HashMap<String, Vec<String>>,
) -> Result<Vec<(Labelled, ContainerDetails)>> {
    let options = ListContainersOptions {
        all: true,
        filters: Some(filter.clone()),
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
            Some((Labelled::new(Object { id, name }, &labels), details))
        })
        .collect())
}

async fn networks(engine: &Engine, filter: &HashMap<String, Vec<String>>) -> Result<Vec<Labelled>> {
    let options = ListNetworksOptions {
        filters: Some(filter.clone()),
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
            let object = Object {
                name: network.name.unwrap_or_else(|| id.clone()),
                id,
            };
            Some(Labelled::new(object, &labels))
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::is_owner_id;

    #[test]
    fn only_16_hex_characters_name_an_owner_lock() {
        assert!(is_owner_id("0123456789abcdef"));
        assert!(!is_owner_id("../../etc/passwd"));
        assert!(!is_owner_id("0123456789abcde/"));
        assert!(!is_owner_id(""));
    }
}

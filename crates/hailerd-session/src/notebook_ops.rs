//! Listing, creating, opening and closing a session's notebooks.

use hailer_agent::off_the_worker;
use std::collections::HashSet;
use std::io::Write;

use hailer_protocol::{
    CreateNotebookParams, NotebookChange, NotebookEntry, NotebookList, NotebookTemplate,
    SessionEvent,
};

use super::error::SessionError;
use super::session::{Session, state_dir};
use crate::notebooks::{self, NotebookError};
use hailer_kernel_bundle as bundle;

impl Session {
    /// The workspace's notebooks and which is active.
    pub async fn list_notebooks(&self) -> NotebookList {
        let kernel = self.kernel.read().await.clone();
        let open: HashSet<std::path::PathBuf> = match &kernel {
            Some(kernel) => {
                let paths = kernel.open_notebooks().await;
                off_the_worker(|| {
                    paths
                        .into_iter()
                        .map(|path| std::fs::canonicalize(&path).unwrap_or(path))
                        .collect()
                })
            }
            None => HashSet::new(),
        };
        let state = self.notebooks.lock().await.clone();
        let notebooks_dir = self.notebooks_dir();
        let active = state.active.clone().or_else(|| {
            self.loaded()
                .config
                .hailer
                .notebook
                .strip_prefix(&notebooks_dir)
                .ok()
                .map(|name| name.to_string_lossy().replace('\\', "/"))
        });
        // The folder is read and each path resolved: off the async worker.
        let notebooks = off_the_worker(|| {
            notebooks::list(&self.notebooks_dir())
                .into_iter()
                .map(|file| {
                    let canonical = std::fs::canonicalize(&file.path).unwrap_or(file.path.clone());
                    NotebookEntry {
                        active: active.as_deref() == Some(file.name.as_str()),
                        open: open.contains(&canonical),
                        name: file.name,
                        modified_at: file.modified_at,
                        size: file.size,
                    }
                })
                .collect()
        });
        NotebookList {
            active_link: kernel
                .zip(active.as_deref())
                .map(|(kernel, name)| kernel.signed_link(name)),
            notebooks,
            active,
            recent: state.recent,
        }
    }

    /// Creates a notebook from a template, makes it active and opens its kernel session.
    pub async fn create_notebook(
        &self,
        params: &CreateNotebookParams,
    ) -> Result<NotebookChange, SessionError> {
        let _busy = self.busy();
        let file_name = notebooks::slug_file_name(&params.name)?;
        let path = self.notebooks_dir().join(&file_name);
        if path.exists() {
            return Err(NotebookError::Exists(file_name).into());
        }
        let template = match params.template {
            NotebookTemplate::Starter => bundle::STARTER_NOTEBOOK,
            NotebookTemplate::Empty => bundle::EMPTY_NOTEBOOK,
        };
        off_the_worker(|| write_new(&path, template)).map_err(SessionError::io(format!(
            "cannot create {}",
            path.display()
        )))?;
        if let Some(kernel) = self.kernel.read().await.clone()
            && let Some(line) = kernel.copy_in().await
        {
            self.notice(hailer_protocol::NoticeLevel::Warning, line);
        }
        let message = format!(
            "Created {file_name} from the {} template.",
            match params.template {
                NotebookTemplate::Starter => "starter",
                NotebookTemplate::Empty => "empty",
            }
        );
        self.switch_to(&file_name, message).await
    }

    /// Makes the notebook `reference` names active and opens its kernel session; an empty
    /// reference is the active notebook (the configured one in a fresh workspace).
    pub async fn open_notebook(&self, reference: &str) -> Result<NotebookChange, SessionError> {
        let _busy = self.busy();
        let reference = if reference.trim().is_empty() {
            relative(self, &self.active_notebook().await)
        } else {
            reference.to_owned()
        };
        let file = off_the_worker(|| notebooks::resolve(&self.notebooks_dir(), &reference))?;
        let message = format!("{} is now the active notebook.", file.name);
        self.switch_to(&file.name, message).await
    }

    /// Closes the kernel session of the named (or active) notebook.
    pub async fn close_notebook(&self, reference: &str) -> Result<NotebookChange, SessionError> {
        let _busy = self.busy();
        let path = if reference.trim().is_empty() {
            self.active_notebook().await
        } else {
            off_the_worker(|| notebooks::resolve(&self.notebooks_dir(), reference))?.path
        };
        let name = relative(self, &path);
        let kernel = self.kernel().await?;
        let closed = kernel.close(&path).await?;
        Ok(NotebookChange {
            notebook: name.clone(),
            active: self.notebooks.lock().await.active.clone(),
            link: None,
            message: if closed {
                format!("Closed the kernel session of {name}.")
            } else {
                format!("{name} had no kernel session open.")
            },
        })
    }

    async fn switch_to(&self, name: &str, message: String) -> Result<NotebookChange, SessionError> {
        self.copy_back_notebooks().await;
        {
            let mut state = self.notebooks.lock().await;
            state.activate(name);
            off_the_worker(|| state.save(&state_dir(&self.loaded())))
                .map_err(SessionError::io("cannot save .hailer/notebook.json"))?;
        }
        self.events.publish(SessionEvent::NotebookSwitched {
            notebook: name.to_owned(),
        });
        let kernel = self.kernel().await?;
        kernel.open(&self.notebooks_dir().join(name)).await?;
        Ok(NotebookChange {
            notebook: name.to_owned(),
            active: Some(name.to_owned()),
            link: Some(kernel.signed_link(name)),
            message,
        })
    }
}

fn relative(session: &Session, path: &std::path::Path) -> String {
    path.strip_prefix(session.notebooks_dir())
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// Writes a new file atomically, failing if the name is taken meanwhile.
fn write_new(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    let dir = path
        .parent()
        .ok_or_else(|| std::io::Error::other("the notebook has no folder"))?;
    std::fs::create_dir_all(dir)?;
    let mut temp = tempfile::NamedTempFile::new_in(dir)?;
    temp.write_all(text.as_bytes())?;
    temp.as_file().sync_all()?;
    temp.persist_noclobber(path).map_err(|error| error.error)?;
    Ok(())
}

//! The kernel image: is the right one here, build it through the engine, download it.

mod buildkit;
mod buildkit_status;
mod context;
mod counts;
pub(crate) mod host_config;
mod redact;

use bollard::query_parameters::CreateImageOptions;
use futures_util::StreamExt as _;

pub(crate) use context::secrets;
pub use context::{
    BuildOptions, CA_SECRET, EXPORTED_SECRETS_FOLDER, PIP_CONF_SECRET, export_context, gather,
};

use crate::engine::Engine;
use crate::error::{Error, Result, engine_said, engine_status};
use crate::labels::CONTRACT_LABEL;

pub(crate) use hailer_marimo::{Progress, Report};

pub use hailer_kernel_bundle::default_image_name;

/// Checks that `image` is on this machine and carries `contract` in its contract label.
pub async fn ensure_image(engine: &Engine, image: &str, contract: &str) -> Result<()> {
    let found = image_contract(engine, image).await?;
    match found {
        None => Err(Error::ImageMissing {
            image: image.to_owned(),
        }),
        Some(found) if found == contract => Ok(()),
        Some(found) => Err(Error::ContractMismatch {
            image: image.to_owned(),
            found: if found.is_empty() {
                "(no contract label)".to_owned()
            } else {
                found
            },
            needed: contract.to_owned(),
        }),
    }
}

/// The contract label of `image`: `None` when the image is not here, `Some("")` when it has
/// no such label.
pub async fn image_contract(engine: &Engine, image: &str) -> Result<Option<String>> {
    Ok(image_labels(engine, image)
        .await?
        .map(|labels| labels.get(CONTRACT_LABEL).cloned().unwrap_or_default()))
}

/// Which image `image` is: its registry digest (`repository@sha256:...`) when it came from a
/// registry, else its id; `None` when the engine does not say.
pub async fn image_digest(engine: &Engine, image: &str) -> Option<String> {
    let inspect = engine.docker().inspect_image(image).await.ok()?;
    let digests = inspect.repo_digests.unwrap_or_default();
    let own = format!("{}@", repository_of(image));
    digests
        .iter()
        .find(|digest| digest.starts_with(&own))
        .or(digests.first())
        .cloned()
        .or(inspect.id)
}

/// `image` without its tag or digest: `registry:5000/team/kernel:tag` is
/// `registry:5000/team/kernel`.
fn repository_of(image: &str) -> &str {
    let image = image.split_once('@').map_or(image, |(name, _)| name);
    let last_part = image.rfind('/').map_or(0, |slash| slash + 1);
    match image[last_part..].rfind(':') {
        Some(colon) => &image[..last_part + colon],
        None => image,
    }
}

/// The labels of `image`: `None` when the image is not here.
pub async fn image_labels(
    engine: &Engine,
    image: &str,
) -> Result<Option<std::collections::HashMap<String, String>>> {
    match engine.docker().inspect_image(image).await {
        Ok(inspect) => Ok(Some(
            inspect
                .config
                .and_then(|config| config.labels)
                .unwrap_or_default(),
        )),
        Err(error) if engine_status(&error) == Some(404) => Ok(None),
        Err(error) => Err(Error::engine(format!("inspect the image {image}"))(error)),
    }
}

/// Builds the kernel image through the engine's BuildKit, reporting the build's steps and
/// output lines, then checks its label.
///
/// The package index settings (pip's configuration, the CA bundle) reach the build only as
/// BuildKit secrets: never the context, a build argument, a layer, the history or the build
/// cache. An engine without BuildKit is an error that says so; nothing is built another way.
///
/// A base image that is not here is downloaded first, with progress; when that fails nothing is
/// built and the error names the image and the ways on. The base image's digest is recorded in
/// the built image's labels.
pub async fn build(
    engine: &Engine,
    options: &BuildOptions,
    contract: &str,
    progress: Progress<'_>,
) -> Result<()> {
    let mut options = options.clone();
    options.base_digest = Some(base_image_digest(engine, options.base(), progress).await?);
    let (tar, secrets) = {
        let options = options.clone();
        tokio::task::spawn_blocking(move || {
            Ok::<_, Error>((gather(&options)?.to_tar()?, secrets(&options)?))
        })
        .await
        .map_err(|e| Error::InvalidSetting(format!("packing the build context failed: {e}")))??
    };
    progress(Report::Step {
        name: &format!(
            "Building {} from {} with BuildKit (kernel contract {contract}; context {} MB{})",
            options.tag,
            options.base(),
            tar.len() / 1_000_000,
            if secrets.is_empty() {
                String::new()
            } else {
                format!(
                    "; package index settings as build secrets: {}",
                    secrets.iter().map(|s| s.id).collect::<Vec<_>>().join(", ")
                )
            }
        ),
        total: None,
    });
    let solve = buildkit::Solve {
        tag: options.tag.clone(),
        context: bytes::Bytes::from(tar),
        build_args: options.build_args(contract),
        no_cache: options.no_cache,
        secrets,
    };
    buildkit::run(engine, solve, progress).await?;
    ensure_image(engine, &options.tag, contract).await?;
    progress(Report::Note(&format!(
        "{} is ready (kernel contract {contract}).",
        options.tag
    )));
    Ok(())
}

/// The digest of the base image `base`, downloaded first when it is not here: its repository
/// digest when it came from a registry, else its local image id.
async fn base_image_digest(engine: &Engine, base: &str, progress: Progress<'_>) -> Result<String> {
    let unavailable = |said: String| Error::BaseImageUnavailable {
        image: base.to_owned(),
        said,
    };
    let inspect = match engine.docker().inspect_image(base).await {
        Ok(inspect) => inspect,
        Err(error) if engine_status(&error) == Some(404) => {
            progress(Report::Step {
                name: &format!("The base image {base} is not here; downloading it"),
                total: None,
            });
            download(engine, base, progress)
                .await
                .map_err(|said| unavailable(redact::mask_userinfo(&said)))?;
            engine
                .docker()
                .inspect_image(base)
                .await
                .map_err(|error| unavailable(engine_said(&error)))?
        }
        Err(error) => {
            return Err(Error::engine(format!("inspect the base image {base}"))(
                error,
            ));
        }
    };
    let digest = digest_of(
        inspect.repo_digests.as_deref().unwrap_or_default(),
        inspect.id.as_deref(),
    );
    progress(Report::Note(&format!("Base image: {base} ({digest})")));
    Ok(digest)
}

/// The digest a base image is known by: the first repository digest's (`name@sha256:...`),
/// else the image id, else `unknown`.
fn digest_of(repo_digests: &[String], id: Option<&str>) -> String {
    repo_digests
        .iter()
        .find_map(|named| named.rsplit_once('@').map(|(_, digest)| digest.to_owned()))
        .or_else(|| id.map(str::to_owned))
        .unwrap_or_else(|| "unknown".to_owned())
}

/// Downloads `image` through the engine with progress lines; the error is what the engine said.
async fn download(
    engine: &Engine,
    image: &str,
    progress: Progress<'_>,
) -> std::result::Result<(), String> {
    let query = CreateImageOptions {
        from_image: Some(image.to_owned()),
        ..Default::default()
    };
    let mut stream = engine.docker().create_image(Some(query), None, None);
    let mut last_status = String::new();
    let mut layers = counts::LayerCount::default();
    while let Some(item) = stream.next().await {
        let info = item.map_err(|error| engine_said(&error))?;
        if let Some(detail) = info.error_detail.and_then(|d| d.message) {
            return Err(detail);
        }
        if let Some(status) = info.status {
            let line = match &info.id {
                Some(id) => format!("{id}: {status}"),
                None => status.clone(),
            };
            // A count first: the output line that follows carries it.
            if let Some(id) = &info.id
                && layers.observe(id, &status)
            {
                let (done, total) = layers.counts();
                progress(Report::Count {
                    done,
                    total: Some(total),
                });
            }
            // Layer progress repeats itself; show each distinct line once.
            if line != last_status {
                progress(Report::Output(&line));
                last_status = line;
            }
        }
    }
    Ok(())
}

/// Downloads `image` through the engine, then checks that it is of `contract`.
///
/// The engine pulls with the credentials it is given, and this passes none: a registry that
/// needs a login works through `docker pull` after `docker login`.
pub async fn pull(
    engine: &Engine,
    image: &str,
    contract: &str,
    progress: Progress<'_>,
) -> Result<()> {
    progress(Report::Step {
        name: &format!("Downloading {image}"),
        total: None,
    });
    download(engine, image, progress)
        .await
        .map_err(|said| pull_error(image, &said))?;
    ensure_image(engine, image, contract).await?;
    progress(Report::Note(&format!(
        "{image} is ready (kernel contract {contract})."
    )));
    Ok(())
}

/// A failed download, telling "not published (or not visible)" from other failures.
fn pull_error(image: &str, said: &str) -> Error {
    let lower = said.to_ascii_lowercase();
    let unpublished = [
        "denied",
        "not found",
        "manifest unknown",
        "unauthorized",
        "does not exist",
    ]
    .iter()
    .any(|needle| lower.contains(needle));
    if unpublished {
        Error::NotPublished {
            image: image.to_owned(),
            said: said.to_owned(),
        }
    } else {
        Error::PullFailed {
            image: image.to_owned(),
            said: said.to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_repository_of_an_image_drops_its_tag_and_digest() {
        assert_eq!(
            repository_of("127.0.0.1:5000/team/kernel:marimo0.24.2-abc"),
            "127.0.0.1:5000/team/kernel"
        );
        assert_eq!(repository_of("kernel@sha256:00"), "kernel");
        assert_eq!(
            repository_of("127.0.0.1:5000/kernel"),
            "127.0.0.1:5000/kernel"
        );
    }

    #[test]
    fn a_base_digest_prefers_the_registry_digest() {
        let named = ["python@sha256:aaa".to_owned()];
        assert_eq!(digest_of(&named, Some("sha256:id")), "sha256:aaa");
        assert_eq!(digest_of(&[], Some("sha256:id")), "sha256:id");
        assert_eq!(digest_of(&["odd".to_owned()], None), "unknown");
    }

    #[test]
    fn unpublished_images_are_told_apart_from_other_download_failures() {
        let cases = [
            ("manifest unknown: manifest unknown", true),
            ("pull access denied for x, repository does not exist", true),
            ("Head https://ghcr.io/v2/x: unauthorized", true),
            ("dial tcp: lookup ghcr.io: no such host", false),
            ("context deadline exceeded", false),
        ];
        for (said, unpublished) in cases {
            let error = pull_error("ghcr.io/x/y:z", said);
            assert_eq!(
                matches!(error, Error::NotPublished { .. }),
                unpublished,
                "{said}"
            );
            assert!(error.to_string().contains(said));
        }
        assert!(
            pull_error("i", "denied")
                .to_string()
                .contains("hailer kernel build")
        );
    }
}

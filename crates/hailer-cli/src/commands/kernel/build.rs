//! `hailer kernel build`: the kernel image built through Docker on this machine, or its build
//! context written to a folder.

use std::path::PathBuf;

use hailer_config::HailerHome;
use hailer_config::Overrides;
use hailer_protocol::KernelBuildParams;

use super::{Images, effective_images, run_job};
use crate::daemon_client;
use crate::output::outln;

pub(super) use crate::cli::BuildArgs;

pub(crate) async fn build(
    home: &HailerHome,
    mut overrides: Overrides,
    args: BuildArgs,
    verbose: bool,
) -> anyhow::Result<()> {
    overrides.kernel_base_image = args.base_image.clone();
    let Images { used, base } = effective_images(&overrides)?;
    let tag = args.tag.clone().unwrap_or_else(|| used.clone());
    let absolute = |path: Option<PathBuf>| -> anyhow::Result<Option<String>> {
        path.map(|path| Ok(std::path::absolute(path)?.display().to_string()))
            .transpose()
    };
    let cwd = std::env::current_dir()?;
    let params = KernelBuildParams {
        tag: tag.clone(),
        base_image: Some(base),
        pip_config: absolute(args.pip_config)?,
        pip_cert: absolute(args.pip_cert)?,
        wheelhouse: absolute(args.wheelhouse)?,
        no_cache: args.no_cache,
        host_config: !args.no_host_config,
        export_to: absolute(args.context)?,
        cwd: cwd.display().to_string(),
        env: std::env::vars()
            .filter(|(name, _)| hailer_protocol::is_build_discovery_variable(name))
            .collect(),
    };
    let exporting = params.export_to.is_some();
    let connected = daemon_client::find_or_start(home).await?;
    let done = run_job(&connected.endpoint, "/v1/kernel/build", &params, verbose).await?;
    if exporting {
        if let Some(command) = done.command {
            outln!("Build it with:\n  {command}")?;
        }
        return Ok(());
    }
    let built = done.image.unwrap_or(tag);
    if built != used {
        outln!(
            "Sessions of this workspace use {used}. To use {built} (kernel contract {}), set \
             image = \"{built}\" under [kernel] in hailer.toml, or HAILER_KERNEL_IMAGE.",
            done.contract
        )?;
    }
    Ok(())
}

//! `hailer demo`: a throwaway workspace with sample data, analysed by a scripted model built
//! into the daemon, so a newcomer sees the whole loop (question, tools, cells, chart, answer)
//! without an API key.
//!
//! - [`write_sample_data`]: the sample data, generated here: a sales CSV, three monthly Parquet files of
//!   one dataset (`YY-MM orders.parquet`, the last with an extra column) and an Excel workbook
//!   with two sheets.
//! - [`TOUR_STEPS`] and [`next_tour_move`]: the scripted model's fixed steps (the code it runs through `marimo_execute`,
//!   creating notebook cells) and its final answer, written from the tool results it got.
//!
//! No I/O besides writing the sample files; no async. The client writes the data, the daemon
//! runs the tour.

#![warn(missing_docs)]
#![cfg_attr(not(test), warn(clippy::print_stdout))]

mod sample;
mod tour;

pub use sample::{SampleFile, write_all as write_sample_data};
pub use tour::{
    Move as TourMove, QUESTION as TOUR_QUESTION, STEPS as TOUR_STEPS, TOOL as TOUR_TOOL,
    next_move as next_tour_move,
};

/// The id of the demo's provider in its `hailer.toml`.
pub const PROVIDER_ID: &str = "demo";
/// The model's name: what panels and pages show as the model.
pub const MODEL_LABEL: &str = "scripted demo model";
/// The notebook the demo's cells go into, relative to the notebooks folder.
pub const NOTEBOOK: &str = "analysis.py";

/// The demo workspace's `hailer.toml`: the scripted model, and the kernel runtime chosen.
pub fn hailer_toml(runtime: &str) -> String {
    format!(
        "# A demo workspace made by `hailer demo`. Its model is the scripted demo model built into\n\
         # hailerd: it runs a fixed tour of the sample data in data/ and calls no endpoint.\n\
         # To ask your own questions here, point [model] at a real provider (see `hailer init`).\n\
         \n\
         [hailer]\n\
         notebook = \"notebooks/{NOTEBOOK}\"\n\
         data_dir = \"data\"\n\
         \n\
         [model]\n\
         provider = \"{PROVIDER_ID}\"\n\
         name = \"{MODEL_LABEL}\"\n\
         reasoning_effort = \"\"\n\
         summarize_after_tokens = 0\n\
         \n\
         [model_providers.{PROVIDER_ID}]\n\
         name = \"{MODEL_LABEL}\"\n\
         wire_api = \"demo\"\n\
         \n\
         [kernel]\n\
         runtime = \"{runtime}\"\n"
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use hailer_config::{
        Area, ClientEnv, LoadInputs, Overrides, Runtime, TrustStore, WireApi, check, grant_trust,
        load,
    };

    #[test]
    fn the_demo_configuration_is_clean_once_trusted_and_names_the_scripted_model() {
        for runtime in [Runtime::Docker, Runtime::UnsafeLocal] {
            let dir = tempfile::tempdir().unwrap();
            let config_dir = tempfile::tempdir().unwrap();
            std::fs::create_dir_all(dir.path().join("notebooks")).unwrap();
            std::fs::create_dir_all(dir.path().join("data")).unwrap();
            std::fs::write(dir.path().join("notebooks/analysis.py"), "").unwrap();
            std::fs::write(
                dir.path().join("hailer.toml"),
                super::hailer_toml(&runtime.to_string()),
            )
            .unwrap();
            let inputs = LoadInputs {
                cwd: dir.path().to_path_buf(),
                home: None,
                app_data: hailer_config::AppDataDirs::default(),
                overrides: Overrides::default(),
                env: ClientEnv::default(),
                config_dir: Some(config_dir.path().to_path_buf()),
            };
            // A file choosing unsafe-local needs the user's trust; the demo grants it for the
            // file it wrote, so here it is granted the same way.
            let before = check(&inputs);
            let needs_trust = runtime == Runtime::UnsafeLocal;
            assert!(before.fatal.is_empty(), "{runtime}: {before:#?}");
            assert_eq!(
                before.warnings.iter().any(|p| p.area == Area::Trust),
                needs_trust,
                "{runtime}: {before:#?}"
            );
            let first = load(&inputs).unwrap();
            grant_trust(&first.trust, &TrustStore::in_config_dir(config_dir.path())).unwrap();
            let report = check(&inputs);
            assert!(report.is_clean(), "{runtime}: {report:#?}");
            let loaded = load(&inputs).unwrap();
            assert_eq!(loaded.config.kernel.runtime, runtime);
            assert_eq!(loaded.config.model.name, super::MODEL_LABEL);
            let provider = loaded.config.active_provider().unwrap();
            assert_eq!(provider.wire_api, WireApi::Demo);
        }
    }
}

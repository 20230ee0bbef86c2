//! The verdicts, decided here from the probes' raw observations (never from the `passed` the
//! probe process printed) and, for a docker kernel, from what the engine says the kernel
//! container has: a probe passes only when both agree the protection holds.

use hailer_docker::{ImageFacts, KernelFacts};
use hailer_protocol::ProbeVerdict;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::KernelError;

/// The largest process limit that stops a fork bomb (as the probe module tries it).
const PIDS_CEILING: i64 = 4096;

/// One probe's raw observation, as the probe process printed it.
#[derive(Debug, Clone, Deserialize)]
pub(super) struct Observation {
    probe: String,
    observed: String,
    #[serde(default)]
    facts: Map<String, Value>,
}

/// The observations on the line that starts with `nonce`; an error when there is none.
pub(super) fn observations(output: &str, nonce: &str) -> Result<Vec<Observation>, KernelError> {
    let line = output
        .lines()
        .find_map(|line| line.strip_prefix(nonce))
        .ok_or_else(|| {
            KernelError::Invalid(format!(
                "the probes printed no results: {}",
                output.chars().take(2000).collect::<String>().trim_end()
            ))
        })?;
    serde_json::from_str(line).map_err(|error| {
        KernelError::Invalid(format!("the probes' results are unreadable: {error}"))
    })
}

/// One verdict per observation, then (with `engine`) the engine-only checks.
pub(super) fn grade(
    observations: &[Observation],
    engine: Option<&KernelFacts>,
) -> Vec<ProbeVerdict> {
    let mut verdicts: Vec<ProbeVerdict> = observations
        .iter()
        .map(|observation| {
            let mut passed = holds(&observation.probe, &observation.facts);
            let mut observed = observation.observed.clone();
            if let Some(engine) = engine
                && let Err(said) = engine_says(&observation.probe, engine)
            {
                passed = false;
                observed = format!("{observed}; the engine says {said}");
            }
            ProbeVerdict {
                probe: observation.probe.clone(),
                passed,
                observed,
            }
        })
        .collect();
    if let Some(engine) = engine {
        verdicts.push(ProbeVerdict {
            probe: "no new privileges".to_owned(),
            passed: engine.no_new_privileges,
            observed: if engine.no_new_privileges {
                "the engine says no-new-privileges is set".to_owned()
            } else {
                "the engine says no-new-privileges is not set".to_owned()
            },
        });
    }
    verdicts
}

fn flag(facts: &Map<String, Value>, name: &str) -> Option<bool> {
    facts.get(name).and_then(Value::as_bool)
}

fn empty_list(facts: &Map<String, Value>, name: &str) -> bool {
    facts
        .get(name)
        .and_then(Value::as_array)
        .is_some_and(Vec::is_empty)
}

/// Whether the observation shows the protection holding; false for anything unknown.
fn holds(probe: &str, facts: &Map<String, Value>) -> bool {
    let number = |name: &str| facts.get(name).and_then(Value::as_i64);
    match probe {
        "uid not 0" => number("uid").is_some_and(|uid| uid != 0),
        "no capabilities" => number("effective") == Some(0) && number("bounding") == Some(0),
        "read-only root" => flag(facts, "readOnly") == Some(true),
        "data not writable" => {
            flag(facts, "folder") == Some(true) && flag(facts, "wrote") == Some(false)
        }
        "no TCP to the host gateway" | "no TCP to a public address" => {
            flag(facts, "answered") == Some(false)
        }
        "no DNS" => flag(facts, "resolved") == Some(false),
        "pids limit holds" => {
            flag(facts, "refused") == Some(true)
                && number("limit").is_some_and(|limit| limit <= PIDS_CEILING)
        }
        "memory limit holds" => flag(facts, "held") == Some(true),
        "no secret in the environment" => empty_list(facts, "names"),
        "no token on disk" => empty_list(facts, "readable"),
        "Docker socket absent" => empty_list(facts, "present"),
        _ => false,
    }
}

/// What the engine says against a probe passing; `Ok` when it agrees or has nothing to add.
fn engine_says(probe: &str, engine: &KernelFacts) -> Result<(), String> {
    let refuse = |holds: bool, said: String| if holds { Ok(()) } else { Err(said) };
    match probe {
        "uid not 0" => {
            let user = engine.user.split(':').next().unwrap_or_default();
            refuse(
                !user.is_empty() && user != "0" && user != "root",
                format!("the container runs as {:?}", engine.user),
            )
        }
        "no capabilities" => refuse(
            engine.no_capabilities,
            "the container keeps or adds capabilities".to_owned(),
        ),
        "read-only root" => refuse(
            engine.read_only_root,
            "the root filesystem is writable".to_owned(),
        ),
        "data not writable" => refuse(
            engine.data_read_only == Some(true),
            match engine.data_read_only {
                Some(_) => "the data folder is mounted read-write".to_owned(),
                None => "the data folder is not mounted".to_owned(),
            },
        ),
        "no TCP to the host gateway" | "no TCP to a public address" | "no DNS" => refuse(
            engine.internal_network == Some(true),
            format!(
                "the kernel is on the {} network, which is not internal",
                engine.network_mode
            ),
        ),
        "pids limit holds" => refuse(
            (1..=PIDS_CEILING).contains(&engine.pids_limit),
            format!("the process limit is {}", engine.pids_limit),
        ),
        "memory limit holds" => refuse(
            engine.no_swap,
            "memory is not limited without swap".to_owned(),
        ),
        "Docker socket absent" => refuse(
            engine.docker_sockets.is_empty(),
            format!("{} is mounted", engine.docker_sockets.join(", ")),
        ),
        _ => Ok(()),
    }
}

/// Whether the kernel runs the image Hailer makes for `contract`, under the configured name.
pub(super) fn image_verdict(image: &ImageFacts, contract: &str) -> ProbeVerdict {
    let short: String = image
        .id
        .trim_start_matches("sha256:")
        .chars()
        .take(12)
        .collect();
    let named = format!("{} (image {short})", image.name);
    let (passed, observed) = if !image.name_matches {
        (
            false,
            format!("{named}: the name now names another image than the kernel runs"),
        )
    } else if image.contract.as_deref() != Some(contract) {
        (
            false,
            format!("{named} carries another kernel contract than {contract}"),
        )
    } else if !image.ours {
        (
            false,
            format!(
                "{named} is a foreign image, not the one Hailer builds for {contract}: its \
                 programs, the Python that ran these probes included, are not Hailer's"
            ),
        )
    } else {
        (true, format!("{named} is Hailer's image for {contract}"))
    };
    ProbeVerdict {
        probe: "Hailer's kernel image".to_owned(),
        passed,
        observed,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn observation(probe: &str, facts: Value, observed: &str) -> Observation {
        Observation {
            probe: probe.to_owned(),
            observed: observed.to_owned(),
            facts: facts.as_object().cloned().unwrap(),
        }
    }

    fn contained() -> KernelFacts {
        KernelFacts {
            network_mode: "hailer-net-x".to_owned(),
            internal_network: Some(true),
            read_only_root: true,
            user: "1000:1000".to_owned(),
            no_capabilities: true,
            no_new_privileges: true,
            memory: 1 << 30,
            no_swap: true,
            pids_limit: 256,
            data_read_only: Some(true),
            docker_sockets: Vec::new(),
            image_id: "sha256:ab".to_owned(),
        }
    }

    #[test]
    fn the_printed_passed_is_ignored_and_the_facts_decide() {
        let output = "noise\nN:[{\"probe\":\"no DNS\",\"passed\":true,\"observed\":\"x\",\
                      \"facts\":{\"resolved\":true}},{\"probe\":\"uid not 0\",\"passed\":true,\
                      \"observed\":\"uid 1000\"}]\n";
        let observed = observations(output, "N:").unwrap();
        let verdicts = grade(&observed, None);
        assert!(
            !verdicts[0].passed,
            "resolved is a FAIL whatever was printed"
        );
        assert!(!verdicts[1].passed, "no facts, no PASS");
        assert!(observations("[{\"probe\":\"no DNS\"}]", "N:").is_err());
    }

    #[test]
    fn the_engine_overrules_a_probe_that_saw_nothing_wrong() {
        let quiet = [
            observation(
                "no TCP to a public address",
                json(r#"{"answered": false}"#),
                "nothing answered",
            ),
            observation("uid not 0", json(r#"{"uid": 1000}"#), "uid 1000"),
        ];
        let verdicts = grade(&quiet, Some(&contained()));
        assert!(
            verdicts.iter().all(|verdict| verdict.passed),
            "{verdicts:?}"
        );
        assert_eq!(verdicts[2].probe, "no new privileges");
        let open = KernelFacts {
            network_mode: "bridge".to_owned(),
            internal_network: Some(false),
            ..contained()
        };
        let verdicts = grade(&quiet, Some(&open));
        assert!(!verdicts[0].passed);
        assert_eq!(
            verdicts[0].observed,
            "nothing answered; the engine says the kernel is on the bridge network, which is not internal"
        );
        assert!(verdicts[1].passed);
    }

    #[test]
    fn a_derived_image_is_named_foreign() {
        let image = ImageFacts {
            name: "derived:1".to_owned(),
            id: "sha256:0123456789abcdef".to_owned(),
            contract: Some("c1".to_owned()),
            name_matches: true,
            ours: false,
        };
        let verdict = image_verdict(&image, "c1");
        assert!(!verdict.passed);
        assert!(
            verdict
                .observed
                .starts_with("derived:1 (image 0123456789ab) is a foreign image")
        );
        let ours = image_verdict(
            &ImageFacts {
                ours: true,
                ..image
            },
            "c1",
        );
        assert!(ours.passed, "{ours:?}");
    }

    fn json(text: &str) -> Value {
        serde_json::from_str(text).unwrap()
    }
}

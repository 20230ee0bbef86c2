//! The trust row: whether the workspace's settings that run programs, widen the kernel's reach,
//! use folders outside the workspace or route keys apply.

use hailer_config::{Loaded, TrustState};

use super::{Row, Verdict};

pub(super) fn row(loaded: &Loaded) -> Row {
    let trust = &loaded.trust;
    let names: Vec<&str> = trust.settings.iter().map(|s| s.name.as_str()).collect();
    let names = names.join(", ");
    let refused: Vec<&str> = trust.refused().map(|s| s.name.as_str()).collect();
    let refused = refused.join(", ");
    let details = || {
        trust
            .refused()
            .map(|setting| format!("- {} {}", setting.name, setting.effect))
            .collect::<Vec<_>>()
            .join("\n")
    };
    match trust.state {
        TrustState::NotNeeded => Row::new(
            "trust",
            Verdict::Ok,
            "not needed: the configuration runs no program of its own and sends no key elsewhere",
        ),
        TrustState::UserConfig => Row::new(
            "trust",
            Verdict::Ok,
            format!("trusted, in your own configuration folder ({names})"),
        ),
        TrustState::Trusted => Row::new("trust", Verdict::Ok, format!("trusted ({names})")),
        TrustState::NotTrusted | TrustState::Changed => {
            let why = if trust.state == TrustState::Changed {
                "changed since you trusted this file"
            } else {
                "not trusted"
            };
            Row::new(
                "trust",
                Verdict::Warn,
                format!("{why}: not applied: {refused}"),
            )
            .hint(details())
            .hint("Read hailer.toml, then run `hailer trust` to apply them.")
        }
    }
}

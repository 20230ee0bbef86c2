//! Trust decisions in the audit trail: what the session applies of the workspace's settings that
//! need `hailer trust`, written once per change (a session start, then every reload that finds
//! another state or digest: a grant, a revoke, an edit of a gated setting or of a trusted
//! script).

use hailer_config::Loaded;
use hailer_config::{Trust, TrustState};
use hailer_protocol::{AuditKind, AuditOutcome};

use super::Session;

/// The decision last written: its state and the digest it was about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct TrustSeen {
    state: TrustState,
    digest: String,
}

impl Session {
    /// Writes the trust decision of `loaded` to the audit trail unless it is the one written
    /// last. A file with nothing that needs trust is recorded only once it follows another
    /// decision (its gated settings were removed).
    pub(super) fn audit_trust(&self, loaded: &Loaded) {
        let trust = &loaded.trust;
        let seen = TrustSeen {
            state: trust.state,
            digest: trust.digest.clone(),
        };
        let Ok(mut last) = self.audited_trust.lock() else {
            return;
        };
        if last.as_ref() == Some(&seen) {
            return;
        }
        let first = last.is_none();
        *last = Some(seen);
        drop(last);
        if !first {
            self.notice(hailer_protocol::NoticeLevel::Info, what_changed(trust));
        }
        if first && matches!(trust.state, TrustState::NotNeeded | TrustState::UserConfig) {
            return;
        }
        let mut entry = self.audit.entry(AuditKind::Trust, Some("hailer.toml"));
        entry.sha256 = trust.digest.strip_prefix("sha256:").map(str::to_owned);
        entry.outcome = Some(if trust.state.refuses() {
            AuditOutcome::Error
        } else {
            AuditOutcome::Ok
        });
        entry.detail = Some(describe(trust));
        self.audit.write(entry);
    }
}

/// What every client is told when the trust decision changed under the live session: it
/// applies from now on (a kernel setting among them restarts the kernel first, which the
/// session says on its own).
fn what_changed(trust: &Trust) -> String {
    let names = |settings: Vec<&str>| settings.join(", ");
    match trust.state {
        TrustState::Trusted | TrustState::UserConfig => format!(
            "hailer.toml's trusted settings now apply to this session, from now on: {}.",
            names(trust.settings.iter().map(|s| s.name.as_str()).collect())
        ),
        TrustState::NotTrusted | TrustState::Changed => format!(
            "This session now leaves out, from now on, the settings of hailer.toml that need \
             `hailer trust`: {}.",
            names(trust.refused().map(|s| s.name.as_str()).collect())
        ),
        TrustState::NotNeeded => {
            "hailer.toml no longer has settings that need trust; this session follows it from \
             now on."
                .to_owned()
        }
    }
}

/// One sentence for the record: the decision and the settings it covers.
fn describe(trust: &Trust) -> String {
    let file = trust
        .file
        .as_deref()
        .map(|file| file.display().to_string())
        .unwrap_or_else(|| "hailer.toml".to_owned());
    let names: Vec<&str> = if trust.state.refuses() {
        trust.refused().map(|s| s.name.as_str()).collect()
    } else {
        trust.settings.iter().map(|s| s.name.as_str()).collect()
    };
    let names = names.join(", ");
    match trust.state {
        TrustState::Trusted => {
            format!("applies the settings of {file} trusted with `hailer trust`: {names}")
        }
        TrustState::NotTrusted => {
            format!("refused the settings of {file} that need `hailer trust`: {names}")
        }
        TrustState::Changed => {
            format!("refused the settings of {file} that changed since `hailer trust`: {names}")
        }
        TrustState::UserConfig => {
            format!("applies {file}, a file of the user's own configuration folder: {names}")
        }
        TrustState::NotNeeded => format!("{file} no longer has settings that need trust"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_decision_names_the_file_and_its_settings() {
        let mut trust = Trust {
            state: TrustState::NotTrusted,
            file: Some("/w/hailer.toml".into()),
            workspace: Some("/w".into()),
            digest: "sha256:ab".to_owned(),
            settings: Vec::new(),
        };
        trust.settings.push(hailer_config::GatedSetting {
            name: "[kernel] runtime".to_owned(),
            provider: None,
            effect: String::new(),
            variables: Vec::new(),
            exact: String::new(),
            status: hailer_config::SettingStatus::New,
            program: None,
        });
        assert_eq!(
            describe(&trust),
            "refused the settings of /w/hailer.toml that need `hailer trust`: [kernel] runtime"
        );
        trust.state = TrustState::Trusted;
        assert!(describe(&trust).starts_with("applies the settings of /w/hailer.toml trusted"));
    }
}

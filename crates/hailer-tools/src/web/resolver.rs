//! The name resolver of `fetch_page`'s client: it resolves as the system does, then drops every
//! address [`address_allowed`](super::address_allowed) refuses.

use std::net::SocketAddr;

use hailer_config::AllowedDomains;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};

use super::guard::address_allowed;

/// A name resolved only to addresses the allow list does not let us reach.
#[derive(Debug, thiserror::Error)]
#[error(
    "'{host}' resolves to {address}, a loopback or private address that is not listed literally"
)]
pub(super) struct AddressRefused {
    pub host: String,
    pub address: std::net::IpAddr,
}

pub(super) struct GuardedResolver {
    allowed: AllowedDomains,
}

impl GuardedResolver {
    pub(super) fn new(allowed: AllowedDomains) -> Self {
        Self { allowed }
    }
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let allowed = self.allowed.clone();
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let found: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let usable: Vec<SocketAddr> = found
                .iter()
                .copied()
                .filter(|address| address_allowed(&host, address.ip(), &allowed))
                .collect();
            if usable.is_empty()
                && let Some(first) = found.first()
            {
                return Err(Box::new(AddressRefused {
                    host,
                    address: first.ip(),
                })
                    as Box<dyn std::error::Error + Send + Sync>);
            }
            Ok(Box::new(usable.into_iter()) as Addrs)
        })
    }
}

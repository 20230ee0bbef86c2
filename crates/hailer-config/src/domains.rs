//! `[web].allowed_domains`: which hosts the page-fetching tool may reach.
//!
//! * `example.com` matches that host only;
//! * `*.example.com` matches its subdomains, not `example.com` itself;
//! * `**.example.com` matches `example.com` and its subdomains.
//!
//! IP addresses and `localhost` can only be listed as they are (no wildcards), so a private or
//! loopback address is reachable only when it is written out literally. Matching is lexical:
//! no name is ever resolved.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use serde::{Deserialize, Serialize};

/// Longest host name DNS allows.
const MAX_HOST_LEN: usize = 253;
/// Longest label DNS allows.
const MAX_LABEL_LEN: usize = 63;

/// One entry of the allow list.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum DomainRule {
    /// One host name, exactly.
    Exact(String),
    /// One IP address, exactly.
    Address(IpAddr),
    /// Every subdomain of the name (`*.name`), not the name itself.
    Subdomains(String),
    /// The name and every subdomain (`**.name`).
    ApexAndSubdomains(String),
}

/// Why an allow-list entry was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DomainError {
    /// The entry is empty or only spaces.
    #[error("is empty")]
    Empty,
    /// The entry is a bare wildcard or dot (`*`, `**`, `*.`, `**.`, `.`).
    #[error("would allow every site on the internet")]
    Everything,
    /// The entry contains `://`, as in `https://example.com`.
    #[error("is a URL, not a host name")]
    Url,
    /// The entry contains `/`, `:`, `?`, `#`, `@` or white space and is not an IP address.
    #[error("has a port, a path or a space in it")]
    NotAHost,
    /// A `*` appears anywhere but in a leading `*.` or `**.`.
    #[error("uses a wildcard other than a leading `*.` or `**.`")]
    MisplacedWildcard,
    /// A wildcard precedes a numeric name or `localhost`, such as `*.10.0.0.1`.
    #[error(
        "puts a wildcard in front of an IP address or localhost, which can only be listed as is"
    )]
    WildcardOnAddress,
    /// A wildcard precedes a name without a dot, such as `*.com`.
    #[error("puts a wildcard in front of a whole top-level domain")]
    WildcardOnTopLevel,
    /// The name breaks the host-name rules (ASCII letters, digits, `-` and `_` in labels of
    /// 1 to 63 characters, 253 in all), or looks numeric without being an IPv4 address.
    #[error("is not a valid host name")]
    Malformed,
}

impl DomainError {
    /// How to write the entry instead.
    pub fn hint(&self) -> &'static str {
        match self {
            DomainError::Everything | DomainError::WildcardOnTopLevel => {
                "List the sites the agent may read, such as \"docs.python.org\" or \"**.example.com\"."
            }
            DomainError::Url | DomainError::NotAHost => {
                "Write the host name alone, such as \"docs.python.org\" for https://docs.python.org/3/."
            }
            DomainError::WildcardOnAddress => {
                "Write the address itself, such as \"127.0.0.1\" or \"localhost\"."
            }
            DomainError::Empty | DomainError::MisplacedWildcard | DomainError::Malformed => {
                "Write a host name (\"example.com\"), its subdomains (\"*.example.com\") or both (\"**.example.com\"); use the ASCII (punycode) form of international names."
            }
        }
    }
}

impl DomainRule {
    /// Parses one entry; surrounding spaces are ignored and names are compared in lower case.
    pub fn parse(text: &str) -> Result<Self, DomainError> {
        let entry = text.trim().to_ascii_lowercase();
        if entry.is_empty() {
            return Err(DomainError::Empty);
        }
        if matches!(entry.as_str(), "*" | "**" | "*." | "**." | ".") {
            return Err(DomainError::Everything);
        }
        if entry.contains("://") {
            return Err(DomainError::Url);
        }
        if let Some(address) = parse_address(&entry) {
            return Ok(DomainRule::Address(address));
        }
        if entry.contains(['/', ':', '?', '#', '@']) || entry.chars().any(char::is_whitespace) {
            return Err(DomainError::NotAHost);
        }
        let (wildcard, name) = if let Some(name) = entry.strip_prefix("**.") {
            (Some(true), name)
        } else if let Some(name) = entry.strip_prefix("*.") {
            (Some(false), name)
        } else {
            (None, entry.as_str())
        };
        if name.contains('*') {
            return Err(DomainError::MisplacedWildcard);
        }
        let name = name.to_owned();
        if wildcard.is_some() && (is_address_like(&name) || is_localhost(&name)) {
            return Err(DomainError::WildcardOnAddress);
        }
        if !is_host_name(&name) {
            return Err(DomainError::Malformed);
        }
        if is_address_like(&name) {
            // Looks numeric but is not a real dotted IPv4 address, such as "1.2.3".
            return Err(DomainError::Malformed);
        }
        match wildcard {
            Some(_) if !name.contains('.') => Err(DomainError::WildcardOnTopLevel),
            Some(true) => Ok(DomainRule::ApexAndSubdomains(name)),
            Some(false) => Ok(DomainRule::Subdomains(name)),
            None => Ok(DomainRule::Exact(name)),
        }
    }

    /// Whether this rule lets the fetch tool reach `host` (a URL's host, in any case, with or
    /// without IPv6 brackets or a trailing dot).
    pub fn matches(&self, host: &str) -> bool {
        match Host::parse(host) {
            Some(host) => self.matches_host(&host),
            None => false,
        }
    }

    fn matches_host(&self, host: &Host) -> bool {
        match (self, host) {
            (DomainRule::Address(rule), Host::Address(address)) => rule == address,
            (DomainRule::Exact(rule), Host::Name(name)) => rule == name,
            // Wildcards never reach localhost names: they must be listed as they are.
            (_, Host::Name(name)) if is_localhost(name) => false,
            (DomainRule::Subdomains(rule), Host::Name(name)) => is_subdomain(name, rule),
            (DomainRule::ApexAndSubdomains(rule), Host::Name(name)) => {
                name == rule || is_subdomain(name, rule)
            }
            _ => false,
        }
    }
}

/// Second-level labels that registries hand out under a country code (`co.uk`, `com.au`), so a
/// wildcard over `<label>.<cc>` covers every customer of that registry.
const REGISTRY_LABELS: &[&str] = &[
    "ac", "co", "com", "edu", "gob", "go", "gouv", "gov", "govt", "ltd", "mil", "ne", "net", "nic",
    "nom", "or", "org", "plc", "sch",
];

/// Suffixes under which anyone can publish a site of their own: a wildcard over one of them
/// reaches every tenant.
const SHARED_SUFFIXES: &[&str] = &[
    "amazonaws.com",
    "appspot.com",
    "azurewebsites.net",
    "blogspot.com",
    "cloudfront.net",
    "firebaseapp.com",
    "github.io",
    "githubusercontent.com",
    "gitlab.io",
    "herokuapp.com",
    "netlify.app",
    "ngrok-free.app",
    "ngrok.io",
    "pages.dev",
    "trycloudflare.com",
    "vercel.app",
    "web.app",
    "workers.dev",
];

/// Name suffixes that only mean something inside a private network.
const PRIVATE_SUFFIXES: &[&str] = &[
    "internal",
    "local",
    "lan",
    "home.arpa",
    "localdomain",
    "intranet",
];

impl DomainRule {
    /// What this entry reaches besides public web sites, as the end of a sentence ("a loopback
    /// address of this machine"); `None` for an ordinary public host or domain. Such entries
    /// let the page-fetching tool read this machine, the local network or a cloud metadata
    /// service, or every tenant of a public suffix, so a workspace's file needs trust for them.
    pub fn private_reach(&self) -> Option<&'static str> {
        match self {
            DomainRule::Address(address) => address_reach(address),
            DomainRule::Exact(name) => name_reach(name),
            DomainRule::Subdomains(name) | DomainRule::ApexAndSubdomains(name) => name_reach(name)
                .or_else(|| {
                    is_public_suffix(name)
                        .then_some("every site under a public suffix, whoever runs it")
                }),
        }
    }
}

fn address_reach(address: &IpAddr) -> Option<&'static str> {
    match address {
        IpAddr::V4(v4) => v4_reach(v4),
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return v4_reach(&v4);
            }
            let first = v6.segments()[0];
            if v6.is_loopback() || v6.is_unspecified() {
                Some("a loopback address of this machine")
            } else if first & 0xffc0 == 0xfe80 {
                Some("a link-local address (cloud metadata services among them)")
            } else if first & 0xfe00 == 0xfc00 {
                Some("a private network address")
            } else {
                None
            }
        }
    }
}

fn v4_reach(v4: &Ipv4Addr) -> Option<&'static str> {
    let [a, b, ..] = v4.octets();
    if v4.is_loopback() || v4.is_unspecified() || a == 0 {
        Some("a loopback address of this machine")
    } else if v4.is_link_local() {
        Some("a link-local address (cloud metadata services among them)")
    } else if v4.is_private() || (a == 100 && (64..128).contains(&b)) || v4.is_broadcast() {
        Some("a private network address")
    } else {
        None
    }
}

fn name_reach(name: &str) -> Option<&'static str> {
    if is_localhost(name) {
        Some("this machine (localhost)")
    } else if !name.contains('.')
        || PRIVATE_SUFFIXES
            .iter()
            .any(|suffix| name == *suffix || is_subdomain(name, suffix))
    {
        Some("a name of the local network (cloud metadata services among them)")
    } else {
        None
    }
}

fn is_public_suffix(name: &str) -> bool {
    if SHARED_SUFFIXES.contains(&name) {
        return true;
    }
    let labels: Vec<&str> = name.split('.').collect();
    matches!(labels.as_slice(), [label, cc] if cc.len() == 2 && REGISTRY_LABELS.contains(label))
}

impl fmt::Display for DomainRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DomainRule::Exact(name) => write!(f, "{name}"),
            DomainRule::Address(IpAddr::V6(address)) => write!(f, "[{address}]"),
            DomainRule::Address(address) => write!(f, "{address}"),
            DomainRule::Subdomains(name) => write!(f, "*.{name}"),
            DomainRule::ApexAndSubdomains(name) => write!(f, "**.{name}"),
        }
    }
}

/// The whole allow list. Empty refuses every host.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "Vec<String>", into = "Vec<String>")]
pub struct AllowedDomains {
    rules: Vec<DomainRule>,
}

impl AllowedDomains {
    /// An allow list of these rules, kept in the given order.
    pub fn new(rules: Vec<DomainRule>) -> Self {
        Self { rules }
    }

    /// An allow list of written rules (`*.example.com`), in the given order; the first entry
    /// that is not a rule is the error.
    pub fn parse_each<S: AsRef<str>>(entries: &[S]) -> Result<Self, DomainError> {
        let rules = entries
            .iter()
            .map(|entry| DomainRule::parse(entry.as_ref()))
            .collect::<Result<_, _>>()?;
        Ok(Self::new(rules))
    }

    /// Whether any rule lets the fetch tool reach `host`.
    pub fn matches(&self, host: &str) -> bool {
        match Host::parse(host) {
            Some(host) => self.rules.iter().any(|rule| rule.matches_host(&host)),
            None => false,
        }
    }

    /// The rules, in the order they were written.
    pub fn rules(&self) -> &[DomainRule] {
        &self.rules
    }

    /// Whether the list has no rule, in which case every host is refused.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }
}

impl TryFrom<Vec<String>> for AllowedDomains {
    type Error = String;

    fn try_from(entries: Vec<String>) -> Result<Self, Self::Error> {
        entries
            .iter()
            .map(|entry| DomainRule::parse(entry).map_err(|error| format!("\"{entry}\" {error}")))
            .collect::<Result<Vec<_>, _>>()
            .map(Self::new)
    }
}

impl From<AllowedDomains> for Vec<String> {
    fn from(domains: AllowedDomains) -> Self {
        domains.rules.iter().map(ToString::to_string).collect()
    }
}

/// A URL's host, normalised for comparison.
enum Host {
    Address(IpAddr),
    Name(String),
}

impl Host {
    fn parse(host: &str) -> Option<Self> {
        let host = host.trim().to_ascii_lowercase();
        if let Some(address) = parse_address(&host) {
            return Some(Host::Address(address));
        }
        let name = host.strip_suffix('.').unwrap_or(&host);
        // Numeric names a URL parser may read as an address ("2130706433", "0x7f.1") never
        // match a name rule.
        if name.is_empty() || is_address_like(name) || !is_host_name(name) {
            return None;
        }
        Some(Host::Name(name.to_owned()))
    }
}

fn parse_address(text: &str) -> Option<IpAddr> {
    if let Ok(v4) = text.parse::<Ipv4Addr>() {
        return Some(IpAddr::V4(v4));
    }
    let inner = text
        .strip_prefix('[')
        .and_then(|rest| rest.strip_suffix(']'))
        .unwrap_or(text);
    inner.parse::<Ipv6Addr>().ok().map(IpAddr::V6)
}

/// Whether the last label is numeric (or hexadecimal), as in an IPv4 address.
fn is_address_like(name: &str) -> bool {
    let last = name.rsplit('.').next().unwrap_or(name);
    let digits = last.strip_prefix("0x").unwrap_or(last);
    !last.is_empty()
        && (last.bytes().all(|b| b.is_ascii_digit())
            || (last.starts_with("0x") && digits.bytes().all(|b| b.is_ascii_hexdigit())))
}

fn is_localhost(name: &str) -> bool {
    name == "localhost" || name.ends_with(".localhost")
}

fn is_subdomain(name: &str, parent: &str) -> bool {
    name.len() > parent.len() + 1
        && name.ends_with(parent)
        && name.as_bytes()[name.len() - parent.len() - 1] == b'.'
}

/// Letters, digits, `-` and `_` in dot-separated labels of 1–63 characters, not starting or
/// ending with `-`, at most 253 characters in all.
fn is_host_name(name: &str) -> bool {
    name.len() <= MAX_HOST_LEN
        && name.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= MAX_LABEL_LEN
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn rules(entries: &[&str]) -> AllowedDomains {
        AllowedDomains::parse_each(entries).unwrap()
    }

    #[test]
    fn wildcards_follow_the_documented_meaning() {
        let list = rules(&["example.com", "*.sub.org", "**.docs.net"]);
        let cases = [
            ("example.com", true),
            ("EXAMPLE.com.", true),
            ("www.example.com", false),
            ("sub.org", false),
            ("a.sub.org", true),
            ("a.b.sub.org", true),
            ("evilsub.org", false),
            ("docs.net", true),
            ("x.docs.net", true),
            ("xdocs.net", false),
            ("", false),
            ("exa mple.com", false),
        ];
        for (host, expected) in cases {
            assert_eq!(list.matches(host), expected, "{host}");
        }
    }

    #[test]
    fn addresses_and_localhost_match_only_when_listed_literally() {
        let wide = rules(&["**.example.com"]);
        for host in [
            "127.0.0.1",
            "10.0.0.8",
            "[::1]",
            "localhost",
            "2130706433",
            "0x7f.1",
        ] {
            assert!(!wide.matches(host), "{host}");
        }
        let literal = rules(&["127.0.0.1", "localhost", "[::1]", "192.168.1.10"]);
        for host in ["127.0.0.1", "localhost", "[::1]", "::1", "192.168.1.10"] {
            assert!(literal.matches(host), "{host}");
        }
        assert!(!literal.matches("127.0.0.2"));
        assert!(!literal.matches("api.localhost"));
    }

    #[test]
    fn private_reach_names_loopback_private_link_local_and_public_suffixes() {
        let reach = |entry: &str| DomainRule::parse(entry).unwrap().private_reach();
        for entry in [
            "127.0.0.1",
            "[::1]",
            "localhost",
            "10.1.2.3",
            "192.168.0.10",
            "172.16.5.4",
            "169.254.169.254",
            "[fe80::1]",
            "[fd00:ec2::254]",
            "[::ffff:127.0.0.1]",
            "0.0.0.0",
            "metadata.google.internal",
            "metadata",
            "printer.local",
            "*.co.uk",
            "**.github.io",
            "**.com.au",
        ] {
            assert!(reach(entry).is_some(), "{entry}");
        }
        for entry in [
            "docs.python.org",
            "8.8.8.8",
            "*.example.com",
            "**.example.co.uk",
            "github.io",
            "[2001:db8::1]",
        ] {
            assert_eq!(reach(entry), None, "{entry}");
        }
    }

    #[test]
    fn refuses_malformed_entries() {
        let cases = [
            ("", DomainError::Empty),
            ("*", DomainError::Everything),
            ("**", DomainError::Everything),
            ("https://example.com", DomainError::Url),
            ("example.com/path", DomainError::NotAHost),
            ("example.com:8080", DomainError::NotAHost),
            ("a.*.example.com", DomainError::MisplacedWildcard),
            ("*example.com", DomainError::MisplacedWildcard),
            ("*.10.0.0.1", DomainError::WildcardOnAddress),
            ("**.localhost", DomainError::WildcardOnAddress),
            ("*.com", DomainError::WildcardOnTopLevel),
            ("exa_mple..com", DomainError::Malformed),
            ("-bad.com", DomainError::Malformed),
            ("bücher.de", DomainError::Malformed),
            ("1.2.3", DomainError::Malformed),
        ];
        for (entry, expected) in cases {
            assert_eq!(DomainRule::parse(entry), Err(expected.clone()), "{entry}");
        }
    }

    #[test]
    fn serialises_as_the_written_list() {
        let list = rules(&["Example.com", "*.a.org", "**.b.org", "::1"]);
        let json = serde_json::to_string(&list).unwrap();
        assert_eq!(json, r#"["example.com","*.a.org","**.b.org","[::1]"]"#);
        let back: AllowedDomains = serde_json::from_str(&json).unwrap();
        assert_eq!(back, list);
        assert!(serde_json::from_str::<AllowedDomains>(r#"["*"]"#).is_err());
    }
}

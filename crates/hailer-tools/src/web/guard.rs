//! Which URLs `fetch_page` may reach: http or https, no credentials in the URL, a host the
//! allow list names, and (after resolution) an address that is public unless it was listed
//! literally.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use hailer_config::AllowedDomains;
use reqwest::Url;

use crate::Failure;

/// Checks a URL before it is requested, and again for every redirect.
pub(crate) fn check_url(url: &Url, allowed: &AllowedDomains) -> Result<(), Failure> {
    if !matches!(url.scheme(), "http" | "https") {
        return Err(Failure::new(
            format!(
                "only http and https pages can be fetched, not {}: URLs",
                url.scheme()
            ),
            "Give an http:// or https:// URL.",
        ));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(Failure::new(
            "URLs with a user name or password in them are refused",
            "Fetch pages that need no credentials.",
        ));
    }
    let Some(host) = url.host_str() else {
        return Err(Failure::new(
            "the URL has no host",
            "Give a full URL, such as https://example.com/page.",
        ));
    };
    if !allowed.matches(host) {
        return Err(not_allowed(host, allowed));
    }
    Ok(())
}

/// The failure for a host outside the allow list.
pub(crate) fn not_allowed(host: &str, allowed: &AllowedDomains) -> Failure {
    let hint = if allowed.is_empty() {
        "No site is allowed: [web].allowed_domains in hailer.toml is empty. Do not retry; tell the user.".to_owned()
    } else {
        let list: Vec<String> = allowed.rules().iter().map(ToString::to_string).collect();
        format!(
            "Allowed: {}. Only the user can add sites, in [web].allowed_domains of hailer.toml.",
            list.join(", ")
        )
    };
    Failure::new(format!("web access to '{host}' is not allowed"), hint)
}

/// Whether a connection to `address`, found by resolving `host`, may be made: public addresses
/// always; loopback, private and other special addresses only when the address itself is
/// listed, or for `localhost` when it is listed by that name.
pub(crate) fn address_allowed(host: &str, address: IpAddr, allowed: &AllowedDomains) -> bool {
    if is_public(address) {
        return true;
    }
    if allowed.matches(&address.to_string()) {
        return true;
    }
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    host == "localhost" && address.is_loopback() && allowed.matches("localhost")
}

/// Whether an address is reachable on the public internet (not loopback, private, link-local,
/// shared, documentation, multicast or otherwise reserved).
pub(crate) fn is_public(address: IpAddr) -> bool {
    match address {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => is_public_v4(v4),
            None => is_public_v6(v6),
        },
    }
}

fn is_public_v4(address: Ipv4Addr) -> bool {
    let [a, b, c, _] = address.octets();
    !(address.is_unspecified()
        || address.is_loopback()
        || address.is_private()
        || address.is_link_local()
        || address.is_broadcast()
        || address.is_documentation()
        || address.is_multicast()
        || a == 0
        || (a == 100 && (64..128).contains(&b)) // shared address space
        || (a == 192 && b == 0 && c == 0) // protocol assignments
        || (a == 198 && (b == 18 || b == 19)) // benchmarking
        || a >= 240)
}

fn is_public_v6(address: Ipv6Addr) -> bool {
    let first = address.segments()[0];
    !(address.is_unspecified()
        || address.is_loopback()
        || address.is_multicast()
        || (first & 0xfe00) == 0xfc00 // unique local
        || (first & 0xffc0) == 0xfe80 // link-local
        || (first & 0xffc0) == 0xfec0 // site-local (deprecated)
        || first == 0x2001 && address.segments()[1] == 0x0db8 // documentation
        || first == 0x0064 && address.segments()[1] == 0xff9b) // NAT64 maps onto IPv4
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use proptest::prelude::*;

    use super::*;

    fn list(entries: &[&str]) -> AllowedDomains {
        AllowedDomains::parse_each(entries).unwrap()
    }

    #[test]
    fn urls_need_an_allowed_host_and_a_web_scheme() {
        let allowed = list(&["docs.python.org", "**.example.com"]);
        let ok = |url: &str| check_url(&Url::parse(url).unwrap(), &allowed);
        assert!(ok("https://docs.python.org/3/").is_ok());
        assert!(ok("http://a.b.example.com:8080/x?y=1").is_ok());
        assert_eq!(
            ok("https://evil.com/").unwrap_err().message,
            "web access to 'evil.com' is not allowed"
        );
        assert!(
            ok("ftp://docs.python.org/")
                .unwrap_err()
                .message
                .contains("not ftp")
        );
        assert!(ok("file:///etc/passwd").is_err());
        assert!(
            ok("https://user:pw@docs.python.org/")
                .unwrap_err()
                .message
                .contains("password")
        );
        assert!(ok("https://127.0.0.1/").is_err());
        assert!(ok("https://docs.python.org.evil.com/").is_err());
        let empty = check_url(
            &Url::parse("https://example.com").unwrap(),
            &AllowedDomains::default(),
        )
        .unwrap_err();
        assert!(empty.hint.contains("is empty"), "{}", empty.hint);
    }

    #[test]
    fn special_addresses_need_a_literal_entry() {
        let wide = list(&["**.example.com"]);
        let loopback: IpAddr = "127.0.0.1".parse().unwrap();
        assert!(!address_allowed("x.example.com", loopback, &wide));
        assert!(!address_allowed(
            "x.example.com",
            "10.1.2.3".parse().unwrap(),
            &wide
        ));
        assert!(!address_allowed(
            "x.example.com",
            "::ffff:127.0.0.1".parse().unwrap(),
            &wide
        ));
        assert!(!address_allowed(
            "x.example.com",
            "169.254.169.254".parse().unwrap(),
            &wide
        ));
        assert!(address_allowed(
            "x.example.com",
            "93.184.216.34".parse().unwrap(),
            &wide
        ));
        let literal = list(&["127.0.0.1", "localhost"]);
        assert!(address_allowed("example.com", loopback, &literal));
        assert!(address_allowed(
            "localhost",
            "::1".parse().unwrap(),
            &list(&["localhost"])
        ));
        assert!(!address_allowed(
            "localhost",
            "10.0.0.1".parse().unwrap(),
            &list(&["localhost"])
        ));
    }

    proptest! {
        // Whatever the allow list, a host it does not name is refused, and a wildcard never
        // reaches an address or a localhost name.
        #[test]
        fn wildcards_never_reach_addresses_or_localhost(
            apex in "[a-z]{1,8}\\.(com|org|net)",
            label in "[a-z0-9]{1,8}",
            a in 0u8..=255, b in 0u8..=255,
        ) {
            let allowed = list(&[&format!("*.{apex}"), &format!("**.{apex}")]);
            let subdomain = format!("{label}.{apex}");
            let glued = format!("{label}{apex}");
            let suffixed = format!("{apex}.{label}.evil");
            let private_text = format!("10.{a}.{b}.1");
            prop_assert!(allowed.matches(&subdomain));
            prop_assert!(!allowed.matches(&glued));
            prop_assert!(!allowed.matches(&suffixed));
            prop_assert!(!allowed.matches(&private_text));
            prop_assert!(!allowed.matches("localhost"));
            let url = Url::parse(&format!("http://{subdomain}.attacker.net/")).unwrap();
            prop_assert!(check_url(&url, &allowed).is_err());
            let private: IpAddr = private_text.parse().unwrap();
            prop_assert!(!address_allowed(&subdomain, private, &allowed));
        }
    }
}

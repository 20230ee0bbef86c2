//! `fetch_page`: one page from a host the allow list names, as readable text.
//!
//! * Only http and https, and no credentials in the URL.
//! * The host is checked before the request and again for every redirect (at most
//!   [`MAX_REDIRECTS`]); every name is resolved by our own resolver, which refuses loopback,
//!   private and other special addresses unless they are listed literally, so a public name that
//!   points at this machine is refused too. Proxies are not used: they would resolve names where
//!   these checks cannot see.
//! * The whole fetch has [`FETCH_TIMEOUT`]; at most `max_page_bytes` of the body are read.
//! * HTML becomes plain text; other text is kept as it is; anything else is refused.
//! * The answer starts with `Source: <final URL>`, with secret-looking query values masked.

mod guard;
mod resolver;
mod text;

use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use hailer_config::AllowedDomains;
use reqwest::Url;

pub(crate) use guard::check_url;
pub(crate) use text::{mask_url, page_text};

use crate::Failure;

/// The longest a fetch may take, redirects and body included.
pub(crate) const FETCH_TIMEOUT: Duration = Duration::from_secs(20);
/// The most redirects followed.
pub(crate) const MAX_REDIRECTS: usize = 5;
/// The user agent pages see.
pub(crate) const USER_AGENT: &str = concat!(
    "Hailer/",
    env!("CARGO_PKG_VERSION"),
    " (page fetch for a data analyst's agent)"
);

/// Why a redirect was not followed (carried through reqwest's error chain).
#[derive(Debug, thiserror::Error)]
enum RedirectRefused {
    #[error("{}", .0.message)]
    Refused(Failure, Url),
    #[error("the page redirected more than {MAX_REDIRECTS} times")]
    TooMany,
}

/// Fetches `url` and answers the page as text, or why it cannot.
pub async fn fetch_page(
    url: &str,
    allowed: &AllowedDomains,
    max_page_bytes: u64,
) -> Result<String, Failure> {
    let url = Url::parse(url.trim()).map_err(|error| {
        Failure::new(
            format!("'{}' is not a URL ({error})", url.trim()),
            "Give a full URL, such as https://example.com/page.",
        )
    })?;
    check_url(&url, allowed)?;
    let client = client(allowed)?;
    let response = client
        .get(url.clone())
        .header(
            reqwest::header::ACCEPT,
            "text/html, text/plain;q=0.9, */*;q=0.5",
        )
        .send()
        .await
        .map_err(|error| request_failure(&url, &error))?;
    let final_url = response.url().clone();
    let status = response.status();
    if !status.is_success() {
        return Err(Failure::new(
            format!(
                "could not fetch {}: HTTP {} {}",
                mask_url(&final_url),
                status.as_u16(),
                status.canonical_reason().unwrap_or("")
            )
            .trim_end()
            .to_owned(),
            "Check the address; do not retry the same URL.",
        ));
    }
    let content_type = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    let limit = usize::try_from(max_page_bytes).unwrap_or(usize::MAX);
    let (body, cut) = read_body(response, limit)
        .await
        .map_err(|error| request_failure(&final_url, &error))?;
    let text = page_text(&content_type, &body).ok_or_else(|| {
        Failure::new(
            format!(
                "{} is not a text page (it is {})",
                mask_url(&final_url),
                if content_type.is_empty() {
                    "of an unknown type"
                } else {
                    content_type.as_str()
                }
            ),
            "fetch_page reads HTML and text pages only.",
        )
    })?;
    let mut reply = format!("Source: {}\n", mask_url(&final_url));
    if cut {
        reply.push_str(&format!(
            "[Hailer] The page is longer than {limit} bytes ([web].max_page_bytes); only its first {limit} bytes were read.\n"
        ));
    }
    reply.push('\n');
    reply.push_str(text.trim());
    Ok(reply)
}

fn client(allowed: &AllowedDomains) -> Result<reqwest::Client, Failure> {
    let redirects = allowed.clone();
    let policy = reqwest::redirect::Policy::custom(move |attempt| {
        if attempt.previous().len() > MAX_REDIRECTS {
            return attempt.error(RedirectRefused::TooMany);
        }
        match check_url(attempt.url(), &redirects) {
            Ok(()) => attempt.follow(),
            Err(failure) => {
                let url = attempt.url().clone();
                attempt.error(RedirectRefused::Refused(failure, url))
            }
        }
    });
    reqwest::Client::builder()
        .user_agent(USER_AGENT)
        .timeout(FETCH_TIMEOUT)
        .no_proxy()
        .redirect(policy)
        .dns_resolver(Arc::new(resolver::GuardedResolver::new(allowed.clone())))
        .build()
        .map_err(|error| {
            Failure::new(
                format!("cannot set up the web client: {error}"),
                "Tell the user.",
            )
        })
}

/// Reads at most `limit` bytes of the body; true when there was more.
async fn read_body(
    response: reqwest::Response,
    limit: usize,
) -> Result<(Vec<u8>, bool), reqwest::Error> {
    let mut body = Vec::new();
    let mut stream = response.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk?;
        let room = limit - body.len();
        if chunk.len() > room {
            body.extend_from_slice(&chunk[..room]);
            return Ok((body, true));
        }
        body.extend_from_slice(&chunk);
        if body.len() == limit {
            // Exactly full: there is more unless the stream ends now.
            let more = matches!(stream.next().await, Some(Ok(next)) if !next.is_empty());
            return Ok((body, more));
        }
    }
    Ok((body, false))
}

/// Words for a failed request, naming our own refusals plainly.
fn request_failure(url: &Url, error: &reqwest::Error) -> Failure {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(current) = source {
        if let Some(refused) = current.downcast_ref::<RedirectRefused>() {
            return match refused {
                RedirectRefused::Refused(failure, to) => Failure::new(
                    format!(
                        "{} redirected to {}, and {}",
                        mask_url(url),
                        mask_url(to),
                        failure.message
                    ),
                    failure.hint.clone(),
                ),
                RedirectRefused::TooMany => {
                    Failure::new(refused.to_string(), "Give the final address of the page.")
                }
            };
        }
        if let Some(refused) = current.downcast_ref::<resolver::AddressRefused>() {
            return Failure::new(
                format!("{} cannot be fetched: {refused}", mask_url(url)),
                "Addresses on this machine or a private network are reachable only when the user lists them literally in [web].allowed_domains.",
            );
        }
        source = current.source();
    }
    let what = if error.is_timeout() {
        format!("did not answer within {} seconds", FETCH_TIMEOUT.as_secs())
    } else if error.is_connect() {
        "could not be reached".to_owned()
    } else {
        "failed".to_owned()
    };
    Failure::new(
        format!("fetching {} {what}", mask_url(url)),
        "Check the address; the site may be down.",
    )
}

#[cfg(test)]
mod tests;

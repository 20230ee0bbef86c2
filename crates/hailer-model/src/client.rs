//! The model client: one provider's endpoint, one call at a time per [`ModelClient::stream`],
//! events delivered over a channel as they arrive.

use std::net::IpAddr;
use std::sync::Arc;

use bytes::Bytes;
use reqwest::Url;
use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use secrecy::ExposeSecret;
use tokio::sync::mpsc;

use crate::conversation::ModelRequest;
use crate::diagnose::Diagnosis;
use crate::error::{ModelError, Result};
use crate::events::{Completion, ModelEvent};
use crate::in_process::LocalModel;
use crate::redact::Redactor;
use crate::settings::{ProviderSettings, WireApi};
use crate::transport::{HttpTransport, PostRequest, RetryPolicy, SseReader, Timeouts};
use crate::wire::{StreamParser, parse_whole};
use crate::{chat, responses};

/// Events buffered between the request task and a slow receiver.
const CHANNEL_CAPACITY: usize = 256;

/// Timeouts and retries of a client.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClientOptions {
    /// How often and how long to wait before resending a request that got no usable response.
    pub retry: RetryPolicy,
    /// How long to wait for the connection, the response and each event of a streamed reply.
    pub timeouts: Timeouts,
}

/// The receiving end of one model call: `Ok` events ending with [`ModelEvent::Completed`], or an
/// `Err` as the last item. Dropping it aborts the call at once.
pub type ModelEvents = mpsc::Receiver<Result<ModelEvent>>;

struct Inner {
    settings: ProviderSettings,
    backend: Backend,
    redactor: Redactor,
}

/// Where replies come from.
enum Backend {
    /// An OpenAI-compatible endpoint.
    Http(Box<Http>),
    /// A model inside this process.
    Local(Arc<dyn LocalModel>),
}

struct Http {
    transport: HttpTransport,
    url: Url,
    headers: HeaderMap,
}

/// A client for one provider's OpenAI-compatible endpoint. Cheap to clone.
#[derive(Clone)]
pub struct ModelClient {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for ModelClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let settings = &self.inner.settings;
        let url = match &self.inner.backend {
            Backend::Http(http) => http.url.as_str(),
            Backend::Local(_) => "(in this process)",
        };
        f.debug_struct("ModelClient")
            .field("provider", &settings.provider_id)
            .field("url", &url)
            .field("model", &settings.model)
            .field("stream", &settings.stream)
            .finish_non_exhaustive()
    }
}

fn invalid(settings: &ProviderSettings, detail: String) -> ModelError {
    ModelError::InvalidSettings {
        provider: settings.provider_id.clone(),
        detail,
    }
}

fn endpoint_url(settings: &ProviderSettings) -> Result<Url> {
    let base = settings.base_url.trim().trim_end_matches('/');
    let joined = format!("{base}/{}", settings.wire_api.path());
    let mut url = Url::parse(&joined)
        .ok()
        .filter(|url| matches!(url.scheme(), "http" | "https") && url.host().is_some())
        .ok_or_else(|| {
            invalid(
                settings,
                format!(
                    "base_url '{base}' is not an http(s) URL such as https://api.openai.com/v1"
                ),
            )
        })?;
    if !settings.query_params.is_empty() {
        url.query_pairs_mut().extend_pairs(&settings.query_params);
    }
    Ok(url)
}

fn header(
    settings: &ProviderSettings,
    name: &str,
    value: &str,
    sensitive: bool,
) -> Result<(HeaderName, HeaderValue)> {
    let header_name = HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
        invalid(
            settings,
            format!("'{name}' is not a valid HTTP header name"),
        )
    })?;
    let mut header_value = HeaderValue::from_str(value).map_err(|_| {
        invalid(
            settings,
            format!("the value of header '{name}' is not a valid HTTP header value"),
        )
    })?;
    header_value.set_sensitive(sensitive);
    Ok((header_name, header_value))
}

fn request_headers(settings: &ProviderSettings) -> Result<HeaderMap> {
    let mut headers = HeaderMap::new();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    let accept = if settings.stream {
        "text/event-stream"
    } else {
        "application/json"
    };
    headers.insert(ACCEPT, HeaderValue::from_static(accept));
    for (name, value) in &settings.http_headers {
        let (name, value) = header(settings, name, value, false)?;
        headers.insert(name, value);
    }
    for (name, value) in &settings.env_http_headers {
        let value = value.expose_secret();
        if !value.is_empty() {
            let (name, value) = header(settings, name, value, true)?;
            headers.insert(name, value);
        }
    }
    if let Some(key) = &settings.api_key {
        let key = key.expose_secret();
        if !key.is_empty() {
            let (_, value) = header(settings, "Authorization", &format!("Bearer {key}"), true)?;
            headers.insert(AUTHORIZATION, value);
        }
    }
    Ok(headers)
}

fn is_loopback(url: &Url) -> bool {
    match url.host_str() {
        Some("localhost") => true,
        Some(host) => host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<IpAddr>()
            .is_ok_and(|ip| ip.is_loopback()),
        None => false,
    }
}

impl ModelClient {
    /// Checks the settings and prepares the HTTP client. Loopback endpoints bypass proxies.
    pub fn new(settings: ProviderSettings, options: ClientOptions) -> Result<Self> {
        let url = endpoint_url(&settings)?;
        let headers = request_headers(&settings)?;
        let transport = HttpTransport::new(options.timeouts, options.retry, is_loopback(&url))
            .map_err(|error| invalid(&settings, error.to_string()))?;
        let redactor = crate::redact::for_provider(&settings);
        Ok(Self {
            inner: Arc::new(Inner {
                settings,
                backend: Backend::Http(Box::new(Http {
                    transport,
                    url,
                    headers,
                })),
                redactor,
            }),
        })
    }

    /// A client whose replies come from `model`, in this process: no endpoint, no key, no
    /// network. `settings` name the provider and model in messages.
    pub fn local(settings: ProviderSettings, model: Arc<dyn LocalModel>) -> Self {
        let redactor = crate::redact::for_provider(&settings);
        Self {
            inner: Arc::new(Inner {
                settings,
                backend: Backend::Local(model),
                redactor,
            }),
        }
    }

    /// Whether replies come from a model in this process rather than an endpoint.
    pub fn is_local(&self) -> bool {
        matches!(self.inner.backend, Backend::Local(_))
    }

    /// The provider settings this client was made with, as given (secrets included).
    pub fn settings(&self) -> &ProviderSettings {
        &self.inner.settings
    }

    /// The redactor for this provider's secrets, for callers that log endpoint text.
    pub fn redactor(&self) -> &Redactor {
        &self.inner.redactor
    }

    /// The JSON body this request is sent as.
    pub fn request_body(&self, request: &ModelRequest) -> serde_json::Value {
        let settings = &self.inner.settings;
        match settings.wire_api {
            WireApi::Responses => responses::request_body(settings, request),
            WireApi::Chat => chat::request_body(settings, request),
        }
    }

    /// Starts the call and returns its events. Must be called inside a Tokio runtime.
    pub fn stream(&self, request: &ModelRequest) -> ModelEvents {
        let (tx, rx) = mpsc::channel(CHANNEL_CAPACITY);
        let http = match &self.inner.backend {
            Backend::Http(_) => Arc::clone(&self.inner),
            Backend::Local(model) => {
                crate::in_process::answer(Arc::clone(model), request.clone(), tx);
                return rx;
            }
        };
        let body = Bytes::from(self.request_body(request).to_string());
        let inner = http;
        let effort = request.reasoning_effort;
        tokio::spawn(async move {
            let Backend::Http(endpoint) = &inner.backend else {
                return;
            };
            let diagnosis = Diagnosis {
                settings: &inner.settings,
                redactor: &inner.redactor,
                path: endpoint.url.path(),
                reasoning_effort: effort,
            };
            tokio::select! {
                () = tx.closed() => {
                    tracing::debug!(provider = %inner.settings.provider_id, "model call abandoned by its receiver");
                }
                outcome = exchange(&inner.settings, endpoint, body, &diagnosis, &tx) => {
                    if let Err(error) = outcome {
                        tracing::debug!(provider = %inner.settings.provider_id, %error, "model call failed");
                        let _ = tx.send(Err(error)).await;
                    }
                }
            }
        });
        rx
    }

    /// Runs the call to its end and returns the complete reply.
    pub async fn complete(&self, request: &ModelRequest) -> Result<Completion> {
        let mut events = self.stream(request);
        while let Some(event) = events.recv().await {
            if let ModelEvent::Completed(completion) = event? {
                return Ok(completion);
            }
        }
        Err(ModelError::StreamInterrupted {
            reason: "the call ended without a reply".to_owned(),
        })
    }
}

/// Sends the request and forwards the reply's events. `Ok` also when the receiver went away.
async fn exchange(
    settings: &ProviderSettings,
    inner: &Http,
    body: Bytes,
    diagnosis: &Diagnosis<'_>,
    tx: &mpsc::Sender<Result<ModelEvent>>,
) -> Result<()> {
    tracing::debug!(provider = %settings.provider_id, model = %settings.model,
        wire_api = %settings.wire_api, stream = settings.stream, "model call");
    let post = PostRequest {
        url: inner.url.clone(),
        headers: inner.headers.clone(),
        body,
    };
    let sent = inner
        .transport
        .send(&post)
        .await
        .map_err(|error| diagnosis.transport(error))?;
    let content_type = sent
        .response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
        .to_ascii_lowercase();
    let streamed = if content_type.starts_with("text/event-stream") {
        true
    } else if content_type.contains("json") {
        false
    } else {
        settings.stream
    };
    if streamed {
        let mut reader = inner.transport.events(sent.response);
        return pump_stream(&mut reader, settings.wire_api, diagnosis, tx).await;
    }
    let bytes = inner
        .transport
        .read_body(sent)
        .await
        .map_err(|error| diagnosis.transport(error))?;
    let events = parse_whole(settings.wire_api, &bytes).map_err(|error| diagnosis.wire(error))?;
    for event in events {
        if tx.send(Ok(event)).await.is_err() {
            break;
        }
    }
    Ok(())
}

/// Reads a streamed reply to its completion, forwarding events. A stream that ends before its
/// completion marker is an error.
pub(crate) async fn pump_stream(
    reader: &mut SseReader,
    wire: WireApi,
    diagnosis: &Diagnosis<'_>,
    tx: &mpsc::Sender<Result<ModelEvent>>,
) -> Result<()> {
    let mut parser = StreamParser::new(wire);
    let mut out = Vec::new();
    while let Some(event) = reader.next().await {
        let event = event.map_err(|error| diagnosis.transport(error))?;
        parser
            .event(&event.event, &event.data, &mut out)
            .map_err(|error| diagnosis.wire(error))?;
        for event in out.drain(..) {
            if tx.send(Ok(event)).await.is_err() {
                return Ok(());
            }
        }
        if parser.is_complete() {
            return Ok(());
        }
    }
    let reason = if parser.tool_call_begun() {
        "the stream ended in the middle of a tool call"
    } else {
        "the stream ended before the reply was complete"
    };
    Err(ModelError::StreamInterrupted {
        reason: reason.to_owned(),
    })
}

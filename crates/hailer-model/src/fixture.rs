//! Parsing recorded replies without a network, the way live ones are parsed: for tests and for
//! checking captured endpoint output.

use std::convert::Infallible;

use bytes::Bytes;
use tokio::sync::mpsc;

use crate::client::pump_stream;
use crate::diagnose::Diagnosis;
use crate::error::Result;
use crate::events::ModelEvent;
use crate::redact::Redactor;
use crate::settings::{ProviderSettings, WireApi};
use crate::transport::{SseReader, Timeouts};
use crate::wire::parse_whole;

fn fixture_settings(wire: WireApi) -> ProviderSettings {
    ProviderSettings::new(
        "fixture",
        "http://fixture.invalid/v1",
        wire,
        "fixture-model",
    )
}

fn fixture_diagnosis<'a>(settings: &'a ProviderSettings, redactor: &'a Redactor) -> Diagnosis<'a> {
    Diagnosis {
        settings,
        redactor,
        path: "/v1/fixture",
        reasoning_effort: None,
    }
}

/// The events a streamed reply made of these body chunks yields; an error, if any, is last.
pub async fn events_from_sse(wire: WireApi, chunks: Vec<Bytes>) -> Vec<Result<ModelEvent>> {
    let (settings, redactor) = (fixture_settings(wire), Redactor::default());
    let diagnosis = fixture_diagnosis(&settings, &redactor);
    let bytes = futures_util::stream::iter(chunks.into_iter().map(Ok::<_, std::io::Error>));
    let mut reader = SseReader::new(bytes, Timeouts::default().stream_idle);
    let (tx, mut rx) = mpsc::channel(64);
    let pumping = async {
        let outcome = pump_stream(&mut reader, wire, &diagnosis, &tx).await;
        if let Err(error) = outcome {
            let _ = tx.send(Err(error)).await;
        }
        drop(tx);
        Ok::<(), Infallible>(())
    };
    let collecting = async {
        let mut events = Vec::new();
        while let Some(event) = rx.recv().await {
            events.push(event);
        }
        Ok::<_, Infallible>(events)
    };
    match tokio::try_join!(pumping, collecting) {
        Ok(((), events)) => events,
        Err(never) => match never {},
    }
}

/// The events a whole (non-streamed) reply body yields.
pub fn events_from_json(wire: WireApi, body: &[u8]) -> Result<Vec<ModelEvent>> {
    let (settings, redactor) = (fixture_settings(wire), Redactor::default());
    let diagnosis = fixture_diagnosis(&settings, &redactor);
    parse_whole(wire, body).map_err(|error| diagnosis.wire(error))
}

//! Sending a reply body piece by piece, with the script's pauses, stalls and cuts, while watching
//! for the client going away.

use std::io;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use tokio::sync::mpsc;

use crate::record::DeliveryOutcome;
use crate::render::{Frame, FrameKind};
use crate::script::{CutPoint, Interruption, InterruptionKind, Reply};
use crate::server::Shared;

pub(crate) type BodySender = mpsc::Sender<Result<Bytes, io::Error>>;

/// Feeds one response body and records how it went.
pub(crate) struct Deliverer {
    pub tx: BodySender,
    pub shared: Arc<Shared>,
    pub delivery: usize,
}

impl Deliverer {
    /// Sends one piece; `false` when the client is gone.
    async fn send(&self, bytes: Bytes) -> bool {
        if self.tx.send(Ok(bytes)).await.is_err() {
            self.shared
                .set_outcome(self.delivery, DeliveryOutcome::ClientGone);
            return false;
        }
        self.shared.count_frame(self.delivery);
        true
    }

    /// Waits; `false` when the client went away meanwhile.
    async fn pause(&self, ms: u64) -> bool {
        if ms == 0 {
            return true;
        }
        tokio::select! {
            () = tokio::time::sleep(Duration::from_millis(ms)) => true,
            () = self.tx.closed() => {
                self.shared.set_outcome(self.delivery, DeliveryOutcome::ClientGone);
                false
            }
        }
    }

    /// Applies an interruption; `true` when delivery goes on afterwards.
    async fn interrupt(&self, kind: InterruptionKind) -> bool {
        match kind {
            InterruptionKind::Abort => {
                let cut = io::Error::other("the script cuts the connection here");
                // The client may already be gone; either way the body ends here.
                let _ = self.tx.send(Err(cut)).await;
                self.shared
                    .set_outcome(self.delivery, DeliveryOutcome::Interrupted);
                false
            }
            InterruptionKind::EndEarly => {
                self.shared
                    .set_outcome(self.delivery, DeliveryOutcome::Interrupted);
                false
            }
            InterruptionKind::Stall { ms } => self.pause(ms).await,
        }
    }

    /// Streams SSE frames, pausing between text deltas and interrupting where the script says.
    pub(crate) async fn stream_frames(self, frames: Vec<Frame>, reply: Reply) {
        let cut = reply
            .interruption
            .as_ref()
            .map(|interruption| (cut_index(&frames, interruption), interruption.kind));
        let mut deltas_sent = 0usize;
        let schedule_start = tokio::time::Instant::now();
        for (index, frame) in frames.into_iter().enumerate() {
            if frame.kind == FrameKind::TextDelta {
                if deltas_sent > 0 && !self.pause(reply.delta_delay_ms).await {
                    return;
                }
                if reply.deltas_per_second > 0 {
                    let offset = Duration::from_secs_f64(
                        deltas_sent as f64 / reply.deltas_per_second as f64,
                    );
                    tokio::time::sleep_until(schedule_start + offset).await;
                }
                deltas_sent += 1;
            }
            if !self.send(Bytes::from(frame.bytes)).await {
                return;
            }
            if let Some((cut_at, kind)) = cut
                && cut_at == index
                && !self.interrupt(kind).await
            {
                return;
            }
        }
        self.shared
            .set_outcome(self.delivery, DeliveryOutcome::Finished);
    }

    /// Sends a whole JSON body, interrupted half-way if the script says so.
    pub(crate) async fn whole_body(self, body: String, interruption: Option<Interruption>) {
        let bytes = Bytes::from(body);
        if let Some(interruption) = interruption {
            if let InterruptionKind::Stall { ms } = interruption.kind {
                if !self.pause(ms).await {
                    return;
                }
            } else {
                let half = bytes.slice(..bytes.len() / 2);
                if self.send(half).await {
                    self.interrupt(interruption.kind).await;
                }
                return;
            }
        }
        if self.send(bytes).await {
            self.shared
                .set_outcome(self.delivery, DeliveryOutcome::Finished);
        }
    }
}

/// The index of the frame after which the interruption happens; never past the last frame before
/// the completion.
fn cut_index(frames: &[Frame], interruption: &Interruption) -> usize {
    let finish = frames
        .iter()
        .position(|frame| frame.kind == FrameKind::Finish)
        .unwrap_or(frames.len());
    let latest = finish.saturating_sub(1);
    let found = match interruption.at {
        CutPoint::AfterDeltas(0) => frames
            .iter()
            .position(|frame| frame.kind != FrameKind::Opening)
            .map(|first| first.saturating_sub(1)),
        CutPoint::AfterDeltas(count) => frames
            .iter()
            .enumerate()
            .filter(|(_, frame)| frame.kind == FrameKind::TextDelta)
            .nth(count - 1)
            .map(|(index, _)| index),
        CutPoint::AfterToolCallStarted => frames
            .iter()
            .position(|frame| frame.kind == FrameKind::ToolCallStarted),
    };
    found.unwrap_or(latest).min(latest)
}

//! Dropping the receiver aborts the HTTP request at once: the server sees the connection close.

use std::time::{Duration, Instant};

use hailer_model::{Item, ModelEvent};
use hailer_scripted_model::{DeliveryOutcome, Reply, Script};

use super::support::{MODES, client, label, request, settings, start};

#[tokio::test]
async fn dropping_the_receiver_mid_stream_closes_the_connection() {
    for (wire, stream) in MODES {
        let mode = label(wire, stream);
        // Streamed: 100 deltas 50 ms apart. Whole: a body that stalls for 10 s.
        let reply = if stream {
            Reply::text("x".repeat(100))
                .in_deltas(100)
                .delta_delay(Duration::from_millis(50))
        } else {
            Reply::text("late").stall_after_deltas(0, Duration::from_secs(10))
        };
        let server = start(Script::new().reply(reply)).await;
        let client = client(settings(&server, wire, stream));
        let mut events = client.stream(&request(vec![Item::user("count")]));
        if stream {
            let mut deltas = 0;
            while deltas < 2 {
                match events.recv().await {
                    Some(Ok(ModelEvent::TextDelta(_))) => deltas += 1,
                    Some(Ok(_)) => {}
                    other => panic!("{mode}: unexpected {other:?}"),
                }
            }
        } else {
            while server.deliveries().is_empty() {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        }
        let dropped = Instant::now();
        drop(events);
        assert!(
            server.wait_for_client_gone(Duration::from_secs(2)).await,
            "{mode}: the server never saw the client go"
        );
        assert!(dropped.elapsed() < Duration::from_millis(1500), "{mode}");
        let delivery = server.deliveries()[0].clone();
        assert_eq!(delivery.outcome, DeliveryOutcome::ClientGone, "{mode}");
        if stream {
            assert!(delivery.frames_sent < 50, "{mode}: {delivery:?}");
        }
        assert_eq!(server.requests().len(), 1, "{mode}");
    }
}

//! The charts a session's turns made: sent to clients as they appear, and kept (a bounded
//! number, in memory) so a client that attaches later sees them with the conversation.

use std::collections::VecDeque;
use std::sync::Mutex;

use hailer_protocol::{Chart, PastTurn, SessionEvent};

use super::Session;

/// The most charts kept, and the most bytes of pictures they may hold together.
const MAX_CHARTS: usize = 200;
const MAX_PICTURE_BYTES: usize = 64 * 1024 * 1024;

/// The charts kept, oldest first, with the tool call that made each.
#[derive(Debug, Default)]
pub(crate) struct ChartBook {
    inner: Mutex<Book>,
}

#[derive(Debug, Default)]
struct Book {
    /// The running turn, whose tool calls make the charts.
    turn: Option<String>,
    kept: VecDeque<(String, Chart)>,
    picture_bytes: usize,
    made: u64,
}

fn picture_bytes(chart: &Chart) -> usize {
    chart.image.as_ref().map_or(0, |image| image.data_url.len())
}

impl ChartBook {
    /// Charts made from now on belong to `turn` (`None`: no turn is running).
    pub(crate) fn set_turn(&self, turn: Option<&str>) {
        if let Ok(mut book) = self.inner.lock() {
            book.turn = turn.map(str::to_owned);
        }
    }

    /// Keeps `chart`, made by the call `call_id`, giving it the session's next chart id;
    /// returns it with that id and the running turn.
    fn keep(&self, call_id: &str, mut chart: Chart) -> (Option<String>, Chart) {
        let Ok(mut book) = self.inner.lock() else {
            return (None, chart);
        };
        book.made += 1;
        chart.id = format!("chart-{}", book.made);
        book.picture_bytes += picture_bytes(&chart);
        book.kept.push_back((call_id.to_owned(), chart.clone()));
        while book.kept.len() > MAX_CHARTS || book.picture_bytes > MAX_PICTURE_BYTES {
            let Some((_, old)) = book.kept.pop_front() else {
                break;
            };
            book.picture_bytes -= picture_bytes(&old);
        }
        (book.turn.clone(), chart)
    }

    /// The charts the calls `call_ids` made, in the order they were made.
    fn of_calls(&self, call_ids: &[&str]) -> Vec<Chart> {
        let Ok(book) = self.inner.lock() else {
            return Vec::new();
        };
        book.kept
            .iter()
            .filter(|(call, _)| call_ids.contains(&call.as_str()))
            .map(|(_, chart)| chart.clone())
            .collect()
    }

    /// Each turn of `history` with the charts its tool calls made.
    pub(crate) fn fill(&self, history: &mut [PastTurn]) {
        for turn in history {
            let calls: Vec<&str> = turn
                .tools
                .iter()
                .map(|call| call.call_id.as_str())
                .collect();
            turn.charts = self.of_calls(&calls);
        }
    }
}

impl Session {
    /// The charts the tool call `call_id` made, with their pictures, in the order they were made.
    pub(crate) fn charts_of_call(&self, call_id: &str) -> Vec<Chart> {
        self.charts.of_calls(&[call_id])
    }

    /// Sends `chart`, made by the tool call `call_id` of the running turn, to every client.
    pub(crate) fn publish_chart(&self, call_id: &str, chart: Chart) {
        let (turn, chart) = self.charts.keep(call_id, chart);
        let Some(turn_id) = turn else {
            return;
        };
        self.publish_turn_event(SessionEvent::Chart {
            turn_id,
            call_id: call_id.to_owned(),
            chart,
        });
    }
}

#[cfg(test)]
mod tests {
    use hailer_protocol::{ChartImage, PastToolCall};

    use super::*;

    fn chart(bytes: usize) -> Chart {
        Chart {
            id: String::new(),
            title: Some("Sales".to_owned()),
            library: "altair".to_owned(),
            cell: "sales_chart".to_owned(),
            cell_id: "Hbol".to_owned(),
            notebook: "notebooks/analysis.py".to_owned(),
            image: Some(ChartImage {
                mimetype: "image/svg+xml".to_owned(),
                data_url: "x".repeat(bytes),
                render_ms: 1,
            }),
        }
    }

    fn past_turn(calls: &[&str]) -> PastTurn {
        PastTurn {
            text: "q".to_owned(),
            tools: calls
                .iter()
                .map(|call| PastToolCall {
                    call_id: (*call).to_owned(),
                    name: "marimo_execute".to_owned(),
                    preview: String::new(),
                    code: None,
                    ok: Some(true),
                    result: String::new(),
                    output: String::new(),
                })
                .collect(),
            answer: "a".to_owned(),
            charts: Vec::new(),
        }
    }

    #[test]
    fn charts_get_ids_and_land_in_the_turn_whose_call_made_them() {
        let book = ChartBook::default();
        book.set_turn(Some("t1"));
        let (turn, first) = book.keep("c1", chart(10));
        assert_eq!(turn.as_deref(), Some("t1"));
        assert_eq!(first.id, "chart-1");
        book.set_turn(None);
        let (turn, second) = book.keep("c2", chart(10));
        assert_eq!(turn, None);
        assert_eq!(second.id, "chart-2");
        let mut history = vec![past_turn(&["c1"]), past_turn(&["c0", "c2"]), past_turn(&[])];
        book.fill(&mut history);
        assert_eq!(history[0].charts, vec![first]);
        assert_eq!(history[1].charts, vec![second]);
        assert!(history[2].charts.is_empty());
    }

    #[test]
    fn the_oldest_charts_go_first_past_either_bound() {
        let book = ChartBook::default();
        for n in 0..(MAX_CHARTS + 5) {
            book.keep(&format!("c{n}"), chart(1));
        }
        assert!(book.of_calls(&["c0", "c4"]).is_empty());
        assert_eq!(book.of_calls(&["c5", "c204"]).len(), 2);
        let big = ChartBook::default();
        big.keep("a", chart(MAX_PICTURE_BYTES / 2 + 1));
        big.keep("b", chart(MAX_PICTURE_BYTES / 2 + 1));
        assert!(big.of_calls(&["a"]).is_empty());
        assert_eq!(big.of_calls(&["b"]).len(), 1);
    }
}

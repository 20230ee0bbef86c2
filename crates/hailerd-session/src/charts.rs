//! The charts a session's turns made: sent to clients as they appear, and kept (a bounded
//! number, in memory) so a client that attaches later sees them with the conversation.

use std::collections::VecDeque;
use std::sync::Mutex;

use hailer_protocol::{Chart, PastTurn, SessionEvent};

use super::Session;

/// The most charts kept, and the most bytes of pictures they may hold together.
const MAX_CHARTS: usize = 200;
const MAX_PICTURE_BYTES: usize = 64 * 1024 * 1024;

/// The charts kept, oldest first, with the turn and the tool call that made each. A model may
/// give its calls the same ids in every turn (`call_1`), so a chart belongs to its turn, not to
/// a call id alone.
#[derive(Debug, Default)]
pub struct ChartBook {
    inner: Mutex<Book>,
}

#[derive(Debug, Default)]
struct Book {
    /// The running turn, whose tool calls make the charts.
    turn: Option<String>,
    kept: VecDeque<Kept>,
    picture_bytes: usize,
    made: u64,
}

/// One chart, with the turn (`None`: no turn ran, as with a call through MCP) and the call
/// that made it.
#[derive(Debug)]
struct Kept {
    turn: Option<String>,
    call: String,
    chart: Chart,
}

fn picture_bytes(chart: &Chart) -> usize {
    chart.image.as_ref().map_or(0, |image| image.data_url.len())
}

impl ChartBook {
    /// Charts made from now on belong to `turn` (`None`: no turn is running).
    pub fn set_turn(&self, turn: Option<&str>) {
        if let Ok(mut book) = self.inner.lock() {
            book.turn = turn.map(str::to_owned);
        }
    }

    /// Keeps `chart`, made by the call `call_id` (of the running turn, or a client's own call
    /// outside it when `in_turn` is false), giving it the session's next chart id; returns it
    /// with that id and its turn.
    fn keep(&self, call_id: &str, mut chart: Chart, in_turn: bool) -> (Option<String>, Chart) {
        let Ok(mut book) = self.inner.lock() else {
            return (None, chart);
        };
        book.made += 1;
        chart.id = format!("chart-{}", book.made);
        book.picture_bytes += picture_bytes(&chart);
        let turn = if in_turn { book.turn.clone() } else { None };
        book.kept.push_back(Kept {
            turn: turn.clone(),
            call: call_id.to_owned(),
            chart: chart.clone(),
        });
        while book.kept.len() > MAX_CHARTS || book.picture_bytes > MAX_PICTURE_BYTES {
            let Some(old) = book.kept.pop_front() else {
                break;
            };
            book.picture_bytes -= picture_bytes(&old.chart);
        }
        (turn, chart)
    }

    /// The charts made in `turn` by the calls `call_ids` (any turn when `turn` is `None`), in
    /// the order they were made.
    fn of_calls(&self, turn: Option<&str>, call_ids: &[&str]) -> Vec<Chart> {
        let Ok(book) = self.inner.lock() else {
            return Vec::new();
        };
        book.kept
            .iter()
            .filter(|kept| {
                turn.is_none_or(|turn| kept.turn.as_deref() == Some(turn))
                    && call_ids.contains(&kept.call.as_str())
            })
            .map(|kept| kept.chart.clone())
            .collect()
    }

    /// `history`'s turns with their charts: the turn `ended` just finished is the last one when
    /// it was stored, and gets the charts its calls made; the turns before it keep the charts
    /// they had in `previous` (matched from the end, as a summary drops the oldest turns).
    pub fn fill(&self, history: &mut [PastTurn], previous: &[PastTurn], ended: Option<&str>) {
        let stored = match (history.last(), previous.last()) {
            (Some(last), Some(old)) => !same_turn(last, old),
            (Some(_), None) => true,
            _ => false,
        };
        let carried = match ended {
            Some(turn) if stored => {
                let Some((last, carried)) = history.split_last_mut() else {
                    return;
                };
                let calls: Vec<&str> = last
                    .tools
                    .iter()
                    .map(|call| call.call_id.as_str())
                    .collect();
                last.charts = self.of_calls(Some(turn), &calls);
                carried
            }
            _ => history,
        };
        for (turn, old) in carried.iter_mut().rev().zip(previous.iter().rev()) {
            if !same_turn(turn, old) {
                break;
            }
            turn.charts.clone_from(&old.charts);
        }
    }
}

/// Whether two past turns are the same exchange.
fn same_turn(turn: &PastTurn, old: &PastTurn) -> bool {
    turn.text == old.text
        && turn.answer == old.answer
        && turn.tools.len() == old.tools.len()
        && turn
            .tools
            .iter()
            .zip(&old.tools)
            .all(|(call, old)| call.call_id == old.call_id)
}

impl Session {
    /// The charts the tool call `call_id` made, with their pictures, in the order they were made.
    pub fn charts_of_call(&self, call_id: &str) -> Vec<Chart> {
        self.charts.of_calls(None, &[call_id])
    }

    /// Sends `chart`, made by the tool call `call_id` of the running turn, to every client. A
    /// client's own call (`in_turn` false) only keeps it: its caller sends the charts with the
    /// call's result ([`Session::charts_of_call`]).
    pub fn publish_chart(&self, call_id: &str, chart: Chart, in_turn: bool) {
        let (turn, chart) = self.charts.keep(call_id, chart, in_turn);
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

    fn past_turn(text: &str, calls: &[&str]) -> PastTurn {
        PastTurn {
            text: text.to_owned(),
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
        let (turn, first) = book.keep("call_1", chart(10), true);
        assert_eq!(turn.as_deref(), Some("t1"));
        assert_eq!(first.id, "chart-1");
        // A client's own call while the turn runs (another agent over MCP) is no part of it.
        let (turn, outside) = book.keep("mcp-7", chart(10), false);
        assert_eq!(turn, None);
        assert_eq!(outside.id, "chart-2");

        let mut one = vec![past_turn("q1", &["call_1"])];
        book.fill(&mut one, &[], Some("t1"));
        assert_eq!(one[0].charts, vec![first.clone()]);

        // The next turn's model gives its call the same id, and it makes no chart: the first
        // chart stays with the first turn, none shows under the second.
        book.set_turn(Some("t2"));
        book.set_turn(None);
        let mut two = vec![past_turn("q1", &["call_1"]), past_turn("q2", &["call_1"])];
        book.fill(&mut two, &one, Some("t2"));
        assert_eq!(two[0].charts, vec![first]);
        assert!(two[1].charts.is_empty(), "{:?}", two[1].charts);

        // A summary dropped the oldest turn: the rest keep theirs, matched from the end.
        book.set_turn(Some("t3"));
        let (_, third) = book.keep("call_1", chart(10), true);
        let mut three = vec![past_turn("q2", &["call_1"]), past_turn("q3", &["call_1"])];
        book.fill(&mut three, &two, Some("t3"));
        assert!(three[0].charts.is_empty());
        assert_eq!(three[1].charts, vec![third]);

        // A turn that stored nothing takes no charts; a new conversation starts with none.
        let mut same = three.clone();
        book.fill(&mut same, &three, Some("t4"));
        assert_eq!(same, three);
        let mut fresh = vec![past_turn("other", &["call_1"])];
        book.fill(&mut fresh, &three, None);
        assert!(fresh[0].charts.is_empty());
        assert_eq!(book.of_calls(None, &["mcp-7"]), vec![outside]);
    }

    #[test]
    fn the_oldest_charts_go_first_past_either_bound() {
        let book = ChartBook::default();
        for n in 0..(MAX_CHARTS + 5) {
            book.keep(&format!("c{n}"), chart(1), true);
        }
        assert!(book.of_calls(None, &["c0", "c4"]).is_empty());
        assert_eq!(book.of_calls(None, &["c5", "c204"]).len(), 2);
        let big = ChartBook::default();
        big.keep("a", chart(MAX_PICTURE_BYTES / 2 + 1), true);
        big.keep("b", chart(MAX_PICTURE_BYTES / 2 + 1), true);
        assert!(big.of_calls(None, &["a"]).is_empty());
        assert_eq!(big.of_calls(None, &["b"]).len(), 1);
    }
}

//! Blocking work (a SQLite commit, a file written) called from async code, without holding up
//! the other tasks of the async worker it runs on.

use tokio::runtime::{Handle, RuntimeFlavor};

/// Runs `work`. On a multi-threaded runtime tokio first hands this worker's other tasks to
/// another worker (`block_in_place`), so a slow disk holds up only the caller; elsewhere (a
/// current-thread runtime, no runtime) it simply runs.
pub fn off_the_worker<T>(work: impl FnOnce() -> T) -> T {
    match Handle::try_current() {
        Ok(handle) if handle.runtime_flavor() == RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(work)
        }
        _ => work(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::off_the_worker;

    #[test]
    fn runs_without_a_runtime() {
        assert_eq!(off_the_worker(|| 2 + 2), 4);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn runs_on_a_current_thread_runtime() {
        assert_eq!(off_the_worker(|| "done"), "done");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 1)]
    async fn other_tasks_go_on_while_it_blocks() {
        let ticker = tokio::spawn(async {
            for _ in 0..5 {
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
        });
        // On the only worker, longer than the ticker needs: handed on, the ticker ends meanwhile.
        let blocker = tokio::spawn(async {
            off_the_worker(|| std::thread::sleep(std::time::Duration::from_millis(400)));
        });
        blocker.await.unwrap();
        assert!(ticker.is_finished(), "the other task was held up");
    }
}

//! A loopback TCP relay in front of hailerd that the test can cut: every open connection ends
//! at once and new ones are closed on arrival until the relay opens again. A client pointed at
//! it sees what a dropped connection looks like (a laptop's sleep, a restarted network).
//! hailerd accepts only requests whose `Host` names its own port, so the relay rewrites its own
//! address to hailerd's in what clients send.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// A running relay; it stops accepting and ends every relayed connection when dropped.
pub struct Relay {
    /// The loopback port the relay listens on: point the client at `127.0.0.1:<port>`
    /// instead of at hailerd.
    pub port: u16,
    open: Arc<AtomicBool>,
    cuts: watch::Sender<u64>,
    accepting: JoinHandle<()>,
}

impl Relay {
    /// Relays `127.0.0.1:<port>` to `127.0.0.1:<target>`.
    pub async fn start(target: u16) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .unwrap_or_else(|error| panic!("relay bind: {error}"));
        let port = listener
            .local_addr()
            .unwrap_or_else(|error| panic!("relay address: {error}"))
            .port();
        let open = Arc::new(AtomicBool::new(true));
        let (cuts, _) = watch::channel(0u64);
        let accepting = tokio::spawn(accept(listener, target, Arc::clone(&open), cuts.clone()));
        Self {
            port,
            open,
            cuts,
            accepting,
        }
    }

    /// Ends every relayed connection and closes new ones until [`Self::reopen`].
    pub fn cut(&self) {
        self.open.store(false, Ordering::SeqCst);
        self.cuts.send_modify(|count| *count += 1);
    }

    /// Accepts and relays new connections again after [`Self::cut`]; connections that were
    /// cut stay ended.
    pub fn reopen(&self) {
        self.open.store(true, Ordering::SeqCst);
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.accepting.abort();
        self.cuts.send_modify(|count| *count += 1);
    }
}

async fn accept(
    listener: TcpListener,
    target: u16,
    open: Arc<AtomicBool>,
    cuts: watch::Sender<u64>,
) {
    let Ok(own) = listener.local_addr() else {
        return;
    };
    let from = format!("127.0.0.1:{}", own.port()).into_bytes();
    let to = format!("127.0.0.1:{target}").into_bytes();
    while let Ok((inbound, _)) = listener.accept().await {
        if !open.load(Ordering::SeqCst) {
            drop(inbound);
            continue;
        }
        let mut cut = cuts.subscribe();
        let (from, to) = (from.clone(), to.clone());
        tokio::spawn(async move {
            let Ok(outbound) = TcpStream::connect(("127.0.0.1", target)).await else {
                return;
            };
            let (mut client_reads, mut client_writes) = inbound.into_split();
            let (mut daemon_reads, mut daemon_writes) = outbound.into_split();
            let upstream = async {
                let mut buffer = vec![0u8; 16 * 1024];
                let mut pending = Vec::new();
                while let Ok(read) = client_reads.read(&mut buffer).await {
                    if read == 0 {
                        break;
                    }
                    pending.extend_from_slice(&buffer[..read]);
                    let (ready, held) = rewrite(&pending, &from, &to);
                    if daemon_writes.write_all(&ready).await.is_err() {
                        break;
                    }
                    pending = held;
                }
            };
            let downstream = tokio::io::copy(&mut daemon_reads, &mut client_writes);
            tokio::select! {
                () = upstream => {}
                _ = downstream => {}
                _ = cut.changed() => {}
            }
        });
    }
}

/// `bytes` with every `from` replaced by `to`, split into what can be sent now and the tail
/// that may be the start of a `from` still arriving.
fn rewrite(bytes: &[u8], from: &[u8], to: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at..].starts_with(from) {
            out.extend_from_slice(to);
            at += from.len();
        } else if from.starts_with(&bytes[at..]) {
            return (out, bytes[at..].to_vec());
        } else {
            out.push(bytes[at]);
            at += 1;
        }
    }
    (out, Vec::new())
}

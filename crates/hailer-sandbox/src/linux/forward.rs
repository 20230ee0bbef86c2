//! The relay from the daemon's loopback port into the sandbox's loopback, where marimo listens
//! on the same port number. The launcher runs it in the sandbox's network namespace, holding a
//! listener it bound in the host's.

use std::net::{Ipv4Addr, Shutdown, TcpListener, TcpStream};

/// Relays every connection accepted on `listener` to `127.0.0.1:port` of this network, on
/// threads of their own.
pub(super) fn serve(listener: TcpListener, port: u16) {
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(outside) = stream else { continue };
            std::thread::spawn(move || relay(outside, port));
        }
    });
}

fn relay(outside: TcpStream, port: u16) {
    // marimo may not listen yet: the connection then closes, as a refused one would.
    let Ok(inside) = TcpStream::connect((Ipv4Addr::LOCALHOST, port)) else {
        return;
    };
    let _ = outside.set_nodelay(true);
    let _ = inside.set_nodelay(true);
    let (Ok(outside_reader), Ok(inside_writer)) = (outside.try_clone(), inside.try_clone()) else {
        return;
    };
    let upstream = std::thread::spawn(move || copy(outside_reader, inside_writer));
    copy(inside, outside);
    let _ = upstream.join();
}

/// Copies until `from` ends, then ends the writing side of `to`.
fn copy(mut from: TcpStream, mut to: TcpStream) {
    let _ = std::io::copy(&mut from, &mut to);
    let _ = to.shutdown(Shutdown::Write);
    let _ = from.shutdown(Shutdown::Read);
}

"""A company's package index as the kernel image build meets it, for the build-secrets test.

An HTTPS index (PEP 503 "simple" pages over a folder of wheels, certificate from a private CA)
that asks for a user and password, behind an HTTP proxy that asks for its own user and password
and tunnels HTTPS with CONNECT. Each request that brings the right credentials is counted in a
JSON file, so the test can tell the build used them.

    python3 index_and_proxy.py WHEELHOUSE CERT KEY HOST INDEX_USER:PASS PROXY_USER:PASS RECORD

Prints {"index": PORT, "proxy": PORT} once both listen on HOST, then serves until its standard
input closes.
"""

import base64
import http.server
import json
import os
import re
import select
import shutil
import socket
import socketserver
import ssl
import sys
import threading

wheelhouse, cert, key, host, index_auth, proxy_auth, record = sys.argv[1:8]


def normalized(name):
    return re.sub(r"[-_.]+", "-", name).lower()


wheels = {}
for name in sorted(os.listdir(wheelhouse)):
    if name.endswith(".whl"):
        wheels.setdefault(normalized(name.split("-")[0]), []).append(name)
files = {name for names in wheels.values() for name in names}
counts = {"index_ok": 0, "index_refused": 0, "proxy_ok": 0, "proxy_refused": 0, "wheels": 0}
lock = threading.Lock()


def count(what):
    with lock:
        counts[what] += 1
        with open(record + ".new", "w") as out:
            json.dump(counts, out)
        os.replace(record + ".new", record)


def basic(user_and_password):
    return "Basic " + base64.b64encode(user_and_password.encode()).decode()


class Index(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.headers.get("Authorization") != basic(index_auth):
            count("index_refused")
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="index"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        count("index_ok")
        parts = [part for part in self.path.split("?")[0].split("/") if part]
        if len(parts) == 2 and parts[0] == "simple" and normalized(parts[1]) in wheels:
            body = "".join(
                f'<a href="/files/{name}">{name}</a>\n' for name in wheels[normalized(parts[1])]
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        elif len(parts) == 2 and parts[0] == "files" and parts[1] in files:
            path = os.path.join(wheelhouse, parts[1])
            count("wheels")
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(os.path.getsize(path)))
            self.end_headers()
            with open(path, "rb") as wheel:
                shutil.copyfileobj(wheel, self.wfile)
        else:
            self.send_error(404)


class Proxy(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_CONNECT(self):
        if self.headers.get("Proxy-Authorization") != basic(proxy_auth):
            count("proxy_refused")
            self.send_response(407)
            self.send_header("Proxy-Authenticate", 'Basic realm="proxy"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        count("proxy_ok")
        target_host, target_port = self.path.rsplit(":", 1)
        upstream = socket.create_connection((target_host, int(target_port)))
        self.send_response(200, "Connection established")
        self.end_headers()
        ends = [self.connection, upstream]
        try:
            while True:
                ready, _, broken = select.select(ends, [], ends, 120)
                if broken or not ready:
                    return
                for end in ready:
                    data = end.recv(65536)
                    if not data:
                        return
                    (upstream if end is self.connection else self.connection).sendall(data)
        finally:
            upstream.close()
            self.close_connection = True


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


index = Server((host, 0), Index)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(cert, key)
index.socket = context.wrap_socket(index.socket, server_side=True)
proxy = Server((host, 0), Proxy)
for server in (index, proxy):
    threading.Thread(target=server.serve_forever, daemon=True).start()
print(json.dumps({"index": index.server_address[1], "proxy": proxy.server_address[1]}), flush=True)
sys.stdin.read()

#!/usr/bin/env python3
"""Loopback HTTP server that Trino uses as its `security.config-file` URL (stdlib only).

Why: the memory connector loses its data when Trino restarts, and tagwarden's rules deny everybody
CREATE SCHEMA. So Trino starts with one rules URL -- this proxy -- which first serves a bootstrap
document (an admin user may do everything, so the test can create its data), and is then switched
to forward every GET to the real rules URL (the tagwarden daemon, or a static stand-in). After the
switch Trino fetches the upstream document on every refresh, and sees upstream failures as they
are: upstream HTTP statuses, headers that matter and bodies pass through unchanged (redirects are
not followed); an unreachable upstream becomes 502, a slow one 504.

Modes: "bootstrap" (serve --bootstrap FILE), "proxy" (forward to --upstream URL) and "file" (serve
a local file, read again on every fetch: the policy phase serves rules compiled by the CLI).

Control endpoints (loopback only, never forwarded):
    POST /_control/switch     body empty or a new upstream URL -> mode "proxy"
    POST /_control/bootstrap  -> mode "bootstrap"
    POST /_control/file       body: a local path -> mode "file"
    GET  /_control/status     -> JSON {mode, upstream, requests, by_status, last_status, last_error}

Every other GET is a rules fetch. Each one is logged to stderr as one line.
"""

import argparse
import json
import os
import sys
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HOP_BY_HOP = {
    "connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailers",
    "transfer-encoding", "upgrade", "host", "content-length",
}


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None  # let the 3xx surface as an HTTPError and pass it through unchanged


_OPENER = urllib.request.build_opener(_NoRedirect(), urllib.request.ProxyHandler({}))


class State:
    def __init__(self, bootstrap, upstream, timeout):
        self.lock = threading.Lock()
        self.bootstrap = bootstrap
        self.upstream = upstream
        self.timeout = timeout
        self.mode = "bootstrap"
        self.requests = 0
        self.by_status = {}
        self.last_status = None
        self.last_error = None
        self.switched_at = None
        self.file = None

    def record(self, status, error=None):
        with self.lock:
            self.requests += 1
            key = "%s:%d" % (self.mode, status)
            self.by_status[key] = self.by_status.get(key, 0) + 1
            self.last_status = status
            self.last_error = error

    def snapshot(self):
        with self.lock:
            return {
                "mode": self.mode,
                "upstream": self.upstream,
                "requests": self.requests,
                "by_status": dict(self.by_status),
                "last_status": self.last_status,
                "last_error": self.last_error,
                "switched_at": self.switched_at,
                "file": self.file,
            }


class Handler(BaseHTTPRequestHandler):
    server_version = "tagwarden-e2e-rules-proxy/1"
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # one line per request, to stderr
        sys.stderr.write("%s %s\n" % (time.strftime("%H:%M:%S"), fmt % args))

    def _send(self, status, body, headers=None):
        self.send_response(status)
        sent = set()
        for k, v in (headers or []):
            if k.lower() in HOP_BY_HOP:
                continue
            self.send_header(k, v)
            sent.add(k.lower())
        if "content-type" not in sent:
            self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_POST(self):
        st = self.server.state
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode("utf-8").strip() if length else ""
        if self.path == "/_control/switch":
            with st.lock:
                if body:
                    st.upstream = body
                if not st.upstream:
                    self._send(400, b"no upstream URL\n")
                    return
                st.mode = "proxy"
                st.switched_at = time.time()
            self._send(200, ("proxy -> %s\n" % st.upstream).encode())
        elif self.path == "/_control/file":
            if not body or not os.path.isfile(body):
                self._send(400, b"no such file\n")
                return
            with st.lock:
                st.file = body
                st.mode = "file"
                st.switched_at = time.time()
            self._send(200, ("file %s\n" % body).encode())
        elif self.path == "/_control/bootstrap":
            with st.lock:
                st.mode = "bootstrap"
            self._send(200, b"bootstrap\n")
        else:
            self._send(404, b"unknown control path\n")

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        st = self.server.state
        if self.path == "/_control/status":
            self._send(200, json.dumps(st.snapshot()).encode(), [("Content-Type", "application/json")])
            return
        with st.lock:
            mode, upstream, served = st.mode, st.upstream, st.file
        if mode in ("bootstrap", "file"):
            path = st.bootstrap if mode == "bootstrap" else served
            try:
                with open(path, "rb") as f:
                    body = f.read()
            except OSError as e:
                st.record(500, str(e))
                self._send(500, ("%s file: %s\n" % (mode, e)).encode())
                return
            st.record(200)
            self._send(200, body, [("Content-Type", "application/json")])
            return
        # proxy mode: forward the GET (request headers minus hop-by-hop ones) to the upstream URL.
        fwd = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
        req = urllib.request.Request(upstream, headers=fwd, method=self.command)
        try:
            with _OPENER.open(req, timeout=st.timeout) as resp:
                body = resp.read()
                st.record(resp.status)
                self._send(resp.status, body, resp.headers.items())
        except urllib.error.HTTPError as e:
            body = e.read() if e.fp is not None else b""
            st.record(e.code, "upstream HTTP %d" % e.code)
            self._send(e.code, body, e.headers.items() if e.headers else None)
        except (TimeoutError, OSError, urllib.error.URLError) as e:
            reason = getattr(e, "reason", e)
            timed_out = isinstance(reason, TimeoutError) or "timed out" in str(reason)
            status = 504 if timed_out else 502
            msg = "upstream %s unreachable: %s" % (upstream, reason)
            st.record(status, msg)
            self._send(status, (msg + "\n").encode())


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bind", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0, help="0 picks a free port")
    ap.add_argument("--port-file", help="write the bound port here once listening")
    ap.add_argument("--bootstrap", required=True, help="rules document served in bootstrap mode")
    ap.add_argument("--upstream", default="", help="rules URL forwarded to in proxy mode")
    ap.add_argument("--upstream-timeout", type=float, default=5.0)
    args = ap.parse_args(argv)
    if not args.bind.startswith("127.") and args.bind not in ("localhost", "::1"):
        ap.error("--bind must be a loopback address")

    httpd = ThreadingHTTPServer((args.bind, args.port), Handler)
    httpd.daemon_threads = True
    httpd.state = State(args.bootstrap, args.upstream, args.upstream_timeout)
    port = httpd.server_address[1]
    if args.port_file:
        tmp = args.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write("%d\n" % port)
        os.replace(tmp, args.port_file)
    sys.stderr.write("rules proxy listening on %s:%d (bootstrap %s)\n" % (args.bind, port, args.bootstrap))
    sys.stderr.flush()
    try:
        httpd.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Loopback HTTP server that Trino's OPA access control asks (stdlib only).

Why: the memory connector loses its data when Trino restarts, and tagwarden's policy refuses
everybody CREATE SCHEMA. So Trino's OPA URIs point here; this proxy first answers every decision
"allowed" (bootstrap: the test creates its tables), and is then switched to forward every request
to the tagwarden daemon's OPA endpoints. From then on each decision is the daemon's: the request
body goes upstream byte for byte, the upstream status, Content-Type and body come back byte for
byte; nothing is answered here. An unreachable upstream is a 502, a slow one (--upstream-timeout)
a 504, which Trino's OPA client treats as a failed decision (the query fails closed).

Trino's URIs are <this>/opa/<endpoint> with endpoint one of allow, batch, row-filters,
column-mask, batch-column-masks; forwarded to <upstream>/<endpoint>.

Modes:
    bootstrap   allow: {"result": true}; batch: every index; row-filters: []; column-mask: null;
                batch-column-masks: [] (no filter, no mask)
    proxy       forward to the upstream, unchanged
    tamper      forward, then drop one kind of answer (the self-check: the checks must notice):
                masks (column-mask -> null, batch-column-masks -> []), filters (row-filters -> []),
                view-owner (CreateViewWithSelectFromColumns -> false)

Control endpoints (never forwarded):
    POST /_control/switch      body: empty or a new upstream base URL -> mode "proxy"
    POST /_control/bootstrap   -> mode "bootstrap"
    POST /_control/tamper      body: masks | filters | view-owner -> mode "tamper"
    POST /_control/label       body: a label written into every later log line
    GET  /_control/status      -> JSON: mode, upstream, counts by mode/endpoint/status, by operation

Every decision request is logged as one JSON line to --log: time, label, mode, endpoint,
operation, user, the whole request, the answer (parsed when it is JSON), status, ms.
"""

import argparse
import http.client
import json
import os
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ENDPOINTS = ("allow", "batch", "row-filters", "column-mask", "batch-column-masks")
TAMPERS = ("masks", "filters", "view-owner")


def bootstrap_answer(endpoint, request):
    """Allow everything, filter and mask nothing."""
    if endpoint == "allow":
        return {"result": True}
    if endpoint == "column-mask":
        return {"result": None}
    if endpoint == "batch":
        action = request["input"]["action"]
        resources = action.get("filterResources") or []
        if action.get("operation") == "FilterColumns":
            n = sum(len(r["table"]["columns"]) for r in resources)
        else:
            n = len(resources)
        return {"result": list(range(n))}
    return {"result": []}  # row-filters, batch-column-masks


def tampered(tamper, endpoint, operation, body):
    """The upstream answer with one kind of decision dropped; None: unchanged."""
    if tamper == "masks" and endpoint == "column-mask":
        return {"result": None}
    if tamper == "masks" and endpoint == "batch-column-masks":
        return {"result": []}
    if tamper == "filters" and endpoint == "row-filters":
        return {"result": []}
    if tamper == "view-owner" and endpoint == "allow" and operation == "CreateViewWithSelectFromColumns":
        return {"result": False}
    return None


class State:
    def __init__(self, upstream, timeout, log_path):
        self.lock = threading.Lock()
        self.upstream = upstream.rstrip("/")
        self.timeout = timeout
        self.mode = "bootstrap"
        self.tamper = None
        self.label = ""
        self.counts = {}        # "mode endpoint status" -> n
        self.operations = {}    # "mode endpoint operation" -> n
        self.log = open(log_path, "a", encoding="utf-8") if log_path else None
        self.local = threading.local()

    def record(self, entry):
        with self.lock:
            k = "%s %s %d" % (entry["mode"], entry["endpoint"], entry["status"])
            self.counts[k] = self.counts.get(k, 0) + 1
            k = "%s %s %s" % (entry["mode"], entry["endpoint"], entry.get("operation"))
            self.operations[k] = self.operations.get(k, 0) + 1
            if self.log:
                self.log.write(json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n")
                self.log.flush()

    def status(self):
        with self.lock:
            by_mode = {}
            for k, n in self.counts.items():
                mode, _, status = k.split(" ")
                m = by_mode.setdefault(mode, {"requests": 0, "non_200": 0})
                m["requests"] += n
                if status != "200":
                    m["non_200"] += n
            return {"mode": self.mode, "tamper": self.tamper, "upstream": self.upstream, "label": self.label,
                    "by_mode": by_mode, "counts": dict(self.counts), "operations": dict(self.operations)}

    def connection(self, upstream):
        """One keep-alive connection to the upstream per handler thread."""
        u = urllib.parse.urlsplit(upstream)
        key = (u.hostname, u.port or 80)
        conn = getattr(self.local, "conn", None)
        if conn is None or getattr(self.local, "key", None) != key:
            if conn is not None:
                conn.close()
            conn = http.client.HTTPConnection(u.hostname, u.port or 80, timeout=self.timeout)
            self.local.conn, self.local.key, self.local.used = conn, key, False
        return conn, u.path

    def drop_connection(self):
        conn = getattr(self.local, "conn", None)
        if conn is not None:
            conn.close()
        self.local.conn = None


def forward(st, upstream, endpoint, body, content_type):
    """POST body to upstream/endpoint -> (status, content_type, body, error). Retries once when a
    reused keep-alive connection turns out closed (nothing was answered on it)."""
    for attempt in (0, 1):
        conn, base = st.connection(upstream)
        reused = getattr(st.local, "used", False)
        try:
            conn.request("POST", base + "/" + endpoint, body,
                         {"Content-Type": content_type or "application/json"})
            resp = conn.getresponse()
            data = resp.read()
            st.local.used = True
            if resp.getheader("Connection", "").lower() == "close":
                st.drop_connection()
            return resp.status, resp.getheader("Content-Type"), data, None
        except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError) as e:
            st.drop_connection()
            if reused and attempt == 0:
                continue
            return 502, "text/plain; charset=utf-8", ("upstream %s: %s\n" % (upstream, e)).encode(), str(e)
        except TimeoutError as e:
            st.drop_connection()
            return 504, "text/plain; charset=utf-8", ("upstream %s timed out\n" % upstream).encode(), str(e)
        except OSError as e:
            st.drop_connection()
            return 502, "text/plain; charset=utf-8", ("upstream %s unreachable: %s\n" % (upstream, e)).encode(), str(e)
    raise AssertionError("unreachable")


class Handler(BaseHTTPRequestHandler):
    server_version = "tagwarden-e2e-opa-proxy/1"
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass  # every decision goes to --log; the rest is not interesting

    def _send(self, status, body, content_type="text/plain; charset=utf-8"):
        self.send_response(status)
        self.send_header("Content-Type", content_type or "application/octet-stream")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/_control/status":
            self._send(200, json.dumps(self.server.state.status()).encode(), "application/json")
        else:
            self._send(404, b"GET only for /_control/status\n")

    def do_POST(self):
        st = self.server.state
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        if self.path.startswith("/_control/"):
            return self.control(st, self.path[len("/_control/"):], body.decode("utf-8").strip())
        endpoint = self.path.rsplit("/", 1)[-1]
        if not self.path.startswith("/opa/") or endpoint not in ENDPOINTS:
            return self._send(404, b"no such decision endpoint\n")
        t0 = time.monotonic()
        try:
            request = json.loads(body)
            action = request["input"]["action"]
            operation = action.get("operation")
            user = request["input"]["context"]["identity"]["user"]
        except (ValueError, KeyError, TypeError):
            request, action, operation, user = None, {}, None, None
        with st.lock:
            mode, tamper, upstream, label = st.mode, st.tamper, st.upstream, st.label
        error = None
        changed = False
        if mode == "bootstrap":
            if request is None:
                status, ctype, data = 400, "text/plain; charset=utf-8", b"not an OPA request\n"
            else:
                status, ctype, data = 200, "application/json", json.dumps(bootstrap_answer(endpoint, request)).encode()
        else:
            status, ctype, data, error = forward(st, upstream, endpoint, body, self.headers.get("Content-Type"))
            if mode == "tamper" and status == 200:
                try:
                    replaced = tampered(tamper, endpoint, operation, json.loads(data))
                except ValueError:
                    replaced = None
                if replaced is not None:
                    data, changed = json.dumps(replaced).encode(), True
        self._send(status, data, ctype)
        try:
            answer = json.loads(data) if status == 200 else data.decode("utf-8", "replace")
        except ValueError:
            answer = data.decode("utf-8", "replace")
        entry = {"t": round(time.time(), 3), "label": label, "mode": mode, "endpoint": endpoint,
                 "operation": operation, "user": user, "status": status,
                 "ms": round((time.monotonic() - t0) * 1000, 2),
                 "request": request if request is not None else body.decode("utf-8", "replace"),
                 "answer": answer}
        if mode == "tamper":
            entry["tamper"], entry["tampered"] = tamper, changed
        if error:
            entry["error"] = error
        st.record(entry)

    def control(self, st, what, arg):
        with st.lock:
            if what == "switch":
                if arg:
                    st.upstream = arg.rstrip("/")
                st.mode, st.tamper = "proxy", None
                msg = "proxy -> %s" % st.upstream
            elif what == "bootstrap":
                st.mode, st.tamper = "bootstrap", None
                msg = "bootstrap"
            elif what == "tamper":
                if arg not in TAMPERS:
                    return self._send(400, ("tamper one of %s\n" % ", ".join(TAMPERS)).encode())
                st.mode, st.tamper = "tamper", arg
                msg = "tamper %s -> %s" % (arg, st.upstream)
            elif what == "label":
                st.label = arg
                msg = "label %s" % arg
            else:
                return self._send(404, b"unknown control path\n")
        self._send(200, (msg + "\n").encode())


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bind", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0, help="0 picks a free port")
    ap.add_argument("--port-file", help="write the bound port here once listening")
    ap.add_argument("--upstream", required=True, help="the daemon's OPA base URL (.../trino-opa)")
    ap.add_argument("--upstream-timeout", type=float, default=10.0)
    ap.add_argument("--log", help="append one JSON line per decision request here")
    args = ap.parse_args(argv)
    if not args.bind.startswith("127.") and args.bind not in ("localhost", "::1"):
        ap.error("--bind must be a loopback address")
    httpd = ThreadingHTTPServer((args.bind, args.port), Handler)
    httpd.daemon_threads = True
    httpd.state = State(args.upstream, args.upstream_timeout, args.log)
    port = httpd.server_address[1]
    if args.port_file:
        tmp = args.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write("%d\n" % port)
        os.replace(tmp, args.port_file)
    sys.stderr.write("opa proxy listening on %s:%d, upstream %s (bootstrap until switched)\n"
                     % (args.bind, port, args.upstream))
    sys.stderr.flush()
    try:
        httpd.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())

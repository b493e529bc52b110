#!/usr/bin/env python3
"""Minimal client for Trino's client REST protocol (stdlib only).

POST /v1/statement with the SQL text and X-Trino-User, then GET every nextUri until the
response has none; rows arrive in the "data" fields, a failure in "error".

As a command:

    trino_client.py --server http://127.0.0.1:PORT --user NAME [--timeout S] SQL

prints one line and exits with
    0  "OK <json rows>"              the query finished (rows as a JSON array of arrays)
    1  "ERROR <errorName>: <message>"  Trino answered with a query failure (e.g. PERMISSION_DENIED)
    2  "TRANSPORT <message>"          no usable answer (connection refused, HTTP error, timeout)

As a module: run_query(server, user, sql, timeout) -> dict(ok, rows, columns, error, error_name,
transport_error).
"""

import argparse
import json
import sys
import time
import urllib.error
import urllib.request

# HTTP statuses after which the protocol says to retry the same URI (after a short wait).
_RETRY_STATUSES = {429, 502, 503, 504}


class TransportError(Exception):
    pass


def _request(url, user, data=None, timeout=10.0, deadline=None):
    """One protocol request; retries 429/502/503/504 until the deadline. Returns parsed JSON."""
    headers = {
        "X-Trino-User": user,
        "X-Trino-Source": "tagwarden-e2e",
        "User-Agent": "tagwarden-e2e/1",
    }
    if data is not None:
        headers["Content-Type"] = "text/plain; charset=utf-8"
    while True:
        remaining = None if deadline is None else deadline - time.monotonic()
        if remaining is not None and remaining <= 0:
            raise TransportError("timed out waiting for %s" % url)
        req = urllib.request.Request(
            url,
            data=None if data is None else data.encode("utf-8"),
            headers=headers,
            method="POST" if data is not None else "GET",
        )
        try:
            per_call = timeout if remaining is None else max(0.1, min(timeout, remaining))
            with urllib.request.urlopen(req, timeout=per_call) as resp:
                return json.loads(resp.read().decode("utf-8"))
        except urllib.error.HTTPError as e:
            body = e.read().decode("utf-8", "replace").strip()
            if e.code in _RETRY_STATUSES:
                time.sleep(0.1)
                continue
            raise TransportError("HTTP %d from %s: %s" % (e.code, url, body[:500]))
        except (urllib.error.URLError, OSError, ValueError) as e:
            raise TransportError("%s: %s" % (url, e))


def run_query(server, user, sql, timeout=60.0):
    """Run one statement as `user`; never raises for query or transport failures."""
    result = {
        "ok": False,
        "rows": [],
        "columns": None,
        "error": None,
        "error_name": None,
        "transport_error": None,
    }
    deadline = time.monotonic() + timeout
    try:
        doc = _request(server.rstrip("/") + "/v1/statement", user, data=sql, deadline=deadline)
        while True:
            if doc.get("columns") and result["columns"] is None:
                result["columns"] = [c.get("name") for c in doc["columns"]]
            if doc.get("data"):
                result["rows"].extend(doc["data"])
            err = doc.get("error")
            if err:
                result["error"] = err.get("message", "")
                result["error_name"] = err.get("errorName", "")
                return result
            next_uri = doc.get("nextUri")
            if not next_uri:
                result["ok"] = True
                return result
            doc = _request(next_uri, user, deadline=deadline)
    except TransportError as e:
        result["transport_error"] = str(e)
        return result


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--server", required=True, help="coordinator URL, e.g. http://127.0.0.1:8080")
    ap.add_argument("--user", required=True, help="value of X-Trino-User")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds for the whole query")
    ap.add_argument("sql")
    args = ap.parse_args(argv)
    r = run_query(args.server, args.user, args.sql, args.timeout)
    if r["transport_error"] is not None:
        print("TRANSPORT " + r["transport_error"].replace("\n", " "))
        return 2
    if not r["ok"]:
        print("ERROR %s: %s" % (r["error_name"], (r["error"] or "").replace("\n", " ")))
        return 1
    print("OK " + json.dumps(r["rows"], separators=(",", ":")))
    return 0


if __name__ == "__main__":
    sys.exit(main())

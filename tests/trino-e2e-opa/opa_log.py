#!/usr/bin/env python3
"""Reads opa_proxy.py's request log (one JSON line per decision request; stdlib only).

    opa_log.py ops LOG LABEL            the operations one labelled statement asked, one line:
                                        endpoint operation xN (resources), in order of first use
    opa_log.py summary LOG [MODE]       every endpoint/operation with its count (default mode: proxy)
    opa_log.py replay LOG LABEL BASE    POST every request logged under LABEL in mode proxy with
                                        status 200 to BASE/<endpoint> again and compare the answers:
                                        prints `replayed N, M differ` (+ the first differences); exit 1
                                        when any differs
    opa_log.py statuses LOG             "mode label status" -> count, as JSON
"""

import collections
import http.client
import json
import sys
import urllib.parse


def entries(path):
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line:
                yield json.loads(line)


def resource_of(e):
    """A short description of what one request asks about."""
    req = e.get("request")
    if not isinstance(req, dict):
        return ""
    action = req.get("input", {}).get("action", {})
    res = action.get("resource") or {}
    many = action.get("filterResources")
    if many is not None:
        if action.get("operation") == "FilterColumns":
            return "%d columns" % sum(len(r.get("table", {}).get("columns", [])) for r in many)
        return "%d items" % len(many)
    for key in ("table", "schema", "catalog", "column", "function", "user", "systemSessionProperty"):
        if key in res:
            v = res[key]
            if key == "table":
                cols = v.get("columns")
                return "%s.%s.%s%s" % (v.get("catalogName"), v.get("schemaName"), v.get("tableName"),
                                       (" [%s]" % ",".join(cols)) if cols is not None else "")
            if key == "schema":
                return "%s.%s" % (v.get("catalogName"), v.get("schemaName"))
            if key == "catalog":
                return v.get("name", "")
            if key == "column":
                return "%s.%s.%s.%s" % (v.get("catalogName"), v.get("schemaName"), v.get("tableName"), v.get("columnName"))
            return json.dumps(v, separators=(",", ":"))
    return ""


def short_answer(e):
    a = e.get("answer")
    if not isinstance(a, dict):
        return "HTTP %s" % e.get("status")
    r = a.get("result")
    if isinstance(r, bool):
        return "allow" if r else "deny"
    if r is None:
        return "null"
    return json.dumps(r, separators=(",", ":"), ensure_ascii=False)[:80]


def ops(path, label):
    seen = collections.OrderedDict()
    for e in entries(path):
        if e.get("label") != label:
            continue
        key = "%s %s %s -> %s" % (e["endpoint"], e["operation"], resource_of(e), short_answer(e))
        seen[key] = seen.get(key, 0) + 1
    return "; ".join(k + (" x%d" % n if n > 1 else "") for k, n in seen.items()) or "(no request)"


def summary(path, mode):
    c = collections.Counter()
    for e in entries(path):
        if e.get("mode") == mode:
            c[(e["endpoint"], e["operation"])] += 1
    return c


def replay(path, label, base):
    u = urllib.parse.urlsplit(base)
    conn = http.client.HTTPConnection(u.hostname, u.port or 80, timeout=30)
    n = differ = 0
    shown = []
    for e in entries(path):
        if e.get("label") != label or e.get("mode") != "proxy" or e.get("status") != 200:
            continue
        body = json.dumps(e["request"]).encode()
        conn.request("POST", u.path.rstrip("/") + "/" + e["endpoint"], body, {"Content-Type": "application/json"})
        resp = conn.getresponse()
        data = resp.read()
        n += 1
        try:
            again = json.loads(data)
        except ValueError:
            again = data.decode("utf-8", "replace")
        if resp.status != 200 or again != e["answer"]:
            differ += 1
            if len(shown) < 3:
                shown.append("%s %s: logged %s, now %s %s" % (e["endpoint"], e["operation"],
                                                              json.dumps(e["answer"])[:200], resp.status,
                                                              json.dumps(again)[:200]))
    print("replayed %d, %d differ" % (n, differ))
    for s in shown:
        print("  " + s)
    return 1 if differ or n == 0 else 0


def main(argv):
    if len(argv) >= 3 and argv[0] == "ops":
        print(ops(argv[1], argv[2]))
    elif len(argv) >= 2 and argv[0] == "summary":
        for (endpoint, op), n in sorted(summary(argv[1], argv[2] if len(argv) > 2 else "proxy").items()):
            print("%6d  %-19s %s" % (n, endpoint, op))
    elif len(argv) == 4 and argv[0] == "replay":
        return replay(argv[1], argv[2], argv[3])
    elif len(argv) == 2 and argv[0] == "statuses":
        c = collections.Counter()
        for e in entries(argv[1]):
            c["%s %s %s" % (e["mode"], e["label"], e["status"])] += 1
        print(json.dumps(dict(sorted(c.items()))))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env bash
# Load figures for the daemon's rules endpoint and for webhook -> served latency, on loopback.
#
#   tests/daemon/load_rules.sh
#
# 1. `wrk -t2 -c32 -d10s --latency` against GET /v1/profiles/trino_main/trino-rules.json (200 with
#    the whole document), then the same with If-None-Match: <current ETag> (304, what a polling
#    Trino mostly gets). Prints requests/s and the latency percentiles (50/75/90/99).
# 2. 50 sequential signed webhooks, each after writing a snapshot whose rules differ from the
#    previous one (the demo and the demo without Confidential's clearance, alternately). For each:
#    the webhook round trip (it answers after its recompile) and the time from sending it until GET
#    of the rules returns the new ETag. Prints p50/p99/max of both.
#
# The daemon (`tagwarden serve`, examples/demo profiles, a copy of the demo snapshot as source.file)
# runs on 127.0.0.1:<free port> with a temporary state_dir and is stopped by its PID on exit.
# Knobs: TAGWARDEN_BIN (default build-daemon-tests/tagwarden), LOAD_DURATION (10s), LOAD_THREADS (2),
# LOAD_CONNECTIONS (32), LOAD_WEBHOOKS (50), LOAD_SKIP_304=1.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BIN="${TAGWARDEN_BIN:-$ROOT/build-daemon-tests/tagwarden}"
DURATION="${LOAD_DURATION:-10s}"
THREADS="${LOAD_THREADS:-2}"
CONNS="${LOAD_CONNECTIONS:-32}"
WEBHOOKS="${LOAD_WEBHOOKS:-50}"

command -v wrk >/dev/null || { echo "FAIL wrk is not installed (Debian package wrk)"; exit 1; }
[ -x "$BIN" ] || { echo "FAIL no tagwarden binary at $BIN (build build-daemon-tests or set TAGWARDEN_BIN)"; exit 1; }

WORK="$(mktemp -d "${TMPDIR:-/tmp}/tagwarden-load.XXXXXX")"
DAEMON_PID=""
cleanup() {
    set +e
    if [ -n "$DAEMON_PID" ] && kill -0 "$DAEMON_PID" 2>/dev/null; then
        kill -TERM "$DAEMON_PID"
        wait "$DAEMON_PID" 2>/dev/null
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
export TW_LOAD_WEBHOOK_SECRET="load-webhook-secret-$(head -c 8 /dev/urandom | od -An -tx1 | tr -d ' \n')"
cp "$ROOT/examples/demo/snapshot.yaml" "$WORK/snapshot.yaml"
{
    cat "$ROOT/examples/demo/profiles.yaml"
    echo "source: {file: \"$WORK/snapshot.yaml\"}"
    echo "server: {listen: \"127.0.0.1:$PORT\"}"
    echo "state_dir: \"$WORK/state\""
    echo "reconcile_interval: 60s"
    echo "webhook: {secret_env: TW_LOAD_WEBHOOK_SECRET, wait_timeout: 10s}"
} >"$WORK/tagwarden.yaml"
"$BIN" serve --config "$WORK/tagwarden.yaml" </dev/null >"$WORK/daemon.log" 2>&1 &
DAEMON_PID=$!
URL="http://127.0.0.1:$PORT/v1/profiles/trino_main/trino-rules.json"
for i in $(seq 1 200); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$PORT/readyz")" = 200 ] && break
    kill -0 "$DAEMON_PID" 2>/dev/null || { echo "FAIL daemon exited:"; tail -5 "$WORK/daemon.log"; exit 1; }
    sleep 0.05
done
ETAG="$(curl -s -D - -o "$WORK/rules.json" "$URL" | tr -d '\r' | awk 'tolower($1) == "etag:" { print $2 }')"
echo "INFO daemon pid $DAEMON_PID, $URL: $(stat -c %s "$WORK/rules.json") bytes, ETag $ETAG; $(nproc) CPUs"

summarize_wrk() {  # LABEL FILE
    awk -v label="$1" '
        /Requests\/sec/ { rps = $2 }
        /Transfer\/sec/ { tps = $2 }
        /requests in/ { total = $1 }
        /Non-2xx or 3xx/ { non = $NF }
        /Socket errors/ { sock = $0 }
        $1 == "50%" { p50 = $2 } $1 == "75%" { p75 = $2 } $1 == "90%" { p90 = $2 } $1 == "99%" { p99 = $2 }
        END {
            printf "load: %s: %s req/s (%s requests, %s/s), latency p50 %s p75 %s p90 %s p99 %s", label, rps, total, tps, p50, p75, p90, p99
            if (non != "") printf ", non-2xx/3xx: %s", non
            if (sock != "") printf ", %s", sock
            printf "\n"
        }' "$2"
}

echo "INFO wrk -t$THREADS -c$CONNS -d$DURATION --latency $URL"
wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" --latency "$URL" | tee "$WORK/wrk-200.txt"
if [ "${LOAD_SKIP_304:-0}" != 1 ]; then
    echo "INFO wrk -t$THREADS -c$CONNS -d$DURATION --latency -H 'If-None-Match: $ETAG' $URL"
    wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" --latency -H "If-None-Match: $ETAG" "$URL" | tee "$WORK/wrk-304.txt"
fi
kill -0 "$DAEMON_PID" 2>/dev/null || { echo "FAIL the daemon died under load"; exit 1; }

echo "INFO $WEBHOOKS sequential signed webhooks, each changing the snapshot"
python3 - "$ROOT/examples/demo/snapshot.yaml" "$WORK/snapshot.yaml" "$PORT" "$WEBHOOKS" <<'PY' | tee "$WORK/webhooks.txt"
import hashlib, hmac, http.client, json, os, statistics, sys, time
demo, src, port, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
secret = os.environ["TW_LOAD_WEBHOOK_SECRET"].encode()
base = open(demo).read()
old = "  - name: Confidential\n    level: 3\n    clearance:\n      - {type: role, name: data_steward}\n"
assert old in base, "demo snapshot layout changed"
texts = [base.replace(old, "  - name: Confidential\n    level: 3\n    clearance: []\n"), base]
rules = "/v1/profiles/trino_main/trino-rules.json"
conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)  # one keep-alive connection, as a poller
def etag():
    conn.request("GET", rules); r = conn.getresponse(); r.read(); return r.getheader("ETag")
wh, served, changed, statuses = [], [], 0, {}
for i in range(n):
    before = etag()
    tmp = src + ".tmp"
    with open(tmp, "w") as f:
        f.write(texts[i % 2])
    os.replace(tmp, src)
    body = json.dumps({"event": "snapshot.updated", "seq": i}).encode()
    sig = "sha256=" + hmac.new(secret, body, hashlib.sha256).hexdigest()
    t0 = time.perf_counter()
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    c.request("POST", "/v1/webhook", body, {"X-Tagwarden-Timestamp": str(int(time.time())),
                                           "X-Tagwarden-Signature": sig, "Content-Type": "application/json"})
    r = c.getresponse(); rb = r.read(); c.close()
    t1 = time.perf_counter()
    statuses[r.status] = statuses.get(r.status, 0) + 1
    try:
        if json.loads(rb)["profiles"][0].get("changed") is True:
            changed += 1
    except (ValueError, KeyError, IndexError):
        pass
    while etag() == before:
        if time.perf_counter() - t0 > 10:
            sys.exit(f"FAIL webhook {i}: new ETag not served within 10 s")
        time.sleep(0.001)
    t2 = time.perf_counter()
    wh.append((t1 - t0) * 1000)
    served.append((t2 - t0) * 1000)
    time.sleep(0.02)
def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, round(p / 100 * len(xs) + 0.5) - 1))]
print(f"load: webhook round trip (answers after its recompile): p50 {pct(wh, 50):.1f} ms, p99 {pct(wh, 99):.1f} ms, "
      f"max {max(wh):.1f} ms, mean {statistics.mean(wh):.1f} ms")
print(f"load: webhook sent -> new ETag served: p50 {pct(served, 50):.1f} ms, p99 {pct(served, 99):.1f} ms, "
      f"max {max(served):.1f} ms")
print(f"load: webhook statuses {statuses}; outcomes with changed: true {changed}/{n}"
      + ("" if changed == n else " (the others: the 1 s file watch compiled the change first)")
      + f"; p99 of {n} samples is the largest but one or the largest")
PY

echo "--- summary ---"
summarize_wrk "GET rules 200 (-t$THREADS -c$CONNS -d$DURATION)" "$WORK/wrk-200.txt"
[ -f "$WORK/wrk-304.txt" ] && summarize_wrk "GET rules 304 If-None-Match (-t$THREADS -c$CONNS -d$DURATION)" "$WORK/wrk-304.txt"
grep '^load:' "$WORK/webhooks.txt"

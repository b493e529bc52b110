#!/usr/bin/env bash
# tests/trino-e2e/run.sh against the REAL daemon (`tagwarden serve`) instead of its static stand-in.
#
#   tests/daemon/trino_e2e_with_daemon.sh
#
# Starts `tagwarden serve` on 127.0.0.1:<free port> with a copy of examples/demo/snapshot.yaml as
# source.file (profiles: examples/demo/profiles.yaml; state_dir, config and log in a temporary
# directory), then runs tests/trino-e2e/run.sh with
#   TAGWARDEN_RULES_URL=http://127.0.0.1:PORT/v1/profiles/trino_main/trino-rules.json
# and these hooks (this script, called back with --hook):
#   CHANGE  writes $TAGWARDEN_E2E_CHANGED_SNAPSHOT into the source file and sends a signed webhook
#           (POST /v1/webhook, X-Tagwarden-Signature/-Timestamp); the change lands through the
#           webhook. Checks the webhook answered 200 after its recompile with changed: true and that
#           the served ETag is the new one when it returns; prints webhook -> served latency.
#   STOP    SIGKILL (no graceful shutdown), after noting the ETag in force.
#   START   restarts with the same config and state_dir; the first rules answer after `listening`
#           must be the last good document (same ETag, X-Tagwarden-Ready: true), i.e. served from the
#           state directory before any compile.
# Hook failures make run.sh count a FAIL. The daemon is stopped by its PID on exit.
#
# Knobs: TAGWARDEN_BIN (default build-daemon-tests/tagwarden), TAGWARDEN_E2E_SKIP_BUILD=1 (do not
# run `cmake --build build-daemon-tests` first), TAGWARDEN_DAEMON_E2E_KEEP=1 (keep the work dir),
# plus everything run.sh reads (TAGWARDEN_E2E_WAIT, TRINO_HEAP, ...).
# Output: run.sh's lines, then `daemon-e2e:` summary lines; exit status = run.sh's.
set -euo pipefail

SELF="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")"
ROOT="$(cd "$(dirname "$SELF")/../.." && pwd)"

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }

# ---------------------------------------------------------------------------------------------
# daemon control (used by main and by the hooks; state in $TW_E2E_DIR)

daemon_pid() { cat "$TW_E2E_DIR/daemon.pid" 2>/dev/null || true; }

daemon_start() {  # starts the daemon; returns once it logged `listening`
    local log_offset pid i
    log_offset=$(stat -c %s "$TW_E2E_DIR/daemon.log" 2>/dev/null || echo 0)
    echo "$log_offset" >"$TW_E2E_DIR/log.offset"
    TW_E2E_WEBHOOK_SECRET="$TW_E2E_SECRET" TW_E2E_ADMIN_TOKEN="$TW_E2E_TOKEN" \
        nohup "$TAGWARDEN_BIN" serve --config "$TW_E2E_DIR/tagwarden.yaml" \
        </dev/null >>"$TW_E2E_DIR/daemon.log" 2>&1 &
    pid=$!
    disown "$pid" 2>/dev/null || true  # no "Killed" job message when the stop hook SIGKILLs it
    echo "$pid" >"$TW_E2E_DIR/daemon.pid"
    for i in $(seq 1 300); do
        if tail -c +"$((log_offset + 1))" "$TW_E2E_DIR/daemon.log" | grep -q '"event":"listening"'; then
            return 0
        fi
        kill -0 "$pid" 2>/dev/null || { echo "FAIL daemon exited at startup:"; tail -5 "$TW_E2E_DIR/daemon.log"; return 1; }
        sleep 0.01
    done
    echo "FAIL daemon did not start listening within 3 s"
    return 1
}

daemon_stop() {  # SIG: stop the daemon we started (by PID) and wait for it
    local pid sig="${1:-TERM}" i
    pid="$(daemon_pid)"
    [ -n "$pid" ] || return 0
    kill -0 "$pid" 2>/dev/null || return 0
    kill "-$sig" "$pid" 2>/dev/null || true
    for i in $(seq 1 100); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
    done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
    rm -f "$TW_E2E_DIR/daemon.pid"
}

# ---------------------------------------------------------------------------------------------
# hooks (run by run.sh through bash -c)

hook_change() {
    python3 - "$TW_E2E_DIR" "$TAGWARDEN_E2E_CHANGED_SNAPSHOT" "$TW_E2E_PORT" "$TW_E2E_SECRET" <<'PY'
import hashlib, hmac, http.client, json, os, sys, time
work, changed, port, secret = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4].encode()
rules = "/v1/profiles/trino_main/trino-rules.json"
def get(path):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    c.request("GET", path); r = c.getresponse(); b = r.read(); c.close()
    return r.status, dict((k.lower(), v) for k, v in r.getheaders()), b
_, h, _ = get(rules)
before = h.get("etag")
src = os.path.join(work, "snapshot.yaml")
tmp = src + ".tmp"
with open(changed, "rb") as f, open(tmp, "wb") as g:
    g.write(f.read())
os.replace(tmp, src)
body = json.dumps({"event": "snapshot.updated", "at": time.time()}).encode()
ts = str(int(time.time()))
sig = "sha256=" + hmac.new(secret, body, hashlib.sha256).hexdigest()
t0 = time.monotonic()
c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
c.request("POST", "/v1/webhook", body, {"X-Tagwarden-Timestamp": ts, "X-Tagwarden-Signature": sig,
                                       "Content-Type": "application/json"})
r = c.getresponse(); rb = r.read(); c.close()
t_webhook = time.monotonic() - t0
_, h, _ = get(rules)
at_return = h.get("etag")
t_served = None
while time.monotonic() - t0 < 10:
    if h.get("etag") != before:
        t_served = time.monotonic() - t0
        break
    time.sleep(0.005)
    _, h, _ = get(rules)
ok = True
try:
    o = json.loads(rb)
except ValueError:
    o = {}
prof = (o.get("profiles") or [{}])[0]
print(f"INFO change hook: webhook {r.status} after {t_webhook*1000:.1f} ms, outcome source={o.get('source')} "
      f"changed={prof.get('changed')} generation={o.get('generation')}; new ETag served "
      + (f"{t_served*1000:.1f} ms after the webhook was sent" if t_served is not None else "NOT within 10 s"))
if r.status != 200:
    print(f"FAIL change hook: webhook answered {r.status}: {rb[:300]!r}"); ok = False
if at_return == before:
    print("FAIL change hook: the served ETag was still the old one when the webhook returned"); ok = False
if prof.get("changed") is not True:
    print("INFO change hook: the outcome says changed != true (the file watcher may have compiled the change first)")
with open(os.path.join(work, "measure.change"), "w") as f:
    f.write(f"{t_webhook*1000:.1f} {t_served*1000 if t_served is not None else -1:.1f} {r.status} {prof.get('changed')}\n")
sys.exit(0 if ok else 1)
PY
}

hook_stop() {
    curl -s -D - -o /dev/null --max-time 5 "$TW_E2E_RULES_URL" | tr -d '\r' | awk 'tolower($1) == "etag:" { print $2 }' \
        >"$TW_E2E_DIR/etag.before-stop" || true
    daemon_stop KILL
    echo "INFO stop hook: daemon SIGKILLed (ETag in force was $(cat "$TW_E2E_DIR/etag.before-stop"))"
}

hook_start() {
    local t0 etag ready code hdr first=""
    t0="$(now)"
    daemon_start || return 1
    # the very first answer after `listening`
    hdr="$(curl -s -D - -o /dev/null --max-time 5 "$TW_E2E_RULES_URL" | tr -d '\r')"
    code="$(echo "$hdr" | awk 'NR == 1 { print $2 }')"
    etag="$(echo "$hdr" | awk 'tolower($1) == "etag:" { print $2 }')"
    ready="$(echo "$hdr" | awk 'tolower($1) == "x-tagwarden-ready:" { print $2 }')"
    first="$(since "$t0")"
    local restored
    restored="$(curl -s --max-time 5 -H "Authorization: Bearer $TW_E2E_TOKEN" "http://127.0.0.1:$TW_E2E_PORT/v1/status" |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["profiles"][0]["artifact"]["restored_from_state"])' 2>/dev/null || echo '?')"
    echo "INFO start hook: rules answered $code ${first}s after exec (ETag $etag, ready $ready, restored_from_state at that moment: $restored)"
    echo "$first" >"$TW_E2E_DIR/measure.start"
    if [ "$code" != 200 ] || [ "$etag" != "$(cat "$TW_E2E_DIR/etag.before-stop")" ] || [ "$ready" != true ]; then
        echo "FAIL start hook: expected the last good document (200, ETag $(cat "$TW_E2E_DIR/etag.before-stop"), ready true) immediately"
        return 1
    fi
}

if [ "${1:-}" = "--hook" ]; then
    case "${2:-}" in
        change) hook_change ;;
        stop) hook_stop ;;
        start) hook_start ;;
        *) echo "unknown hook ${2:-}" >&2; exit 2 ;;
    esac
    exit $?
fi

# ---------------------------------------------------------------------------------------------
# main

export TAGWARDEN_BIN="${TAGWARDEN_BIN:-$ROOT/build-daemon-tests/tagwarden}"
if [ "${TAGWARDEN_E2E_SKIP_BUILD:-0}" != 1 ]; then
    t_build="$(now)"
    if [ ! -f "$ROOT/build-daemon-tests/build.ninja" ]; then
        cmake -S "$ROOT" -B "$ROOT/build-daemon-tests" -G Ninja -DBUILD_TESTING=OFF >/dev/null
    fi
    cmake --build "$ROOT/build-daemon-tests" >/dev/null
    echo "INFO tagwarden built in $(since "$t_build")s"
fi
[ -x "$TAGWARDEN_BIN" ] || { echo "FAIL no tagwarden binary at $TAGWARDEN_BIN"; exit 1; }

export TW_E2E_DIR
TW_E2E_DIR="$(mktemp -d "${TMPDIR:-/tmp}/tagwarden-daemon-e2e.XXXXXX")"
cleanup() {
    set +e
    daemon_stop TERM
    if [ "${TAGWARDEN_DAEMON_E2E_KEEP:-0}" = 1 ]; then
        echo "INFO daemon work dir kept: $TW_E2E_DIR"
    else
        rm -rf "$TW_E2E_DIR"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

export TW_E2E_PORT TW_E2E_SECRET TW_E2E_TOKEN TW_E2E_RULES_URL
TW_E2E_PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
TW_E2E_SECRET="e2e-webhook-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
TW_E2E_TOKEN="e2e-admin-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
TW_E2E_RULES_URL="http://127.0.0.1:$TW_E2E_PORT/v1/profiles/trino_main/trino-rules.json"
cp "$ROOT/examples/demo/snapshot.yaml" "$TW_E2E_DIR/snapshot.yaml"
{
    cat "$ROOT/examples/demo/profiles.yaml"
    echo "source: {file: \"$TW_E2E_DIR/snapshot.yaml\"}"
    echo "server: {listen: \"127.0.0.1:$TW_E2E_PORT\"}"
    echo "state_dir: \"$TW_E2E_DIR/state\""
    echo "reconcile_interval: 60s"
    echo "webhook: {secret_env: TW_E2E_WEBHOOK_SECRET, max_body_bytes: 65536, wait_timeout: 10s}"
    echo "tokens:"
    echo "  - {name: e2e-admin, token_env: TW_E2E_ADMIN_TOKEN, scopes: [admin]}"
} >"$TW_E2E_DIR/tagwarden.yaml"

daemon_start || exit 1
for i in $(seq 1 200); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$TW_E2E_PORT/readyz")" = 200 ] && break
    sleep 0.05
done
echo "INFO daemon pid $(daemon_pid) on 127.0.0.1:$TW_E2E_PORT, state $TW_E2E_DIR/state; rules $TW_E2E_RULES_URL"

export TAGWARDEN_RULES_URL="$TW_E2E_RULES_URL"
export TAGWARDEN_E2E_CHANGE_CMD="'$SELF' --hook change"
export TAGWARDEN_E2E_STOP_CMD="'$SELF' --hook stop"
export TAGWARDEN_E2E_START_CMD="'$SELF' --hook start"

t_e2e="$(now)"
set +e
"$ROOT/tests/trino-e2e/run.sh" 2>&1 | tee "$TW_E2E_DIR/e2e.out"
rc="${PIPESTATUS[0]}"
set -e
e2e_secs="$(since "$t_e2e")"

echo "daemon-e2e: run.sh took ${e2e_secs}s, exit $rc; $(grep '^trino-e2e: [0-9]* passed' "$TW_E2E_DIR/e2e.out" || echo 'no result line')"
if [ -s "$TW_E2E_DIR/measure.change" ]; then
    read -r wh served status changed <"$TW_E2E_DIR/measure.change"
    echo "daemon-e2e: policy change via webhook: webhook round trip ${wh} ms (answered $status, changed=$changed), new ETag served ${served} ms after sending"
fi
grep -E '^PASS policy change reaches Trino|^PASS recovery' "$TW_E2E_DIR/e2e.out" | sed 's/^/daemon-e2e: /' || true
[ -s "$TW_E2E_DIR/measure.start" ] && echo "daemon-e2e: restart after SIGKILL: last good served $(cat "$TW_E2E_DIR/measure.start")s after exec"
grep -c '"event":"reconciled"' "$TW_E2E_DIR/daemon.log" | sed 's/^/daemon-e2e: reconcile passes logged: /'
exit "$rc"

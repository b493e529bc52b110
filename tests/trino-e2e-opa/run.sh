#!/usr/bin/env bash
# End-to-end proof of tagwarden's decisions over Trino's OPA protocol, with a REAL Trino 476 server
# on loopback (access-control.name=opa) asking a REAL daemon (`tagwarden serve`).
#
#   tests/trino-e2e-opa/run.sh
#
# Trino 476 (the server tarball from Maven Central: lib/, plugin/opa/, plugin/memory/, cached by
# tests/trino-opa/fetch.sh) is configured with access-control.name=opa and its five policy URIs pointing
# at opa_proxy.py, which answers allow-all while the test creates its tables as
# tagwarden-e2e-admin, and is then switched to forward every decision, unchanged, to the daemon's
# POST /v1/profiles/trino_main/trino-opa/<endpoint>. The checks are those of tests/trino-e2e (the
# demo's list in tests/trino-e2e/run.sh's e2e_demo_checks, and tests/trino-e2e/policy_checks.py),
# run as the demo's users. Two daemons: one serves examples/demo, one the snapshot of
# policy_checks.py (role expiries moved next to the wall clock, which is what the daemon judges
# them at). See README.md.
#
# Knobs: TAGWARDEN_BIN (default build/tagwarden; copied into the work dir, never built here),
#   TAGWARDEN_CACHE, TRINO_JAVA_HOME, TRINO_HEAP (default 1G), TRINO_CDS=0,
#   TAGWARDEN_OPA_E2E_BATCH_MASKS=0 (leave opa.policy.batch-column-masking-uri unset: Trino then asks
#   column-mask once per column), TAGWARDEN_OPA_E2E_SELF_CHECK=0 (skip the tampered passes),
#   TAGWARDEN_E2E_KEEP=1 (keep the work dir: Trino's log, the daemons' logs, opa-requests.jsonl).
#
# Output: PASS/FAIL/SKIP/INFO lines, timings, and last `trino-e2e-opa: N passed, M failed`.
# Exit status: 0 when nothing failed. Every process started here is stopped on exit (by PID).
set -euo pipefail

OPA_HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OPA_ROOT="$(cd "$OPA_HERE/../.." && pwd)"

# The 483 e2e's helpers (sourcing runs nothing): e2e_query, expect_*, wait_until, observe,
# e2e_stop_pid, e2e_cleanup, e2e_changed_snapshot, e2e_demo_checks, the PASS/FAIL counters.
# shellcheck source=../trino-e2e/run.sh
source "$OPA_ROOT/tests/trino-e2e/run.sh"
TRINO_VERSION=476
E2E_CHECKS="$OPA_ROOT/tests/trino-e2e/policy_checks.py"
OPA_BATCH_MASKS="${TAGWARDEN_OPA_E2E_BATCH_MASKS:-1}"
PROFILE=trino_main

PROXY_LOG=""
OPA_KNOWN="$OPA_HERE/known_differences.json"   # checks failing because the daemon's answer differs (still FAIL)
OPA_REWORDED=0

# tests/trino-e2e's expect_line, accepting the OPA plugin's wording of a refused SELECT
# ("Cannot select from columns [..] in table or view T" for "Cannot select from table T"; see
# opa_checks.py): the same refusal, worded by OpaAccessControl.
expect_line() {  # NAME USER SQL EXPECTED_OUTPUT_LINE
    e2e_query "$2" "$3"
    if [ "$E2E_Q_OUT" = "$4" ]; then
        e2e_pass "$1 [$2] $3 -> $4"
    elif python3 "$OPA_HERE/opa_checks.py" same-refusal "$4" "$E2E_Q_OUT"; then
        OPA_REWORDED=$((OPA_REWORDED + 1))
        e2e_pass "$1 [$2] $3 -> ${E2E_Q_OUT#ERROR PERMISSION_DENIED: } (OPA wording)"
    else
        e2e_fail "$1 [$2] $3 -> expected $4, got: $E2E_Q_OUT"
    fi
}

declare -A DAEMON_PID=() DAEMON_PORT=()

opa_drop_pid() {  # PID: forget a stopped process (so that cleanup never signals a reused PID)
    local p kept=()
    for p in "${E2E_PIDS[@]}"; do [ "$p" = "$1" ] || kept+=("$p"); done
    E2E_PIDS=("${kept[@]}")
}

# ---------------------------------------------------------------------------------------------
# the daemons: NAME in {demo, policies}; each has $E2E_WORK/daemon-NAME/{snapshot.yaml,tagwarden.yaml,state,daemon.log}

daemon_configure() {  # NAME SNAPSHOT
    local name="$1" dir="$E2E_WORK/daemon-$1"
    mkdir -p "$dir"
    cp "$2" "$dir/snapshot.yaml"
    DAEMON_PORT[$name]="$(e2e_free_port)"
    {
        # The deployment shape for OPA: the profile renders no rules document (access_control: opa).
        cat "$OPA_ROOT/examples/demo/profiles.yaml"
        echo "    access_control: opa"
        echo "source: {file: \"$dir/snapshot.yaml\"}"
        echo "server: {listen: \"127.0.0.1:${DAEMON_PORT[$name]}\"}"
        echo "state_dir: \"$dir/state\""
        echo "reconcile_interval: 60s"
    } >"$dir/tagwarden.yaml"
}

daemon_base() { echo "http://127.0.0.1:${DAEMON_PORT[$1]}/v1/profiles/$PROFILE/trino-opa"; }

daemon_start() {  # NAME: start it; return once /readyz is 200
    local name="$1" dir="$E2E_WORK/daemon-$1" pid i
    "$OPA_BIN" serve --config "$dir/tagwarden.yaml" </dev/null >>"$dir/daemon.log" 2>&1 &
    pid=$!
    DAEMON_PID[$name]=$pid
    E2E_PIDS+=("$pid")
    for i in $(seq 1 300); do
        [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:${DAEMON_PORT[$name]}/readyz")" = 200 ] && return 0
        kill -0 "$pid" 2>/dev/null || { echo "daemon $name exited at startup:" >&2; tail -5 "$dir/daemon.log" >&2; return 1; }
        sleep 0.05
    done
    echo "daemon $name not ready within 15 s:" >&2
    tail -5 "$dir/daemon.log" >&2
    return 1
}

daemon_kill() {  # NAME: SIGKILL (no graceful shutdown), wait for it
    local pid="${DAEMON_PID[$1]:-}"
    [ -n "$pid" ] || return 0
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    opa_drop_pid "$pid"
    DAEMON_PID[$1]=""
}

# The policy_checks.py snapshot as the daemon must see it: the daemon judges role expiry at its
# clock, not at generated_at (the CLI's "now"), so the assignment that "expires exactly at
# generated_at" has expired long ago and the one that "expires a second later" is moved to an
# hour from now (it must still count during the run).
policies_snapshot() {  # OUT
    python3 - "$E2E_CHECKS" "$1" <<'PY'
import datetime as dt, importlib.util, json, sys
spec = importlib.util.spec_from_file_location("policy_checks", sys.argv[1])
pc = importlib.util.module_from_spec(spec); spec.loader.exec_module(pc)
snap = pc.snapshot()
later = (dt.datetime.now(dt.timezone.utc) + dt.timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
moved = 0
for a in snap["role_assignments"]:
    if a.get("user") == "expiring.staff" and "expires_at" in a:
        a["expires_at"] = later
        moved += 1
assert moved == 1, "no expiring.staff assignment in policy_checks.py's snapshot"
json.dump(snap, open(sys.argv[2], "w", encoding="utf-8"), ensure_ascii=False, indent=1)
PY
}

# ---------------------------------------------------------------------------------------------
# Trino 476 with OPA access control

opa_start_trino() {  # DIST_DIR OPA_BASE_URL
    local dist="$1" base="$2" port inst t0 line i
    port="$(e2e_free_port)"
    inst="$E2E_WORK/trino"
    mkdir -p "$inst/etc/catalog" "$inst/data"
    cat >"$inst/etc/node.properties" <<EOF
node.environment=test
node.id=tagwarden-e2e-opa
node.data-dir=$inst/data
node.bind-ip=127.0.0.1
node.internal-address=127.0.0.1
EOF
    cat >"$inst/etc/config.properties" <<EOF
coordinator=true
node-scheduler.include-coordinator=true
http-server.http.port=$port
discovery.uri=http://127.0.0.1:$port
query.max-memory=256MB
query.max-memory-per-node=256MB
task.concurrency=2
task.max-worker-threads=4
web-ui.enabled=false
plugin.dir=$dist/plugin
catalog.config-dir=$inst/etc/catalog
access-control.config-files=$inst/etc/access-control.properties
EOF
    # as the 483 e2e: small heap, C1 only, few GC threads (2 cores, other work running)
    cat >"$inst/etc/jvm.config" <<EOF
-server
-Xmx$TRINO_HEAP
-Xms256M
-XX:ActiveProcessorCount=2
-XX:+UseG1GC
-XX:ParallelGCThreads=2
-XX:ConcGCThreads=1
-XX:TieredStopAtLevel=1
-XX:ReservedCodeCacheSize=128M
-XX:+ExitOnOutOfMemoryError
-XX:-OmitStackTraceInFastThrow
-XX:+EnableDynamicAgentLoading
-Djdk.attach.allowAttachSelf=true
-Djdk.nio.maxCachedBufferSize=2000000
-Dfile.encoding=UTF-8
--add-modules=jdk.incubator.vector
--enable-native-access=ALL-UNNAMED
--sun-misc-unsafe-memory-access=allow
EOF
    E2E_TRINO_GRACE=10
    if [ "${TRINO_CDS:-1}" = 1 ]; then
        [ -s "$dist/trino-cds.jsa" ] || E2E_TRINO_GRACE=60
        printf '%s\n' "-XX:SharedArchiveFile=$dist/trino-cds.jsa" -XX:+AutoCreateSharedArchive \
            >>"$inst/etc/jvm.config"
    fi
    cat >"$inst/etc/log.properties" <<EOF
io.trino=INFO
io.airlift=WARN
EOF
    echo "connector.name=memory" >"$inst/etc/catalog/demo_warehouse.properties"
    {
        echo "access-control.name=opa"
        echo "opa.policy.uri=$base/allow"
        echo "opa.policy.batched-uri=$base/batch"
        echo "opa.policy.row-filters-uri=$base/row-filters"
        echo "opa.policy.column-masking-uri=$base/column-mask"
        [ "$OPA_BATCH_MASKS" = 1 ] && echo "opa.policy.batch-column-masking-uri=$base/batch-column-masks"
    } >"$inst/etc/access-control.properties"
    # What bin/launcher does: jvm.config lines as JVM options, node.properties as system
    # properties (node.data-dir becomes the working directory), -Dconfig; the main class is the
    # one bin/launcher.properties names.
    local -a jvm_opts=() sysprops=()
    while IFS= read -r line; do
        [ -n "$line" ] && [ "${line#\#}" = "$line" ] && jvm_opts+=("$line")
    done <"$inst/etc/jvm.config"
    while IFS= read -r line; do
        case "$line" in ''|'#'*|node.data-dir=*) ;; *) sysprops+=("-D$line") ;; esac
    done <"$inst/etc/node.properties"
    t0="$(e2e_now)"
    (cd "$inst/data" && exec "$E2E_JAVA" "${jvm_opts[@]}" "${sysprops[@]}" \
        -Dconfig="$inst/etc/config.properties" -Dlog.levels-file="$inst/etc/log.properties" \
        -cp "$dist/lib/*" io.trino.server.TrinoServer) >"$inst/server.log" 2>&1 &
    TRINO_PID=$!
    E2E_PIDS+=("$TRINO_PID")
    TRINO_URL="http://127.0.0.1:$port"
    for i in $(seq 1 $((E2E_START_TIMEOUT * 2))); do
        if curl -s --max-time 2 "$TRINO_URL/v1/info" 2>/dev/null | grep -q '"starting":false'; then
            E2E_TRINO_STARTUP="$(e2e_since "$t0")"
            e2e_info "Trino $TRINO_VERSION up at $TRINO_URL in ${E2E_TRINO_STARTUP}s (pid $TRINO_PID, heap $TRINO_HEAP, OPA at $base)"
            return 0
        fi
        if ! kill -0 "$TRINO_PID" 2>/dev/null; then
            echo "Trino exited during startup; last log lines:" >&2
            sed 's/\x1b\[[0-9;]*m//g' "$inst/server.log" | grep -v "^\s*at " | tail -30 >&2
            return 1
        fi
        sleep 0.5
    done
    echo "Trino did not start within ${E2E_START_TIMEOUT}s; last log lines:" >&2
    sed 's/\x1b\[[0-9;]*m//g' "$inst/server.log" | grep -v "^\s*at " | tail -30 >&2
    return 1
}

# ---------------------------------------------------------------------------------------------
# the proxy

proxy_ctl() {  # WHAT [BODY]
    curl -s --max-time 5 -X POST --data-binary "${2:-}" "$PROXY_URL/_control/$1"
}
proxy_status() { curl -s --max-time 5 "$PROXY_URL/_control/status"; }
OPA_LABEL=""
label() { OPA_LABEL="$1"; proxy_ctl label "$1" >/dev/null; }

# ---------------------------------------------------------------------------------------------
# main

opa_main() {
    local dist t0 stmt setup_ok=1
    trap e2e_cleanup EXIT
    trap 'exit 130' INT TERM
    E2E_WORK="$(mktemp -d "${TMPDIR:-/tmp}/tagwarden-trino-e2e-opa.XXXXXX")"

    # 1. the Trino server
    t0="$(e2e_now)"
    dist="$("$OPA_HERE/../trino-opa/fetch.sh")" || { e2e_fail "fetch Trino 476"; return 1; }
    OPA_T_FETCH="$(e2e_since "$t0")"
    e2e_info "Trino 476 server at $dist (ready in ${OPA_T_FETCH}s)"

    # 2. the daemons
    local bin="${TAGWARDEN_BIN:-$OPA_ROOT/build/tagwarden}"
    [ -x "$bin" ] || { e2e_fail "no tagwarden binary at $bin (build it first; this script does not)"; return 1; }
    OPA_BIN="$E2E_WORK/tagwarden"
    cp "$bin" "$OPA_BIN"   # a rebuild of $bin during the run does not touch the daemons
    E2E_CONFIG="$OPA_ROOT/examples/demo/profiles.yaml"
    e2e_changed_snapshot "$OPA_ROOT/examples/demo/snapshot.yaml" "$E2E_WORK/snapshot-changed.yaml" \
        || { e2e_fail "changed snapshot"; return 1; }
    policies_snapshot "$E2E_WORK/policies-snapshot.json" || { e2e_fail "policies snapshot"; return 1; }
    daemon_configure demo "$OPA_ROOT/examples/demo/snapshot.yaml"
    daemon_configure policies "$E2E_WORK/policies-snapshot.json"
    daemon_start demo || { e2e_fail "daemon (demo) did not start"; return 1; }
    daemon_start policies || { e2e_fail "daemon (policies) did not start"; return 1; }
    local served
    served="$(curl -s --max-time 5 "$(daemon_base demo)/decisions")"
    python3 -c 'import json, sys; d = json.loads(sys.argv[1]); sys.exit(not (d["access_control"] == "opa" and d["ready"]))' \
        "$served" 2>/dev/null \
        || { e2e_fail "the demo daemon does not serve its profile with access_control: opa: $served"; return 1; }
    e2e_info "daemons ($("$OPA_BIN" version 2>/dev/null | head -1)): demo $(daemon_base demo) (pid ${DAEMON_PID[demo]}), policies $(daemon_base policies) (pid ${DAEMON_PID[policies]})"

    # 3. the proxy (bootstrap: allow-all) and Trino
    PROXY_LOG="$E2E_WORK/opa-requests.jsonl"
    python3 "$OPA_HERE/opa_proxy.py" --port-file "$E2E_WORK/proxy.port" --upstream "$(daemon_base demo)" \
        --log "$PROXY_LOG" 2>"$E2E_WORK/proxy.log" &
    PROXY_PID=$!
    E2E_PIDS+=("$PROXY_PID")
    e2e_wait_port_file "$E2E_WORK/proxy.port" "$PROXY_PID" 15 || { e2e_fail "OPA proxy did not start"; return 1; }
    PROXY_URL="http://127.0.0.1:$(cat "$E2E_WORK/proxy.port")"
    label startup
    opa_start_trino "$dist" "$PROXY_URL/opa" || { e2e_fail "Trino startup"; return 1; }

    # 4. data, as the bootstrap admin (the same tables as tests/trino-e2e)
    label setup
    t0="$(e2e_now)"
    while IFS= read -r stmt; do
        [ -n "$stmt" ] || continue
        e2e_query "$E2E_ADMIN" "$stmt"
        [ "$E2E_Q_RC" = 0 ] || { e2e_fail "setup: $stmt -> $E2E_Q_OUT"; setup_ok=0; }
    done < <(e2e_demo_setup_sql; python3 "$E2E_CHECKS" setup-sql)
    [ "$setup_ok" = 1 ] && e2e_pass "setup: 4 schemas, 8 tables, 5 views, 25 rows created as $E2E_ADMIN with every decision allowed by the proxy"

    OPA_T_SETUP="$(e2e_since "$t0")"
    # 5. from now on every decision is the demo daemon's, forwarded unchanged
    t0="$(e2e_now)"
    local at_switch inv="SELECT count(*) FROM demo_warehouse.finance.invoices"
    proxy_ctl switch "$(daemon_base demo)" >/dev/null
    at_switch="$(proxy_status | python3 -c 'import json,sys; print(json.load(sys.stdin)["by_mode"].get("bootstrap",{}).get("requests",0))')"
    label demo
    # member-sso is refused the invoices only by the daemon (the bootstrap answers allow all)
    expect_line "switch to the daemon" member-sso "$inv" \
        "ERROR PERMISSION_DENIED: Access Denied: Cannot select from table demo_warehouse.finance.invoices"

    # 6. the checks of tests/trino-e2e for examples/demo
    e2e_demo_checks
    e2e_info "demo: $OPA_REWORDED refusals matched in the OPA plugin's wording (Cannot select from columns [...] in table or view T)"
    expect_rows "catalogs visible" member-sso "SHOW CATALOGS" '[["demo_warehouse"],["system"]]'
    e2e_query nobody "SHOW CATALOGS"
    e2e_info "[nobody] SHOW CATALOGS -> $E2E_Q_OUT (not checked)"
    observe_ops member-sso "SHOW CATALOGS"
    observe_ops member-sso "SHOW SCHEMAS FROM demo_warehouse"
    observe_ops member-sso "SHOW TABLES FROM demo_warehouse.finance"
    observe_ops member-sso "SHOW COLUMNS FROM demo_warehouse.finance.customers"
    observe_ops member-sso "SELECT table_name, column_name FROM demo_warehouse.information_schema.columns WHERE table_schema = 'finance'"
    observe_ops member-sso "SELECT id, name FROM demo_warehouse.finance.customers"
    observe_ops member-sso "SELECT iban FROM demo_warehouse.finance.customers"
    observe_ops etl_svc "INSERT INTO demo_warehouse.sales.orders SELECT 1, 'x' WHERE false"

    OPA_T_DEMO="$(e2e_since "$t0")"
    # 7. a policy change: the daemon's source file loses Confidential's clearance
    label change
    cp "$E2E_WORK/snapshot-changed.yaml" "$E2E_WORK/daemon-demo/snapshot.yaml.tmp"
    mv "$E2E_WORK/daemon-demo/snapshot.yaml.tmp" "$E2E_WORK/daemon-demo/snapshot.yaml"
    wait_until "policy change reaches Trino (the daemon's file watch, no Trino cache)" member-sso "$inv" 'OK [[3]]' 30
    expect_denied "policy change keeps PII gated" member-sso "SELECT iban FROM demo_warehouse.finance.customers"

    # 8. the daemon goes down: every decision fails, so every query fails (fail closed); then back
    label outage
    daemon_kill demo
    e2e_info "daemon (demo) SIGKILLed: [member-sso] $inv every 0.5 s for 3 s:"
    observe 3 member-sso "$inv"
    if awk -F'\t' '$2 ~ /^OK/ { found = 1 } END { exit !found }' "$E2E_OBSERVE_LOG"; then
        e2e_fail "outage: Trino answered rows while the daemon was down"
    elif [ "$E2E_Q_RC" = 1 ] && [[ "$E2E_Q_OUT" == *OPA* ]]; then
        e2e_pass "outage: no query answered while the daemon was down; they fail with: ${E2E_Q_OUT#ERROR }"
    else
        e2e_fail "outage: expected a query error naming OPA, last answer: $E2E_Q_OUT"
    fi
    label recovery
    daemon_start demo || e2e_fail "daemon (demo) did not restart"
    wait_until "recovery: the restarted daemon decides again (its state: the changed policy)" member-sso "$inv" 'OK [[3]]' 30

    # 9. policy_checks.py's checks: the second daemon serves its snapshot
    label policies
    t0="$(e2e_now)"
    proxy_ctl switch "$(daemon_base policies)" >/dev/null
    wait_until "policies: the daemon of policy_checks.py's snapshot decides" hr-admin \
        "SELECT count(*) FROM demo_warehouse.hr.employees" 'OK [[9]]' 15 || true
    opa_policy_checks "" "$OPA_KNOWN"
    OPA_T_POLICIES="$(e2e_since "$t0")"
    observe_ops ann.eu "SELECT id, ssn, email FROM demo_warehouse.hr.employees"
    observe_ops auditor.a "SELECT id, badge, code FROM demo_warehouse.hr.badges"
    observe_ops hr-admin "SELECT count(*) FROM demo_warehouse.hr.directory"
    observe_ops writer.uncleared "SHOW COLUMNS FROM demo_warehouse.hr.payroll"
    label policies-replay
    local replay
    replay="$(python3 "$OPA_HERE/opa_log.py" replay "$PROXY_LOG" policies "$(daemon_base policies)" 2>&1)" \
        && e2e_pass "the answers Trino got in the policy checks are the daemon's: ${replay%%$'\n'*} (each logged request sent to the daemon directly again)" \
        || e2e_fail "the answers Trino got are not the daemon's: $replay"

    # 10. self-check: with the daemon's masks / filters / view-owner grants dropped on the way, the
    # same checks must fail (they depend on the daemon's answers); the known differences are left
    # out (they fail anyway), and one failure is enough
    if [ "${TAGWARDEN_OPA_E2E_SELF_CHECK:-1}" = 1 ]; then
        local what line out
        t0="$(e2e_now)"
        for what in masks filters view-owner; do
            label "tamper-$what"
            proxy_ctl tamper "$what" >/dev/null
            out="$(python3 "$OPA_HERE/opa_checks.py" check --quiet --server "$TRINO_URL" --known-differences "$OPA_KNOWN" \
                --skip-known --stop-at-first-failure 2>&1)" || true
            line="$(printf '%s\n' "$out" | tail -1)"
            if [[ "$line" =~ ^policy-checks:\ ([0-9]+)\ passed,\ ([1-9][0-9]*)\ failed$ ]]; then
                e2e_pass "self-check: with the daemon's $what dropped by the proxy the checks fail ($(printf '%s\n' "$out" | grep '^first failure:' | cut -c1-160))"
            else
                e2e_fail "self-check: with the daemon's $what dropped by the proxy the checks still pass: $line"
            fi
        done
        proxy_ctl switch >/dev/null
        OPA_T_SELF="$(e2e_since "$t0")"
    else
        e2e_skip "self-check (TAGWARDEN_OPA_E2E_SELF_CHECK=0)"
    fi

    # 11. every decision after the switch came from a daemon, unchanged
    local st
    st="$(proxy_status)"
    python3 - "$st" "$at_switch" "$PROXY_LOG" >"$E2E_WORK/forwarding.out" <<'PY' || e2e_fail "forwarding: the proxy's log could not be read"
import collections, json, sys
st, at_switch, log = json.loads(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
boot = st["by_mode"].get("bootstrap", {}).get("requests", 0)
prox = st["by_mode"].get("proxy", {})
print(("PASS" if boot == at_switch else "FAIL") + " after the switch no decision was answered by the proxy (bootstrap answers: %d, all before the switch)" % boot)
print(("PASS" if prox.get("requests", 0) > 0 else "FAIL") + " decisions forwarded to the daemons: %d" % prox.get("requests", 0))
bad = collections.Counter()
for line in open(log, encoding="utf-8"):
    e = json.loads(line)
    if e["mode"] == "proxy" and e["status"] != 200:
        bad[e["label"]] += 1
unexpected = {k: v for k, v in bad.items() if k != "outage"}
print(("PASS" if not unexpected else "FAIL") + " forwarded decisions not answered 200 by the daemon: %s (expected only while it was down: outage)" % (dict(bad) or "none"))
tam = st["by_mode"].get("tamper", {}).get("requests", 0)
print("INFO proxy: %d bootstrap answers, %d forwarded (%d not 200), %d forwarded in the self-check passes" % (boot, prox.get("requests", 0), prox.get("non_200", 0), tam))
PY
    while IFS= read -r line; do
        case "$line" in PASS\ *) e2e_pass "${line#PASS }" ;; FAIL\ *) e2e_fail "${line#FAIL }" ;; *) echo "$line" ;; esac
    done <"$E2E_WORK/forwarding.out"
    e2e_info "OPA operations Trino asked the daemons (endpoint, operation, count; forwarded requests):"
    python3 "$OPA_HERE/opa_log.py" summary "$PROXY_LOG" proxy | sed 's/^/INFO   /'

    # 12. nothing listening at Trino's OPA URIs (the proxy stopped: a closed port): Trino refuses
    e2e_stop_pid "$PROXY_PID"
    opa_drop_pid "$PROXY_PID"
    e2e_query hr-admin "SELECT count(*) FROM demo_warehouse.hr.employees"
    if [ "$E2E_Q_RC" = 1 ] && [[ "$E2E_Q_OUT" == *OPA* || "$E2E_Q_OUT" == "ERROR PERMISSION_DENIED:"* ]]; then
        e2e_pass "fail closed: nothing listening at the OPA URIs, the query fails: ${E2E_Q_OUT#ERROR }"
    else
        e2e_fail "fail closed: expected an OPA error with nothing listening at the OPA URIs, got: $E2E_Q_OUT"
    fi

    if [ "$E2E_FAILED" -gt 0 ] && [ -n "$TRINO_URL" ]; then
        echo "--- last Trino log lines ---"
        sed 's/\x1b\[[0-9;]*m//g' "$E2E_WORK/trino/server.log" | grep -v 'RemoteNodeMemory\|QueryMonitor\|^\s*at \|^\s*\.\.\. [0-9]* more\|^\s*$' | tail -12
    fi
}

# observe_ops USER SQL: run it under its own label and print what Trino asked the daemon for it
observe_ops() {
    local prev="$OPA_LABEL"
    label "observe: [$1] $2"
    e2e_query "$1" "$2"
    e2e_info "OPA for [$1] $2 (${E2E_Q_OUT:0:60}): $(python3 "$OPA_HERE/opa_log.py" ops "$PROXY_LOG" "observe: [$1] $2")"
    label "$prev"
}

# opa_policy_checks: policy_checks.py's expectations through opa_checks.py; counts added to ours
opa_policy_checks() {
    local out line n m
    out="$(python3 "$OPA_HERE/opa_checks.py" check --server "$TRINO_URL" ${2:+--known-differences "$2"} 2>&1)" || true
    printf '%s\n' "$out" | grep -v '^policy-checks:' || true
    line="$(printf '%s\n' "$out" | grep '^policy-checks:' | tail -1)"
    if [[ "$line" =~ ^policy-checks:\ ([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
        n="${BASH_REMATCH[1]}" m="${BASH_REMATCH[2]}"
        E2E_PASSED=$((E2E_PASSED + n)) E2E_FAILED=$((E2E_FAILED + m))
        e2e_info "policies: $n passed, $m failed"
        [ "$n" -gt 0 ] || e2e_fail "policies: no check ran"
    else
        e2e_fail "policies: opa_checks.py printed no summary: $(printf '%s' "$out" | tail -3)"
    fi
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    E2E_T_START="$(e2e_now)"
    rc=0
    opa_main "$@" || rc=$?
    [ "$rc" = 0 ] || [ "$E2E_FAILED" -gt 0 ] || E2E_FAILED=1
    e2e_cleanup
    echo "trino-e2e-opa: total $(e2e_since "$E2E_T_START")s, shutdown included: fetch ${OPA_T_FETCH:-?}s, Trino startup ${E2E_TRINO_STARTUP:-?}s, setup ${OPA_T_SETUP:-?}s, demo checks ${OPA_T_DEMO:-?}s, policy checks ${OPA_T_POLICIES:-?}s, self-check ${OPA_T_SELF:-?}s"
    echo "trino-e2e-opa: $E2E_PASSED passed, $E2E_FAILED failed"
    [ "$E2E_FAILED" = 0 ]
fi

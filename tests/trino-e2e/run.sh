#!/usr/bin/env bash
# End-to-end proof of tagwarden's Trino rules against a REAL Trino server on loopback.
#
#   tests/trino-e2e/run.sh [RULES_URL]
#
# Trino (483, assembled from Maven Central by fetch_trino.sh, memory connector only) reads its
# system access control with `access-control.name=file`, `security.config-file=<http URL>` and
# `security.refresh-period=1s`. The URL is rules_proxy.py: it serves a bootstrap document (user
# tagwarden-e2e-admin may do everything) while the test creates its tables, then forwards every
# fetch to the rules URL under test, so Trino reads the real document on every refresh and sees
# its outages as they are (502 when the upstream is down). See README.md.
#
# The rules URL under test ("the daemon"):
#   TAGWARDEN_RULES_URL (or $1)  use it; otherwise a built-in stand-in serves the compiler's output
#                                for examples/demo with python3 -m http.server on loopback.
#   TAGWARDEN_E2E_CHANGE_CMD     make the daemon serve the changed policy (Confidential loses its
#                                clearance; the changed snapshot is $TAGWARDEN_E2E_CHANGED_SNAPSHOT)
#   TAGWARDEN_E2E_STOP_CMD       stop the daemon       TAGWARDEN_E2E_START_CMD  start it again
#   Each hook runs with bash -c and the TAGWARDEN_E2E_* variables of README.md exported; a hook not
#   set is a SKIP when TAGWARDEN_RULES_URL is given (the stand-in has built-in ones).
#
# Other knobs: TAGWARDEN_E2E_DIRECT=1 (no proxy, no data: Trino reads the rules URL itself; only the
#   checks that need no tables run), TAGWARDEN_CACHE, TRINO_VERSION, TRINO_JAVA_HOME, TRINO_HEAP
#   (default 1G), TAGWARDEN_E2E_WAIT (seconds to wait for a policy change / recovery, default 30),
#   TAGWARDEN_E2E_OUTAGE_OBSERVE (seconds to watch an outage, default 6), TAGWARDEN_BIN,
#   TAGWARDEN_BUILD_DIR, TAGWARDEN_E2E_SKIP_BUILD=1, TAGWARDEN_E2E_KEEP=1 (keep the work dir).
#
# Output: PASS/FAIL/SKIP/INFO lines, the total duration, and last `trino-e2e: N passed, M failed`.
# Exit status: 0 when nothing failed.
#
# Sourcing the file defines the functions without running anything (set E2E_WORK to a directory
# and `trap e2e_cleanup EXIT` first): e2e_start_trino DIST RULES, e2e_query USER SQL,
# expect_rows / expect_denied / wait_until / observe, e2e_static_*, e2e_demo_setup_sql,
# e2e_demo_checks -- see README.md.
set -euo pipefail

E2E_HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
E2E_ROOT="$(cd "$E2E_HERE/../.." && pwd)"

TRINO_VERSION="${TRINO_VERSION:-483}"
TRINO_HEAP="${TRINO_HEAP:-1G}"
E2E_WAIT="${TAGWARDEN_E2E_WAIT:-30}"
E2E_OBSERVE="${TAGWARDEN_E2E_OUTAGE_OBSERVE:-6}"
E2E_START_TIMEOUT="${TAGWARDEN_E2E_START_TIMEOUT:-240}"
E2E_QUERY_TIMEOUT="${TAGWARDEN_E2E_QUERY_TIMEOUT:-30}"
E2E_ADMIN=tagwarden-e2e-admin     # the only user of the bootstrap document
if [ -n "${TRINO_JAVA_HOME:-}" ]; then E2E_JAVA="$TRINO_JAVA_HOME/bin/java"
elif [ -d /usr/lib/jvm/temurin-25-jdk-amd64 ]; then E2E_JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
else E2E_JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"; fi

E2E_PASSED=0
E2E_FAILED=0
E2E_PIDS=()          # every background process this script started
E2E_WORK=""
TRINO_PID=""
E2E_TRINO_GRACE=10
TRINO_URL=""
PROXY_PID=""
PROXY_URL=""
STATIC_PID=""
STATIC_PORT=""

# ---------------------------------------------------------------------------------------------
# reporting

e2e_pass() { E2E_PASSED=$((E2E_PASSED + 1)); echo "PASS $*"; }
e2e_fail() { E2E_FAILED=$((E2E_FAILED + 1)); echo "FAIL $*"; }
e2e_skip() { echo "SKIP $*"; }
e2e_info() { echo "INFO $*"; }
e2e_now() { date +%s.%N; }
e2e_since() { awk -v a="$1" -v b="$(e2e_now)" 'BEGIN { printf "%.1f", b - a }'; }

# ---------------------------------------------------------------------------------------------
# processes

e2e_free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

e2e_stop_pid() {  # PID [GRACE_SECONDS]: TERM, wait (10 s), then KILL; only ever a PID we started
    local pid="$1" grace="${2:-10}" i
    [ -n "$pid" ] || return 0
    kill -0 "$pid" 2>/dev/null || return 0
    kill -TERM "$pid" 2>/dev/null || true
    for i in $(seq 1 $((grace * 10))); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        kill -KILL "$pid" 2>/dev/null || true
    fi
    wait "$pid" 2>/dev/null || true
}

e2e_cleanup() {
    local pid
    set +e
    for pid in "${E2E_PIDS[@]}"; do
        if [ "$pid" = "$TRINO_PID" ]; then
            e2e_stop_pid "$pid" "$E2E_TRINO_GRACE"
        else
            e2e_stop_pid "$pid"
        fi
    done
    E2E_PIDS=()
    if [ -n "$E2E_WORK" ] && [ -d "$E2E_WORK" ]; then
        if [ "${TAGWARDEN_E2E_KEEP:-0}" = 1 ]; then
            echo "INFO work dir kept: $E2E_WORK"
        else
            rm -rf "$E2E_WORK"
        fi
    fi
    E2E_WORK=""
}

e2e_wait_port_file() {  # FILE PID SECONDS
    local i
    for i in $(seq 1 $(($3 * 10))); do
        [ -s "$1" ] && return 0
        kill -0 "$2" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}

e2e_wait_http() {  # URL PID SECONDS: until the URL answers at all
    local i
    for i in $(seq 1 $(($3 * 10))); do
        curl -s -o /dev/null --max-time 2 "$1" && return 0
        kill -0 "$2" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}

# ---------------------------------------------------------------------------------------------
# the built-in stand-in for the daemon: python3 -m http.server over a directory with rules.json

e2e_static_start() {
    [ -n "$STATIC_PORT" ] || STATIC_PORT="$(e2e_free_port)"
    python3 -m http.server "$STATIC_PORT" --bind 127.0.0.1 --directory "$E2E_WORK/static" \
        >>"$E2E_WORK/static.log" 2>&1 &
    STATIC_PID=$!
    E2E_PIDS+=("$STATIC_PID")
    e2e_wait_http "http://127.0.0.1:$STATIC_PORT/rules.json" "$STATIC_PID" 15
}

e2e_static_stop() {
    e2e_stop_pid "$STATIC_PID"
    STATIC_PID=""
}

e2e_static_serve() {  # FILE: atomically replace the served document
    cp "$1" "$E2E_WORK/static/.rules.json.tmp"
    mv "$E2E_WORK/static/.rules.json.tmp" "$E2E_WORK/static/rules.json"
}

# ---------------------------------------------------------------------------------------------
# Trino

e2e_start_trino() {  # DIST_DIR RULES_URL_OR_PATH
    local dist="$1" rules="$2" port inst t0 line i
    port="$(e2e_free_port)"
    inst="$E2E_WORK/trino"
    mkdir -p "$inst/etc/catalog" "$inst/data"
    cat >"$inst/etc/node.properties" <<EOF
node.environment=test
node.id=tagwarden-e2e
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
    # 2 cores, other work running: small heap, C1 only (short-lived server), few GC threads.
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
    # Class-data sharing: the first run writes the archive at exit (which takes a while, so that
    # run's Trino gets more time to stop), later runs start faster.
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
    cat >"$inst/etc/access-control.properties" <<EOF
access-control.name=file
security.config-file=$rules
security.refresh-period=1s
EOF
    # What Trino's launcher does: jvm.config lines as JVM options, node.properties as system
    # properties (node.data-dir is the launcher's: it becomes the working directory), -Dconfig.
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
        -cp "$dist/lib/*:$dist/launcher/tagwarden-trino-launcher.jar" TagwardenTrinoMain) >"$inst/server.log" 2>&1 &
    TRINO_PID=$!
    E2E_PIDS+=("$TRINO_PID")
    TRINO_URL="http://127.0.0.1:$port"
    for i in $(seq 1 $((E2E_START_TIMEOUT * 2))); do
        if curl -s --max-time 2 "$TRINO_URL/v1/info" 2>/dev/null | grep -q '"starting":false'; then
            E2E_TRINO_STARTUP="$(e2e_since "$t0")"
            e2e_info "Trino $TRINO_VERSION up at $TRINO_URL in ${E2E_TRINO_STARTUP}s (pid $TRINO_PID, heap $TRINO_HEAP)"
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
# queries and checks

E2E_Q_RC=0
E2E_Q_OUT=""
e2e_query() {  # USER SQL -> E2E_Q_RC (0 rows, 1 query error, 2 transport), E2E_Q_OUT (one line)
    set +e
    E2E_Q_OUT="$(python3 "$E2E_HERE/trino_client.py" --server "$TRINO_URL" --user "$1" \
        --timeout "$E2E_QUERY_TIMEOUT" "$2")"
    E2E_Q_RC=$?
    set -e
}

e2e_is_denied() { [ "$E2E_Q_RC" = 1 ] && [[ "$E2E_Q_OUT" == "ERROR PERMISSION_DENIED: Access Denied"* ]]; }

expect_rows() {  # NAME USER SQL EXPECTED_JSON_ROWS
    e2e_query "$2" "$3"
    if [ "$E2E_Q_RC" = 0 ] && [ "$E2E_Q_OUT" = "OK $4" ]; then
        e2e_pass "$1 [$2] $3 -> $4"
    else
        e2e_fail "$1 [$2] $3 -> expected OK $4, got: $E2E_Q_OUT"
    fi
}

expect_denied() {  # NAME USER SQL
    e2e_query "$2" "$3"
    if e2e_is_denied; then
        e2e_pass "$1 [$2] $3 -> ${E2E_Q_OUT#ERROR PERMISSION_DENIED: }"
    else
        e2e_fail "$1 [$2] $3 -> expected Access Denied, got: $E2E_Q_OUT"
    fi
}

expect_line() {  # NAME USER SQL EXPECTED_OUTPUT_LINE: the one-line answer exactly (rows or error text)
    e2e_query "$2" "$3"
    if [ "$E2E_Q_OUT" = "$4" ]; then
        e2e_pass "$1 [$2] $3 -> $4"
    else
        e2e_fail "$1 [$2] $3 -> expected $4, got: $E2E_Q_OUT"
    fi
}

# wait_until NAME USER SQL EXPECTED_OUTPUT_LINE [SECONDS]: poll every 0.5 s until the query's
# one-line answer (see trino_client.py) equals EXPECTED; PASS with the time it took, else FAIL.
wait_until() {
    local name="$1" user="$2" sql="$3" want="$4" secs="${5:-$E2E_WAIT}" t0 deadline
    t0="$(e2e_now)"
    deadline=$(($(date +%s) + secs))
    while :; do
        e2e_query "$user" "$sql"
        if [ "$E2E_Q_OUT" = "$want" ]; then
            e2e_pass "$name [$user] $sql -> $want after $(e2e_since "$t0")s"
            return 0
        fi
        if [ "$(date +%s)" -ge "$deadline" ]; then
            e2e_fail "$name [$user] $sql -> expected '$want' within ${secs}s, last: $E2E_Q_OUT"
            return 1
        fi
        sleep 0.5
    done
}

# observe SECONDS USER SQL: poll every 0.5 s and print each distinct answer with its count and
# first/last time (seconds from the start). E2E_OBSERVE_LOG: one "SECONDS<TAB>ANSWER" line a poll.
E2E_OBSERVE_LOG=""
observe() {
    local secs="$1" user="$2" sql="$3" t0 deadline log
    t0="$(e2e_now)"
    deadline=$(($(date +%s) + secs))
    log="$E2E_WORK/observe.$(date +%s%N).log"
    E2E_OBSERVE_LOG="$log"
    : >"$log"
    while [ "$(date +%s)" -lt "$deadline" ]; do
        e2e_query "$user" "$sql"
        printf '%s\t%s\n' "$(e2e_since "$t0")" "$E2E_Q_OUT" >>"$log"
        sleep 0.5
    done
    awk -F'\t' '{ if (!($2 in n)) { order[++k] = $2; first[$2] = $1 } n[$2]++; last[$2] = $1 }
        END { for (i = 1; i <= k; i++) printf "INFO   %dx (t=%ss..%ss): %s\n", n[order[i]], first[order[i]], last[order[i]], order[i] }' "$log"
}

run_hook() {  # NAME ENV_VAR BUILTIN_FUNCTION: returns 0 ran, 1 failed, 2 skipped
    local name="$1" cmd="${!2:-}" builtin="$3"
    if [ -n "$cmd" ]; then
        e2e_info "$name: running \$$2"
        if bash -c "$cmd"; then return 0; fi
        e2e_fail "$name: \$$2 exited non-zero"
        return 1
    fi
    if [ -z "${TAGWARDEN_RULES_URL:-}" ]; then
        "$builtin"
        return 0
    fi
    e2e_skip "$name: \$$2 not set for TAGWARDEN_RULES_URL=$TAGWARDEN_RULES_URL"
    return 2
}

# ---------------------------------------------------------------------------------------------
# the demo documents

e2e_changed_snapshot() {  # IN OUT: the demo snapshot with Confidential's clearance removed
    python3 - "$1" "$2" <<'PY'
import re, sys
src, dst = sys.argv[1], sys.argv[2]
lines = open(src).read().split("\n")
out, i, done = [], 0, False
while i < len(lines):
    line = lines[i]
    out.append(line)
    if not done and re.match(r"^\s*- name: Confidential\s*(#.*)?$", line):
        item_indent = len(line) - len(line.lstrip()) + 2
        i += 1
        while i < len(lines):
            l = lines[i]
            ind = len(l) - len(l.lstrip())
            if l.strip() and ind < item_indent:
                break
            m = re.match(r"^(\s*)clearance:\s*(#.*)?$", l)
            if m and ind == item_indent:
                out.append(m.group(1) + "clearance: []")
                i += 1
                while i < len(lines) and (not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > ind):
                    i += 1
                done = True
                continue
            out.append(l)
            i += 1
        continue
    i += 1
if not done:
    sys.exit("no 'clearance:' list under '- name: Confidential' in " + src)
open(dst, "w").write("\n".join(out))
PY
}

e2e_compile() {  # SNAPSHOT OUTDIR
    "$TAGWARDEN_BIN" compile --snapshot "$1" --config "$E2E_CONFIG" --out "$2" >"$2.log" 2>&1 || {
        cat "$2.log" >&2
        return 1
    }
}

# ---------------------------------------------------------------------------------------------
# the demo's tables and checks (also run by tests/trino-e2e-opa/run.sh, through Trino's OPA access control)

e2e_demo_setup_sql() {  # the statements creating the demo's tables, one a line
    cat <<'SQL'
CREATE SCHEMA demo_warehouse.finance
CREATE SCHEMA demo_warehouse.sales
CREATE TABLE demo_warehouse.finance.invoices (id bigint, customer_id bigint, amount double)
INSERT INTO demo_warehouse.finance.invoices VALUES (1, 10, 120.0), (2, 10, 80.5), (3, 11, 42.0)
CREATE TABLE demo_warehouse.finance.customers (id bigint, name varchar, iban varchar)
INSERT INTO demo_warehouse.finance.customers VALUES (10, 'Acme GmbH', 'DE89370400440532013000'), (11, 'Globex', 'FR1420041010050500013M02606')
CREATE TABLE demo_warehouse.sales.orders (id bigint, region varchar)
INSERT INTO demo_warehouse.sales.orders VALUES (100, 'emea'), (101, 'amer')
SQL
}

e2e_demo_checks() {  # the demo's checks (examples/demo, profile trino_main), on the tables of e2e_demo_setup_sql
    local inv="SELECT count(*) FROM demo_warehouse.finance.invoices"
    expect_denied "Confidential table, no clearance" member-sso "$inv"
    expect_denied "Confidential table, platform admins are not exempt" platform-admin "$inv"
    expect_rows "Confidential table, cleared (data_steward)" farid.haddad "$inv" '[[3]]'
    expect_denied "Confidential table, data_steward only through a group" grace.lee "$inv"
    expect_denied "Confidential table, expired data_steward" jo.kim "$inv"
    expect_rows "Internal table, untagged columns" member-sso \
        "SELECT id, name FROM demo_warehouse.finance.customers ORDER BY id" '[[10,"Acme GmbH"],[11,"Globex"]]'
    expect_denied "PII column, no clearance" member-sso "SELECT iban FROM demo_warehouse.finance.customers"
    expect_denied "write, SELECT-only grant" member-sso "INSERT INTO demo_warehouse.finance.customers VALUES (9, 'x', 'y')"
    expect_rows "Public table, analyst" platform-admin "SELECT count(*) FROM demo_warehouse.sales.orders" '[[2]]'
    expect_rows "Public table, owner etl_svc" etl_svc "SELECT count(*) FROM demo_warehouse.sales.orders" '[[2]]'
    expect_denied "unknown user" nobody "$inv"
    expect_denied "unknown user" nobody "SELECT id FROM demo_warehouse.finance.customers"
    expect_denied "unknown user" nobody "SELECT count(*) FROM demo_warehouse.sales.orders"
    expect_denied "unknown user" nobody "INSERT INTO demo_warehouse.sales.orders VALUES (1, 'x')"
    expect_denied "unknown user" nobody "SHOW TABLES FROM demo_warehouse.finance"
    expect_denied "unknown user" nobody "SELECT * FROM system.runtime.nodes"
    # listings show what the user may read: no Confidential table, no PII column
    local denied="ERROR PERMISSION_DENIED: Access Denied:" cust=demo_warehouse.finance.customers
    expect_rows "listing, no clearance" member-sso "SHOW TABLES FROM demo_warehouse.finance" '[["customers"]]'
    expect_rows "listing, admins are not exempt" platform-admin "SHOW TABLES FROM demo_warehouse.finance" '[["customers"]]'
    expect_rows "listing, cleared" farid.haddad "SHOW TABLES FROM demo_warehouse.finance" '[["customers"],["invoices"]]'
    expect_rows "listing, PII column hidden" member-sso "SHOW COLUMNS FROM $cust" '[["id","bigint","",""],["name","varchar","",""]]'
    expect_rows "listing, information_schema" member-sso \
        "SELECT table_name, column_name FROM demo_warehouse.information_schema.columns WHERE table_schema = 'finance' ORDER BY 1, 2" \
        '[["customers","id"],["customers","name"]]'
    expect_line "SELECT * names the PII column" member-sso "SELECT * FROM $cust" "$denied Cannot select from table $cust"
    expect_line "a predicate on the PII column" member-sso "SELECT count(*) FROM $cust WHERE iban LIKE 'DE%'" \
        "$denied Cannot select from table $cust"
    # withhold_writes: etl_svc holds every privilege on demo_warehouse.*.* and no clearance
    expect_line "withhold_writes: no INSERT into a table with a gated column" etl_svc \
        "INSERT INTO $cust SELECT 9, 'x', 'y' WHERE false" "$denied Cannot insert into table $cust"
    expect_line "withhold_writes: no DELETE" etl_svc "DELETE FROM $cust WHERE false" "$denied Cannot delete from table $cust"
    expect_line "withhold_writes: no UPDATE" etl_svc "UPDATE $cust SET name = 'x' WHERE false" \
        "$denied Cannot update columns [name] in table $cust"
    expect_line "writes stay on ungated tables" etl_svc "INSERT INTO demo_warehouse.sales.orders SELECT 1, 'x' WHERE false" 'OK [[0]]'
    expect_line "a cleared writer may insert" farid.haddad "INSERT INTO $cust SELECT 9, 'x', 'y' WHERE false" 'OK [[0]]'
    expect_line "an expired writer may not" jo.kim "INSERT INTO demo_warehouse.finance.invoices SELECT 9, 1, 1.0 WHERE false" \
        "$denied Cannot insert into table demo_warehouse.finance.invoices"
    # restrict_materialized_views: not cleared for every gated tag = no new tables, views or MVs
    expect_line "restrict_materialized_views: CREATE TABLE" etl_svc "CREATE TABLE demo_warehouse.sales.new_t (id bigint)" \
        "$denied Cannot create table demo_warehouse.sales.new_t"
    expect_line "restrict_materialized_views: CTAS" etl_svc "CREATE TABLE demo_warehouse.sales.new_t AS SELECT 1 AS id" \
        "$denied Cannot create table demo_warehouse.sales.new_t"
    expect_line "restrict_materialized_views: CREATE VIEW" etl_svc "CREATE VIEW demo_warehouse.sales.new_v AS SELECT 1 AS id" \
        "$denied Cannot create view demo_warehouse.sales.new_v"
    expect_line "restrict_materialized_views: CREATE MATERIALIZED VIEW" etl_svc \
        "CREATE MATERIALIZED VIEW demo_warehouse.sales.new_mv AS SELECT 1 AS id" \
        "$denied Cannot create materialized view demo_warehouse.sales.new_mv"
}

# ---------------------------------------------------------------------------------------------
# main

e2e_main() {
    local dist t0 base_rules changed_rules upstream rules_for_trino
    trap e2e_cleanup EXIT
    trap 'exit 130' INT TERM
    [ $# -ge 1 ] && [ -n "$1" ] && TAGWARDEN_RULES_URL="$1"
    local direct="${TAGWARDEN_E2E_DIRECT:-0}"

    E2E_WORK="$(mktemp -d "${TMPDIR:-/tmp}/tagwarden-trino-e2e.XXXXXX")"
    mkdir -p "$E2E_WORK/static"

    # 1. the Trino server
    t0="$(e2e_now)"
    dist="$("$E2E_HERE/fetch_trino.sh")" || { e2e_fail "fetch Trino $TRINO_VERSION"; return 1; }
    e2e_info "Trino $TRINO_VERSION server at $dist (ready in $(e2e_since "$t0")s)"

    # 2. the documents: the demo snapshot and a changed copy (Confidential without clearance)
    E2E_CONFIG="$E2E_ROOT/examples/demo/profiles.yaml"
    local snapshot="$E2E_ROOT/examples/demo/snapshot.yaml"
    e2e_changed_snapshot "$snapshot" "$E2E_WORK/snapshot-changed.yaml" || { e2e_fail "changed snapshot"; return 1; }
    export TAGWARDEN_E2E_WORK="$E2E_WORK" TAGWARDEN_E2E_BASE_SNAPSHOT="$snapshot" \
        TAGWARDEN_E2E_CHANGED_SNAPSHOT="$E2E_WORK/snapshot-changed.yaml" TAGWARDEN_E2E_CONFIG="$E2E_CONFIG"

    if [ -z "${TAGWARDEN_RULES_URL:-}" ]; then
        TAGWARDEN_BIN="${TAGWARDEN_BIN:-${TAGWARDEN_BUILD_DIR:-$E2E_ROOT/build}/tagwarden}"
        if [ "${TAGWARDEN_E2E_SKIP_BUILD:-0}" != 1 ]; then
            t0="$(e2e_now)"
            local bdir="${TAGWARDEN_BUILD_DIR:-$E2E_ROOT/build}"
            { timeout 1800 cmake -S "$E2E_ROOT" -B "$bdir" -G Ninja && timeout 1800 cmake --build "$bdir" --parallel 2; } \
                >"$E2E_WORK/build.log" 2>&1 || { tail -40 "$E2E_WORK/build.log" >&2; e2e_fail "build tagwarden"; return 1; }
            e2e_info "tagwarden built in $(e2e_since "$t0")s"
        fi
        e2e_compile "$snapshot" "$E2E_WORK/out-base" || { e2e_fail "compile the demo"; return 1; }
        e2e_compile "$E2E_WORK/snapshot-changed.yaml" "$E2E_WORK/out-changed" || { e2e_fail "compile the changed demo"; return 1; }
        base_rules="$E2E_WORK/out-base/trino_main/rules.json"
        changed_rules="$E2E_WORK/out-changed/trino_main/rules.json"
        if cmp -s "$base_rules" "$changed_rules"; then
            e2e_fail "compile: the changed snapshot compiles to the same rules"
            return 1
        fi
        e2e_static_serve "$base_rules"
        e2e_static_start || { e2e_fail "static rules server did not start"; return 1; }
        upstream="http://127.0.0.1:$STATIC_PORT/rules.json"
        e2e_info "stand-in daemon: $upstream (python3 -m http.server, pid $STATIC_PID)"
    else
        upstream="$TAGWARDEN_RULES_URL"
        e2e_info "rules URL under test: $upstream"
    fi
    export TAGWARDEN_E2E_UPSTREAM="$upstream"

    # 3. the rules URL Trino reads: the proxy (bootstrap first), or the upstream itself
    if [ "$direct" = 1 ]; then
        rules_for_trino="$upstream"
    else
        cat >"$E2E_WORK/bootstrap.json" <<EOF
{"catalogs": [{"user": "^$E2E_ADMIN\$", "allow": "all"}, {"allow": "none"}],
 "schemas": [{"user": "^$E2E_ADMIN\$", "owner": true}],
 "tables": [{"user": "^$E2E_ADMIN\$", "privileges": ["SELECT", "INSERT", "DELETE", "UPDATE", "OWNERSHIP"]}]}
EOF
        python3 "$E2E_HERE/rules_proxy.py" --port-file "$E2E_WORK/proxy.port" \
            --bootstrap "$E2E_WORK/bootstrap.json" --upstream "$upstream" 2>"$E2E_WORK/proxy.log" &
        PROXY_PID=$!
        E2E_PIDS+=("$PROXY_PID")
        e2e_wait_port_file "$E2E_WORK/proxy.port" "$PROXY_PID" 15 || { e2e_fail "rules proxy did not start"; return 1; }
        PROXY_URL="http://127.0.0.1:$(cat "$E2E_WORK/proxy.port")"
        rules_for_trino="$PROXY_URL/rules.json"
        e2e_info "rules proxy: $rules_for_trino -> bootstrap, then $upstream"
    fi

    e2e_start_trino "$dist" "$rules_for_trino" || { e2e_fail "Trino startup"; return 1; }
    export TAGWARDEN_E2E_TRINO_URL="$TRINO_URL"

    local probe_user=member-sso probe_sql probe_ok
    if [ "$direct" != 1 ]; then
        # 4. data, as the bootstrap admin
        local stmt setup_ok=1
        while IFS= read -r stmt; do
            [ -n "$stmt" ] || continue
            e2e_query "$E2E_ADMIN" "$stmt"
            [ "$E2E_Q_RC" = 0 ] || { e2e_fail "setup: $stmt -> $E2E_Q_OUT"; setup_ok=0; }
        done < <(e2e_demo_setup_sql)
        # the access-policy table (policy_checks.py): created now, checked in step 8
        while IFS= read -r stmt; do
            [ -n "$stmt" ] || continue
            e2e_query "$E2E_ADMIN" "$stmt"
            [ "$E2E_Q_RC" = 0 ] || { e2e_fail "setup: $stmt -> $E2E_Q_OUT"; setup_ok=0; }
        done < <(python3 "$E2E_HERE/policy_checks.py" setup-sql)
        [ "$setup_ok" = 1 ] && e2e_pass "setup: 4 schemas, 8 tables, 5 views, 25 rows created as $E2E_ADMIN under the bootstrap rules"
        curl -s --max-time 5 -X POST "$PROXY_URL/_control/switch" >/dev/null
        # Trino refreshes at most every 1 s, on the first check after that: once the bootstrap
        # admin is refused, the upstream document is the one in force.
        # member-sso is refused invoices with this exact message only by the rules under test
        # (the bootstrap rules refuse her the whole catalog; compiled rules refuse unknown users the catalog too).
        wait_until "switch to the rules under test" member-sso \
            "SELECT count(*) FROM demo_warehouse.finance.invoices" \
            "ERROR PERMISSION_DENIED: Access Denied: Cannot select from table demo_warehouse.finance.invoices" 15 \
            || { e2e_info "proxy status: $(curl -s --max-time 5 "$PROXY_URL/_control/status")"; }

        # 5. the rules as compiled for examples/demo
        e2e_demo_checks
    fi
    expect_rows "catalogs visible" member-sso "SHOW CATALOGS" '[["demo_warehouse"],["system"]]'
    e2e_query nobody "SHOW CATALOGS"
    e2e_info "[nobody] SHOW CATALOGS -> $E2E_Q_OUT (not checked)"

    # 6. policy change: the daemon now serves the document without Confidential's clearance
    if [ "$direct" = 1 ]; then
        probe_sql="SHOW CATALOGS"
        probe_ok='OK [["demo_warehouse"],["system"]]'
        e2e_skip "policy change: needs the tables (TAGWARDEN_E2E_DIRECT=1)"
    else
        probe_sql="SELECT count(*) FROM demo_warehouse.finance.invoices"
        probe_ok='OK [[3]]'
        local rc=0
        run_hook "policy change" TAGWARDEN_E2E_CHANGE_CMD e2e_builtin_change || rc=$?
        if [ "$rc" = 0 ]; then
            wait_until "policy change reaches Trino" "$probe_user" "$probe_sql" "$probe_ok"
            expect_denied "policy change keeps PII gated" member-sso "SELECT iban FROM demo_warehouse.finance.customers"
        fi
    fi

    # 7. the rules URL goes down, then comes back
    local rc=0
    run_hook "upstream stop" TAGWARDEN_E2E_STOP_CMD e2e_builtin_stop || rc=$?
    if [ "$rc" = 0 ]; then
        e2e_info "rules URL down: [$probe_user] $probe_sql every 0.5 s for ${E2E_OBSERVE}s:"
        observe "$E2E_OBSERVE" "$probe_user" "$probe_sql"
        [ -n "$PROXY_URL" ] && e2e_info "proxy status: $(curl -s --max-time 5 "$PROXY_URL/_control/status")"
        # Trino must not answer from rules it can no longer read (it fails closed) once its last
        # fetch is older than the refresh period (1 s; 2 s allows for a query in flight) ...
        if awk -F'\t' -v ok="$probe_ok" '$1 >= 2.0 && $2 == ok { found = 1 } END { exit !found }' "$E2E_OBSERVE_LOG"; then
            e2e_fail "outage: Trino still answered '$probe_ok' more than 2 s after the rules URL went down"
        else
            e2e_pass "outage: no query answered from stale rules while the rules URL was down"
        fi
        # ... and refuses with a clear error rather than hanging.
        if [ "$E2E_Q_RC" = 1 ]; then
            e2e_pass "outage: queries fail with: ${E2E_Q_OUT#ERROR }"
        else
            e2e_fail "outage: expected a query error, last answer: $E2E_Q_OUT"
        fi
        rc=0
        run_hook "upstream start" TAGWARDEN_E2E_START_CMD e2e_builtin_start || rc=$?
        if [ "$rc" = 0 ]; then
            wait_until "recovery after the rules URL is back" "$probe_user" "$probe_sql" "$probe_ok"
        fi
    fi

    # 8. access policies: masks, row filters and deny on demo_warehouse.hr.employees
    if [ "$direct" = 1 ]; then
        e2e_skip "access policies: need the tables (TAGWARDEN_E2E_DIRECT=1)"
    else
        e2e_policy_phase || true
    fi

    if [ "$E2E_FAILED" -gt 0 ] && [ -n "$TRINO_URL" ]; then
        echo "--- last Trino log lines ---"
        sed 's/\x1b\[[0-9;]*m//g' "$E2E_WORK/trino/server.log" | grep -v 'RemoteNodeMemory\|QueryMonitor\|Refreshing system access' | tail -20
    fi
}

# e2e_policy_phase: the proxy serves the rules compiled (by the CLI) from policy_checks.py's
# snapshot; policy_checks.py runs every user's queries and compares the exact rows with what it
# computes itself. Then the checks must fail on the same rules with the masks removed, and with
# the filters removed (the test can fail).
e2e_policy_phase() {
    local dir="$E2E_WORK/policies" served out line n m bin
    bin="${TAGWARDEN_BIN:-${TAGWARDEN_BUILD_DIR:-$E2E_ROOT/build}/tagwarden}"
    mkdir -p "$dir"
    python3 "$E2E_HERE/policy_checks.py" snapshot "$dir/snapshot.json" || { e2e_fail "policies: snapshot"; return 1; }
    "$bin" compile --snapshot "$dir/snapshot.json" --config "$E2E_CONFIG" --out "$dir/out" >"$dir/compile.log" 2>&1 || {
        cat "$dir/compile.log" >&2
        e2e_fail "policies: compile with $bin"
        return 1
    }
    served="$dir/served.json"
    cp "$dir/out/trino_main/rules.json" "$served"
    out="$(curl -s --max-time 5 -X POST --data-binary "$served" "$PROXY_URL/_control/file")"
    e2e_info "policies: proxy $out"
    local count="SELECT count(*) FROM demo_warehouse.hr.employees"
    wait_until "policies: rules in force" hr-admin "$count" 'OK [[9]]' 15 || return 1

    out="$(python3 "$E2E_HERE/policy_checks.py" check --server "$TRINO_URL" 2>&1)" || true
    printf '%s\n' "$out" | grep -v '^policy-checks:' || true
    line="$(printf '%s\n' "$out" | grep '^policy-checks:' | tail -1)"
    if [[ "$line" =~ ^policy-checks:\ ([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
        n="${BASH_REMATCH[1]}" m="${BASH_REMATCH[2]}"
        E2E_PASSED=$((E2E_PASSED + n)) E2E_FAILED=$((E2E_FAILED + m))
        e2e_info "policies: $n passed, $m failed"
        [ "$n" -gt 0 ] || e2e_fail "policies: no check ran"
    else
        e2e_fail "policies: policy_checks.py printed no summary: $(printf '%s' "$out" | tail -3)"
    fi

    # Self-check: the same checks against the rules with one kind of policy removed must fail.
    local what probe want
    for what in masks filters grant_select; do
        python3 "$E2E_HERE/policy_checks.py" mutate "$what" "$dir/out/trino_main/rules.json" "$served" >/dev/null \
            || { e2e_fail "policies self-check: mutate $what"; continue; }
        if [ "$what" = grant_select ]; then
            # Without GRANT_SELECT for its owner the DEFINER view is refused to every other reader.
            probe="SELECT count(*) FROM demo_warehouse.hr.directory"
            want="ERROR PERMISSION_DENIED: Access Denied: View owner does not have sufficient privileges: View owner 'tagwarden-e2e-admin' cannot create view that selects from demo_warehouse.hr.employees"
        elif [ "$what" = masks ]; then
            probe="SELECT ssn FROM demo_warehouse.hr.employees WHERE id = 1" want='OK [["123-45-6789"]]'
        else
            probe="$count" want='OK [[9]]'
        fi
        wait_until "policies self-check: $what removed are in force" ann.eu "$probe" "$want" 15 || continue
        line="$(python3 "$E2E_HERE/policy_checks.py" check --quiet --server "$TRINO_URL" 2>&1 | tail -1)" || true
        if [[ "$line" =~ ^policy-checks:\ ([0-9]+)\ passed,\ ([1-9][0-9]*)\ failed$ ]]; then
            e2e_pass "policies self-check: with the $what removed the checks fail (${BASH_REMATCH[2]} failed)"
        else
            e2e_fail "policies self-check: with the $what removed the checks still pass: $line"
        fi
    done
}

e2e_builtin_change() { e2e_static_serve "$E2E_WORK/out-changed/trino_main/rules.json"; e2e_info "stand-in now serves the changed rules"; }
e2e_builtin_stop() { e2e_static_stop; e2e_info "stand-in stopped"; }
e2e_builtin_start() {
    e2e_static_start || { e2e_fail "stand-in did not restart on port $STATIC_PORT"; return 1; }
    e2e_info "stand-in restarted on port $STATIC_PORT (pid $STATIC_PID)"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    E2E_T_START="$(e2e_now)"
    rc=0
    e2e_main "$@" || rc=$?
    [ "$rc" = 0 ] || [ "$E2E_FAILED" -gt 0 ] || E2E_FAILED=1
    e2e_cleanup
    echo "trino-e2e: total $(e2e_since "$E2E_T_START")s${E2E_TRINO_STARTUP:+ (Trino startup ${E2E_TRINO_STARTUP}s)}, shutdown included"
    echo "trino-e2e: $E2E_PASSED passed, $E2E_FAILED failed"
    [ "$E2E_FAILED" = 0 ]
fi

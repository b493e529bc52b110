#!/usr/bin/env bash
# Integration tests of the StarRocks applier (MySQL dialect) against a private
# MariaDB: started here on a free loopback port with its own datadir and
# socket in a temp dir, grant tables on, stopped on exit.
#
#   tests/starrocks/run_mariadb.sh [BUILD_DIR]      (default: build-sr)
#
# Runs the Catch2 cases tagged [starrocks-mariadb] (tests/unit/test_starrocks_mariadb.cpp)
# one by one, then the CLI (tagwarden plan / apply --dialect mysql), then the
# opt-in StarRocks case ([starrocks-live], SKIP unless TAGWARDEN_STARROCKS_DSN
# is set), and prints "starrocks-mariadb: N passed, M failed".
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BUILD="${1:-$ROOT/build-sr}"
UNIT="$BUILD/unit_tests"
CLI="$BUILD/tagwarden"
for bin in "$UNIT" "$CLI"; do
  [[ -x "$bin" ]] || { echo "missing $bin: build first (cmake --build $BUILD)"; exit 2; }
done
MARIADBD="$(command -v mariadbd || command -v mysqld || ls /usr/sbin/mariadbd 2>/dev/null)"
INSTALL_DB="$(command -v mariadb-install-db || command -v mysql_install_db)"
CLIENT="$(command -v mariadb || command -v mysql)"
[[ -n "$MARIADBD" && -n "$INSTALL_DB" && -n "$CLIENT" ]] || { echo "MariaDB server/client not installed"; exit 2; }

TMP="$(mktemp -d /tmp/tw-mariadb.XXXXXX)"
PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
SOCK="$TMP/mysqld.sock"
PID=""
cleanup() {
  if [[ -n "$PID" ]] && kill -0 "$PID" 2>/dev/null; then
    kill "$PID"
    for _ in $(seq 1 50); do kill -0 "$PID" 2>/dev/null || break; sleep 0.2; done
  fi
  rm -rf "$TMP"
}
trap cleanup EXIT

RUN_AS=()
[[ "$(id -u)" == 0 ]] && RUN_AS=(--user=root)
"$INSTALL_DB" --no-defaults --datadir="$TMP/data" --auth-root-authentication-method=normal \
  --skip-test-db "${RUN_AS[@]}" >"$TMP/install.log" 2>&1 || { cat "$TMP/install.log"; exit 2; }
"$MARIADBD" --no-defaults --datadir="$TMP/data" --socket="$SOCK" --port="$PORT" --bind-address=127.0.0.1 \
  --pid-file="$TMP/mysqld.pid" --log-error="$TMP/error.log" --skip-name-resolve "${RUN_AS[@]}" &
PID=$!
for _ in $(seq 1 100); do
  "$CLIENT" --no-defaults --default-character-set=utf8mb4 -uroot --socket="$SOCK" -e 'SELECT 1' >/dev/null 2>&1 && break
  sleep 0.2
done
"$CLIENT" --no-defaults --default-character-set=utf8mb4 -uroot --socket="$SOCK" -e 'SELECT 1' >/dev/null || { cat "$TMP/error.log"; exit 2; }
echo "MariaDB $("$CLIENT" --no-defaults --default-character-set=utf8mb4 -uroot --socket="$SOCK" -N -e 'SELECT VERSION()') on 127.0.0.1:$PORT (datadir $TMP/data)"

# The applier's account, the demo objects and users, and the hostile ones.
PASSWORD="tw-test-$RANDOM$RANDOM"
"$CLIENT" --no-defaults --default-character-set=utf8mb4 -uroot --socket="$SOCK" <<SQL || exit 2
CREATE USER 'applier'@'127.0.0.1' IDENTIFIED BY '$PASSWORD';
GRANT ALL PRIVILEGES ON *.* TO 'applier'@'127.0.0.1' WITH GRANT OPTION;
CREATE DATABASE finance;
CREATE DATABASE sales;
CREATE TABLE finance.invoices (id BIGINT, customer_id BIGINT, amount DOUBLE);
CREATE TABLE finance.customers (id BIGINT, name VARCHAR(200), iban VARCHAR(64));
CREATE TABLE finance.audit_log (event VARCHAR(200));
CREATE VIEW finance.invoice_summary AS SELECT CAST(NULL AS DATE) AS month, SUM(amount) AS total FROM finance.invoices;
CREATE TABLE sales.orders (id BIGINT, region VARCHAR(16));
CREATE USER 'farid.haddad'@'%', 'member-sso'@'%', 'platform-admin'@'%', 'grace.lee'@'%', 'jo.kim'@'%',
            'ana.auditor'@'%', 'etl_svc'@'%';
CREATE DATABASE \`we\`\`ird'db_%\`;
CREATE TABLE \`we\`\`ird'db_%\`.\`t\`\`a'b%_le\` (id BIGINT, \`s\`\`e'cret\` VARCHAR(10));
CREATE DATABASE under_score;
CREATE DATABASE underXscore;
CREATE TABLE under_score.plain (id BIGINT);
CREATE USER 'o''brien'@'%', 'back\\\\slash'@'%', 'tick\`tock'@'%', '50%off'@'%', 'under_score'@'%',
            'ünïcødé'@'%', 'semi;colon --'@'%';
SQL

export TAGWARDEN_TEST_MARIADB_DSN="mysql://applier@127.0.0.1:$PORT"
export TAGWARDEN_STARROCKS_PASSWORD="$PASSWORD"
PASSED=0
FAILED=0
pass() { PASSED=$((PASSED + 1)); echo "PASS $1"; }
fail() { FAILED=$((FAILED + 1)); echo "FAIL $1"; }

# 1. The Catch2 cases, one at a time.
while IFS= read -r name; do
  [[ -z "$name" ]] && continue
  spec="${name//,/\\,}"  # a comma separates test specs in Catch2
  if "$UNIT" "$spec" >"$TMP/case.log" 2>&1 && grep -aq "All tests passed" "$TMP/case.log" \
     && ! grep -aq "SKIP" "$TMP/case.log"; then
    pass "$name ($(grep -ao '[0-9]* assertions' "$TMP/case.log"))"
    [[ -n "${TW_VERBOSE:-}" ]] && tail -5 "$TMP/case.log"
  else
    fail "$name"
    tail -40 "$TMP/case.log"
  fi
done < <("$UNIT" --list-test-names-only "[starrocks-mariadb]" | sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//')

# 2. The CLI: plan (dry run), apply, second apply runs nothing, exit codes.
"$CLIENT" --no-defaults --default-character-set=utf8mb4 -uroot --socket="$SOCK" -N -e \
  "SELECT CONCAT('DROP ROLE \`', User, '\`;') FROM mysql.user WHERE is_role='Y' AND User LIKE 'tw\\_%'" \
  | "$CLIENT" --no-defaults --default-character-set=utf8mb4 -uroot --socket="$SOCK"
BASE=(--snapshot "$ROOT/examples/demo/snapshot.yaml" --config "$ROOT/examples/demo/starrocks-profiles.yaml"
      --profile starrocks_main --dialect mysql)
ARGS=("${BASE[@]}" --dsn "$TAGWARDEN_TEST_MARIADB_DSN")
"$CLI" plan "${ARGS[@]}" >"$TMP/plan.sql" 2>&1
rc=$?; n=$(grep -c '^GRANT\|^CREATE ROLE' "$TMP/plan.sql")
[[ $rc == 0 && $n -gt 0 ]] && pass "cli: plan --dsn prints $n statements, runs none" || { fail "cli: plan (rc $rc)"; cat "$TMP/plan.sql"; }
roles=$("$CLIENT" --no-defaults --default-character-set=utf8mb4 -uroot --socket="$SOCK" -N -e "SELECT COUNT(*) FROM mysql.user WHERE is_role='Y' AND User LIKE 'tw\\_%'")
[[ "$roles" == 0 ]] && pass "cli: plan changed nothing" || fail "cli: plan created $roles roles"
"$CLI" plan "${ARGS[@]}" --output json >"$TMP/plan.json" 2>"$TMP/plan-json.err"
rc=$?; [[ $rc == 0 ]] && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["profile"] == "starrocks_main" and d["statements"] and all(s["phase"] for s in d["statements"])' "$TMP/plan.json" \
  && pass "cli: plan --dsn --output json is one JSON document with the statements" || { fail "cli: plan --output json (rc $rc)"; cat "$TMP/plan.json" "$TMP/plan-json.err"; }
# plan --dsn shows what apply would run: both refuse masking on against a server without masking policies.
"$CLI" plan "${ARGS[@]}" --masking on >"$TMP/plan-on.log" 2>&1
rc_plan=$?
"$CLI" apply "${ARGS[@]}" --masking on >"$TMP/apply-on.log" 2>&1
rc_apply=$?
[[ $rc_plan == 2 && $rc_apply == 2 ]] && grep -q "does not implement masking policies" "$TMP/plan-on.log" \
  && pass "cli: plan --dsn and apply both refuse --masking on without masking policies (exit 2)" \
  || { fail "cli: --masking on (plan rc $rc_plan, apply rc $rc_apply)"; cat "$TMP/plan-on.log" "$TMP/apply-on.log"; }
"$CLI" apply "${ARGS[@]}" >"$TMP/apply1.log" 2>&1
rc=$?; [[ $rc == 0 ]] && grep -q "^applied profile starrocks_main" "$TMP/apply1.log" && pass "cli: apply (exit 0)" || { fail "cli: apply (rc $rc)"; cat "$TMP/apply1.log"; }
# etl_svc owns demo_warehouse.*.* and is not cleared for every gated tag: on this dialect (no
# materialized views) it keeps CREATE and CREATE VIEW on the databases, through its owned roles.
etl_creates=$("$CLIENT" --no-defaults --default-character-set=utf8mb4 -uroot --socket="$SOCK" -N -e "WITH RECURSIVE r(role) AS (
  SELECT Role FROM mysql.roles_mapping WHERE User = 'etl_svc' AND Host = '%'
  UNION SELECT m.Role FROM mysql.roles_mapping m JOIN r ON m.User = r.role AND m.Host = '')
  SELECT COUNT(DISTINCT d.Db) FROM mysql.db d JOIN r ON d.User = r.role AND d.Host = ''
  WHERE d.Db IN ('finance', 'sales') AND d.Create_priv = 'Y' AND d.Create_view_priv = 'Y'")
[[ "$etl_creates" == 2 ]] && pass "cli: the restricted owner etl_svc may create tables and views in finance and sales" \
  || fail "cli: etl_svc creation rights ($etl_creates databases)"
"$CLI" apply "${ARGS[@]}" >"$TMP/apply2.log" 2>&1
rc=$?; grep -q ": 0 of 0 planned statements ran" "$TMP/apply2.log" && [[ $rc == 0 ]] && pass "cli: second apply runs nothing" || { fail "cli: second apply (rc $rc)"; cat "$TMP/apply2.log"; }
"$CLIENT" --no-defaults --default-character-set=utf8mb4 -uroot --socket="$SOCK" -e "GRANT SELECT ON finance.invoices TO 'member-sso'@'%'"
"$CLI" apply "${ARGS[@]}" --fail-on-drift --output json >"$TMP/apply3.json" 2>&1
rc=$?; [[ $rc == 1 ]] && grep -q 'GRANT SELECT ON `finance`.`invoices` TO '"'"'member-sso'"'"'@'"'"'%'"'" "$TMP/apply3.json" \
  && pass "cli: drift reported with the exact grant (exit 1 with --fail-on-drift)" || { fail "cli: drift (rc $rc)"; cat "$TMP/apply3.json"; }
"$CLIENT" --no-defaults --default-character-set=utf8mb4 -uroot --socket="$SOCK" -e "REVOKE SELECT ON finance.invoices FROM 'member-sso'@'%'"
# Grants reaching users through PUBLIC and through a role granted to a role are drift too, reported
# for the users they reach and never revoked (MariaDB refuses role cycles; the unit tests have one).
"$CLIENT" --no-defaults --default-character-set=utf8mb4 -uroot --socket="$SOCK" <<'SQL'
GRANT SELECT ON finance.invoices TO PUBLIC;
CREATE ROLE test_foreign_role;
GRANT SELECT ON finance.invoices TO test_foreign_role;
CREATE ROLE test_outer_r;
GRANT test_foreign_role TO test_outer_r;
GRANT test_outer_r TO 'etl_svc'@'%';
SQL
"$CLI" plan "${ARGS[@]}" >"$TMP/plan-public.sql" 2>&1
rc=$?
[[ $rc == 0 ]] && grep -q "GRANT SELECT ON \`finance\`.\`invoices\` TO PUBLIC (held by 'member-sso'@'%' through role PUBLIC, which every user holds) gives member-sso SELECT" "$TMP/plan-public.sql" \
  && pass "cli: plan --dsn reports a grant to PUBLIC as drift for the users it reaches" || { fail "cli: drift through PUBLIC (rc $rc)"; cat "$TMP/plan-public.sql"; }
grep -q "TO \`test_foreign_role\` (held by 'etl_svc'@'%' through roles test_outer_r -> test_foreign_role) gives etl_svc SELECT" "$TMP/plan-public.sql" \
  && pass "cli: plan --dsn reports a grant through a role granted to a role as drift" || { fail "cli: drift through nested roles"; cat "$TMP/plan-public.sql"; }
"$CLI" apply "${ARGS[@]}" --fail-on-drift >"$TMP/apply-public.log" 2>&1
rc=$?; [[ $rc == 1 ]] && pass "cli: apply --fail-on-drift exits 1 on drift through PUBLIC and nested roles" || { fail "cli: apply --fail-on-drift with nested drift (rc $rc)"; cat "$TMP/apply-public.log"; }
kept=$("$CLIENT" --no-defaults --default-character-set=utf8mb4 -uroot --socket="$SOCK" -N -e \
  "SELECT COUNT(*) FROM mysql.tables_priv WHERE User IN ('PUBLIC', 'test_foreign_role') AND Db = 'finance' AND Table_name = 'invoices'")
[[ "$kept" == 2 ]] && pass "cli: grants to PUBLIC and foreign roles are left in place" || fail "cli: foreign grants touched ($kept left)"
"$CLIENT" --no-defaults --default-character-set=utf8mb4 -uroot --socket="$SOCK" <<'SQL'
REVOKE SELECT ON finance.invoices FROM PUBLIC;
DROP ROLE test_outer_r;
DROP ROLE test_foreign_role;
SQL
"$CLI" apply "${ARGS[@]}" --fail-on-drift >"$TMP/apply-clean.log" 2>&1
rc=$?; [[ $rc == 0 ]] && pass "cli: apply --fail-on-drift exits 0 once they are gone" || { fail "cli: apply after cleanup (rc $rc)"; cat "$TMP/apply-clean.log"; }
# A hand-made role under the profile's prefix is not of an owned shape: never dropped or revoked.
"$CLIENT" --no-defaults --default-character-set=utf8mb4 -uroot --socket="$SOCK" \
  -e "CREATE ROLE tw_6d493479_zzz; GRANT tw_6d493479_zzz TO 'member-sso'@'%'"
"$CLI" apply "${ARGS[@]}" >"$TMP/apply-handmade.log" 2>&1
rc=$?; kept=$("$CLIENT" --no-defaults --default-character-set=utf8mb4 -uroot --socket="$SOCK" -N -e \
  "SELECT COUNT(*) FROM mysql.roles_mapping WHERE Role = 'tw_6d493479_zzz' AND User = 'member-sso'")
[[ $rc == 0 && "$kept" == 1 ]] && ! grep -q "tw_6d493479_zzz" "$TMP/apply-handmade.log" \
  && pass "cli: a hand-made tw_6d493479_zzz role is left alone" || { fail "cli: hand-made role (rc $rc, kept $kept)"; cat "$TMP/apply-handmade.log"; }
"$CLIENT" --no-defaults --default-character-set=utf8mb4 -uroot --socket="$SOCK" -e "DROP ROLE tw_6d493479_zzz"
"$CLI" plan "${BASE[@]}" --dsn "mysql://applier@127.0.0.1:1?retries=0" >"$TMP/down.log" 2>&1
rc=$?; [[ $rc == 3 ]] && pass "cli: unreachable server exits 3" || { fail "cli: unreachable server (rc $rc)"; cat "$TMP/down.log"; }
# With --output json a failure is still one JSON document on stdout (it was empty).
"$CLI" apply "${BASE[@]}" --dsn "mysql://applier@127.0.0.1:1?retries=0" --output json >"$TMP/down.json" 2>/dev/null
rc=$?; [[ $rc == 3 ]] && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["ok"] is False and d["exit_code"] == 3 and d["profile"] == "starrocks_main" and "cannot connect" in d["errors"][0]' "$TMP/down.json" \
  && pass "cli: apply --output json answers a JSON failure document when the server is unreachable (exit 3)" || { fail "cli: apply --output json unreachable (rc $rc)"; cat "$TMP/down.json"; }
TAGWARDEN_STARROCKS_PASSWORD=wrong "$CLI" apply "${ARGS[@]}" >"$TMP/denied.log" 2>&1
rc=$?; [[ $rc == 3 ]] && grep -q "1045" "$TMP/denied.log" && pass "cli: wrong password exits 3" || { fail "cli: wrong password (rc $rc)"; cat "$TMP/denied.log"; }
"$CLI" apply "${BASE[@]}" --dsn "mysql://applier:pw@127.0.0.1:$PORT" >"$TMP/bad.log" 2>&1
rc=$?; [[ $rc == 2 ]] && pass "cli: a password in the DSN is refused (exit 2)" || { fail "cli: password in DSN (rc $rc)"; cat "$TMP/bad.log"; }
# tls=required must refuse a session in clear: the client library connected to a server without TLS
# and apply sent its GRANTs unencrypted (found by the audit). This server has TLS only if configured.
have_ssl=$("$CLIENT" --no-defaults -uroot --socket="$SOCK" -N -e "SHOW VARIABLES LIKE 'have_ssl'" | awk '{print $2}')
if [[ "$have_ssl" != YES ]]; then
  "$CLI" plan "${BASE[@]}" --dsn "$TAGWARDEN_TEST_MARIADB_DSN?tls=required&retries=0" >"$TMP/tls.log" 2>&1
  rc=$?; [[ $rc == 3 ]] && grep -q "not encrypted" "$TMP/tls.log" \
    && pass "cli: tls=required refuses a server that cannot encrypt the session (exit 3)" || { fail "cli: tls=required in clear (rc $rc)"; cat "$TMP/tls.log"; }
  "$CLI" plan "${BASE[@]}" --dsn "$TAGWARDEN_TEST_MARIADB_DSN?tls=preferred&retries=0" >"$TMP/tls.log" 2>&1
  rc=$?; [[ $rc == 0 ]] && pass "cli: tls=preferred still connects in clear to a server without TLS" || { fail "cli: tls=preferred (rc $rc)"; cat "$TMP/tls.log"; }
else
  echo "SKIP cli: tls=required in clear: this MariaDB has TLS (have_ssl=$have_ssl)"
fi

# 3. The opt-in test against a real StarRocks.
# The daemon applies after each successful compile and reports the outcome.
"$CLIENT" --no-defaults --default-character-set=utf8mb4 -uroot --socket="$SOCK" -N -e \
  "SELECT CONCAT('DROP ROLE \`', User, '\`;') FROM mysql.user WHERE is_role='Y' AND User LIKE 'tw\\_%'" \
  | "$CLIENT" --no-defaults --default-character-set=utf8mb4 -uroot --socket="$SOCK"
DPORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
export TW_SR_ADMIN_TOKEN="sr-admin-token-$RANDOM$RANDOM$RANDOM"
cat >"$TMP/daemon.yaml" <<YAML
profiles:
  - {name: starrocks_main, engine: starrocks, catalogs: [demo_warehouse], catalog_map: {demo_warehouse: default_catalog},
     dsn: "$TAGWARDEN_TEST_MARIADB_DSN", dialect: mysql, masking: "off"}
source: {file: "$ROOT/examples/demo/snapshot.yaml"}
server: {listen: "127.0.0.1:$DPORT"}
state_dir: "$TMP/daemon-state"
tokens: [{name: admin, token_env: TW_SR_ADMIN_TOKEN, scopes: [admin]}]
YAML
"$CLI" serve --config "$TMP/daemon.yaml" >"$TMP/daemon.log" 2>&1 &
DPID=$!
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$DPORT/readyz" >/dev/null && break; sleep 0.1; done
first=$(curl -s -H "Authorization: Bearer $TW_SR_ADMIN_TOKEN" -X POST "http://127.0.0.1:$DPORT/v1/recompile")
roles=$("$CLIENT" --no-defaults --default-character-set=utf8mb4 -uroot --socket="$SOCK" -N -e "SELECT COUNT(*) FROM mysql.user WHERE is_role='Y' AND User LIKE 'tw\\_%'")
ran=$(printf '%s' "$first" | python3 -c 'import json,sys; o=json.load(sys.stdin); p=o["profiles"][0]; print(p["status"], p.get("apply",{}).get("statements"))')
[[ "$roles" -gt 0 && "$ran" == "ok 0" ]] && pass "daemon: applied at startup ($roles owned roles), a recompile applies nothing more" \
  || { fail "daemon apply (roles $roles, second pass: $ran)"; tail -5 "$TMP/daemon.log"; }
curl -s -H "Authorization: Bearer $TW_SR_ADMIN_TOKEN" "http://127.0.0.1:$DPORT/metrics" | grep -q '^tagwarden_apply_statements_total{profile="starrocks_main"} [1-9]' \
  && pass "daemon: apply statements in /metrics" || fail "daemon: apply statements missing from /metrics"
kill "$DPID"; wait "$DPID" 2>/dev/null

# An expired role assignment never stays on the server: farid.haddad's data_steward ends at 12:10;
# the profile then fails to compile (two users mapped to one engine user), so no new plan can
# replace the one applied. At 12:10 the daemon withdraws: every user leaves the owned roles.
SQLQ=("$CLIENT" --no-defaults --default-character-set=utf8mb4 -uroot --socket="$SOCK" -N -e)
owned_members() { "${SQLQ[@]}" "SELECT COUNT(*) FROM mysql.roles_mapping WHERE Host = '%' AND Role LIKE 'tw\\_%'"; }
farid_members() { "${SQLQ[@]}" "SELECT COUNT(*) FROM mysql.roles_mapping WHERE User = 'farid.haddad' AND Role LIKE 'tw\\_%'"; }
# Whether farid.haddad reads the Confidential finance.invoices through the roles he holds (nested too).
farid_invoices() { "${SQLQ[@]}" "WITH RECURSIVE r(role) AS (SELECT Role FROM mysql.roles_mapping WHERE User = 'farid.haddad' AND Host = '%'
  UNION SELECT m.Role FROM mysql.roles_mapping m JOIN r ON m.User = r.role AND m.Host = '')
  SELECT COUNT(*) FROM mysql.tables_priv t JOIN r ON t.User = r.role AND t.Host = ''
  WHERE t.Db = 'finance' AND t.Table_name = 'invoices' AND FIND_IN_SET('Select', t.Table_priv)"; }
sed 's/  - {role: data_steward, user: farid.haddad}/  - {role: data_steward, user: farid.haddad, expires_at: "2026-11-30T12:10:00Z"}/' \
  "$ROOT/examples/demo/snapshot.yaml" >"$TMP/expiring.yaml"
sed 's/^users:/users:\n  - {name: collider, engine_user: farid.haddad}/' "$TMP/expiring.yaml" >"$TMP/failing.yaml"
cp "$TMP/expiring.yaml" "$TMP/live.yaml"
echo "2026-11-30T12:05:00Z" >"$TMP/clock"
sed -e "s#source: {file: .*#source: {file: \"$TMP/live.yaml\"}#" -e "s#daemon-state#daemon-state-expiry#" "$TMP/daemon.yaml" >"$TMP/daemon-expiry.yaml"
TAGWARDEN_TEST_CLOCK_FILE="$TMP/clock" "$CLI" serve --config "$TMP/daemon-expiry.yaml" >"$TMP/daemon-expiry.log" 2>&1 &
DPID=$!
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$DPORT/readyz" >/dev/null && break; sleep 0.1; done
before=$(farid_members)
reads=$(farid_invoices)
cp "$TMP/failing.yaml" "$TMP/live.yaml"
failed=$(curl -s -H "Authorization: Bearer $TW_SR_ADMIN_TOKEN" -X POST "http://127.0.0.1:$DPORT/v1/recompile" \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["profiles"][0]["status"])')
kept=$(farid_members)
[[ "$before" -gt 0 && "$reads" -gt 0 && "$failed" == failed && "$kept" == "$before" && "$(farid_invoices)" -gt 0 ]] \
  && pass "daemon: a failing compile keeps the applied roles until the expiry (farid.haddad reads finance.invoices)" \
  || { fail "daemon: before expiry (farid's roles $before, then $kept; reads $reads; pass $failed)"; tail -5 "$TMP/daemon-expiry.log"; }
echo "2026-11-30T12:10:00Z" >"$TMP/clock"
for _ in $(seq 1 100); do [[ "$(owned_members)" == 0 ]] && break; sleep 0.1; done
status=$(curl -s -H "Authorization: Bearer $TW_SR_ADMIN_TOKEN" "http://127.0.0.1:$DPORT/v1/status" \
  | python3 -c 'import json,sys; w=json.load(sys.stdin)["profiles"][0].get("server_withdrawal") or {}; print(w.get("pending"), w.get("withdrawn_at"))')
[[ "$(owned_members)" == 0 && "$status" == "False 2026-11-30T12:10:00Z" ]] && grep -q '"server_withdrawn"' "$TMP/daemon-expiry.log" \
  && pass "daemon: at the expiry every user leaves the owned roles on the server (status: $status)" \
  || { fail "daemon: withdrawal at expiry ($(owned_members) memberships left; status $status)"; tail -5 "$TMP/daemon-expiry.log"; }
cp "$TMP/expiring.yaml" "$TMP/live.yaml"
fixed=$(curl -s -H "Authorization: Bearer $TW_SR_ADMIN_TOKEN" -X POST "http://127.0.0.1:$DPORT/v1/recompile" \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["profiles"][0]["status"])')
[[ "$fixed" == ok && "$(owned_members)" -gt 0 && "$(farid_members)" -gt 0 && "$(farid_invoices)" == 0 ]] \
  && pass "daemon: the next good compile applies again, without the expired clearance (farid.haddad no longer reads finance.invoices)" \
  || { fail "daemon: after the fix (pass $fixed, $(owned_members) memberships, farid $(farid_members), reads invoices $(farid_invoices))"; tail -5 "$TMP/daemon-expiry.log"; }
kill "$DPID"; wait "$DPID" 2>/dev/null

if [[ -n "${TAGWARDEN_STARROCKS_DSN:-}" ]]; then
  "$UNIT" "[starrocks-live]" && pass "starrocks-live" || fail "starrocks-live"
else
  echo "SKIP starrocks-live: TAGWARDEN_STARROCKS_DSN is not set (a real StarRocks FE, e.g. mysql://root@127.0.0.1:9030)"
fi

echo "starrocks-mariadb: $PASSED passed, $FAILED failed"
[[ $FAILED == 0 ]]

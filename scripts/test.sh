#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test tagwarden has.
# Each stage prints its own results; the last line counts stages.
# TAGWARDEN_SKIP_E2E=1 skips the real-Trino end-to-end stage (it downloads a Trino server once).
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
./scripts/install-deps.sh || exit 1

passed=0
failed=0
summary=()
stage() {
  local name=$1
  shift
  echo
  echo "==================== $name ===================="
  local start=$SECONDS
  if "$@"; then
    passed=$((passed + 1))
    summary+=("PASS  $name ($((SECONDS - start)) s)")
  else
    failed=$((failed + 1))
    summary+=("FAIL  $name ($((SECONDS - start)) s)")
  fi
}

build_release() { ./scripts/build.sh; }
unit_tests() { (cd build && ctest --output-on-failure); }
build_sanitized() {
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTAGWARDEN_WERROR=ON -DTAGWARDEN_SANITIZE=ON >/dev/null &&
    cmake --build build-asan -j "$(nproc)"
}
unit_tests_sanitized() {
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ./build-asan/unit_tests
}
oracle_selftest() { ./tests/trino-oracle/selftest.sh; }
differential() {
  python3 tests/differential/run_differential.py --models "${TAGWARDEN_DIFF_MODELS:-250}" --seed 20261130 \
    --tagwarden "$root/build/tagwarden" --oracle "$root/tests/trino-oracle/run.sh" --jobs 2 &&
  # Hundreds of users: large groups take an object's last rule, which names nobody.
  python3 tests/differential/run_differential.py --models 8 --size crowd --seed 77 \
    --tagwarden "$root/build/tagwarden" --oracle "$root/tests/trino-oracle/run.sh" --jobs 2 &&
  python3 tests/differential/explain_check.py --tagwarden "$root/build/tagwarden" --oracle "$root/tests/trino-oracle/run.sh"
}
differential_self_check() {
  python3 tests/differential/run_differential.py --models 5 --seed 7 --self-check \
    --tagwarden "$root/build/tagwarden" --oracle "$root/tests/trino-oracle/run.sh"
}
reference_tests() {
  # test_policy_scenarios.py and test_clearance_scenarios.py judge the built binary with Trino's evaluator
  # (58 scenarios of MODEL.md §4; 27 of §1-§2, the clearances).
  TAGWARDEN_BIN="$root/build/tagwarden" TRINO_ORACLE="$root/tests/trino-oracle/run.sh" \
    python3 -m unittest discover -s tests/differential -p 'test_*.py'
}
opa_differential() {
  # The same generated models, each also served by `tagwarden serve`: Trino 476's own OpaAccessControl
  # asks the daemon every query, and must answer exactly as the file-based evaluator and the reference.
  ./tests/trino-opa/build.sh >/dev/null &&
  python3 tests/differential/run_differential.py --models "${TAGWARDEN_OPA_MODELS:-30}" --seed 20261201 \
    --tagwarden "$root/build/tagwarden" --oracle "$root/tests/trino-oracle/run.sh" \
    --opa-judge "$root/tests/trino-opa/run.sh" --jobs 2 &&
  python3 tests/differential/run_differential.py --models 4 --size crowd --seed 78 \
    --tagwarden "$root/build/tagwarden" --oracle "$root/tests/trino-oracle/run.sh" \
    --opa-judge "$root/tests/trino-opa/run.sh" --jobs 2
}
daemon_tests() { TAGWARDEN_BIN="$root/build/tagwarden" python3 tests/daemon/test_daemon.py && TAGWARDEN_BIN="$root/build/tagwarden" python3 tests/daemon/test_http_hardening.py; }
trino_e2e() { TAGWARDEN_BIN="$root/build/tagwarden" ./tests/daemon/trino_e2e_with_daemon.sh; }
starrocks_mariadb() { ./tests/starrocks/run_mariadb.sh "$root/build"; }

stage "build (RelWithDebInfo, -Werror)" build_release
stage "unit tests" unit_tests
stage "build (AddressSanitizer + UBSan)" build_sanitized
stage "unit tests under ASan + UBSan" unit_tests_sanitized
stage "Trino oracle self-test" oracle_selftest
stage "reference semantics unit tests" reference_tests
[ -f tests/differential/run_differential.py ] && stage "differential test against Trino's evaluator" differential
[ -f tests/differential/run_differential.py ] && stage "differential self-check (mutated rules are caught)" differential_self_check
[ -x tests/trino-opa/build.sh ] && stage "Trino's OPA access control asking the daemon (same decisions as the rules)" opa_differential
[ -f tests/daemon/test_daemon.py ] && stage "daemon over HTTP" daemon_tests
[ -x tests/starrocks/run_mariadb.sh ] && stage "StarRocks applier against MariaDB" starrocks_mariadb
if [ "${TAGWARDEN_SKIP_E2E:-0}" != 1 ] && [ -x tests/daemon/trino_e2e_with_daemon.sh ]; then
  stage "real Trino end to end, rules served by the daemon" trino_e2e
fi
[ "${TAGWARDEN_SKIP_E2E:-0}" != 1 ] && [ -x tests/trino-e2e-opa/run.sh ] && stage "real Trino 476 with OPA access control, decisions by the daemon" env TAGWARDEN_BIN="$root/build/tagwarden" ./tests/trino-e2e-opa/run.sh

echo
echo "==================== summary ===================="
printf '%s\n' "${summary[@]}"
echo "stages: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

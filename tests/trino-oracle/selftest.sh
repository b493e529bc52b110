#!/usr/bin/env bash
# Self-test of the Trino access-control oracle: builds the jar, evaluates a small rules file
# through Trino's FileBasedSystemAccessControl and checks the answers. Prints "N passed, M failed".
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
"$here/build.sh" >/dev/null || { echo "trino-oracle: build failed" >&2; echo "0 passed, 1 failed"; exit 1; }

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
check() { # name expected actual
    if [ "$2" == "$3" ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        printf 'FAIL %s\n  expected: %s\n  actual:   %s\n' "$1" "$2" "$3" >&2
    fi
}

cat > "$tmp/rules.json" <<'JSON'
{"catalogs":[{"catalog":"demo_warehouse","allow":"all"},{"catalog":"ro","allow":"read-only"},{"allow":"none"}],
 "schemas":[{"owner":false}],
 "tables":[
  {"user":"^(?:farid)$","catalog":"demo_warehouse","schema":"finance","table":"invoices","privileges":["SELECT"]},
  {"catalog":"demo_warehouse","schema":"finance","table":"invoices","privileges":[]},
  {"user":"vera","catalog":"demo_warehouse","schema":"finance","table":"raw","privileges":["SELECT","GRANT_SELECT"],"columns":[{"name":"iban","allow":false}]},
  {"user":"alice","catalog":"demo_warehouse","schema":"finance","table":".*","privileges":["SELECT","INSERT"],"columns":[{"name":"iban","allow":false}]},
  {"user":"bob","catalog":"demo_warehouse","schema":"finance","table":"raw","privileges":["SELECT"],
   "columns":[{"name":"iban","allow":false},{"name":"email","mask":"'***'"}],"filter":"region = 'EU'"},
  {"user":"^(?:a\\.b)$","catalog":"demo_warehouse","privileges":["SELECT"]},
  {"user":"owen","privileges":["SELECT","INSERT","DELETE","UPDATE","OWNERSHIP"]},
  {"catalog":"demo_warehouse","schema":"public","privileges":["SELECT"]}
 ]}
JSON

# query <TAB> expected answer
cat > "$tmp/cases.tsv" <<'CASES'
{"op":"select","user":"farid","catalog":"demo_warehouse","schema":"finance","table":"invoices","columns":[]}	{"allow":true}
{"op":"select","user":"alice","catalog":"demo_warehouse","schema":"finance","table":"invoices","columns":[]}	{"allow":false}
{"op":"select","user":"alice","catalog":"demo_warehouse","schema":"finance","table":"raw","columns":["id"]}	{"allow":true}
{"op":"view_owner_select","user":"alice","catalog":"demo_warehouse","schema":"finance","table":"raw","columns":["id"]}	{"allow":false}
{"op":"view_owner_select","user":"vera","catalog":"demo_warehouse","schema":"finance","table":"raw","columns":["id"]}	{"allow":true}
{"op":"view_owner_select","user":"vera","catalog":"demo_warehouse","schema":"finance","table":"raw","columns":["id","iban"]}	{"allow":false}
{"op":"select","user":"vera","catalog":"demo_warehouse","schema":"finance","table":"raw","columns":["id"]}	{"allow":true}
{"op":"select","user":"alice","catalog":"demo_warehouse","schema":"finance","table":"raw","columns":["id","iban"]}	{"allow":false}
{"op":"select","user":"alice","catalog":"demo_warehouse","schema":"finance","table":"raw","columns":[]}	{"allow":true}
{"op":"insert","user":"alice","catalog":"demo_warehouse","schema":"finance","table":"raw"}	{"allow":true}
{"op":"delete","user":"alice","catalog":"demo_warehouse","schema":"finance","table":"raw"}	{"allow":false}
{"op":"filter_columns","user":"bob","catalog":"demo_warehouse","schema":"finance","table":"raw","columns":["id","iban","email"]}	{"columns":["email","id"]}
{"op":"filter_columns","user":"alice","catalog":"demo_warehouse","schema":"finance","table":"raw","columns":["id","iban"]}	{"columns":["iban","id"]}
{"op":"column_mask","user":"bob","catalog":"demo_warehouse","schema":"finance","table":"raw","column":"email","type":"varchar"}	{"mask":"'***'"}
{"op":"column_mask","user":"bob","catalog":"demo_warehouse","schema":"finance","table":"raw","column":"id","type":"bigint"}	{"mask":null}
{"op":"row_filters","user":"bob","catalog":"demo_warehouse","schema":"finance","table":"raw"}	{"filters":["region = 'EU'"]}
{"op":"row_filters","user":"alice","catalog":"demo_warehouse","schema":"finance","table":"raw"}	{"filters":[]}
{"op":"select","user":"a.b","catalog":"demo_warehouse","schema":"x","table":"y","columns":["c"]}	{"allow":true}
{"op":"select","user":"aXb","catalog":"demo_warehouse","schema":"x","table":"y","columns":["c"]}	{"allow":false}
{"op":"select","user":"nobody","catalog":"demo_warehouse","schema":"public","table":"t","columns":["c"]}	{"allow":true}
{"op":"select","user":"nobody","catalog":"demo_warehouse","schema":"information_schema","table":"tables","columns":["c"]}	{"allow":true}
{"op":"select","user":"nobody","catalog":"elsewhere","schema":"information_schema","table":"tables","columns":["c"]}	{"allow":false}
{"op":"access_catalog","user":"nobody","catalog":"demo_warehouse"}	{"allow":true}
{"op":"access_catalog","user":"nobody","catalog":"system"}	{"allow":false}
{"op":"create_table","user":"owen","catalog":"demo_warehouse","schema":"s","table":"new"}	{"allow":true}
{"op":"create_mv","user":"owen","catalog":"demo_warehouse","schema":"s","table":"new"}	{"allow":true}
{"op":"create_view","user":"owen","catalog":"demo_warehouse","schema":"s","table":"new"}	{"allow":true}
{"op":"ownership","user":"owen","catalog":"demo_warehouse","schema":"s","table":"t"}	{"allow":true}
{"op":"update","user":"owen","catalog":"demo_warehouse","schema":"s","table":"t","columns":[]}	{"allow":true}
{"op":"insert","user":"owen","catalog":"ro","schema":"s","table":"t"}	{"allow":false}
{"op":"select","user":"owen","catalog":"ro","schema":"s","table":"t","columns":["c"]}	{"allow":true}
{"op":"create_table","user":"alice","catalog":"demo_warehouse","schema":"finance","table":"new"}	{"allow":false}
{"op":"show_columns","user":"alice","catalog":"demo_warehouse","schema":"finance","table":"invoices"}	{"allow":false}
{"op":"show_columns","user":"farid","catalog":"demo_warehouse","schema":"finance","table":"invoices"}	{"allow":true}
{"op":"filter_tables","user":"alice","catalog":"demo_warehouse","tables":[["finance","raw"],["finance","invoices"],["public","t"],["x","y"]]}	{"tables":[["finance","raw"],["public","t"]]}
{"op":"frobnicate","user":"alice","catalog":"c","schema":"s","table":"t"}	{"error":"java.lang.IllegalArgumentException: unknown op: frobnicate"}
CASES

cut -f1 "$tmp/cases.tsv" > "$tmp/queries.jsonl"
"$here/run.sh" "$tmp/rules.json" < "$tmp/queries.jsonl" > "$tmp/answers.jsonl" 2> "$tmp/stderr"
rc=$?
check "exit code for valid rules" 0 "$rc"
check "one answer per query" "$(wc -l < "$tmp/queries.jsonl")" "$(wc -l < "$tmp/answers.jsonl")"
i=0
while IFS=$'\t' read -r query expected; do
    i=$((i + 1))
    actual="$(sed -n "${i}p" "$tmp/answers.jsonl")"
    check "$query" "$expected" "$actual"
done < "$tmp/cases.tsv"

# Trino refuses this file (unknown privilege): load_error and exit 3
echo '{"tables":[{"privileges":["SELEKT"]}]}' > "$tmp/bad.json"
out="$(echo '{"op":"access_catalog","user":"u","catalog":"c"}' | "$here/run.sh" "$tmp/bad.json" 2>/dev/null)"
rc=$?
check "exit code for refused rules" 3 "$rc"
case "$out" in
    '{"load_error":'*SELEKT*) check "load_error line" ok ok ;;
    *) check "load_error line" '{"load_error":"...SELEKT..."}' "$out" ;;
esac
check "load_error is a single line" 1 "$(printf '%s\n' "$out" | wc -l)"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

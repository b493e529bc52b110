#!/usr/bin/env bash
# The demo: builds tagwarden, compiles examples/demo once, explains who is
# cleared and why, then runs the daemon serving the same rules to Trino's
# HTTP rules provider and drives it once through a signed webhook.
#   scripts/demo.sh                 run everything, stop the daemon at the end
#   scripts/demo.sh --keep-running  leave the daemon on 127.0.0.1:8181 (Ctrl-C stops it)
set -euo pipefail
cd "$(dirname "$0")/.."
keep=0
[ "${1:-}" = "--keep-running" ] && keep=1
./scripts/install-deps.sh
./scripts/build.sh
out=out/demo
rm -rf "$out"
tw=./build/tagwarden
snap=examples/demo/snapshot.yaml
conf=examples/demo/profiles.yaml

echo
echo "== 1. one-shot compile of examples/demo =="
$tw compile --snapshot $snap --config $conf --out "$out"
echo
echo "== the Trino rules ($out/trino_main/rules.json) =="
cat "$out/trino_main/rules.json"
for user in member-sso platform-admin farid.haddad grace.lee jo.kim; do
  echo
  echo "== tagwarden explain --user $user =="
  $tw explain --snapshot $snap --config $conf --user "$user"
done

echo
echo "== 2. the daemon (tagwarden serve --config examples/demo/tagwarden.yaml) =="
export TAGWARDEN_WEBHOOK_SECRET=${TAGWARDEN_WEBHOOK_SECRET:-$(openssl rand -hex 24)}
export TAGWARDEN_DEMO_ADMIN_TOKEN=${TAGWARDEN_DEMO_ADMIN_TOKEN:-$(openssl rand -hex 24)}
$tw serve --config examples/demo/tagwarden.yaml >"$out/daemon.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
base=http://127.0.0.1:8181
for _ in $(seq 1 50); do curl -sf $base/readyz >/dev/null && break; sleep 0.1; done
echo "GET /readyz -> $(curl -s $base/readyz | tr -d '\n ')"
echo "GET /v1/profiles/trino_main/trino-rules.json:"
curl -s -D - -o "$out/served.json" $base/v1/profiles/trino_main/trino-rules.json | grep -i -E '^(HTTP|etag|content-type|x-tagwarden)'
cmp -s "$out/served.json" "$out/trino_main/rules.json" && echo "  (byte-identical to the one-shot compile)"
body='{"event":"classification.changed","tag":"Confidential"}'
ts=$(date +%s)
sig=$(printf '%s' "$body" | openssl dgst -sha256 -hmac "$TAGWARDEN_WEBHOOK_SECRET" | awk '{print $NF}')
echo "POST /v1/webhook (signed) -> answers after the recompile it caused:"
curl -s -X POST -H "X-Tagwarden-Signature: sha256=$sig" -H "X-Tagwarden-Timestamp: $ts" -d "$body" $base/v1/webhook
echo "GET /v1/explain?user=member-sso (scope read):"
curl -s -H "Authorization: Bearer $TAGWARDEN_DEMO_ADMIN_TOKEN" "$base/v1/explain?user=member-sso" | head -40
echo
echo "Point Trino at it: templates/trino/access-control.properties with"
echo "  security.config-file=$base/v1/profiles/trino_main/trino-rules.json"
if [ $keep = 1 ]; then
  echo "daemon running as pid $pid (log: $out/daemon.log); Ctrl-C to stop"
  trap - EXIT
  wait $pid
fi

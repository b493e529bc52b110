#!/usr/bin/env bash
# The demo: builds tagwarden, compiles examples/demo once, explains three users.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/build.sh
out=out/demo
rm -rf "$out"
echo
echo "== one-shot compile of examples/demo =="
./build/tagwarden compile --snapshot examples/demo/snapshot.yaml --config examples/demo/profiles.yaml --out "$out"
echo
echo "== rules Trino will load ($out/trino_main/rules.json) =="
cat "$out/trino_main/rules.json"
for user in member-sso platform-admin farid.haddad grace.lee jo.kim; do
  echo
  echo "== tagwarden explain --user $user =="
  ./build/tagwarden explain --snapshot examples/demo/snapshot.yaml --config examples/demo/profiles.yaml --user "$user"
done

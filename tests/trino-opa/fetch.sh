#!/usr/bin/env bash
# Fetch (once) and cache the parts of the Trino 476 server tarball the OPA judge needs; print their
# directory on stdout (progress goes to stderr).
#
#   tests/trino-opa/fetch.sh      # -> ${TAGWARDEN_CACHE:-$HOME/.cache/tagwarden}/trino-opa-476
#
# io.trino:trino-opa is not published to Maven Central as a jar, but the 476 server tarball is
# (821 MB; the last release with a tarball there). It is downloaded to a staging directory, checked
# against the .sha1 Maven Central publishes next to it, and only trino-server-476/lib/ (the server's
# classpath: trino-spi, trino-main, airlift, ...) and trino-server-476/plugin/opa/ (the plugin and its
# own dependencies) are extracted; the tarball is then deleted (about 120 MB stay).
#
# Idempotent: the result is reused while its stamp (version + the tarball's sha1) is present; a lock
# serialises concurrent runs.
set -euo pipefail
version=476
base="https://repo1.maven.org/maven2/io/trino/trino-server/$version/trino-server-$version.tar.gz"
cache="${TAGWARDEN_CACHE:-$HOME/.cache/tagwarden}"
dest="$cache/trino-opa-$version"

stamp_ok() { [ -f "$dest/.stamp" ] && [ -f "$dest/lib/io.trino_trino-spi-$version.jar" ] \
    && [ -f "$dest/plugin/opa/io.trino_trino-opa-$version.jar" ]; }

if stamp_ok; then
    echo "$dest"
    exit 0
fi

mkdir -p "$cache"
exec 9>"$cache/.trino-opa-$version.lock"
flock -w 1800 9 || { echo "trino-opa fetch: timed out waiting for $cache/.trino-opa-$version.lock" >&2; exit 1; }
if stamp_ok; then  # another run fetched it meanwhile
    echo "$dest"
    exit 0
fi

t0=$(date +%s)
stage="$(mktemp -d "$cache/.trino-opa-$version.XXXXXX")"
trap 'rm -rf "$stage"' EXIT

curl_() { curl --fail --silent --show-error --location --retry 3 --retry-delay 2 --connect-timeout 30 "$@"; }

expected="$(curl_ "$base.sha1" | tr -d ' \r\n' | cut -c1-40)"
if ! [[ "$expected" =~ ^[0-9a-f]{40}$ ]]; then
    echo "trino-opa fetch: bad sha1 from $base.sha1: '$expected'" >&2
    exit 1
fi
echo "trino-opa fetch: downloading $base (about 821 MB) ..." >&2
curl_ --output "$stage/server.tar.gz" "$base"
actual="$(sha1sum "$stage/server.tar.gz" | cut -d' ' -f1)"
if [ "$actual" != "$expected" ]; then
    echo "trino-opa fetch: sha1 mismatch for $base: got $actual, Maven Central says $expected" >&2
    exit 1
fi
echo "trino-opa fetch: sha1 $actual ok; extracting lib/ and plugin/opa/ ..." >&2
tar -xzf "$stage/server.tar.gz" -C "$stage" "trino-server-$version/lib" "trino-server-$version/plugin/opa"
rm -f "$stage/server.tar.gz"
mkdir -p "$stage/out"
mv "$stage/trino-server-$version/lib" "$stage/trino-server-$version/plugin" "$stage/out/"
echo "trino-server $version sha1 $actual" >"$stage/out/.stamp"

rm -rf "$dest"
mv "$stage/out" "$dest"
rm -rf "$stage"
trap - EXIT

t1=$(date +%s)
echo "trino-opa fetch: Trino $version in $dest: lib $(ls "$dest/lib" | wc -l) jars," \
    "plugin/opa $(ls "$dest/plugin/opa" | wc -l) jars, $(du -sh "$dest" | cut -f1); took $((t1 - t0)) s" >&2
echo "$dest"

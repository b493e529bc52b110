#!/usr/bin/env bash
# Fetch (once) and cache the parts of the Trino 476 server tarball that the OPA judge (lib/ and
# plugin/opa/) and a real server with OPA access control and the memory connector
# (tests/trino-e2e-opa) need; print the directory on stdout (progress on stderr). One download
# for both.
#
#   tests/trino-opa/fetch.sh   # -> ${TAGWARDEN_CACHE:-$HOME/.cache/tagwarden}/trino-server-476
#
# io.trino:trino-server:476:tar.gz is the last server tarball on Maven Central (821 MB). It is
# downloaded to a staging directory next to the cache, checked against the .sha1 Maven Central
# publishes beside it, and only lib/ (the server's classpath), plugin/opa/ and plugin/memory/ are
# extracted (about 140 MB); the tarball is deleted. The server is started with java directly (main
# class io.trino.server.TrinoServer, what bin/launcher.properties names), so bin/ and etc/ are not
# needed: run.sh writes its own etc/.
#
# Idempotent: the result is reused while its stamp (version, the tarball's sha1, this script's
# layout version) is present; a lock (flock) serialises concurrent runs. Later runs may add
# trino-cds.jsa (a class-data-sharing archive the JVM writes) to the directory.
set -euo pipefail
version=476
layout=1   # bump when the extracted set changes
url="https://repo1.maven.org/maven2/io/trino/trino-server/$version/trino-server-$version.tar.gz"
cache="${TAGWARDEN_CACHE:-$HOME/.cache/tagwarden}"
dest="$cache/trino-server-$version"

stamp_ok() {
    [ -f "$dest/.stamp" ] && grep -q "^layout $layout\$" "$dest/.stamp" \
        && [ -f "$dest/lib/io.trino_trino-main-$version.jar" ] \
        && [ -f "$dest/plugin/opa/io.trino_trino-opa-$version.jar" ] \
        && [ -f "$dest/plugin/memory/io.trino_trino-memory-$version.jar" ]
}

if stamp_ok; then
    echo "$dest"
    exit 0
fi

mkdir -p "$cache"
exec 9>"$cache/.trino-server-$version.lock"
flock -w 1800 9 || { echo "trino-server-$version fetch: timed out waiting for the lock $cache/.trino-server-$version.lock" >&2; exit 1; }
if stamp_ok; then  # another run fetched it meanwhile
    echo "$dest"
    exit 0
fi

t0=$(date +%s)
stage="$(mktemp -d "$cache/.trino-server-$version.XXXXXX")"
trap 'rm -rf "$stage"' EXIT

curl_() { curl --fail --silent --show-error --location --retry 3 --retry-delay 2 --connect-timeout 30 "$@"; }

expected="$(curl_ "$url.sha1" | tr -d ' \r\n' | cut -c1-40)"
if ! [[ "$expected" =~ ^[0-9a-f]{40}$ ]]; then
    echo "trino-server-$version fetch: bad sha1 from $url.sha1: '$expected'" >&2
    exit 1
fi
echo "trino-server-$version fetch: downloading $url (about 821 MB) ..." >&2
curl_ --output "$stage/server.tar.gz" "$url"
t1=$(date +%s)
actual="$(sha1sum "$stage/server.tar.gz" | cut -d' ' -f1)"
if [ "$actual" != "$expected" ]; then
    echo "trino-server-$version fetch: sha1 mismatch for $url: got $actual, Maven Central says $expected" >&2
    exit 1
fi
echo "trino-server-$version fetch: sha1 $actual ok (download $((t1 - t0)) s); extracting lib/, plugin/opa/, plugin/memory/ ..." >&2
tar -xzf "$stage/server.tar.gz" -C "$stage" "trino-server-$version/lib" \
    "trino-server-$version/plugin/opa" "trino-server-$version/plugin/memory"
rm -f "$stage/server.tar.gz"
mkdir -p "$stage/out"
mv "$stage/trino-server-$version/lib" "$stage/trino-server-$version/plugin" "$stage/out/"
printf 'trino-server %s\nsha1 %s\nlayout %s\n' "$version" "$actual" "$layout" >"$stage/out/.stamp"

rm -rf "$dest"
mv "$stage/out" "$dest"
rm -rf "$stage"
trap - EXIT

echo "trino-server-$version fetch: $dest: lib $(ls "$dest/lib" | wc -l) jars, plugin/opa $(ls "$dest/plugin/opa" | wc -l)," \
    "plugin/memory $(ls "$dest/plugin/memory" | wc -l) jars, $(du -sh "$dest" | cut -f1); took $(($(date +%s) - t0)) s" >&2
echo "$dest"

#!/usr/bin/env bash
# Build the Trino OPA judge: fetch Trino 476's lib/ and plugin/opa/ (fetch.sh, cached), compile
# src/ with javac against lib/*.jar into target/trino-opa-judge.jar (idempotent). Prints the jar path.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ -d /usr/lib/jvm/temurin-25-jdk-amd64 ]; then java_home=/usr/lib/jvm/temurin-25-jdk-amd64
else java_home="${JAVA_HOME:-}"; fi
javac="${java_home:+$java_home/bin/}javac"
jar="${java_home:+$java_home/bin/}jar"

trino="$("$here/fetch.sh")"
out="$here/target/trino-opa-judge.jar"
mapfile -t sources < <(find "$here/src" -name '*.java' | sort)

# Rebuild only when a source, this script or the Trino directory changed.
stamp="$( { echo "$trino"; cat "$trino/.stamp" "$here/build.sh" "${sources[@]}"; } | sha256sum | cut -d' ' -f1)"
if [ -f "$out" ] && [ -f "$here/target/.stamp" ] && [ "$(cat "$here/target/.stamp")" = "$stamp" ]; then
    echo "trino-opa build: up to date" >&2
    echo "$out"
    exit 0
fi

rm -rf "$here/target"
mkdir -p "$here/target/classes"
# --release 24: what Trino 476 itself is compiled for.
"$javac" -nowarn -encoding UTF-8 --release 24 -cp "$trino/lib/*" -d "$here/target/classes" "${sources[@]}"
"$jar" --create --file "$out" -C "$here/target/classes" .
rm -rf "$here/target/classes"
echo "$stamp" >"$here/target/.stamp"
echo "trino-opa build: built $out (javac $("$javac" -version 2>&1 | cut -d' ' -f2), against $trino/lib)" >&2
echo "$out"

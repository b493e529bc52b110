#!/usr/bin/env bash
# Run the Trino OPA judge (Trino 476's OpaAccessControl against a decision endpoint):
#   run.sh [--batched] BASE_URL < queries.jsonl > answers.jsonl
#   run.sh [--batched] --multi  < queries.jsonl > answers.jsonl   ({"op":"load","url":BASE_URL} lines)
#   run.sh [--batched] --bench BASE_URL SAMPLES_JSONL [options]    (one JSON object; README "Benchmark mode")
# Protocol: tests/trino-oracle/README.md; configuration and what is sent: README.md, PROTOCOL.md here.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
jar="$here/target/trino-opa-judge.jar"
if [ ! -f "$jar" ]; then
    echo "trino-opa: $jar missing; run $here/build.sh first" >&2
    exit 2
fi
trino="${TAGWARDEN_CACHE:-$HOME/.cache/tagwarden}/trino-server-476"
if [ ! -f "$trino/.stamp" ]; then
    trino="$("$here/fetch.sh")"
fi
if [ -x /usr/lib/jvm/temurin-25-jdk-amd64/bin/java ]; then
    java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
elif [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
    java="$JAVA_HOME/bin/java"
else
    java=java
fi
# The judge and Trino's server classpath (lib/) share the application class loader, as in a server;
# plugin/opa/ is loaded by the judge in Trino's PluginClassLoader.
# --sun-misc-unsafe-memory-access=allow: Guice still uses sun.misc.Unsafe; silence the JDK 24+ warning.
# -Djol.skipHotspotSAAttach=true: the HTTP client sizes its stats objects with jol, which otherwise
# spawns a Serviceability Agent process (about 4 s of startup); it only affects memory estimates.
# TRINO_OPA_JAVA_OPTS: extra JVM options.
# shellcheck disable=SC2086
exec "$java" --sun-misc-unsafe-memory-access=allow -XX:+UseSerialGC -Djol.skipHotspotSAAttach=true -Xss4m ${TRINO_OPA_JAVA_OPTS:-} \
    -Dtagwarden.trino.opa-plugin-dir="$trino/plugin/opa" \
    -cp "$jar:$trino/lib/*" dev.tagwarden.trinoopa.TrinoOpaJudge "$@"

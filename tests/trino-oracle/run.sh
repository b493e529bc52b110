#!/usr/bin/env bash
# Run the Trino access-control oracle: run.sh RULES_JSON < queries.jsonl > answers.jsonl
#                                  or: run.sh --bench RULES_JSON SAMPLES_JSONL [options]  (see README)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
jar="$here/target/trino-oracle.jar"
if [ ! -f "$jar" ]; then
    echo "trino-oracle: $jar missing; run $here/build.sh first" >&2
    exit 2
fi
if [ -x /usr/lib/jvm/temurin-25-jdk-amd64/bin/java ]; then
    java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
elif [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
    java="$JAVA_HOME/bin/java"
else
    java=java
fi
# --sun-misc-unsafe-memory-access=allow: Guice still uses sun.misc.Unsafe; silence the JDK 24+ warning.
# TRINO_ORACLE_JAVA_OPTS: extra JVM options (the benchmark mode sets a heap size for large documents).
# shellcheck disable=SC2086
exec "$java" --sun-misc-unsafe-memory-access=allow -XX:+UseSerialGC -Xss4m ${TRINO_ORACLE_JAVA_OPTS:-} -jar "$jar" "$@"

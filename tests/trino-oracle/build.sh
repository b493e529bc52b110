#!/usr/bin/env bash
# Build the Trino access-control oracle fat jar: target/trino-oracle.jar (idempotent).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ -d /usr/lib/jvm/temurin-25-jdk-amd64 ]; then
    export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
    # Maven 3.8's bundled Guava/Guice call sun.misc.Unsafe; silence the JDK 24+ warning.
    export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
fi
cd "$here"
# Maven's own output goes to stderr (minus the bare colour resets it emits even in batch mode)
# so that stdout is only the jar path; pipefail keeps Maven's exit status.
mvn -q -B -Dstyle.color=never package -DskipTests 2>&1 | sed -u 's/\x1b\[0m//g' >&2
echo "$here/target/trino-oracle.jar"

#!/usr/bin/env bash
# Assemble (once) and cache a Trino server from Maven Central; print its directory on stdout.
#
#   tests/trino-e2e/fetch_trino.sh            # TRINO_VERSION defaults to 483
#
# Why not the release tarball: io.trino:trino-server:<v>:tar.gz (and trino-server-core,
# trino-server-main, trino-cli:executable) were last published to Maven Central for 476; for 483
# they answer 404. What Maven Central does have for 483 is every jar the tarball is made of, so
# this script builds the same layout from them:
#   lib/            runtime closure of io.trino:trino-main (what trino-server-main ships), with
#                   Trino's own dependency management (trino-root imported) -- maven/server/pom.xml
#   plugin/memory/  io.trino:trino-memory + its runtime closure minus what the server provides,
#                   plus the one-line service descriptor jar Trino's plugin packaging adds
#                   (META-INF/services/io.trino.spi.Plugin) -- maven/plugin-memory/pom.xml
#   launcher/       tagwarden-trino-launcher.jar (TagwardenTrinoMain): checks the Java version and
#                   calls io.trino.server.Server#start, as TrinoServer does -- launcher/*.java
# Only the memory connector is installed: nothing else is needed and it keeps startup short.
#
# Idempotent: the result is reused while its stamp (version + the poms + the launcher source)
# matches; a lock serialises concurrent runs. Downloads go through Maven's local repository
# (~/.m2 unless MAVEN_ARGS says otherwise), so a rebuild after a stamp change is offline-fast.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
version="${TRINO_VERSION:-483}"
cache="${TAGWARDEN_CACHE:-$HOME/.cache/tagwarden}"
dest="$cache/trino-server-$version"

if [ -n "${TRINO_JAVA_HOME:-}" ]; then java_home="$TRINO_JAVA_HOME"
elif [ -d /usr/lib/jvm/temurin-25-jdk-amd64 ]; then java_home=/usr/lib/jvm/temurin-25-jdk-amd64
else java_home="${JAVA_HOME:-}"; fi
javac="${java_home:+$java_home/bin/}javac"
jar="${java_home:+$java_home/bin/}jar"

stamp="$( { echo "trino $version"; cat "$here/fetch_trino.sh" "$here/maven/server/pom.xml" \
    "$here/maven/plugin-memory/pom.xml" "$here/launcher/TagwardenTrinoMain.java"; } | sha256sum | cut -d' ' -f1)"

if [ -f "$dest/.stamp" ] && [ "$(cat "$dest/.stamp")" = "$stamp" ]; then
    echo "$dest"
    exit 0
fi

mkdir -p "$cache"
exec 9>"$cache/.trino-server-$version.lock"
flock -w 1800 9 || { echo "fetch_trino: timed out waiting for $cache/.trino-server-$version.lock" >&2; exit 1; }
if [ -f "$dest/.stamp" ] && [ "$(cat "$dest/.stamp")" = "$stamp" ]; then  # another run built it
    echo "$dest"
    exit 0
fi

t0=$(date +%s)
stage="$(mktemp -d "$cache/.trino-server-$version.XXXXXX")"
trap 'rm -rf "$stage"' EXIT

copy_deps() {  # POM_DIR OUT_DIR
    # The dependency plugin is pinned; Maven's own chatter goes to stderr so stdout stays the path.
    (cd "$1" && timeout "${TAGWARDEN_FETCH_TIMEOUT:-1800}" mvn -q -B -Dstyle.color=never ${MAVEN_ARGS:-} -Dtrino.version="$version" \
        org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies \
        -DincludeScope=runtime -DoutputDirectory="$2") 2>&1 | sed -u 's/\x1b\[[0-9;]*m//g' >&2
}

echo "fetch_trino: resolving Trino $version server jars from Maven Central ..." >&2
copy_deps "$here/maven/server" "$stage/lib"
copy_deps "$here/maven/plugin-memory" "$stage/plugin/memory"
[ -f "$stage/lib/trino-main-$version.jar" ] || { echo "fetch_trino: trino-main-$version.jar missing" >&2; exit 1; }
[ -f "$stage/plugin/memory/trino-memory-$version.jar" ] || { echo "fetch_trino: trino-memory-$version.jar missing" >&2; exit 1; }

# The service descriptor Trino's plugin packaging puts in <plugin>-<v>-services.jar.
mkdir -p "$stage/svc/META-INF/services"
echo io.trino.plugin.memory.MemoryPlugin >"$stage/svc/META-INF/services/io.trino.spi.Plugin"
"$jar" --create --file "$stage/plugin/memory/trino-memory-$version-services.jar" \
    -C "$stage/svc" META-INF/services/io.trino.spi.Plugin
rm -rf "$stage/svc"

# A jar, not a class directory: the JVM's class-data-sharing archive (run.sh) takes jars only.
mkdir -p "$stage/launcher" "$stage/classes"
"$javac" -nowarn -cp "$stage/lib/*" -d "$stage/classes" "$here/launcher/TagwardenTrinoMain.java"
"$jar" --create --file "$stage/launcher/tagwarden-trino-launcher.jar" -C "$stage/classes" .
rm -rf "$stage/classes"

echo "$stamp" >"$stage/.stamp"
rm -rf "$dest"
mv "$stage" "$dest"
trap - EXIT

t1=$(date +%s)
echo "fetch_trino: Trino $version in $dest: lib $(ls "$dest/lib" | wc -l) jars, $(du -sh "$dest/lib" | cut -f1);" \
    "plugin/memory $(ls "$dest/plugin/memory" | wc -l) jars, $(du -sh "$dest/plugin/memory" | cut -f1);" \
    "took $((t1 - t0)) s" >&2
echo "$dest"

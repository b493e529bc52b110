// Entry point for a Trino server assembled from Maven Central jars (see ../fetch_trino.sh).
//
// Trino's release tarball starts io.trino.server.TrinoServer (module trino-server-main), which only
// checks the Java version and calls io.trino.server.Server#start(version). From Trino 477 on,
// neither that module nor the tarball is published to Maven Central, so this class does the same
// two things against trino-main itself. Everything else -- configuration, plugins, catalogs,
// access control -- is Trino's own code, configured exactly as a tarball install would be
// (the properties files are passed with -Dconfig=..., as Trino's launcher does).
public final class TagwardenTrinoMain
{
    private TagwardenTrinoMain() {}

    public static void main(String[] args)
    {
        int required = Integer.getInteger("tagwarden.required-java", 25);
        Runtime.Version javaVersion = Runtime.version();
        if (javaVersion.feature() < required) {
            System.err.printf("ERROR: Trino requires Java %d+ (found %s)%n", required, javaVersion);
            System.exit(100);
        }
        String version = io.trino.server.Server.class.getPackage().getImplementationVersion();
        new io.trino.server.Server().start(version == null ? "unknown" : version);
    }
}

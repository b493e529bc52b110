package dev.tagwarden.trinoopa;

import io.trino.spi.connector.CatalogSchemaName;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Tracer;
import io.trino.server.PluginClassLoader;
import io.trino.server.PluginManager;
import io.trino.spi.Plugin;
import io.trino.spi.QueryId;
import io.trino.spi.classloader.ThreadContextClassLoader;
import io.trino.spi.connector.CatalogSchemaTableName;
import io.trino.spi.connector.ColumnSchema;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.security.AccessDeniedException;
import io.trino.spi.security.Identity;
import io.trino.spi.security.SystemAccessControl;
import io.trino.spi.security.SystemAccessControlFactory;
import io.trino.spi.security.SystemSecurityContext;
import io.trino.spi.security.ViewExpression;
import io.trino.spi.type.BigintType;
import io.trino.spi.type.BooleanType;
import io.trino.spi.type.DateType;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.DoubleType;
import io.trino.spi.type.IntegerType;
import io.trino.spi.type.RealType;
import io.trino.spi.type.SmallintType;
import io.trino.spi.type.TimestampType;
import io.trino.spi.type.TinyintType;
import io.trino.spi.type.Type;
import io.trino.spi.type.VarcharType;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.File;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.lang.reflect.Field;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Judge for tagwarden's Trino OPA decision endpoint: asks Trino 476's own OPA access control
 * ({@code access-control.name=opa}, the {@code trino-opa} plugin from the server tarball) and answers
 * the same JSON Lines queries as tests/trino-oracle, with the same answer shapes.
 *
 * <p>The plugin is loaded the way a Trino server loads it: its jars (plugin/opa/*.jar) in Trino's own
 * {@link PluginClassLoader} with the server's SPI packages shared, {@code io.trino.spi.Plugin} found
 * through {@link ServiceLoader}, the factory named "opa" taken from
 * {@link Plugin#getSystemAccessControlFactories()} and {@code create(config, context)} called with the
 * plugin's class loader as the thread context class loader (as AccessControlManager does).
 *
 * <p>Usage: {@code java -Dtagwarden.trino.opa-plugin-dir=DIR -cp judge.jar:lib/* dev.tagwarden.trinoopa.TrinoOpaJudge
 * [--batched] (BASE_URL | --multi) < queries.jsonl > answers.jsonl}
 */
public final class TrinoOpaJudge
{
    static final String TRINO_VERSION = "476";
    private static final Pattern DECIMAL = Pattern.compile("decimal\\s*\\(\\s*(\\d+)\\s*(?:,\\s*(\\d+)\\s*)?\\)");
    private static final Pattern TIMESTAMP = Pattern.compile("timestamp\\s*\\(\\s*(\\d+)\\s*\\)");
    private static final Pattern VARCHAR = Pattern.compile("varchar\\s*\\(\\s*(\\d+)\\s*\\)");

    private final SystemAccessControlFactory factory;
    private final boolean batched;
    private SystemAccessControl accessControl;
    private final Map<String, SystemSecurityContext> contexts = new HashMap<>();
    private final QueryId queryId = new QueryId("trino_opa_judge");
    private final Instant queryStart = Instant.now();

    private TrinoOpaJudge(SystemAccessControlFactory factory, boolean batched)
    {
        this.factory = factory;
        this.batched = batched;
    }

    public static void main(String[] args)
            throws IOException
    {
        // Airlift bootstrap logs its configuration at INFO through java.util.logging (stderr); keep quiet.
        // TRINO_OPA_LOG_LEVEL (e.g. FINE, with opa.log-requests) shows more; OFF hides the plugin's
        // own error logging (the answers carry the error anyway).
        Logger.getLogger("").setLevel(Level.parse(System.getenv().getOrDefault("TRINO_OPA_LOG_LEVEL", "WARNING")));

        List<String> rest = new ArrayList<>(Arrays.asList(args));
        boolean batched = rest.remove("--batched");
        if (!rest.isEmpty() && rest.get(0).equals("--bench")) {
            System.exit(OpaBenchmark.run(rest.subList(1, rest.size()), batched));
            return;
        }
        if (rest.size() != 1 || rest.get(0).equals("-h") || rest.get(0).equals("--help")) {
            System.err.println("usage: trino-opa-judge [--batched] (BASE_URL | --multi) < queries.jsonl > answers.jsonl   (trino-opa " + TRINO_VERSION + ")");
            System.err.println("       trino-opa-judge [--batched] --bench BASE_URL SAMPLES_JSONL [--warmup N] [--rounds N] [--max-seconds S] [--decision-samples N] [--decisions FILE]   (prints one JSON object)");
            System.exit(2);
        }
        String target = rest.get(0);

        ObjectMapper mapper = new ObjectMapper();
        JsonFactory jsonFactory = mapper.getFactory();
        jsonFactory.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
        // stdout is the answer stream and nothing else: the library code prints there (jol, which the
        // plugin's HTTP client reaches through io.airlift.slice.SizeOf, writes its warnings to
        // System.out), so System.out becomes stderr for everyone but this writer.
        BufferedWriter out = new BufferedWriter(new OutputStreamWriter(new FileOutputStream(FileDescriptor.out), StandardCharsets.UTF_8), 1 << 16);
        System.setOut(System.err);

        TrinoOpaJudge judge;
        try {
            judge = new TrinoOpaJudge(opaFactory(), batched);
            // --multi: no endpoint yet; the stream switches endpoints with {"op":"load","url":"..."} lines.
            if (!target.equals("--multi")) {
                judge.load(target);
            }
        }
        catch (Throwable t) {
            ObjectNode error = mapper.createObjectNode().put("load_error", describeLoadError(t));
            out.write(mapper.writeValueAsString(error));
            out.write('\n');
            out.flush();
            System.exit(3);
            return;
        }

        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8), 1 << 16);
        String line;
        while ((line = in.readLine()) != null) {
            out.write(mapper.writeValueAsString(judge.answer(mapper, line)));
            out.write('\n');
            // One line in, one line out, visible at once: a driver may wait for each answer.
            if (!in.ready()) {
                out.flush();
            }
        }
        out.flush();
        judge.shutdown();
        System.exit(0);
    }

    /**
     * What a Trino server does with plugin/opa: PluginManager's class loader over the directory's jars
     * (sorted, as ServerPluginsProvider lists them) sharing PluginManager's SPI packages, the Plugin
     * service, and its SystemAccessControlFactory named "opa".
     */
    static SystemAccessControlFactory opaFactory()
            throws Exception
    {
        String dir = System.getProperty("tagwarden.trino.opa-plugin-dir");
        if (dir == null) {
            throw new IllegalStateException("system property tagwarden.trino.opa-plugin-dir is not set (use run.sh)");
        }
        File[] files = new File(dir).listFiles();
        if (files == null) {
            throw new IllegalStateException("not a directory: " + dir);
        }
        Arrays.sort(files);
        List<URL> urls = new ArrayList<>();
        for (File file : files) {
            urls.add(file.toURI().toURL());
        }
        Field spiPackagesField = PluginManager.class.getDeclaredField("SPI_PACKAGES");
        spiPackagesField.setAccessible(true);
        @SuppressWarnings("unchecked")
        List<String> spiPackages = (List<String>) spiPackagesField.get(null);
        PluginClassLoader loader = new PluginClassLoader("opa", urls, TrinoOpaJudge.class.getClassLoader(), spiPackages);
        List<SystemAccessControlFactory> found = new ArrayList<>();
        try (ThreadContextClassLoader ignored = new ThreadContextClassLoader(loader)) {
            for (Plugin plugin : ServiceLoader.load(Plugin.class, loader)) {
                for (SystemAccessControlFactory candidate : plugin.getSystemAccessControlFactories()) {
                    if (candidate.getName().equals("opa")) {
                        found.add(candidate);
                    }
                }
            }
        }
        if (found.size() != 1) {
            throw new IllegalStateException("expected one SystemAccessControlFactory named opa in " + dir + ", found " + found.size());
        }
        return found.get(0);
    }

    /** The configuration of access-control.properties for our endpoint; everything else stays default. */
    static Map<String, String> config(String baseUrl, boolean batched)
    {
        String base = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
        ImmutableMap.Builder<String, String> config = ImmutableMap.builder();
        config.put("opa.policy.uri", base + "/allow");
        config.put("opa.policy.row-filters-uri", base + "/row-filters");
        config.put("opa.policy.column-masking-uri", base + "/column-mask");
        if (batched) {
            config.put("opa.policy.batched-uri", base + "/batch");
            config.put("opa.policy.batch-column-masking-uri", base + "/batch-column-masks");
        }
        String extra = System.getenv("TRINO_OPA_EXTRA_CONFIG");  // e.g. "opa.log-requests=true,opa.log-responses=true"
        if (extra != null && !extra.isBlank()) {
            for (String item : extra.split(",")) {
                int eq = item.indexOf('=');
                if (eq > 0) {
                    config.put(item.substring(0, eq).strip(), item.substring(eq + 1).strip());
                }
            }
        }
        return config.buildKeepingLast();
    }

    /** AccessControlManager#loadSystemAccessControl: factory.create with the plugin's context class loader. */
    private void load(String baseUrl)
    {
        shutdown();
        contexts.clear();
        try (ThreadContextClassLoader ignored = new ThreadContextClassLoader(factory.getClass().getClassLoader())) {
            accessControl = factory.create(config(baseUrl, batched), new Context());
        }
    }

    private void shutdown()
    {
        SystemAccessControl previous = accessControl;
        accessControl = null;
        if (previous != null) {
            try {
                previous.shutdown();
            }
            catch (RuntimeException e) {
                System.err.println("trino-opa-judge: shutdown of the previous access control failed: " + e);
            }
        }
    }

    static String describeLoadError(Throwable t)
    {
        // Guice/airlift wrap the real reason: skip the Guice wrappers, drop their class-name legends,
        // and report the remaining chain of distinct messages, outermost first.
        List<String> parts = new ArrayList<>();
        Throwable current = t;
        int depth = 0;
        while (current != null && depth++ < 10) {
            boolean guiceWrapper = current.getClass().getName().startsWith("com.google.inject.") && current.getCause() != null;
            if (!guiceWrapper) {
                String message = current.getMessage() == null ? "" : current.getMessage();
                int legend = message.indexOf("\n\n=====");
                if (legend >= 0) {
                    message = message.substring(0, legend);
                }
                message = message.strip().replaceAll("\\s*\\n\\s*", " ");
                String part = current.getClass().getSimpleName() + (message.isEmpty() ? "" : ": " + message);
                if (parts.stream().noneMatch(part::equals)) {
                    parts.add(part);
                }
            }
            current = current.getCause() == current ? null : current.getCause();
        }
        return parts.isEmpty() ? t.toString() : String.join(" | caused by: ", parts);
    }

    private SystemSecurityContext context(String user)
    {
        return contexts.computeIfAbsent(user, u -> new SystemSecurityContext(Identity.ofUser(u), queryId, queryStart));
    }

    /** One answer object; built whole before it is written, so a failure never leaves half an answer. */
    private ObjectNode answer(ObjectMapper mapper, String line)
    {
        ObjectNode answer = mapper.createObjectNode();
        try {
            JsonNode query = mapper.readTree(line);
            if (query == null || !query.isObject()) {
                throw new IllegalArgumentException("query is not a JSON object");
            }
            for (int attempt = 1; ; attempt++) {
                try {
                    evaluate(query, answer);
                    break;
                }
                catch (RuntimeException e) {
                    if (attempt >= 3 || !isJettyDestinationSweepRace(e)) {
                        throw e;
                    }
                    System.err.println("trino-opa-judge: retrying a request Jetty dropped before sending it (destination sweep race): " + line);
                    answer.removeAll();
                }
            }
        }
        catch (Exception e) {
            answer.removeAll();
            answer.put("error", describeError(e));
        }
        return answer;
    }

    /** "class: message", and the innermost cause when there is one (the plugin's "Failed to query OPA backend" hides it). */
    static String describeError(Throwable e)
    {
        String text = e.getClass().getName() + ": " + e.getMessage();
        Throwable root = e;
        for (int depth = 0; root.getCause() != null && root.getCause() != root && depth < 20; depth++) {
            root = root.getCause();
        }
        if (root != e) {
            text += " | caused by: " + root.getClass().getName() + ": " + root.getMessage();
        }
        return text;
    }

    /**
     * Jetty 12.0.22 (Trino 476's HTTP client) can sweep a just-created HttpDestination before the first
     * exchange is queued on it (jetty/jetty.project#14533, fixed after 12.0.22); the request then fails
     * inside the client with a NullPointerException on the stopped connection pool, without ever
     * reaching the endpoint. Only that failure is retried: it says nothing about the endpoint.
     */
    static boolean isJettyDestinationSweepRace(Throwable t)
    {
        boolean rejected = false;
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof java.util.concurrent.RejectedExecutionException) {
                rejected = true;
            }
            if (rejected && c instanceof NullPointerException && String.valueOf(c.getMessage()).contains("this.pool")) {
                for (StackTraceElement frame : c.getStackTrace()) {
                    if (frame.getClassName().startsWith("org.eclipse.jetty.client.")) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    private void evaluate(JsonNode q, ObjectNode answer)
    {
        String op = text(q, "op");
        if (op.equals("load")) {
            try {
                load(text(q, "url"));
                answer.put("loaded", true);
            }
            catch (Throwable t) {
                accessControl = null;
                answer.put("load_error", describeLoadError(t));
            }
            return;
        }
        if (accessControl == null) {
            throw new IllegalStateException("no endpoint loaded");
        }
        if (op.equals("filter_tables")) {
            Set<SchemaTableName> tables = new LinkedHashSet<>();
            for (JsonNode pair : array(q, "tables")) {
                if (!pair.isArray() || pair.size() != 2) {
                    throw new IllegalArgumentException("tables entries must be [schema, table]");
                }
                tables.add(new SchemaTableName(pair.get(0).asText(), pair.get(1).asText()));
            }
            Set<SchemaTableName> visible = accessControl.filterTables(context(text(q, "user")), text(q, "catalog"), tables);
            List<SchemaTableName> sorted = new ArrayList<>(visible);
            sorted.sort(Comparator.comparing(SchemaTableName::getSchemaName).thenComparing(SchemaTableName::getTableName));
            ArrayNode out = answer.putArray("tables");
            for (SchemaTableName table : sorted) {
                out.addArray().add(table.getSchemaName()).add(table.getTableName());
            }
            return;
        }
        if (op.equals("access_catalog")) {
            answer.put("allow", accessControl.canAccessCatalog(context(text(q, "user")), text(q, "catalog")));
            return;
        }

        SystemSecurityContext ctx = context(text(q, "user"));
        CatalogSchemaTableName table = new CatalogSchemaTableName(text(q, "catalog"), text(q, "schema"), text(q, "table"));
        switch (op) {
            case "filter_columns" -> {
                // Trino 476's SPI default for the one-table filterColumns(ctx, table, columns) returns an
                // empty set and the OPA plugin does not override it; the server (AccessControlManager)
                // calls the per-catalog filterColumns(ctx, catalog, {table: columns}), so that is asked here.
                SchemaTableName name = table.getSchemaTableName();
                Map<SchemaTableName, Set<String>> request = new LinkedHashMap<>();
                request.put(name, columns(q));
                Map<SchemaTableName, Set<String>> visible = accessControl.filterColumns(ctx, table.getCatalogName(), request);
                List<String> sorted = new ArrayList<>(visible.getOrDefault(name, Set.of()));
                sorted.sort(Comparator.naturalOrder());
                ArrayNode out = answer.putArray("columns");
                sorted.forEach(out::add);
            }
            case "column_mask" -> {
                ColumnSchema column = ColumnSchema.builder()
                        .setName(text(q, "column"))
                        .setType(type(q.path("type").asText("varchar")))
                        .build();
                Map<ColumnSchema, ViewExpression> masks = accessControl.getColumnMasks(ctx, table, List.of(column));
                ViewExpression mask = masks.get(column);
                if (mask == null) {
                    answer.putNull("mask");
                }
                else {
                    answer.put("mask", mask.getExpression());
                }
            }
            case "row_filters" -> {
                List<ViewExpression> filters = accessControl.getRowFilters(ctx, table);
                ArrayNode out = answer.putArray("filters");
                for (ViewExpression filter : filters) {
                    out.add(filter.getExpression());
                }
            }
            default -> {
                boolean allowed;
                try {
                    check(op, q, ctx, table);
                    allowed = true;
                }
                catch (AccessDeniedException e) {
                    allowed = false;
                }
                answer.put("allow", allowed);
            }
        }
    }

    private void check(String op, JsonNode q, SystemSecurityContext ctx, CatalogSchemaTableName table)
    {
        switch (op) {
            case "select" -> accessControl.checkCanSelectFromColumns(ctx, table, columns(q));
            case "insert" -> accessControl.checkCanInsertIntoTable(ctx, table);
            case "delete" -> accessControl.checkCanDeleteFromTable(ctx, table);
            case "update" -> accessControl.checkCanUpdateTableColumns(ctx, table, columns(q));
            case "ownership" -> accessControl.checkCanDropTable(ctx, table);
            case "create_table" -> accessControl.checkCanCreateTable(ctx, table, ImmutableMap.of());
            case "create_mv" -> accessControl.checkCanCreateMaterializedView(ctx, table, ImmutableMap.of());
            case "create_view" -> accessControl.checkCanCreateView(ctx, table);
            // What Trino asks of a view's owner for each object the view reads, when anyone
            // else queries the view (ViewAccessControl): SELECT on the columns and GRANT_SELECT.
            case "view_owner_select" -> accessControl.checkCanCreateViewWithSelectFromColumns(ctx, table, columns(q));
            case "show_columns" -> accessControl.checkCanShowColumns(ctx, table);
            // Listings: SHOW CATALOGS, SHOW SCHEMAS, SHOW TABLES (the query's table is not read).
            case "filter_catalogs" -> {
                if (accessControl.filterCatalogs(ctx, Set.of(table.getCatalogName())).isEmpty()) {
                    throw new AccessDeniedException("catalog filtered out");
                }
            }
            case "show_schemas" -> accessControl.checkCanShowSchemas(ctx, table.getCatalogName());
            case "filter_schemas" -> {
                if (accessControl.filterSchemas(ctx, table.getCatalogName(), Set.of(table.getSchemaTableName().getSchemaName())).isEmpty()) {
                    throw new AccessDeniedException("schema filtered out");
                }
            }
            case "show_tables" -> accessControl.checkCanShowTables(ctx, new CatalogSchemaName(table.getCatalogName(), table.getSchemaTableName().getSchemaName()));
            default -> throw new IllegalArgumentException("unknown op: " + op);
        }
    }

    private static String text(JsonNode q, String field)
    {
        JsonNode node = q.get(field);
        if (node == null || !node.isTextual()) {
            throw new IllegalArgumentException("missing string field: " + field);
        }
        return node.textValue();
    }

    private static JsonNode array(JsonNode q, String field)
    {
        JsonNode node = q.get(field);
        if (node == null || !node.isArray()) {
            throw new IllegalArgumentException("missing array field: " + field);
        }
        return node;
    }

    private static Set<String> columns(JsonNode q)
    {
        JsonNode node = q.get("columns");
        if (node == null || node.isNull()) {
            return ImmutableSet.of();
        }
        if (!node.isArray()) {
            throw new IllegalArgumentException("columns must be an array");
        }
        ImmutableSet.Builder<String> columns = ImmutableSet.builderWithExpectedSize(node.size());
        for (JsonNode column : node) {
            columns.add(column.asText());
        }
        return columns.build();
    }

    static Type type(String name)
    {
        String t = name.strip().toLowerCase(Locale.ROOT);
        Matcher m;
        if ((m = DECIMAL.matcher(t)).matches()) {
            int precision = Integer.parseInt(m.group(1));
            int scale = m.group(2) == null ? 0 : Integer.parseInt(m.group(2));
            return DecimalType.createDecimalType(precision, scale);
        }
        if ((m = TIMESTAMP.matcher(t)).matches()) {
            return TimestampType.createTimestampType(Integer.parseInt(m.group(1)));
        }
        if ((m = VARCHAR.matcher(t)).matches()) {
            return VarcharType.createVarcharType(Integer.parseInt(m.group(1)));
        }
        return switch (t) {
            case "bigint" -> BigintType.BIGINT;
            case "integer", "int" -> IntegerType.INTEGER;
            case "smallint" -> SmallintType.SMALLINT;
            case "tinyint" -> TinyintType.TINYINT;
            case "double" -> DoubleType.DOUBLE;
            case "real" -> RealType.REAL;
            case "boolean" -> BooleanType.BOOLEAN;
            case "date" -> DateType.DATE;
            case "timestamp" -> TimestampType.TIMESTAMP_MILLIS;
            case "decimal" -> DecimalType.createDecimalType();
            default -> VarcharType.VARCHAR;
        };
    }

    static final class Context
            implements SystemAccessControlFactory.SystemAccessControlContext
    {
        @Override
        public String getVersion()
        {
            return TRINO_VERSION;
        }

        @Override
        public OpenTelemetry getOpenTelemetry()
        {
            return OpenTelemetry.noop();
        }

        @Override
        public Tracer getTracer()
        {
            return OpenTelemetry.noop().getTracer("trino-opa-judge");
        }
    }
}

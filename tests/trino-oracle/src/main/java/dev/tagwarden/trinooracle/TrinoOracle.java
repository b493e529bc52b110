package dev.tagwarden.trinooracle;

import io.trino.spi.connector.CatalogSchemaName;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Tracer;
import io.trino.plugin.base.security.FileBasedSystemAccessControl;
import io.trino.spi.QueryId;
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
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Batch judge for differential tests: loads a Trino system file-based access control rules file
 * through Trino's own {@link FileBasedSystemAccessControl.Factory} (exactly what a Trino server does for
 * {@code access-control.name=file}, {@code security.config-file=PATH}) and answers JSON Lines queries.
 *
 * <p>Usage: {@code java -jar trino-oracle.jar RULES_JSON < queries.jsonl > answers.jsonl}
 */
public final class TrinoOracle
{
    static final String TRINO_VERSION = "483";
    private static final Pattern DECIMAL = Pattern.compile("decimal\\s*\\(\\s*(\\d+)\\s*(?:,\\s*(\\d+)\\s*)?\\)");
    private static final Pattern TIMESTAMP = Pattern.compile("timestamp\\s*\\(\\s*(\\d+)\\s*\\)");
    private static final Pattern VARCHAR = Pattern.compile("varchar\\s*\\(\\s*(\\d+)\\s*\\)");

    private SystemAccessControl accessControl;
    private final Map<String, SystemSecurityContext> contexts = new HashMap<>();
    private final QueryId queryId = new QueryId("trino_oracle");
    private final Instant queryStart = Instant.now();

    private TrinoOracle(SystemAccessControl accessControl)
    {
        this.accessControl = accessControl;
    }

    public static void main(String[] args)
            throws IOException
    {
        // Airlift bootstrap logs its configuration at INFO through java.util.logging (stderr); keep quiet.
        Logger.getLogger("").setLevel(Level.WARNING);

        if (args.length >= 1 && args[0].equals("--bench")) {
            System.exit(RulesBenchmark.run(java.util.Arrays.copyOfRange(args, 1, args.length)));
            return;
        }
        if (args.length != 1 || args[0].equals("-h") || args[0].equals("--help")) {
            System.err.println("usage: trino-oracle (RULES_JSON | --multi) < queries.jsonl > answers.jsonl   (trino-plugin-toolkit " + TRINO_VERSION + ")");
            System.err.println("       trino-oracle --bench RULES_JSON SAMPLES_JSONL [--loads N] [--warmup N] [--rounds N]   (prints one JSON object)");
            System.exit(2);
        }

        ObjectMapper mapper = new ObjectMapper();
        JsonFactory jsonFactory = mapper.getFactory();
        jsonFactory.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
        PrintStream stdout = System.out;

        SystemAccessControl accessControl = null;
        try {
            // --multi: no rules yet; the stream switches rules with {"op":"load","path":"..."} lines,
            // so one JVM judges many generated models.
            if (!args[0].equals("--multi")) {
                accessControl = load(Path.of(args[0]).toAbsolutePath().toString());
            }
        }
        catch (Throwable t) {
            BufferedWriter out = new BufferedWriter(new OutputStreamWriter(stdout, StandardCharsets.UTF_8));
            try (JsonGenerator gen = jsonFactory.createGenerator(out)) {
                gen.writeStartObject();
                gen.writeStringField("load_error", describeLoadError(t));
                gen.writeEndObject();
            }
            out.write('\n');
            out.flush();
            System.exit(3);
            return;
        }

        TrinoOracle oracle = new TrinoOracle(accessControl);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8), 1 << 16);
        BufferedWriter out = new BufferedWriter(new OutputStreamWriter(stdout, StandardCharsets.UTF_8), 1 << 16);
        JsonGenerator gen = jsonFactory.createGenerator(out);
        gen.setRootValueSeparator(null);
        String line;
        while ((line = in.readLine()) != null) {
            oracle.answer(mapper, gen, line);
            gen.flush();
            out.write('\n');
        }
        gen.close();
        out.flush();
    }

    /**
     * Exactly the server path: the "file" SystemAccessControlFactory with the config property
     * security.config-file (no refresh period, so the rules are read once).
     */
    static SystemAccessControl load(String rulesPath)
    {
        SystemAccessControlFactory factory = new FileBasedSystemAccessControl.Factory();
        return factory.create(ImmutableMap.of("security.config-file", rulesPath), new Context());
    }

    private static String describeLoadError(Throwable t)
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

    private void answer(ObjectMapper mapper, JsonGenerator gen, String line)
            throws IOException
    {
        gen.writeStartObject();
        try {
            JsonNode query = mapper.readTree(line);
            if (query == null || !query.isObject()) {
                throw new IllegalArgumentException("query is not a JSON object");
            }
            evaluate(query, gen);
        }
        catch (Exception e) {
            gen.writeStringField("error", e.getClass().getName() + ": " + e.getMessage());
        }
        gen.writeEndObject();
    }

    private void evaluate(JsonNode q, JsonGenerator gen)
            throws IOException
    {
        String op = text(q, "op");
        if (op.equals("load")) {
            contexts.clear();
            try {
                accessControl = load(Path.of(text(q, "path")).toAbsolutePath().toString());
                gen.writeBooleanField("loaded", true);
            }
            catch (Throwable t) {
                accessControl = null;
                gen.writeStringField("load_error", describeLoadError(t));
            }
            return;
        }
        if (accessControl == null) {
            throw new IllegalStateException("no rules loaded");
        }
        if (op.equals("filter_tables")) {
            Set<SchemaTableName> tables = new java.util.LinkedHashSet<>();
            for (JsonNode pair : array(q, "tables")) {
                if (!pair.isArray() || pair.size() != 2) {
                    throw new IllegalArgumentException("tables entries must be [schema, table]");
                }
                tables.add(new SchemaTableName(pair.get(0).asText(), pair.get(1).asText()));
            }
            Set<SchemaTableName> visible = accessControl.filterTables(context(text(q, "user")), text(q, "catalog"), tables);
            List<SchemaTableName> sorted = new ArrayList<>(visible);
            sorted.sort(Comparator.comparing(SchemaTableName::getSchemaName).thenComparing(SchemaTableName::getTableName));
            gen.writeArrayFieldStart("tables");
            for (SchemaTableName table : sorted) {
                gen.writeStartArray();
                gen.writeString(table.getSchemaName());
                gen.writeString(table.getTableName());
                gen.writeEndArray();
            }
            gen.writeEndArray();
            return;
        }
        if (op.equals("access_catalog")) {
            boolean allowed = accessControl.canAccessCatalog(context(text(q, "user")), text(q, "catalog"));
            gen.writeBooleanField("allow", allowed);
            return;
        }

        SystemSecurityContext ctx = context(text(q, "user"));
        CatalogSchemaTableName table = new CatalogSchemaTableName(text(q, "catalog"), text(q, "schema"), text(q, "table"));
        switch (op) {
            case "filter_columns" -> {
                Set<String> visible = accessControl.filterColumns(ctx, table, columns(q));
                List<String> sorted = new ArrayList<>(visible);
                sorted.sort(Comparator.naturalOrder());
                gen.writeArrayFieldStart("columns");
                for (String column : sorted) {
                    gen.writeString(column);
                }
                gen.writeEndArray();
            }
            case "column_mask" -> {
                ColumnSchema column = ColumnSchema.builder()
                        .setName(text(q, "column"))
                        .setType(type(q.path("type").asText("varchar")))
                        .build();
                Map<ColumnSchema, ViewExpression> masks = accessControl.getColumnMasks(ctx, table, List.of(column));
                ViewExpression mask = masks.get(column);
                if (mask == null) {
                    gen.writeNullField("mask");
                }
                else {
                    gen.writeStringField("mask", mask.getExpression());
                }
            }
            case "row_filters" -> {
                List<ViewExpression> filters = accessControl.getRowFilters(ctx, table);
                gen.writeArrayFieldStart("filters");
                for (ViewExpression filter : filters) {
                    gen.writeString(filter.getExpression());
                }
                gen.writeEndArray();
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
                gen.writeBooleanField("allow", allowed);
            }
        }
    }

    private void check(String op, JsonNode q, SystemSecurityContext ctx, CatalogSchemaTableName table)
    {
        switch (op) {
            case "select" -> accessControl.checkCanSelectFromColumns(ctx, table, Optional.empty(), columns(q));
            case "insert" -> accessControl.checkCanInsertIntoTable(ctx, table, Optional.empty());
            case "delete" -> accessControl.checkCanDeleteFromTable(ctx, table, Optional.empty());
            case "update" -> accessControl.checkCanUpdateTableColumns(ctx, table, Optional.empty(), columns(q));
            case "ownership" -> accessControl.checkCanDropTable(ctx, table);
            case "create_table" -> accessControl.checkCanCreateTable(ctx, table, ImmutableMap.of());
            case "create_mv" -> accessControl.checkCanCreateMaterializedView(ctx, table, ImmutableMap.of());
            case "create_view" -> accessControl.checkCanCreateView(ctx, table);
            // What Trino asks of a view's owner for each object the view reads, when anyone
            // else queries the view (ViewAccessControl): SELECT on the columns and GRANT_SELECT.
            case "view_owner_select" -> accessControl.checkCanCreateViewWithSelectFromColumns(ctx, table, Optional.empty(), columns(q));
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

    private static final class Context
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
            return OpenTelemetry.noop().getTracer("trino-oracle");
        }
    }
}

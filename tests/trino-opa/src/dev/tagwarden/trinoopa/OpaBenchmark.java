package dev.tagwarden.trinoopa;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.common.collect.ImmutableSet;
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

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * Benchmark mode of the OPA judge: what the checks cost Trino 476's OPA access control against a
 * decision endpoint, measured like tests/trino-oracle's RulesBenchmark (same samples, same rounds,
 * same output field names, same decisions digest).
 *
 * <p>There is no document to load: {@code startup_ms} is the time of {@code factory.create} (which
 * does not contact the endpoint) and {@code bytes} is 0. Then, untimed, every sample's decisions are
 * hashed exactly as RulesBenchmark hashes them (so an endpoint deciding like a file-based rules
 * document gives the same sha256), then checkCanSelectFromColumns and filterColumns are timed per
 * sample, each call alone. filterColumns is the per-catalog form, as in the judge's filter_columns
 * op (the one-table form is an SPI default returning an empty set in 476, see README.md).
 */
final class OpaBenchmark
{
    private OpaBenchmark() {}

    private record Sample(String user, CatalogSchemaTableName table, Set<String> columns, List<ColumnSchema> schemas,
            Map<SchemaTableName, Set<String>> filterRequest) {}

    /** Calls that failed only because of Jetty's destination sweep race (see TrinoOpaJudge) and were retried. */
    private static int retries;

    static int run(List<String> args, boolean batched)
            throws IOException
    {
        // jol (reached by the plugin's HTTP client) prints warnings on System.out: keep stdout for the result.
        PrintStream stdout = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.setOut(System.err);
        if (args.size() < 2) {
            System.err.println("usage: trino-opa-judge [--batched] --bench BASE_URL SAMPLES_JSONL [--warmup N] [--rounds N] [--max-seconds S] [--decision-samples N] [--decisions FILE]");
            return 2;
        }
        String baseUrl = args.get(0);
        Path samplesPath = Path.of(args.get(1));
        int warmup = 3;
        int rounds = 5;
        double maxSeconds = 60;
        Path decisionsOut = null;
        int decisionSamples = Integer.MAX_VALUE;
        for (int i = 2; i < args.size(); i++) {
            String option = args.get(i);
            if (i + 1 >= args.size()) {
                System.err.println("missing value for " + option);
                return 2;
            }
            switch (option) {
                case "--warmup" -> warmup = Integer.parseInt(args.get(++i));
                case "--rounds" -> rounds = Integer.parseInt(args.get(++i));
                case "--max-seconds" -> maxSeconds = Double.parseDouble(args.get(++i));
                case "--decisions" -> decisionsOut = Path.of(args.get(++i));
                case "--decision-samples" -> decisionSamples = Integer.parseInt(args.get(++i));
                default -> {
                    System.err.println("unknown option " + option);
                    return 2;
                }
            }
        }
        ObjectMapper mapper = new ObjectMapper();
        ObjectNode out = mapper.createObjectNode();
        out.put("url", baseUrl);
        out.put("mode", batched ? "batched" : "single");
        out.put("bytes", 0);
        out.put("trino_version", TrinoOpaJudge.TRINO_VERSION);

        // --- startup: the plugin's class loader (once per server), then the access control itself
        SystemAccessControl ac;
        try {
            long t0 = System.nanoTime();
            SystemAccessControlFactory factory = TrinoOpaJudge.opaFactory();
            long t1 = System.nanoTime();
            try (ThreadContextClassLoader ignored = new ThreadContextClassLoader(factory.getClass().getClassLoader())) {
                ac = factory.create(TrinoOpaJudge.config(baseUrl, batched), new TrinoOpaJudge.Context());
            }
            long t2 = System.nanoTime();
            out.put("plugin_load_ms", (t1 - t0) / 1e6);
            out.put("startup_ms", (t2 - t1) / 1e6);
            System.err.printf("trino-opa bench: plugin %.1f ms, access control created in %.1f ms (%s)%n", (t1 - t0) / 1e6, (t2 - t1) / 1e6, batched ? "batched" : "single");
        }
        catch (Throwable t) {
            out.put("load_error", TrinoOpaJudge.describeLoadError(t));
            stdout.println(mapper.writeValueAsString(out));
            return 3;
        }

        // --- samples (the oracle's format)
        List<Sample> samples = new ArrayList<>();
        try (BufferedReader in = Files.newBufferedReader(samplesPath, StandardCharsets.UTF_8)) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.isBlank()) {
                    continue;
                }
                JsonNode q = mapper.readTree(line);
                Set<String> cols = new LinkedHashSet<>();
                List<ColumnSchema> schemas = new ArrayList<>();
                JsonNode types = q.path("types");
                int k = 0;
                for (JsonNode c : q.path("columns")) {
                    cols.add(c.asText());
                    String type = types.isArray() && k < types.size() ? types.get(k).asText() : "varchar";
                    schemas.add(ColumnSchema.builder().setName(c.asText()).setType(TrinoOpaJudge.type(type)).build());
                    k++;
                }
                CatalogSchemaTableName table = new CatalogSchemaTableName(q.get("catalog").asText(), q.get("schema").asText(), q.get("table").asText());
                // Columns are sent in the sample's order (ImmutableSet keeps it; the answers do not depend on it).
                Set<String> columns = ImmutableSet.copyOf(cols);
                samples.add(new Sample(q.get("user").asText(), table, columns, schemas, Map.of(table.getSchemaTableName(), columns)));
            }
        }
        out.put("samples", samples.size());
        QueryId queryId = new QueryId("trino_opa_bench");
        Instant start = Instant.now();
        List<SystemSecurityContext> contexts = new ArrayList<>(samples.size());
        for (Sample s : samples) {
            contexts.add(new SystemSecurityContext(Identity.ofUser(s.user()), queryId, start));
        }

        int phaseSample = -1;
        String phase = "decisions";
        try {
            // --- decisions (untimed): the same lines and digest as RulesBenchmark
            MessageDigest sha;
            try {
                sha = MessageDigest.getInstance("SHA-256");
            }
            catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
            int allowed = 0;
            long visible = 0;
            int masks = 0;
            int filters = 0;
            // Not hashed (RulesBenchmark hashes only the expressions): the other fields of every
            // ViewExpression, counted, so they can be compared with the file-based access control's.
            Map<String, Integer> viewFields = new TreeMap<>();
            BufferedWriter decisions = decisionsOut == null ? null : Files.newBufferedWriter(decisionsOut, StandardCharsets.UTF_8);
            int decided = Math.min(decisionSamples, samples.size());
            for (int i = 0; i < decided; i++) {
                phaseSample = i;
                Sample s = samples.get(i);
                SystemSecurityContext ctx = contexts.get(i);
                boolean allow = select(ac, ctx, s);
                Set<String> vis = new TreeSet<>(filter(ac, ctx, s));
                Map<ColumnSchema, ViewExpression> m = retrying(() -> ac.getColumnMasks(ctx, s.table(), s.schemas()));
                List<String> maskList = new ArrayList<>();
                for (ColumnSchema c : s.schemas()) {
                    ViewExpression e = m.get(c);
                    if (e != null) {
                        maskList.add(c.getName() + "=" + e.getExpression());
                        viewFields.merge(describe("mask", s.table(), e), 1, Integer::sum);
                    }
                }
                List<String> filterList = new ArrayList<>();
                for (ViewExpression f : retrying(() -> ac.getRowFilters(ctx, s.table()))) {
                    filterList.add(f.getExpression());
                    viewFields.merge(describe("row_filter", s.table(), f), 1, Integer::sum);
                }
                allowed += allow ? 1 : 0;
                visible += vis.size();
                masks += maskList.size();
                filters += filterList.size();
                String line = s.user() + "\t" + s.table() + "\t" + allow + "\t" + vis + "\t" + maskList + "\t" + filterList + "\n";
                sha.update(line.getBytes(StandardCharsets.UTF_8));
                if (decisions != null) {
                    decisions.write(line);
                }
            }
            if (decisions != null) {
                decisions.close();
            }
            ObjectNode d = out.putObject("decisions");
            d.put("samples", decided);
            d.put("select_allowed", allowed);
            d.put("visible_columns", visible);
            d.put("masks", masks);
            d.put("row_filters", filters);
            d.put("sha256", HexFormat.of().formatHex(sha.digest()));
            ObjectNode vf = out.putObject("view_expression_fields");
            viewFields.forEach(vf::put);
            System.err.printf("trino-opa bench: decisions of %d samples, sha256 %s%n", decided, d.get("sha256").asText());

            // --- warm up, then time each call (as RulesBenchmark)
            phase = "warmup";
            long warmupDeadline = System.nanoTime() + (long) (maxSeconds * 0.5e9);
            int warmed = 0;
            for (int w = 0; w < warmup && (w == 0 || System.nanoTime() < warmupDeadline); w++) {
                warmed++;
                for (int i = 0; i < samples.size() && (i < 10 || System.nanoTime() < warmupDeadline); i++) {
                    phaseSample = i;
                    select(ac, contexts.get(i), samples.get(i));
                    filter(ac, contexts.get(i), samples.get(i));
                }
            }
            phase = "timed";
            List<long[]> selectRounds = new ArrayList<>();
            List<long[]> filterRounds = new ArrayList<>();
            long deadline = System.nanoTime() + (long) (maxSeconds * 1e9);
            int done = 0;
            for (int r = 0; r < Math.max(1, rounds); r++) {
                long[] sel = new long[samples.size()];
                long[] fil = new long[samples.size()];
                int n = 0;
                for (int i = 0; i < samples.size() && (i < 10 || System.nanoTime() < deadline); i++, n++) {
                    phaseSample = i;
                    Sample s = samples.get(i);
                    SystemSecurityContext ctx = contexts.get(i);
                    long t0 = System.nanoTime();
                    select(ac, ctx, s);
                    long t1 = System.nanoTime();
                    filter(ac, ctx, s);
                    long t2 = System.nanoTime();
                    sel[i] = t1 - t0;
                    fil[i] = t2 - t1;
                }
                selectRounds.add(Arrays.copyOf(sel, n));
                filterRounds.add(Arrays.copyOf(fil, n));
                done++;
                System.err.printf("trino-opa bench: timed round %d, %d samples%n", r + 1, n);
                if (System.nanoTime() > deadline) {
                    break;
                }
            }
            out.put("warmup_rounds", warmed);
            out.put("timed_rounds", done);
            out.set("check_can_select_from_columns", stats(mapper, selectRounds));
            out.set("filter_columns", stats(mapper, filterRounds));
            out.put("jetty_retries", retries);
        }
        catch (RuntimeException e) {
            // An endpoint failure is an error, never a deny: report it and stop.
            out.put("error", phase + ", sample " + phaseSample + ": " + TrinoOpaJudge.describeError(e));
            out.put("jetty_retries", retries);
            stdout.println(mapper.writeValueAsString(out));
            shutdown(ac);
            return 3;
        }
        stdout.println(mapper.writeValueAsString(out));
        shutdown(ac);
        return 0;
    }

    private static boolean select(SystemAccessControl ac, SystemSecurityContext ctx, Sample s)
    {
        try {
            retrying(() -> {
                ac.checkCanSelectFromColumns(ctx, s.table(), s.columns());
                return null;
            });
            return true;
        }
        catch (AccessDeniedException e) {
            return false;
        }
    }

    /** The per-catalog filterColumns, as the 476 server (and the judge's filter_columns op) calls it. */
    private static Set<String> filter(SystemAccessControl ac, SystemSecurityContext ctx, Sample s)
    {
        Map<SchemaTableName, Set<String>> visible = retrying(() -> ac.filterColumns(ctx, s.table().getCatalogName(), s.filterRequest()));
        return visible.getOrDefault(s.table().getSchemaTableName(), Set.of());
    }

    /** Only Jetty's destination sweep race (a request that never reached the endpoint) is retried. */
    private static <T> T retrying(Supplier<T> call)
    {
        for (int attempt = 1; ; attempt++) {
            try {
                return call.get();
            }
            catch (RuntimeException e) {
                if (attempt >= 3 || !TrinoOpaJudge.isJettyDestinationSweepRace(e)) {
                    throw e;
                }
                retries++;
                System.err.println("trino-opa bench: retrying a request Jetty dropped before sending it (destination sweep race)");
            }
        }
    }

    /** The fields of a ViewExpression besides the expression; catalog/schema equal to the table's are written as such. */
    private static String describe(String kind, CatalogSchemaTableName table, ViewExpression e)
    {
        String catalog = e.getCatalog().map(c -> c.equals(table.getCatalogName()) ? "<table's>" : c).orElse("<none>");
        String schema = e.getSchema().map(c -> c.equals(table.getSchemaTableName().getSchemaName()) ? "<table's>" : c).orElse("<none>");
        return kind + " identity=" + e.getSecurityIdentity().orElse("<none>") + " catalog=" + catalog + " schema=" + schema + " path=" + e.getPath();
    }

    private static void shutdown(SystemAccessControl ac)
    {
        try {
            ac.shutdown();
        }
        catch (RuntimeException e) {
            System.err.println("trino-opa bench: shutdown failed: " + e);
        }
    }

    private static ObjectNode stats(ObjectMapper mapper, List<long[]> rounds)
    {
        long[] all = rounds.stream().flatMapToLong(Arrays::stream).toArray();
        ObjectNode n = mapper.createObjectNode();
        n.put("calls", all.length);
        n.put("median_us", percentile(all, 50) / 1e3);
        n.put("p99_us", percentile(all, 99) / 1e3);
        n.put("mean_us", all.length == 0 ? 0 : Arrays.stream(all).average().orElse(0) / 1e3);
        n.put("max_us", all.length == 0 ? 0 : Arrays.stream(all).max().orElse(0) / 1e3);
        return n;
    }

    /** Nearest-rank percentile (sorts in place), as RulesBenchmark. */
    private static double percentile(long[] xs, double p)
    {
        if (xs.length == 0) {
            return 0;
        }
        Arrays.sort(xs);
        int rank = (int) Math.ceil(p / 100.0 * xs.length);
        return xs[Math.min(xs.length - 1, Math.max(0, rank - 1))];
    }
}

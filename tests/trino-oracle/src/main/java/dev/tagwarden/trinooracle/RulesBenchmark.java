package dev.tagwarden.trinooracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trino.spi.QueryId;
import io.trino.spi.connector.CatalogSchemaTableName;
import io.trino.spi.connector.ColumnSchema;
import io.trino.spi.security.AccessDeniedException;
import io.trino.spi.security.Identity;
import io.trino.spi.security.SystemAccessControl;
import io.trino.spi.security.SystemSecurityContext;
import io.trino.spi.security.ViewExpression;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
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
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Benchmark mode: what a rules document costs Trino. Loads RULES_JSON through the same factory a
 * server uses (median of --loads loads), then times checkCanSelectFromColumns and filterColumns
 * for every (user, table, columns) sample of SAMPLES_JSONL, after --warmup untimed rounds, over
 * --rounds timed rounds (or until --max-seconds). Prints one JSON object on stdout.
 *
 * <p>It also prints a digest of the decisions (select allowed, visible columns, masks and row
 * filters of every sample), so two renderings of the same policy can be shown to agree.
 *
 * <p>SAMPLES_JSONL lines: {"user":U,"catalog":C,"schema":S,"table":T,"columns":[...],"types":[...]}
 * (types optional, varchar by default; only masks use them).
 */
final class RulesBenchmark
{
    private RulesBenchmark() {}

    private record Sample(String user, CatalogSchemaTableName table, Set<String> columns, List<ColumnSchema> schemas) {}

    static int run(String[] args)
            throws IOException
    {
        if (args.length < 2) {
            System.err.println("usage: trino-oracle --bench RULES_JSON SAMPLES_JSONL [--loads N] [--warmup N] [--rounds N] [--max-seconds S] [--decisions FILE] [--decision-samples N]");
            return 2;
        }
        Path rules = Path.of(args[0]).toAbsolutePath();
        Path samplesPath = Path.of(args[1]);
        int loads = 5;
        int warmup = 3;
        int rounds = 5;
        double maxSeconds = 60;
        Path decisionsOut = null;
        int decisionSamples = Integer.MAX_VALUE;
        for (int i = 2; i < args.length; i++) {
            switch (args[i]) {
                case "--loads" -> loads = Integer.parseInt(args[++i]);
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--max-seconds" -> maxSeconds = Double.parseDouble(args[++i]);
                case "--decisions" -> decisionsOut = Path.of(args[++i]);
                case "--decision-samples" -> decisionSamples = Integer.parseInt(args[++i]);
                default -> {
                    System.err.println("unknown option " + args[i]);
                    return 2;
                }
            }
        }
        ObjectMapper mapper = new ObjectMapper();
        ObjectNode out = mapper.createObjectNode();
        out.put("rules", rules.toString());
        out.put("bytes", Files.size(rules));
        out.put("trino_version", TrinoOracle.TRINO_VERSION);
        try {
            JsonNode doc = mapper.readTree(rules.toFile());
            out.put("table_rules", doc.path("tables").size());
            doc = null;
        }
        catch (IOException e) {
            out.put("table_rules", -1);
        }

        // --- load: parse + build the access control, as the server does (median of several)
        long[] loadNanos = new long[Math.max(1, loads)];
        SystemAccessControl ac = null;
        try {
            for (int i = 0; i < loadNanos.length; i++) {
                ac = null;
                System.gc();
                long t0 = System.nanoTime();
                ac = TrinoOracle.load(rules.toString());
                loadNanos[i] = System.nanoTime() - t0;
                System.err.printf("trino-oracle bench: load %d/%d %.1f ms%n", i + 1, loadNanos.length, loadNanos[i] / 1e6);
            }
        }
        catch (Throwable t) {
            out.put("load_error", t.toString());
            System.out.println(mapper.writeValueAsString(out));
            return 3;
        }
        out.set("load_ms", mapper.valueToTree(Arrays.stream(loadNanos).mapToDouble(n -> n / 1e6).toArray()));
        out.put("load_ms_median", percentile(loadNanos.clone(), 50) / 1e6);
        System.gc();
        Runtime rt = Runtime.getRuntime();
        out.put("heap_used_mb_after_load", (rt.totalMemory() - rt.freeMemory()) / 1048576.0);

        // --- samples
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
                    schemas.add(ColumnSchema.builder().setName(c.asText()).setType(TrinoOracle.type(type)).build());
                    k++;
                }
                samples.add(new Sample(q.get("user").asText(),
                        new CatalogSchemaTableName(q.get("catalog").asText(), q.get("schema").asText(), q.get("table").asText()),
                        Set.copyOf(cols), schemas));
            }
        }
        out.put("samples", samples.size());
        QueryId queryId = new QueryId("trino_oracle_bench");
        Instant start = Instant.now();
        List<SystemSecurityContext> contexts = new ArrayList<>(samples.size());
        for (Sample s : samples) {
            contexts.add(new SystemSecurityContext(Identity.ofUser(s.user()), queryId, start));
        }

        // --- decisions (untimed): the digest shows two documents decide alike
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
        BufferedWriter decisions = decisionsOut == null ? null : Files.newBufferedWriter(decisionsOut, StandardCharsets.UTF_8);
        int decided = Math.min(decisionSamples, samples.size());
        for (int i = 0; i < decided; i++) {
            Sample s = samples.get(i);
            SystemSecurityContext ctx = contexts.get(i);
            boolean allow = select(ac, ctx, s);
            Set<String> vis = new TreeSet<>(ac.filterColumns(ctx, s.table(), s.columns()));
            Map<ColumnSchema, ViewExpression> m = ac.getColumnMasks(ctx, s.table(), s.schemas());
            List<String> maskList = new ArrayList<>();
            for (ColumnSchema c : s.schemas()) {
                ViewExpression e = m.get(c);
                if (e != null) {
                    maskList.add(c.getName() + "=" + e.getExpression());
                }
            }
            List<String> filterList = new ArrayList<>();
            for (ViewExpression f : ac.getRowFilters(ctx, s.table())) {
                filterList.add(f.getExpression());
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

        // --- warm up, then time each call
        long warmupDeadline = System.nanoTime() + (long) (maxSeconds * 0.5e9);
        int warmed = 0;
        for (int w = 0; w < warmup && (w == 0 || System.nanoTime() < warmupDeadline); w++) {
            warmed++;
            for (int i = 0; i < samples.size() && (i < 10 || System.nanoTime() < warmupDeadline); i++) {
                select(ac, contexts.get(i), samples.get(i));
                ac.filterColumns(contexts.get(i), samples.get(i).table(), samples.get(i).columns());
            }
        }
        List<long[]> selectRounds = new ArrayList<>();
        List<long[]> filterRounds = new ArrayList<>();
        long deadline = System.nanoTime() + (long) (maxSeconds * 1e9);
        int done = 0;
        for (int r = 0; r < Math.max(1, rounds); r++) {
            long[] sel = new long[samples.size()];
            long[] fil = new long[samples.size()];
            int n = 0;
            for (int i = 0; i < samples.size() && (i < 10 || System.nanoTime() < deadline); i++, n++) {
                Sample s = samples.get(i);
                SystemSecurityContext ctx = contexts.get(i);
                long t0 = System.nanoTime();
                select(ac, ctx, s);
                long t1 = System.nanoTime();
                ac.filterColumns(ctx, s.table(), s.columns());
                long t2 = System.nanoTime();
                sel[i] = t1 - t0;
                fil[i] = t2 - t1;
            }
            selectRounds.add(Arrays.copyOf(sel, n));
            filterRounds.add(Arrays.copyOf(fil, n));
            done++;
            if (System.nanoTime() > deadline) {
                break;
            }
        }
        out.put("warmup_rounds", warmed);
        out.put("timed_rounds", done);
        out.set("check_can_select_from_columns", stats(mapper, selectRounds));
        out.set("filter_columns", stats(mapper, filterRounds));
        System.out.println(mapper.writeValueAsString(out));
        return 0;
    }

    private static boolean select(SystemAccessControl ac, SystemSecurityContext ctx, Sample s)
    {
        try {
            ac.checkCanSelectFromColumns(ctx, s.table(), Optional.empty(), s.columns());
            return true;
        }
        catch (AccessDeniedException e) {
            return false;
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

    /** Nearest-rank percentile (sorts in place). */
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

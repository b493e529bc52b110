// Generates tagwarden's table of Java's identifier lowercasing (String.toLowerCase(Locale.ENGLISH)),
// which is how Trino lowercases catalog, schema, table and column names (SchemaTableName, ColumnMetadata).
//
//   J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java   # Trino 483 runs on Java 25: generate with JDK 25
//   $J scripts/GenJavaLowercase.java table   > src/util/java_lowercase_table.inc
//   $J scripts/GenJavaLowercase.java vectors > tests/unit/data/java_lowercase_vectors.txt
//
// `table` writes a C++ fragment (included by src/util/text.cpp):
//   - kSimpleLower: Character.toLowerCase(int) for every code point it does not map to itself, as
//     ranges {first, last, stride, delta}: each cp = first + k*stride (cp <= last) lowers to cp + delta;
//   - kFullLower: the code points whose one-code-point String.toLowerCase(Locale.ENGLISH) differs from
//     Character.toLowerCase (unconditional multi-char mappings), with their UTF-8 lowercase;
//   - kContextLower: the code points whose String.toLowerCase depends on the text around them
//     (found by lowercasing each code point between assorted neighbours and comparing with the
//     per-code-point result).
// `vectors` writes the expected results for the unit test (tests/unit/test_identifier_case.cpp):
//   `C <cp> <lower>` for every code point Character.toLowerCase changes (hex; all others map to
//   themselves), `D <sha256>` a digest of Character.toLowerCase over all 0..0x10FFFF, and
//   `S <input hex utf-8> <output hex utf-8>` strings lowercased by String.toLowerCase(Locale.ENGLISH)
//   (random mixes of cased letters, ASCII, multi-char and context-free code points).
// The run fails (exit 1) if the JDK does something this table format cannot express.

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.*;

public class GenJavaLowercase {
  static final int MAX = 0x10FFFF;

  static String str(int cp) { return new String(Character.toChars(cp)); }

  static String lowerPerCodePoint(String s, Map<Integer, String> full) {
    StringBuilder b = new StringBuilder();
    s.codePoints().forEach(cp -> {
      String f = full.get(cp);
      if (f != null) b.append(f); else b.appendCodePoint(Character.toLowerCase(cp));
    });
    return b.toString();
  }

  static String hexCodePoints(String s) {
    StringBuilder b = new StringBuilder();
    s.codePoints().forEach(cp -> b.append(b.length() == 0 ? "" : " ").append(String.format("U+%04X", cp)));
    return b.toString();
  }

  static String utf8Hex(String s) {
    StringBuilder b = new StringBuilder();
    for (byte x : s.getBytes(StandardCharsets.UTF_8)) b.append(String.format("%02x", x & 0xff));
    return b.toString();
  }

  static String cEscape(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (byte x : s.getBytes(StandardCharsets.UTF_8)) b.append(String.format("\\x%02X", x & 0xff));
    return b.append('"').toString();
  }

  static boolean isSurrogate(int cp) { return cp >= 0xD800 && cp <= 0xDFFF; }

  public static void main(String[] args) throws Exception {
    if (args.length != 1 || !(args[0].equals("table") || args[0].equals("vectors"))) {
      System.err.println("usage: java GenJavaLowercase.java table|vectors");
      System.exit(2);
    }
    // 1. Unconditional multi-char (or otherwise different) lowercase of a lone code point.
    TreeMap<Integer, String> full = new TreeMap<>();
    for (int cp = 0; cp <= MAX; cp++) {
      if (isSurrogate(cp)) continue;  // a lone surrogate is not valid UTF-8: never reaches the table
      String s = str(cp).toLowerCase(Locale.ENGLISH);
      if (!s.equals(str(Character.toLowerCase(cp)))) full.put(cp, s);
    }
    // 2. Context-dependent lowercase: the code point between neighbours lowers differently from
    //    its per-code-point result (Final_Sigma and the like).
    String[] before = {"", "a", "A", "1", " ", "a'", "a.", "a\u00AD", "\u00E9", "\u0391", "a_"};
    String[] after = {"", "a", "A", "1", " ", "'a", ".a", "\u00ADa", "\u00E9", "\u0391", "_a"};
    TreeSet<Integer> context = new TreeSet<>();
    for (int cp = 0; cp <= MAX; cp++) {
      if (isSurrogate(cp)) continue;
      outer:
      for (String p : before) {
        for (String q : after) {
          String s = p + str(cp) + q;
          if (!s.toLowerCase(Locale.ENGLISH).equals(lowerPerCodePoint(s, full))) {
            context.add(cp);
            break outer;
          }
        }
      }
    }
    // The neighbours in the contexts must themselves be context-free, or the search proves nothing.
    for (String p : before) for (String q : after) for (int cp : (p + q).codePoints().toArray())
      if (context.contains(cp)) throw new IllegalStateException("context neighbour is context-dependent");

    if (args[0].equals("table")) writeTable(full, context); else writeVectors(full, context);
  }

  static void writeTable(TreeMap<Integer, String> full, TreeSet<Integer> context) {
    List<int[]> ranges = new ArrayList<>();  // {first, last, stride, delta}
    for (int cp = 0; cp <= MAX; cp++) {
      int lo = Character.toLowerCase(cp);
      if (lo == cp) continue;
      int delta = lo - cp;
      if (!ranges.isEmpty()) {
        int[] r = ranges.get(ranges.size() - 1);
        if (r[3] == delta) {
          int stride = cp - r[1];
          if (r[0] == r[1] && (stride == 1 || stride == 2)) { r[2] = stride; r[1] = cp; continue; }
          if (r[0] != r[1] && stride == r[2]) { r[1] = cp; continue; }
        }
      }
      ranges.add(new int[] {cp, cp, 1, delta});
    }
    PrintStreamOut o = new PrintStreamOut();
    o.p("// GENERATED by scripts/GenJavaLowercase.java -- do not edit.");
    o.p("// Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vendor") + "): Character.toLowerCase(int)");
    o.p("// and String.toLowerCase(Locale.ENGLISH), which is how Trino lowercases identifiers. Regenerate with");
    o.p("//   /usr/lib/jvm/temurin-25-jdk-amd64/bin/java scripts/GenJavaLowercase.java table > src/util/java_lowercase_table.inc");
    o.p("//   /usr/lib/jvm/temurin-25-jdk-amd64/bin/java scripts/GenJavaLowercase.java vectors > tests/unit/data/java_lowercase_vectors.txt");
    o.p("// (use the JDK of the Trino release being targeted; Trino 483 runs on Java 25).");
    o.p("// " + ranges.size() + " ranges cover " + ranges.stream().mapToInt(r -> (r[1] - r[0]) / r[2] + 1).sum() + " code points.");
    o.p("");
    o.p("// Character.toLowerCase(int): {first, last, stride, delta}; first + k*stride (<= last) lowers to cp + delta.");
    o.p("constexpr SimpleLowerRange kSimpleLower[] = {");
    for (int[] r : ranges)
      o.p(String.format("    {0x%04X, 0x%04X, %d, %d},", r[0], r[1], r[2], r[3]));
    o.p("};");
    o.p("");
    o.p("// One code point whose String.toLowerCase(Locale.ENGLISH) differs from Character.toLowerCase.");
    o.p("constexpr FullLower kFullLower[] = {");
    for (var e : full.entrySet())
      o.p(String.format("    {0x%04X, %s},  // -> %s", e.getKey(), cEscape(e.getValue()), hexCodePoints(e.getValue())));
    o.p("};");
    o.p("");
    o.p("// Code points whose String.toLowerCase(Locale.ENGLISH) depends on the surrounding text.");
    o.p("constexpr char32_t kContextLower[] = {");
    for (int cp : context) o.p(String.format("    0x%04X,  // %s", cp, Character.getName(cp)));
    o.p("};");
    o.flush();
  }

  static void writeVectors(TreeMap<Integer, String> full, TreeSet<Integer> context) throws Exception {
    PrintStreamOut o = new PrintStreamOut();
    o.p("# GENERATED by scripts/GenJavaLowercase.java vectors (Java " + System.getProperty("java.version") + ") -- do not edit.");
    o.p("# C cp lower: Character.toLowerCase(cp) != cp (every such code point; the rest map to themselves)");
    o.p("# D sha256 over Character.toLowerCase(cp) for cp = 0..0x10FFFF, each as 4 bytes big-endian");
    o.p("# S in out: String.toLowerCase(Locale.ENGLISH) of UTF-8 in (hex) is UTF-8 out (hex)");
    o.p("# X cp: the code point's lowercase depends on context (must be refused, not folded)");
    MessageDigest sha = MessageDigest.getInstance("SHA-256");
    for (int cp = 0; cp <= MAX; cp++) {
      int lo = Character.toLowerCase(cp);
      if (lo != cp) o.p(String.format("C %x %x", cp, lo));
      sha.update(new byte[] {(byte) (lo >>> 24), (byte) (lo >>> 16), (byte) (lo >>> 8), (byte) lo});
    }
    o.p("D " + HexFormat.of().formatHex(sha.digest()));
    for (int cp : context) o.p(String.format("X %x", cp));
    // Strings: every multi-char code point alone and in words, then random mixes.
    List<String> samples = new ArrayList<>();
    for (int cp : full.keySet()) {
      samples.add(str(cp));
      samples.add("x" + str(cp) + "Y");
      samples.add(str(cp) + "NVOICES");
    }
    samples.add("ABC_def-123");
    samples.add("\u00C9TABLE");
    List<Integer> pool = new ArrayList<>();
    for (int cp = 0; cp <= MAX; cp++) {
      if (isSurrogate(cp) || context.contains(cp)) continue;
      if (Character.toLowerCase(cp) != cp || Character.toUpperCase(cp) != cp || full.containsKey(cp)) pool.add(cp);
    }
    Random rnd = new Random(20261130L);
    String ascii = "abcXYZ_09.$ ";
    for (int n = 0; n < 1500; n++) {
      StringBuilder b = new StringBuilder();
      int len = 1 + rnd.nextInt(6);
      for (int k = 0; k < len; k++) {
        int pick = rnd.nextInt(10);
        if (pick < 2) b.append(ascii.charAt(rnd.nextInt(ascii.length())));
        else if (pick < 3) b.appendCodePoint(rnd.nextInt(0x30000));
        else b.appendCodePoint(pool.get(rnd.nextInt(pool.size())));
      }
      String s = b.toString();
      if (s.codePoints().anyMatch(c -> isSurrogate(c) || context.contains(c))) continue;
      samples.add(s);
    }
    for (String s : samples) o.p("S " + utf8Hex(s) + " " + utf8Hex(s.toLowerCase(Locale.ENGLISH)));
    o.flush();
  }

  static final class PrintStreamOut {
    final StringBuilder b = new StringBuilder();
    void p(String line) { b.append(line).append('\n'); }
    void flush() {
      System.out.write(b.toString().getBytes(StandardCharsets.UTF_8), 0, b.toString().getBytes(StandardCharsets.UTF_8).length);
      System.out.flush();
    }
  }
}

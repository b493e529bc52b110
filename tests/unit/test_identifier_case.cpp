// lowercase_identifier / has_context_dependent_lowercase (util/text.h): Trino lowercases identifiers with
// Java's String.toLowerCase(Locale.ENGLISH); a rule keyed by any other lowercase never matches the name
// Trino sees and the object falls through to a broader grant. Expected values come from Java itself:
// tests/unit/data/java_lowercase_vectors.txt (scripts/GenJavaLowercase.java vectors).

#include <openssl/evp.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tagwarden/util/text.h"

namespace {

std::string utf8(char32_t cp) {
  std::string out;
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return out;
}

std::string unhex(const std::string& hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return out;
}

struct Vectors {
  std::map<char32_t, char32_t> simple;                    // C: Character.toLowerCase(cp) != cp
  std::string digest;                                     // D
  std::vector<std::pair<std::string, std::string>> strs;  // S: String.toLowerCase(Locale.ENGLISH)
  std::set<char32_t> context;                             // X
};

const Vectors& vectors() {
  static const Vectors v = [] {
    Vectors out;
    std::ifstream in(std::string(TAGWARDEN_SOURCE_DIR) + "/tests/unit/data/java_lowercase_vectors.txt");
    REQUIRE(in.good());
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream words(line);
      std::string kind, a, b;
      words >> kind >> a >> b;
      if (kind == "C") {
        out.simple[static_cast<char32_t>(std::stoul(a, nullptr, 16))] =
            static_cast<char32_t>(std::stoul(b, nullptr, 16));
      } else if (kind == "D") {
        out.digest = a;
      } else if (kind == "S") {
        out.strs.emplace_back(unhex(a), unhex(b));
      } else if (kind == "X") {
        out.context.insert(static_cast<char32_t>(std::stoul(a, nullptr, 16)));
      }
    }
    return out;
  }();
  return v;
}

char32_t java_simple(char32_t cp) {
  const auto it = vectors().simple.find(cp);
  return it == vectors().simple.end() ? cp : it->second;
}

bool is_surrogate(char32_t cp) { return cp >= 0xD800 && cp <= 0xDFFF; }

}  // namespace

TEST_CASE("Java's lowercase test vectors are whole", "[text][case]") {
  const Vectors& v = vectors();
  CHECK(v.simple.size() > 1400);  // 1460 with Java 25 (Unicode 16)
  CHECK(v.strs.size() > 1000);
  // The C lines plus identity elsewhere reproduce the digest Java computed over every code point.
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  REQUIRE(EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr) == 1);
  for (char32_t cp = 0; cp <= 0x10FFFF; ++cp) {
    const char32_t lo = java_simple(cp);
    const unsigned char bytes[4] = {static_cast<unsigned char>(lo >> 24), static_cast<unsigned char>(lo >> 16),
                                    static_cast<unsigned char>(lo >> 8), static_cast<unsigned char>(lo)};
    EVP_DigestUpdate(ctx, bytes, 4);
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(ctx, digest, &len);
  EVP_MD_CTX_free(ctx);
  CHECK(tw::hex_lower(digest, len) == v.digest);
}

TEST_CASE("every code point lowercases as Java's String.toLowerCase(Locale.ENGLISH)", "[text][case]") {
  const Vectors& v = vectors();
  // Lone code points whose String.toLowerCase differs from Character.toLowerCase (U+0130).
  std::map<std::string, std::string> whole(v.strs.begin(), v.strs.end());
  std::size_t checked = 0, wrong = 0;
  for (char32_t cp = 0; cp <= 0x10FFFF; ++cp) {
    if (is_surrogate(cp)) continue;
    const std::string in = utf8(cp);
    const auto w = whole.find(in);
    const std::string expected = w != whole.end() ? w->second : utf8(java_simple(cp));
    const std::string got = tw::lowercase_identifier(in);
    ++checked;
    if (got != expected) {
      ++wrong;
      if (wrong <= 10) FAIL_CHECK("U+" << std::hex << static_cast<std::uint32_t>(cp) << " lowercases wrongly");
    }
    // Exactly the code points Java folds by context are flagged.
    if (tw::has_context_dependent_lowercase(in) != (v.context.count(cp) != 0)) {
      FAIL_CHECK("has_context_dependent_lowercase(U+" << std::hex << static_cast<std::uint32_t>(cp) << ")");
    }
  }
  CHECK(checked == 0x110000 - 0x800);
  CHECK(wrong == 0);
}

TEST_CASE("strings lowercase as Java's String.toLowerCase(Locale.ENGLISH)", "[text][case]") {
  std::size_t wrong = 0;
  for (const auto& [in, expected] : vectors().strs) {
    REQUIRE_FALSE(tw::has_context_dependent_lowercase(in));
    if (tw::lowercase_identifier(in) != expected) {
      ++wrong;
      if (wrong <= 10) FAIL_CHECK("lowercase of " << tw::quote(in) << " is not " << tw::quote(expected));
    }
  }
  CHECK(wrong == 0);
}

TEST_CASE("dotted capital I lowercases to i + combining dot, as Java does", "[text][case]") {
  CHECK(vectors().context == std::set<char32_t>{U'\u03A3'});
  // İnvoices: Java gives "i̇nvoices" (U+0069 U+0307 ...), not "invoices".
  CHECK(tw::lowercase_identifier("\xC4\xB0nvoices") == "i\xCC\x87nvoices");
  CHECK(tw::lowercase_identifier("\xC4\xB0NVOICES") == "i\xCC\x87nvoices");
  CHECK(tw::lowercase_identifier("\xC4\xB0") == "i\xCC\x87");
  CHECK(tw::lowercase_identifier("i\xCC\x87nvoices") == "i\xCC\x87nvoices");  // already lower: unchanged
  CHECK_FALSE(tw::has_context_dependent_lowercase("\xC4\xB0nvoices"));
  // Dotless small i and Kelvin/Angstrom signs: Character.toLowerCase.
  CHECK(tw::lowercase_identifier("\xC4\xB1") == "\xC4\xB1");      // ı stays ı
  CHECK(tw::lowercase_identifier("\xE2\x84\xAA") == "k");         // KELVIN SIGN -> k
  CHECK(tw::lowercase_identifier("\xE2\x84\xAB") == "\xC3\xA5");  // ANGSTROM SIGN -> å
  CHECK(tw::lowercase_identifier("\xE1\xBA\x9E") == "\xC3\x9F");  // ẞ -> ß
  CHECK(tw::lowercase_identifier("\xC7\x85") == "\xC7\x86");      // ǅ (title case) -> ǆ
}

TEST_CASE("capital sigma is flagged as context-dependent wherever it stands", "[text][case]") {
  // Java: ΟΔΟΣ -> οδος (final sigma U+03C2); ΣECRET -> σecret; ΚΩΔΙΚΟΣ -> κωδικος. Not folded here:
  // callers must refuse these names on engines that lowercase.
  for (const char* name : {"\xCE\x9F\xCE\x94\xCE\x9F\xCE\xA3",
                           "\xCE\xA3"
                           "ECRET",
                           "\xCE\x9A\xCE\xA9\xCE\x94\xCE\x99\xCE\x9A\xCE\x9F\xCE\xA3", "\xCE\xA3",
                           "a\xCE\xA3"
                           "b",
                           "x\xFF\xCE\xA3"}) {
    CAPTURE(tw::quote(name));
    CHECK(tw::has_context_dependent_lowercase(name));
  }
  // lowercase_identifier itself maps sigma to medial sigma, whatever the context.
  CHECK(tw::lowercase_identifier("\xCE\x9F\xCE\x94\xCE\x9F\xCE\xA3") == "\xCE\xBF\xCE\xB4\xCE\xBF\xCF\x83");
  CHECK(tw::lowercase_identifier("\xCE\xA3"
                                 "ECRET") ==
        "\xCF\x83"
        "ecret");
  // Small sigmas and other Greek capitals are context-free.
  for (const char* name : {"\xCF\x82", "\xCF\x83", "\xCE\x9F\xCE\x94\xCE\x9F", "abc", "", "\xCF\xB9"}) {
    CAPTURE(tw::quote(name));
    CHECK_FALSE(tw::has_context_dependent_lowercase(name));
  }
}

TEST_CASE("scripts with case lowercase as Java does", "[text][case]") {
  using tw::lowercase_identifier;
  CHECK(lowercase_identifier("\xCE\x91\xCE\x92\xCE\x93\xCE\x86") == "\xCE\xB1\xCE\xB2\xCE\xB3\xCE\xAC");  // ΑΒΓΆ
  CHECK(lowercase_identifier("\xCF\x92") == "\xCF\x92");  // ϒ (UPSILON WITH HOOK): no lowercase in Java
  CHECK(lowercase_identifier("\xD0\x9F\xD0\xA0\xD0\x98\xD0\x92\xD0\x95\xD0\xA2") ==
        "\xD0\xBF\xD1\x80\xD0\xB8\xD0\xB2\xD0\xB5\xD1\x82");              // ПРИВЕТ -> привет
  CHECK(lowercase_identifier("\xD0\x81\xD0\x87") == "\xD1\x91\xD1\x97");  // ЁЇ -> ёї
  CHECK(lowercase_identifier("\xD4\xB1\xD5\x8D") == "\xD5\xA1\xD5\xBD");  // ԱՍ -> աս
  CHECK(lowercase_identifier("\xE1\x82\xA0") == "\xE2\xB4\x80");          // Ⴀ -> ⴀ
  CHECK(lowercase_identifier("\xE1\xB2\x90") == "\xE1\x83\x90");          // Mtavruli Ა -> ა
  CHECK(lowercase_identifier("\xE1\x8E\xA0") == "\xEA\xAD\xB0");          // Cherokee Ꭰ -> ꭰ
  CHECK(lowercase_identifier("\xE1\x8F\xB0") == "\xE1\x8F\xB8");          // Cherokee Ᏸ -> ᏸ
  CHECK(lowercase_identifier("\xEA\xAD\xB0") == "\xEA\xAD\xB0");          // ꭰ stays
  CHECK(lowercase_identifier("\xF0\x90\x90\x80") == "\xF0\x90\x90\xA8");  // Deseret 𐐀 -> 𐐨
  CHECK(lowercase_identifier("\xE1\xB2\x89") == "\xE1\xB2\x8A");          // U+1C89 (Unicode 16) -> U+1C8A
  CHECK(lowercase_identifier("\xC3\x89TABLE") == "\xC3\xA9table");
}

TEST_CASE("ASCII lowercases on the fast path; invalid UTF-8 is returned unchanged", "[text][case]") {
  using tw::lowercase_identifier;
  CHECK(lowercase_identifier("") == "");
  CHECK(lowercase_identifier("Wh.FIN.Invoices_2024-$X") == "wh.fin.invoices_2024-$x");
  CHECK(lowercase_identifier("@[`{") == "@[`{");
  for (const char* bad : {"A\xC3", "A\xFF",
                          "\x80"
                          "A",
                          "A\xC3\x41",
                          "\xC0\x81"
                          "A",
                          "\xE0\x80\x81",
                          "\xED\xA0\x80"
                          "A",
                          "\xF4\x90\x80\x80"
                          "A",
                          "\xF8\x88\x80\x80\x80", "\xC3\x89\xC3"}) {
    CAPTURE(tw::quote(bad));
    CHECK(lowercase_identifier(bad) == bad);
    CHECK_FALSE(tw::has_context_dependent_lowercase(bad));
  }
}

// Trino masks of a char(n) column read the value without its padding.
//
// Trino pads a char(n) value with spaces to n characters: length() of one is always n, and its
// last characters are padding. The partial mask, written for varchar, read the column itself, so
// on a char(10) column with 8 visible characters the value 'abcd' (MODEL.md section 4: "a value
// that short is fully masked") read '****cd    ', and 'abcdefgh' read '****cdefgh' (observed on
// Trino 483 with the memory connector). The hash was the digest of the padded text, not of the
// value. A char cast to varchar is the value without its padding (observed: 'abcd' -> 4).

#include <string>

#include <catch2/catch.hpp>

#include "engines/trino/expressions.h"

namespace {

tw::ColumnMask mask(tw::MaskKind kind, const std::string& type, int visible_chars = 0) {
  tw::ColumnMask m;
  m.column = "ch";
  m.kind = kind;
  m.type = type;
  m.visible_chars = visible_chars;
  return m;
}

}  // namespace

TEST_CASE("trino: a partial mask of a char(n) column measures the value, not its padding", "[trino][mask]") {
  CHECK(tw::trino::mask_expression(mask(tw::MaskKind::Partial, "char(10)", 8)) ==
        "CAST(CASE WHEN length(CAST(\"ch\" AS varchar)) <= 8 THEN '****' ELSE concat('****', "
        "substr(CAST(\"ch\" AS varchar), -8)) END AS char(10))");
  CHECK(tw::trino::mask_expression(mask(tw::MaskKind::Partial, "CHAR", 1)) ==
        "CAST(CASE WHEN length(CAST(\"ch\" AS varchar)) <= 1 THEN '****' ELSE concat('****', "
        "substr(CAST(\"ch\" AS varchar), -1)) END AS char)");
}

TEST_CASE("trino: a hash mask of a char(n) column is the digest of the value", "[trino][mask]") {
  CHECK(tw::trino::mask_expression(mask(tw::MaskKind::Hash, "char(10)")) ==
        "CAST(lower(to_hex(sha256(to_utf8(CAST(\"ch\" AS varchar))))) AS char(10))");
}

TEST_CASE("trino: varchar masks read the column as it is", "[trino][mask]") {
  CHECK(tw::trino::mask_expression(mask(tw::MaskKind::Partial, "varchar", 4)) ==
        "CASE WHEN length(\"ch\") <= 4 THEN '****' ELSE concat('****', substr(\"ch\", -4)) END");
  CHECK(tw::trino::mask_expression(mask(tw::MaskKind::Hash, "varchar(20)")) ==
        "CAST(lower(to_hex(sha256(to_utf8(\"ch\")))) AS varchar(20))");
  CHECK(tw::trino::mask_expression(mask(tw::MaskKind::Full, "char(10)")) == "CAST('****' AS char(10))");
  CHECK(tw::trino::mask_expression(mask(tw::MaskKind::Null, "char(10)")) == "CAST(NULL AS char(10))");
}

TEST_CASE("trino: a mask's type is Trino's spelling of the column's type, or the finding says it has none",
          "[trino][mask]") {
  // Found by an audit: types of other engines went into CAST(... AS <type>) as written, which
  // Trino refuses (bool, int(11), datetime(3)), and "varchar (10)" was not read as a string.
  using tw::MaskKind;
  const auto as_null = [](const std::string& type) { return tw::trino::mask_expression(mask(MaskKind::Null, type)); };
  CHECK(as_null("bool") == "CAST(NULL AS boolean)");
  CHECK(as_null("int(11)") == "CAST(NULL AS integer)");
  CHECK(as_null("TINYINT(4)") == "CAST(NULL AS tinyint)");
  CHECK(as_null("datetime(3)") == "CAST(NULL AS timestamp(3))");
  CHECK(as_null("timestamp(3) with time zone") == "CAST(NULL AS timestamp(3) with time zone)");
  CHECK(as_null("timestamp without time zone") == "CAST(NULL AS timestamp)");
  CHECK(as_null("numeric(10, 2)") == "CAST(NULL AS decimal(10,2))");
  CHECK(as_null("decimal(18,2)") == "CAST(NULL AS decimal(18,2))");
  CHECK(tw::trino::mask_expression(mask(MaskKind::Hash, "varchar (10)")) ==
        "CAST(lower(to_hex(sha256(to_utf8(\"ch\")))) AS varchar(10))");
  CHECK(tw::trino::mask_expression(mask(MaskKind::Full, "string(10)")) == "CAST('****' AS varchar(10))");
  CHECK(tw::trino::mask_expression(mask(MaskKind::Full, "text")) == "'****'");
  for (const char* none : {"largeint", "decimal(40,2)", "timestamp(13)", "number(10,2)", "varchar(1,2)", "date(3)"}) {
    INFO(none);
    CHECK_FALSE(tw::trino::known_trino_type(none).has_value());
  }
  for (const char* known : {"varchar", "char(3)", "bigint", "double", "real", "float", "date", "time(3)", "varbinary",
                            "json", "uuid", "decimal", "boolean"}) {
    INFO(known);
    CHECK(tw::trino::known_trino_type(known).has_value());
  }
}

TEST_CASE("trino: an integer beyond a bigint compared with a double column is a DOUBLE literal", "[trino][filter]") {
  // Trino parses a bare integer as a bigint and refuses one beyond 2^63 - 1 (an audit found
  // "score" < 18446744073709551615: every query of the filtered user failed).
  CHECK(tw::trino::filter_expression(R"({"column":"score","op":"lt","type":"double","value":18446744073709551615})") ==
        R"("score" < DOUBLE '18446744073709551615')");
  CHECK(tw::trino::filter_expression(R"({"column":"score","op":"lt","type":"double","value":9223372036854775807})") ==
        R"("score" < 9223372036854775807)");
  CHECK(tw::trino::filter_expression(R"({"column":"score","op":"lt","type":"real","value":18446744073709551615})") ==
        R"("score" < REAL '18446744073709551615')");
}

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

// Row filters: a bound value must be one the column can hold, else the principal's filter fails
// closed to no rows (MODEL.md section 4); values that fit become literals of the column's type.

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "row_filter_outcome.h"

using namespace twtest;
using nlohmann::json;

namespace {

// One table with a column of every type a literal is made for, and user `u` whose attribute
// `v` is the value under test (JSON text). The filter compares `column` with $user.attributes.v.
const char* kColumns = R"cols(
      - {name: s, type: varchar}
      - {name: c5, type: char(5)}
      - {name: b, type: boolean}
      - {name: i8, type: tinyint}
      - {name: i16, type: smallint}
      - {name: i32, type: integer}
      - {name: i64, type: bigint}
      - {name: dec, type: "decimal(6,2)"
}
      - {name: dbl, type: double}
      - {name: flt, type: real}
      - {name: d, type: date}
      - {name: tm, type: time}
      - {name: ts, type: timestamp(3)}
      - {name: tz, type: timestamp(3) with time zone}
      - {name: raw, type: varbinary}
)cols";

std::string snapshot(const std::string& value_json, const std::string& condition) {
  return std::string(R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
users:
  - {name: u, attributes: {v: )") +
         value_json + R"(}}
  - {name: other}
roles: [analyst]
role_assignments:
  - {role: analyst, user: u}
  - {role: analyst, user: other}
classifications: []
objects:
  - name: c.s.t
    kind: table
    columns:)" +
         kColumns + R"(
grants:
  - {principal: {role: analyst}, object: "c.s.t", privileges: [SELECT]}
policies:
  - {name: f, type: row_filter, scope: {object: c.s.t}, condition: )" +
         condition + "}\n";
}

using Filtered = RowFilterOutcome;

Filtered filter_for(const std::string& text, const std::string& user = "u") { return row_filter_outcome(text, user); }

std::string eq_attr(const std::string& column) {
  return "{column: " + column + ", op: eq, value: {$user: attributes.v}}";
}

// The filter for `u` when `column` is compared with attribute value `value_json`.
Filtered bound(const std::string& column, const std::string& value_json) {
  return filter_for(snapshot(value_json, eq_attr(column)));
}

void require_no_rows(const Filtered& f) {
  INFO("filter " << f.row_filter.dump() << " -> " << f.trino << "; " << f.reason);
  CHECK(f.row_filter == json{{"false", true}});
  CHECK(f.trino == "1 = 0");
  CHECK(f.unsatisfiable);
  CHECK(f.reason.find("cannot be satisfied") != std::string::npos);
  CHECK(f.finding);
}

void require_filter(const Filtered& f, const std::string& trino) {
  INFO("filter " << f.row_filter.dump() << "; " << f.reason);
  CHECK_FALSE(f.unsatisfiable);
  CHECK_FALSE(f.finding);
  CHECK(f.trino == trino);
}

}  // namespace

TEST_CASE("a missing attribute is no rows (the reference behaviour the typed cases follow)", "[policies][typing]") {
  const Filtered f = filter_for(snapshot("\"EU\"", "{column: s, op: eq, value: {$user: attributes.nope}}"));
  require_no_rows(f);
  CHECK(f.reason.find("user has no attribute nope") != std::string::npos);
}

TEST_CASE("values that fit are literals of the column's type", "[policies][typing]") {
  require_filter(bound("s", "\"EU\""), "\"s\" = 'EU'");
  require_filter(bound("c5", "\"ab\""), "\"c5\" = 'ab'");
  require_filter(bound("b", "true"), "\"b\" = TRUE");
  require_filter(bound("b", "false"), "\"b\" = FALSE");
  require_filter(bound("i8", "-128"), "\"i8\" = -128");
  require_filter(bound("i8", "127"), "\"i8\" = 127");
  require_filter(bound("i16", "32767"), "\"i16\" = 32767");
  require_filter(bound("i32", "-2147483648"), "\"i32\" = -2147483648");
  require_filter(bound("i64", "9223372036854775807"), "\"i64\" = 9223372036854775807");
  require_filter(bound("i64", "-9223372036854775808"), "\"i64\" = -9223372036854775808");
  require_filter(bound("dec", "1234.5"), "\"dec\" = DECIMAL '1234.5'");
  require_filter(bound("dec", "\"-0012.50\""), "\"dec\" = DECIMAL '-12.5'");
  require_filter(bound("dec", "\"9999.99\""), "\"dec\" = DECIMAL '9999.99'");
  require_filter(bound("dec", "42"), "\"dec\" = DECIMAL '42'");
  require_filter(bound("dbl", "2.5"), "\"dbl\" = DOUBLE '2.5'");
  require_filter(bound("dbl", "7"), "\"dbl\" = 7");
  require_filter(bound("flt", "0.1"), "\"flt\" = REAL '0.1'");
  require_filter(bound("d", "\"2024-01-01\""), "\"d\" = DATE '2024-01-01'");
  require_filter(bound("d", "\"2024-02-29\""), "\"d\" = DATE '2024-02-29'");
  require_filter(bound("tm", "\"23:59:59.123\""), "\"tm\" = TIME '23:59:59.123'");
  require_filter(bound("ts", "\"2024-01-01 10:00:00\""), "\"ts\" = TIMESTAMP '2024-01-01 10:00:00'");
  require_filter(bound("ts", "\"2024-01-01T10:00:00.5\""), "\"ts\" = TIMESTAMP '2024-01-01 10:00:00.5'");
  require_filter(bound("ts", "\"2024-01-01\""), "\"ts\" = TIMESTAMP '2024-01-01'");
  require_filter(bound("tz", "\"2024-01-01T10:00:00Z\""), "\"tz\" = TIMESTAMP '2024-01-01 10:00:00 UTC'");
  require_filter(bound("tz", "\"2024-01-01 10:00:00 +02:00\""), "\"tz\" = TIMESTAMP '2024-01-01 10:00:00 +02:00'");
}

TEST_CASE("the resolved condition carries the column type and the normalized value", "[policies][typing]") {
  const Filtered f = bound("ts", "\"2024-01-01T10:00:00\"");
  CHECK(f.row_filter ==
        json{{"column", "ts"}, {"op", "eq"}, {"type", "timestamp(3)"}, {"value", "2024-01-01 10:00:00"}});
  const Filtered g = bound("dec", "\"+007.10\"");
  CHECK(g.row_filter == json{{"column", "dec"}, {"op", "eq"}, {"type", "decimal(6,2)"}, {"value", "7.1"}});
}

TEST_CASE("a string compared with a non-string column is no rows", "[policies][typing]") {
  for (const char* col : {"b", "i8", "i32", "i64", "dbl", "flt", "raw"}) {
    INFO("column " << col);
    require_no_rows(bound(col, "\"1\""));
  }
  require_no_rows(bound("b", "\"true\""));
  require_no_rows(bound("i64", "\"42\""));  // integers are JSON integers
}

TEST_CASE("a number or boolean compared with a string, date or time column is no rows", "[policies][typing]") {
  for (const char* col : {"s", "c5", "d", "tm", "ts", "tz"}) {
    INFO("column " << col);
    require_no_rows(bound(col, "42"));
    require_no_rows(bound(col, "true"));
  }
  for (const char* col : {"i32", "dbl", "dec"}) {
    INFO("column " << col);
    require_no_rows(bound(col, "false"));
  }
}

TEST_CASE("an integer out of range for its column is no rows", "[policies][typing]") {
  require_no_rows(bound("i8", "128"));
  require_no_rows(bound("i8", "-129"));
  require_no_rows(bound("i16", "32768"));
  require_no_rows(bound("i16", "-32769"));
  require_no_rows(bound("i32", "2147483648"));
  require_no_rows(bound("i32", "-2147483649"));
  require_no_rows(bound("i64", "9223372036854775808"));
  require_no_rows(bound("i64", "18446744073709551615"));
  require_no_rows(bound("i64", "1e30"));
  require_no_rows(bound("i32", "2.5"));  // not an integer
  const Filtered f = bound("i8", "300");
  CHECK(f.reason.find("out of range for a tinyint column") != std::string::npos);
}

TEST_CASE("a decimal or double column refuses non-numbers and what it cannot hold", "[policies][typing]") {
  for (const char* v : {"\"abc\"", "\"1.2.3\"", "\"1e5\"", "\"\"", "\" 12\"", "\"12 \"", "\"0x10\"", "\"NaN\"",
                        "\"' OR 1=1 --\"", "\".5\"", "\"5.\""}) {
    INFO("value " << v);
    require_no_rows(bound("dec", v));
  }
  require_no_rows(bound("dec", "10000"));      // decimal(6,2) holds 4 integer digits
  require_no_rows(bound("dec", "\"1.234\""));  // and 2 fraction digits
  require_no_rows(bound("dec", "0.001"));
  require_no_rows(bound("dbl", "\"2.5\""));
  require_no_rows(bound("flt", "1e39"));  // beyond real
  const Filtered f = bound("dec", "\"abc\"");
  CHECK(f.reason.find("not a decimal number") != std::string::npos);
}

TEST_CASE("a malformed or impossible date, time or timestamp is no rows", "[policies][typing]") {
  for (const char* v : {"\"2024-02-30\"", "\"2023-02-29\"", "\"2024-13-01\"", "\"2024-00-10\"", "\"0000-01-01\"",
                        "\"2024-1-01\"", "\"24-01-01\"", "\"2024/01/01\"", "\"2024-01-01 \"", "\"2024-01-01T00:00\"",
                        "\"yesterday\"", "\"\"", "\"2024-01-01' OR 1=1 --\""}) {
    INFO("date " << v);
    require_no_rows(bound("d", v));
  }
  for (const char* v :
       {"\"24:00:00\"", "\"12:60\"", "\"12:00:60\"", "\"12:00:00.\"", "\"12:00:00.1234567890123\"", "\"noon\""}) {
    INFO("time " << v);
    require_no_rows(bound("tm", v));
  }
  for (const char* v : {"\"2024-01-01 25:00:00\"", "\"2024-01-01 10:00:00Z\"", "\"2024-01-01 10:00:00 +02:00\"",
                        "\"2024-02-30 10:00:00\"", "\"2024-01-01x10:00:00\"", "\"now\""}) {
    INFO("timestamp " << v);
    require_no_rows(bound("ts", v));
  }
  for (const char* v : {"\"2024-01-01 10:00:00\"", "\"2024-01-01\"", "\"2024-01-01 10:00:00 +15:00\"",
                        "\"2024-01-01 10:00:00 Europe/Berlin\""}) {
    INFO("timestamp with time zone " << v);
    require_no_rows(bound("tz", v));  // the zone is required: the session's zone would decide otherwise
  }
  const Filtered f = bound("d", "\"2024-02-30\"");
  CHECK(f.reason.find("not a date") != std::string::npos);
}

TEST_CASE("one wrong-typed value anywhere makes the whole filter no rows", "[policies][typing]") {
  // Inside an OR: the other branch would match rows, but the principal still gets none.
  require_no_rows(filter_for(snapshot(
      "\"not-a-date\"", "{or: [{column: s, op: eq, value: EU}, {column: d, op: gte, value: {$user: attributes.v}}]}")));
  // One bad value in an in-list, from the snapshot itself.
  require_no_rows(filter_for(snapshot("1", "{column: i8, op: in, values: [1, 2, 1000]}")));
  // not_in never drops the bad value (that would widen): no rows.
  require_no_rows(filter_for(snapshot("1", "{column: d, op: not_in, values: [\"2024-01-01\", \"nope\"]}")));
  // A list attribute with one wrong-typed element.
  require_no_rows(filter_for(snapshot("[1, \"x\"]", "{column: i32, op: in, value: {$user: attributes.v}}")));
  // $user.roles (strings) against an integer column.
  require_no_rows(filter_for(snapshot("1", "{column: i32, op: in, value: {$user: roles}}")));
}

TEST_CASE("typed lists render each literal typed", "[policies][typing]") {
  require_filter(
      filter_for(snapshot("[\"2024-01-01\", \"2024-12-31\"]", "{column: d, op: in, value: {$user: attributes.v}}")),
      "\"d\" IN (DATE '2024-01-01', DATE '2024-12-31')");
  require_filter(filter_for(snapshot("1", "{column: dec, op: not_in, values: [1.5, \"2.25\"]}")),
                 "\"dec\" NOT IN (DECIMAL '1.5', DECIMAL '2.25')");
  require_filter(filter_for(snapshot("1", "{column: s, op: in, value: {$user: roles}}")), "\"s\" IN ('analyst')");
}

TEST_CASE("hostile string values stay one quoted literal", "[policies][typing]") {
  struct Case {
    const char* yaml;
    const char* sql;
  };
  const Case cases[] = {
      {R"("x' OR 1=1 --")", R"("s" = 'x'' OR 1=1 --')"},
      {R"("'; DROP TABLE t; --")", R"("s" = '''; DROP TABLE t; --')"},
      {R"("back\\slash\\")", R"("s" = 'back\slash\')"},
      {R"("\\' OR '1'='1")", R"("s" = '\'' OR ''1''=''1')"},
      {R"("a\"b")", R"("s" = 'a"b')"},
      {R"("''")", R"("s" = '''''')"},
      {R"("line\nbreak")", "\"s\" = 'line\nbreak'"},
      {R"("ünï ✓")", R"("s" = 'ünï ✓')"},
  };
  for (const auto& c : cases) {
    INFO("value " << c.yaml);
    const Filtered f = bound("s", c.yaml);
    require_filter(f, c.sql);
    // The value is one literal: quotes inside it are all doubled, so the expression holds exactly
    // two unpaired quotes (the literal's own) and ends with the literal.
    std::size_t unpaired = 0;
    for (std::size_t i = 0; i < f.trino.size(); ++i) {
      if (f.trino[i] != '\'') continue;
      if (i + 1 < f.trino.size() && f.trino[i + 1] == '\'' && unpaired == 1) {
        ++i;
        continue;
      }
      ++unpaired;
    }
    CHECK(unpaired == 2);
  }
  // The same hostile text against typed columns: refused, never spliced.
  for (const char* col : {"d", "ts", "tz", "tm", "dec", "i64", "b"}) {
    INFO("column " << col);
    require_no_rows(bound(col, R"("2024-01-01' OR 1=1 --")"));
  }
}

TEST_CASE("a principal whose value fits keeps the filter while another's fails closed", "[policies][typing]") {
  const std::string text = std::string(R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
users:
  - {name: good, attributes: {since: "2024-01-01"}}
  - {name: bad, attributes: {since: "2024-01-32"}}
roles: [analyst]
role_assignments:
  - {role: analyst, user: good}
  - {role: analyst, user: bad}
classifications: []
objects:
  - name: c.s.t
    kind: table
    columns:)") + kColumns +
                           R"(
grants:
  - {principal: {role: analyst}, object: "c.s.t", privileges: [SELECT]}
policies:
  - {name: f, type: row_filter, scope: {object: c.s.t}, condition: {column: d, op: gte, value: {$user: attributes.since}}}
)";
  require_filter(filter_for(text, "good"), "\"d\" >= DATE '2024-01-01'");
  require_no_rows(filter_for(text, "bad"));
}

TEST_CASE("literal_kind and typed_value per column type", "[policies][typing]") {
  using tw::LiteralKind;
  CHECK(tw::literal_kind("VARCHAR(10)") == LiteralKind::String);
  CHECK(tw::literal_kind("string") == LiteralKind::String);
  CHECK(tw::literal_kind("int") == LiteralKind::Integer);
  CHECK(tw::literal_kind("decimal") == LiteralKind::Decimal);
  CHECK(tw::literal_kind("numeric(10, 2)") == LiteralKind::Decimal);
  CHECK(tw::literal_kind("decimal(39,2)") == LiteralKind::None);
  CHECK(tw::literal_kind("decimal(2,3)") == LiteralKind::None);
  // Every digit of a parameter counts: decimal(12345,2) is no decimal an engine has (it was read as 123).
  CHECK(tw::literal_kind("decimal(12345,2)") == LiteralKind::None);
  CHECK(tw::literal_kind("decimal(0038,2)") == LiteralKind::Decimal);
  std::string why38;
  CHECK(tw::typed_value("decimal(0038,2)", "123456.25", why38).has_value());  // 38 digits, not 3
  CHECK(tw::literal_kind("float") == LiteralKind::Double);
  CHECK(tw::literal_kind("datetime") == LiteralKind::Timestamp);
  CHECK(tw::literal_kind("timestamp(6) with time zone") == LiteralKind::TimestampTz);
  CHECK(tw::literal_kind("time with time zone") == LiteralKind::None);
  CHECK(tw::literal_kind("interval") == LiteralKind::None);
  CHECK(tw::literal_kind("json") == LiteralKind::None);
  std::string why;
  CHECK(tw::typed_value("decimal", json(1e20), why) == json("100000000000000000000"));
  CHECK(tw::typed_value("decimal(38,10)", json(1.5e-7), why) == json("0.00000015"));
  CHECK(tw::typed_value("decimal(5,2)", json("-0.00"), why) == json("0"));
  CHECK_FALSE(tw::typed_value("decimal(5,2)", json(nullptr), why).has_value());
  // A number an integer column holds exactly, written with a fraction or an exponent, is that
  // integer (seed 004: "a string, number or boolean value"; found by the audit: no rows).
  CHECK(tw::typed_value("bigint", json(100.0), why) == json(100));
  CHECK(tw::typed_value("bigint", json(1e3), why) == json(1000));
  CHECK(tw::typed_value("int", json(-5.0), why) == json(-5));
  CHECK_FALSE(tw::typed_value("int", json(2.5), why).has_value());
  CHECK(why == "a number compared with a int column");
  CHECK_FALSE(tw::typed_value("tinyint", json(300.0), why).has_value());
  CHECK(why == "an integer out of range for a tinyint column");
  CHECK_FALSE(tw::typed_value("bigint", json(1e19), why).has_value());
  CHECK_FALSE(tw::typed_value("varchar", json::array(), why).has_value());
  CHECK_FALSE(tw::typed_value("uuid", json("x"), why).has_value());
  CHECK(why == "no literal is made for a uuid column");
}

// The types in StarRocks masking and row access policy signatures are StarRocks types.
//
// A snapshot type was upper-cased and written as it was, so a column of type timestamp(3) got
// `AS (tw_value TIMESTAMP(3)) RETURNS TIMESTAMP(3)` and a real column `REAL`: neither parses as a
// StarRocks type (StarRocks.g4 baseType has DATETIME and FLOAT, no TIMESTAMP or REAL), so the
// CREATE MASKING POLICY / CREATE ROW ACCESS POLICY statement, and with it the apply, failed for
// any profile masking, gating or filtering such a column. The row filters' literals already
// spelled them DATETIME and FLOAT. A type StarRocks has no name for renders to nothing, which
// coarsens the column (its readers lose SELECT), as for other types a policy cannot carry.

#include <string>

#include <catch2/catch.hpp>

#include "tagwarden/engines/starrocks/sql.h"

using tw::starrocks::sql::mask_type;

TEST_CASE("starrocks: timestamp and real columns get StarRocks' DATETIME and FLOAT in policies", "[starrocks][types]") {
  CHECK(mask_type("timestamp") == "DATETIME");
  CHECK(mask_type("timestamp(3)") == "DATETIME");
  CHECK(mask_type("TIMESTAMP(6)") == "DATETIME");
  CHECK(mask_type("real") == "FLOAT");
}

TEST_CASE("starrocks: StarRocks types pass as written, upper-cased", "[starrocks][types]") {
  CHECK(mask_type("datetime") == "DATETIME");
  CHECK(mask_type("float") == "FLOAT");
  CHECK(mask_type("double") == "DOUBLE");
  CHECK(mask_type("date") == "DATE");
  CHECK(mask_type("boolean") == "BOOLEAN");
  CHECK(mask_type("int") == "INT");
  CHECK(mask_type("integer") == "INTEGER");
  CHECK(mask_type("largeint") == "LARGEINT");
  CHECK(mask_type("varchar(20)") == "VARCHAR(20)");
  CHECK(mask_type("char(10)") == "CHAR(10)");
  CHECK(mask_type("decimal(10,2)") == "DECIMAL(10,2)");
  CHECK(mask_type("numeric(5,2)") == "NUMERIC(5,2)");
  CHECK(mask_type("json") == "JSON");
  CHECK(mask_type("text") == "VARCHAR(65533)");
}

TEST_CASE("starrocks: a type StarRocks has no name for cannot be written into a policy", "[starrocks][types]") {
  for (const char* type : {"uuid", "interval", "ipaddress", "nvarchar", "double(10)", "varchar(10,2)", "text(5)",
                           "datetime(3)", "timestamp(3) with time zone"}) {
    INFO(type);
    CHECK(mask_type(type).empty());
  }
}

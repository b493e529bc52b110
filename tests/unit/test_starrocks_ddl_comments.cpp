// parse_policy_attachments reads which masking and row access policies a table carries from the
// text of SHOW CREATE TABLE / VIEW. Text the table's owner writes (a COMMENT, a default value, a
// view's query) is part of that DDL: read as DDL, a comment holding "WITH MASKING POLICY
// `s`.`tw_…_m…`" made the applier believe tagwarden's policy was attached, so it never attached it
// and the uncleared read the column; a comment holding "WITH ROW ACCESS POLICY tw_…_p…" left every
// row visible. Only text outside string literals and SQL comments counts.

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "tagwarden/engines/starrocks/plan.h"

namespace sr = tw::starrocks;

TEST_CASE("starrocks DDL: policy names in comments and strings are not attachments", "[starrocks][names]") {
  const std::string ddl =
      "CREATE TABLE `customers` (\n"
      "  `id` bigint(20) NULL COMMENT \"WITH ROW ACCESS POLICY `s`.`tw_1234abcd_p0001000100010001`\",\n"
      "  `iban` varchar(65533) NULL COMMENT \"x WITH MASKING POLICY `s`.`tw_1234abcd_m00ff00ff00ff00ff`\",\n"
      "  `ssn` varchar(65533) NULL DEFAULT 'WITH MASKING POLICY tw_1234abcd_m0000000000000001' COMMENT \"\",\n"
      "  `note` varchar(10) NULL COMMENT \"a \\\" WITH MASKING POLICY tw_1234abcd_m0000000000000002\",\n"
      "  `region` varchar(8) NULL COMMENT \"line\n"
      "  `region` varchar(8) WITH MASKING POLICY tw_1234abcd_m0000000000000003\"\n"
      ") ENGINE=OLAP\n"
      "DUPLICATE KEY(`id`)\n"
      "COMMENT \"WITH ROW ACCESS POLICY tw_1234abcd_p0000000000000002\"\n"
      "DISTRIBUTED BY HASH(`id`) BUCKETS 1\n"
      "PROPERTIES (\"replication_num\" = \"1\");";
  const sr::PolicyAttachments a = sr::parse_policy_attachments(ddl);
  CHECK(a.masks.empty());
  CHECK(a.row_policies.empty());
}

TEST_CASE("starrocks DDL: a view's query text attaches nothing", "[starrocks][names]") {
  const std::string ddl =
      "CREATE VIEW `v` (`a` COMMENT \"\") AS SELECT 'WITH ROW ACCESS POLICY tw_1234abcd_p0000000000000003' AS `a` "
      "/* WITH ROW ACCESS POLICY tw_1234abcd_p0000000000000004 */ FROM `s`.`t`;";
  CHECK(sr::parse_policy_attachments(ddl).row_policies.empty());
}

TEST_CASE("starrocks DDL: real attachments beside hostile comments are still read", "[starrocks][names]") {
  const std::string ddl =
      "CREATE TABLE `t` (\n"
      "  `ib``an` varchar(65533) NULL WITH MASKING POLICY `s`.`tw_1234abcd_m00ff` COMMENT \"MASKING POLICY x\",\n"
      "  `c\"1` varchar(8) NULL COMMENT 'it''s -- not a comment',\n"
      "  `c--2` varchar(8) NULL WITH MASKING POLICY s.foreign_mask\n"
      ") ENGINE=OLAP\n"
      "WITH ROW ACCESS POLICY `s`.`tw_1234abcd_p0001` ON (`c\"1`)\n"
      "DISTRIBUTED BY HASH(`c--2`) BUCKETS 1;";
  const sr::PolicyAttachments a = sr::parse_policy_attachments(ddl);
  REQUIRE(a.masks.size() == 2);
  CHECK(a.masks[0] == std::make_pair(std::string("ib`an"), std::string("tw_1234abcd_m00ff")));
  CHECK(a.masks[1] == std::make_pair(std::string("c--2"), std::string("foreign_mask")));
  CHECK(a.row_policies == std::vector<std::string>{"tw_1234abcd_p0001"});
}

// Access-policy masks and row filters on StarRocks: rendered as masking and
// row access policies where the server has them, coarsened (never dropped)
// with a finding where it does not; the parsers of what the server answers
// about policies (recorded rows); the diff order of policy changes; compile
// and explain surfacing the coarsening.

#include <algorithm>
#include <regex>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "../starrocks/sr_test_helpers.h"
#include "tagwarden/compile/explain.h"
#include "tagwarden/engines/registry.h"
#include "tagwarden/engines/starrocks/plan.h"
#include "tagwarden/engines/starrocks/sql.h"

using namespace srtest;
namespace sr = tw::starrocks;
using nlohmann::json;

namespace {

// o'brien\ has a partial mask on iban and a row filter bound to a hostile attribute; ana is exempt
// from both; hash for bob; a PII clearance on ssn that only ana holds.
const char* kSnapshot = R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
users:
  - {name: "o'brien\\", attributes: {region: "EU' OR 1=1 --\\"}}
  - {name: ana, attributes: {region: US}}
  - {name: bob, attributes: {region: EU}}
roles: [analyst, steward, hashed]
role_assignments:
  - {role: analyst, user: "o'brien\\"}
  - {role: analyst, user: ana}
  - {role: analyst, user: bob}
  - {role: steward, user: ana}
  - {role: hashed, user: bob}
classifications:
  - {name: PII, clearance: [{type: role, name: steward}]}
objects:
  - name: c.s.customers
    kind: table
    columns:
      - {name: id, type: bigint}
      - {name: "ib`an", type: varchar}
      - {name: region, type: varchar(8)}
      - {name: ssn, type: varchar, tags: [PII]}
      - {name: born, type: date}
  - name: c.s.plain
    kind: table
    columns:
      - {name: id, type: bigint}
grants:
  - {principal: {role: analyst}, object: "c.s.*", privileges: [SELECT]}
policies:
  - {name: part, type: column_mask, mask: partial, visible_chars: 4, scope: {column: "c.s.customers.ib`an"},
     exempt: {roles: [steward]}}
  - {name: hash_it, type: column_mask, mask: hash, scope: {column: "c.s.customers.ib`an"}, applies_to: {roles: [hashed]}}
  - {name: born_full, type: column_mask, mask: full, scope: {column: c.s.customers.born}, applies_to: {roles: [hashed]}}
  - {name: rows, type: row_filter, scope: {object: c.s.customers}, exempt: {roles: [steward]},
     condition: {column: region, op: eq, value: {"$user": "attributes.region"}}}
)";

tw::Profile sr_profile(const std::string& masking = "auto") {
  tw::Profile p;
  p.name = "srp";
  p.engine = tw::Engine::StarRocks;
  p.catalogs = {"c"};
  p.catalog_map = {{"c", "default_catalog"}};
  p.masking = masking;
  return p;
}

Securable customers() { return {Securable::Kind::Table, "default_catalog", "s", "customers"}; }

void check_quoting(const std::vector<sr::Statement>& statements) {
  static const std::regex bare(R"(^[A-Za-z0-9_(),.*@;=<>-]+$)");
  for (const auto& s : statements) {
    for (const auto& t : tokenize(s.sql)) {
      if (t.kind != Token::Kind::Bare) continue;
      INFO(s.sql << "\nbare token: " << t.text);
      CHECK(std::regex_match(t.text, bare));
    }
  }
}

bool has_string(const std::vector<sr::Statement>& statements, const std::string& text) {
  for (const auto& s : statements) {
    for (const auto& t : tokenize(s.sql)) {
      if (t.kind == Token::Kind::String && t.text == text) return true;
    }
  }
  return false;
}

}  // namespace

TEST_CASE("starrocks policies: masks and row filters become StarRocks policies where the server has them") {
  auto m = model_from_text(kSnapshot);
  const auto ps = compile_ok(*m, sr_profile());
  const sr::Plan plan = plan_ok(ps, {sr::Dialect::StarRocks, {true, true}});
  const auto e = on_objects(effective(plan.desired));
  // Nobody is coarsened: every reader keeps SELECT, the policies do the rest.
  for (const char* u : {"o'brien\\", "ana", "bob"}) CHECK(e.at(u).at(customers()) == std::set<std::string>{"SELECT"});
  CHECK(plan.findings.empty());

  const auto policy_of = [&](const std::string& column) -> const sr::MaskPolicy& {
    return plan.desired.masks.at(plan.desired.attachments.at({customers(), column}));
  };
  SECTION("one masking policy per column: value, each class's mask, NULL for the rest") {
    CHECK(plan.desired.masks.size() == 3);  // ib`an (masks), ssn (clearance), born (mask)
    const auto& iban = policy_of("ib`an");
    CHECK(iban.cleared == std::vector<std::string>{"ana"});
    REQUIRE(iban.masked.size() == 2);
    const std::string sql = sr::sql::create_mask(iban);
    CHECK(sql.find("lower(sha2(`tw_value`, 256))") != std::string::npos);
    CHECK(
        sql.find("CASE WHEN char_length(`tw_value`) <= 4 THEN '****' ELSE concat('****', right(`tw_value`, 4)) END") !=
        std::string::npos);
    CHECK(sql.find("ELSE CAST(NULL AS VARCHAR(65533)) END") != std::string::npos);
    CHECK(sql.find("'''o''brien\\\\''@''%'''") != std::string::npos);  // 'o''brien\'@'%' as a literal
    const auto& ssn = policy_of("ssn");
    CHECK(ssn.cleared == std::vector<std::string>{"ana"});  // uncleared: NULL
    CHECK(ssn.masked.empty());
    const auto& born = policy_of("born");
    REQUIRE(born.masked.size() == 1);
    CHECK(born.masked[0].expression == "CAST(NULL AS DATE)");  // a mask on a date is a typed NULL
    CHECK(born.masked[0].users == std::vector<std::string>{"bob"});
  }
  SECTION("one row access policy per table: each class's filter, literals quoted, FALSE for the rest") {
    REQUIRE(plan.desired.row_policies.size() == 1);
    const auto& p = plan.desired.row_policies.begin()->second;
    CHECK(p.object == customers());
    REQUIRE(p.columns.size() == 1);
    CHECK(p.columns[0] == std::make_pair(std::string("region"), std::string("VARCHAR(8)")));
    const std::string sql = sr::sql::create_row_policy(p);
    CHECK(sql.rfind("CREATE ROW ACCESS POLICY IF NOT EXISTS `s`.`" + plan.prefix + "p", 0) == 0);
    CHECK(sql.find("AS (`tw_a0` VARCHAR(8)) RETURNS BOOLEAN -> CASE WHEN") != std::string::npos);
    CHECK(sql.find("THEN `tw_a0` = 'EU'' OR 1=1 --\\\\'") != std::string::npos);
    CHECK(sql.find("THEN TRUE") != std::string::npos);  // ana: exempt, every row
    CHECK(sql.find("ELSE FALSE END") != std::string::npos);
    CHECK(sr::sql::add_row_policy(p) ==
          "ALTER TABLE `s`.`customers` ADD ROW ACCESS POLICY `s`.`" + p.name + "` ON (`region`)");
  }
  SECTION("every statement quotes every name and value") {
    const auto statements = sr::diff_statements(plan, {});
    check_quoting(statements);
    CHECK(has_string(statements, "EU' OR 1=1 --\\"));
    CHECK(has_string(statements, "'o'brien\\'@'%'"));
    // attach before any grant: a reader never holds SELECT on an unmasked column
    std::size_t first_grant = statements.size(), last_attach = 0;
    for (std::size_t i = 0; i < statements.size(); ++i) {
      const auto& s = statements[i].sql;
      if (s.rfind("GRANT ", 0) == 0) first_grant = std::min(first_grant, i);
      if (s.find("SET MASKING POLICY") != std::string::npos || s.find("ADD ROW ACCESS POLICY") != std::string::npos)
        last_attach = i;
    }
    CHECK(last_attach < first_grant);
  }
  SECTION("{false:true} renders FALSE and still needs one argument") {
    json cond = {{"false", true}};
    CHECK(sr::sql::filter_expression(cond, {}) == std::optional<std::string>("FALSE"));
    CHECK(sr::sql::filter_expression(json{{"column", "x"}, {"op", "eq"}, {"value", 1}}, {}) == std::nullopt);
    CHECK(sr::sql::filter_expression(json{{"column", "x"}, {"op", "in"}, {"values", json::array()}}, {{"x", "a"}}) ==
          std::optional<std::string>("FALSE"));
    CHECK(sr::sql::filter_expression(json{{"column", "x"}, {"op", "not_in"}, {"values", {"a'b", "c\\"}}},
                                     {{"x", "tw_a0"}}) ==
          std::optional<std::string>("`tw_a0` NOT IN ('a''b', 'c\\\\')"));
  }
}

TEST_CASE("starrocks policies: without masking or row access policies, coarsen and say so") {
  auto m = model_from_text(kSnapshot);
  const auto ps = compile_ok(*m, sr_profile());
  const sr::Plan plan = plan_ok(ps);
  const auto e = on_objects(effective(plan.desired));
  // o'brien and bob have masks and a row filter: coarsened; ana is cleared and exempt: keeps SELECT.
  CHECK(e.at("ana").at(customers()) == std::set<std::string>{"SELECT"});
  CHECK_FALSE((e.count("bob") && e.at("bob").count(customers())));
  CHECK_FALSE((e.count("o'brien\\") && e.at("o'brien\\").count(customers())));
  CHECK(plan.desired.masks.empty());
  CHECK(plan.desired.row_policies.empty());
  const auto f = std::find_if(plan.findings.begin(), plan.findings.end(),
                              [](const tw::Finding& x) { return x.code == "starrocks_policy_coarsened"; });
  REQUIRE(f != plan.findings.end());
  CHECK(f->severity == tw::Severity::Warning);
  CHECK(f->message.find("default_catalog.s.customers") != std::string::npos);
  CHECK(f->message.find("ib`an") != std::string::npos);
  CHECK(f->message.find("row filter") != std::string::npos);
  CHECK(std::find(f->subjects.begin(), f->subjects.end(), "default_catalog.s.customers.ib`an") != f->subjects.end());
  const auto* h = plan.holding("bob", customers());
  REQUIRE(h);
  REQUIRE(h->withheld);
  CHECK(h->withheld->find("cannot be masked on this server") != std::string::npos);
  // Each finding names only its own columns: ssn is gated (PII), ib`an and born are masked by access
  // policies and carry no gated tag, so they are not "gated columns".
  const auto g = std::find_if(plan.findings.begin(), plan.findings.end(),
                              [](const tw::Finding& x) { return x.code == "starrocks_gate_coarsened"; });
  REQUIRE(g != plan.findings.end());
  CHECK(g->message.find("has gated column ssn and this server cannot mask columns") != std::string::npos);
  CHECK(g->message.find("ib`an") == std::string::npos);
  CHECK(g->message.find("born") == std::string::npos);
  CHECK(g->subjects == std::vector<std::string>{"default_catalog.s.customers", "default_catalog.s.customers.ssn"});
  CHECK(f->message.find("masks or denied columns on born and ib`an (no masking policies") != std::string::npos);
  CHECK(f->message.find("ssn") == std::string::npos);

  SECTION("masks without row access policies: only the filtered classes coarsen") {
    const sr::Plan half = plan_ok(ps, {sr::Dialect::StarRocks, {true, false}});
    CHECK_FALSE(half.desired.masks.empty());
    CHECK(half.desired.row_policies.empty());
    const auto he = on_objects(effective(half.desired));
    CHECK_FALSE((he.count("bob") && he.at("bob").count(customers())));  // bob has the row filter too
  }
}

TEST_CASE("starrocks policies: compile reports the coarsening as a finding, explain says why SELECT is withheld") {
  auto m = model_from_text(kSnapshot);
  SECTION("build_profile: masking auto (no server) coarsens, with the finding in compile.findings") {
    tw::ProfileBuild b = tw::build_profile(*m, sr_profile("auto"));
    REQUIRE(b.artifact);
    CHECK(std::any_of(b.compile.findings.begin(), b.compile.findings.end(),
                      [](const tw::Finding& f) { return f.code == "starrocks_policy_coarsened"; }));
    CHECK(b.artifact->bytes->find("ADD ROW ACCESS POLICY") == std::string::npos);
  }
  SECTION("build_profile: masking on renders policies, no coarsening") {
    tw::ProfileBuild b = tw::build_profile(*m, sr_profile("on"));
    REQUIRE(b.artifact);
    CHECK(std::none_of(b.compile.findings.begin(), b.compile.findings.end(),
                       [](const tw::Finding& f) { return f.code == "starrocks_policy_coarsened"; }));
    CHECK(b.artifact->bytes->find("ADD ROW ACCESS POLICY") != std::string::npos);
    CHECK(b.artifact->bytes->find("CREATE MASKING POLICY") != std::string::npos);
  }
  SECTION("explain --user bob on a StarRocks profile") {
    const auto ps = compile_ok(*m, sr_profile());
    const auto e = tw::explain_user(*m, {ps}, "bob", {}, {sr_profile("auto")});
    REQUIRE(e.profiles.size() == 1);
    const auto& refusals = e.profiles[0].refusals;
    auto r = std::find_if(refusals.begin(), refusals.end(),
                          [](const tw::Refusal& x) { return x.object == "default_catalog.s.customers"; });
    REQUIRE(r != refusals.end());
    CHECK(std::find(r->withheld.begin(), r->withheld.end(), "SELECT") != r->withheld.end());
    CHECK(r->engine_note.find("cannot be masked on this server") != std::string::npos);
    const std::string text = tw::to_text(e);
    CHECK(text.find("withheld: SELECT") != std::string::npos);
    const auto on = tw::explain_user(*m, {ps}, "bob", {}, {sr_profile("on")});
    for (const auto& x : on.profiles[0].refusals) CHECK(x.engine_note.empty());
  }
}

TEST_CASE("starrocks policies: parsing what the server answers (recorded rows)") {
  using Row = std::vector<std::optional<std::string>>;
  SECTION("SHOW MASKING POLICIES / SHOW ROW ACCESS POLICIES: Name, Type, Catalog, Database") {
    const std::vector<Row> rows = {{"tw_1234abcd_m00ff00ff00ff00ff", "MASKING", "default_catalog", "s"},
                                   {"other_policy", "MASKING", "default_catalog", "s"},
                                   {"tw_1234abcd_p0001000100010001", "ROW ACCESS", "default_catalog", "s"},
                                   {std::nullopt, std::nullopt, std::nullopt, std::nullopt},
                                   {"tw_99999999_m0001000100010001", "MASKING", "default_catalog", "s"},
                                   // Hand-made names under the prefix, not of the shape tagwarden makes.
                                   {"tw_1234abcd_mzzz", "MASKING", "default_catalog", "s"},
                                   {"tw_1234abcd_m00ff", "MASKING", "default_catalog", "s"},
                                   {"tw_1234abcd_m00ff00ff00ff00ff0", "MASKING", "default_catalog", "s"},
                                   {"tw_1234abcd_m00FF00FF00FF00FF", "MASKING", "default_catalog", "s"}};
    CHECK(sr::parse_policy_names(rows, "tw_1234abcd_m") == std::vector<std::string>{"tw_1234abcd_m00ff00ff00ff00ff"});
    CHECK(sr::parse_policy_names(rows, "tw_1234abcd_p") == std::vector<std::string>{"tw_1234abcd_p0001000100010001"});
    CHECK(sr::parse_policy_names({}, "tw_").empty());
  }
  SECTION("SHOW CREATE TABLE: column masks and row access policies") {
    const std::string ddl =
        "CREATE TABLE `customers` (\n"
        "  `id` bigint(20) NULL COMMENT \"\",\n"
        "  `ib``an` varchar(65533) NULL WITH MASKING POLICY `s`.`tw_1234abcd_m00ff` COMMENT \"\",\n"
        "  `ssn` varchar(65533) NULL WITH MASKING POLICY s.foreign_mask,\n"
        "  `region` varchar(8) NULL\n"
        ") ENGINE=OLAP\n"
        "DUPLICATE KEY(`id`)\n"
        "WITH ROW ACCESS POLICY `s`.`tw_1234abcd_p0001` ON (`region`)\n"
        "WITH ROW ACCESS POLICY other_db.`rap``x`\n"
        "DISTRIBUTED BY HASH(`id`) BUCKETS 1\n"
        "PROPERTIES (\"replication_num\" = \"1\");";
    const auto a = sr::parse_policy_attachments(ddl);
    REQUIRE(a.masks.size() == 2);
    CHECK(a.masks[0] == std::make_pair(std::string("ib`an"), std::string("tw_1234abcd_m00ff")));
    CHECK(a.masks[1] == std::make_pair(std::string("ssn"), std::string("foreign_mask")));
    CHECK(a.row_policies == std::vector<std::string>{"tw_1234abcd_p0001", "rap`x"});
    CHECK(sr::parse_policy_attachments("CREATE TABLE `t` (\n  `id` bigint\n)").masks.empty());
  }
}

TEST_CASE("starrocks policies: a changed row filter is added before grants and the old one removed after") {
  auto m = model_from_text(kSnapshot);
  const auto ps = compile_ok(*m, sr_profile());
  const sr::Plan plan = plan_ok(ps, {sr::Dialect::StarRocks, {true, true}});
  sr::LiveState live;
  live.owned = plan.desired;
  // the server holds an older row policy on customers and bob's role is not yet granted
  const std::string old_name = plan.prefix + "pold";
  live.owned.row_policies.clear();
  live.owned.row_attachments.clear();
  live.owned.row_policies[old_name] = sr::RowPolicy{old_name, customers(), {}, {}};
  live.owned.row_attachments[customers()] = {old_name};
  for (auto& [name, role] : live.owned.roles) role.members.erase("bob");
  const auto statements = sr::diff_statements(plan, live);
  auto index = [&](const std::string& needle) {
    for (std::size_t i = 0; i < statements.size(); ++i) {
      if (statements[i].sql.find(needle) != std::string::npos) return static_cast<long>(i);
    }
    return -1L;
  };
  const long create = index("CREATE ROW ACCESS POLICY"), add = index("ADD ROW ACCESS POLICY"),
             grant = index("TO USER 'bob'"), remove = index("DROP ROW ACCESS POLICY `s`.`" + old_name),
             drop = index("DROP ROW ACCESS POLICY IF EXISTS `s`.`" + old_name);
  REQUIRE(create >= 0);
  REQUIRE(add >= 0);
  REQUIRE(grant >= 0);
  REQUIRE(remove >= 0);
  REQUIRE(drop >= 0);
  CHECK(create < add);
  CHECK(add < grant);     // the new filter is in force before bob may read
  CHECK(grant < remove);  // while both are attached, readers see rows both allow
  CHECK(remove < drop);
  CHECK(statements[static_cast<std::size_t>(add)].phase == sr::Phase::Tighten);
  CHECK(statements[static_cast<std::size_t>(remove)].phase == sr::Phase::Widen);
  live.owned = plan.desired;
  CHECK(sr::diff_statements(plan, live).empty());
}

TEST_CASE("starrocks policies: a row filter names a mixed-case column exactly and keeps its spelling") {
  const std::string snapshot = R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
users:
  - {name: ann, attributes: {region: EU}}
roles: [analyst]
role_assignments:
  - {role: analyst, user: ann}
objects:
  - name: c.s.orders
    kind: table
    columns:
      - {name: id, type: bigint}
      - {name: Region, type: varchar}
grants:
  - {principal: {role: analyst}, object: "c.s.*", privileges: [SELECT]}
policies:
  - {name: eu_rows, type: row_filter, scope: {object: c.s.orders},
     condition: {column: %COLUMN%, op: eq, value: {"$user": "attributes.region"}}}
)";
  auto with_column = [&](const std::string& column) {
    std::string s = snapshot;
    s.replace(s.find("%COLUMN%"), 8, column);
    return model_from_text(s);
  };
  tw::Profile trino;
  trino.name = "tp";
  trino.engine = tw::Engine::Trino;
  trino.catalogs = {"c"};
  auto filter_of = [](const tw::PolicySet& ps) {
    const auto& op = ps.objects.at(0);
    REQUIRE(op.classes.size() == 1);
    return json::parse(op.classes[0].access.row_filter);
  };
  SECTION("the exact name resolves: the engine's spelling on each engine") {
    auto m = with_column("Region");
    CHECK(filter_of(compile_ok(*m, sr_profile()))["column"] == "Region");
    CHECK(filter_of(compile_ok(*m, trino))["column"] == "region");
    const sr::Plan plan = plan_ok(compile_ok(*m, sr_profile()), {sr::Dialect::StarRocks, {true, true}});
    REQUIRE(plan.desired.row_policies.size() == 1);
    const auto& p = plan.desired.row_policies.begin()->second;
    REQUIRE(p.columns.size() == 1);
    CHECK(p.columns[0].first == "Region");
    CHECK(sr::sql::create_row_policy(p).find("THEN `tw_a0` = 'EU'") != std::string::npos);
    CHECK(plan.findings.empty());
  }
  SECTION("another case is another name (seed 004): no rows on every engine") {
    auto m = with_column("region");
    CHECK(filter_of(compile_ok(*m, sr_profile())) == json{{"false", true}});
    CHECK(filter_of(compile_ok(*m, trino)) == json{{"false", true}});
  }
}

TEST_CASE("starrocks policies: a column keeping a foreign masking policy coarsens the object for its masked readers") {
  auto m = model_from_text(kSnapshot);
  const auto ps = compile_ok(*m, sr_profile());
  const sr::Plan plan = plan_ok(ps, {sr::Dialect::StarRocks, {true, true}});
  REQUIRE(plan.desired.attachments.count({customers(), "ib`an"}));
  sr::LiveState live;  // an empty server but for someone else's policy on ib`an
  live.foreign_masks.insert({customers(), "ib`an"});
  const auto statements = sr::diff_statements(plan, live);
  // Replay the statements into roles: which roles give SELECT on customers, then who holds them.
  static const std::regex grant_priv(R"(^GRANT ([A-Z, ]+) ON TABLE `s`\.`customers` TO ROLE `([^`]+)`$)");
  static const std::regex grant_role(R"(^GRANT `([^`]+)` TO ROLE `([^`]+)`$)");
  static const std::regex grant_user(R"(^GRANT `([^`]+)` TO USER '(.*)'@'%'$)");
  std::set<std::string> readers_roles;
  std::vector<std::pair<std::string, std::string>> inherits, members;
  for (const auto& st : statements) {
    std::smatch mt;
    // Never over the foreign policy.
    CHECK_FALSE((st.sql.find("`ib``an` SET MASKING POLICY") != std::string::npos));
    if (std::regex_match(st.sql, mt, grant_priv) && mt[1].str().find("SELECT") != std::string::npos) {
      readers_roles.insert(mt[2].str());
    } else if (std::regex_match(st.sql, mt, grant_role)) {
      inherits.emplace_back(mt[1].str(), mt[2].str());
    } else if (std::regex_match(st.sql, mt, grant_user)) {
      members.emplace_back(mt[1].str(), mt[2].str());
    }
  }
  for (const auto& [from, to] : inherits) {
    if (readers_roles.count(from)) readers_roles.insert(to);
  }
  std::set<std::string> readers;
  for (const auto& [role, user] : members) {
    if (readers_roles.count(role)) readers.insert(user);
  }
  // ana reads iban's value (cleared, exempt): keeps SELECT; bob (hash) and o'brien (partial) would read
  // whatever the foreign policy returns: no SELECT on customers.
  CHECK(readers == std::set<std::string>{"ana"});
  // The other objects are untouched: bob still reads plain.
  bool bob_plain = false;
  for (const auto& st : statements) bob_plain = bob_plain || st.sql.find("ON TABLE `s`.`plain`") != std::string::npos;
  CHECK(bob_plain);
  const auto findings = sr::diff_findings(plan, live);
  const auto f = std::find_if(findings.begin(), findings.end(),
                              [](const tw::Finding& x) { return x.code == "starrocks_foreign_mask"; });
  REQUIRE(f != findings.end());
  CHECK(f->severity == tw::Severity::Error);
  CHECK(f->message.find("get no SELECT on default_catalog.s.customers (coarsened, fail closed; 2 users: bob and "
                        "o'brien\\)") != std::string::npos);
  // Without the foreign policy, bob reads customers (masked) again.
  bool bob_reads = false;
  const auto e = on_objects(effective(plan.desired));
  bob_reads = e.count("bob") && e.at("bob").count(customers());
  CHECK(bob_reads);
}

TEST_CASE("starrocks policies: a table gated whole gets its row access policy: TRUE for the cleared, FALSE else") {
  // MODEL §3: one policy per tagged object. The uncleared hold no SELECT on it anyway; the policy
  // is what keeps a view the snapshot does not list from reading its rows for them.
  const std::string snapshot = R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
users: [{name: ana}, {name: "o'brien\\"}]
roles: [steward, analyst]
role_assignments:
  - {role: steward, user: ana}
  - {role: analyst, user: ana}
  - {role: analyst, user: "o'brien\\"}
classifications:
  - {name: Conf, clearance: [{type: role, name: steward}]}
objects:
  - {name: c.s.ledger, kind: table, tags: [Conf], columns: [{name: id, type: bigint}, {name: amount, type: double}]}
  - {name: c.s.plain, kind: table, columns: [{name: id, type: bigint}]}
grants:
  - {principal: {role: analyst}, object: "c.s.*", privileges: [SELECT]}
)";
  auto m = model_from_text(snapshot);
  const auto ps = compile_ok(*m, sr_profile());
  const Securable ledger{Securable::Kind::Table, "default_catalog", "s", "ledger"};
  SECTION("with row access policies") {
    const sr::Plan plan = plan_ok(ps, {sr::Dialect::StarRocks, {true, true}});
    REQUIRE(plan.desired.row_policies.size() == 1);  // the gated table only; plain has none
    const auto& p = plan.desired.row_policies.begin()->second;
    CHECK(p.object == ledger);
    REQUIRE(p.columns.size() == 1);
    CHECK(p.columns[0].first == "id");
    const std::string sql = sr::sql::create_row_policy(p);
    CHECK(sql.find("WHEN current_user() IN ('''ana''@''%''') THEN TRUE") != std::string::npos);
    CHECK(sql.find("o''brien") == std::string::npos);  // not cleared: the ELSE
    CHECK(sql.find("ELSE FALSE END") != std::string::npos);
    CHECK(plan.desired.row_attachments.at(ledger).size() == 1);
    const auto e = on_objects(effective(plan.desired));
    CHECK(e.at("ana").at(ledger) == std::set<std::string>{"SELECT"});
    CHECK_FALSE((e.count("o'brien\\") && e.at("o'brien\\").count(ledger)));
  }
  SECTION("without them: no policy, the uncleared still hold no SELECT") {
    const sr::Plan plan = plan_ok(ps);
    CHECK(plan.desired.row_policies.empty());
    const auto e = on_objects(effective(plan.desired));
    CHECK_FALSE((e.count("o'brien\\") && e.at("o'brien\\").count(ledger)));
  }
}

TEST_CASE(
    "starrocks policies: a table denied whole to some gets its row access policy: TRUE for its readers, FALSE else") {
  // Seed 000: a denied asset is hidden. A view the snapshot does not list reads its bases with no
  // privilege of the reader's; only the row access policy keeps the denied from its rows there.
  const std::string snapshot = R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
users: [{name: ana}, {name: "o'brien\\"}]
roles: [steward, analyst]
role_assignments:
  - {role: steward, user: ana}
  - {role: analyst, user: ana}
  - {role: analyst, user: "o'brien\\"}
objects:
  - {name: c.s.ledger, kind: table, columns: [{name: id, type: bigint}]}
  - {name: c.s.plain, kind: table, columns: [{name: id, type: bigint}]}
  - {name: c.s.shut, kind: table, columns: [{name: id, type: bigint}]}
grants:
  - {principal: {role: analyst}, object: "c.s.*", privileges: [SELECT]}
policies:
  - {name: no_ledger, type: deny, scope: {object: c.s.ledger}, exempt: {roles: [steward]}}
  - {name: no_shut, type: deny, scope: {object: c.s.shut}, enabled: false}
)";
  auto m = model_from_text(snapshot);
  const auto ps = compile_ok(*m, sr_profile());
  const Securable ledger{Securable::Kind::Table, "default_catalog", "s", "ledger"};
  const sr::Plan plan = plan_ok(ps, {sr::Dialect::StarRocks, {true, true}});
  REQUIRE(plan.desired.row_policies.size() == 1);  // the denied table only: plain and shut keep every reader
  const auto& p = plan.desired.row_policies.begin()->second;
  CHECK(p.object == ledger);
  const std::string sql = sr::sql::create_row_policy(p);
  CHECK(sql.find("WHEN current_user() IN ('''ana''@''%''') THEN TRUE") != std::string::npos);
  CHECK(sql.find("o''brien") == std::string::npos);
  CHECK(sql.find("ELSE FALSE END") != std::string::npos);
  CHECK(plan.desired.row_attachments.at(ledger).size() == 1);
  const auto e = on_objects(effective(plan.desired));
  CHECK_FALSE((e.count("o'brien\\") && e.at("o'brien\\").count(ledger)));
}

// StarRocks checks UPDATE and DELETE on the target table alone: their WHERE reads the table without
// SELECT, and the affected-row count tells what it matched. A class coarsened to no SELECT loses
// them too (INSERT reads nothing and stays); a `{"true": true}` filter needs no row access policy.
TEST_CASE("starrocks policies: a coarsened class loses UPDATE and DELETE with SELECT; a TRUE filter coarsens nothing") {
  auto m = model_from_text(R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
users:
  - {name: filtered, attributes: {r: EU}}
  - {name: masked}
  - {name: denied}
  - {name: everything}
  - {name: plain}
roles: []
objects:
  - name: c.s.t
    kind: table
    columns:
      - {name: region, type: varchar}
      - {name: iban, type: varchar}
grants:
  - {principal: {user: filtered}, object: c.s.t, privileges: [SELECT, INSERT, UPDATE, DELETE]}
  - {principal: {user: masked}, object: c.s.t, privileges: [SELECT, INSERT, UPDATE, DELETE]}
  - {principal: {user: denied}, object: c.s.t, privileges: [SELECT, INSERT, UPDATE, DELETE]}
  - {principal: {user: everything}, object: c.s.t, privileges: [SELECT, INSERT, UPDATE, DELETE]}
  - {principal: {user: plain}, object: c.s.t, privileges: [SELECT, INSERT, UPDATE, DELETE]}
policies:
  - {name: eu, type: row_filter, scope: {object: c.s.t}, applies_to: {users: [filtered]},
     condition: {column: region, op: eq, value: {"$user": "attributes.r"}}}
  - {name: all_rows, type: row_filter, scope: {object: c.s.t}, applies_to: {users: [everything]},
     condition: {"true": true}}
  - {name: part, type: column_mask, mask: partial, visible_chars: 4, scope: {column: c.s.t.iban},
     applies_to: {users: [masked]}}
  - {name: no_iban, type: deny, scope: {column: c.s.t.iban}, applies_to: {users: [denied]}}
)");
  const auto ps = compile_ok(*m, sr_profile());
  const Securable t{Securable::Kind::Table, "default_catalog", "s", "t"};
  const sr::Plan none = plan_ok(ps);  // no masking, no row access policies
  const auto e = on_objects(effective(none.desired));
  auto held = [&](const std::string& u) {
    return e.count(u) && e.at(u).count(t) ? e.at(u).at(t) : std::set<std::string>{};
  };
  CHECK(held("plain") == std::set<std::string>{"SELECT", "INSERT", "UPDATE", "DELETE"});
  // The filter keeps every row: nothing to enforce. DELETE stays (no row is beyond TRUNCATE's reach).
  CHECK(held("everything") == std::set<std::string>{"SELECT", "INSERT", "UPDATE", "DELETE"});
  CHECK(held("masked") == std::set<std::string>{"INSERT"});
  CHECK(held("denied") == std::set<std::string>{"INSERT"});
  CHECK(held("filtered") == std::set<std::string>{"INSERT"});  // DELETE already went with the filter
  const auto* h = none.holding("masked", t);
  REQUIRE(h);
  REQUIRE(h->withheld);
  CHECK(h->withheld->find("UPDATE and DELETE withheld with it") != std::string::npos);

  SECTION("where the server has both kinds of policy, nobody coarsens and the writes stay") {
    const sr::Plan full = plan_ok(ps, {sr::Dialect::StarRocks, {true, true}});
    const auto f = on_objects(effective(full.desired));
    CHECK(f.at("masked").at(t) == std::set<std::string>{"SELECT", "INSERT", "UPDATE", "DELETE"});
    CHECK(f.at("filtered").at(t) == std::set<std::string>{"SELECT", "INSERT", "UPDATE"});
  }
  SECTION("explain names every privilege the coarsening withholds") {
    const auto x = tw::explain_user(*m, {ps}, "masked", {}, {sr_profile("auto")});
    REQUIRE(x.profiles.size() == 1);
    const auto& refusals = x.profiles[0].refusals;
    auto r = std::find_if(refusals.begin(), refusals.end(),
                          [](const tw::Refusal& y) { return y.object == "default_catalog.s.t"; });
    REQUIRE(r != refusals.end());
    CHECK(r->withheld == std::vector<std::string>{"SELECT", "UPDATE", "DELETE"});
    const auto all = tw::explain_user(*m, {ps}, "everything", {}, {sr_profile("auto")});
    for (const auto& y : all.profiles[0].refusals) CHECK(y.object != "default_catalog.s.t");
  }
}

// withhold_writes: false keeps the writes of the uncleared (seed 003), but on StarRocks UPDATE and
// DELETE read through their WHERE without SELECT: they go with a SELECT a gate withholds, as with a
// coarsened one. INSERT reads nothing and stays.
TEST_CASE("starrocks: with withhold_writes: false an uncleared writer of a table gated whole keeps INSERT only") {
  auto m = model_from_text(R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
users: [{name: cleared}, {name: uncleared}]
roles: [steward]
role_assignments: [{role: steward, user: cleared}]
classifications: [{name: Secret, clearance: [{type: role, name: steward}]}]
objects:
  - {name: c.s.t, kind: table, tags: [Secret], columns: [{name: id, type: bigint}]}
grants:
  - {principal: {user: cleared}, object: c.s.t, privileges: [SELECT, INSERT, UPDATE, DELETE]}
  - {principal: {user: uncleared}, object: c.s.t, privileges: [SELECT, INSERT, UPDATE, DELETE]}
)");
  tw::Profile p = sr_profile();
  p.withhold_writes = false;
  const auto ps = compile_ok(*m, p);
  const Securable t{Securable::Kind::Table, "default_catalog", "s", "t"};
  for (const bool policies : {false, true}) {
    INFO("masking and row access policies: " << policies);
    const sr::Plan plan = plan_ok(ps, {sr::Dialect::StarRocks, {policies, policies}});
    const auto e = on_objects(effective(plan.desired));
    CHECK(e.at("cleared").at(t) == std::set<std::string>{"SELECT", "INSERT", "UPDATE", "DELETE"});
    CHECK(e.at("uncleared").at(t) == std::set<std::string>{"INSERT"});
    const auto* h = plan.holding("uncleared", t);
    REQUIRE(h);
    REQUIRE(h->withheld);
    CHECK(h->withheld->find("StarRocks checks no SELECT for their WHERE") != std::string::npos);
  }
  const auto x = tw::explain_user(*m, {ps}, "uncleared", {}, {p});
  const auto& refusals = x.profiles.at(0).refusals;
  auto r = std::find_if(refusals.begin(), refusals.end(),
                        [](const tw::Refusal& y) { return y.object == "default_catalog.s.t"; });
  REQUIRE(r != refusals.end());
  CHECK(r->withheld == std::vector<std::string>{"SELECT", "UPDATE", "DELETE"});
}

TEST_CASE("starrocks policies: a mask of a bounded string column is cut to its length, as Trino's cast cuts it") {
  // StarRocks does not cut a string cast to a shorter VARCHAR(n) (issue 56391): a hash in a
  // VARCHAR(6) policy returned all 64 digits where Trino gives 6 (found by an audit).
  CHECK(sr::sql::mask_expression(tw::ColumnMask{"v", tw::MaskKind::Hash, 0, ""}, "`v`", "VARCHAR(6)") ==
        "CAST(left(lower(sha2(`v`, 256)), 6) AS VARCHAR(6))");
  CHECK(sr::sql::mask_expression(tw::ColumnMask{"v", tw::MaskKind::Partial, 4, ""}, "`v`", "CHAR(5)") ==
        "CAST(left(CASE WHEN char_length(`v`) <= 4 THEN '****' ELSE concat('****', right(`v`, 4)) END, 5) AS CHAR(5))");
  // Unbounded strings are VARCHAR(65533): nothing to cut.
  CHECK(sr::sql::mask_expression(tw::ColumnMask{"v", tw::MaskKind::Hash, 0, ""}, "`v`", "VARCHAR(65533)") ==
        "CAST(lower(sha2(`v`, 256)) AS VARCHAR(65533))");
  CHECK(sr::sql::mask_expression(tw::ColumnMask{"v", tw::MaskKind::Null, 0, ""}, "`v`", "VARCHAR(6)") ==
        "CAST(NULL AS VARCHAR(6))");
}

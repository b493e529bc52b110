// PolicySet -> Trino file-based access control rules (engines/trino/rules.h).

#include <map>
#include <random>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "helpers.h"
#include "tagwarden/engines/trino/rules.h"
#include "tagwarden/model/load.h"

using namespace twtest;
using nlohmann::json;
using tw::trino::exact_alternation;
using tw::trino::regex_literal;
using tw::trino::render_rules;

namespace {

json parse_rules(const tw::trino::RulesDocument& doc) {
  REQUIRE_FALSE(doc.text.empty());
  CHECK(doc.text.back() == '\n');
  json j = json::parse(doc.text);
  REQUIRE(j.is_object());
  REQUIRE(j.contains("tables"));
  REQUIRE(j.contains("catalogs"));
  CHECK(doc.table_rules == j["tables"].size());
  return j;
}

void check_terminators(const json& j) {
  REQUIRE_FALSE(j["tables"].empty());
  CHECK(j["tables"].back() == json{{"privileges", json::array()}});
  REQUIRE_FALSE(j["catalogs"].empty());
  CHECK(j["catalogs"].back() == json{{"allow", "none"}});
}

// A small evaluator of Trino's table rules: the first rule whose user,
// catalog, schema and table patterns all match decides.
struct Decision {
  Names privileges;
  Names denied_columns;
  bool matched = false;
};

bool field_matches(const json& rule, const char* key, const std::string& value) {
  if (!rule.contains(key)) return true;
  return std::regex_match(value, std::regex(rule[key].get<std::string>(), std::regex::ECMAScript));
}

std::string catalog_access(const json& rules, const std::string& user, const std::string& catalog);

/// As Trino decides a table privilege: catalog rules first (no access there
/// means no access to any table in it), then the first matching table rule.
Decision evaluate(const json& rules, const std::string& user, const tw::QualifiedName& n) {
  const std::string catalog = catalog_access(rules, user, n.catalog);
  if (catalog != "all" && catalog != "read-only") return {};
  for (const auto& rule : rules["tables"]) {
    if (field_matches(rule, "user", user) && field_matches(rule, "catalog", n.catalog) &&
        field_matches(rule, "schema", n.schema) && field_matches(rule, "table", n.table)) {
      Decision d;
      d.matched = true;
      d.privileges = rule["privileges"].get<Names>();
      if (rule.contains("columns")) {
        for (const auto& c : rule["columns"]) {
          if (c.contains("allow") && c["allow"] == false) d.denied_columns.push_back(c["name"].get<std::string>());
        }
      }
      return d;
    }
  }
  return {};
}

std::string catalog_access(const json& rules, const std::string& user, const std::string& catalog) {
  for (const auto& rule : rules["catalogs"]) {
    if (field_matches(rule, "user", user) && field_matches(rule, "catalog", catalog)) {
      return rule["allow"].get<std::string>();
    }
  }
  return "(no rule)";
}

// One gated table (conf), one column-gated table (cust), one ungated (open).
const std::string kSmall = R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
users: [{name: steward}, {name: none}]
roles: [reader, r_steward]
role_assignments:
  - {role: reader, user: steward}
  - {role: reader, user: none}
  - {role: r_steward, user: steward}
classifications:
  - {name: Confidential, clearance: [{type: role, name: r_steward}]}
objects:
  - {name: c.s.conf, tags: [Confidential], columns: [{name: id}]}
  - {name: c.s.cust, columns: [{name: id}, {name: iban, tags: [Confidential]}]}
  - {name: c.s.open, columns: [{name: id}]}
grants:
  - {principal: {role: reader}, object: "c.*.*", privileges: [SELECT]}
)";

tw::PolicySet small_policy_set(tw::Profile profile = trino_profile({"c"})) {
  auto m = model_of(kSmall);
  return must_compile(*m, profile);
}

}  // namespace

TEST_CASE("rules are never empty and every section we rely on ends in a deny", "[trino]") {
  SECTION("an empty PolicySet") {
    tw::PolicySet ps;
    ps.profile = "empty";
    const tw::trino::RulesDocument doc = render_rules(ps);
    const json j = parse_rules(doc);
    check_terminators(j);
    CHECK(doc.object_rules == 0);
    // No users: no catalog is open to anybody.
    CHECK(j["catalogs"] == json::parse(R"([{"allow":"none"}])"));
    CHECK(j["impersonation"] == json::array());
    CHECK(j["system_information"] == json::array());
  }
  SECTION("a small PolicySet") {
    const json j = parse_rules(render_rules(small_policy_set()));
    check_terminators(j);
    // Catalogs are open only to the snapshot's users.
    CHECK(j["catalogs"] == json::parse(R"([
      {"user": "^(?:none|steward)$", "catalog": "^(?:c)$", "allow": "all"},
      {"user": "^(?:none|steward)$", "catalog": "^system$", "allow": "read-only"},
      {"allow": "none"}])"));
  }
  SECTION("the demo") {
    tw::SnapshotLoad s = tw::load_snapshot_file(TAGWARDEN_SOURCE_DIR "/examples/demo/snapshot.yaml");
    REQUIRE(s.snapshot);
    auto m = tw::build_model(std::make_shared<const tw::Snapshot>(*s.snapshot), std::nullopt);
    const json j = parse_rules(render_rules(must_compile(*m, trino_profile({"demo_warehouse"}))));
    check_terminators(j);
  }
}

TEST_CASE("deny_all_rules allows nothing", "[trino]") {
  const tw::trino::RulesDocument doc = tw::trino::deny_all_rules();
  const json j = parse_rules(doc);
  check_terminators(j);
  CHECK(j["catalogs"] == json::array({json{{"allow", "none"}}}));
  CHECK(j["tables"] == json::array({json{{"privileges", json::array()}}}));
  for (const auto& rule : j["catalogs"]) CHECK(rule["allow"] == "none");
  for (const auto& rule : j["tables"]) CHECK(rule["privileges"].empty());
  for (const auto& rule : j["schemas"]) CHECK_FALSE(rule.value("owner", false));
  CHECK(j["impersonation"] == json::array());
  CHECK(j["system_information"] == json::array());
  CHECK(catalog_access(j, "anyone", "c") == "none");
  CHECK(catalog_access(j, "anyone", "system") == "none");
  CHECK(evaluate(j, "anyone", {"c", "s", "t"}).privileges.empty());
  CHECK(doc.table_rules == 1);
  CHECK(doc.object_rules == 0);
  CHECK(doc.text == tw::trino::deny_all_rules().text);
}

TEST_CASE("a gated object gets its per-class rules, then a catch-all deny, before any broad rule", "[trino]") {
  const tw::PolicySet ps = small_policy_set();
  const tw::trino::RulesDocument doc = render_rules(ps);
  const json j = parse_rules(doc);
  // The steward's SELECT on both tables and the catch-all deny of both are each one rule
  // naming the two tables; the schema's named rules come before its deny.
  const json expected = json::parse(R"([
    {"user": "^(?:steward)$", "catalog": "^c$", "schema": "^s$", "table": "^(?:c(?:onf|ust))$",
     "privileges": ["SELECT"]},
    {"user": "^(?:none)$", "catalog": "^c$", "schema": "^s$", "table": "^cust$", "privileges": ["SELECT"],
     "columns": [{"name": "iban", "allow": false}]},
    {"catalog": "^c$", "schema": "^s$", "table": "^(?:c(?:onf|ust))$", "privileges": []},
    {"user": "^(?:none|steward)$", "catalog": "^c$", "privileges": ["SELECT"]},
    {"catalog": "^system$", "schema": "^jdbc$", "privileges": ["SELECT"]},
    {"privileges": []}
  ])");
  CHECK(j["tables"] == expected);
  CHECK(doc.object_rules == 3);
  CHECK(doc.table_rules == 6);

  // The catch-all deny for conf precedes every rule that is not about conf.
  std::size_t deny = 0, first_broad = 0;
  for (std::size_t i = 0; i < j["tables"].size(); ++i) {
    const json& r = j["tables"][i];
    if (r.contains("table") && !r.contains("user") && field_matches(r, "table", "conf")) deny = i;
    if (!r.contains("table") && first_broad == 0) first_broad = i;
  }
  CHECK(deny == 2);
  CHECK(deny < first_broad);

  // What Trino would decide matches the PolicySet.
  CHECK(evaluate(j, "steward", {"c", "s", "conf"}).privileges == Names{"SELECT"});
  CHECK(evaluate(j, "none", {"c", "s", "conf"}).privileges.empty());
  CHECK(evaluate(j, "intruder", {"c", "s", "conf"}).privileges.empty());
  CHECK(evaluate(j, "none", {"c", "s", "cust"}).denied_columns == Names{"iban"});
  CHECK(evaluate(j, "steward", {"c", "s", "cust"}).denied_columns.empty());
  CHECK(evaluate(j, "none", {"c", "s", "open"}).privileges == Names{"SELECT"});
  CHECK(evaluate(j, "none", {"c", "other", "new"}).privileges == Names{"SELECT"});
  CHECK(evaluate(j, "intruder", {"c", "s", "open"}).privileges.empty());
  CHECK(evaluate(j, "none", {"d", "s", "t"}).privileges.empty());
  CHECK(catalog_access(j, "none", "c") == "all");
  CHECK(catalog_access(j, "none", "d") == "none");
  CHECK(catalog_access(j, "intruder", "c") == "none");
  CHECK(catalog_access(j, "none", "system") == "read-only");
}

TEST_CASE("50 users with identical access on a gated table share one rule", "[trino]") {
  std::string users = "users:\n", assignments = "role_assignments:\n";
  Names cleared;
  for (int i = 0; i < 50; ++i) {
    const std::string name = "user" + std::to_string(100 + i);
    cleared.push_back(name);
    users += "  - {name: " + name + "}\n";
    assignments += "  - {role: r_steward, user: " + name + "}\n  - {role: reader, user: " + name + "}\n";
  }
  users += "  - {name: outsider}\n";
  assignments += "  - {role: reader, user: outsider}\n";
  const std::string text = R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
)" + users + "roles: [reader, r_steward]\n" +
                           assignments + R"(classifications:
  - {name: Confidential, clearance: [{type: role, name: r_steward}]}
  - {name: PII, clearance: [{type: role, name: r_nobody}]}
objects:
  - {name: c.s.conf, tags: [Confidential], columns: [{name: id}]}
grants:
  - {principal: {role: reader}, object: "c.*.*", privileges: [SELECT]}
)";
  // r_nobody is not declared: make PII's clearance valid by declaring it.
  std::string fixed = text;
  fixed.replace(fixed.find("roles: [reader, r_steward]"), 26, "roles: [reader, r_steward, r_nobody]");
  auto m = model_of(fixed);
  const tw::PolicySet ps = must_compile(*m, trino_profile({"c"}));
  const tw::trino::RulesDocument doc = render_rules(ps);
  const json j = parse_rules(doc);
  std::vector<json> conf_rules;
  for (const auto& r : j["tables"]) {
    if (r.contains("table") && field_matches(r, "table", "conf")) conf_rules.push_back(r);
  }
  REQUIRE(conf_rules.size() == 2);  // one allow, one catch-all deny
  CHECK(doc.object_rules == 2);
  CHECK(conf_rules[0]["privileges"] == json({"SELECT"}));
  CHECK(conf_rules[0]["user"] == exact_alternation(cleared));
  CHECK_FALSE(conf_rules[1].contains("user"));
  for (const auto& name : cleared) CHECK(evaluate(j, name, {"c", "s", "conf"}).privileges == Names{"SELECT"});
  CHECK(evaluate(j, "outsider", {"c", "s", "conf"}).privileges.empty());
  CHECK(evaluate(j, "user1000", {"c", "s", "conf"}).privileges.empty());
}

TEST_CASE("50 users refused the same column share one rule", "[trino]") {
  std::string users = "users:\n", assignments = "role_assignments:\n";
  for (int i = 0; i < 50; ++i) {
    users += "  - {name: u" + std::to_string(i) + "}\n";
    assignments += "  - {role: reader, user: u" + std::to_string(i) + "}\n";
  }
  const std::string text = "version: 1\ngenerated_at: \"2026-11-30T12:00:00Z\"\n" + users + "roles: [reader, r_pii]\n" +
                           assignments + R"(classifications:
  - {name: PII, clearance: [{type: role, name: r_pii}]}
objects:
  - {name: c.s.cust, columns: [{name: id}, {name: iban, tags: [PII]}]}
grants:
  - {principal: {role: reader}, object: "c.s.*", privileges: [SELECT]}
)";
  auto m = model_of(text);
  const tw::trino::RulesDocument doc = render_rules(must_compile(*m, trino_profile({"c"})));
  const json j = parse_rules(doc);
  CHECK(doc.object_rules == 2);
  const json& rule = j["tables"][0];
  CHECK(rule["table"] == "^cust$");
  CHECK(rule["columns"] == json::parse(R"([{"name": "iban", "allow": false}])"));
  CHECK(evaluate(j, "u17", {"c", "s", "cust"}).denied_columns == Names{"iban"});
  CHECK(evaluate(j, "u17", {"c", "s", "cust"}).privileges == Names{"SELECT"});
}

TEST_CASE("an ungated object produces no object rules", "[trino]") {
  const std::string text = R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
users: [{name: a}, {name: b}]
classifications: [{name: Public}]
objects:
  - {name: c.s.open, tags: [Public], columns: [{name: id}]}
  - {name: c.s.other, columns: [{name: id}]}
grants:
  - {principal: {user: a}, object: "c.s.*", privileges: [SELECT, INSERT]}
  - {principal: {user: b}, object: "c.s.open", privileges: [SELECT]}
)";
  auto m = model_of(text);
  const tw::trino::RulesDocument doc = render_rules(must_compile(*m, trino_profile({"c"})));
  const json j = parse_rules(doc);
  CHECK(doc.object_rules == 0);
  CHECK(j["tables"] == json::parse(R"([
    {"user": "^(?:b)$", "catalog": "^c$", "schema": "^s$", "table": "^open$", "privileges": ["SELECT"]},
    {"user": "^(?:a)$", "catalog": "^c$", "schema": "^s$", "table": "^open$", "privileges": ["SELECT", "INSERT"]},
    {"user": "^(?:a)$", "catalog": "^c$", "schema": "^s$", "privileges": ["SELECT", "INSERT"]},
    {"catalog": "^system$", "schema": "^jdbc$", "privileges": ["SELECT"]},
    {"privileges": []}
  ])"));
  CHECK(evaluate(j, "b", {"c", "s", "open"}).privileges == Names{"SELECT"});
  CHECK(evaluate(j, "b", {"c", "s", "other"}).privileges.empty());
  CHECK(evaluate(j, "a", {"c", "s", "other"}).privileges == Names{"SELECT", "INSERT"});
}

TEST_CASE("the same input renders byte-identical output", "[trino]") {
  const std::string a = render_rules(small_policy_set()).text;
  const std::string b = render_rules(small_policy_set()).text;
  CHECK(a == b);
  const tw::PolicySet ps = small_policy_set();
  CHECK(render_rules(ps).text == render_rules(ps).text);
  // One rule per line.
  CHECK(std::count(a.begin(), a.end(), '\n') > 10);
}

TEST_CASE("every rule Trino would apply agrees with the PolicySet on the demo", "[trino]") {
  tw::SnapshotLoad s = tw::load_snapshot_file(TAGWARDEN_SOURCE_DIR "/examples/demo/snapshot.yaml");
  REQUIRE(s.snapshot);
  auto m = tw::build_model(std::make_shared<const tw::Snapshot>(*s.snapshot), std::nullopt);
  const tw::PolicySet ps = must_compile(*m, trino_profile({"demo_warehouse"}));
  const json j = parse_rules(render_rules(ps));
  for (std::size_t u = 0; u < ps.users.size(); ++u) {
    const std::string& user = ps.users[u].engine_name;
    for (const auto& op : ps.objects) {
      INFO(user << " on " << op.engine_name.str());
      const Decision d = evaluate(j, user, op.engine_name);
      const tw::AccessClass* ua = find_access(op, u);
      CHECK(d.privileges == (ua ? ua->access.privileges.names() : Names{}));
      if (ua && ua->access.privileges.has(tw::Privilege::Select)) CHECK(d.denied_columns == ua->access.denied_columns);
    }
    for (const tw::QualifiedName& n :
         {tw::QualifiedName{"demo_warehouse", "finance", "new_table"},
          tw::QualifiedName{"demo_warehouse", "new_schema", "t"}, tw::QualifiedName{"elsewhere", "finance", "t"}}) {
      INFO(user << " on unlisted " << n.str());
      CHECK(evaluate(j, user, n).privileges == ps.unlisted_access(u, n).names());
    }
  }
}

TEST_CASE("regex_literal escapes every ASCII punctuation character", "[trino][regex]") {
  CHECK(regex_literal("abc_XYZ_019") == "abc_XYZ_019");
  CHECK(regex_literal("a.b") == "a\\.b");
  CHECK(regex_literal("x|y") == "x\\|y");
  CHECK(regex_literal("\\") == "\\\\");
  CHECK(regex_literal("a b") == "a\\ b");
  CHECK(regex_literal("\xC3\xA9") == "\xC3\xA9");
  CHECK(regex_literal("") == "");
  for (int c = 0x21; c < 0x7F; ++c) {
    const char ch = static_cast<char>(c);
    const bool alnum = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
    if (alnum || ch == '_') continue;
    INFO("character " << ch);
    CHECK(regex_literal(std::string(1, ch)) == std::string{'\\', ch});
  }
}

TEST_CASE("exact_alternation matches hostile names exactly and nothing else", "[trino][regex]") {
  const Names hostile{"a.b", "x|y",  "(",  ")", "[a]", "^$",  "\\",       "+?*",
                      "{1}", "'",    "\"", "`", " ",   "a b", "\xC3\xA9", "\xE5\x90\x8D\xE5\x89\x8D",
                      "ann", "anna", "-",  "#", "a$",  "$a",  "(?i)A",    "\\Q.\\E",
                      ".*",  "a|",   "|"};
  const std::regex all(exact_alternation(hostile), std::regex::ECMAScript);
  for (const auto& name : hostile) {
    INFO("name " << name);
    CHECK(std::regex_match(name, all));
    const std::regex one(exact_alternation({name}), std::regex::ECMAScript);
    CHECK(std::regex_match(name, one));
    CHECK_FALSE(std::regex_match(name + "x", one));
    CHECK_FALSE(std::regex_match("x" + name, one));
    CHECK_FALSE(std::regex_match(std::string(), one));
  }
  // Near misses, each against the alternation of the one name it resembles.
  const std::vector<std::pair<std::string, std::string>> near{{"a.b", "aXb"},
                                                              {"a.b", "ab"},
                                                              {"x|y", "x"},
                                                              {"x|y", "y"},
                                                              {"[a]", "a"},
                                                              {"^$", ""},
                                                              {"\\", "\\\\"},
                                                              {"+?*", "+"},
                                                              {"+?*", "++"},
                                                              {"{1}", "1"},
                                                              {"{1}", "{1}{1}"},
                                                              {"ann", "anna"},
                                                              {"anna", "ann"},
                                                              {"ann", "an"},
                                                              {"ann", "annn"},
                                                              {"\xC3\xA9", "e"},
                                                              {"\xE5\x90\x8D\xE5\x89\x8D", "\xE5\x90\x8D"},
                                                              {"a b", "ab"},
                                                              {"a b", "a  b"},
                                                              {".*", "anything"},
                                                              {"(?i)A", "a"},
                                                              {"a|", "a"},
                                                              {"|", ""},
                                                              {"'", "\""},
                                                              {"a$", "a"}};
  for (const auto& [name, miss] : near) {
    INFO("name " << name << " near miss " << miss);
    CHECK_FALSE(std::regex_match(miss, std::regex(exact_alternation({name}), std::regex::ECMAScript)));
  }
  CHECK_FALSE(std::regex_match(std::string("an"), all));
  CHECK_FALSE(std::regex_match(std::string("annaa"), all));
  CHECK_FALSE(std::regex_match(std::string("aXb"), all));
  CHECK_FALSE(std::regex_match(std::string("x"), all));
  CHECK_FALSE(std::regex_match(std::string("a"), all));
}

TEST_CASE("exact_alternation shares prefixes, sorts and de-duplicates", "[trino][regex]") {
  CHECK(exact_alternation({"b", "a", "b"}) == "^(?:a|b)$");
  CHECK(exact_alternation({"anna", "ann"}) == "^(?:ann(?:a)?)$");
  CHECK(exact_alternation({"a.b"}) == "^(?:a\\.b)$");
  CHECK(exact_alternation({"nora.svensson", "nora.smith", "noah"}) == "^(?:no(?:ah|ra\\.s(?:mith|vensson)))$");
  CHECK(exact_alternation({"", "x"}) == "^(?:x|)$");
  // A UTF-8 sequence is never split: the two names share only the whole first character.
  CHECK(exact_alternation({"éa", "éb", "è"}) == "^(?:è|é(?:a|b))$");
}

TEST_CASE("exact_alternation of random sets matches exactly the set's names", "[trino][regex]") {
  // Few distinct code points (one, two and three bytes, and regex syntax) make long shared
  // prefixes and long runs of names under one branch, which the trie walk searches for.
  const std::vector<std::string> alphabet{"a", "b", ".", "|", "\xC3\xA9", "\xE5\x90\x8D"};
  std::mt19937 rng(20261203);
  auto random_name = [&] {
    std::string name;
    const std::size_t length = rng() % 7;
    for (std::size_t k = 0; k < length; ++k) name += alphabet[rng() % (k < 3 ? 2 : alphabet.size())];
    return name;
  };
  for (int round = 0; round < 40; ++round) {
    std::set<std::string> chosen;
    const std::size_t size = 1 + rng() % (round < 20 ? 12 : 300);
    while (chosen.size() < size) chosen.insert(random_name());
    const std::string pattern = exact_alternation(Names(chosen.begin(), chosen.end()));
    INFO("round " << round << ": " << pattern);
    const std::regex re(pattern, std::regex::ECMAScript);
    for (const auto& name : chosen) CHECK(std::regex_match(name, re));
    for (int probe = 0; probe < 300; ++probe) {
      const std::string other = random_name();
      INFO("probe " << other);
      CHECK(std::regex_match(other, re) == (chosen.count(other) == 1));
    }
  }
}

TEST_CASE("hostile object, column and user names reach the rules only escaped", "[trino][regex]") {
  const std::string text = R"y(version: 1
generated_at: "2026-11-30T12:00:00Z"
users: [{name: "a.b"}, {name: "aXb"}, {name: "x|y"}]
roles: [r]
role_assignments: [{role: r, user: "a.b"}]
classifications:
  - {name: Secret, clearance: [{type: role, name: r}]}
objects:
  - {name: "c.s$.t(1)", tags: [Secret], columns: [{name: "c\"ol"}]}
grants:
  - {principal: {user: "a.b"}, object: "c.s$.t(1)", privileges: [SELECT]}
  - {principal: {user: "aXb"}, object: "c.s$.t(1)", privileges: [SELECT]}
  - {principal: {user: "x|y"}, object: "c.s$.*", privileges: [SELECT]}
)y";
  auto m = model_of(text);
  const json j = parse_rules(render_rules(must_compile(*m, trino_profile({"c"}))));
  CHECK(j["tables"][0] == json::parse(R"({"user": "^(?:a\\.b)$", "catalog": "^c$", "schema": "^s\\$$",
                                          "table": "^t\\(1\\)$", "privileges": ["SELECT"]})"));
  CHECK(evaluate(j, "a.b", {"c", "s$", "t(1)"}).privileges == Names{"SELECT"});
  CHECK(evaluate(j, "aXb", {"c", "s$", "t(1)"}).privileges.empty());
  CHECK(evaluate(j, "x|y", {"c", "s$", "t(1)"}).privileges.empty());
  CHECK(evaluate(j, "x", {"c", "s$", "other"}).privileges.empty());
  CHECK(evaluate(j, "x|y", {"c", "s$", "other"}).privileges == Names{"SELECT"});
  CHECK(evaluate(j, "x|y", {"c", "s", "other"}).privileges.empty());
}

TEST_CASE("user names with quotes, backslashes and non-ASCII bytes are written as exact JSON string literals",
          "[trino][regex]") {
  // The alternations' JSON literals are written by hand for printable ASCII and by the
  // JSON library otherwise; both must give names that parse back to exactly these users.
  // Table t names only ASCII users (the hand-written path), t2 a non-ASCII one (the library's).
  const Names names{"q\"uote", "back\\slash", "a\"b\\c", "\\\"", "caf\xc3\xa9", "x"};
  auto cleared_for_t = [](std::size_t i) { return i < 4; };
  auto cleared_for_t2 = [](std::size_t i) { return i == 0 || i == 4; };
  std::string users = "users:\n", grants = "grants:\n", assignments = "role_assignments:\n";
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string name = json(names[i]).dump();
    users += "  - {name: " + name + "}\n";
    grants += "  - {principal: {user: " + name + "}, object: \"c.s.*\", privileges: [SELECT]}\n";
    if (cleared_for_t(i)) assignments += "  - {role: r, user: " + name + "}\n";
    if (cleared_for_t2(i)) assignments += "  - {role: r2, user: " + name + "}\n";
  }
  users += "  - {name: bystander}\n";
  const std::string text = "version: 1\ngenerated_at: \"2026-11-30T12:00:00Z\"\n" + users + "roles: [r, r2]\n" +
                           assignments +
                           "classifications:\n"
                           "  - {name: Secret, clearance: [{type: role, name: r}]}\n"
                           "  - {name: Secret2, clearance: [{type: role, name: r2}]}\n"
                           "objects:\n"
                           "  - {name: c.s.t, tags: [Secret], columns: [{name: id}]}\n"
                           "  - {name: c.s.t2, tags: [Secret2], columns: [{name: id}]}\n" +
                           grants;
  auto m = model_of(text);
  const tw::PolicySet ps = must_compile(*m, trino_profile({"c"}));
  const tw::trino::RulesDocument doc = render_rules(ps);
  const json j = parse_rules(doc);
  bool ascii_only = false, non_ascii = false;
  for (const auto& r : j["tables"]) {
    if (!r.contains("user")) continue;
    const std::string pattern = r["user"].get<std::string>();
    (pattern.find("caf") == std::string::npos ? ascii_only : non_ascii) = true;
    // Written as the JSON library writes the same string, byte for byte.
    CHECK(doc.text.find("\"user\":" + r["user"].dump()) != std::string::npos);
  }
  CHECK(ascii_only);
  CHECK(non_ascii);
  for (std::size_t i = 0; i < names.size(); ++i) {
    INFO(names[i]);
    CHECK(evaluate(j, names[i], {"c", "s", "t"}).privileges == (cleared_for_t(i) ? Names{"SELECT"} : Names{}));
    CHECK(evaluate(j, names[i], {"c", "s", "t2"}).privileges == (cleared_for_t2(i) ? Names{"SELECT"} : Names{}));
  }
  for (const std::string other : {"bystander", "quote", "q\\\"uote", "backslash", "back\\\\slash", "cafe", "\""}) {
    INFO(other);
    CHECK(evaluate(j, other, {"c", "s", "t"}).privileges.empty());
    CHECK(evaluate(j, other, {"c", "s", "t2"}).privileges.empty());
  }
}

TEST_CASE("an object is left to the rule for unlisted names only when that rule gives each user its access",
          "[trino]") {
  // Built by hand: the rule for c.s.* gives a SELECT and INSERT and b SELECT. On t1 both may only
  // read (the same users, fewer privileges for a), on t2 each has what the rule gives, on t3 b
  // has nothing, and on t4 c, whom the rule does not name, reads.
  const tw::PrivilegeSet select(static_cast<std::uint8_t>(tw::Privilege::Select));
  const tw::PrivilegeSet select_insert(static_cast<std::uint8_t>(tw::Privilege::Select) |
                                       static_cast<std::uint8_t>(tw::Privilege::Insert));
  tw::PolicySet ps;
  ps.profile = "p";
  ps.users = {{"a", "a"}, {"b", "b"}, {"c", "c"}};
  ps.catalogs = {"c"};
  auto users = [](std::vector<std::size_t> u) {
    return std::make_shared<const tw::UserList>(tw::UserList::of_indices(u));
  };
  ps.unlisted = std::vector<tw::UnlistedRule>{{{"c", "s", "*"}, {{select, users({1})}, {select_insert, users({0})}}}};
  auto cls = [&](std::vector<std::size_t> u, tw::PrivilegeSet p) {
    tw::AccessClass c;
    c.users = users(std::move(u));
    c.granted = p;
    c.access.privileges = p;
    return c;
  };
  auto object = [&](const std::string& table, std::vector<tw::AccessClass> classes) {
    tw::ObjectPolicy op;
    op.platform_name = op.engine_name = {"c", "s", table};
    op.columns = {"id"};
    op.column_types = {"bigint"};
    op.classes = std::move(classes);
    return op;
  };
  ps.objects.push_back(object("t1", {cls({0, 1}, select)}));
  ps.objects.push_back(object("t2", {cls({1}, select), cls({0}, select_insert)}));
  ps.objects.push_back(object("t3", {cls({0}, select_insert)}));
  ps.objects.push_back(object("t4", {cls({1}, select), cls({0}, select_insert), cls({2}, select)}));
  const tw::trino::RulesDocument doc = render_rules(ps);
  const json j = parse_rules(doc);
  const std::map<std::pair<std::string, std::string>, Names> want{
      {{"a", "t1"}, {"SELECT"}},           {{"b", "t1"}, {"SELECT"}}, {{"c", "t1"}, {}},
      {{"a", "t2"}, {"SELECT", "INSERT"}}, {{"b", "t2"}, {"SELECT"}}, {{"c", "t2"}, {}},
      {{"a", "t3"}, {"SELECT", "INSERT"}}, {{"b", "t3"}, {}},         {{"c", "t3"}, {}},
      {{"a", "t4"}, {"SELECT", "INSERT"}}, {{"b", "t4"}, {"SELECT"}}, {{"c", "t4"}, {"SELECT"}},
      {{"a", "t5"}, {"SELECT", "INSERT"}}, {{"b", "t5"}, {"SELECT"}}, {{"c", "t5"}, {}}};
  for (const auto& [at, privileges] : want) {
    INFO(at.first << " on " << at.second);
    CHECK(evaluate(j, at.first, {"c", "s", at.second}).privileges == privileges);
  }
  // t2 alone needs no rules of its own.
  for (const auto& r : j["tables"]) CHECK(r.value("table", "") != "^t2$");
  CHECK(doc.object_rules > 0);
}

TEST_CASE("an engine name two users share is written once in an alternation", "[trino][regex]") {
  // The compile refuses two users mapped to one engine user; the render still names each once.
  const tw::PrivilegeSet select(static_cast<std::uint8_t>(tw::Privilege::Select));
  tw::PolicySet ps;
  ps.profile = "p";
  ps.users = {{"x1", "x"}, {"y", "y"}, {"x2", "x"}, {"z", "z"}};
  ps.catalogs = {"c"};
  tw::ObjectPolicy op;
  op.platform_name = op.engine_name = {"c", "s", "t"};
  op.columns = {"id"};
  op.column_types = {"bigint"};
  tw::AccessClass cls;
  cls.users = std::make_shared<const tw::UserList>(tw::UserList::of_indices({0, 1, 2}));
  cls.granted = cls.access.privileges = select;
  op.classes = std::vector<tw::AccessClass>{cls};
  ps.objects.push_back(op);
  const json j = parse_rules(render_rules(ps));
  REQUIRE(j["tables"][0].contains("user"));
  CHECK(j["tables"][0]["user"] == "^(?:x|y)$");
}

TEST_CASE("a large group is left to a last rule naming nobody; everyone else is named", "[trino]") {
  // 300 readers: 280 cleared for Confidential, 20 not; 15 users hold no grant at all.
  std::string users = "users:\n", assignments = "role_assignments:\n";
  for (int i = 0; i < 315; ++i) {
    const std::string name = "reader.with.a.long.name" + std::to_string(i);
    users += "  - {name: \"" + name + "\"}\n";
    if (i < 300) assignments += "  - {role: reader, user: \"" + name + "\"}\n";
    if (i < 280) assignments += "  - {role: r_steward, user: \"" + name + "\"}\n";
  }
  const std::string text = R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
)" + users + "roles: [reader, r_steward]\n" +
                           assignments + R"(classifications:
  - {name: Confidential, clearance: [{type: role, name: r_steward}]}
objects:
  - {name: c.s.conf, tags: [Confidential], columns: [{name: id}]}
  - {name: c.s.cust, columns: [{name: id}, {name: iban, tags: [Confidential]}]}
grants:
  - {principal: {role: reader}, object: "c.*.*", privileges: [SELECT]}
)";
  auto m = model_of(text);
  const tw::PolicySet ps = must_compile(*m, trino_profile({"c"}));
  const json j = parse_rules(render_rules(ps));
  std::vector<json> conf_rules;
  for (const auto& r : j["tables"]) {
    if (r.contains("table") && field_matches(r, "table", "conf")) conf_rules.push_back(r);
  }
  // 20 uncleared readers and 15 without a grant are refused by name; the 280 cleared take the last rule.
  REQUIRE(conf_rules.size() == 2);
  CHECK(conf_rules[0]["privileges"] == json::array());
  const std::string refused = conf_rules[0]["user"].get<std::string>();
  CHECK(std::count(refused.begin(), refused.end(), '|') == 34);
  CHECK_FALSE(conf_rules[1].contains("user"));
  CHECK(conf_rules[1]["privileges"] == json({"SELECT"}));
  // Every known user gets exactly the PolicySet's decision; unknown users get nothing.
  for (std::size_t u = 0; u < ps.users.size(); ++u) {
    for (const std::string table : {"conf", "cust"}) {
      const tw::ObjectPolicy& op = object(ps, "c.s." + table);
      const tw::AccessClass* cls = op.class_of(u);
      const Names want = cls ? cls->access.privileges.names() : Names{};
      const Decision got = evaluate(j, ps.users[u].engine_name, {"c", "s", table});
      INFO(ps.users[u].engine_name << " on " << table);
      CHECK(got.privileges == want);
      if (cls && !want.empty()) CHECK(got.denied_columns == cls->access.denied_columns);
    }
  }
  for (const std::string stranger : {"intruder", "reader.with.a.long.name", ".*"}) {
    CHECK(catalog_access(j, stranger, "c") == "none");
    CHECK(evaluate(j, stranger, {"c", "s", "conf"}).privileges.empty());
    CHECK(evaluate(j, stranger, {"c", "s", "cust"}).privileges.empty());
  }
}

TEST_CASE("owners of DEFINER views and materialized views get GRANT_SELECT on what their views read, nobody else",
          "[trino][views]") {
  const std::string text = R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
users:
  - {name: owner}
  - {name: reader}
  - {name: invoker_owner}
  - {name: mv_owner}
  - {name: blind_owner}
roles: [analyst, steward]
role_assignments:
  - {role: analyst, user: owner}
  - {role: analyst, user: reader}
  - {role: analyst, user: invoker_owner}
  - {role: analyst, user: mv_owner}
  - {role: steward, user: owner}
  - {role: steward, user: mv_owner}
classifications:
  - {name: PII, clearance: [{type: role, name: steward}]}
objects:
  - name: lake.s.orders
    kind: table
    columns: [{name: id, type: bigint}, {name: email, type: varchar, tags: [PII]}]
  - name: lake.s.other
    kind: table
    columns: [{name: id, type: bigint}]
  - {name: lake.s.v, kind: view, owner: owner, depends_on: [lake.s.orders], columns: [{name: id, type: bigint}]}
  - {name: lake.s.iv, kind: view, owner: invoker_owner, view_security: invoker, depends_on: [lake.s.orders],
     columns: [{name: id, type: bigint}]}
  - {name: lake.s.mv, kind: materialized_view, owner: mv_owner, depends_on: [lake.s.v],
     columns: [{name: id, type: bigint}]}
  - {name: lake.s.bv, kind: view, owner: blind_owner, depends_on: [lake.s.other], columns: [{name: id, type: bigint}]}
grants:
  - {principal: {role: analyst}, object: "lake.s.*", privileges: [SELECT]}
)";
  auto m = model_of(text);
  const tw::PolicySet ps = must_compile(*m, trino_profile({"lake"}));
  auto grant_select = [&](const std::string& object, const std::string& user) {
    const tw::AccessClass* cls = find_access(twtest::object(ps, object), user_index(*m, user));
    return cls != nullptr && cls->access.grant_select;
  };
  // The DEFINER view's owner on its base; the materialized view's owner on the view it reads
  // (which carries PII from orders: mv_owner is cleared for it).
  CHECK(grant_select("lake.s.orders", "owner"));
  CHECK(grant_select("lake.s.v", "mv_owner"));
  // Readers, INVOKER views' owners, owners on objects their views do not read: no.
  for (const char* user : {"reader", "invoker_owner", "mv_owner", "blind_owner"}) {
    INFO(user);
    CHECK_FALSE(grant_select("lake.s.orders", user));
  }
  CHECK_FALSE(grant_select("lake.s.v", "owner"));
  CHECK_FALSE(grant_select("lake.s.other", "owner"));
  // blind_owner holds no grant on lake.s.other: nothing to pass on, so nothing is added.
  CHECK(find_access(twtest::object(ps, "lake.s.other"), user_index(*m, "blind_owner")) == nullptr);
  // The owner's own restrictions stay: a column the owner may not read stays denied with it.
  CHECK(privs(twtest::object(ps, "lake.s.orders"), user_index(*m, "owner")) == Names{"SELECT"});

  const json j = parse_rules(render_rules(ps));
  check_terminators(j);
  auto rule_privileges = [&](const std::string& user, const tw::QualifiedName& n) {
    return evaluate(j, user, n).privileges;
  };
  CHECK(rule_privileges("owner", {"lake", "s", "orders"}) == Names{"SELECT", "GRANT_SELECT"});
  CHECK(rule_privileges("reader", {"lake", "s", "orders"}) == Names{"SELECT"});
  CHECK(rule_privileges("invoker_owner", {"lake", "s", "orders"}) == Names{"SELECT"});
  CHECK(rule_privileges("mv_owner", {"lake", "s", "v"}) == Names{"SELECT", "GRANT_SELECT"});
  CHECK(rule_privileges("owner", {"lake", "s", "v"}) == Names{"SELECT"});
  // reader is not cleared for PII: email stays denied; owner is cleared.
  CHECK(evaluate(j, "reader", {"lake", "s", "orders"}).denied_columns == Names{"email"});
  CHECK(evaluate(j, "owner", {"lake", "s", "orders"}).denied_columns.empty());
}

TEST_CASE("every table rule's line is the JSON library's own dump of it, for hostile names", "[trino][regex]") {
  // Lines of object rules are spliced from pre-dumped parts (render_rules.cpp, section_text):
  // parsing a line and dumping it again must give the line, whatever the names hold.
  const std::string text = R"y(version: 1
generated_at: "2026-11-30T12:00:00Z"
users:
  - {name: "a\"b", attributes: {region: "E\"U"}}
  - {name: "caf\u00e9", attributes: {region: "US"}}
  - {name: "x\\y"}
roles: [r, m]
role_assignments:
  - {role: r, user: "a\"b"}
  - {role: m, user: "caf\u00e9"}
classifications:
  - {name: Secret, clearance: [{type: role, name: r}]}
  - {name: PII}
objects:
  - {name: "c.s\"q\\.t\"1", tags: [Secret], columns: [{name: "c\"ol", type: varchar}, {name: region, type: varchar}]}
  - {name: "c.s\"q\\.t\\2", tags: [Secret], columns: [{name: "c\"ol", type: varchar}, {name: region, type: varchar}]}
  - {name: "c.s\"q\\.caf\u00e9", columns: [{name: "m\u00e9", type: varchar, tags: [PII]}, {name: region, type: varchar}]}
  - {name: "c.s\"q\\.t$", columns: [{name: "x", type: varchar, tags: [Secret]}, {name: region, type: varchar}]}
grants:
  - {principal: {role: r}, object: "c.*.*", privileges: [SELECT]}
  - {principal: {role: m}, object: "c.*.*", privileges: [SELECT, INSERT]}
  - {principal: {user: "x\\y"}, object: "c.s\"q\\.t$", privileges: [SELECT]}
policies:
  - {name: mask_pii, type: column_mask, mask: partial, visible_chars: 2, scope: {tag: PII}, exempt: {roles: [r]}}
  - name: rows
    type: row_filter
    scope: {object: "c.s\"q\\.caf\u00e9"}
    condition: {column: region, op: eq, value: {$user: attributes.region}}
)y";
  auto m = model_of(text);
  const tw::trino::RulesDocument doc = render_rules(must_compile(*m, trino_profile({"c"})));
  std::size_t checked = 0, with_columns = 0, with_filter = 0, several_tables = 0;
  std::size_t at = doc.text.find("\"tables\": [");
  REQUIRE(at != std::string::npos);
  while ((at = doc.text.find("\n  {", at)) != std::string::npos) {
    const std::size_t end = doc.text.find('\n', at + 1);
    std::string line = doc.text.substr(at + 3, end - at - 3);
    if (!line.empty() && line.back() == ',') line.pop_back();
    INFO(line);
    const json rule = json::parse(line);
    CHECK(rule.dump(-1, ' ', false, json::error_handler_t::strict) == line);
    ++checked;
    with_columns += rule.contains("columns");
    with_filter += rule.contains("filter");
    several_tables += rule.value("table", "").find('|') != std::string::npos;
    at = end;
  }
  CHECK(checked > 6);
  CHECK(with_columns > 0);
  CHECK(with_filter > 0);
  CHECK(several_tables > 0);
}

TEST_CASE("a restored rules document must have the shape tagwarden writes", "[trino]") {
  auto padded = [](std::string_view s) {
    std::string out;
    out.reserve(s.size() + 64);
    out.append(s);
    return out;
  };
  CHECK(tw::trino::restorable_rules(padded(tw::trino::deny_all_rules().text)));
  CHECK(tw::trino::restorable_rules(tw::trino::deny_all_rules().text));  // copied when it has no room to pad
  CHECK(tw::trino::restorable_rules(
      padded(R"({"catalogs": [{"allow": "all", "user": "^a$"}, { "allow" : "none" }], "schemas": [], "tables": []})")));
  for (const char* bad : {"{}", "", "null", "[]", "not json", R"({"catalogs": [{"allow": "none"}], "schemas": []})",
                          R"({"catalogs": [], "schemas": [], "tables": []})",
                          R"({"catalogs": [{"allow": "all"}], "schemas": [], "tables": []})",
                          R"({"catalogs": [{"allow": "none"}], "schemas": [], "tables": {}})",
                          R"({"profile": "p", "engine": "trino", "access_control": "opa", "decisions": {}})"}) {
    INFO(bad);
    CHECK_FALSE(tw::trino::restorable_rules(padded(bad)));
  }
}

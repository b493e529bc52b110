// An object's columns are shared by every copy, and so are the names and types made from them:
// what a copy reads never changes, a changed copy reads its own, and every thread gets one list.

#include <catch2/catch.hpp>
#include <thread>
#include <vector>

#include "helpers.h"
#include "tagwarden/model/snapshot.h"

using twtest::Names;

TEST_CASE("columns give their names, names as Trino lowercases them, and types", "[columns]") {
  const tw::Columns columns{{"Id", "bigint", {}}, {"E\u0130MAIL", "varchar", {"pii"}}, {"stra\u00DFe", "varchar", {}}};
  CHECK(columns.names().to_vector() == Names{"Id", "E\u0130MAIL", "stra\u00DFe"});
  CHECK(columns.lowercase_names().to_vector() == Names{"id", "ei\u0307mail", "stra\u00DFe"});
  CHECK(columns.types().to_vector() == Names{"bigint", "varchar", "varchar"});
  const tw::Columns none;
  CHECK(none.names().empty());
  CHECK(none.lowercase_names().empty());
  CHECK(none.types().empty());
}

TEST_CASE("copies of columns share the lists made from them until one is changed", "[columns]") {
  tw::Columns a{{"id", "bigint", {}}, {"email", "varchar", {}}};
  const tw::Columns b = a;
  // Lowercase names already: the lowercased list is the names list itself.
  CHECK(&a.lowercase_names()[0] == &a.names()[0]);
  // Names and types are the columns' own strings, not copies.
  CHECK(&a.names()[1] == &a[1].name);
  CHECK(&a.types()[1] == &a[1].type);
  CHECK(&b.names()[0] == &a.names()[0]);
  CHECK(&b.types()[0] == &a.types()[0]);
  const tw::SharedStrings taken = a.names();  // as a PolicySet takes them

  a.push_back({"Region", "varchar", {}});  // a is changed: it no longer shares with b
  CHECK(a.names().to_vector() == Names{"id", "email", "Region"});
  CHECK(a.lowercase_names().to_vector() == Names{"id", "email", "region"});
  CHECK(a.types().to_vector() == Names{"bigint", "varchar", "varchar"});
  CHECK(b.names().to_vector() == Names{"id", "email"});
  CHECK(taken.to_vector() == Names{"id", "email"});
  CHECK(&taken[0] == &b[0].name);

  // A taken list keeps its columns alive, unchanged, after every Columns value let go of them.
  tw::SharedStrings kept;
  {
    tw::Columns d{{"id", "bigint", {}}, {"Zip", "varchar", {}}};
    kept = d.names();
    d.push_back({"more", "int", {}});  // d no longer shares its list with `kept`
    CHECK(d.size() == 3);
  }
  CHECK(kept.to_vector() == Names{"id", "Zip"});
  CHECK(std::vector<std::string>(kept.begin() + 1, kept.end()) == Names{"Zip"});

  // Changed in place (no other copy), after its names were made: they are made again.
  tw::Columns c{{"id", "bigint", {}}};
  CHECK(c.names().to_vector() == Names{"id"});
  c.push_back({"Name", "varchar", {}});
  CHECK(c.names().to_vector() == Names{"id", "Name"});
  CHECK(c.lowercase_names().to_vector() == Names{"id", "name"});
  CHECK(c.types().to_vector() == Names{"bigint", "varchar"});
}

TEST_CASE("columns say whether a name lowercases by context, and say it again once changed", "[columns]") {
  tw::Columns columns{{"id", "bigint", {}}, {"\u039F\u0394\u039F\u03A3", "varchar", {}}};  // a capital sigma
  CHECK(columns.any_context_dependent_name());
  tw::Columns plain{{"id", "bigint", {}}};
  CHECK_FALSE(plain.any_context_dependent_name());
  plain.push_back({"\u03A3", "varchar", {}});  // changed in place after it was asked
  CHECK(plain.any_context_dependent_name());
  CHECK_FALSE(tw::Columns().any_context_dependent_name());
}

TEST_CASE("threads asking one list for its names get the same list", "[columns]") {
  tw::Columns columns;
  for (int i = 0; i < 200; ++i) columns.push_back({"Column" + std::to_string(i), "varchar", {}});
  const tw::Columns shared = columns;
  std::vector<const std::string*> seen(8);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < seen.size(); ++t)
    threads.emplace_back([&, t] { seen[t] = &(t % 2 ? shared : columns).lowercase_names()[0]; });
  for (auto& t : threads) t.join();
  for (const auto* s : seen) CHECK(s == seen.front());
  CHECK(*seen.front() == "column0");
  CHECK(columns.lowercase_names()[199] == "column199");
}

#pragma once
// What the row filter policy `f` on c.s.t compiles to for one user on a Trino profile over
// catalog c: shared by the row-filter tests, whose snapshots differ only in users and condition.

#include <string>

#include <nlohmann/json.hpp>

#include "helpers.h"
#include "tagwarden/compile/access_policies.h"
#include "tagwarden/engines/trino/rules.h"

namespace twtest {

struct RowFilterOutcome {
  nlohmann::json row_filter;  ///< the resolved condition, null when there is none
  std::string trino;          ///< the Trino filter expression
  bool unsatisfiable = false;
  std::string reason;    ///< the decision's reason
  bool finding = false;  ///< a row_filter_unsatisfiable finding names the user
};

inline RowFilterOutcome row_filter_outcome(const std::string& snapshot_text, const std::string& user) {
  auto m = model_of(snapshot_text);
  tw::ProfileCompile pc = tw::compile_profile(*m, trino_profile({"c"}));
  REQUIRE(pc.errors.empty());
  REQUIRE(pc.policy_set.has_value());
  const tw::ObjectPolicy& op = object(*pc.policy_set, "c.s.t");
  const std::size_t ui = user_index(*m, user);
  const auto* a = find_access(op, ui);
  REQUIRE(a != nullptr);
  RowFilterOutcome f;
  if (!a->access.row_filter.empty()) f.row_filter = nlohmann::json::parse(a->access.row_filter);
  const nlohmann::json e = tw::trino::enforced_expressions(a->access);
  if (e["trino_filter"].is_string()) f.trino = e["trino_filter"].get<std::string>();
  for (const auto& d : tw::judge_policies(*m, op, ui)) {
    if (d.policy == "f") {
      f.unsatisfiable = d.unsatisfiable;
      f.reason = d.reason;
    }
  }
  for (const auto& fi : pc.findings) {
    if (fi.code != "row_filter_unsatisfiable") continue;
    for (const auto& s : fi.subjects) f.finding = f.finding || s == user;
  }
  return f;
}

}  // namespace twtest

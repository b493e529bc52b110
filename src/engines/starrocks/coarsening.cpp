#include "coarsening.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "tagwarden/compile/filter_columns.h"
#include "tagwarden/engines/starrocks/sql.h"
#include "tagwarden/util/text.h"

namespace tw::starrocks {

namespace {

bool renderable_filter(const ObjectPolicy& op, const std::string& canonical_filter) {
  const auto cond = nlohmann::json::parse(canonical_filter, nullptr, false);
  if (cond.is_discarded()) return false;
  std::map<std::string, std::string> args;
  for (const auto& c : filter_columns(cond)) {
    auto it = std::find(op.columns.begin(), op.columns.end(), c);
    if (it == op.columns.end()) return false;
    const auto i = static_cast<std::size_t>(it - op.columns.begin());
    if (i >= op.column_types.size() || sql::mask_type(op.column_types[i]).empty()) return false;
    args[c] = "a";
  }
  // A row access policy takes at least one argument: a filter reading no column binds the first
  // column that can be typed (add_row_policy), and an object with none cannot carry a policy.
  if (args.empty()) {
    bool typed = false;
    for (std::size_t i = 0; i < op.columns.size() && i < op.column_types.size() && !typed; ++i)
      typed = !sql::mask_type(op.column_types[i]).empty();
    if (!typed) return false;
  }
  return sql::filter_expression(cond, args).has_value();
}

// `{"true": true}` reads every row (seed 004: "how you give a reader every row"), alone or ANDed
// with others like it: no row access policy is needed to enforce it.
bool keeps_every_row(const nlohmann::json& cond) {
  if (cond == nlohmann::json{{"true", true}}) return true;
  if (!cond.is_object() || cond.size() != 1 || !cond.contains("and") || !cond["and"].is_array()) return false;
  return std::all_of(cond["and"].begin(), cond["and"].end(),
                     [](const nlohmann::json& c) { return keeps_every_row(c); });
}

bool needs_row_policy(const std::string& canonical_filter) {
  if (canonical_filter.empty()) return false;
  const auto cond = nlohmann::json::parse(canonical_filter, nullptr, false);
  return cond.is_discarded() || !keeps_every_row(cond);
}

// The writes that read through a WHERE: StarRocks checks only them on the target table.
PrivilegeSet predicate_writes(const Access& a) {
  PrivilegeSet out;
  for (Privilege w : {Privilege::Update, Privilege::Delete}) {
    if (a.privileges.has(w)) out.add(w);
  }
  return out;
}

}  // namespace

Coarsening coarsening(const ObjectPolicy& op, const AccessClass& cls, const Capabilities& caps, TypeCache& types) {
  Coarsening out;
  const Access& a = cls.access;
  if (!a.privileges.has(Privilege::Select)) return out;
  // Each unmaskable column is reported where it comes from: a clearance gate, or an access policy.
  std::vector<std::string> unmaskable, gate_columns, policy_columns;
  for (const auto& c : a.denied_columns) {
    const bool gated = gated_column(op, c);
    if (!caps.masking_policies || column_type(op, c, types).empty()) {
      unmaskable.push_back(c);
      (gated ? gate_columns : policy_columns).push_back(c);
    }
  }
  for (const auto& m : a.masks) {
    if (!caps.masking_policies || column_type(op, m.column, types).empty()) {
      unmaskable.push_back(m.column);
      policy_columns.push_back(m.column);
    }
  }
  const bool filter = needs_row_policy(a.row_filter);
  const bool filter_ok = !filter || (caps.row_access_policies && renderable_filter(op, a.row_filter));
  if (unmaskable.empty() && filter_ok) return out;
  for (auto* v : {&unmaskable, &gate_columns, &policy_columns}) {
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
  out.columns = unmaskable;
  out.gate_columns = std::move(gate_columns);
  out.policy_columns = std::move(policy_columns);
  out.gates = !out.gate_columns.empty();
  out.policies = !out.policy_columns.empty() || !filter_ok;
  std::vector<std::string> what;
  if (!unmaskable.empty()) {
    what.push_back("column" + std::string(unmaskable.size() == 1 ? " " : "s ") + join_words(unmaskable) +
                   (caps.masking_policies ? " cannot be masked (their type cannot be written into a masking policy)"
                                          : " cannot be masked on this server (no masking policies)"));
  }
  if (!filter_ok) {
    what.push_back(caps.row_access_policies
                       ? "its row filter cannot be written into a row access policy"
                       : "its row filter cannot be enforced on this server (no row access policies)");
  }
  out.reason = "SELECT withheld on the whole object: " + join_words(what) + " (coarsened, never dropped)";
  out.writes_withheld = predicate_writes(a);
  if (!out.writes_withheld.empty()) {
    out.reason += "; " + join_words(out.writes_withheld.names()) +
                  " withheld with it: StarRocks checks no SELECT for their WHERE, which would read what is withheld";
  }
  return out;
}

PrivilegeSet kept_privileges(const AccessClass& cls, const Coarsening& c) {
  PrivilegeSet p = cls.access.privileges;
  if (c.reason.empty()) return p;
  p.remove(Privilege::Select);
  p.remove(c.writes_withheld);
  return p;
}

std::optional<CoarsenedRead> coarsened_read(const ObjectPolicy& op, const AccessClass& cls, const Capabilities& caps) {
  TypeCache types;
  Coarsening c = coarsening(op, cls, caps, types);
  if (c.reason.empty()) return std::nullopt;
  PrivilegeSet withheld = cls.access.privileges;
  withheld.remove(kept_privileges(cls, c));
  return CoarsenedRead{std::move(c.reason), std::move(c.columns), withheld};
}

}  // namespace tw::starrocks

#include "coarsening_findings.h"

#include <vector>

#include "tagwarden/util/text.h"

namespace tw::starrocks {

void CoarsenedObjects::add(const Securable& obj, const AccessClass& cls, const Coarsening& c) {
  // Each finding names only its own columns: a column masked or denied by an access policy, with no
  // gated tag, is not a gated column.
  if (c.gates) {
    auto& g = coarsened_[obj];
    g.columns.insert(c.gate_columns.begin(), c.gate_columns.end());
    g.lists.push_back(cls.users);
  }
  if (c.policies) {
    auto& g = policy_coarsened_[obj];
    g.columns.insert(c.policy_columns.begin(), c.policy_columns.end());
    g.lists.push_back(cls.users);
    if (!cls.access.row_filter.empty()) g.filter = true;
  }
}

void CoarsenedObjects::add_unmaskable(const Securable& obj, const std::set<std::string>& columns) {
  unmaskable_[obj].insert(columns.begin(), columns.end());
}

void CoarsenedObjects::report(Plan& plan, UserSets& user_sets) const {
  const Capabilities& caps = plan.capabilities;
  for (const auto& [obj, c] : policy_coarsened_) {
    std::vector<std::string> cols(c.columns.begin(), c.columns.end());
    const std::string name = obj.str();
    std::vector<std::string> subjects = {name};
    for (const auto& col : cols) subjects.push_back(name + "." + col);
    std::vector<std::string> what;
    if (!cols.empty()) {
      what.push_back("masks or denied columns on " + join_words(cols) +
                     (caps.masking_policies ? " (a type tagwarden cannot write into a masking policy)"
                                            : " (no masking policies on this server)"));
    }
    if (c.filter) {
      what.push_back(caps.row_access_policies ? "a row filter tagwarden cannot write into a row access policy"
                                              : "a row filter (no row access policies on this server)");
    }
    const UserSets::UserCount& users = user_sets.user_count(c.lists);
    plan.findings.push_back({Severity::Warning, "starrocks_policy_coarsened",
                             name + " has access policies StarRocks cannot enforce here: " + join_words(what) + "; " +
                                 std::to_string(users.count) + " user" + (users.count == 1 ? "" : "s") + " (" +
                                 users.some + ") lose SELECT on the whole object instead; nothing is dropped",
                             plan.profile, std::move(subjects)});
  }
  for (const auto& [obj, c] : coarsened_) {
    std::vector<std::string> cols(c.columns.begin(), c.columns.end());
    const std::string name = obj.str();
    std::vector<std::string> subjects = {name};
    for (const auto& col : cols) subjects.push_back(name + "." + col);
    const UserSets::UserCount& users = user_sets.user_count(c.lists);
    plan.findings.push_back({Severity::Warning, "starrocks_gate_coarsened",
                             name + " has gated column" + (cols.size() == 1 ? " " : "s ") + join_words(cols) +
                                 " and this server cannot mask columns (masking policies " +
                                 (caps.masking_policies ? "cannot type them" : "not available") + "): " +
                                 std::to_string(users.count) + " uncleared user" + (users.count == 1 ? "" : "s") +
                                 " (" + users.some + ") lose SELECT on the whole object instead; nothing is dropped",
                             plan.profile, std::move(subjects)});
  }
  for (const auto& [obj, cols] : unmaskable_) {
    std::vector<std::string> c(cols.begin(), cols.end());
    plan.findings.push_back({Severity::Warning,
                             "starrocks_unmaskable_type",
                             "gated column" + std::string(c.size() == 1 ? " " : "s ") + join_words(c) + " of " +
                                 obj.str() +
                                 " have a type tagwarden cannot write into a masking policy: no policy is "
                                 "created for them and uncleared readers lose SELECT on the whole object",
                             plan.profile,
                             {obj.str()}});
  }
}

}  // namespace tw::starrocks

#include "profile_findings.h"

#include <algorithm>

#include "tagwarden/util/text.h"

namespace tw {

// StarRocks enforces a gate with one policy per tagged column and one per
// tagged object. Over the limit the profile fails whole: never truncated.
std::vector<std::string> policy_limit_errors(const Profile& profile, const PolicySet& ps) {
  std::vector<std::string> errors;
  if (profile.engine != Engine::StarRocks) return errors;
  std::map<std::string, std::size_t> count;
  for (const auto& op : ps.objects) {
    for (const auto& t : op.object_gates) count[t]++;
    for (const auto& [col, tags] : op.column_gates) {
      for (const auto& t : tags) count[t]++;
    }
  }
  for (const auto& [tag, n] : count) {
    if (n > static_cast<std::size_t>(profile.max_policies_per_tag)) {
      errors.push_back("classification " + tag + " needs " + std::to_string(n) +
                       " StarRocks policies (tagged columns and objects visible to profile " + profile.name +
                       "), over the limit max_policies_per_tag = " + std::to_string(profile.max_policies_per_tag) +
                       ": nothing is truncated and the last good policy set stays in force; narrow or untag " + tag +
                       " back under the limit");
    }
  }
  return errors;
}

std::vector<Finding> profile_findings(const Model& model, const Profile& profile, const PolicySet& ps,
                                      const std::map<std::string, std::set<std::string>>& unsatisfiable) {
  std::vector<Finding> out;
  const Snapshot& snapshot = *model.snapshot;
  // A catalog no listed object is in is most often a typo in the profile: it fails closed (only
  // grants on unlisted names reach it), but everyone loses access there without another word.
  for (const auto& catalog : ps.catalogs) {
    const bool listed = std::any_of(ps.objects.begin(), ps.objects.end(),
                                    [&](const ObjectPolicy& op) { return op.engine_name.catalog == catalog; });
    if (!listed) {
      out.push_back({Severity::Warning,
                     "profile_catalog_without_objects",
                     "catalog " + catalog + " of profile " + profile.name +
                         " holds no object of the snapshot: only grants on names the snapshot does not list reach "
                         "it; check the catalog name (and catalog_map)",
                     profile.name,
                     {catalog}});
    }
  }
  for (const auto& [policy, users] : unsatisfiable) {
    out.push_back({Severity::Warning, "row_filter_unsatisfiable",
                   "row filter " + policy + " cannot be satisfied for " + std::to_string(users.size()) +
                       " users (a missing attribute, a wrong type, an unknown column or operator): they "
                       "see no rows; run explain for the reason",
                   profile.name, std::vector<std::string>(users.begin(), users.end())});
  }
  if (profile.engine == Engine::Trino && !ps.create_restricted.empty()) {
    std::vector<std::string> names;
    for (std::size_t u : ps.create_restricted) names.push_back(ps.users[u].engine_name);
    out.push_back(
        {Severity::Info, "materialized_view_restriction",
         std::to_string(names.size()) + " users are not cleared for every gated tag on profile " + profile.name + " (" +
             join_some(ps.gated_tags) +
             ") and cannot create materialized views there; Trino's file-based rules check the same OWNERSHIP of "
             "the new name for CREATE TABLE, CREATE VIEW and CREATE MATERIALIZED VIEW, so they cannot create tables "
             "or views either (set restrict_materialized_views: false to lift this)",
         profile.name, names});
  }
  if (profile.engine != Engine::Trino) return out;
  for (const auto& op : ps.objects) {
    const Object& o = snapshot.objects[op.object];
    if (o.kind != ObjectKind::View || o.view_security != ViewSecurity::Definer || op.object_gates.empty()) continue;
    if (!o.owner) {
      out.push_back({Severity::Warning,
                     "definer_view_without_owner",
                     "DEFINER view " + o.name.str() + " carries gated tags (" + join_words(op.object_gates) +
                         ") but the snapshot names no owner: tagwarden cannot tell whether Trino will "
                         "refuse it to everybody",
                     profile.name,
                     {o.name.str()}});
      continue;
    }
    const std::size_t owner = model.user_index.at(*o.owner);
    std::vector<std::string> missing;
    for (const auto& t : op.object_gates) {
      if (!model.is_cleared(owner, t)) missing.push_back(t);
    }
    if (!missing.empty()) {
      out.push_back({Severity::Warning,
                     "definer_view_owner_not_cleared",
                     "DEFINER view " + o.name.str() + " is owned by " + *o.owner + ", who is not cleared for " +
                         join_words(missing) +
                         ": on Trino the view is refused to everybody, the cleared included; give the owner "
                         "the role directly or make the view SECURITY INVOKER",
                     profile.name,
                     {o.name.str(), *o.owner}});
    }
  }
  return out;
}

}  // namespace tw

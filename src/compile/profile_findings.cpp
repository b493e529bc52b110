#include "profile_findings.h"

#include "definer_views.h"

#include "../engines/trino/expressions.h"
#include "tagwarden/compile/access_policies.h"
#include "tagwarden/compile/explain.h"
#include "tagwarden/compile/filter_columns.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "tagwarden/util/text.h"

namespace tw {

// StarRocks enforces a gate with one policy per tagged column and one per
// tagged object, and so a mask or row filter scoped to a tag. Over the limit the profile fails
// whole: never truncated.
std::vector<std::string> policy_limit_errors(const Model& model, const Profile& profile, const PolicySet& ps) {
  std::vector<std::string> errors;
  if (profile.engine != Engine::StarRocks) return errors;
  std::map<std::string, std::size_t> count;
  for (const auto& op : ps.objects) {
    for (const auto& t : op.object_gates) count[t]++;
    for (const auto& [col, tags] : op.column_gates) {
      for (const auto& t : tags) count[t]++;
    }
  }
  // Tags that gate nothing but scope an enabled mask or row filter, counted as a policy scoped to
  // the tag reaches: the objects carrying one whole (own or through their bases), else its columns.
  // A level_at_least scope is one such policy per classification at or above the level.
  std::map<std::string, Policy> scoped;
  for (const auto& p : model.snapshot->policies) {
    if (!p.enabled || p.type == PolicyType::Deny) continue;
    std::vector<std::string> tags;
    if (p.scope.kind == PolicyScope::Kind::Tag) tags.push_back(p.scope.name);
    if (p.scope.kind == PolicyScope::Kind::LevelAtLeast) {
      for (const auto& c : model.snapshot->classifications) {
        if (c.level && *c.level >= p.scope.level) tags.push_back(c.name);
      }
    }
    for (const auto& tag : tags) {
      if (count.count(tag) || scoped.count(tag)) continue;
      Policy by_tag = p;
      by_tag.scope = PolicyScope{};
      by_tag.scope.kind = PolicyScope::Kind::Tag;
      by_tag.scope.name = tag;
      scoped.emplace(tag, std::move(by_tag));
    }
  }
  for (const auto& [tag, policy] : scoped) {
    for (const auto& op : ps.objects) {
      if (const std::size_t n = reached_parts(model, op.object, policy)) count[tag] += n;
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
                   "row filter " + policy + " cannot be satisfied on profile " + profile.name + " for " +
                       std::to_string(users.size()) +
                       " users (a missing attribute, a wrong type, an unknown column or operator): they "
                       "see no rows; run explain for the reason",
                   profile.name, std::vector<std::string>(users.begin(), users.end())});
  }
  // Hash, partial and full masks are string expressions: on a column of another type both engines
  // apply a typed NULL, the strictest mask (MODEL §4 says so of dates and times). Fail closed, but
  // the author of a partial mask on a number should hear of it without running explain per user.
  struct AsNull {
    std::string type;
    std::set<std::string> kinds;
  };
  std::map<std::string, AsNull> as_null;  // engine column name c.s.t.col -> its type and the masks' kinds
  // A type Trino cannot spell (largeint, decimal(40,2), a name of another engine) makes the mask's
  // typed NULL a cast Trino refuses: every query reading the column fails, closed, but the author
  // should hear why before users do.
  std::set<std::string> unknown;
  // Most classes of an object carry the same masks: each mask is rendered once (enforced_mask
  // writes its expression), each type looked up once.
  std::unordered_map<std::string, bool> enforced_as_null;  // column, type, kind, visible characters
  std::unordered_map<std::string, bool> known_type;
  std::string key;
  for (const auto& op : ps.objects) {
    for (const auto& cls : op.classes) {
      for (const auto& mk : cls.access.masks) {
        key.assign(mk.column).append(1, '\0').append(mk.type).append(1, '\0');
        key.append(std::to_string(static_cast<int>(mk.kind))).append(1, ':').append(std::to_string(mk.visible_chars));
        auto [as, fresh] = enforced_as_null.try_emplace(key, false);
        if (fresh) as->second = enforced_mask(profile.engine, mk).enforced_kind != mk.kind;
        if (as->second) {
          AsNull& a = as_null[op.engine_name.str() + "." + mk.column];
          a.type = mk.type;
          a.kinds.insert(to_string(mk.kind));
        }
        if (profile.engine != Engine::Trino) continue;
        auto [known, new_type] = known_type.try_emplace(mk.type, false);
        if (new_type) known->second = trino::known_trino_type(mk.type).has_value();
        if (!known->second) unknown.insert(op.engine_name.str() + "." + mk.column + " (" + mk.type + ")");
      }
    }
  }
  if (!unknown.empty()) {
    const std::vector<std::string> listed(unknown.begin(), unknown.end());
    out.push_back({Severity::Warning, "trino_mask_type_unknown",
                   std::to_string(listed.size()) + " masked columns on profile " + profile.name +
                       " have a type Trino has no name for: " + join_some(listed) +
                       "; their masks cast to it, which Trino refuses, so every query reading them fails. Give "
                       "the column's Trino type in the snapshot (e.g. boolean, integer, decimal(38,2), "
                       "timestamp(6))",
                   profile.name, listed});
  }
  if (!as_null.empty()) {
    std::vector<std::string> columns, listed;
    for (const auto& [column, a] : as_null) {
      columns.push_back(column);
      listed.push_back(column + " (" + a.type +
                       "): " + join_some(std::vector<std::string>(a.kinds.begin(), a.kinds.end())));
    }
    out.push_back({Severity::Info, "mask_enforced_as_null",
                   std::to_string(as_null.size()) + " masked columns on profile " + profile.name +
                       " are not strings, so their hash, partial or full masks are enforced as a typed NULL (the "
                       "strictest mask): " +
                       join_some(listed) +
                       (profile.engine == Engine::StarRocks
                            ? " (where the server has masking policies; without them those readers lose SELECT "
                              "instead, starrocks_policy_coarsened)"
                            : "") +
                       "; run explain for who is masked",
                   profile.name, columns});
  }
  // Seed 003: once a tag is gated the page warns "This clearance withholds reads only" (a user
  // without it can still overwrite a column they cannot read). With withhold_writes on, tagwarden
  // withholds the writes too; with it off, that is exactly what this profile enforces: say so.
  if (!profile.withhold_writes && !ps.gated_tags.empty()) {
    out.push_back({Severity::Warning, "clearance_withholds_reads_only",
                   "withhold_writes is false on profile " + profile.name + ": the clearances of " +
                       join_some(ps.gated_tags) +
                       " withhold reads only; a user not cleared can still insert, update and delete on the "
                       "objects they gate, and so overwrite a column they cannot read (set withhold_writes: true "
                       "to withhold those writes too)" +
                       (profile.engine == Engine::StarRocks
                            ? "; on StarRocks UPDATE and DELETE still go where a gate takes SELECT, since "
                              "StarRocks checks no SELECT for their WHERE"
                            : ""),
                   profile.name, ps.gated_tags});
  }
  if (profile.engine == Engine::Trino && !ps.create_restricted.empty()) {
    std::vector<std::string> names;
    for (std::size_t u : ps.create_restricted) names.push_back(ps.users[u].engine_name);
    out.push_back(
        {Severity::Info, "materialized_view_restriction",
         std::to_string(names.size()) + " users are not cleared for every gated tag on profile " + profile.name + " (" +
             join_some(ps.gated_tags) +
             ") and cannot create materialized views there; Trino's file-based rules check the same OWNERSHIP of the "
             "new name for CREATE TABLE, CREATE VIEW and CREATE MATERIALIZED VIEW, so they cannot create tables or "
             "views either, and they lose OWNERSHIP of listed objects their grants let them own (with it they could "
             "drop one and create a materialized view under its name), so they cannot drop, rename or alter those on "
             "Trino; they keep reading and writing as granted (set restrict_materialized_views: false to lift the "
             "restriction)",
         profile.name, names});
  }
  if (profile.engine == Engine::StarRocks && !ps.create_restricted.empty()) {
    std::vector<std::string> names;
    for (std::size_t u : ps.create_restricted) names.push_back(ps.users[u].engine_name);
    out.push_back({Severity::Info, "materialized_view_restriction",
                   std::to_string(names.size()) + " users are not cleared for every gated tag on profile " +
                       profile.name + " (" + join_some(ps.gated_tags) +
                       ") and get no CREATE MATERIALIZED VIEW there; StarRocks checks CREATE TABLE and CREATE VIEW "
                       "separately, and those stay where their grants give OWNERSHIP of new names (set "
                       "restrict_materialized_views: false to lift the restriction)",
                   profile.name, names});
  }
  // A mask of the whole object on an object that lists no columns: its users lose SELECT there.
  std::vector<std::string> unmasked_objects;
  std::set<std::string> unmasked_users;
  for (const auto& op : ps.objects) {
    bool any = false;
    for (const auto& cls : op.classes) {
      if (!cls.reason_starting(kMaskWithoutColumns)) continue;
      any = true;
      for (std::size_t u : *cls.users) unmasked_users.insert(ps.users[u].engine_name);
    }
    if (any) unmasked_objects.push_back(op.engine_name.str());
  }
  if (!unmasked_objects.empty()) {
    out.push_back({Severity::Warning, "mask_without_columns",
                   std::to_string(unmasked_objects.size()) + " objects on profile " + profile.name +
                       " are masked whole by an access policy but the snapshot lists none of their columns: " +
                       join_some(unmasked_objects) + ". The engines mask by column name, so the " +
                       std::to_string(unmasked_users.size()) +
                       " users the mask applies to lose SELECT on them instead (fail closed). List the columns "
                       "in the snapshot (a view's too: with no column lineage every column of it is masked)",
                   profile.name, unmasked_objects});
  }
  if (profile.engine != Engine::Trino) return out;
  // OWNERSHIP kept on a governed object (MODEL §2 leaves it to the cleared, and to those no policy
  // applies to): Trino lets its holder rename the object or a column, out from under every rule.
  std::vector<std::string> renameable;
  std::set<std::string> renamers;
  for (const auto& op : ps.objects) {
    const bool governed = !op.object_gates.empty() || !op.column_gates.empty() || model.policy_reached[op.object];
    if (!governed) continue;
    bool any = false;
    for (const auto& cls : op.classes) {
      if (!cls.access.privileges.has(Privilege::Ownership)) continue;
      any = true;
      for (std::size_t u : *cls.users) renamers.insert(ps.users[u].engine_name);
    }
    if (any) renameable.push_back(op.engine_name.str());
  }
  if (!renameable.empty()) {
    out.push_back({Severity::Info, "trino_owners_can_rename_governed",
                   std::to_string(renamers.size()) + " users on profile " + profile.name + " keep OWNERSHIP of " +
                       std::to_string(renameable.size()) + " gated or policy-covered objects (" +
                       join_some(renameable) +
                       "): Trino lets them rename the object or its columns, and every rule follows names, so "
                       "renamed data is read ungated by whoever the grants reach until the snapshot names it "
                       "again. Rename governed objects through the governance platform",
                   profile.name, std::vector<std::string>(renamers.begin(), renamers.end())});
  }
  // The compiler keeps MODEL's answer (only the column refused) and says in the class's reasons
  // that Trino refuses more: the operator should hear of it without running explain per user.
  std::vector<std::string> filter_refused;  // "object (N users)"
  std::set<std::string> filter_refused_users;
  for (const auto& op : ps.objects) {
    std::size_t users = 0;
    for (const auto& cls : op.classes) {
      if (!filter_refusal(cls)) continue;
      users += cls.users->size();
      for (std::size_t u : *cls.users) filter_refused_users.insert(ps.users[u].engine_name);
    }
    if (users) filter_refused.push_back(op.engine_name.str() + " (" + std::to_string(users) + " users)");
  }
  if (!filter_refused.empty()) {
    out.push_back({Severity::Warning, "trino_row_filter_refuses_object",
                   std::to_string(filter_refused_users.size()) + " users on profile " + profile.name +
                       " are refused every query of " + join_some(filter_refused) +
                       " on Trino: a row filter applying to them reads a column they may not read, and the object "
                       "has no owner who may read it to run the filter as (Trino checks the columns a filter reads "
                       "as the identity it runs as). Name an owner who may read the column, or filter on columns "
                       "they may read; explain shows who",
                   profile.name, std::vector<std::string>(filter_refused_users.begin(), filter_refused_users.end())});
  }
  // On Trino a DEFINER view reads its bases as its owner, and so does a materialized view: what
  // the owner may not read of a base, nobody reads through the view. Judged on the compiled
  // decisions, so gates, deny policies and missing grants are all seen.
  const DefinerViews definer_views(model, ps);
  for (const auto& op : ps.objects) {
    const Object& o = snapshot.objects[op.object];
    if (!reads_bases_as_owner(o)) continue;
    const std::string what = owner_read_kind(o) + (" " + o.name.str());
    // A materialized view has no SECURITY INVOKER to fall back on.
    const std::string or_invoker = o.kind == ObjectKind::MaterializedView ? "" : " or make the view SECURITY INVOKER";
    if (!o.owner) {
      if (op.object_gates.empty()) continue;
      out.push_back({Severity::Warning,
                     "definer_view_without_owner",
                     what + " carries gated tags (" + join_words(op.object_gates) +
                         ") but the snapshot names no owner: tagwarden cannot tell whether Trino will "
                         "refuse it to everybody",
                     profile.name,
                     {o.name.str()}});
      continue;
    }
    const DefinerViewOwnerReach reach = *definer_views.owner_reach(op);
    const std::size_t owner = reach.owner;
    std::vector<std::string> unreadable, partly;  // platform names; "base (columns)"
    for (const ObjectPolicy* base : reach.unreadable) unreadable.push_back(base->platform_name.str());
    unreadable.insert(unreadable.end(), reach.outside.begin(), reach.outside.end());
    for (const auto& [base, columns] : reach.partly)
      partly.push_back(base->platform_name.str() + " (" + join_words(columns) + ")");
    std::vector<std::string> causes = reach.causes;
    for (const auto& base : reach.outside) {
      causes.push_back(base + " is in a catalog profile " + profile.name +
                       " does not cover, which its rules refuse to everybody");
    }
    // The view's gates: on it whole (its own tags and its bases') and on its own columns.
    std::set<std::string> gates(op.object_gates.begin(), op.object_gates.end());
    for (const auto& [column, tags] : op.column_gates) gates.insert(tags.begin(), tags.end());
    std::vector<std::string> missing;
    for (const auto& t : gates) {
      if (!model.is_cleared(owner, t)) missing.push_back(t);
    }
    const std::string effect =
        !unreadable.empty()
            ? "on Trino the view is refused to everybody, the cleared included, because its owner cannot read " +
                  join_words(unreadable)
        : !partly.empty() ? "on Trino every query of the view that reads the columns its owner may not read "
                            "fails for everybody, the cleared included: " +
                                join_words(partly)
                          : "";
    if (!missing.empty()) {
      // Trino checks the owner on the bases only: a gate the owner fails that is only on the view
      // itself refuses the owner the view, not the cleared readers.
      const auto& bases = model.object_bases[op.object];
      const bool only_own_tags =
          effect.empty() && std::all_of(missing.begin(), missing.end(), [&](const std::string& t) {
            return std::none_of(bases.begin(), bases.end(),
                                [&](std::size_t b) { return model.object_tags[b].count(t) > 0; });
          });
      const std::string consequence =
          !effect.empty() ? effect
          : only_own_tags ? "the tag is on the view itself (or its own columns) and Trino reads the view's bases "
                            "as its owner, who may read them, so cleared readers are served; the owner is refused "
                            "what the tag gates"
                          : "on Trino the view is refused to everybody, the cleared included";
      // MODEL §2 names this one: the owner is not cleared for the view's tags.
      out.push_back({Severity::Warning,
                     "definer_view_owner_not_cleared",
                     what + " is owned by " + *o.owner + ", who is not cleared for " + join_words(missing) + ": " +
                         consequence + "; give the owner the role directly" + or_invoker,
                     profile.name,
                     {o.name.str(), *o.owner}});
    } else if (!effect.empty()) {
      // A base in a catalog the profile does not cover is refused to any reader: only covering it helps.
      const bool only_outside = reach.unreadable.empty() && reach.partly.empty();
      const std::string cover =
          reach.outside.empty() ? "" : "add the catalog of " + join_words(reach.outside) + " to the profile's catalogs";
      out.push_back(
          {Severity::Warning,
           "definer_view_owner_cannot_read",
           what + " is owned by " + *o.owner + ": " + effect + " (" + join_words(causes) + "); " +
               (only_outside ? cover
                             : (cover.empty() ? "" : cover + ", and ") + "grant the owner what the view reads" +
                                   (or_invoker.empty() ? " or exempt the owner" : ", exempt the owner," + or_invoker)),
           profile.name,
           {o.name.str(), *o.owner}});
    }
  }
  return out;
}

}  // namespace tw

// PolicySet -> Plan: the roles, grants and masks tagwarden owns on a server.
// Roles are compact: one holder role per distinct set of users that share a
// grant, holding every grant that exactly that set shares; each user holds one
// role (an atom role inheriting the holder roles its users need, or the one
// holder role they need). Role and policy names are derived from what they
// hold or who holds them, so the same PolicySet gives the same names.
// What renders beside it: the user sets and their cache (user_sets.h), the
// privilege mapping (privileges.h), coarsening and its findings (coarsening.h,
// coarsening_findings.h), masking and row access policies (policies.h).

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <unordered_map>

#include "atom_roles.h"
#include "coarsening.h"
#include "coarsening_findings.h"
#include "object_columns.h"
#include "owned_names.h"
#include "policies.h"
#include "privileges.h"
#include "tagwarden/engines/starrocks/plan.h"
#include "tagwarden/util/text.h"
#include "user_sets.h"

namespace tw::starrocks {

namespace {

bool covers_database(const QualifiedName& pattern, const std::string& catalog, const std::string& database) {
  return pattern.catalog == catalog && (pattern.schema == "*" || pattern.schema == database) && pattern.table == "*";
}

void check_names(const PolicySet& ps, Dialect d, std::vector<std::string>& errors) {
  // The subject of a message is only written when a name has a NUL byte (quote() is not cheap).
  auto has_nul = [](const std::string& name) { return name.find('\0') != std::string::npos; };
  auto report = [&](const std::string& what) {
    errors.push_back(what + " contains a NUL byte, which no engine can quote");
  };
  for (const auto& u : ps.users) {
    if (has_nul(u.engine_name)) report("engine user " + quote(u.platform_name));
  }
  for (const auto& c : ps.catalogs) {
    if (has_nul(c)) report("catalog " + quote(c));
    if (d == Dialect::MySQL && c != kInternalCatalog) {
      errors.push_back("catalog " + quote(c) + " is external: the mysql dialect has no catalogs (map it to " +
                       std::string(kInternalCatalog) + " or use the starrocks dialect)");
    }
  }
  for (const auto& op : ps.objects) {
    if (has_nul(op.engine_name.schema + op.engine_name.table)) report("object " + quote(op.engine_name.str()));
    for (const auto& c : op.columns) {
      if (has_nul(c)) report("a column of " + quote(op.engine_name.str()));
    }
  }
}

class Renderer {
 public:
  Renderer(const PolicySet& ps, Plan& plan, RenderCache* cache)
      : ps_(ps), plan_(plan), d_(plan.dialect), users_(ps, cache) {}

  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;

  void run() {
    plan_.user_names.reserve(ps_.users.size());
    for (const auto& u : ps_.users) plan_.user_names.push_back(u.engine_name);
    plan_.users.reserve(ps_.users.size());
    for (auto u : users_.by_name()) plan_.users.push_back(ps_.users[u].engine_name);
    plan_.objects.reserve(ps_.objects.size());
    for (const auto& op : ps_.objects) {
      plan_.objects.push_back(object_securable(op, d_));
      object(op, plan_.objects.back());
    }
    std::sort(plan_.objects.begin(), plan_.objects.end());
    creation();
    catalog_usage();
    roles();
    coarsened_.report(plan_, users_);
  }

 private:
  using List = UserSets::List;
  using Lists = UserSets::Lists;
  using Rank = UserSets::Rank;

  const std::shared_ptr<const std::set<std::string>>& shared_privileges(std::set<std::string> privileges) {
    auto [it, fresh] = privilege_sets_.try_emplace(std::move(privileges));
    if (fresh) it->second = std::make_shared<const std::set<std::string>>(it->first);
    return it->second;
  }
  std::shared_ptr<const std::string> shared_reason(std::string reason) {
    if (reason.empty()) return nullptr;
    auto [it, fresh] = reasons_.try_emplace(std::move(reason));
    if (fresh) it->second = std::make_shared<const std::string>(it->first);
    return it->second;
  }

  void object(const ObjectPolicy& op, const Securable& obj) {
    const Capabilities& caps = plan_.capabilities;
    std::map<std::string, Lists> holders;  // privilege -> class lists
    Readers readers;                       // classes keeping SELECT
    auto& holdings = plan_.access[obj];
    holdings.reserve(op.classes.size());
    for (const auto& cls : op.classes) {
      const Coarsening c = coarsening(op, cls, caps, types_);
      const PrivilegeSet p = kept_privileges(cls, c);
      std::string withheld;
      if (c.reason.empty()) {
        withheld = join_words(cls.reasons);
      } else {
        std::vector<std::string> reasons = cls.reasons;
        reasons.push_back(c.reason);
        withheld = join_words(reasons);
        coarsened_.add(obj, cls, c);
      }
      const auto& privs = shared_privileges(engine_privileges(p, obj.kind));
      for (const auto& pr : *privs) holders[pr].push_back(cls.users);
      if (p.has(Privilege::Select)) readers.classes.push_back(&cls);
      holdings.push_back({cls.users, privs, shared_reason(std::move(withheld))});
    }
    for (auto& [pr, lists] : holders) items_[{obj, pr}] = users_.union_of(std::move(lists));
    if (caps.masking_policies || caps.row_access_policies) {
      readers.ranks.reserve(readers.classes.size());
      for (const AccessClass* cls : readers.classes) readers.ranks.push_back(users_.ranks(*cls->users));
      if (caps.masking_policies) {
        const std::set<std::string> unmaskable = add_mask_policies(op, obj, readers, users_, types_, plan_);
        if (!unmaskable.empty()) coarsened_.add_unmaskable(obj, unmaskable);
      }
      if (caps.row_access_policies) add_row_policy(op, obj, readers, users_, types_, plan_);
    }
  }

  // Unlisted names: OWNERSHIP of the names a database may hold means the right to create tables,
  // views and materialized views in it. StarRocks checks each kind separately, so users in
  // create_restricted (not cleared for every gated tag, MODEL §2) lose CREATE MATERIALIZED VIEW
  // only: the compiler kept their OWNERSHIP of unlisted names on StarRocks for that reason.
  void creation() {
    std::map<std::string, std::set<std::string>> databases;
    for (const auto& op : ps_.objects) databases[op.engine_name.catalog].insert(op.engine_name.schema);
    for (const auto& rule : ps_.unlisted) {
      if (rule.pattern.schema != "*") databases[rule.pattern.catalog].insert(rule.pattern.schema);
    }
    const std::set<std::size_t> restricted(ps_.create_restricted.begin(), ps_.create_restricted.end());
    struct Creators {
      std::optional<std::size_t> any;                 // interned users who may create tables and views
      std::optional<std::size_t> materialized_views;  // those of them who may create materialized views
    };
    std::map<const UnlistedRule*, Creators> creators;
    const std::vector<CreationPrivilege> privileges = creation_privileges(d_);
    for (const auto& [catalog, dbs] : databases) {
      for (const auto& db : dbs) {
        const UnlistedRule* rule = nullptr;
        for (const auto& r : ps_.unlisted) {
          if (covers_database(r.pattern, catalog, db)) {
            rule = &r;
            break;
          }
        }
        if (!rule) continue;
        auto [it, inserted] = creators.try_emplace(rule);
        if (inserted) {
          std::vector<std::size_t> owners, unrestricted;
          for (const auto& [privs, users] : rule->access) {
            if (!privs.has(Privilege::Ownership)) continue;
            for (std::size_t u : *users) {
              owners.push_back(u);
              if (!restricted.count(u)) unrestricted.push_back(u);
            }
          }
          std::sort(owners.begin(), owners.end());
          std::sort(unrestricted.begin(), unrestricted.end());
          auto intern = [&](const std::vector<std::size_t>& users) -> std::optional<std::size_t> {
            if (users.empty()) return std::nullopt;
            return users_.intern(std::make_shared<const List>(List::of_indices(users)));
          };
          it->second = {intern(std::move(owners)), intern(std::move(unrestricted))};
        }
        const Securable on{Securable::Kind::Database, catalog, db, ""};
        for (const auto& pr : privileges) {
          const std::optional<std::size_t>& users =
              pr.materialized_view ? it->second.materialized_views : it->second.any;
          if (users) items_[{on, pr.name}] = *users;
        }
      }
    }
  }

  // Tables of an external catalog are reachable only with USAGE on the catalog.
  void catalog_usage() {
    if (d_ != Dialect::StarRocks) return;
    std::map<std::string, Lists> sets;
    for (const auto& [key, id] : items_) {
      if (key.first.catalog != kInternalCatalog) sets[key.first.catalog].push_back(users_.list(id));
    }
    for (auto& [catalog, lists] : sets) {
      items_[{Securable{Securable::Kind::Catalog, catalog, "", ""}, "USAGE"}] = users_.union_of(std::move(lists));
    }
  }

  // One role per distinct holder set (its grants); then the users are partitioned into atoms (users
  // holding exactly the same holder roles). Each user holds one owned role: its atom's role, which
  // inherits the holder roles (depth 2) within the profile's roles-per-user cap (atom_roles.h), or
  // the holder role itself when the atom has only one.
  void roles() {
    std::map<std::size_t, std::map<Securable, std::set<std::string>>> by_holders;
    for (auto& [key, id] : items_) {
      if (!users_.list(id)->empty()) by_holders[id][key.first].insert(key.second);
    }
    items_.clear();
    // Holder roles by name; a user's holder roles are kept as ranks of their names (equal names,
    // equal ranks), so comparing rank lists compares the name lists.
    std::vector<std::string> holder_names;
    holder_names.reserve(by_holders.size());
    for (auto& [id, grants] : by_holders) {
      holder_names.push_back(plan_.prefix + "r" + users_.names_hash(users_.list(id)));
      plan_.desired.roles[holder_names.back()].grants = std::move(grants);
    }
    std::vector<std::uint32_t> by_name(holder_names.size());
    std::iota(by_name.begin(), by_name.end(), 0u);
    std::sort(by_name.begin(), by_name.end(),
              [&](std::uint32_t a, std::uint32_t b) { return holder_names[a] < holder_names[b]; });
    std::vector<std::uint32_t> holder_rank(holder_names.size());
    std::vector<std::shared_ptr<const std::string>> ranked;  // holder role name by rank, shared by its inheritors
    for (auto h : by_name) {
      if (ranked.empty() || *ranked.back() != holder_names[h])
        ranked.push_back(std::make_shared<const std::string>(holder_names[h]));
      holder_rank[h] = static_cast<std::uint32_t>(ranked.size() - 1);
    }
    // Holder roles in rank order, so that each user's ranks come sorted.
    std::vector<std::size_t> holder_ids;
    holder_ids.reserve(by_holders.size());
    for (const auto& [id, grants] : by_holders) holder_ids.push_back(id);
    by_holders.clear();
    std::vector<std::vector<std::uint32_t>> user_holders(ps_.users.size());
    for (auto h : by_name) {
      for (auto u : *users_.list(holder_ids[h])) user_holders[u].push_back(holder_rank[h]);
    }
    std::map<std::vector<std::uint32_t>, std::vector<std::size_t>> atoms;  // holder role name ranks, sorted -> users
    for (std::size_t u = 0; u < user_holders.size(); ++u) {
      auto& held = user_holders[u];
      if (!held.empty()) atoms[std::move(held)].push_back(u);
    }
    user_holders.clear();
    const std::size_t inheritable = inheritable_roles(plan_.max_roles_per_user);
    std::vector<Rank> capped;  // users whose atom role cannot inherit every holder role they need
    std::vector<CappedAtom> over;
    std::size_t most = 0;
    for (const auto& [held, users] : atoms) {
      const std::vector<std::string> members = users_.names(users);
      if (held.size() == 1) {
        plan_.desired.roles[*ranked[held.front()]].members.insert(members.begin(), members.end());
        continue;
      }
      const std::string name = plan_.prefix + "a" + hash16(members);
      auto& atom = plan_.desired.roles[name];
      atom.members.insert(members.begin(), members.end());
      if (held.size() <= inheritable) {
        atom.roles.reserve(held.size());
        for (auto h : held) atom.roles.insert(ranked[h]);  // ranks are sorted: each one appends
        continue;
      }
      CappedAtom& c = over.emplace_back();
      c.name = name;
      c.holders.reserve(held.size());
      for (auto h : held) c.holders.push_back(*ranked[h]);
      most = std::max(most, held.size());
      for (auto u : users) capped.push_back(users_.rank(u));
    }
    if (capped.empty()) return;
    std::sort(capped.begin(), capped.end());
    const CapOutcome made = inherit_within_cap(plan_.desired, over, inheritable, plan_.prefix);
    const std::string how =
        inheritable == 0
            ? "hold the grants of their holder roles themselves (those of " + std::to_string(made.copied) +
                  " holder roles)"
            : "inherit the holder roles with the most grants, and the others through " + std::to_string(made.bundles) +
                  " bundle roles (each holding the grants of the holder roles that several atoms need together) or "
                  "by holding their grants themselves (those of " +
                  std::to_string(made.copied) + " holder roles)";
    plan_.findings.push_back(
        {Severity::Info, "starrocks_roles_capped",
         std::to_string(capped.size()) + " users need up to " + std::to_string(most) + " holder roles, more than the " +
             std::to_string(inheritable) +
             " a role may inherit within max_roles_per_user = " + std::to_string(plan_.max_roles_per_user) +
             " (StarRocks' privilege_max_total_roles_per_user counts inherited roles and PUBLIC): their " +
             std::to_string(over.size()) + " atom roles " + how + "; " + std::to_string(made.dropped) +
             " holder roles inherited by no role any more are not made. The same privileges.",
         plan_.profile, users_.names_of(capped)});
  }

  const PolicySet& ps_;
  Plan& plan_;
  Dialect d_;
  UserSets users_;
  TypeCache types_;
  std::map<std::pair<Securable, std::string>, std::size_t> items_;  // (securable, privilege) -> user set id
  CoarsenedObjects coarsened_;
  std::map<std::set<std::string>, std::shared_ptr<const std::set<std::string>>> privilege_sets_;
  std::unordered_map<std::string, std::shared_ptr<const std::string>> reasons_;
};

}  // namespace

PlanRender render_plan(const PolicySet& ps, const PlanOptions& options, RenderCache* cache) {
  PlanRender out;
  check_names(ps, options.dialect, out.errors);
  if (!out.errors.empty()) return out;
  Plan plan;
  plan.profile = ps.profile;
  plan.dialect = options.dialect;
  plan.capabilities = options.capabilities;
  plan.max_roles_per_user = options.max_roles_per_user;
  if (plan.dialect == Dialect::MySQL) plan.capabilities = {};
  plan.prefix = owner_prefix(ps.profile);
  // invalid_argument: a name no engine can spell; another logic_error: a bundle role's name would
  // collide (atom_roles.cpp). Either way this profile fails and its last good plan stays.
  try {
    Renderer(ps, plan, cache).run();
  } catch (const std::logic_error& e) {
    out.errors.push_back(e.what());
    return out;
  }
  out.plan = std::move(plan);
  return out;
}

}  // namespace tw::starrocks

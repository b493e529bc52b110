// Live owned state + Plan -> the ordered statements between them. Tighten
// before widen: while the tighten statements run, every user holds a subset
// of what they held before; once they are done every user holds a subset of
// both states, and the widen statements only add what the new state allows.

#include <algorithm>
#include <functional>
#include <iterator>
#include <map>
#include <string_view>

#include "atom_roles.h"
#include "owned_names.h"
#include "tagwarden/engines/starrocks/plan.h"
#include "tagwarden/engines/starrocks/sql.h"
#include "tagwarden/util/text.h"

namespace tw::starrocks {
namespace {

std::set<std::string> minus(const std::set<std::string>& a, const std::set<std::string>& b) {
  std::set<std::string> out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::inserter(out, out.end()));
  return out;
}

// Fewer SET CATALOG switches: group by catalog, keeping the order inside each.
void group_by_catalog(std::vector<Statement>& v) {
  std::stable_sort(v.begin(), v.end(), [](const Statement& a, const Statement& b) { return a.catalog < b.catalog; });
}

bool user_exists(const LiveState& live, const std::string& user) { return !live.users || live.users->count(user); }

// A column tagwarden would mask that carries a masking policy it does not own keeps that policy, so
// tagwarden's is not attached. Fail closed: the object's readers whom tagwarden's policy does not
// give the real value (masked, denied, uncleared) lose SELECT on the object, as when the server
// cannot mask. The desired roles are rebuilt from what they hold without those reads: one holder
// role per distinct user set (<prefix>r + hash of the names), and each user one role (the holder
// role, or an atom role <prefix>a + hash of its members inheriting its holder roles, through bundle
// roles over the cap: atom_roles.h).
struct ForeignMaskCoarsening {
  std::map<Securable, std::set<std::string>> losing;  // object -> users who lose SELECT on it
  OwnedState desired;
};

std::optional<ForeignMaskCoarsening> foreign_mask_coarsening(const Plan& plan, const LiveState& live) {
  const OwnedState& want = plan.desired;
  std::map<Securable, std::set<std::string>> cleared;  // object -> users reading every such column's value
  for (const auto& column : live.foreign_masks) {
    auto a = want.attachments.find(column);
    if (a == want.attachments.end()) continue;
    auto m = want.masks.find(a->second);
    const std::set<std::string> values =
        m == want.masks.end() ? std::set<std::string>{}
                              : std::set<std::string>(m->second.cleared.begin(), m->second.cleared.end());
    auto [it, inserted] = cleared.try_emplace(column.first, values);
    if (!inserted) {
      std::set<std::string> both;
      std::set_intersection(it->second.begin(), it->second.end(), values.begin(), values.end(),
                            std::inserter(both, both.end()));
      it->second = std::move(both);
    }
  }
  if (cleared.empty()) return std::nullopt;
  // Who holds each role: its members and the members of the roles inheriting it (transitively).
  std::map<std::string, std::set<std::string>> holders;
  for (const auto& [name, role] : want.roles) {
    std::set<std::string> held;
    add_inherited_closure(want.roles, name, held);
    for (const auto& r : held) holders[r].insert(role.members.begin(), role.members.end());
  }
  ForeignMaskCoarsening out;
  for (const auto& [name, role] : want.roles) {
    for (const auto& [on, privs] : role.grants) {
      auto c = cleared.find(on);
      if (c == cleared.end() || !privs.count("SELECT")) continue;
      for (const auto& u : holders[name]) {
        if (!c->second.count(u)) out.losing[on].insert(u);
      }
    }
  }
  if (out.losing.empty()) return std::nullopt;
  // The grants by the exact set of users holding them, without the lost reads.
  using Grants = std::map<Securable, std::set<std::string>>;
  std::map<std::set<std::string>, Grants> by_users;
  for (const auto& [name, role] : want.roles) {
    const std::set<std::string>& users = holders[name];
    for (const auto& [on, privs] : role.grants) {
      auto l = out.losing.find(on);
      if (l == out.losing.end() || !privs.count("SELECT")) {
        by_users[users][on].insert(privs.begin(), privs.end());
        continue;
      }
      const std::set<std::string> rest = minus(privs, {"SELECT"});
      if (!rest.empty()) by_users[users][on].insert(rest.begin(), rest.end());
      const std::set<std::string> readers = minus(users, l->second);
      if (!readers.empty()) by_users[readers][on].insert("SELECT");
    }
  }
  out.desired.masks = want.masks;
  out.desired.attachments = want.attachments;
  out.desired.row_policies = want.row_policies;
  out.desired.row_attachments = want.row_attachments;
  std::map<std::string, std::set<std::string>> user_holders;
  for (auto& [users, grants] : by_users) {
    if (users.empty() || grants.empty()) continue;
    const std::string name = plan.prefix + "r" + hash16(std::vector<std::string>(users.begin(), users.end()));
    out.desired.roles[name].grants = std::move(grants);
    for (const auto& u : users) user_holders[u].insert(name);
  }
  std::map<std::set<std::string>, std::set<std::string>> atoms;  // holder roles -> users
  for (const auto& [user, held] : user_holders) atoms[held].insert(user);
  const std::size_t inheritable = inheritable_roles(plan.max_roles_per_user);
  std::vector<CappedAtom> over;
  for (const auto& [held, users] : atoms) {
    if (held.size() == 1) {
      out.desired.roles[*held.begin()].members.insert(users.begin(), users.end());
      continue;
    }
    const std::string atom = plan.prefix + "a" + hash16(std::vector<std::string>(users.begin(), users.end()));
    out.desired.roles[atom].members = users;
    if (held.size() <= inheritable) {
      out.desired.roles[atom].roles.insert(held.begin(), held.end());
    } else {
      over.push_back({atom, std::vector<std::string>(held.begin(), held.end())});
    }
  }
  inherit_within_cap(out.desired, over, inheritable, plan.prefix);
  return out;
}

}  // namespace

std::vector<Statement> diff_statements(const Plan& plan, const LiveState& live) {
  const Dialect d = plan.dialect;
  const std::optional<ForeignMaskCoarsening> coarsened = foreign_mask_coarsening(plan, live);
  const OwnedState& want = coarsened ? coarsened->desired : plan.desired;
  const OwnedState& have = live.owned;
  auto catalog_of = [&](const Securable& s) {
    return d == Dialect::StarRocks && s.kind != Securable::Kind::Catalog ? s.catalog : std::string();
  };
  static const OwnedState::Role kNoRole;
  auto live_role = [&](const std::string& name) -> const OwnedState::Role& {
    auto it = have.roles.find(name);
    return it == have.roles.end() ? kNoRole : it->second;
  };

  std::vector<Statement> prepare, tighten_masks, tighten, widen_grants, widen_members, widen_masks, cleanup;
  std::vector<Statement> widen_inherits;
  {
    // At most what an empty server needs, and exactly that for the plan script (render_artifact):
    // growing these lists by doubling was a tenth of a StarRocks render at scale.
    std::size_t grants = 0, members = 0, inherits = 0;
    for (const auto& [name, role] : want.roles) {
      grants += role.grants.size();
      members += role.members.size();
      inherits += role.roles.size();
    }
    prepare.reserve(want.roles.size() + want.masks.size() + want.row_policies.size());
    widen_grants.reserve(grants);
    widen_members.reserve(members);
    widen_inherits.reserve(inherits);
  }
  for (const auto& [name, role] : want.roles) {
    if (!have.roles.count(name)) prepare.push_back({Phase::Prepare, "", sql::create_role(d, name)});
  }
  for (const auto& [name, m] : want.masks) {
    if (!have.masks.count(name)) prepare.push_back({Phase::Prepare, catalog_of(m.object), sql::create_mask(m)});
  }
  for (const auto& [name, p] : want.row_policies) {
    if (!have.row_policies.count(name))
      prepare.push_back({Phase::Prepare, catalog_of(p.object), sql::create_row_policy(p)});
  }
  // Row access policies: a new one is added while tightening (the old one, still attached, ANDs with
  // it: readers see rows both allow); the old one is removed after widening.
  static const std::set<std::string> kNone;
  auto attached = [](const std::map<Securable, std::set<std::string>>& m, const Securable& o) -> const auto& {
    auto it = m.find(o);
    return it == m.end() ? kNone : it->second;
  };
  for (const auto& [object, names] : want.row_attachments) {
    const auto& live_names = attached(have.row_attachments, object);
    for (const auto& name : names) {
      if (!live_names.count(name)) {
        tighten_masks.push_back({Phase::Tighten, catalog_of(object), sql::add_row_policy(want.row_policies.at(name))});
      }
    }
  }
  for (const auto& [column, name] : want.attachments) {
    auto it = have.attachments.find(column);
    if ((it == have.attachments.end() || it->second != name) && !live.foreign_masks.count(column)) {
      tighten_masks.push_back({Phase::Tighten, catalog_of(column.first), sql::set_mask(column, name)});
    }
  }
  // Roles inherit roles (a user's atom role inherits the roles holding grants). What a role gives is
  // its grants and, transitively, those of the roles it inherits.
  using Grants = std::map<Securable, std::set<std::string>>;
  auto add_grants = [](Grants& to, const Grants& from) {
    for (const auto& [on, privs] : from) to[on].insert(privs.begin(), privs.end());
  };
  std::map<std::string, Grants> wanted_memo, kept_memo;
  // What a role gives in the new state.
  std::function<const Grants&(const std::string&)> gives_new = [&](const std::string& name) -> const Grants& {
    auto m = wanted_memo.find(name);
    if (m != wanted_memo.end()) return m->second;
    Grants g;
    if (auto it = want.roles.find(name); it != want.roles.end()) {
      add_grants(g, it->second.grants);
      for (const auto& p : it->second.roles) add_grants(g, gives_new(p));
    }
    return wanted_memo[name] = std::move(g);
  };
  // The most a live role no longer wanted can give until it is dropped: its live grants, and through
  // the live roles it inherits their live grants and, for those still wanted, the grants they gain.
  std::function<const Grants&(const std::string&)> gives_at_most = [&](const std::string& name) -> const Grants& {
    auto m = kept_memo.find(name);
    if (m != kept_memo.end()) return m->second;
    Grants g;
    if (auto it = have.roles.find(name); it != have.roles.end()) {
      add_grants(g, it->second.grants);
      for (const auto& p : it->second.roles) add_grants(g, gives_at_most(p));
    }
    if (auto it = want.roles.find(name); it != want.roles.end()) add_grants(g, it->second.grants);
    return kept_memo[name] = std::move(g);
  };

  // A role no longer wanted keeps, until cleanup, only the members who hold everything it can give in
  // the new state too (and the roles it inherits); the others leave it while tightening. So users who
  // keep an access never lose it in between, and nobody holds more than the new state once tightening
  // is done. user -> what the new state gives; only for members of live roles that are no longer wanted
  // (never users x objects for the whole plan).
  std::set<std::string> leaving;
  for (const auto& [name, role] : have.roles) {
    const auto w = want.roles.find(name);
    for (const auto& user : role.members) {
      if (w == want.roles.end() || !w->second.members.count(user)) leaving.insert(user);
    }
  }
  std::map<std::string, Grants> wanted;
  if (!leaving.empty()) {
    for (const auto& [name, role] : want.roles) {
      for (const auto& user : role.members) {
        if (leaving.count(user)) add_grants(wanted[user], gives_new(name));
      }
    }
  }
  // Holders tagwarden does not own would pass the role's grants on to whoever holds them, and
  // accounts on other hosts are not the planned users: the first thing tightened, wanted role or not.
  for (const auto& [name, role] : have.roles) {
    for (const auto& holder : role.foreign_holders)
      tighten.push_back({Phase::Tighten, "", sql::revoke_role_from_role(d, name, holder)});
    for (const auto& [user, host] : role.other_host_members)
      tighten.push_back({Phase::Tighten, "", sql::revoke_role_from_account(d, name, user, host)});
    // An admin option would let its holder grant the role (a gate's) to anyone: never kept, even
    // for a membership that is.
    for (const auto& user : role.admin_members)
      tighten.push_back({Phase::Tighten, "", sql::revoke_admin_option(d, name, user, false)});
    for (const auto& holder : role.admin_roles)
      tighten.push_back({Phase::Tighten, "", sql::revoke_admin_option(d, name, holder, true)});
  }
  std::vector<Statement> drop_roles;
  std::map<std::string, std::vector<const std::string*>> kept;  // user -> roles no longer wanted it keeps
  for (const auto& [name, role] : have.roles) {
    if (want.roles.count(name)) continue;
    const Grants& gives = gives_at_most(name);
    for (const auto& user : role.members) {
      const auto& gets = wanted[user];
      const bool covered = std::all_of(gives.begin(), gives.end(), [&](const auto& g) {
        auto w = gets.find(g.first);
        return w != gets.end() && std::includes(w->second.begin(), w->second.end(), g.second.begin(), g.second.end());
      });
      if (covered) {
        kept[user].push_back(&name);
      } else {
        tighten.push_back({Phase::Tighten, "", sql::revoke_role(d, name, user)});
      }
    }
    drop_roles.push_back({Phase::Cleanup, "", sql::drop_role(d, name)});
  }
  // StarRocks refuses to grant a user a role that would give them more than max_roles_per_user
  // roles, inherited roles and PUBLIC counted. A user keeping roles no longer wanted until cleanup
  // holds them and the new ones when widen grants those: over the cap, the grant would be refused
  // and the user left with nothing once cleanup drops the old roles. Such a user leaves the old
  // roles while tightening instead (less for a while, never more).
  if (!kept.empty()) {
    std::map<std::string, std::set<std::string>> held;  // kept users -> every role they hold in widen
    for (const auto& [name, role] : want.roles) {
      for (const auto& user : role.members) {
        if (kept.count(user)) add_inherited_closure(want.roles, name, held[user]);
      }
    }
    for (const auto& [user, roles] : kept) {
      std::set<std::string>& all = held[user];
      for (const std::string* name : roles)
        add_inherited_closure(have.roles, *name, all);          // live inheritance until dropped
      if (all.size() + 1 <= plan.max_roles_per_user) continue;  // + PUBLIC
      for (const std::string* name : roles) tighten.push_back({Phase::Tighten, "", sql::revoke_role(d, *name, user)});
    }
  }
  // Users who would hold a role still wanted until cleanup besides their new roles: over the cap,
  // they leave it while tightening (less for a while, never more, never refused).
  std::set<std::string> over_cap;
  {
    std::map<std::string, std::set<std::string>> held;  // such users -> every role they would hold in widen
    for (const auto& [name, role] : want.roles) {
      auto it = have.roles.find(name);
      if (it == have.roles.end()) continue;
      for (const auto& user : it->second.members) {
        if (!role.members.count(user)) add_inherited_closure(have.roles, name, held[user]);
      }
    }
    for (const auto& [name, role] : want.roles) {
      for (const auto& user : role.members) {
        if (auto h = held.find(user); h != held.end()) add_inherited_closure(want.roles, name, h->second);
      }
    }
    for (const auto& [user, names] : kept) {
      if (auto h = held.find(user); h != held.end()) {
        for (const std::string* name : names) add_inherited_closure(have.roles, *name, h->second);
      }
    }
    for (const auto& [user, roles] : held) {
      if (roles.size() + 1 > plan.max_roles_per_user) over_cap.insert(user);  // + PUBLIC
    }
  }
  for (const auto& [name, role] : want.roles) {
    auto it = have.roles.find(name);
    if (it == have.roles.end()) continue;
    for (const auto& user : it->second.members) {
      if (role.members.count(user)) continue;
      // A user leaving a role still wanted (a holder role their new atom role inherits) keeps it
      // until cleanup when the new state gives them all it gives (tightened to the new state, it
      // never gives more), and the cap leaves room: so they never miss an access they keep.
      const Grants& gives = gives_new(name);
      const auto& gets = wanted[user];
      const bool covered = std::all_of(gives.begin(), gives.end(), [&](const auto& g) {
        auto w = gets.find(g.first);
        return w != gets.end() && std::includes(w->second.begin(), w->second.end(), g.second.begin(), g.second.end());
      });
      if (covered && !over_cap.count(user)) {
        cleanup.push_back({Phase::Cleanup, "", sql::revoke_role(d, name, user)});
      } else {
        tighten.push_back({Phase::Tighten, "", sql::revoke_role(d, name, user)});
      }
    }
    for (const auto& inherited : it->second.roles) {
      if (!role.roles.count(inherited))
        tighten.push_back({Phase::Tighten, "", sql::revoke_role_from_role(d, inherited, name)});
    }
    for (const auto& [on, privs] : it->second.grants) {
      auto w = role.grants.find(on);
      const auto extra = w == role.grants.end() ? privs : minus(privs, w->second);
      if (!extra.empty())
        tighten.push_back({Phase::Tighten, catalog_of(on), sql::revoke_privileges(d, extra, on, name)});
    }
  }
  for (const auto& [name, role] : want.roles) {
    const auto& current = live_role(name);
    for (const auto& [on, privs] : role.grants) {
      auto h = current.grants.find(on);
      const auto missing = h == current.grants.end() ? privs : minus(privs, h->second);
      if (!missing.empty()) {
        widen_grants.push_back({Phase::Widen, catalog_of(on), sql::grant_privileges(d, missing, on, name)});
      }
    }
    for (const auto& inherited : role.roles) {
      if (!current.roles.count(inherited))
        widen_inherits.push_back({Phase::Widen, "", sql::grant_role_to_role(d, inherited, name)});
    }
    for (const auto& user : role.members) {
      if (!current.members.count(user) && user_exists(live, user)) {
        widen_members.push_back({Phase::Widen, "", sql::grant_role(d, name, user)});
      }
    }
  }
  for (const auto& [column, name] : have.attachments) {
    if (!want.attachments.count(column)) {
      widen_masks.push_back({Phase::Widen, catalog_of(column.first), sql::unset_mask(column)});
    }
  }
  for (const auto& [object, names] : have.row_attachments) {
    const auto& wanted_names = attached(want.row_attachments, object);
    for (const auto& name : names) {
      if (!wanted_names.count(name))
        widen_masks.push_back({Phase::Widen, catalog_of(object), sql::remove_row_policy(object, name)});
    }
  }
  for (const auto& [name, m] : have.masks) {
    if (!want.masks.count(name))
      cleanup.push_back({Phase::Cleanup, catalog_of(m.object), sql::drop_mask(m.object, name)});
  }
  for (const auto& [name, p] : have.row_policies) {
    if (!want.row_policies.count(name))
      cleanup.push_back({Phase::Cleanup, catalog_of(p.object), sql::drop_row_policy(p.object, name)});
  }
  for (auto* v : {&prepare, &tighten_masks, &tighten, &widen_grants, &widen_masks, &cleanup}) group_by_catalog(*v);

  const auto parts = {&prepare,       &tighten_masks, &tighten,    &widen_grants, &widen_inherits,
                      &widen_members, &widen_masks,   &drop_roles, &cleanup};
  std::size_t total = 0;
  for (auto* v : parts) total += v->size();
  std::vector<Statement> out;
  out.reserve(total);
  for (auto* v : parts) {
    out.insert(out.end(), std::make_move_iterator(v->begin()), std::make_move_iterator(v->end()));
    std::vector<Statement>().swap(*v);
  }
  return out;
}

std::vector<Finding> diff_findings(const Plan& plan, const LiveState& live) {
  std::vector<Finding> out;
  std::set<std::string> missing;
  for (const auto& [name, role] : plan.desired.roles) {
    for (const auto& u : role.members) {
      if (!user_exists(live, u)) missing.insert(u);
    }
  }
  if (!missing.empty()) {
    std::vector<std::string> users(missing.begin(), missing.end());
    out.push_back({Severity::Warning, "starrocks_user_missing",
                   std::to_string(users.size()) + " engine user" + (users.size() == 1 ? "" : "s") + " (" +
                       join_some(users) + ") do not exist on the server as '<user>'@'" + std::string(kUserHost) +
                       "': their roles are not granted until they exist",
                   plan.profile, users});
  }
  const std::optional<ForeignMaskCoarsening> coarsened = foreign_mask_coarsening(plan, live);
  for (const auto& column : live.foreign_masks) {
    if (!plan.desired.attachments.count(column)) continue;
    std::vector<std::string> losing;
    if (coarsened) {
      if (auto l = coarsened->losing.find(column.first); l != coarsened->losing.end()) {
        losing.assign(l->second.begin(), l->second.end());
      }
    }
    std::vector<std::string> subjects = {column.first.str() + "." + column.second};
    subjects.insert(subjects.end(), losing.begin(), losing.end());
    out.push_back({Severity::Error, "starrocks_foreign_mask",
                   "column " + column.first.str() + "." + column.second +
                       " carries a masking policy tagwarden does not own: it is left in place and tagwarden's "
                       "policy is not attached, so the readers that policy would not give the value to get no "
                       "SELECT on " +
                       column.first.str() + " (coarsened, fail closed; " + std::to_string(losing.size()) + " user" +
                       (losing.size() == 1 ? "" : "s") + (losing.empty() ? "" : ": " + join_some(losing)) +
                       "); remove the foreign policy so tagwarden can enforce the clearance and masks",
                   plan.profile, std::move(subjects)});
  }
  return out;
}

bool switches_catalog(Dialect dialect, std::string_view current, std::string_view catalog) {
  return dialect == Dialect::StarRocks && !catalog.empty() && catalog != current;
}

nlohmann::json statements_json(const Plan& plan, const std::vector<Statement>& statements) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& s : statements) {
    nlohmann::json j = {{"phase", to_string(s.phase)}, {"sql", s.sql}};
    if (!s.catalog.empty()) j["catalog"] = s.catalog;
    list.push_back(std::move(j));
  }
  return {{"profile", plan.profile},
          {"dialect", to_string(plan.dialect)},
          {"masking_policies", plan.capabilities.masking_policies},
          {"owner_prefix", plan.prefix},
          {"roles", plan.desired.roles.size()},
          {"masks", plan.desired.masks.size()},
          {"row_access_policies", plan.desired.row_policies.size()},
          {"row_access_policies_available", plan.capabilities.row_access_policies},
          {"statements", std::move(list)}};
}

}  // namespace tw::starrocks

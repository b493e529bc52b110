#include "tagwarden/compile/compiler.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "memo_keys.h"
#include "tagwarden/compile/access_policies.h"
#include "tagwarden/util/text.h"
#include "user_lists.h"

namespace tw {

std::string engine_user_name(const User& user, const Profile& profile) {
  if (auto it = profile.user_map.find(user.name); it != profile.user_map.end()) return it->second;
  return user.engine_user.value_or(user.name);
}

std::vector<Finding> snapshot_findings(const Model& model) {
  std::vector<Finding> out;
  std::vector<std::string> ungated;
  for (const auto& c : model.snapshot->classifications) {
    if (c.clearance.empty()) {
      ungated.push_back(c.name);
      continue;
    }
    std::vector<std::string> groups;
    for (const auto& row : c.clearance) {
      if (row.type == ClearanceRow::Type::Group) groups.push_back(row.name);
    }
    if (groups.size() == c.clearance.size()) {
      out.push_back({Severity::Warning,
                     "clearance_groups_only",
                     "clearance on " + c.name + " names only groups: not enforced in any engine",
                     "",
                     {c.name}});
    } else if (!groups.empty()) {
      out.push_back({Severity::Warning,
                     "clearance_group_not_enforced",
                     "clearance on " + c.name + " names group" + (groups.size() > 1 ? "s " : " ") + join_words(groups) +
                         ": group requirements are not enforced in engines (no group names reach Trino or StarRocks); "
                         "only direct holders of its roles are cleared there",
                     "",
                     {c.name}});
    }
  }
  if (!ungated.empty()) {
    out.push_back({Severity::Info, "classifications_without_clearance",
                   std::to_string(ungated.size()) + " classifications have no clearance: they gate nothing (" +
                       join_some(ungated) + ")",
                   "", ungated});
  }
  return out;
}

namespace {

std::string engine_identifier(const std::string& name, Engine engine) {
  return engine == Engine::Trino ? lowercase_identifier(name) : name;
}

// Intersection of two grant patterns in engine names; nullopt when disjoint.
std::optional<QualifiedName> intersect(const QualifiedName& a, const QualifiedName& b) {
  auto part = [](const std::string& x, const std::string& y) -> std::optional<std::string> {
    if (x == "*") return y;
    if (y == "*" || x == y) return x;
    return std::nullopt;
  };
  auto c = part(a.catalog, b.catalog);
  auto s = part(a.schema, b.schema);
  auto t = part(a.table, b.table);
  if (!c || !s || !t) return std::nullopt;
  return QualifiedName{*c, *s, *t};
}

bool covers(const QualifiedName& general, const QualifiedName& specific) {
  auto part = [](const std::string& g, const std::string& s) { return g == "*" || g == s; };
  return part(general.catalog, specific.catalog) && part(general.schema, specific.schema) &&
         part(general.table, specific.table);
}

int concrete_parts(const QualifiedName& p) { return (p.catalog != "*") + (p.schema != "*") + (p.table != "*"); }

class ProfileCompiler {
 public:
  ProfileCompiler(const Model& model, const Profile& profile) : m_(model), p_(profile), s_(*model.snapshot) {}

  ProfileCompile run() {
    ProfileCompile out;
    PolicySet ps;
    ps.profile = p_.name;
    ps.engine = p_.engine;
    ps.generated_at = m_.now;
    map_users(ps, out);
    map_catalogs(ps);
    map_grants();
    index_grants();
    key_users_for_policies();
    collect_objects(ps);
    restrict_creation(ps);
    decide_objects(ps, out);
    build_unlisted(ps);
    check_policy_limit(ps, out);
    report(ps, out);
    if (out.errors.empty()) out.policy_set = std::move(ps);
    return out;
  }

  ProfileCompiler& reuse(const CompileMemo* previous) {
    previous_ = previous;
    return *this;
  }

 private:
  void map_users(PolicySet& ps, ProfileCompile& out) {
    std::map<std::string, std::string> seen;  // engine name -> platform name
    for (const auto& u : s_.users) {
      const std::string engine = engine_user_name(u, p_);
      if (auto [it, fresh] = seen.emplace(engine, u.name); !fresh) {
        out.errors.push_back("users " + quote(it->second) + " and " + quote(u.name) + " both map to the engine user " +
                             quote(engine) + ": the engine could not tell them apart; fix engine_user or user_map");
      }
      ps.users.push_back({u.name, engine});
    }
    for (const auto& [platform, engine] : p_.user_map) {
      if (!m_.user_index.count(platform)) {
        out.findings.push_back(
            {Severity::Warning,
             "user_map_unknown_user",
             "user_map maps " + quote(platform) + ", who is not in the snapshot; the entry is unused",
             p_.name,
             {platform}});
      }
    }
  }

  void map_catalogs(PolicySet& ps) {
    for (const auto& c : p_.catalogs) {
      auto it = p_.catalog_map.find(c);
      const std::string engine = engine_identifier(it == p_.catalog_map.end() ? c : it->second, p_.engine);
      catalog_names_[engine_identifier(c, p_.engine)] = engine;
      ps.catalogs.push_back(engine);
    }
    std::sort(ps.catalogs.begin(), ps.catalogs.end());
    ps.catalogs.erase(std::unique(ps.catalogs.begin(), ps.catalogs.end()), ps.catalogs.end());
  }

  // Grants as (users, privileges), in engine names with "*" catalogs expanded to this profile's catalogs.
  void map_grants() {
    for (const auto& g : s_.grants) {
      std::vector<std::size_t> holders;
      if (g.principal.kind == Principal::Kind::User) {
        holders.push_back(m_.user_index.at(g.principal.name));
      } else if (auto it = m_.role_holders.find(g.principal.name); it != m_.role_holders.end()) {
        holders = it->second;
      }
      for (const auto& [platform, engine] : catalog_names_) {
        if (g.object.catalog != "*" && engine_identifier(g.object.catalog, p_.engine) != platform) continue;
        QualifiedName pattern{engine, g.object.schema == "*" ? "*" : engine_identifier(g.object.schema, p_.engine),
                              g.object.table == "*" ? "*" : engine_identifier(g.object.table, p_.engine)};
        grants_.push_back({pattern, holders, g.privileges});
      }
    }
  }

  QualifiedName engine_name(const QualifiedName& n) const {
    return {catalog_names_.at(engine_identifier(n.catalog, p_.engine)), engine_identifier(n.schema, p_.engine),
            engine_identifier(n.table, p_.engine)};
  }

  void collect_objects(PolicySet& ps) {
    std::set<std::string> present;
    for (std::size_t i = 0; i < s_.objects.size(); ++i) {
      const Object& o = s_.objects[i];
      if (!catalog_names_.count(engine_identifier(o.name.catalog, p_.engine))) continue;
      ObjectPolicy op;
      op.object = i;
      op.platform_name = o.name;
      op.engine_name = engine_name(o.name);
      op.kind = o.kind;
      for (const auto& t : m_.object_tags[i]) {
        if (m_.is_engine_gated(t)) op.object_gates.push_back(t);
      }
      present.insert(op.object_gates.begin(), op.object_gates.end());
      for (const auto& c : o.columns) {
        const std::string col = engine_identifier(c.name, p_.engine);
        op.columns.push_back(col);
        op.column_types.push_back(c.type);
        std::vector<std::string> gates;
        for (const auto& t : c.tags) {
          if (m_.is_engine_gated(t)) gates.push_back(t);
        }
        std::sort(gates.begin(), gates.end());
        if (!gates.empty()) {
          present.insert(gates.begin(), gates.end());
          op.column_gates.emplace_back(col, std::move(gates));
        }
      }
      std::sort(op.column_gates.begin(), op.column_gates.end());
      ps.objects.push_back(std::move(op));
    }
    std::sort(ps.objects.begin(), ps.objects.end(),
              [](const ObjectPolicy& a, const ObjectPolicy& b) { return a.engine_name < b.engine_name; });
    ps.gated_tags.assign(present.begin(), present.end());
  }

  void restrict_creation(PolicySet& ps) {
    restricted_.assign(s_.users.size(), false);
    if (!p_.restrict_materialized_views || ps.gated_tags.empty()) return;
    std::vector<std::size_t> tags;
    for (const auto& t : ps.gated_tags) tags.push_back(m_.tag_index.at(t));
    for (std::size_t u = 0; u < s_.users.size(); ++u) {
      for (std::size_t t : tags) {
        if (!m_.cleared[u][t]) restricted_[u] = true;
      }
      if (restricted_[u]) ps.create_restricted.push_back(u);
    }
  }

  // Decides every object, reusing the previous memo's decision for objects
  // whose inputs and context are unchanged, and leaves the memo for the next compile.
  void decide_objects(PolicySet& ps, ProfileCompile& out) {
    memo_ = std::make_shared<CompileMemo>();
    auto& memo = memo_;
    MemoKeys keys(m_, p_, grants_, policy_key_, policy_key_text_);
    memo->context = keys.context(ps, catalog_names_);
    memo->grants = keys.grants();
    std::unordered_map<std::string_view, std::size_t> before;
    if (previous_ && previous_->context == memo->context) {
      for (std::size_t i = 0; i < previous_->object_digests.size(); ++i)
        before.emplace(previous_->object_digests[i], i);
    }
    memo->object_digests.reserve(ps.objects.size());
    for (auto& op : ps.objects) {
      const std::vector<std::size_t> covering = covering_grants(op.engine_name);
      const std::vector<std::size_t> gated = gated_tags(op);
      const bool reached = !s_.policies.empty() && !s_.users.empty() && !judge_policies(m_, op, 0).empty();
      memo->object_digests.push_back(keys.object(op, covering, gated, reached));
      std::vector<std::pair<std::string, std::vector<std::string>>> unsatisfiable;
      if (auto it = before.find(memo->object_digests.back()); it != before.end()) {
        op.classes = previous_->classes[it->second];
        unsatisfiable = previous_->unsatisfiable[it->second];
        ++out.reused_objects;
      } else {
        object_unsatisfiable_.clear();
        decide_object(op, covering, gated);
        for (auto& [policy, users] : object_unsatisfiable_) {
          unsatisfiable.emplace_back(policy, std::vector<std::string>(users.begin(), users.end()));
        }
      }
      for (const auto& [policy, users] : unsatisfiable) unsatisfiable_[policy].insert(users.begin(), users.end());
      memo->classes.push_back(op.classes);
      memo->unsatisfiable.push_back(std::move(unsatisfiable));
    }
    out.memo = memo;  // completed by build_unlisted
  }

  // Users grouped by the privileges the grants covering one object give them.
  struct GrantGroup {
    PrivilegeSet granted;
    std::shared_ptr<const std::vector<std::size_t>> users;
  };
  using Partition = std::vector<GrantGroup>;
  // A grant group split further by clearance of an object's gated tags.
  struct ClearanceGroup {
    PrivilegeSet granted;
    std::vector<bool> cleared;  // per entry of the object's gated tag list
    std::shared_ptr<const std::vector<std::size_t>> users;
  };
  using ClearancePartition = std::vector<ClearanceGroup>;

  void index_grants() {
    for (std::size_t i = 0; i < grants_.size(); ++i) grant_index_[pattern_key(grants_[i].pattern)].push_back(i);
  }

  static std::string pattern_key(const QualifiedName& n) {
    std::string k = n.catalog;
    k += '\0';
    k += n.schema;
    k += '\0';
    k += n.table;
    return k;
  }

  // The grants covering a name, by index: catalogs are concrete after map_grants,
  // so four lookups find every pattern that can cover it.
  std::vector<std::size_t> covering_grants(const QualifiedName& n) const {
    std::vector<std::size_t> out;
    for (const QualifiedName& key : {n, QualifiedName{n.catalog, n.schema, "*"}, QualifiedName{n.catalog, "*", n.table},
                                     QualifiedName{n.catalog, "*", "*"}}) {
      if (auto it = grant_index_.find(pattern_key(key)); it != grant_index_.end()) {
        out.insert(out.end(), it->second.begin(), it->second.end());
      }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }

  const Partition& grant_partition(const std::vector<std::size_t>& grants) {
    auto [it, fresh] = partitions_.try_emplace(grants);
    if (!fresh) return it->second;
    std::vector<std::uint8_t>& acc = scratch_privileges_;
    acc.assign(s_.users.size(), 0);
    std::vector<std::size_t> touched;
    for (std::size_t g : grants) {
      for (std::size_t u : grants_[g].holders) {
        if (!acc[u]) touched.push_back(u);
        acc[u] |= grants_[g].privileges.bits();
      }
    }
    std::sort(touched.begin(), touched.end());
    std::map<std::uint8_t, std::vector<std::size_t>> by_privileges;
    for (std::size_t u : touched) by_privileges[acc[u]].push_back(u);
    for (auto& [bits, users] : by_privileges) {
      it->second.push_back({PrivilegeSet(bits), lists_.get(std::move(users))});
    }
    return it->second;
  }

  const ClearancePartition& clearance_partition(const Partition& partition, const std::vector<std::size_t>& tags) {
    auto [it, fresh] = clearance_partitions_.try_emplace({&partition, tags});
    if (!fresh) return it->second;
    const std::vector<std::size_t>& kind = clearance_kinds();
    for (const auto& group : partition) {
      // Users of one clearance kind are cleared alike for any tags, so each kind's key over
      // these tags is worked out once, from its first user; every user then costs one lookup.
      std::unordered_map<std::string, std::size_t> by_key;  // '1' = cleared, one per tag -> index into lists
      std::vector<std::vector<std::size_t>> lists;
      std::string key(tags.size(), '0');
      for (std::size_t u : *group.users) {
        std::size_t& slot = kind_slot_[kind[u]];
        if (slot == kUnset) {
          const std::vector<bool>& cleared = m_.cleared[u];
          for (std::size_t i = 0; i < tags.size(); ++i) key[i] = cleared[tags[i]] ? '1' : '0';
          auto [at, added] = by_key.try_emplace(key, lists.size());
          if (added) lists.emplace_back();
          slot = at->second;
          touched_kinds_.push_back(kind[u]);
        }
        lists[slot].push_back(u);
      }
      for (std::size_t k : touched_kinds_) kind_slot_[k] = kUnset;
      touched_kinds_.clear();
      std::map<std::vector<bool>, std::size_t> split;  // in the order classes are listed
      for (const auto& [bits, index] : by_key) {
        std::vector<bool> flags(bits.size());
        for (std::size_t i = 0; i < bits.size(); ++i) flags[i] = bits[i] == '1';
        split.emplace(std::move(flags), index);
      }
      for (auto& [cleared, index] : split) {
        auto shared = split.size() == 1 ? group.users : lists_.get(std::move(lists[index]));
        it->second.push_back({group.granted, cleared, std::move(shared)});
      }
    }
    return it->second;
  }

  // Users cleared for exactly the same engine-gated tags share a kind: no object's gates can
  // tell them apart. Worked out once per compile.
  const std::vector<std::size_t>& clearance_kinds() {
    if (!clearance_kind_.empty() || s_.users.empty()) return clearance_kind_;
    std::vector<std::size_t> gated;
    for (std::size_t t = 0; t < m_.engine_gated.size(); ++t) {
      if (m_.engine_gated[t]) gated.push_back(t);
    }
    std::unordered_map<std::string, std::size_t> kinds;
    std::string key(gated.size(), '0');
    clearance_kind_.resize(s_.users.size());
    for (std::size_t u = 0; u < s_.users.size(); ++u) {
      for (std::size_t i = 0; i < gated.size(); ++i) key[i] = m_.cleared[u][gated[i]] ? '1' : '0';
      clearance_kind_[u] = kinds.try_emplace(key, kinds.size()).first->second;
    }
    kind_slot_.assign(kinds.size(), kUnset);
    return clearance_kind_;
  }

  // The engine-gated tags on an object or its columns, as sorted classification indices.
  std::vector<std::size_t> gated_tags(const ObjectPolicy& op) const {
    std::vector<std::size_t> tags;
    for (const auto& t : op.object_gates) tags.push_back(m_.tag_index.at(t));
    for (const auto& [col, col_tags] : op.column_gates) {
      for (const auto& t : col_tags) tags.push_back(m_.tag_index.at(t));
    }
    std::sort(tags.begin(), tags.end());
    tags.erase(std::unique(tags.begin(), tags.end()), tags.end());
    return tags;
  }

  void decide_object(ObjectPolicy& op, const std::vector<std::size_t>& covering, const std::vector<std::size_t>& tags) {
    const Partition& partition = grant_partition(covering);
    for (const auto& group : clearance_partition(partition, tags)) {
      auto is_cleared = [&](const std::string& t) {
        const auto pos = std::lower_bound(tags.begin(), tags.end(), m_.tag_index.at(t)) - tags.begin();
        return static_cast<bool>(group.cleared[static_cast<std::size_t>(pos)]);
      };
      auto [access, reasons] = decide_class(op, group.granted, is_cleared);
      AccessClass cls{group.users, group.granted, std::move(access), std::move(reasons)};
      if (m_.snapshot->policies.empty()) {
        op.classes.push_back(std::move(cls));
      } else {
        apply_policies(op, std::move(cls));
      }
    }
    std::sort(op.classes.begin(), op.classes.end(), [](const AccessClass& a, const AccessClass& b) {
      return std::tie(a.access, a.granted, a.reasons, *a.users) < std::tie(b.access, b.granted, b.reasons, *b.users);
    });
  }

  // The access of users who share grants and clearances on one object, and why it is less than granted.
  template <typename Cleared>
  std::pair<Access, std::vector<std::string>> decide_class(const ObjectPolicy& op, PrivilegeSet privs,
                                                           const Cleared& is_cleared) {
    Access access;
    std::vector<std::string> reasons;
    access.privileges = privs;
    std::vector<std::string> missing_object, missing_any;
    for (const auto& t : op.object_gates) {
      if (!is_cleared(t)) missing_object.push_back(t);
    }
    std::set<std::string> column_missing_tags;
    for (const auto& [col, col_tags] : op.column_gates) {
      bool denied = false;
      for (const auto& t : col_tags) {
        if (!is_cleared(t)) {
          denied = true;
          column_missing_tags.insert(t);
        }
      }
      if (denied) access.denied_columns.push_back(col);
    }
    if (!missing_object.empty() && privs.has(Privilege::Select)) {
      access.privileges.remove(Privilege::Select);
      reasons.push_back("SELECT withheld: not cleared for " + join_words(missing_object) +
                        ", which gates the whole object");
    }
    missing_any = missing_object;
    for (const auto& t : column_missing_tags) {
      if (std::find(missing_any.begin(), missing_any.end(), t) == missing_any.end()) missing_any.push_back(t);
    }
    std::sort(missing_any.begin(), missing_any.end());
    if (p_.withhold_writes && !missing_any.empty()) {
      PrivilegeSet withheld = privs;
      withheld.remove(Privilege::Select);
      if (!withheld.empty()) {
        access.privileges.remove(PrivilegeSet::writes());
        reasons.push_back(join_words(withheld.names()) + " withheld: not cleared for " + join_words(missing_any) +
                          " (withhold_writes)");
      }
    }
    if (!access.privileges.has(Privilege::Select)) {
      access.denied_columns.clear();
    } else if (!access.denied_columns.empty()) {
      std::sort(access.denied_columns.begin(), access.denied_columns.end());
      std::vector<std::string> missing(column_missing_tags.begin(), column_missing_tags.end());
      reasons.push_back("columns " + join_words(access.denied_columns) + " withheld: not cleared for " +
                        join_words(missing));
    }
    return {std::move(access), std::move(reasons)};
  }

  // What access policies can see of a user: whether each applies to or
  // exempts them, and every $user value a row filter binds. Users with the
  // same key get the same decisions on every object, so each key is judged once.
  void key_users_for_policies() {
    if (s_.policies.empty()) return;
    std::vector<std::vector<std::string>> refs(s_.policies.size());
    std::function<void(const nlohmann::json&, std::vector<std::string>&)> collect = [&](const nlohmann::json& node,
                                                                                        std::vector<std::string>& out) {
      if (node.is_object()) {
        if (auto it = node.find("$user"); it != node.end())
          out.push_back(it->is_string() ? it->get<std::string>() : "");
        for (const auto& [k, v] : node.items()) collect(v, out);
      } else if (node.is_array()) {
        for (const auto& v : node) collect(v, out);
      }
    };
    for (std::size_t i = 0; i < s_.policies.size(); ++i) collect(s_.policies[i].condition, refs[i]);
    auto holds = [&](std::size_t u, const PrincipalSet& set, const std::set<std::string>& roles) {
      if (std::find(set.users.begin(), set.users.end(), s_.users[u].name) != set.users.end()) return true;
      for (const auto& r : set.roles) {
        if (roles.count(r)) return true;
      }
      return false;
    };
    std::map<std::string, std::size_t> ids;
    policy_key_.resize(s_.users.size());
    for (std::size_t u = 0; u < s_.users.size(); ++u) {
      nlohmann::json key = nlohmann::json::array();
      for (std::size_t i = 0; i < s_.policies.size(); ++i) {
        const Policy& p = s_.policies[i];
        key.push_back(p.applies_to.empty() || holds(u, p.applies_to, m_.any_roles[u]));
        key.push_back(!p.exempt.empty() && holds(u, p.exempt, m_.direct_roles[u]));
        for (const auto& r : refs[i]) {
          const User& user = s_.users[u];
          if (r == "name") {
            key.push_back(user.name);
          } else if (r == "roles") {
            key.push_back(m_.direct_roles[u]);
          } else if (r.rfind("attributes.", 0) == 0) {
            const std::string k = r.substr(11);
            key.push_back(user.attributes.contains(k) ? nlohmann::json::array({user.attributes.at(k)})
                                                      : nlohmann::json::array());
          }
        }
      }
      policy_key_[u] = ids.try_emplace(key.dump(), ids.size()).first->second;
    }
    policy_key_text_.resize(ids.size());
    for (auto& [text, id] : ids) policy_key_text_[id] = text;
  }

  // Access policies depend on each user's attributes and roles: judge them once
  // per policy key, then regroup the class by outcome. Objects no policy reaches skip this.
  void apply_policies(ObjectPolicy& op, AccessClass cls) {
    const auto& users = *cls.users;
    if (judge_policies(m_, op, users.front()).empty()) {
      op.classes.push_back(std::move(cls));
      return;
    }
    // Users by policy key, each key's users in order (the first is the one judged); the
    // outcomes' lists are sorted below, so the order of the keys does not matter.
    std::vector<std::vector<std::size_t>> by_key;
    if (key_slot_.size() != policy_key_text_.size()) key_slot_.assign(policy_key_text_.size(), kUnset);
    for (std::size_t u : users) {
      std::size_t& slot = key_slot_[policy_key_[u]];
      if (slot == kUnset) {
        slot = by_key.size();
        by_key.emplace_back();
        touched_keys_.push_back(policy_key_[u]);
      }
      by_key[slot].push_back(u);
    }
    for (std::size_t k : touched_keys_) key_slot_[k] = kUnset;
    touched_keys_.clear();
    std::map<std::pair<Access, std::vector<std::string>>, std::vector<std::size_t>> outcomes;
    for (auto& members : by_key) {
      const auto decisions = judge_policies(m_, op, members.front());
      for (const auto& d : decisions) {
        if (!d.applies || !d.unsatisfiable) continue;
        for (std::size_t u : members) object_unsatisfiable_[d.policy].insert(s_.users[u].name);
      }
      UserAccess ua{members.front(), cls.access, cls.granted, cls.reasons};
      apply_policy_decisions(decisions, op, ua);
      auto& out = outcomes[{std::move(ua.access), std::move(ua.reasons)}];
      out.insert(out.end(), members.begin(), members.end());
    }
    for (auto& [outcome, members] : outcomes) {
      std::sort(members.begin(), members.end());
      auto shared = outcomes.size() == 1 ? cls.users : lists_.get(std::move(members));
      op.classes.push_back({std::move(shared), cls.granted, outcome.first, outcome.second});
    }
  }

  void build_unlisted(PolicySet& ps) {
    if (previous_ && previous_->context == memo_->context && previous_->grants == memo_->grants &&
        previous_->create_restricted == ps.create_restricted) {
      ps.unlisted = previous_->unlisted;
    } else {
      compute_unlisted(ps);
    }
    memo_->create_restricted = ps.create_restricted;
    memo_->unlisted = ps.unlisted;
  }

  void compute_unlisted(PolicySet& ps) {
    std::set<QualifiedName> closure;
    for (const auto& g : grants_) closure.insert(g.pattern);
    // Close under intersection so that the most specific matching pattern
    // carries the union of every grant that reaches a name.
    for (bool grew = true; grew;) {
      grew = false;
      std::vector<QualifiedName> current(closure.begin(), closure.end());
      for (std::size_t i = 0; i < current.size(); ++i) {
        for (std::size_t j = i + 1; j < current.size(); ++j) {
          if (auto x = intersect(current[i], current[j]); x && closure.insert(*x).second) grew = true;
        }
      }
    }
    std::vector<QualifiedName> ordered(closure.begin(), closure.end());
    std::stable_sort(ordered.begin(), ordered.end(), [](const QualifiedName& a, const QualifiedName& b) {
      return concrete_parts(a) > concrete_parts(b);
    });
    // Per user, indexed densely: a tree map here was most of a recompile that reused every object.
    std::vector<PrivilegeSet> privileges(s_.users.size());
    std::vector<std::size_t> holders;
    for (const auto& pattern : ordered) {
      holders.clear();
      for (const auto& g : grants_) {
        if (!covers(g.pattern, pattern)) continue;
        for (std::size_t u : g.holders) {
          if (privileges[u].empty() && !g.privileges.empty()) holders.push_back(u);
          privileges[u].add(g.privileges);
        }
      }
      std::sort(holders.begin(), holders.end());
      UnlistedRule rule{pattern, {}};
      for (std::size_t u : holders) {
        PrivilegeSet privs = privileges[u];
        privileges[u] = {};
        if (restricted_[u]) privs.remove(Privilege::Ownership);
        if (!privs.empty()) rule.access.emplace_back(u, privs);
      }
      if (!rule.access.empty()) ps.unlisted.push_back(std::move(rule));
    }
  }

  // StarRocks enforces a gate with one policy per tagged column and one per
  // tagged object. Over the limit the profile fails whole: never truncated.
  void check_policy_limit(const PolicySet& ps, ProfileCompile& out) {
    if (p_.engine != Engine::StarRocks) return;
    std::map<std::string, std::size_t> count;
    for (const auto& op : ps.objects) {
      for (const auto& t : op.object_gates) count[t]++;
      for (const auto& [col, tags] : op.column_gates) {
        for (const auto& t : tags) count[t]++;
      }
    }
    for (const auto& [tag, n] : count) {
      if (n > static_cast<std::size_t>(p_.max_policies_per_tag)) {
        out.errors.push_back("classification " + tag + " needs " + std::to_string(n) +
                             " StarRocks policies (tagged columns and objects visible to profile " + p_.name +
                             "), over the limit max_policies_per_tag = " + std::to_string(p_.max_policies_per_tag) +
                             ": nothing is truncated and the last good policy set stays in force; narrow or untag " +
                             tag + " back under the limit");
      }
    }
  }

  void report(const PolicySet& ps, ProfileCompile& out) {
    for (const auto& [policy, users] : unsatisfiable_) {
      out.findings.push_back({Severity::Warning, "row_filter_unsatisfiable",
                              "row filter " + policy + " cannot be satisfied for " + std::to_string(users.size()) +
                                  " users (a missing attribute, a wrong type, an unknown column or operator): they "
                                  "see no rows; run explain for the reason",
                              p_.name, std::vector<std::string>(users.begin(), users.end())});
    }
    if (p_.engine == Engine::Trino && !ps.create_restricted.empty()) {
      std::vector<std::string> names;
      for (std::size_t u : ps.create_restricted) names.push_back(ps.users[u].engine_name);
      out.findings.push_back(
          {Severity::Info, "materialized_view_restriction",
           std::to_string(names.size()) + " users are not cleared for every gated tag on profile " + p_.name + " (" +
               join_some(ps.gated_tags) +
               ") and cannot create materialized views there; Trino's file-based rules check the same OWNERSHIP of "
               "the new name for CREATE TABLE, CREATE VIEW and CREATE MATERIALIZED VIEW, so they cannot create tables "
               "or views either (set restrict_materialized_views: false to lift this)",
           p_.name, names});
    }
    if (p_.engine != Engine::Trino) return;
    for (const auto& op : ps.objects) {
      const Object& o = s_.objects[op.object];
      if (o.kind != ObjectKind::View || o.view_security != ViewSecurity::Definer || op.object_gates.empty()) continue;
      if (!o.owner) {
        out.findings.push_back({Severity::Warning,
                                "definer_view_without_owner",
                                "DEFINER view " + o.name.str() + " carries gated tags (" + join_words(op.object_gates) +
                                    ") but the snapshot names no owner: tagwarden cannot tell whether Trino will "
                                    "refuse it to everybody",
                                p_.name,
                                {o.name.str()}});
        continue;
      }
      const std::size_t owner = m_.user_index.at(*o.owner);
      std::vector<std::string> missing;
      for (const auto& t : op.object_gates) {
        if (!m_.is_cleared(owner, t)) missing.push_back(t);
      }
      if (!missing.empty()) {
        out.findings.push_back({Severity::Warning,
                                "definer_view_owner_not_cleared",
                                "DEFINER view " + o.name.str() + " is owned by " + *o.owner +
                                    ", who is not cleared for " + join_words(missing) +
                                    ": on Trino the view is refused to everybody, the cleared included; give the owner "
                                    "the role directly or make the view SECURITY INVOKER",
                                p_.name,
                                {o.name.str(), *o.owner}});
      }
    }
  }

  const Model& m_;
  const Profile& p_;
  const Snapshot& s_;
  // Platform catalog (folded as the engine folds names) -> engine catalog. Matching on
  // folded names keeps an object from falling outside its profile, and so to broad rules.
  std::map<std::string, std::string> catalog_names_;
  std::vector<EngineGrant> grants_;
  std::unordered_map<std::string, std::vector<std::size_t>> grant_index_;  // pattern -> grants_ indices
  std::map<std::vector<std::size_t>, Partition> partitions_;               // covering grants -> partition
  std::map<std::pair<const Partition*, std::vector<std::size_t>>, ClearancePartition> clearance_partitions_;
  std::vector<std::uint8_t> scratch_privileges_;
  UserLists lists_;  // every access class's user list, once per content
  static constexpr std::size_t kUnset = static_cast<std::size_t>(-1);
  std::vector<std::size_t> clearance_kind_;  // per user: users alike for every engine-gated tag share one
  std::vector<std::size_t> kind_slot_;       // per kind, while one group is split: its list, or kUnset
  std::vector<std::size_t> touched_kinds_;
  std::vector<std::size_t> key_slot_;  // per policy key, while one class is split: its group, or kUnset
  std::vector<std::size_t> touched_keys_;
  std::vector<std::size_t> policy_key_;       // per user: id of what access policies can see of them
  std::vector<std::string> policy_key_text_;  // per id: the key itself
  std::vector<bool> restricted_;
  std::shared_ptr<CompileMemo> memo_;                                  ///< this compile's, left for the next
  std::map<std::string, std::set<std::string>> unsatisfiable_;         // policy -> users for whom it means no rows
  std::map<std::string, std::set<std::string>> object_unsatisfiable_;  // the same, for the object being decided
  const CompileMemo* previous_ = nullptr;
};

}  // namespace

ProfileCompile compile_profile(const Model& model, const Profile& profile, const CompileMemo* previous) {
  return ProfileCompiler(model, profile).reuse(previous).run();
}

const AccessClass* ObjectPolicy::class_of(std::size_t user) const {
  for (const auto& cls : classes) {
    if (std::binary_search(cls.users->begin(), cls.users->end(), user)) return &cls;
  }
  return nullptr;
}

PrivilegeSet PolicySet::unlisted_access(std::size_t user, const QualifiedName& name) const {
  for (const auto& rule : unlisted) {
    if (!covers(rule.pattern, name)) continue;
    for (const auto& [u, privs] : rule.access) {
      if (u == user) return privs;
    }
    return {};  // the most specific pattern decides; users absent from it have nothing here
  }
  return {};
}

}  // namespace tw

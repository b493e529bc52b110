#include "tagwarden/compile/compiler.h"

#include <algorithm>
#include <future>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>

#include "grant_patterns.h"
#include "memo_keys.h"
#include "policy_judgements.h"
#include "policy_keys.h"
#include "profile_findings.h"
#include "tagwarden/compile/access_policies.h"
#include "tagwarden/compile/filter_columns.h"
#include "tagwarden/util/digest.h"
#include "tagwarden/util/text.h"
#include "user_lists.h"
#include "user_partitions.h"

namespace tw {

std::string engine_user_name(const User& user, const Profile& profile) {
  if (auto it = profile.user_map.find(user.name); it != profile.user_map.end()) return it->second;
  return user.engine_user.value_or(user.name);
}

namespace {

std::string engine_identifier(const std::string& name, Engine engine) {
  return engine == Engine::Trino ? lowercase_identifier(name) : name;
}

class ProfileCompiler {
 public:
  ProfileCompiler(const Model& model, const Profile& profile) : m_(model), p_(profile), s_(*model.snapshot) {}

  ProfileCompile run() {
    ProfileCompile out;
    PolicySet ps;
    ps.profile = p_.name;
    ps.engine = p_.engine;
    ps.generated_at = m_.now;
    // Policy keys read only the model, once for every profile; worked out beside the steps
    // below, which do not read them (the other core is often idle while one profile compiles).
    auto policy_keys = std::async(std::launch::async, [this] { return &shared_policy_keys(m_); });
    map_users(ps, out);
    map_catalogs(ps);
    refuse_unfoldable_names(out);
    map_grants();
    index_grants();
    index_view_owners();
    collect_objects(ps);
    policy_keys_ = policy_keys.get();
    judgements_.emplace(m_, *policy_keys_);
    restrict_creation(ps);
    decide_objects(ps, out);
    build_unlisted(ps);
    for (auto& e : policy_limit_errors(m_, p_, ps)) out.errors.push_back(std::move(e));
    if (out.errors.empty()) {  // a failed profile publishes nothing: findings about its rules would mislead
      for (auto& f : profile_findings(m_, p_, ps, unsatisfiable_)) out.findings.push_back(std::move(f));
    }
    if (out.errors.empty()) out.policy_set = std::move(ps);
    return out;
  }

  ProfileCompiler& reuse(const CompileMemo* previous) {
    previous_ = previous;
    return *this;
  }

 private:
  void map_users(PolicySet& ps, ProfileCompile& out) {
    std::map<std::string, std::size_t> seen;  // engine name -> user index
    // Where a user's engine name comes from, as the snapshot or the profile spells it.
    const auto source = [&](std::size_t i) {
      const User& u = s_.users[i];
      const std::string entry = "users[" + std::to_string(i) + "] (" + quote(u.name) + ", by ";
      if (p_.user_map.count(u.name))
        return entry + "user_map[" + quote(u.name) + "] of profile " + quote(p_.name) + " in the config)";
      return entry + (u.engine_user ? "users[" + std::to_string(i) + "].engine_user)" : std::string("its name)"));
    };
    for (std::size_t i = 0; i < s_.users.size(); ++i) {
      const User& u = s_.users[i];
      const std::string engine = engine_user_name(u, p_);
      if (auto [it, fresh] = seen.emplace(engine, i); !fresh) {
        out.errors.push_back(source(it->second) + " and " + source(i) + " both map to the engine user " +
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

  // Trino lowercases every identifier with Java's String.toLowerCase, whose final sigma depends on
  // the word around a capital sigma. A rule keyed by a name folded otherwise would miss the object
  // Trino sees, which then falls to broader rules: such names fail the profile instead.
  void refuse_unfoldable_names(ProfileCompile& out) const {
    if (p_.engine != Engine::Trino) return;
    auto refuse = [&](const std::string& where, const std::string& name) {
      out.errors.push_back(where + " " + quote(name) +
                           " contains a capital sigma (U+03A3), which Trino lowercases to σ or ς depending on "
                           "the word around it; tagwarden cannot name it exactly in Trino's rules. Write the name "
                           "in lower case, as Trino lists it");
    };
    for (const auto& c : p_.catalogs) {
      if (has_context_dependent_lowercase(c)) refuse("catalog", c);
    }
    for (const auto& [platform, engine] : p_.catalog_map) {
      if (has_context_dependent_lowercase(engine)) refuse("catalog_map target", engine);
    }
    for (const std::size_t i : m_.unfoldable_objects) {
      const Object& o = s_.objects[i];
      if (!catalog_names_.count(engine_identifier(o.name.catalog, p_.engine))) continue;
      if (has_context_dependent_lowercase(o.name.catalog) || has_context_dependent_lowercase(o.name.schema) ||
          has_context_dependent_lowercase(o.name.table)) {
        refuse("object", o.name.str());  // the dots between the parts fold as themselves
      }
      for (const auto& c : o.columns) {
        if (has_context_dependent_lowercase(c.name)) refuse("column of " + o.name.str(), c.name);
      }
    }
    for (const auto& g : s_.grants) {
      if (has_context_dependent_lowercase(g.object.str())) refuse("grant on", g.object.str());
    }
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
    // Sorted by engine name first, then built in that order: sorting the built policies moved
    // every one of them about (a fifth of this step at M).
    // Positions are sorted, not the names (moving three strings per swap was a third of this
    // step), and not at all when the snapshot lists its objects in order already, as most do.
    // Ties (two catalogs mapped to one) keep snapshot order.
    std::vector<QualifiedName> names;
    std::vector<std::size_t> objects;
    // Objects come grouped by catalog: whether one is the profile's is worked out once per run.
    const std::string* catalog = nullptr;
    bool in_profile = false;
    for (std::size_t i = 0; i < s_.objects.size(); ++i) {
      const Object& o = s_.objects[i];
      if (!catalog || *catalog != o.name.catalog) {
        catalog = &o.name.catalog;
        in_profile = catalog_names_.count(engine_identifier(o.name.catalog, p_.engine)) != 0;
      }
      if (!in_profile) continue;
      names.push_back(engine_name(o.name));
      objects.push_back(i);
    }
    const auto before = [&names](std::size_t a, std::size_t b) {
      const auto c = names[a] <=> names[b];
      return c < 0 || (c == 0 && a < b);
    };
    // The last compile's order, when it sorts these names too: objects seldom move, and sorting
    // 31,000 names again on every pass was a seventh of collecting them at L. (The order is total,
    // ties broken by position, so a sorted order is the one order std::sort gives.)
    std::vector<std::size_t>& order = object_order_;  // kept for the memo
    if (previous_ && previous_->object_order.size() == names.size() &&
        std::is_sorted(previous_->object_order.begin(), previous_->object_order.end(), before)) {
      order = previous_->object_order;
    } else {
      order.resize(names.size());
      std::iota(order.begin(), order.end(), std::size_t{0});
      if (!std::is_sorted(order.begin(), order.end(), before)) std::sort(order.begin(), order.end(), before);
    }
    ps.objects.reserve(order.size());
    std::vector<bool> present(s_.classifications.size(), false);  // by classification index
    for (const std::size_t k : order) {
      const std::size_t i = objects[k];
      const Object& o = s_.objects[i];
      ObjectPolicy op;
      op.object = i;
      op.platform_name = o.name;
      op.engine_name = std::move(names[k]);
      op.kind = o.kind;
      for (const auto& t : m_.object_tags[i]) {
        if (m_.is_engine_gated(t)) op.object_gates.push_back(t);
      }
      for (const std::size_t t : m_.gated_tags[i]) present[t] = true;
      op.columns = p_.engine == Engine::Trino ? o.columns.lowercase_names() : o.columns.names();
      op.column_types = o.columns.types();
      for (const auto& [c, gates] : m_.gated_columns[i]) op.column_gates.emplace_back(op.columns[c], gates);
      std::sort(op.column_gates.begin(), op.column_gates.end());
      ps.objects.push_back(std::move(op));
    }
    for (std::size_t t = 0; t < present.size(); ++t) {
      if (present[t]) ps.gated_tags.push_back(s_.classifications[t].name);
    }
    std::sort(ps.gated_tags.begin(), ps.gated_tags.end());
  }

  void restrict_creation(PolicySet& ps) {
    restricted_.assign(s_.users.size(), false);
    if (!p_.restrict_materialized_views || ps.gated_tags.empty()) return;
    // Restricted: not cleared for one of the gated tags at least. A word per 64 users, from the
    // model's bitmaps of who is cleared, not a lookup per user and tag.
    std::vector<std::uint64_t> cleared_for_all((s_.users.size() + 63) / 64, ~std::uint64_t{0});
    for (const auto& t : ps.gated_tags) {
      const std::vector<std::uint64_t>& cleared = m_.cleared_users[m_.tag_index.at(t)];
      for (std::size_t w = 0; w < cleared_for_all.size(); ++w) cleared_for_all[w] &= cleared[w];
    }
    for (std::size_t u = 0; u < s_.users.size(); ++u) {
      if (!(cleared_for_all[u / 64] >> (u % 64) & 1)) {
        restricted_[u] = true;
        ps.create_restricted.push_back(u);
      }
    }
    any_restricted_ = !ps.create_restricted.empty();
  }

  // Decides every object, reusing the previous memo's decision for objects
  // whose inputs and context are unchanged, and leaves the memo for the next compile.
  void decide_objects(PolicySet& ps, ProfileCompile& out) {
    memo_ = std::make_shared<CompileMemo>();
    auto& memo = memo_;
    MemoKeys keys(m_, p_, grants_, policy_keys_->of_user, policy_keys_->text);
    memo->context = keys.context(ps, catalog_names_);
    memo->grants = keys.grants();
    // The last compile's decision for the same inputs: looked for where the object was (objects
    // seldom move), then by digest. A miss only decides the object again, so the index of every
    // digest, a tenth of this step at L, is made only once several objects were not where they were.
    const std::vector<std::string>* previous_digests =
        previous_ && previous_->context == memo->context ? &previous_->object_digests : nullptr;
    std::optional<std::unordered_map<std::string_view, std::size_t>> before;
    std::size_t misplaced = 0;
    const auto reusable = [&](std::size_t position, const std::string& digest) -> std::optional<std::size_t> {
      if (!previous_digests) return std::nullopt;
      const auto& last = *previous_digests;
      for (const std::size_t k : {position, position + 1, position - 1}) {
        if (k < last.size() && last[k] == digest) return k;
      }
      if (++misplaced <= kMisplacedBeforeIndex) return std::nullopt;
      if (!before) {
        before.emplace();
        before->reserve(last.size());
        for (std::size_t i = 0; i < last.size(); ++i) before->emplace(last[i], i);
      }
      if (auto it = before->find(digest); it != before->end()) return it->second;
      return std::nullopt;
    };
    memo->object_order = std::move(object_order_);
    memo->object_digests.reserve(ps.objects.size());
    std::string restricted_key;  // read by objects where a covering grant gives OWNERSHIP
    if (restricts_ownership()) {
      Digest d;
      d.add(ps.create_restricted.size());
      for (std::size_t u : ps.create_restricted) d.add(std::uint64_t(u));
      restricted_key = d.finish();
    }
    for (std::size_t position = 0; position < ps.objects.size(); ++position) {
      ObjectPolicy& op = ps.objects[position];
      const std::vector<std::size_t> covering = covering_grants(op.engine_name);
      const bool owned = !restricted_key.empty() && std::any_of(covering.begin(), covering.end(), [&](std::size_t g) {
        return grants_[g].privileges.has(Privilege::Ownership);
      });
      const std::vector<std::size_t>& gated = m_.gated_tags[op.object];
      const bool reached = !s_.policies.empty() && !s_.users.empty() && m_.policy_reached[op.object];
      const std::vector<std::size_t>& owners = view_owners_of(op.object);
      memo->object_digests.push_back(
          keys.object(op, covering, gated, reached, owners, owned ? std::string_view(restricted_key) : ""));
      std::vector<std::pair<std::string, std::vector<std::string>>> unsatisfiable;
      if (const auto k = reusable(position, memo->object_digests.back())) {
        op.classes = previous_->classes[*k];
        unsatisfiable = previous_->unsatisfiable[*k];
        ++out.reused_objects;
      } else {
        object_unsatisfiable_.clear();
        decide_object(op, covering, gated, owners);
        for (auto& [policy, users] : object_unsatisfiable_) {
          unsatisfiable.emplace_back(policy, std::vector<std::string>(users.begin(), users.end()));
        }
      }
      memo->classes.push_back(op.classes);
      for (const auto& [policy, users] : unsatisfiable) unsatisfiable_[policy].insert(users.begin(), users.end());
      memo->unsatisfiable.push_back(std::move(unsatisfiable));
    }
    out.memo = memo;  // completed by build_unlisted
  }

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
  // Each pattern's list is in grant order (index_grants), so the lists are merged, not sorted; the
  // keys are built in one buffer, not as four names and four strings per object.
  std::vector<std::size_t> covering_grants(const QualifiedName& n) const {
    std::vector<std::size_t> out;
    std::string& key = key_scratch_;
    for (const auto& [schema, table] : {std::pair<std::string_view, std::string_view>{n.schema, n.table},
                                        {n.schema, "*"},
                                        {"*", n.table},
                                        {"*", "*"}}) {
      key.assign(n.catalog).append(1, '\0').append(schema).append(1, '\0').append(table);
      if (auto it = grant_index_.find(key); it != grant_index_.end()) {
        const auto middle = static_cast<std::ptrdiff_t>(out.size());
        out.insert(out.end(), it->second.begin(), it->second.end());
        std::inplace_merge(out.begin(), out.begin() + middle, out.end());
      }
    }
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }

  void decide_object(ObjectPolicy& op, const std::vector<std::size_t>& covering, const std::vector<std::size_t>& tags,
                     const std::vector<std::size_t>& view_owners) {
    classes_.clear();
    judgements_->forget_judged();
    const GrantPartition& partition = partitions_.by_grants(covering);
    for (const auto& group : partitions_.by_clearance(partition, tags)) {
      auto is_cleared = [&](const std::string& t) {
        const auto pos = std::lower_bound(tags.begin(), tags.end(), m_.tag_index.at(t)) - tags.begin();
        return static_cast<bool>(group.cleared[static_cast<std::size_t>(pos)]);
      };
      auto add = [&](UserListPtr users, bool creation_restricted) {
        auto [access, reasons] = decide_class(op, group.granted, is_cleared, creation_restricted);
        AccessClass cls{std::move(users), group.granted, std::move(access), std::move(reasons)};
        if (m_.snapshot->policies.empty()) {
          classes_.push_back(std::move(cls));
        } else {
          apply_policies(op, std::move(cls));
        }
      };
      if (!owns_by_name(group.granted)) {
        add(group.users, false);
        continue;
      }
      // Users restricted from creating lose OWNERSHIP of listed objects too: with it they could
      // drop the object and create a materialized view under its name.
      std::vector<std::size_t> restricted, others;
      for (std::size_t u : *group.users) (restricted_[u] ? restricted : others).push_back(u);
      if (others.empty() || restricted.empty()) {
        add(group.users, !restricted.empty());
      } else {
        add(lists_.get(std::move(others)), false);
        add(lists_.get(std::move(restricted)), true);
      }
    }
    if (p_.engine == Engine::Trino) evaluate_filters_as_owner(op);
    if (!view_owners.empty()) mark_view_owners(view_owners);
    std::sort(classes_.begin(), classes_.end(), [](const AccessClass& a, const AccessClass& b) {
      return std::tie(a.access, a.granted, a.reasons, *a.users) < std::tie(b.access, b.granted, b.reasons, *b.users);
    });
    op.classes = std::move(classes_);
    classes_.clear();  // moved from: valid, and empty for the next object
  }

  // Trino checks OWNERSHIP of a name for CREATE MATERIALIZED VIEW there: holding it on a listed
  // object is a way to create one (drop, then create) that restrict_materialized_views closes.
  bool restricts_ownership() const {
    return p_.engine == Engine::Trino && p_.restrict_materialized_views && any_restricted_;
  }
  bool owns_by_name(const PrivilegeSet& granted) const {
    return restricts_ownership() && granted.has(Privilege::Ownership);
  }

  // The access of users who share grants and clearances on one object, and why it is less than granted.
  template <typename Cleared>
  std::pair<Access, std::vector<std::string>> decide_class(const ObjectPolicy& op, PrivilegeSet privs,
                                                           const Cleared& is_cleared, bool creation_restricted) {
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
    } else if (!missing_any.empty() && access.privileges.has(Privilege::Ownership)) {
      // OWNERSHIP lets its holder rename the table or a column (Trino checks only OWNERSHIP for
      // both), and a gate is keyed by name: renamed, the gated data is read under a name the gate
      // does not cover. So it goes with any missing clearance, withhold_writes or not.
      access.privileges.remove(Privilege::Ownership);
      reasons.push_back("OWNERSHIP withheld: not cleared for " + join_words(missing_any) +
                        " (an owner could rename what the gate names)");
    }
    // StarRocks checks only UPDATE or DELETE on the target table, no SELECT for their WHERE: with
    // withhold_writes: false they would read, through the affected-row count, what the gate withholds.
    if (p_.engine == Engine::StarRocks && privs.has(Privilege::Select) && !access.privileges.has(Privilege::Select)) {
      PrivilegeSet predicate_writes;
      for (Privilege w : {Privilege::Update, Privilege::Delete}) {
        if (access.privileges.has(w)) predicate_writes.add(w);
      }
      if (!predicate_writes.empty()) {
        access.privileges.remove(predicate_writes);
        reasons.push_back(join_words(predicate_writes.names()) +
                          " withheld: SELECT is withheld, and StarRocks checks no SELECT for their WHERE, which "
                          "would read what it withholds");
      }
    }
    if (creation_restricted && access.privileges.has(Privilege::Ownership)) {
      access.privileges.remove(Privilege::Ownership);
      reasons.push_back(
          "OWNERSHIP withheld: not cleared for every gated tag of the profile, and with it they could "
          "drop the object and create a materialized view under its name "
          "(restrict_materialized_views)");
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

  // On Trino a view queried by anyone but its owner reads its base objects as the owner, and
  // Trino asks for GRANT_SELECT there (checkCanCreateViewWithSelectFromColumns): without it a
  // DEFINER view, or a materialized view, is refused to everybody else. Owners of the listed
  // views that read an object are indexed here, per object they read. An INVOKER view among the
  // bases is read under the same identity and check (StatementAnalyzer.analyzeView keeps both for
  // a view without owner), so what it reads is read as the owner too: without GRANT_SELECT there a
  // DEFINER view over an INVOKER view was refused to everybody but its owner.
  void index_view_owners() {
    if (p_.engine != Engine::Trino) return;
    for (const auto& o : s_.objects) {
      if (o.kind == ObjectKind::Table || !o.owner) continue;
      if (o.view_security == ViewSecurity::Invoker) continue;  // read as the querying user
      const std::size_t owner = m_.user_index.at(*o.owner);
      std::vector<std::size_t> todo;
      std::set<std::size_t> seen;
      for (const auto& base : o.depends_on) todo.push_back(m_.object_index.at(base));
      while (!todo.empty()) {
        const std::size_t base = todo.back();
        todo.pop_back();
        if (!seen.insert(base).second) continue;
        view_owners_[base].push_back(owner);
        const Object& b = s_.objects[base];
        if (b.kind != ObjectKind::View || b.view_security != ViewSecurity::Invoker) continue;
        for (const auto& next : b.depends_on) todo.push_back(m_.object_index.at(next));
      }
    }
    for (auto& [object, owners] : view_owners_) {
      std::sort(owners.begin(), owners.end());
      owners.erase(std::unique(owners.begin(), owners.end()), owners.end());
    }
  }

  const std::vector<std::size_t>& view_owners_of(std::size_t object) const {
    static const std::vector<std::size_t> none;
    const auto it = view_owners_.find(object);
    return it == view_owners_.end() ? none : it->second;
  }

  // Those owners, where they may read the object, may also let their views read it: their
  // classes are split off with grant_select. Nobody else gets it, so a view they did not
  // list in the snapshot cannot be used to pass data on.
  void mark_view_owners(const std::vector<std::size_t>& owners) {
    std::vector<AccessClass> classes;
    for (auto& cls : classes_) {
      std::vector<std::size_t> owning, others;
      if (cls.access.privileges.has(Privilege::Select)) {
        for (std::size_t u : *cls.users) {
          (std::binary_search(owners.begin(), owners.end(), u) ? owning : others).push_back(u);
        }
      }
      if (owning.empty()) {
        classes.push_back(std::move(cls));
        continue;
      }
      AccessClass granting{others.empty() ? cls.users : lists_.get(std::move(owning)), cls.granted, cls.access,
                           cls.reasons};
      granting.access.grant_select = true;
      if (!others.empty()) classes.push_back({lists_.get(std::move(others)), cls.granted, cls.access, cls.reasons});
      classes.push_back(std::move(granting));
    }
    classes_ = std::move(classes);
  }

  // Trino checks SELECT on the columns a row filter reads as the identity the filter runs as,
  // the reader unless the rule names another: a reader refused such a column (a deny, or a
  // column tag they are not cleared for) was refused the whole object. Their filter runs as
  // the object's owner instead, who is checked by the same rules: an owner refused the column
  // too leaves the object refused, as before. The reader still cannot select the column.
  // Where nobody may run it (no owner, or an owner refused the column too), Trino refuses the
  // reader every query of the object: the reason says so, for explain (MODEL takes only the column).
  void evaluate_filters_as_owner(ObjectPolicy& op) {
    const auto& owner = s_.objects[op.object].owner;
    std::optional<std::size_t> owner_user;
    if (owner) {
      if (const auto it = m_.user_index.find(*owner); it != m_.user_index.end()) owner_user = it->second;
    }
    std::vector<std::pair<AccessClass*, std::string>> refused;  // class, the refused column its filter reads
    for (auto& cls : classes_) {
      if (auto c = refused_filter_column(cls.access)) refused.emplace_back(&cls, std::move(*c));
    }
    for (auto& [cls, c] : refused) {
      if (owner_user) {
        cls->access.filter_as = *owner_user;
        cls->reasons.push_back("row filter evaluated as the owner " + *owner + ": it reads the refused column " + c);
      }
      if (!owner_user || !reads_column(classes_, *owner_user, c)) {
        cls->reasons.push_back(
            std::string(kFilterRefusesObject) + ": its row filter reads the column " + c + " they may not read, and " +
            (owner_user ? "the owner " + *owner + " may not read it either" : std::string("the object has no owner")) +
            " to run the filter as");
      }
    }
  }

  // Access policies depend on each user's attributes and roles: judge them once per policy key
  // and object, then regroup the class by outcome. Objects no policy reaches skip this.
  void apply_policies(ObjectPolicy& op, AccessClass cls) {
    const auto& users = *cls.users;
    const PolicyGroups& groups = judgements_->groups_of(cls.users);
    if (groups.keys.empty() || judgements_->judged(op, groups.keys.front(), groups.first.front()).empty()) {
      classes_.push_back(std::move(cls));
      return;
    }
    std::map<std::pair<Access, std::vector<std::string>>, std::vector<std::size_t>> outcomes;
    std::vector<std::vector<std::size_t>*> outcome_of_group;
    std::vector<std::vector<std::string>> unsatisfiable_of_group(groups.keys.size());  // policies: no rows
    bool any_unsatisfiable = false;
    for (std::size_t i = 0; i < groups.keys.size(); ++i) {
      const std::vector<PolicyDecision>& decisions = judgements_->judged(op, groups.keys[i], groups.first[i]);
      for (const auto& d : decisions) {
        if (!d.applies || !d.unsatisfiable) continue;
        unsatisfiable_of_group[i].push_back(d.policy);
        any_unsatisfiable = true;
      }
      UserAccess ua{groups.first[i], cls.access, cls.granted, cls.reasons};
      apply_policy_decisions(decisions, op, ua);
      outcome_of_group.push_back(&outcomes[{std::move(ua.access), std::move(ua.reasons)}]);
    }
    const bool split = outcomes.size() > 1;
    // How the class splits depends only on its list and which outcome each policy group takes:
    // objects that split one list alike (a mask for a role on every table of a schema) share the
    // lists, dealt once.
    std::vector<UserListPtr>* lists = nullptr;
    bool dealt = false;
    if (split) {
      std::map<const std::vector<std::size_t>*, std::size_t> position;
      for (auto& [outcome, members] : outcomes) position.emplace(&members, position.size());
      SplitKey key{cls.users, {}};
      key.outcome_of_group.reserve(outcome_of_group.size());
      for (const auto* members : outcome_of_group) key.outcome_of_group.push_back(position.at(members));
      auto [it, fresh] = splits_.try_emplace(std::move(key));
      lists = &it->second;
      dealt = !fresh;
    }
    if ((split && !dealt) || any_unsatisfiable) {
      // One pass over the class in its order, which is sorted: each outcome's users come out
      // sorted, with no sort of lists as long as the class (20,000 users at L).
      judgements_->deal(groups, users, [&](std::size_t u, std::size_t group) {
        if (split && !dealt) outcome_of_group[group]->push_back(u);
        for (const auto& policy : unsatisfiable_of_group[group]) object_unsatisfiable_[policy].insert(s_.users[u].name);
      });
      if (split && !dealt) {
        for (auto& [outcome, members] : outcomes) lists->push_back(lists_.get(members));
      }
    }
    std::size_t i = 0;
    for (auto& [outcome, members] : outcomes) {
      auto shared = split ? (*lists)[i++] : cls.users;
      classes_.push_back({std::move(shared), cls.granted, outcome.first, outcome.second});
    }
  }

  void build_unlisted(PolicySet& ps) {
    if (previous_ && previous_->context == memo_->context && previous_->grants == memo_->grants &&
        previous_->create_restricted == ps.create_restricted) {
      ps.unlisted = previous_->unlisted;
    } else {
      // Trino checks one privilege, OWNERSHIP of the new name, for CREATE TABLE, VIEW and
      // MATERIALIZED VIEW: withholding materialized views there withholds OWNERSHIP of unlisted
      // names. StarRocks checks CREATE TABLE, CREATE VIEW and CREATE MATERIALIZED VIEW separately:
      // OWNERSHIP stays and the renderer withholds only CREATE MATERIALIZED VIEW from
      // create_restricted (MODEL §2 restricts materialized views, nothing else).
      const std::vector<bool> no_one(s_.users.size(), false);
      ps.unlisted = unlisted_rules(grants_, s_.users.size(), p_.engine == Engine::Trino ? restricted_ : no_one);
    }
    memo_->create_restricted = ps.create_restricted;
    memo_->unlisted = ps.unlisted;
  }

  const Model& m_;
  const Profile& p_;
  const Snapshot& s_;
  // Platform catalog (folded as the engine folds names) -> engine catalog. Matching on
  // folded names keeps an object from falling outside its profile, and so to broad rules.
  std::map<std::string, std::string> catalog_names_;
  std::vector<EngineGrant> grants_;
  std::unordered_map<std::string, std::vector<std::size_t>> grant_index_;  // pattern -> grants_ indices, in order
  mutable std::string key_scratch_;  // covering_grants' lookup key, kept for its buffer
  UserLists lists_;                  // every access class's user list, once per content
  UserPartitions partitions_{m_, grants_, lists_};
  const PolicyKeys* policy_keys_ = nullptr;     // the model's, shared by every profile
  std::optional<PolicyJudgements> judgements_;  // once the policy keys are known
  std::vector<AccessClass> classes_;            // the object being decided: its classes until they are sorted
  struct SplitKey {
    UserListPtr users;  // held, so its address is this list's while the key lives
    std::vector<std::size_t> outcome_of_group;
    auto operator<=>(const SplitKey&) const = default;
  };
  std::map<SplitKey, std::vector<UserListPtr>> splits_;  // a class's list -> its outcomes' lists, in outcome order
  std::vector<bool> restricted_;
  bool any_restricted_ = false;
  std::unordered_map<std::size_t, std::vector<std::size_t>> view_owners_;  // object -> owners of views reading it
  std::shared_ptr<CompileMemo> memo_;                                      ///< this compile's, left for the next
  std::map<std::string, std::set<std::string>> unsatisfiable_;             // policy -> users for whom it means no rows
  std::map<std::string, std::set<std::string>> object_unsatisfiable_;      // the same, for the object being decided
  const CompileMemo* previous_ = nullptr;
  static constexpr std::size_t kMisplacedBeforeIndex = 16;  // objects decided again before the digests are indexed
  std::vector<std::size_t> object_order_;                   // collect_objects' order, for the memo
};

}  // namespace

ProfileCompile compile_profile(const Model& model, const Profile& profile, const CompileMemo* previous) {
  return ProfileCompiler(model, profile).reuse(previous).run();
}

}  // namespace tw

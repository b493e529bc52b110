// PolicySet -> Plan: the roles, grants and masks tagwarden owns on a server.
// Roles are compact: one holder role per distinct set of users that share a
// grant, holding every grant that exactly that set shares; each user holds one
// role (an atom role inheriting the holder roles its users need, or the one
// holder role they need). Role and policy names are derived from what they
// hold or who holds them, so the same PolicySet gives the same names.

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <numeric>
#include <stdexcept>
#include <unordered_map>

#include "tagwarden/engines/registry.h"
#include "tagwarden/engines/starrocks/plan.h"
#include "tagwarden/engines/starrocks/sql.h"
#include "tagwarden/util/text.h"

namespace tw::starrocks {

const char* to_string(Dialect d) { return d == Dialect::StarRocks ? "starrocks" : "mysql"; }

std::optional<Dialect> parse_dialect(std::string_view text) {
  if (text == "starrocks") return Dialect::StarRocks;
  if (text == "mysql" || text == "mariadb") return Dialect::MySQL;
  return std::nullopt;
}

const char* to_string(Phase p) {
  switch (p) {
    case Phase::Prepare:
      return "prepare";
    case Phase::Tighten:
      return "tighten";
    case Phase::Widen:
      return "widen";
    case Phase::Cleanup:
      return "cleanup";
  }
  return "?";
}

std::string Securable::str() const {
  std::string out = catalog;
  if (!database.empty()) out += "." + database;
  if (!name.empty()) out += "." + name;
  return out;
}

Capabilities compile_time_capabilities(std::string_view masking) {
  const bool on = masking == "on";
  return {on, on};
}

const Plan::Holding* Plan::holding(const std::string& user, const Securable& object) const {
  auto o = access.find(object);
  if (o == access.end()) return nullptr;
  for (std::size_t i = 0; i < user_names.size(); ++i) {
    if (user_names[i] != user) continue;
    for (const auto& h : o->second) {
      if (std::binary_search(h.users->begin(), h.users->end(), i)) return &h;
    }
  }
  return nullptr;
}

std::map<std::string, std::map<Securable, std::set<std::string>>> Plan::intended() const {
  std::map<std::string, std::map<Securable, std::set<std::string>>> out;
  for (const auto& [object, holdings] : access) {
    for (const auto& h : holdings) {
      if (h.privileges.empty()) continue;
      for (auto u : *h.users) out[user_names[u]][object] = h.privileges;
    }
  }
  return out;
}

std::string owner_prefix(std::string_view profile) {
  return "tw_" + sha256_hex("tagwarden-profile\n" + std::string(profile)).substr(0, 8) + "_";
}

// What one render computed per combination of user lists, with the lists it was computed for:
// holding them keeps their addresses from being reused by other lists while the entry lives, so
// an address found again is the same list, with the same users.
struct RenderCache::State {
  using List = std::vector<std::size_t>;
  using Key = std::vector<const void*>;  ///< list addresses, sorted, no repeats
  struct Union {
    std::vector<std::shared_ptr<const List>> lists;
    std::shared_ptr<const List> users;  ///< their union, sorted; depends on the indices only
  };
  struct Count {
    std::vector<std::shared_ptr<const List>> lists;
    std::size_t count = 0;
    std::string some;
  };
  struct Name {
    std::shared_ptr<const List> users;
    std::string hash;  ///< hash16 of the users' engine names, sorted
  };
  std::vector<std::string> users;  ///< the engine names `counts` and `names` were written for
  std::map<Key, Union> unions;
  std::map<Key, Count> counts;
  std::map<const void*, Name> names;
};

RenderCache::RenderCache() = default;
RenderCache::~RenderCache() = default;

namespace {

constexpr std::size_t kRolesPerUser = 64;

std::string hash16(const std::vector<std::string>& parts) {
  std::string joined;
  for (const auto& p : parts) {
    joined += p;
    joined += '\0';
  }
  return sha256_hex(joined).substr(0, 16);
}

Securable object_securable(const ObjectPolicy& op, Dialect d) {
  Securable s;
  s.catalog = op.engine_name.catalog;
  s.database = op.engine_name.schema;
  s.name = op.engine_name.table;
  if (d == Dialect::StarRocks) {
    if (op.kind == ObjectKind::View) s.kind = Securable::Kind::View;
    if (op.kind == ObjectKind::MaterializedView) s.kind = Securable::Kind::MaterializedView;
  }
  return s;
}

// The engine privileges that carry a PolicySet privilege set on one object.
// OWNERSHIP has no equivalent on an existing object: ALTER and DROP (and
// REFRESH on materialized views) carry it. StarRocks views and materialized
// views take no INSERT, UPDATE or DELETE, so those are not granted there.
std::set<std::string> engine_privileges(PrivilegeSet p, Securable::Kind kind) {
  std::set<std::string> out;
  const bool writable = kind == Securable::Kind::Table;
  if (p.has(Privilege::Select)) out.insert("SELECT");
  if (writable && p.has(Privilege::Insert)) out.insert("INSERT");
  if (writable && p.has(Privilege::Update)) out.insert("UPDATE");
  if (writable && p.has(Privilege::Delete)) out.insert("DELETE");
  if (p.has(Privilege::Ownership)) {
    out.insert("ALTER");
    out.insert("DROP");
    if (kind == Securable::Kind::MaterializedView) out.insert("REFRESH");
  }
  return out;
}

std::vector<std::string> creation_privileges(Dialect d) {
  if (d == Dialect::MySQL) return {"CREATE", "CREATE VIEW"};
  return {"CREATE TABLE", "CREATE VIEW", "CREATE MATERIALIZED VIEW"};
}

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

// Why one class cannot keep SELECT on this server (coarsened), or "" when it can.
// columns/policies receive what makes it coarsen, for the findings.
struct Coarsening {
  std::string reason;
  std::vector<std::string> columns;  // gated, denied or masked columns that cannot be masked here
  bool policies = false;             // access-policy masks or row filter
  bool gates = false;                // clearance-gated (or denied) columns
};

bool renderable_filter(const ObjectPolicy& op, const std::string& canonical_filter) {
  const auto cond = nlohmann::json::parse(canonical_filter, nullptr, false);
  if (cond.is_discarded()) return false;
  std::map<std::string, std::string> args;
  for (const auto& c : sql::filter_columns(cond)) {
    auto it = std::find(op.columns.begin(), op.columns.end(), c);
    if (it == op.columns.end()) return false;
    const auto i = static_cast<std::size_t>(it - op.columns.begin());
    if (i >= op.column_types.size() || sql::mask_type(op.column_types[i]).empty()) return false;
    args[c] = "a";
  }
  return sql::filter_expression(cond, args).has_value();
}

// The SQL type of each snapshot type, or "" (sql::mask_type), computed once per distinct type.
class TypeCache {
 public:
  const std::string& operator()(const std::string& snapshot_type) {
    auto it = types_.find(snapshot_type);
    if (it == types_.end()) it = types_.emplace(snapshot_type, sql::mask_type(snapshot_type)).first;
    return it->second;
  }

 private:
  std::unordered_map<std::string, std::string> types_;
};

std::string column_type(const ObjectPolicy& op, const std::string& column, TypeCache& types) {
  auto it = std::find(op.columns.begin(), op.columns.end(), column);
  if (it == op.columns.end()) return "";
  const auto i = static_cast<std::size_t>(it - op.columns.begin());
  return i < op.column_types.size() ? types(op.column_types[i]) : "";
}

bool gated_column(const ObjectPolicy& op, const std::string& column) {
  return std::any_of(op.column_gates.begin(), op.column_gates.end(), [&](const auto& g) { return g.first == column; });
}

Coarsening coarsening(const ObjectPolicy& op, const AccessClass& cls, const Capabilities& caps, TypeCache& types) {
  Coarsening out;
  const Access& a = cls.access;
  if (!a.privileges.has(Privilege::Select)) return out;
  std::vector<std::string> unmaskable;
  bool denied_gate = false, denied_policy = false;
  for (const auto& c : a.denied_columns) {
    (gated_column(op, c) ? denied_gate : denied_policy) = true;
    if (!caps.masking_policies || column_type(op, c, types).empty()) unmaskable.push_back(c);
  }
  bool masks = false;
  for (const auto& m : a.masks) {
    masks = true;
    if (!caps.masking_policies || column_type(op, m.column, types).empty()) unmaskable.push_back(m.column);
  }
  const bool filter = !a.row_filter.empty();
  const bool filter_ok = !filter || (caps.row_access_policies && renderable_filter(op, a.row_filter));
  if (unmaskable.empty() && filter_ok) return out;
  std::sort(unmaskable.begin(), unmaskable.end());
  unmaskable.erase(std::unique(unmaskable.begin(), unmaskable.end()), unmaskable.end());
  out.columns = unmaskable;
  out.gates = denied_gate && !unmaskable.empty();
  out.policies = masks || denied_policy || !filter_ok;
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
  return out;
}

class Renderer {
 public:
  Renderer(const PolicySet& ps, Plan& plan, RenderCache* cache)
      : ps_(ps), plan_(plan), d_(plan.dialect), cache_(cache) {
    if (!cache_) return;
    next_.users.reserve(ps.users.size());
    for (const auto& u : ps.users) next_.users.push_back(u.engine_name);
    previous_ = std::move(cache_->state);
    same_names_ = previous_ && previous_->users == next_.users;
  }

  // The cache keeps only what this render used, so it does not grow with every change.
  ~Renderer() {
    if (cache_) cache_->state = std::make_unique<RenderCache::State>(std::move(next_));
  }

  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;

  void run() {
    rank_users();
    plan_.user_names.reserve(ps_.users.size());
    for (const auto& u : ps_.users) plan_.user_names.push_back(u.engine_name);
    plan_.users.reserve(ps_.users.size());
    for (auto u : by_name_) plan_.users.push_back(ps_.users[u].engine_name);
    plan_.objects.reserve(ps_.objects.size());
    for (const auto& op : ps_.objects) {
      plan_.objects.push_back(object_securable(op, d_));
      object(op, plan_.objects.back());
    }
    std::sort(plan_.objects.begin(), plan_.objects.end());
    creation();
    catalog_usage();
    roles();
    findings();
  }

 private:
  using List = std::vector<std::size_t>;
  using ListPtr = std::shared_ptr<const List>;
  using Lists = std::vector<ListPtr>;
  using Rank = std::uint32_t;

  // Users are compared by engine name through their rank: equal names share a rank and ranks
  // order as the names do, so sorting ranks sorts names (duplicates included) without a string
  // compare, and a set of ranks is a set of names.
  void rank_users() {
    by_name_.resize(ps_.users.size());
    std::iota(by_name_.begin(), by_name_.end(), std::size_t{0});
    std::sort(by_name_.begin(), by_name_.end(),
              [&](std::size_t a, std::size_t b) { return ps_.users[a].engine_name < ps_.users[b].engine_name; });
    rank_.resize(ps_.users.size());
    for (auto u : by_name_) {
      if (ranked_.empty() || *ranked_.back() != ps_.users[u].engine_name) ranked_.push_back(&ps_.users[u].engine_name);
      rank_[u] = static_cast<Rank>(ranked_.size() - 1);
    }
    seen_.assign(ranked_.size(), 0);
  }

  // The ranks of some users, sorted (duplicates kept).
  std::vector<Rank> ranks(const List& users) const {
    std::vector<Rank> out;
    out.reserve(users.size());
    for (auto u : users) out.push_back(rank_[u]);
    std::sort(out.begin(), out.end());
    return out;
  }

  std::vector<std::string> names_of(const std::vector<Rank>& sorted_ranks) const {
    std::vector<std::string> out;
    out.reserve(sorted_ranks.size());
    for (auto r : sorted_ranks) out.push_back(*ranked_[r]);
    return out;
  }

  // Engine names of some users, sorted (duplicates kept).
  std::vector<std::string> names(const List& users) const { return names_of(ranks(users)); }

  // A set of users (PolicySet indices, sorted), interned: the same set is one id.
  std::size_t intern(ListPtr users) {
    if (auto known = ids_by_address_.find(users.get()); known != ids_by_address_.end()) return known->second;
    const List* address = users.get();
    auto [it, inserted] = set_ids_.try_emplace(address, sets_.size());
    if (inserted) {  // kept alive by sets_, so the address stays this list's for the whole render
      sets_.push_back(std::move(users));
      ids_by_address_.emplace(address, it->second);
    }
    return it->second;
  }

  // Some lists by address without repeats, and the addresses: the key of a combination.
  static RenderCache::State::Key combination(Lists& lists) {
    std::sort(lists.begin(), lists.end(), [](const ListPtr& a, const ListPtr& b) { return a.get() < b.get(); });
    lists.erase(std::unique(lists.begin(), lists.end()), lists.end());
    RenderCache::State::Key key;
    key.reserve(lists.size());
    for (const auto& l : lists) key.push_back(l.get());
    return key;
  }

  // The union of some classes' user lists, computed once per distinct combination of lists (or
  // taken from the last render, which computed it for the same lists).
  std::size_t union_of(Lists lists) {
    auto key = combination(lists);
    auto it = combo_ids_.find(key);
    if (it != combo_ids_.end()) return it->second;
    ListPtr all;
    if (previous_) {
      if (auto p = previous_->unions.find(key); p != previous_->unions.end()) all = p->second.users;
    }
    if (!all) all = std::make_shared<const List>(merge(lists));
    const std::size_t id = intern(std::move(all));
    // The interned list: equal unions of other combinations are then one address in the next render too.
    if (cache_) next_.unions.try_emplace(key, RenderCache::State::Union{std::move(lists), sets_[id]});
    combo_ids_.emplace(std::move(key), id);
    return id;
  }

  // The users of some lists, sorted, without repeats: by marking users when the lists are long
  // against the number of users, else by sorting.
  List merge(const Lists& lists) {
    std::size_t total = 0;
    for (const auto& l : lists) total += l->size();
    List users;
    if (total * 8 >= ps_.users.size()) {
      marks_.assign(ps_.users.size(), 0);
      for (const auto& l : lists) {
        for (auto u : *l) marks_[u] = 1;
      }
      users.reserve(std::min(total, ps_.users.size()));
      for (std::size_t u = 0; u < marks_.size(); ++u) {
        if (marks_[u]) users.push_back(u);
      }
      return users;
    }
    users.reserve(total);
    for (const auto& l : lists) users.insert(users.end(), l->begin(), l->end());
    std::sort(users.begin(), users.end());
    users.erase(std::unique(users.begin(), users.end()), users.end());
    return users;
  }

  // hash16 of the engine names of a set of users (sorted), or as the last render wrote it for the same
  // list under the same names.
  std::string names_hash(const ListPtr& users) {
    std::string hash;
    bool found = false;
    if (previous_ && same_names_) {
      if (auto p = previous_->names.find(users.get()); p != previous_->names.end()) {
        hash = p->second.hash;
        found = true;
      }
    }
    if (!found) hash = hash16(names(*users));
    if (cache_) next_.names.try_emplace(users.get(), RenderCache::State::Name{users, hash});
    return hash;
  }

  // "N user(s) (a, b and N more)" parts for the users of some lists, by distinct engine name:
  // computed once per distinct combination of lists, without materializing the names.
  struct UserCount {
    std::size_t count = 0;
    std::string some;  // join_some of the sorted distinct names
  };
  const UserCount& user_count(Lists lists) {
    auto key = combination(lists);
    auto it = counts_.find(key);
    if (it != counts_.end()) return it->second;
    if (previous_ && same_names_) {
      if (auto p = previous_->counts.find(key); p != previous_->counts.end()) {
        UserCount c{p->second.count, p->second.some};
        return remember_count(std::move(key), std::move(lists), std::move(c));
      }
    }
    if (++epoch_ == 0) {  // wrapped: clear the marks
      std::fill(seen_.begin(), seen_.end(), 0);
      epoch_ = 1;
    }
    std::vector<Rank> distinct;
    for (const auto& l : lists) {
      for (auto u : *l) {
        const Rank r = rank_[u];
        if (seen_[r] != epoch_) {
          seen_[r] = epoch_;
          distinct.push_back(r);
        }
      }
    }
    constexpr std::size_t kNamed = 20;  // join_some's default limit
    UserCount c;
    c.count = distinct.size();
    const std::size_t named = std::min(kNamed, distinct.size());
    std::partial_sort(distinct.begin(), distinct.begin() + static_cast<std::ptrdiff_t>(named), distinct.end());
    distinct.resize(named);
    std::vector<std::string> words = names_of(distinct);
    if (c.count > kNamed) words.push_back(std::to_string(c.count - kNamed) + " more");
    c.some = join_words(words);
    return remember_count(std::move(key), std::move(lists), std::move(c));
  }

  const UserCount& remember_count(RenderCache::State::Key key, Lists lists, UserCount c) {
    if (cache_) next_.counts.try_emplace(key, RenderCache::State::Count{std::move(lists), c.count, c.some});
    return counts_.emplace(std::move(key), std::move(c)).first->second;
  }

  // Policy cases while they are built: users as ranks.
  struct RankCase {
    std::string expression;
    std::vector<Rank> users;
  };

  static void add_case(std::vector<RankCase>& cases, std::string expression, const std::vector<Rank>& users) {
    auto it = std::find_if(cases.begin(), cases.end(), [&](const RankCase& c) { return c.expression == expression; });
    if (it == cases.end()) {
      cases.push_back({std::move(expression), users});
    } else {
      it->users.insert(it->users.end(), users.begin(), users.end());
    }
  }

  std::vector<PolicyCase> finish_cases(std::vector<RankCase>& cases) const {
    std::sort(cases.begin(), cases.end(),
              [](const RankCase& a, const RankCase& b) { return a.expression < b.expression; });
    std::vector<PolicyCase> out;
    out.reserve(cases.size());
    for (auto& c : cases) {
      std::sort(c.users.begin(), c.users.end());
      out.push_back({std::move(c.expression), names_of(c.users)});
    }
    return out;
  }

  void object(const ObjectPolicy& op, const Securable& obj) {
    const Capabilities& caps = plan_.capabilities;
    std::map<std::string, Lists> holders;     // privilege -> class lists
    std::vector<const AccessClass*> readers;  // classes keeping SELECT
    auto& holdings = plan_.access[obj];
    holdings.reserve(op.classes.size());
    for (const auto& cls : op.classes) {
      PrivilegeSet p = cls.access.privileges;
      const Coarsening c = coarsening(op, cls, caps, types_);
      std::string withheld;
      if (c.reason.empty()) {
        withheld = join_words(cls.reasons);
      } else {
        p.remove(Privilege::Select);
        std::vector<std::string> reasons = cls.reasons;
        reasons.push_back(c.reason);
        withheld = join_words(reasons);
        if (c.gates) {
          auto& g = coarsened_[obj];
          g.columns.insert(c.columns.begin(), c.columns.end());
          g.lists.push_back(cls.users);
        }
        if (c.policies) {
          auto& g = policy_coarsened_[obj];
          g.columns.insert(c.columns.begin(), c.columns.end());
          g.lists.push_back(cls.users);
          if (!cls.access.row_filter.empty()) g.filter = true;
        }
      }
      std::set<std::string> privs = engine_privileges(p, obj.kind);
      for (const auto& pr : privs) holders[pr].push_back(cls.users);
      if (p.has(Privilege::Select)) readers.push_back(&cls);
      holdings.push_back({cls.users, std::move(privs), std::move(withheld)});
    }
    for (auto& [pr, lists] : holders) items_[{obj, pr}] = union_of(std::move(lists));
    if (caps.masking_policies || caps.row_access_policies) {
      std::vector<std::vector<Rank>> reader_ranks;  // per reader, its users' ranks (sorted)
      reader_ranks.reserve(readers.size());
      for (const AccessClass* cls : readers) reader_ranks.push_back(ranks(*cls->users));
      if (caps.masking_policies) masks(op, obj, readers, reader_ranks);
      if (caps.row_access_policies) row_policy(op, obj, readers, reader_ranks);
    }
  }

  // One masking policy per column that is gated, denied or masked for anyone: the value for the
  // readers who may see it, their effective mask for the masked, NULL for everyone else.
  void masks(const ObjectPolicy& op, const Securable& obj, const std::vector<const AccessClass*>& readers,
             const std::vector<std::vector<Rank>>& reader_ranks) {
    std::set<std::string> columns;
    for (const auto& [col, tags] : op.column_gates) columns.insert(col);
    for (const auto& cls : op.classes) {
      columns.insert(cls.access.denied_columns.begin(), cls.access.denied_columns.end());
      for (const auto& m : cls.access.masks) columns.insert(m.column);
    }
    const std::string arg = sql::ident("tw_value");
    for (const auto& col : columns) {
      const std::string type = column_type(op, col, types_);
      if (type.empty()) {
        if (gated_column(op, col)) unmaskable_[obj].insert(col);
        continue;
      }
      std::vector<Rank> cleared;
      std::vector<RankCase> masked;
      for (std::size_t i = 0; i < readers.size(); ++i) {
        const AccessClass* cls = readers[i];
        const auto& denied = cls->access.denied_columns;
        if (std::find(denied.begin(), denied.end(), col) != denied.end()) continue;
        const auto& users = reader_ranks[i];
        auto mk = std::find_if(cls->access.masks.begin(), cls->access.masks.end(),
                               [&](const ColumnMask& x) { return x.column == col; });
        if (mk == cls->access.masks.end()) {
          cleared.insert(cleared.end(), users.begin(), users.end());
        } else {
          add_case(masked, sql::mask_expression(mk->kind, mk->visible_chars, arg, type), users);
        }
      }
      std::sort(cleared.begin(), cleared.end());
      MaskPolicy m{"", obj, col, type, names_of(cleared), finish_cases(masked)};
      const std::string body = sql::mask_body(arg, type, m.cleared, m.masked);
      m.name = plan_.prefix + "m" + hash16({obj.catalog, obj.database, obj.name, col, type, body});
      plan_.desired.attachments[{obj, col}] = m.name;
      plan_.desired.masks[m.name] = std::move(m);
    }
  }

  // One row access policy per object whose readers have a row filter: each class's ANDed filter
  // (TRUE for readers without one), FALSE for everyone else.
  void row_policy(const ObjectPolicy& op, const Securable& obj, const std::vector<const AccessClass*>& readers,
                  const std::vector<std::vector<Rank>>& reader_ranks) {
    std::set<std::string> columns;
    bool any = false;
    std::vector<nlohmann::json> parsed;
    parsed.reserve(readers.size());
    for (const AccessClass* cls : readers) {
      if (cls->access.row_filter.empty()) {
        parsed.push_back(nlohmann::json{{"true", true}});
        continue;
      }
      any = true;
      parsed.push_back(nlohmann::json::parse(cls->access.row_filter));
      auto cols = sql::filter_columns(parsed.back());
      columns.insert(cols.begin(), cols.end());
    }
    if (!any) return;
    RowPolicy p{"", obj, {}, {}};
    if (columns.empty()) {  // the grammar needs one argument: the first column that can be typed
      for (const auto& c : op.columns) {
        if (!column_type(op, c, types_).empty()) {
          columns.insert(c);
          break;
        }
      }
    }
    std::map<std::string, std::string> args;
    for (const auto& c : columns) {
      args[c] = sql::row_argument(p.columns.size());
      p.columns.emplace_back(c, column_type(op, c, types_));
    }
    std::vector<RankCase> cases;
    for (std::size_t i = 0; i < readers.size(); ++i) {
      auto e = sql::filter_expression(parsed[i], args);
      // coarsening() already withdrew SELECT from every class whose filter cannot be rendered
      add_case(cases, e ? std::move(*e) : std::string("FALSE"), reader_ranks[i]);
    }
    p.cases = finish_cases(cases);
    std::vector<std::string> parts = {obj.catalog, obj.database, obj.name};
    for (const auto& [c, t] : p.columns) {
      parts.push_back(c);
      parts.push_back(t);
    }
    parts.push_back(sql::create_row_policy(p));
    p.name = plan_.prefix + "p" + hash16(parts);
    plan_.desired.row_attachments[obj].insert(p.name);
    plan_.desired.row_policies[p.name] = std::move(p);
  }

  // Unlisted names: OWNERSHIP of the names a database may hold means the
  // right to create tables, views and materialized views in it.
  void creation() {
    std::map<std::string, std::set<std::string>> databases;
    for (const auto& op : ps_.objects) databases[op.engine_name.catalog].insert(op.engine_name.schema);
    for (const auto& rule : ps_.unlisted) {
      if (rule.pattern.schema != "*") databases[rule.pattern.catalog].insert(rule.pattern.schema);
    }
    const std::set<std::size_t> restricted(ps_.create_restricted.begin(), ps_.create_restricted.end());
    std::map<const UnlistedRule*, std::optional<std::size_t>> creators;  // rule -> interned users
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
          List users;
          for (const auto& [u, privs] : rule->access) {
            if (privs.has(Privilege::Ownership) && !restricted.count(u)) users.push_back(u);
          }
          std::sort(users.begin(), users.end());
          if (!users.empty()) it->second = intern(std::make_shared<const List>(std::move(users)));
        }
        if (!it->second) continue;
        const Securable on{Securable::Kind::Database, catalog, db, ""};
        for (const auto& pr : creation_privileges(d_)) items_[{on, pr}] = *it->second;
      }
    }
  }

  // Tables of an external catalog are reachable only with USAGE on the catalog.
  void catalog_usage() {
    if (d_ != Dialect::StarRocks) return;
    std::map<std::string, Lists> sets;
    for (const auto& [key, id] : items_) {
      if (key.first.catalog != kInternalCatalog) sets[key.first.catalog].push_back(sets_[id]);
    }
    for (auto& [catalog, lists] : sets) {
      items_[{Securable{Securable::Kind::Catalog, catalog, "", ""}, "USAGE"}] = union_of(std::move(lists));
    }
  }

  // One role per distinct holder set (its grants); then the users are partitioned into atoms (users
  // holding exactly the same holder roles). Each user holds one owned role: its atom's role, which
  // inherits the holder roles (depth 2), or the holder role itself when the atom has only one.
  void roles() {
    std::map<std::size_t, std::map<Securable, std::set<std::string>>> by_holders;
    for (auto& [key, id] : items_) {
      if (!sets_[id]->empty()) by_holders[id][key.first].insert(key.second);
    }
    items_.clear();
    // Holder roles by name; a user's holder roles are kept as ranks of their names (equal names,
    // equal ranks), so comparing rank lists compares the name lists.
    std::vector<std::string> holder_names;
    holder_names.reserve(by_holders.size());
    for (auto& [id, grants] : by_holders) {
      holder_names.push_back(plan_.prefix + "r" + names_hash(sets_[id]));
      plan_.desired.roles[holder_names.back()].grants = std::move(grants);
    }
    std::vector<std::uint32_t> by_name(holder_names.size());
    std::iota(by_name.begin(), by_name.end(), 0u);
    std::sort(by_name.begin(), by_name.end(),
              [&](std::uint32_t a, std::uint32_t b) { return holder_names[a] < holder_names[b]; });
    std::vector<std::uint32_t> holder_rank(holder_names.size());
    std::vector<const std::string*> ranked;  // holder role name by rank
    for (auto h : by_name) {
      if (ranked.empty() || *ranked.back() != holder_names[h]) ranked.push_back(&holder_names[h]);
      holder_rank[h] = static_cast<std::uint32_t>(ranked.size() - 1);
    }
    // Holder roles in rank order, so that each user's ranks come sorted.
    std::vector<std::size_t> holder_ids;
    holder_ids.reserve(by_holders.size());
    for (const auto& [id, grants] : by_holders) holder_ids.push_back(id);
    by_holders.clear();
    std::vector<std::vector<std::uint32_t>> user_holders(ps_.users.size());
    for (auto h : by_name) {
      for (auto u : *sets_[holder_ids[h]]) user_holders[u].push_back(holder_rank[h]);
    }
    std::map<std::vector<std::uint32_t>, List> atoms;  // holder role name ranks, sorted -> users
    for (std::size_t u = 0; u < user_holders.size(); ++u) {
      auto& held = user_holders[u];
      if (!held.empty()) atoms[std::move(held)].push_back(u);
    }
    user_holders.clear();
    std::vector<Rank> crowded;
    std::size_t most = 0;
    for (const auto& [held, users] : atoms) {
      const std::vector<std::string> members = names(users);
      if (held.size() == 1) {
        plan_.desired.roles[*ranked[held.front()]].members.insert(members.begin(), members.end());
        continue;
      }
      auto& atom = plan_.desired.roles[plan_.prefix + "a" + hash16(members)];
      atom.members.insert(members.begin(), members.end());
      for (auto h : held) atom.roles.insert(atom.roles.end(), *ranked[h]);  // ranks are sorted
      // StarRocks counts a user's roles with every role they inherit (getAllPredecessors).
      const std::size_t total = held.size() + 1;
      most = std::max(most, total);
      if (total > kRolesPerUser) {
        for (auto u : users) crowded.push_back(rank_[u]);
      }
    }
    std::sort(crowded.begin(), crowded.end());
    if (d_ == Dialect::StarRocks && !crowded.empty()) {
      plan_.findings.push_back(
          {Severity::Warning, "starrocks_roles_per_user",
           std::to_string(crowded.size()) + " users hold a tagwarden role that inherits more than " +
               std::to_string(kRolesPerUser - 1) + " others (up to " + std::to_string(most) +
               " roles in all); StarRocks counts inherited roles against "
               "privilege_max_total_roles_per_user (default " +
               std::to_string(kRolesPerUser) + "), so raise it or their membership is refused (fail closed)",
           plan_.profile, names_of(crowded)});
    }
  }

  void findings() {
    const Capabilities& caps = plan_.capabilities;
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
      const UserCount& users = user_count(c.lists);
      plan_.findings.push_back({Severity::Warning, "starrocks_policy_coarsened",
                                name + " has access policies StarRocks cannot enforce here: " + join_words(what) +
                                    "; " + std::to_string(users.count) + " user" + (users.count == 1 ? "" : "s") +
                                    " (" + users.some + ") lose SELECT on the whole object instead; nothing is dropped",
                                plan_.profile, std::move(subjects)});
    }
    for (const auto& [obj, c] : coarsened_) {
      std::vector<std::string> cols(c.columns.begin(), c.columns.end());
      const std::string name = obj.str();
      std::vector<std::string> subjects = {name};
      for (const auto& col : cols) subjects.push_back(name + "." + col);
      const UserCount& users = user_count(c.lists);
      plan_.findings.push_back({Severity::Warning, "starrocks_gate_coarsened",
                                name + " has gated column" + (cols.size() == 1 ? " " : "s ") + join_words(cols) +
                                    " and this server cannot mask columns (masking policies " +
                                    (caps.masking_policies ? "cannot type them" : "not available") + "): " +
                                    std::to_string(users.count) + " uncleared user" + (users.count == 1 ? "" : "s") +
                                    " (" + users.some + ") lose SELECT on the whole object instead; nothing is dropped",
                                plan_.profile, std::move(subjects)});
    }
    for (const auto& [obj, cols] : unmaskable_) {
      std::vector<std::string> c(cols.begin(), cols.end());
      plan_.findings.push_back({Severity::Warning,
                                "starrocks_unmaskable_type",
                                "gated column" + std::string(c.size() == 1 ? " " : "s ") + join_words(c) + " of " +
                                    obj.str() +
                                    " have a type tagwarden cannot write into a masking policy: no policy is "
                                    "created for them and uncleared readers lose SELECT on the whole object",
                                plan_.profile,
                                {obj.str()}});
    }
  }

  // Objects whose classes lose SELECT: the columns concerned and the classes' user lists.
  struct Coarsened {
    std::set<std::string> columns;
    Lists lists;
    bool filter = false;  // a row filter is among the causes
  };

  const PolicySet& ps_;
  Plan& plan_;
  Dialect d_;
  RenderCache* cache_;
  std::unique_ptr<RenderCache::State> previous_;  // the last render's entries
  RenderCache::State next_;                       // what this render used, for the next one
  bool same_names_ = false;                       // previous_ was written for the same engine names
  std::vector<std::size_t> by_name_;              // user indices sorted by engine name
  std::vector<Rank> rank_;                        // user index -> rank of its engine name
  std::vector<const std::string*> ranked_;        // distinct engine names by rank
  std::vector<std::uint32_t> seen_;               // per rank: the epoch that last counted it (user_count)
  std::uint32_t epoch_ = 0;
  TypeCache types_;
  std::map<std::pair<Securable, std::string>, std::size_t> items_;  // (securable, privilege) -> user set id
  struct ByUsers {
    bool operator()(const List* a, const List* b) const { return *a < *b; }
  };
  std::map<const List*, std::size_t, ByUsers> set_ids_;  // into sets_
  std::vector<ListPtr> sets_;
  std::unordered_map<const List*, std::size_t> ids_by_address_;  // sets_ ids of lists already interned
  std::vector<char> marks_;                                      // per user, for merge()
  std::map<RenderCache::State::Key, std::size_t> combo_ids_;
  std::map<RenderCache::State::Key, UserCount> counts_;
  std::map<Securable, Coarsened> coarsened_;         // gated columns
  std::map<Securable, Coarsened> policy_coarsened_;  // access-policy masks, denied columns, row filters
  std::map<Securable, std::set<std::string>> unmaskable_;
};

}  // namespace

std::optional<CoarsenedRead> coarsened_read(const ObjectPolicy& op, const AccessClass& cls, const Capabilities& caps) {
  TypeCache types;
  Coarsening c = coarsening(op, cls, caps, types);
  if (c.reason.empty()) return std::nullopt;
  return CoarsenedRead{std::move(c.reason), std::move(c.columns)};
}

PlanRender render_plan(const PolicySet& ps, const PlanOptions& options, RenderCache* cache) {
  PlanRender out;
  check_names(ps, options.dialect, out.errors);
  if (!out.errors.empty()) return out;
  Plan plan;
  plan.profile = ps.profile;
  plan.dialect = options.dialect;
  plan.capabilities = options.capabilities;
  if (plan.dialect == Dialect::MySQL) plan.capabilities = {};
  plan.prefix = owner_prefix(ps.profile);
  try {
    Renderer(ps, plan, cache).run();
  } catch (const std::invalid_argument& e) {
    out.errors.push_back(e.what());
    return out;
  }
  out.plan = std::move(plan);
  return out;
}

}  // namespace tw::starrocks

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include "expressions.h"
#include "tagwarden/engines/trino/rules.h"

namespace tw::trino {
namespace {

using nlohmann::json;

json table_rule(const std::vector<std::string>& users, const QualifiedName& name, PrivilegeSet privileges,
                const std::vector<std::string>& denied_columns, const std::vector<ColumnMask>& masks = {},
                const std::string& row_filter = {}) {
  json rule = json::object();
  if (!users.empty()) rule["user"] = exact_alternation(users);
  rule["catalog"] = "^" + regex_literal(name.catalog) + "$";
  if (name.schema != "*") rule["schema"] = "^" + regex_literal(name.schema) + "$";
  if (name.table != "*") rule["table"] = "^" + regex_literal(name.table) + "$";
  rule["privileges"] = privileges.names();
  std::map<std::string, json> columns;
  for (const auto& c : denied_columns) columns[c] = {{"name", c}, {"allow", false}};
  for (const auto& m : masks) columns[m.column] = {{"name", m.column}, {"mask", mask_expression(m)}};
  if (!columns.empty()) {
    json cols = json::array();
    for (auto& [name, c] : columns) cols.push_back(std::move(c));
    rule["columns"] = cols;
  }
  if (!row_filter.empty()) rule["filter"] = filter_expression(row_filter);
  return rule;
}

// The most specific rule for unlisted names that matches a listed object, or nullptr.
const UnlistedRule* broad_rule(const PolicySet& ps, const QualifiedName& n) {
  for (const auto& rule : ps.unlisted) {
    const auto& p = rule.pattern;
    if (p.catalog == n.catalog && (p.schema == "*" || p.schema == n.schema) && (p.table == "*" || p.table == n.table)) {
      return &rule;
    }
  }
  return nullptr;
}

// True when the broad rules for unlisted names already give every user exactly
// the object's access, so the object needs no rules of its own. Objects whose
// classes only restate their grants share the answer with every object of the
// same partition under the same broad rule.
class BroadCoverage {
 public:
  explicit BroadCoverage(const PolicySet& ps) : ps_(ps) {}

  bool covers(const ObjectPolicy& op) {
    bool plain = true;
    for (const auto& cls : op.classes) {
      const Access& a = cls.access;
      if (!a.denied_columns.empty() || !a.masks.empty() || !a.row_filter.empty()) return false;
      if (a.privileges != cls.granted) plain = false;
    }
    const UnlistedRule* rule = broad_rule(ps_, op.engine_name);
    if (!plain) return compare(op, rule);
    Key key{rule, {}};
    for (const auto& cls : op.classes) key.second.emplace_back(cls.users.get(), cls.granted.bits());
    auto [it, fresh] = memo_.try_emplace(std::move(key), false);
    if (fresh) it->second = compare(op, rule);
    return it->second;
  }

 private:
  bool compare(const ObjectPolicy& op, const UnlistedRule* rule) const {
    std::vector<std::pair<std::size_t, PrivilegeSet>> intent;
    for (const auto& cls : op.classes) {
      if (cls.access.privileges.empty()) continue;
      for (std::size_t u : *cls.users) intent.emplace_back(u, cls.access.privileges);
    }
    std::sort(intent.begin(), intent.end());
    static const std::vector<std::pair<std::size_t, PrivilegeSet>> nobody;
    return intent == (rule ? rule->access : nobody);
  }

  using Key = std::pair<const UnlistedRule*, std::vector<std::pair<const void*, std::uint8_t>>>;
  const PolicySet& ps_;
  std::map<Key, bool> memo_;
};

// Below this many bytes of user names, every group is named: the document stays
// readable and each rule stands on its own. Above it, the largest group may be
// left to a last rule that names nobody, which is what keeps large documents small.
constexpr std::size_t kOpenEndedMinBytes = 1024;

}  // namespace

// An alternation as written, with the user lists it was written for: holding
// them keeps their addresses from being reused by other lists while the entry lives.
struct RenderCache::State {
  struct Entry {
    std::vector<std::shared_ptr<const std::vector<std::size_t>>> lists;
    std::shared_ptr<const std::string> literal;  ///< JSON string literal of the regex; absent: nobody
  };
  using Key = std::pair<int, std::vector<const void*>>;  ///< (kind, sorted list addresses)
  std::vector<std::string> users;                        ///< the engine names the entries were written for
  std::map<Key, Entry> entries;
};

RenderCache::RenderCache() = default;
RenderCache::~RenderCache() = default;

namespace {

// User alternations as JSON string literals, each computed once and named by
// an id, so that rules can be compared and written without copying them. With
// a RenderCache, alternations of user lists the previous render of the profile
// wrote are taken as they were; the cache then keeps what this render used.
class UserPatterns {
 public:
  static constexpr std::size_t kNobody = static_cast<std::size_t>(-1);  ///< no user field: matches every user

  UserPatterns(const PolicySet& ps, RenderCache* cache)
      : ps_(ps), rank_(ps.users.size()), order_(ps.users.size()), cache_(cache) {
    for (const auto& u : ps.users) all_bytes_ += u.engine_name.size() + 1;
    for (std::size_t u = 0; u < order_.size(); ++u) order_[u] = u;
    std::stable_sort(order_.begin(), order_.end(),
                     [&](std::size_t a, std::size_t b) { return ps.users[a].engine_name < ps.users[b].engine_name; });
    for (std::size_t i = 0; i < order_.size(); ++i) rank_[order_[i]] = i;
    if (cache_) {
      next_.users.reserve(ps.users.size());
      for (const auto& u : ps.users) next_.users.push_back(u.engine_name);
      if (cache_->state && cache_->state->users == next_.users) previous_ = std::move(cache_->state);
    }
  }

  // The cache keeps only what this render used, so it does not grow with every change.
  ~UserPatterns() {
    if (cache_) cache_->state = std::make_unique<RenderCache::State>(std::move(next_));
  }

  std::size_t of(const std::vector<const AccessClass*>& classes) {
    return pattern(kOf, classes, [&] { return literal_of(exact_alternation_sorted(names(classes))); });
  }

  /// Every known user outside the given classes; kNobody when there is none.
  std::size_t complement(const std::vector<const AccessClass*>& classes) {
    return pattern(kComplement, classes, [&] { return compute_complement(classes); });
  }

  /// The length the names of these classes add to an alternation.
  std::size_t bytes(const std::vector<const AccessClass*>& classes) {
    std::size_t n = 0;
    for (const auto* cls : classes) {
      auto [it, fresh] = bytes_.try_emplace(cls->users.get(), 0);
      if (fresh) {
        for (std::size_t u : *cls->users) it->second += ps_.users[u].engine_name.size() + 1;
      }
      n += it->second;
    }
    return n;
  }

  std::size_t all_bytes() const { return all_bytes_; }
  const std::string& literal(std::size_t id) const { return *literals_[id]; }

 private:
  static constexpr int kOf = 0;
  static constexpr int kComplement = 1;

  template <typename Make>
  std::size_t pattern(int kind, const std::vector<const AccessClass*>& classes, const Make& make) {
    RenderCache::State::Key key{kind, lists(classes)};
    if (auto it = ids_.find(key); it != ids_.end()) return it->second;
    std::shared_ptr<const std::string> literal;
    bool found = false;
    if (previous_) {
      if (auto it = previous_->entries.find(key); it != previous_->entries.end()) {
        literal = it->second.literal;
        found = true;
      }
    }
    if (!found) literal = make();
    if (cache_) {
      RenderCache::State::Entry entry{{}, literal};
      for (const auto* cls : classes) entry.lists.push_back(cls->users);
      next_.entries.emplace(key, std::move(entry));
    }
    const std::size_t id = literal ? intern(std::move(literal)) : kNobody;
    ids_.emplace(std::move(key), id);
    return id;
  }

  std::shared_ptr<const std::string> compute_complement(const std::vector<const AccessClass*>& classes) const {
    std::vector<bool> inside(ps_.users.size(), false);
    for (const auto* cls : classes) {
      for (std::size_t u : *cls->users) inside[u] = true;
    }
    std::vector<std::size_t> out;
    for (std::size_t u = 0; u < ps_.users.size(); ++u) {
      if (!inside[u]) out.push_back(u);
    }
    if (out.empty()) return nullptr;
    return literal_of(exact_alternation_sorted(sorted_names(std::move(out))));
  }

  static std::shared_ptr<const std::string> literal_of(const std::string& regex) {
    return std::make_shared<const std::string>(json(regex).dump(-1, ' ', false, json::error_handler_t::strict));
  }

  // Kept once: at scale these alternations are most of the document.
  std::size_t intern(std::shared_ptr<const std::string> literal) {
    if (auto it = by_literal_.find(*literal); it != by_literal_.end()) return it->second;
    literals_.push_back(std::move(literal));
    by_literal_.emplace(*literals_.back(), literals_.size() - 1);
    return literals_.size() - 1;
  }

  // Classes of one object hold disjoint user lists, so the set of lists names the users.
  static std::vector<const void*> lists(const std::vector<const AccessClass*>& classes) {
    std::vector<const void*> key;
    for (const auto* cls : classes) key.push_back(cls->users.get());
    std::sort(key.begin(), key.end());
    return key;
  }

  std::vector<std::string_view> names(const std::vector<const AccessClass*>& classes) const {
    std::vector<std::size_t> users;
    for (const auto* cls : classes) users.insert(users.end(), cls->users->begin(), cls->users->end());
    return sorted_names(std::move(users));
  }

  // Engine names in byte order without repeats (two platform users may map to one engine user),
  // sorting indices by a precomputed rank instead of comparing strings.
  std::vector<std::string_view> sorted_names(std::vector<std::size_t> users) const {
    for (std::size_t& u : users) u = rank_[u];
    std::sort(users.begin(), users.end());
    std::vector<std::string_view> out;
    out.reserve(users.size());
    for (std::size_t r : users) {
      const std::string_view name = ps_.users[order_[r]].engine_name;
      if (out.empty() || out.back() != name) out.push_back(name);
    }
    return out;
  }

  const PolicySet& ps_;
  std::size_t all_bytes_ = 0;
  std::vector<std::size_t> rank_;   ///< each user's position in byte order of engine names
  std::vector<std::size_t> order_;  ///< the users in that order
  RenderCache* cache_;
  std::unique_ptr<RenderCache::State> previous_;  ///< the last render's entries, when written for the same users
  RenderCache::State next_;
  std::map<RenderCache::State::Key, std::size_t> ids_;
  std::vector<std::shared_ptr<const std::string>> literals_;
  std::unordered_map<std::string_view, std::size_t> by_literal_;  ///< views into literals_
  std::map<const void*, std::size_t> bytes_;
};

// One rule without its user field, which is written last ("user" sorts after
// every other key, so the line is the same as dumping the whole rule).
struct PendingRule {
  json rule;
  std::size_t user = UserPatterns::kNobody;
};

std::string rule_line(const json& rule) { return rule.dump(-1, ' ', false, json::error_handler_t::strict); }

std::string rule_line(const PendingRule& r, const UserPatterns& patterns) {
  std::string line = rule_line(r.rule);
  if (r.user == UserPatterns::kNobody) return line;
  line.pop_back();
  line += line.size() > 1 ? ",\"user\":" : "\"user\":";
  line += patterns.literal(r.user);
  line += '}';
  return line;
}

// The rules one listed object needs, without its name: objects of one schema
// with the same rules share one block that names them all.
struct ObjectBlock {
  std::string catalog;
  std::string schema;
  std::vector<std::string> tables;
  std::vector<PendingRule> rules;
  bool open_ended = false;  ///< the last rule names nobody, so no deny follows it
};

json class_rule(const Access& access) {
  json rule = table_rule({}, {"", "*", "*"}, access.privileges, access.denied_columns, access.masks, access.row_filter);
  rule.erase("catalog");
  return rule;
}

// One rule per line: small, and a diff of two documents shows exactly the rules that changed.
// The tables section sorts last, so its lines, most of a large document, are appended to the
// text as they are made instead of being collected first.
class DocumentWriter {
 public:
  explicit DocumentWriter(const json& doc) {
    out_ = "{\n";
    bool first_section = true;
    for (const auto& [section, rules] : doc.items()) {
      out_ += first_section ? "" : ",\n";
      first_section = false;
      out_ += ' ';
      out_ += json(section).dump();
      out_ += ": [";
      if (section == "tables") {
        if (section != std::prev(doc.end()).key()) throw std::logic_error("the tables section must sort last");
        return;
      }
      for (std::size_t i = 0; i < rules.size(); ++i) {
        out_ += i ? ",\n  " : "\n  ";
        out_ += rule_line(rules[i]);
      }
      out_ += rules.empty() ? "]" : "\n ]";
    }
    throw std::logic_error("no tables section");
  }

  void table_rule(std::string_view line) {
    out_ += rules_++ ? ",\n  " : "\n  ";
    out_ += line;
  }
  std::size_t table_rules() const { return rules_; }

  std::string finish() && {
    out_ += rules_ == 0 ? "]" : "\n ]";
    out_ += "\n}\n";
    return std::move(out_);
  }

 private:
  std::string out_;
  std::size_t rules_ = 0;
};

// The tables section is written from its pre-rendered lines.
json fixed_sections(json catalogs) {
  return {{"catalogs", std::move(catalogs)},
          {"schemas", json::array({{{"owner", false}}})},
          {"tables", json::array()},
          // Users may run queries, and see and kill only their own.
          {"queries", json::array({{{"allow", json::array({"execute"})}}})},
          // An explicit empty list: nobody may impersonate, nobody may read or write system information.
          {"impersonation", json::array()},
          {"system_information", json::array()}};
}

}  // namespace

RulesDocument render_rules(const PolicySet& ps, RenderCache* cache) {
  RulesDocument doc;
  BroadCoverage coverage(ps);
  UserPatterns patterns(ps, cache);
  std::vector<ObjectBlock> blocks;
  std::unordered_map<std::string, std::size_t> block_of;  // catalog, schema and rules -> blocks index
  std::set<QualifiedName> own_rules;                      // listed objects with rules of their own
  for (const auto& op : ps.objects) {
    if (coverage.covers(op)) continue;
    std::map<Access, std::vector<const AccessClass*>> classes;
    for (const auto& cls : op.classes) {
      if (!cls.access.privileges.empty()) classes[cls.access].push_back(&cls);
    }
    // Every user matches exactly one of an object's rules. The largest group
    // of users is left to the object's last rule, which names nobody: users
    // the snapshot does not know never get that far, because Trino checks the
    // catalog rules (open only to known users) before any table rule.
    const std::vector<const AccessClass*>* last = nullptr;
    std::size_t last_bytes = 0, with_access = 0;
    for (const auto& [access, members] : classes) {
      const std::size_t b = patterns.bytes(members);
      with_access += b;
      if (b > last_bytes) last = &members, last_bytes = b;
    }
    if (last && (last_bytes < kOpenEndedMinBytes || last_bytes <= patterns.all_bytes() - with_access)) last = nullptr;
    ObjectBlock block{op.engine_name.catalog, op.engine_name.schema, {}, {}, false};
    const Access* last_access = nullptr;
    std::vector<const AccessClass*> everyone_with_access;
    for (const auto& [access, members] : classes) {
      everyone_with_access.insert(everyone_with_access.end(), members.begin(), members.end());
      if (&members == last) {
        last_access = &access;
        continue;
      }
      block.rules.push_back({class_rule(access), patterns.of(members)});
    }
    if (last_access) {
      if (const std::size_t nobody = patterns.complement(everyone_with_access); nobody != UserPatterns::kNobody) {
        block.rules.push_back({{{"privileges", json::array()}}, nobody});
      }
      block.rules.push_back({class_rule(*last_access), UserPatterns::kNobody});
      block.open_ended = true;
    }
    std::string key = op.engine_name.catalog + '\0' + op.engine_name.schema;
    for (const auto& r : block.rules) key += '\0' + std::to_string(r.user) + ':' + r.rule.dump();
    auto [it, fresh] = block_of.try_emplace(std::move(key), blocks.size());
    if (fresh) blocks.push_back(std::move(block));
    blocks[it->second].tables.push_back(op.engine_name.table);
    own_rules.insert(op.engine_name);
  }
  // Catalogs are open only to users the snapshot knows; anyone else sees none.
  json catalogs = json::array();
  std::vector<std::string> known;
  for (const auto& u : ps.users) known.push_back(u.engine_name);
  if (!known.empty()) {
    const std::string users = exact_alternation(known);
    if (!ps.catalogs.empty()) {
      catalogs.push_back({{"user", users}, {"catalog", exact_alternation(ps.catalogs)}, {"allow", "all"}});
    }
    catalogs.push_back({{"user", users}, {"catalog", "^system$"}, {"allow", "read-only"}});
  }
  catalogs.push_back({{"allow", "none"}});
  DocumentWriter tables(fixed_sections(std::move(catalogs)));
  for (auto& block : blocks) {
    const std::string table =
        block.tables.size() == 1 ? "^" + regex_literal(block.tables.front()) + "$" : exact_alternation(block.tables);
    const json names = {{"catalog", "^" + regex_literal(block.catalog) + "$"},
                        {"schema", "^" + regex_literal(block.schema) + "$"},
                        {"table", table}};
    for (auto& r : block.rules) {
      r.rule.update(names);
      tables.table_rule(rule_line(r, patterns));
    }
    doc.object_rules += block.rules.size();
    if (block.open_ended) continue;
    json deny = names;  // everyone else: nothing
    deny["privileges"] = json::array();
    tables.table_rule(rule_line(deny));
    ++doc.object_rules;
  }
  for (const auto& rule : ps.unlisted) {
    // A pattern naming one listed object whose own rules come first can never match.
    if (rule.pattern.table != "*" && rule.pattern.schema != "*" && own_rules.count(rule.pattern)) continue;
    std::map<PrivilegeSet, std::vector<std::string>> classes;
    std::size_t listed_bytes = 0;
    for (const auto& [u, privs] : rule.access) {
      classes[privs].push_back(ps.users[u].engine_name);
      listed_bytes += ps.users[u].engine_name.size() + 1;
    }
    // As for objects: the largest group may be left to a rule naming nobody,
    // once everyone else the pattern does not list is refused by name.
    const std::vector<std::string>* last = nullptr;
    std::size_t last_bytes = 0;
    for (const auto& [privs, users] : classes) {
      std::size_t b = 0;
      for (const auto& u : users) b += u.size() + 1;
      if (b > last_bytes) last = &users, last_bytes = b;
    }
    if (last && (last_bytes < kOpenEndedMinBytes || last_bytes <= patterns.all_bytes() - listed_bytes)) last = nullptr;
    const PrivilegeSet* last_privileges = nullptr;
    for (const auto& [privs, users] : classes) {
      if (&users == last) {
        last_privileges = &privs;
        continue;
      }
      tables.table_rule(rule_line(table_rule(users, rule.pattern, privs, {})));
    }
    if (!last_privileges) continue;
    std::vector<std::string> unlisted_users;
    std::vector<bool> listed(ps.users.size(), false);
    for (const auto& [u, privs] : rule.access) listed[u] = true;
    for (std::size_t u = 0; u < ps.users.size(); ++u) {
      if (!listed[u]) unlisted_users.push_back(ps.users[u].engine_name);
    }
    if (!unlisted_users.empty()) tables.table_rule(rule_line(table_rule(unlisted_users, rule.pattern, {}, {})));
    tables.table_rule(rule_line(table_rule({}, rule.pattern, *last_privileges, {})));
  }
  // JDBC and ODBC clients list tables through system.jdbc; its rows are
  // filtered by these same rules, so reading it reveals nothing more.
  tables.table_rule(
      rule_line({{"catalog", "^system$"}, {"schema", "^jdbc$"}, {"privileges", json::array({"SELECT"})}}));
  tables.table_rule(rule_line({{"privileges", json::array()}}));
  doc.table_rules = tables.table_rules();
  doc.text = std::move(tables).finish();
  return doc;
}

RulesDocument deny_all_rules() {
  RulesDocument doc;
  json catalogs = json::array({{{"allow", "none"}}});
  DocumentWriter tables(fixed_sections(std::move(catalogs)));
  tables.table_rule(rule_line({{"privileges", json::array()}}));
  doc.table_rules = tables.table_rules();
  doc.text = std::move(tables).finish();
  return doc;
}

}  // namespace tw::trino

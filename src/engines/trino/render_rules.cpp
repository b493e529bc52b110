#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include "expressions.h"
#include "tagwarden/engines/trino/rules.h"
#include "user_patterns.h"

namespace tw::trino {
namespace {

using nlohmann::json;

json table_rule(const std::vector<std::string>& users, const QualifiedName& name, PrivilegeSet privileges,
                const std::vector<std::string>& denied_columns, const std::vector<ColumnMask>& masks = {},
                const std::string& row_filter = {}, bool grant_select = false) {
  json rule = json::object();
  if (!users.empty()) rule["user"] = exact_alternation(users);
  rule["catalog"] = "^" + regex_literal(name.catalog) + "$";
  if (name.schema != "*") rule["schema"] = "^" + regex_literal(name.schema) + "$";
  if (name.table != "*") rule["table"] = "^" + regex_literal(name.table) + "$";
  rule["privileges"] = privileges.names();
  if (grant_select) rule["privileges"].push_back("GRANT_SELECT");
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
// the object's access, so the object needs no rules of its own. The answer depends
// only on the broad rule and each class's users and privileges, so objects alike in
// those share it (at L, comparing every gated object anew was a sixth of a render).
class BroadCoverage {
 public:
  explicit BroadCoverage(const PolicySet& ps) : ps_(ps) {}

  bool covers(const ObjectPolicy& op) {
    for (const auto& cls : op.classes) {
      const Access& a = cls.access;
      if (!a.denied_columns.empty() || !a.masks.empty() || !a.row_filter.empty() || a.grant_select) return false;
    }
    const UnlistedRule* rule = broad_rule(ps_, op.engine_name);
    Key key{rule, {}};
    for (const auto& cls : op.classes) key.second.emplace_back(cls.users.get(), cls.access.privileges.bits());
    auto [it, fresh] = memo_.try_emplace(std::move(key), false);
    if (fresh) it->second = compare(op, rule);
    return it->second;
  }

 private:
  // An object's classes hold disjoint lists of distinct users, as the rule's access holds
  // distinct users, so equal counts and every class user's privileges agreeing make the two
  // the same. Looked up in a dense copy of the rule, kept while objects share it (objects come
  // sorted by name, so they do): sorting each object's users was a fortieth of a large render.
  bool compare(const ObjectPolicy& op, const UnlistedRule* rule) {
    std::size_t with_access = 0;
    for (const auto& cls : op.classes) {
      if (!cls.access.privileges.empty()) with_access += cls.users->size();
    }
    if (with_access != (rule ? rule->holders() : 0)) return false;
    if (with_access == 0) return true;
    const std::vector<PrivilegeSet>& privileges = dense(rule);
    for (const auto& cls : op.classes) {
      if (cls.access.privileges.empty()) continue;
      for (std::size_t u : *cls.users) {
        if (!(privileges[u] == cls.access.privileges)) return false;
      }
    }
    return true;
  }

  const std::vector<PrivilegeSet>& dense(const UnlistedRule* rule) {
    if (rule == dense_rule_) return dense_;
    if (dense_.empty()) dense_.resize(ps_.users.size());
    if (dense_rule_) {
      for (const auto& group : dense_rule_->access) {
        for (std::size_t u : *group.second) dense_[u] = {};
      }
    }
    for (const auto& [privileges, users] : rule->access) {
      for (std::size_t u : *users) dense_[u] = privileges;
    }
    dense_rule_ = rule;
    return dense_;
  }

  using Key = std::pair<const UnlistedRule*, std::vector<std::pair<const void*, std::uint8_t>>>;
  const PolicySet& ps_;
  std::map<Key, bool> memo_;
  const UnlistedRule* dense_rule_ = nullptr;
  std::vector<PrivilegeSet> dense_;  ///< dense_rule_'s privileges by user, empty for everyone else
};

// Below this many bytes of user names, every group is named: the document stays
// readable and each rule stands on its own. Above it, the largest group may be
// left to a last rule that names nobody, which is what keeps large documents small.
constexpr std::size_t kOpenEndedMinBytes = 1024;

std::string rule_line(const json& rule) { return rule.dump(-1, ' ', false, json::error_handler_t::strict); }

json class_rule(const PolicySet& ps, const Access& access) {
  json rule = table_rule({}, {"", "*", "*"}, access.privileges, access.denied_columns, access.masks, access.row_filter,
                         access.grant_select);
  rule.erase("catalog");
  if (access.filter_as) rule["filter_environment"] = {{"user", ps.users[*access.filter_as].engine_name}};
  return rule;
}

// The rules one listed object needs, without its name. Every user matches exactly one
// of them. The largest group of users is left to the object's last rule, which names
// nobody: users the snapshot does not know never get that far, because Trino checks
// the catalog rules (open only to known users) before any table rule.
ObjectRules object_rules(const PolicySet& ps, const ObjectPolicy& op, BroadCoverage& coverage, UserPatterns& patterns) {
  ObjectRules out;
  if (coverage.covers(op)) {
    out.covered = true;
    return out;
  }
  std::map<Access, std::vector<const AccessClass*>> classes;
  for (const auto& cls : op.classes) {
    if (!cls.access.privileges.empty()) classes[cls.access].push_back(&cls);
  }
  const std::vector<const AccessClass*>* last = nullptr;
  std::size_t last_bytes = 0, with_access = 0;
  for (const auto& [access, members] : classes) {
    const std::size_t b = patterns.bytes(members);
    with_access += b;
    if (b > last_bytes) last = &members, last_bytes = b;
  }
  if (last && (last_bytes < kOpenEndedMinBytes || last_bytes <= patterns.all_bytes() - with_access)) last = nullptr;
  const Access* last_access = nullptr;
  std::vector<const AccessClass*> everyone_with_access;
  auto add = [&](json rule, LiteralPtr user) {
    std::string body = rule_line(rule);
    out.rules.push_back({std::move(rule), std::move(body), std::move(user)});
  };
  for (const auto& [access, members] : classes) {
    everyone_with_access.insert(everyone_with_access.end(), members.begin(), members.end());
    if (&members == last) {
      last_access = &access;
      continue;
    }
    add(class_rule(ps, access), patterns.of(members));
  }
  if (last_access) {
    if (LiteralPtr nobody = patterns.complement(everyone_with_access)) add({{"privileges", json::array()}}, nobody);
    add(class_rule(ps, *last_access), nullptr);
    out.open_ended = true;
  }
  return out;
}

// Whether a rule's keys all sort between "catalog" and "schema" (as every body's do).
bool splices(const json& rule) {
  if (!rule.is_object()) return false;
  for (const auto& [key, value] : rule.items()) {
    if (key != "columns" && key != "filter" && key != "filter_environment" && key != "privileges") return false;
  }
  return true;
}

// Appends a key part that no other sequence of parts can imitate.
void key_part(std::string& key, std::string_view part) {
  key += std::to_string(part.size());
  key += ':';
  key += part;
}

// One rule per line: small, and a diff of two documents shows exactly the rules that changed.
// The tables section sorts last, so its lines, most of a large document, are appended to the
// text after the others, into room reserved for all of them.
class DocumentWriter {
 public:
  /// `table_bytes`: what the table rules will add (DocumentWriter::size_of), reserved at once.
  /// `buffer`: where to write (its capacity is kept; the text starts empty).
  explicit DocumentWriter(const json& doc, std::size_t table_bytes = 0, std::string buffer = {})
      : out_(std::move(buffer)) {
    out_.clear();
    out_ += "{\n";
    bool first_section = true;
    for (const auto& [section, rules] : doc.items()) {
      out_ += first_section ? "" : ",\n";
      first_section = false;
      out_ += ' ';
      out_ += json(section).dump();
      out_ += ": [";
      if (section == "tables") {
        if (section != std::prev(doc.end()).key()) throw std::logic_error("the tables section must sort last");
        out_.reserve(out_.size() + table_bytes + 4096);  // and the few closing lines
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

  void table_rule(std::string_view line) { table_rules(line, 1); }
  /// `count` rules already joined as lines are.
  void table_rules(std::string_view lines, std::size_t count) {
    if (count == 0) return;
    out_ += rules_ ? kSeparator : "\n  ";
    out_ += lines;
    rules_ += count;
  }
  void table_rules(const std::vector<TextPiece>& pieces, std::size_t count) {
    if (count == 0) return;
    out_ += rules_ ? kSeparator : "\n  ";
    for (const auto& piece : pieces) {
      out_ += piece.text;
      if (piece.literal) out_ += piece.literal->json;
    }
    rules_ += count;
  }
  static constexpr std::string_view kSeparator = ",\n  ";
  static constexpr std::string_view kTail = "\n}\n";
  /// What table_rules adds for these lines (at most: the first lines' lead is shorter).
  static std::size_t size_of(std::string_view lines, std::size_t count) {
    return count == 0 ? 0 : kSeparator.size() + lines.size();
  }
  static std::size_t size_of(const std::vector<TextPiece>& pieces, std::size_t count) {
    if (count == 0) return 0;
    std::size_t n = kSeparator.size();
    for (const auto& piece : pieces) n += piece.text.size() + (piece.literal ? piece.literal->json.size() : 0);
    return n;
  }
  std::size_t table_rules() const { return rules_; }

  std::string finish() && {
    out_ += rules_ == 0 ? "]" : "\n ]";
    out_ += kTail;
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

namespace {

// Lines joined as the document joins them, counted.
struct Lines {
  std::string text;
  std::size_t count = 0;
  void add(std::string_view line) {
    if (count++) text += ",\n  ";
    text += line;
  }
};

using State = RenderCache::State;

// Objects of one schema with the same rules, named together.
struct Block {
  const std::string* catalog;
  const std::string* schema;
  const ObjectRules* rules;
  std::vector<std::string> tables;
};

// The lines of one schema's blocks, written with the rules' user alternations by reference
// (at scale they are most of the document, and the cache then holds each once).
//
// A rule that several blocks share, the same users and the same body, is written once,
// naming all their tables: the users of one object's named rules are disjoint, so the
// first rule naming a user and a table is still that object's own, whichever block it
// came from. Then the rules that name nobody, which each object has at most one of and
// which come last among its rules, and the deny for everyone else of objects with none.
// Objects of other schemas or catalogs never match these lines. This relies on engine
// names being unique, as the snapshot (names compared case-insensitively) and the config
// (no two catalogs mapped to one) ensure: two objects of one name would each add rules.
State::Text section_text(const std::vector<const Block*>& section, UserPatterns& patterns) {
  struct Shared {
    const PendingRule* rule;
    std::vector<std::string> tables;
  };
  std::vector<Shared> named, nameless;
  std::map<std::pair<std::size_t, std::string_view>, std::size_t> at;  // (literal id, body) -> index in its list
  std::vector<std::string> denied;
  for (const Block* block : section) {
    for (const auto& r : block->rules->rules) {
      auto& list = r.user ? named : nameless;
      auto [it, fresh] = at.try_emplace({patterns.id(r.user), r.body}, list.size());
      if (fresh) list.push_back({&r, {}});
      auto& tables = list[it->second].tables;
      tables.insert(tables.end(), block->tables.begin(), block->tables.end());
    }
    if (!block->rules->open_ended) denied.insert(denied.end(), block->tables.begin(), block->tables.end());
  }

  State::Text out;
  out.pieces.emplace_back();
  auto text = [&](std::string_view t) { out.pieces.back().text += t; };
  auto next_line = [&] { text(out.rules++ ? ",\n  " : ""); };
  const std::string catalog = "^" + regex_literal(*section.front()->catalog) + "$";
  const std::string schema = "^" + regex_literal(*section.front()->schema) + "$";
  const std::string catalog_json = json_string(catalog), schema_json = json_string(schema);
  auto table_pattern = [&](const std::vector<std::string>& tables) {
    return tables.size() == 1 ? "^" + regex_literal(tables.front()) + "$" : exact_alternation(tables);
  };
  // The keys of a rule's body all sort between "catalog" and "schema", so its line is spliced
  // from the body's dump and the names: the line dumping the whole rule gives, without building
  // and dumping it again (a sixth of a render after a membership change). Another key, and the
  // rule is dumped whole.
  auto line_of = [&](const json& rule, std::string_view body, const std::vector<std::string>& tables) {
    if (!splices(rule)) {
      json whole = rule;
      whole.update({{"catalog", catalog}, {"schema", schema}, {"table", table_pattern(tables)}});
      return rule_line(whole);
    }
    std::string line = "{\"catalog\":";
    line += catalog_json;
    if (body.size() > 2) {
      line += ',';
      line += body.substr(1, body.size() - 2);
    }
    line += ",\"schema\":";
    line += schema_json;
    line += ",\"table\":";
    line += json_string(table_pattern(tables));
    line += '}';
    return line;
  };
  auto write = [&](const Shared& shared) {
    next_line();
    std::string line = line_of(shared.rule->rule, shared.rule->body, shared.tables);
    if (!shared.rule->user) {
      text(line);
      return;
    }
    // The user field is written last: "user" sorts after every other key, so the line
    // is the same as dumping the whole rule.
    line.pop_back();
    line += line.size() > 1 ? ",\"user\":" : "\"user\":";
    text(line);
    out.pieces.back().literal = patterns.canonical(shared.rule->user);
    out.pieces.emplace_back();
    text("}");
  };
  for (const auto& shared : named) write(shared);
  for (const auto& shared : nameless) write(shared);
  if (!denied.empty()) {  // everyone else: nothing
    static const json deny = {{"privileges", json::array()}};
    next_line();
    text(line_of(deny, R"({"privileges":[]})", denied));
  }
  return out;
}

Lines unlisted_lines(const PolicySet& ps, const UnlistedRule& rule, UserPatterns& patterns) {
  Lines out;
  std::map<PrivilegeSet, std::vector<std::size_t>> classes;
  std::size_t listed_bytes = 0;
  for (const auto& [privs, users] : rule.access) {
    auto& members = classes[privs];
    for (std::size_t u : *users) {
      members.push_back(u);
      listed_bytes += ps.users[u].engine_name.size() + 1;
    }
  }
  // As for objects: the largest group may be left to a rule naming nobody,
  // once everyone else the pattern does not list is refused by name.
  const std::vector<std::size_t>* last = nullptr;
  std::size_t last_bytes = 0;
  for (const auto& [privs, users] : classes) {
    std::size_t b = 0;
    for (std::size_t u : users) b += ps.users[u].engine_name.size() + 1;
    if (b > last_bytes) last = &users, last_bytes = b;
  }
  if (last && (last_bytes < kOpenEndedMinBytes || last_bytes <= patterns.all_bytes() - listed_bytes)) last = nullptr;
  // The user field is written last, as in section_text: the same line as dumping the whole rule.
  auto line = [&](const std::vector<std::size_t>& users, PrivilegeSet privileges) {
    std::string text = rule_line(table_rule({}, rule.pattern, privileges, {}));
    if (users.empty()) return text;
    text.pop_back();
    text += text.size() > 1 ? ",\"user\":" : "\"user\":";
    text += patterns.literal_of_users(users)->json;
    text += '}';
    return text;
  };
  const PrivilegeSet* last_privileges = nullptr;
  for (const auto& [privs, users] : classes) {
    if (&users == last) {
      last_privileges = &privs;
      continue;
    }
    out.add(line(users, privs));
  }
  if (!last_privileges) return out;
  std::vector<std::size_t> unlisted_users;
  std::vector<bool> listed(ps.users.size(), false);
  for (const auto& group : rule.access) {
    for (std::size_t u : *group.second) listed[u] = true;
  }
  for (std::size_t u = 0; u < ps.users.size(); ++u) {
    if (!listed[u]) unlisted_users.push_back(u);
  }
  if (!unlisted_users.empty()) out.add(line(unlisted_users, {}));
  out.add(line({}, *last_privileges));
  return out;
}

}  // namespace

// With a cache, whatever the last render of the profile made from the same inputs is
// taken as it was: objects' rules, blocks' lines, alternations and rules for unlisted
// names. Everything is keyed so that a match means the bytes would be the same.
RulesDocument render_rules(const PolicySet& ps, RenderCache* cache) {
  RulesDocument doc;
  // The engine names, compared in place with those the cache was written for and copied only
  // when they differ (copying and comparing every name on every render was a thirtieth of one).
  const auto written_for_these = [&](const std::vector<std::string>& names) {
    return std::equal(names.begin(), names.end(), ps.users.begin(), ps.users.end(),
                      [](const std::string& name, const EngineUser& u) { return name == u.engine_name; });
  };
  std::unique_ptr<State> previous;
  if (cache && cache->state && written_for_these(cache->state->users)) previous = std::move(cache->state);
  std::vector<std::string> users;
  if (previous) {
    users = std::move(previous->users);
  } else {
    users.reserve(ps.users.size());
    for (const auto& u : ps.users) users.push_back(u.engine_name);
  }
  State next;  // without a cache, only what this render needs of it
  const bool keep = cache != nullptr;
  // When the rules for unlisted names changed (a grant on a schema or catalog), whether they
  // cover an object is judged again: its own rules depend on them only through that.
  const bool same_unlisted = previous && previous->unlisted.same_as(ps.unlisted);

  BroadCoverage coverage(ps);
  UserPatterns patterns(ps, previous.get(), keep ? &next : nullptr);
  std::vector<Block> blocks;
  std::unordered_map<std::string, std::size_t> block_of;  // catalog, schema and rules -> blocks index
  std::vector<const QualifiedName*> own_rules;            // listed objects with rules of their own
  std::multimap<QualifiedName, State::Object> spare;      // engine names are unique; should one repeat, it is kept here
  std::deque<ObjectRules> block_rules;                    // without a cache: the rules each block is written from
  for (const auto& op : ps.objects) {
    std::optional<State::Object> reused;
    // The previous render's entry is moved to the next state whole, key and all: objects come
    // sorted by name, as the map is, so the entry wanted is mostly the first one left.
    decltype(next.objects)::node_type node;
    if (previous) {
      const auto first = previous->objects.begin();
      node = first != previous->objects.end() && first->first == op.engine_name
                 ? previous->objects.extract(first)
                 : previous->objects.extract(op.engine_name);
      if (node) {
        const auto& inputs = node.mapped().inputs;
        if (std::equal(inputs.begin(), inputs.end(), op.classes.begin(), op.classes.end(),
                       [](const ClassInput& in, const AccessClass& cls) { return in.matches(cls); }) &&
            (same_unlisted || coverage.covers(op) == node.mapped().rules.covered)) {
          reused = std::move(node.mapped());
        }
      }
    }
    if (!reused) {
      reused.emplace();
      reused->rules = object_rules(ps, op, coverage, patterns);
      if (keep) {
        for (const auto& cls : op.classes) reused->inputs.push_back({cls.users, cls.granted, cls.access});
      }
    }
    // Kept for the next render; without a cache, only the rules of each block's first object.
    const ObjectRules* kept = nullptr;
    if (keep && node) {
      node.mapped() = std::move(*reused);
      const auto at = next.objects.insert(next.objects.end(), std::move(node));
      // A name already there keeps the node: it goes to spare.
      kept = node ? &spare.emplace(op.engine_name, std::move(node.mapped()))->second.rules : &at->second.rules;
    } else if (keep) {
      const std::size_t before = next.objects.size();
      auto slot = next.objects.try_emplace(next.objects.end(), op.engine_name, std::move(*reused));
      if (next.objects.size() == before) slot = spare.emplace(op.engine_name, std::move(*reused));
      kept = &slot->second.rules;
    }
    const ObjectRules& rules = kept ? *kept : reused->rules;
    if (rules.covered) continue;
    std::string key;
    key_part(key, op.engine_name.catalog);
    key_part(key, op.engine_name.schema);
    key += rules.open_ended ? 'o' : 'c';
    for (const auto& r : rules.rules) {
      key_part(key, std::to_string(patterns.id(r.user)));
      key_part(key, r.body);
    }
    auto [it, fresh] = block_of.try_emplace(std::move(key), blocks.size());
    if (fresh) {
      blocks.push_back({&op.engine_name.catalog,
                        &op.engine_name.schema,
                        kept ? kept : &block_rules.emplace_back(std::move(reused->rules)),
                        {}});
    }
    blocks[it->second].tables.push_back(op.engine_name.table);
    own_rules.push_back(&op.engine_name);
  }
  // Objects come sorted by name, so this list mostly is already (a set copied every name).
  const auto by_name = [](const QualifiedName* a, const QualifiedName* b) { return *a < *b; };
  if (!std::is_sorted(own_rules.begin(), own_rules.end(), by_name))
    std::sort(own_rules.begin(), own_rules.end(), by_name);
  const auto has_own_rules = [&](const QualifiedName& name) {
    return std::binary_search(own_rules.begin(), own_rules.end(), &name, by_name);
  };
  // Catalogs are open only to users the snapshot knows; anyone else sees none.
  json catalogs = json::array();
  if (!users.empty()) {
    next.known_users = previous ? std::move(previous->known_users) : exact_alternation(users);
    if (!ps.catalogs.empty()) {
      catalogs.push_back({{"user", next.known_users}, {"catalog", exact_alternation(ps.catalogs)}, {"allow", "all"}});
    }
    catalogs.push_back({{"user", next.known_users}, {"catalog", "^system$"}, {"allow", "read-only"}});
  }
  catalogs.push_back({{"allow", "none"}});
  // Every line is made before any is written, so the document is allocated once at its size:
  // growing a document of hundreds of megabytes by doubling faulted in and copied it twice over.
  std::vector<std::pair<std::string, State::Text>> section_texts;
  std::size_t bytes = 0;
  // Objects come sorted by name, so the blocks of one schema are made one after another.
  for (std::size_t first = 0; first < blocks.size();) {
    std::size_t end = first + 1;
    while (end < blocks.size() && *blocks[end].catalog == *blocks[first].catalog &&
           *blocks[end].schema == *blocks[first].schema) {
      ++end;
    }
    std::vector<const Block*> section;
    // Keyed by the literals' addresses: the entry holds them, so no other literal can take one.
    std::string key;
    key_part(key, *blocks[first].catalog);
    key_part(key, *blocks[first].schema);
    for (std::size_t i = first; i < end; ++i) {
      const Block& block = blocks[i];
      section.push_back(&block);
      key += block.rules->open_ended ? 'o' : 'c';
      key_part(key, std::to_string(block.tables.size()));
      for (const auto& t : block.tables) key_part(key, t);
      key_part(key, std::to_string(block.rules->rules.size()));
      for (const auto& r : block.rules->rules) {
        key_part(key, std::to_string(reinterpret_cast<std::uintptr_t>(patterns.canonical(r.user).get())));
        key_part(key, r.body);
      }
    }
    first = end;
    State::Text text;
    if (previous) {
      if (auto node = previous->blocks.extract(key)) text = std::move(node.mapped());
    }
    if (text.rules == 0) text = section_text(section, patterns);
    bytes += DocumentWriter::size_of(text.pieces, text.rules);
    section_texts.emplace_back(std::move(key), std::move(text));
  }
  std::vector<std::pair<const QualifiedName*, State::UnlistedText>> unlisted_texts;
  for (const auto& rule : ps.unlisted) {
    // A pattern naming one listed object whose own rules come first can never match.
    if (rule.pattern.table != "*" && rule.pattern.schema != "*" && has_own_rules(rule.pattern)) continue;
    State::UnlistedText text;
    if (previous) {
      // With the same rules, the text made for a pattern was made from this rule (the first of
      // that pattern, as here): comparing every user's privileges again was a fortieth of a render.
      if (auto node = previous->unlisted_texts.extract(rule.pattern);
          node && (same_unlisted || node.mapped().rule.same_access(rule))) {
        text = std::move(node.mapped());
      }
    }
    if (text.rule.access.empty()) {
      Lines lines = unlisted_lines(ps, rule, patterns);
      text = {rule, std::move(lines.text), lines.count};
    }
    bytes += DocumentWriter::size_of(text.lines, text.rules);
    unlisted_texts.emplace_back(&rule.pattern, std::move(text));
  }
  DocumentWriter tables(fixed_sections(std::move(catalogs)), bytes, cache ? cache->documents.take() : std::string());
  for (auto& [key, text] : section_texts) {
    tables.table_rules(text.pieces, text.rules);
    doc.object_rules += text.rules;
    if (keep) next.blocks.emplace(std::move(key), std::move(text));
  }
  for (auto& [pattern, text] : unlisted_texts) {
    tables.table_rules(text.lines, text.rules);
    if (keep) next.unlisted_texts.emplace(*pattern, std::move(text));
  }
  // JDBC and ODBC clients list tables through system.jdbc; its rows are
  // filtered by these same rules, so reading it reveals nothing more.
  tables.table_rule(
      rule_line({{"catalog", "^system$"}, {"schema", "^jdbc$"}, {"privileges", json::array({"SELECT"})}}));
  tables.table_rule(rule_line({{"privileges", json::array()}}));
  doc.table_rules = tables.table_rules();
  doc.text = std::move(tables).finish();
  if (keep) {
    next.users = std::move(users);
    next.unlisted = ps.unlisted;
    cache->state = std::make_unique<State>(std::move(next));
  }
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

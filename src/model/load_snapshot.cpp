#include <algorithm>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "load_policies.h"
#include "snapshot_reuse.h"
#include "tagwarden/model/document.h"
#include "tagwarden/model/domain.h"
#include "tagwarden/model/entry_reader.h"
#include "tagwarden/model/load.h"
#include "tagwarden/util/text.h"

namespace tw {

const char* to_string(ObjectKind kind) {
  switch (kind) {
    case ObjectKind::Table:
      return "table";
    case ObjectKind::View:
      return "view";
    case ObjectKind::MaterializedView:
      return "materialized_view";
  }
  return "?";
}

namespace {

std::string lower(const std::string& s) { return lowercase_identifier(s); }

std::vector<std::string> split_dots(const std::string& s) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t dot = s.find('.', start);
    parts.push_back(s.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return parts;
}

class SnapshotValidator {
 public:
  SnapshotValidator(std::vector<ValidationError>& errors, const ReusePlan* plan) : errors_(errors), plan_(plan) {}

  Snapshot run(JsonValue doc) {
    Snapshot s;
    EntryReader top(doc, "", errors_,
                    {"version", "generated_at", "users", "roles", "role_assignments", "classifications", "objects",
                     "grants", "policies"});
    if (!top.is_mapping()) return s;
    if (auto v = top.integer("version")) {
      if (*v != 1) top.error("version", "unsupported version " + std::to_string(*v) + " (this build reads version 1)");
    } else if (!top.has("version")) {
      top.error("version", "is required (1)");
    }
    if (auto g = top.string("generated_at", true)) {
      if (auto t = parse_timestamp(*g, BeyondNanos::round_up)) {
        s.generated_at = *t;
      } else {
        top.error("generated_at", "not an RFC 3339 time with a zone: " + quote(*g));
      }
    }
    read_roles(top, s);
    read_users(top, s);
    read_classifications(top, s);
    read_assignments(top, s);
    read_objects(top, s);
    read_grants(top, s);
    read_policies(top, s);
    return s;
  }

 private:
  void read_roles(EntryReader& top, Snapshot& s) {
    s.roles = top.string_list("roles", "role");
    roles_.insert(s.roles.begin(), s.roles.end());
  }

  void read_users(EntryReader& top, Snapshot& s) {
    if (plan_) {
      take_section(
          plan_->users, plan_->previous->users, s.users, [&](JsonValue item, std::size_t i) { read_user(item, i, s); },
          [&](const User& u, std::size_t i) { take_user(u, i, s); });
      return;
    }
    const std::optional<JsonValue> list = top.array("users", false);
    if (!list) return;
    s.users.reserve(list->size());
    for (const auto [i, item] : list->indexed()) read_user(item, i, s);
  }

  // Entries of the last valid snapshot, byte for byte the same text, are taken as they were read
  // then; the rest are read from the plan's fresh list. Both go in document order.
  template <typename T, typename Read, typename Take>
  void take_section(const ReusePlan::Section& section, const std::vector<T>& previous, std::vector<T>& out, Read read,
                    Take take) {
    out.reserve(section.slots.size());
    std::vector<JsonValue> fresh;
    if (section.fresh) {
      fresh.reserve(section.fresh->size());
      for (const JsonValue item : section.fresh->elements()) fresh.push_back(item);
    }
    std::size_t next_fresh = 0;
    for (std::size_t i = 0; i < section.slots.size(); ++i) {
      const std::size_t slot = section.slots[i];
      if (slot == ReusePlan::kFresh) {
        read(fresh.at(next_fresh++), i);
      } else {
        take(previous.at(slot), i);
      }
    }
    // Each fresh entry is one value of the list it was cut from; anything else is not this
    // text's reading, and the loader falls back to a full read on any error.
    if (next_fresh != fresh.size()) errors_.push_back({"", "the entries read afresh do not match the text's layout"});
  }

  void take_user(const User& u, std::size_t i, Snapshot& s) {
    if (!users_.insert(u.name).second)
      errors_.push_back({key_path(index_path("users", i), "name"), "duplicate user " + quote(u.name)});
    s.users.push_back(u);
  }

  void read_user(JsonValue item, std::size_t i, Snapshot& s) {
    {
      EntryReader e(item, "users", i, errors_, {"name", "engine_user", "platform_admin", "groups", "attributes"});
      if (!e.is_mapping()) return;
      User u;
      auto name = e.string("name", true);
      if (name && e.valid_name("name", *name, "user name")) {
        if (!users_.insert(*name).second) e.error(e.path("name"), "duplicate user " + quote(*name));
        u.name = *name;
      }
      if (auto eu = e.string("engine_user", false)) {
        if (e.valid_name("engine_user", *eu, "engine user name")) u.engine_user = *eu;
      }
      u.platform_admin = e.boolean("platform_admin").value_or(false);
      u.groups = e.string_list("groups", "group");
      if (const std::optional<JsonValue> attrs = e.mapping("attributes", false)) {
        u.attributes = attrs->to_nlohmann();
        // An explicit null reads as the attribute left out, as a null does in every entry: a filter
        // reading it is no rows for this user, and the rest of the snapshot still compiles.
        for (auto it = u.attributes.begin(); it != u.attributes.end();) {
          it = it->is_null() ? u.attributes.erase(it) : std::next(it);
        }
        for (const auto& [key, value] : u.attributes.items()) {
          const std::string p = key_path(e.path("attributes"), key);
          check_name(key, p, "attribute name", errors_);
          const bool scalar = value.is_string() || value.is_number() || value.is_boolean();
          bool list_of_scalars = value.is_array();
          if (list_of_scalars) {
            for (const auto& item : value)
              list_of_scalars = list_of_scalars && (item.is_string() || item.is_number() || item.is_boolean());
          }
          if (!scalar && !list_of_scalars)
            e.error(p, "attribute values must be a string, number, boolean or a list of them");
        }
      }
      s.users.push_back(std::move(u));
    }
  }

  void read_classifications(EntryReader& top, Snapshot& s) {
    const std::optional<JsonValue> list = top.array("classifications", false);
    if (!list) return;
    for (const auto [i, item] : list->indexed()) {
      EntryReader e(item, "classifications", i, errors_, {"name", "level", "clearance"});
      if (!e.is_mapping()) continue;
      Classification c;
      if (auto name = e.string("name", true); name && e.valid_name("name", *name, "classification name")) {
        if (!tags_.insert(*name).second) e.error(e.path("name"), "duplicate classification " + quote(*name));
        c.name = *name;
      }
      if (auto level = e.integer("level")) {
        if (*level < 0 || *level > 1000) e.error(e.path("level"), "level must be between 0 and 1000");
        c.level = static_cast<int>(*level);
      }
      if (const std::optional<JsonValue> rows = e.array("clearance", false)) {
        std::set<std::pair<int, std::string>> seen;
        const std::string rows_path = e.path("clearance");
        for (const auto [r, row_value] : rows->indexed()) {
          EntryReader row(row_value, rows_path, r, errors_, {"type", "name"});
          if (!row.is_mapping()) continue;
          auto type = row.string("type", true);
          auto name = row.string("name", true);
          if (!type || !name) continue;
          ClearanceRow cr;
          cr.name = *name;
          if (*type == "role") {
            cr.type = ClearanceRow::Type::Role;
            if (!roles_.count(*name)) {
              row.error(row.path("name"), "unknown role " + quote(*name));
              continue;
            }
          } else if (*type == "group") {
            cr.type = ClearanceRow::Type::Group;
            if (!row.valid_name("name", *name, "group name")) continue;
          } else {
            row.error(row.path("type"), "unknown clearance type " + quote(*type) + " (expected role or group)");
            continue;
          }
          if (!seen.insert({static_cast<int>(cr.type), cr.name}).second) {
            row.error(row.path(), "duplicate clearance row " + *type + " " + quote(*name));
            continue;
          }
          c.clearance.push_back(std::move(cr));
        }
      }
      s.classifications.push_back(std::move(c));
    }
  }

  void read_assignments(EntryReader& top, Snapshot& s) {
    const SameAssignment same{&s.role_assignments};
    assignments_.emplace(0, same, same);
    if (plan_ && take_assignments_checking_fresh_only(s)) return;
    if (plan_) {
      assignments_->reserve(plan_->role_assignments.slots.size());
      take_section(
          plan_->role_assignments, plan_->previous->role_assignments, s.role_assignments,
          [&](JsonValue item, std::size_t i) { read_assignment(item, i, s); },
          [&](const RoleAssignment& a, std::size_t i) { take_assignment(a, i, s); });
      return;
    }
    const std::optional<JsonValue> list = top.array("role_assignments", false);
    if (!list) return;
    s.role_assignments.reserve(list->size());
    assignments_->reserve(list->size());
    for (const auto [i, item] : list->indexed()) read_assignment(item, i, s);
  }

  // The last valid snapshot had no two assignments alike, so entries taken from it under
  // distinct slots are distinct: only an entry taken twice, or one read afresh, can repeat an
  // assignment. With a few fresh entries, each is compared with the list instead of hashing
  // every assignment into a set (25,000 at M). Any error here sends the loader to a full read,
  // whose errors are the ones reported. False when there are too many fresh entries for that.
  bool take_assignments_checking_fresh_only(Snapshot& s) {
    constexpr std::size_t kFewFresh = 8;
    const ReusePlan::Section& section = plan_->role_assignments;
    if (std::count(section.slots.begin(), section.slots.end(), ReusePlan::kFresh) > static_cast<long>(kFewFresh))
      return false;
    const std::vector<RoleAssignment>& previous = plan_->previous->role_assignments;
    std::vector<bool> taken(previous.size(), false);
    std::vector<std::size_t> fresh;  // indices into s.role_assignments
    take_section(
        section, previous, s.role_assignments,
        [&](JsonValue item, std::size_t i) {
          const std::size_t before = s.role_assignments.size();
          read_assignment(item, i, s);  // fresh entries go through the set, so two alike are found
          if (s.role_assignments.size() > before) fresh.push_back(before);
        },
        [&](const RoleAssignment& a, std::size_t i) {
          check_taken_assignment(a, i);
          const auto slot = static_cast<std::size_t>(&a - previous.data());
          if (taken[slot]) errors_.push_back({index_path("role_assignments", i), duplicate_assignment(a)});
          taken[slot] = true;
          s.role_assignments.push_back(a);
        });
    const SameAssignment same{&s.role_assignments};
    for (const std::size_t f : fresh) {
      for (std::size_t j = 0; j < s.role_assignments.size(); ++j) {
        if (j != f && same(f, j)) {
          errors_.push_back({index_path("role_assignments", f), duplicate_assignment(s.role_assignments[f])});
          break;
        }
      }
    }
    return true;
  }

  // Assignments are told apart by role, holder kind and holder: a set of indexes into the list
  // being read, which hashes and compares what they index (no key string per assignment).
  struct SameAssignment {
    const std::vector<RoleAssignment>* list;
    static const std::string& holder(const RoleAssignment& a) { return a.user ? *a.user : *a.group; }
    std::size_t operator()(std::size_t i) const {
      const RoleAssignment& a = (*list)[i];
      const std::size_t h = std::hash<std::string>()(a.role) * 31 + std::hash<std::string>()(holder(a));
      return a.user ? h : ~h;
    }
    bool operator()(std::size_t i, std::size_t j) const {
      const RoleAssignment& a = (*list)[i];
      const RoleAssignment& b = (*list)[j];
      return a.role == b.role && a.user.has_value() == b.user.has_value() && holder(a) == holder(b);
    }
  };
  using AssignmentSet = std::unordered_set<std::size_t, SameAssignment, SameAssignment>;

  // Adds `a` to the list unless an assignment of the same role to the same holder is there, and
  // then says so.
  std::optional<std::string> add_assignment(RoleAssignment&& a, Snapshot& s) {
    s.role_assignments.push_back(std::move(a));
    if (assignments_->insert(s.role_assignments.size() - 1).second) return std::nullopt;
    std::string duplicate = duplicate_assignment(s.role_assignments.back());
    s.role_assignments.pop_back();
    return duplicate;
  }

  std::string duplicate_assignment(const RoleAssignment& a) {
    return "duplicate assignment of role " + quote(a.role) + " to " + (a.user ? "user " : "group ") +
           quote(a.user ? *a.user : *a.group);
  }

  // What an assignment taken from the last snapshot names must still be there.
  // Whether every role, user and classification of the last valid snapshot is still known. An entry
  // taken from it named only those (it was valid then), so what it names is known still: it is not
  // looked up again, entry by entry (a quarter of taking 25,000 assignments at M).
  bool last_names_known() {
    if (!last_names_known_) {
      const Snapshot& last = *plan_->previous;
      last_names_known_ =
          std::all_of(last.roles.begin(), last.roles.end(), [&](const std::string& r) { return roles_.count(r); }) &&
          std::all_of(last.users.begin(), last.users.end(), [&](const User& u) { return users_.count(u.name); }) &&
          std::all_of(last.classifications.begin(), last.classifications.end(),
                      [&](const Classification& c) { return tags_.count(c.name); });
    }
    return *last_names_known_;
  }

  void check_taken_assignment(const RoleAssignment& a, std::size_t i) {
    if (last_names_known()) return;
    const auto path = [i] { return index_path("role_assignments", i); };
    if (!roles_.count(a.role)) errors_.push_back({key_path(path(), "role"), "unknown role " + quote(a.role)});
    if (a.user && !users_.count(*a.user))
      errors_.push_back({key_path(path(), "user"), "unknown user " + quote(*a.user)});
  }

  void take_assignment(const RoleAssignment& a, std::size_t i, Snapshot& s) {
    check_taken_assignment(a, i);
    if (auto duplicate = add_assignment(RoleAssignment(a), s))
      errors_.push_back({index_path("role_assignments", i), std::move(*duplicate)});
  }

  void read_assignment(JsonValue item, std::size_t i, Snapshot& s) {
    {
      EntryReader e(item, "role_assignments", i, errors_, {"role", "user", "group", "expires_at"});
      if (!e.is_mapping()) return;
      RoleAssignment a;
      bool ok = true;
      if (auto role = e.string("role", true)) {
        if (!roles_.count(*role)) {
          e.error(e.path("role"), "unknown role " + quote(*role));
          ok = false;
        }
        a.role = *role;
      } else {
        ok = false;
      }
      auto user = e.string("user", false);
      auto group = e.string("group", false);
      if (user && group) {
        e.error(e.path(), "names both a user and a group: an assignment is held by exactly one of them");
        ok = false;
      } else if (!user && !group) {
        if (!e.has("user") && !e.has("group")) e.error(e.path(), "names neither a user nor a group");
        ok = false;
      } else if (user) {
        if (!users_.count(*user)) {
          e.error(e.path("user"), "unknown user " + quote(*user));
          ok = false;
        }
        a.user = *user;
      } else {
        if (!e.valid_name("group", *group, "group name")) ok = false;
        a.group = *group;
      }
      if (auto exp = e.string("expires_at", false)) {
        if (auto t = parse_timestamp(*exp)) {
          a.expires_at = *t;
        } else {
          e.error(e.path("expires_at"), "not an RFC 3339 time with a zone: " + quote(*exp));
          ok = false;
        }
      }
      if (!ok) return;
      if (auto duplicate = add_assignment(std::move(a), s)) e.error(e.path(), std::move(*duplicate));
    }
  }

  // The object name read at e's key.
  std::optional<QualifiedName> parse_object_name(const std::string& text, EntryReader& e, std::string_view key,
                                                 bool allow_star) {
    const auto parts = split_dots(text);
    if (parts.size() != 3) {
      e.error(e.path(key), "object name " + quote(text) + " must have three parts: catalog.schema.object");
      return std::nullopt;
    }
    for (const auto& part : parts) {
      if (!e.valid_name(key, part, "object name part")) return std::nullopt;
      if (part.find('*') != std::string::npos && !(allow_star && part == "*")) {
        e.error(e.path(key),
                "object name " + quote(text) +
                    (allow_star ? ": '*' must stand alone as a whole part" : ": '*' is reserved for grant patterns"));
        return std::nullopt;
      }
    }
    return QualifiedName{parts[0], parts[1], parts[2]};
  }

  void read_objects(EntryReader& top, Snapshot& s) {
    if (plan_) {
      take_section(
          plan_->objects, plan_->previous->objects, s.objects,
          [&](JsonValue item, std::size_t i) { read_object(item, i, s); },
          [&](const Object& o, std::size_t i) { take_object(o, i, s); });
    } else if (const std::optional<JsonValue> list = top.array("objects", false)) {
      s.objects.reserve(list->size());
      for (const auto [i, item] : list->indexed()) read_object(item, i, s);
    }
    resolve_dependencies(s);
  }

  std::string duplicate_object(const std::string& name) {
    return "duplicate object " + quote(name) + " (object names are compared case-insensitively: Trino lowercases them)";
  }

  // What an object's entry refers to outside itself (its owner and tags) is checked again: the
  // entry is the same text, the users and classifications it names may not be.
  void take_object(const Object& o, std::size_t i, Snapshot& s) {
    const auto path = [i] { return index_path("objects", i); };
    const std::string name = o.name.str();
    if (!objects_by_lower_.emplace(lower(name), name).second) {
      errors_.push_back({key_path(path(), "name"), duplicate_object(name)});
      return;
    }
    if (!last_names_known()) {
      if (o.owner && !users_.count(*o.owner))
        errors_.push_back({key_path(path(), "owner"), "unknown user " + quote(*o.owner)});
      for (const std::string& t : o.tags) {
        if (!tags_.count(t)) errors_.push_back({key_path(path(), "tags"), "unknown classification " + quote(t)});
      }
      for (std::size_t c = 0; c < o.columns.size(); ++c) {
        for (const std::string& t : o.columns[c].tags) {
          if (!tags_.count(t))
            errors_.push_back({index_path(key_path(path(), "columns"), c), "unknown classification " + quote(t)});
        }
      }
    }
    std::vector<std::pair<std::string, std::string>> deps;
    for (std::size_t k = 0; k < o.depends_on.size(); ++k)
      deps.emplace_back(o.depends_on[k], index_path(key_path(path(), "depends_on"), k));
    s.objects.push_back(o);
    object_index_[name] = s.objects.size() - 1;
    dep_lists_.push_back(std::move(deps));
  }

  void read_object(JsonValue item, std::size_t i, Snapshot& s) {
    std::vector<std::pair<std::string, std::string>> deps;  // (name, path)
    {
      EntryReader e(item, "objects", i, errors_,
                    {"name", "kind", "owner", "domain", "view_security", "depends_on", "tags", "columns"});
      if (!e.is_mapping()) return;
      Object o;
      auto name = e.string("name", true);
      if (!name) return;
      auto qn = parse_object_name(*name, e, "name", false);
      if (!qn) return;
      o.name = *qn;
      if (!objects_by_lower_.emplace(lower(*name), *name).second) {
        e.error(e.path("name"), duplicate_object(*name));
        return;
      }
      const std::string kind = e.string("kind", false).value_or("table");
      if (kind == "table") {
        o.kind = ObjectKind::Table;
      } else if (kind == "view") {
        o.kind = ObjectKind::View;
      } else if (kind == "materialized_view") {
        o.kind = ObjectKind::MaterializedView;
      } else {
        e.error(e.path("kind"), "unknown kind " + quote(kind) + " (expected table, view or materialized_view)");
      }
      if (auto owner = e.string("owner", false)) {
        if (!users_.count(*owner)) e.error(e.path("owner"), "unknown user " + quote(*owner));
        o.owner = *owner;
      }
      if (auto domain = e.string("domain", false)) {
        for (const std::string_view part : domain_parts(*domain)) {
          if (!e.valid_name("domain", part, "domain part")) break;
        }
        o.domain = *domain;
      }
      if (auto vs = e.string("view_security", false)) {
        if (o.kind != ObjectKind::View) {
          e.error(e.path("view_security"), "only views have view_security");
        } else if (*vs == "definer") {
          o.view_security = ViewSecurity::Definer;
        } else if (*vs == "invoker") {
          o.view_security = ViewSecurity::Invoker;
        } else {
          e.error(e.path("view_security"), "unknown view_security " + quote(*vs) + " (expected definer or invoker)");
        }
      } else if (o.kind == ObjectKind::View) {
        o.view_security = ViewSecurity::Definer;  // the engines' default
      }
      if (e.has("depends_on") && o.kind == ObjectKind::Table) {
        e.error(e.path("depends_on"), "only views and materialized views have depends_on");
      } else if (const std::optional<JsonValue> d = e.array("depends_on", false)) {
        DistinctNames seen;
        for (const auto [k, dep_value] : d->indexed()) {
          const std::string p = index_path(e.path("depends_on"), k);
          if (!dep_value.is_string()) {
            e.error(p, "must be an object name");
            continue;
          }
          const std::string dep(dep_value.string());
          if (!seen.insert(dep)) {
            e.error(p, "duplicate dependency " + quote(dep));
            continue;
          }
          deps.emplace_back(dep, p);
          o.depends_on.push_back(dep);
        }
      }
      o.tags = read_tags(e, "tags");
      if (const std::optional<JsonValue> cols = e.array("columns", false)) {
        DistinctNames seen;
        const std::string columns_path = e.path("columns");
        o.columns.reserve(cols->size());
        for (const auto [c, column] : cols->indexed()) {
          EntryReader ce(column, columns_path, c, errors_, {"name", "type", "tags"});
          if (!ce.is_mapping()) continue;
          Column col;
          auto cname = ce.string("name", true);
          if (!cname || !ce.valid_name("name", *cname, "column name")) continue;
          if (!seen.insert(lower(*cname))) {
            ce.error(ce.path("name"), "duplicate column " + quote(*cname) + " (compared case-insensitively)");
            continue;
          }
          col.name = *cname;
          col.type = ce.string("type", false).value_or("varchar");
          // Types reach engine SQL (typed NULL masks), so only type-shaped text is accepted.
          // Type names are case-insensitive in both engines, the zone suffix included.
          static const std::regex kType(
              R"(^[A-Za-z][A-Za-z0-9_]*( ?\( ?[0-9]+( ?, ?[0-9]+)? ?\))?( with(out)? time zone)?$)", std::regex::icase);
          auto checked = type_names_.find(col.type);
          if (checked == type_names_.end()) {
            checked = type_names_.emplace(col.type, col.type.size() <= 64 && std::regex_match(col.type, kType)).first;
          }
          if (!checked->second) {
            ce.error(ce.path("type"),
                     "column type " + quote(col.type) + " is not a type name (e.g. varchar, decimal(10,2))");
          }
          col.tags = read_tags(ce, "tags");
          o.columns.push_back(std::move(col));
        }
      }
      s.objects.push_back(std::move(o));
      object_index_[*name] = s.objects.size() - 1;
      dep_lists_.push_back(std::move(deps));
    }
  }

  std::vector<std::string> read_tags(EntryReader& e, std::string_view key) {
    std::vector<std::string> tags = e.string_list(key, "tag");
    std::vector<std::string> known;
    // string_list has reported a value that is not a list (or holds no valid name); reading it
    // again as a list would report it a second time.
    if (tags.empty()) return known;
    const std::optional<JsonValue> list = e.array(key, false);
    if (!list) return known;
    for (const auto [k, item] : list->indexed()) {
      if (!item.is_string()) continue;
      const std::string t(item.string());
      if (std::find(tags.begin(), tags.end(), t) == tags.end()) continue;  // already reported
      if (!tags_.count(t)) {
        e.error(index_path(e.path(key), k), "unknown classification " + quote(t));
      } else if (std::find(known.begin(), known.end(), t) == known.end()) {
        known.push_back(t);
      }
    }
    return known;
  }

  void resolve_dependencies(Snapshot& s) {
    for (std::size_t i = 0; i < s.objects.size(); ++i) {
      for (const auto& [dep, path] : dep_lists_[i]) {
        auto it = object_index_.find(dep);
        if (it == object_index_.end()) {
          errors_.push_back({path, unknown_object(dep, objects_by_lower_)});
        } else if (it->second == i) {
          errors_.push_back({path, "an object cannot depend on itself"});
        }
      }
    }
    // Cycle detection (iterative colouring); each cycle is reported once at its first member.
    std::vector<int> colour(s.objects.size(), 0);
    std::vector<std::size_t> stack;
    std::function<bool(std::size_t)> visit = [&](std::size_t i) -> bool {
      colour[i] = 1;
      stack.push_back(i);
      for (const auto& [dep, path] : dep_lists_[i]) {
        auto it = object_index_.find(dep);
        if (it == object_index_.end() || it->second == i) continue;
        const std::size_t j = it->second;
        if (colour[j] == 1) {
          std::string cycle;
          auto from = std::find(stack.begin(), stack.end(), j);
          for (auto k = from; k != stack.end(); ++k) cycle += s.objects[*k].name.str() + " -> ";
          cycle += s.objects[j].name.str();
          errors_.push_back({path, "dependency cycle: " + cycle});
          return false;
        }
        if (colour[j] == 0 && !visit(j)) return false;
      }
      stack.pop_back();
      colour[i] = 2;
      return true;
    };
    for (std::size_t i = 0; i < s.objects.size(); ++i) {
      if (colour[i] == 0) {
        stack.clear();
        if (!visit(i)) {
          for (auto k : stack) colour[k] = 2;
        }
      }
    }
  }

  void read_grants(EntryReader& top, Snapshot& s) {
    const std::optional<JsonValue> list = top.array("grants", false);
    if (!list) return;
    // principal kind NUL principal NUL lowercased object pattern -> index of the
    // first grant with them (checked names hold no NUL). Patterns are compared
    // as object names are: case-insensitively, since Trino lowercases them.
    std::unordered_map<std::string, std::pair<std::size_t, std::string>> first_grant;  // -> (index, object)
    for (const auto [i, item] : list->indexed()) {
      EntryReader e(item, "grants", i, errors_, {"principal", "object", "privileges"});
      if (!e.is_mapping()) continue;
      Grant g;
      bool ok = true;
      if (const std::optional<JsonValue> p = e.mapping("principal", true)) {
        EntryReader pr(*p, e.path("principal"), errors_, {"role", "user"});
        auto role = pr.string("role", false);
        auto user = pr.string("user", false);
        if (role && user) {
          pr.error(pr.path(), "names both a role and a user: a grant has exactly one principal");
          ok = false;
        } else if (role) {
          g.principal = {Principal::Kind::Role, *role};
          if (!roles_.count(*role)) {
            pr.error(pr.path("role"), "unknown role " + quote(*role));
            ok = false;
          }
        } else if (user) {
          g.principal = {Principal::Kind::User, *user};
          if (!users_.count(*user)) {
            pr.error(pr.path("user"), "unknown user " + quote(*user));
            ok = false;
          }
        } else {
          if (pr.is_mapping()) pr.error(pr.path(), "names neither a role nor a user");
          ok = false;
        }
      } else {
        ok = false;
      }
      if (auto obj = e.string("object", true)) {
        if (auto qn = parse_object_name(*obj, e, "object", true)) {
          g.object = {qn->catalog, qn->schema, qn->table};
          const bool exact = qn->catalog != "*" && qn->schema != "*" && qn->table != "*";
          if (exact && !object_index_.count(*obj)) {
            e.error(e.path("object"),
                    unknown_object(*obj, objects_by_lower_,
                                   " (use * in a part to grant on names the snapshot does not list)"));
            ok = false;
          }
        } else {
          ok = false;
        }
      } else {
        ok = false;
      }
      // Principal and object are known here only when ok: a duplicate is
      // reported even when its privileges are wrong too.
      if (ok) {
        const std::string key = std::string(g.principal.kind == Principal::Kind::Role ? "r" : "u") + '\0' +
                                g.principal.name + '\0' + lower(g.object.str());
        if (const auto [first, fresh] = first_grant.try_emplace(key, i, g.object.str()); !fresh) {
          const bool same_spelling = first->second.second == g.object.str();
          e.error(e.path(), "duplicate of " + index_path("grants", first->second.first) +
                                (same_spelling ? " (same principal and object; merge their privileges)"
                                               : " (same principal and object, as object names are compared "
                                                 "case-insensitively; merge their privileges)"));
          ok = false;
        }
      }
      if (const std::optional<JsonValue> privs = e.array("privileges", true)) {
        if (privs->size() == 0) e.error(e.path("privileges"), "must name at least one privilege");
        for (const auto [k, priv_value] : privs->indexed()) {
          const std::string p = index_path(e.path("privileges"), k);
          auto priv = priv_value.is_string() ? parse_privilege(priv_value.string()) : std::nullopt;
          if (!priv) {
            e.error(p, "unknown privilege " +
                           (priv_value.is_string() ? quote(priv_value.string()) : priv_value.dump()) +
                           " (expected SELECT, INSERT, UPDATE, DELETE or OWNERSHIP)");
            ok = false;
          } else if (g.privileges.has(*priv)) {
            e.error(p, "duplicate privilege " + std::string(to_string(*priv)));
          } else {
            g.privileges.add(*priv);
          }
        }
      } else {
        ok = false;
      }
      if (ok) s.grants.push_back(std::move(g));
    }
  }

  void read_policies(EntryReader& top, Snapshot& s) {
    const std::optional<JsonValue> list = top.array("policies", false);
    if (!list) return;
    s.policies =
        tw::read_policies(*list, PolicyReferences{roles_, users_, tags_, s.objects, objects_by_lower_}, errors_);
  }

  std::vector<ValidationError>& errors_;
  std::unordered_set<std::string> roles_, users_, tags_;
  std::unordered_map<std::string, std::size_t> object_index_;
  std::unordered_map<std::string, bool> type_names_;               // column type -> type-shaped (few distinct types)
  std::unordered_map<std::string, std::string> objects_by_lower_;  ///< lowercased name -> name
  std::optional<AssignmentSet> assignments_;
  const ReusePlan* plan_ = nullptr;
  std::optional<bool>
      last_names_known_;  ///< with a plan: worked out once the roles, users and classifications are read
  std::vector<std::vector<std::pair<std::string, std::string>>> dep_lists_;
};

}  // namespace

SnapshotLoad validate_snapshot(JsonValue doc, const ReusePlan* plan) {
  SnapshotLoad out;
  SnapshotValidator validator(out.errors, plan);
  Snapshot s = validator.run(doc);
  if (out.errors.empty()) out.snapshot = std::move(s);
  return out;
}

SnapshotLoad parse_snapshot(std::string_view text) {
  DocumentParse doc = parse_document(text);
  if (!doc.errors.empty()) {
    SnapshotLoad out;
    for (auto& [path, message] : doc.errors) out.errors.push_back({path, message});
    return out;
  }
  return validate_snapshot(doc.value(), nullptr);
}

SnapshotLoad load_snapshot_file(const std::string& path) {
  try {
    return parse_snapshot(read_file(path));
  } catch (const std::exception& e) {
    SnapshotLoad out;
    out.errors.push_back({"", e.what()});
    return out;
  }
}

}  // namespace tw

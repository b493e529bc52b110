#include "load_policies.h"

#include <algorithm>

#include "tagwarden/model/domain.h"
#include "tagwarden/util/text.h"

namespace tw {

const char* to_string(PolicyType t) {
  switch (t) {
    case PolicyType::ColumnMask:
      return "column_mask";
    case PolicyType::RowFilter:
      return "row_filter";
    case PolicyType::Deny:
      return "deny";
  }
  return "?";
}

const char* to_string(MaskKind m) {
  switch (m) {
    case MaskKind::Full:
      return "full";
    case MaskKind::Partial:
      return "partial";
    case MaskKind::Hash:
      return "hash";
    case MaskKind::Null:
      return "null";
  }
  return "?";
}

std::optional<std::pair<std::string_view, std::string_view>> split_column_scope(std::string_view scope) {
  std::size_t dot = std::string_view::npos;
  for (int part = 0; part < 3; ++part) {
    dot = scope.find('.', dot == std::string_view::npos ? 0 : dot + 1);
    if (dot == std::string_view::npos) return std::nullopt;
  }
  return std::make_pair(scope.substr(0, dot), scope.substr(dot + 1));
}

namespace {

// The keys a condition node may have (MODEL §4). A key outside them, or a junction or constant
// with another key beside it, is a malformed entry and refuses the snapshot (§1: unknown keys
// inside an entry are an error). What a well-formed node cannot mean for a reader (an unknown
// operator or column, a value of the wrong type or a value mapping other than {"$user": ...}, a
// missing attribute) is decided per reader at compile time: no rows (§4).
void check_condition(const JsonValue& node, const std::string& path, std::vector<ValidationError>& errors) {
  if (!node.is_object()) return;
  static constexpr std::string_view kKeys[] = {"column", "op", "value", "values", "and", "or", "true", "false"};
  static constexpr std::string_view kAlone[] = {"and", "or", "true", "false"};
  const std::string expected = "column, op, value, values; or one of and, or, true, false alone";
  for (const JsonValue::Member& m : node.sorted_members()) {
    if (std::find(std::begin(kKeys), std::end(kKeys), m.key) == std::end(kKeys)) {
      errors.push_back({key_path(path, m.key), "unknown key " + quote(m.key) + " (expected " + expected + ")"});
    } else if (std::find(std::begin(kAlone), std::end(kAlone), m.key) != std::end(kAlone) && node.size() != 1) {
      errors.push_back({key_path(path, m.key), quote(m.key) + " takes no other key beside it in one condition"});
    }
  }
  // Seed 004: "is_null and is_not_null are the only way to match an empty value. A null value in
  // a comparison is rejected." A literal null depends on no reader: the author hears of it now.
  if (const std::optional<JsonValue> op = node.find("op"); op && op->is_string()) {
    static constexpr std::string_view kComparisons[] = {"eq", "ne", "gt", "gte", "lt", "lte"};
    const std::string_view name = op->string();
    const bool comparison = std::find(std::begin(kComparisons), std::end(kComparisons), name) != std::end(kComparisons);
    const std::string use = ": use is_null or is_not_null to match an empty value";
    if (const std::optional<JsonValue> v = node.find("value"); comparison && v && v->is_null()) {
      errors.push_back({key_path(path, "value"), "a null value in a comparison is rejected" + use});
    }
    if (const std::optional<JsonValue> vs = node.find("values");
        (name == "in" || name == "not_in") && vs && vs->is_array()) {
      for (const auto [i, item] : vs->indexed()) {
        if (item.is_null())
          errors.push_back({index_path(key_path(path, "values"), i), "a null value in a comparison is rejected" + use});
      }
    }
  }
  for (const char* junction : {"and", "or"}) {
    const std::optional<JsonValue> parts = node.find(junction);
    if (!parts || !parts->is_array()) continue;
    for (const auto [i, item] : parts->indexed())
      check_condition(item, index_path(key_path(path, junction), i), errors);
  }
}

PrincipalSet read_principals(EntryReader& e, const std::string& key, const PolicyReferences& refs) {
  PrincipalSet out;
  const std::optional<JsonValue> m = e.mapping(key, false);
  if (!m) return out;
  EntryReader p(*m, e.path(key), e.errors(), {"roles", "users"});
  out.roles = p.string_list("roles", "role");
  out.users = p.string_list("users", "user");
  for (std::size_t i = 0; i < out.roles.size(); ++i) {
    if (!refs.roles.count(out.roles[i])) p.error(index_path(p.path("roles"), i), "unknown role " + quote(out.roles[i]));
  }
  for (std::size_t i = 0; i < out.users.size(); ++i) {
    if (!refs.users.count(out.users[i])) p.error(index_path(p.path("users"), i), "unknown user " + quote(out.users[i]));
  }
  return out;
}

const Object* find_object(const PolicyReferences& refs, const std::string& name) {
  for (const auto& o : refs.objects) {
    if (o.name.str() == name) return &o;
  }
  return nullptr;
}

}  // namespace

std::string unknown_object(const std::string& name, const std::unordered_map<std::string, std::string>& by_lower,
                           std::string_view otherwise) {
  if (auto it = by_lower.find(lowercase_identifier(name)); it != by_lower.end()) {
    return "unknown object " + quote(name) + " (the snapshot lists " + quote(it->second) +
           ": a reference names an object exactly as it is listed)";
  }
  return "unknown object " + quote(name) + std::string(otherwise);
}

std::vector<Policy> read_policies(JsonValue list, const PolicyReferences& refs, std::vector<ValidationError>& errors) {
  std::vector<Policy> out;
  std::set<std::string> names;
  for (const auto [i, item] : list.indexed()) {
    EntryReader e(item, "policies", i, errors,
                  {"name", "enabled", "type", "mask", "visible_chars", "scope", "applies_to", "exempt", "condition"});
    if (!e.is_mapping()) continue;
    const std::size_t before = errors.size();
    Policy p;
    if (auto name = e.string("name", true); name && e.valid_name("name", *name, "policy name")) {
      if (!names.insert(*name).second) e.error(e.path("name"), "duplicate policy " + quote(*name));
      p.name = *name;
    }
    p.enabled = e.boolean("enabled").value_or(true);
    // A missing or mistyped value was reported by string(); any other text, "" included, here.
    const std::optional<std::string> given_type = e.string("type", true);
    const std::string type = given_type.value_or("");
    if (type == "column_mask") {
      p.type = PolicyType::ColumnMask;
    } else if (type == "row_filter") {
      p.type = PolicyType::RowFilter;
    } else if (type == "deny") {
      p.type = PolicyType::Deny;
    } else if (given_type) {
      e.error(e.path("type"), "unknown policy type " + quote(type) + " (expected column_mask, row_filter or deny)");
    }
    if (p.type == PolicyType::ColumnMask && type == "column_mask") {
      // MODEL §4 spells the null mask `mask: null`, which YAML (and JSON) read as a null value:
      // taken as that mask, the one that shows nothing, not as a missing key.
      const std::optional<std::string> given_mask = e.is_null("mask") ? "null" : e.string("mask", true);
      const std::string mask = given_mask.value_or("");
      if (mask == "full") {
        p.mask = MaskKind::Full;
      } else if (mask == "partial") {
        p.mask = MaskKind::Partial;
      } else if (mask == "hash") {
        p.mask = MaskKind::Hash;
      } else if (mask == "null") {
        p.mask = MaskKind::Null;
      } else if (given_mask) {
        e.error(e.path("mask"), "unknown mask " + quote(mask) + " (expected full, partial, hash or null)");
      }
      auto visible = e.integer("visible_chars");
      if (p.mask == MaskKind::Partial) {
        if (!visible) {
          // A value of the wrong type was already reported by integer(): one error per mistake.
          if (!e.has("visible_chars")) e.error(e.path("visible_chars"), "is required for a partial mask (1-8)");
        } else if (*visible < 1 || *visible > 8) {
          e.error(e.path("visible_chars"), "must be between 1 and 8");
        } else {
          p.visible_chars = static_cast<int>(*visible);
        }
      } else if (visible) {
        e.error(e.path("visible_chars"), "only partial masks have visible_chars");
      }
    } else {
      if (e.has("mask")) e.error(e.path("mask"), "only column_mask policies have a mask");
      if (e.has("visible_chars")) e.error(e.path("visible_chars"), "only partial masks have visible_chars");
    }
    if (p.type == PolicyType::RowFilter && type == "row_filter") {
      if (const std::optional<JsonValue> c = e.mapping("condition", true)) {
        check_condition(*c, e.path("condition"), errors);
        p.condition = c->to_nlohmann();
      }
    } else if (e.has("condition")) {
      e.error(e.path("condition"), "only row_filter policies have a condition");
    }
    if (const std::optional<JsonValue> scope = e.mapping("scope", true)) {
      EntryReader sc(*scope, e.path("scope"), errors, {"object", "column", "tag", "domain", "level_at_least"});
      int kinds = 0;
      for (const char* k : {"object", "column", "tag", "domain", "level_at_least"}) kinds += sc.has(k);
      if (kinds != 1) {
        sc.error(sc.path(), "give exactly one of object, column, tag, domain or level_at_least");
      } else if (auto o = sc.string("object", false)) {
        p.scope = {PolicyScope::Kind::Object, *o, 0};
        if (!find_object(refs, *o)) sc.error(sc.path("object"), unknown_object(*o, refs.objects_by_lower));
      } else if (auto c = sc.string("column", false)) {
        p.scope = {PolicyScope::Kind::Column, *c, 0};
        const auto split = split_column_scope(*c);
        const Object* obj = split ? find_object(refs, std::string(split->first)) : nullptr;
        bool found = false;
        if (obj) {
          for (const auto& col : obj->columns) found = found || col.name == split->second;
        }
        if (!found) sc.error(sc.path("column"), "unknown column " + quote(*c) + " (catalog.schema.object.column)");
        if (p.type == PolicyType::RowFilter)
          sc.error(sc.path("column"), "a row filter applies to an object, not a column");
      } else if (auto t = sc.string("tag", false)) {
        p.scope = {PolicyScope::Kind::Tag, *t, 0};
        if (!refs.tags.count(*t)) sc.error(sc.path("tag"), "unknown classification " + quote(*t));
      } else if (auto d = sc.string("domain", false)) {
        p.scope = {PolicyScope::Kind::Domain, *d, 0};
        // Checked as an object's domain is, part by part: a malformed or unknown domain
        // would match no object, and a deny or mask that matches nothing fails open.
        bool well_formed = true;
        for (const std::string_view part : domain_parts(*d)) {
          if (!check_name(part, sc.path("domain"), "domain part", errors)) {
            well_formed = false;
            break;
          }
        }
        const bool carried = std::any_of(refs.objects.begin(), refs.objects.end(),
                                         [&](const Object& o) { return within_domain(o.domain, *d); });
        if (well_formed && !carried)
          sc.error(sc.path("domain"), "unknown domain " + quote(*d) + ": no object carries it or a sub-domain of it");
      } else if (auto l = sc.integer("level_at_least")) {
        // The range of a classification's level: beyond it the int would wrap
        // (2^32 + 3 read as 3, -2^32 + 1 as 1) and the policy reach other tags.
        if (*l < 0 || *l > 1000) {
          sc.error(sc.path("level_at_least"), "must be between 0 and 1000, as levels are");
        } else {
          p.scope = {PolicyScope::Kind::LevelAtLeast, "", static_cast<int>(*l)};
        }
      }
    }
    p.applies_to = read_principals(e, "applies_to", refs);
    p.exempt = read_principals(e, "exempt", refs);
    if (errors.size() == before) out.push_back(std::move(p));
  }
  return out;
}

}  // namespace tw

#include "tagwarden/compile/access_policies.h"

#include <algorithm>
#include <cctype>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <string_view>

#include "tagwarden/model/domain.h"
#include "tagwarden/model/timestamp.h"
#include "tagwarden/util/text.h"

namespace tw {
namespace {

using nlohmann::json;

const json kNoRows = {{"false", true}};

bool holds(const Model& m, std::size_t user, const PrincipalSet& set, bool through_groups) {
  const User& u = m.user(user);
  if (std::find(set.users.begin(), set.users.end(), u.name) != set.users.end()) return true;
  const auto& roles = through_groups ? m.any_roles[user] : m.direct_roles[user];
  for (const auto& r : set.roles) {
    if (roles.count(r)) return true;
  }
  return false;
}

// For explain (seed 000: the simulator says which policies apply and why): how `user` holds each
// role of a policy's applies_to or exempt. applies_to counts roles held directly or through a
// group, exempt only roles held directly; neither counts an expired assignment.
std::string role_status(const Model& m, std::size_t user, const std::string& role, bool through_groups) {
  const User& u = m.user(user);
  if (m.direct_roles[user].count(role)) return "role " + role + ": held directly";
  std::string status = "role " + role + ": not held";
  for (const auto& a : m.snapshot->role_assignments) {
    if (a.role != role) continue;
    const bool mine =
        a.user ? *a.user == u.name : std::find(u.groups.begin(), u.groups.end(), *a.group) != u.groups.end();
    if (!mine) continue;
    if (a.expires_at && !(m.now < *a.expires_at)) {
      if (a.user || status.ends_with(": not held"))
        status = "role " + role + ": expired at " + format_timestamp(*a.expires_at) +
                 (a.group ? " (through group " + *a.group + ")" : "");
    } else if (a.group) {
      return "role " + role + ": held through group " + *a.group +
             (through_groups ? "" : ", and exempt counts only roles held directly");
    }
  }
  return status;
}

// "(named in users; role analyst: held through group g1)": what of a principal set reaches `user`.
std::string principal_status(const Model& m, std::size_t user, const PrincipalSet& set, bool through_groups) {
  std::vector<std::string> parts;
  if (std::find(set.users.begin(), set.users.end(), m.user(user).name) != set.users.end())
    parts.push_back("named in users");
  for (const auto& r : set.roles) parts.push_back(role_status(m, user, r, through_groups));
  if (parts.empty()) parts.push_back("not named in users");
  std::string out = " (";
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? "; " : "") + parts[i];
  return out + ")";
}

// ---------------------------------------------------------------------------------------------
// Typing row-filter literals to their column. A value the column cannot hold would make Trino
// fail the query at run time; it fails closed at compile time instead (no rows for the principal).

struct ColumnType {
  LiteralKind kind = LiteralKind::None;
  std::string name;      ///< lower-case base name, e.g. decimal
  int precision = -1;    ///< first parameter, -1 when absent
  int scale = -1;        ///< second parameter, -1 when absent
  std::int64_t min = 0;  ///< integers
  std::int64_t max = 0;  ///< integers
};

ColumnType column_type_of(const std::string& type) {
  ColumnType ct;
  const std::optional<TypeName> tn = parse_type_name(type);
  if (!tn) return ct;
  ct.name = tn->name;
  ct.precision = tn->precision;
  ct.scale = tn->scale;
  const bool with_zone = tn->with_time_zone;
  const std::string& n = ct.name;
  if (n == "timestamp" || n == "datetime") {
    ct.kind = with_zone ? LiteralKind::TimestampTz : LiteralKind::Timestamp;
    return ct;
  }
  if (n == "time") {
    if (!with_zone) ct.kind = LiteralKind::Time;  // TIME WITH TIME ZONE: no literal is made for it
    return ct;
  }
  if (tn->zone_given) return ct;
  if (n == "varchar" || n == "char" || n == "string" || n == "text") {
    ct.kind = LiteralKind::String;
  } else if (n == "boolean" || n == "bool") {
    ct.kind = LiteralKind::Boolean;
  } else if (n == "tinyint" || n == "smallint" || n == "int" || n == "integer" || n == "bigint" || n == "largeint") {
    ct.kind = LiteralKind::Integer;
    const int bits = n == "tinyint" ? 8 : n == "smallint" ? 16 : (n == "int" || n == "integer") ? 32 : 64;
    ct.max = bits == 64 ? std::numeric_limits<std::int64_t>::max() : (std::int64_t{1} << (bits - 1)) - 1;
    ct.min = -ct.max - 1;
  } else if (n == "decimal" || n == "numeric") {
    if (ct.precision < 0) ct.precision = 38;
    if (ct.scale < 0) ct.scale = 0;
    if (ct.precision >= 1 && ct.precision <= 38 && ct.scale <= ct.precision) ct.kind = LiteralKind::Decimal;
  } else if (n == "double" || n == "real" || n == "float") {
    ct.kind = LiteralKind::Double;
  } else if (n == "date") {
    ct.kind = LiteralKind::Date;
  }
  return ct;
}

std::string kind_of(const json& v) {
  if (v.is_string()) return "a string";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number_integer()) return "an integer";
  if (v.is_number()) return "a number";
  if (v.is_array()) return "a list";
  if (v.is_null()) return "null";
  return "a mapping";
}

// YYYY-MM-DD, a real calendar day in years 1-9999.
bool valid_date(std::string_view s) {
  int y = 0, m = 0, d = 0;
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  if (!read_digits(s, 0, 4, y) || !read_digits(s, 5, 2, m) || !read_digits(s, 8, 2, d)) return false;
  if (y < 1 || m < 1 || m > 12 || d < 1) return false;
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return d <= kDays[m - 1] + (m == 2 && leap ? 1 : 0);
}

// HH:MM, HH:MM:SS or HH:MM:SS.f with 1-12 fraction digits.
bool valid_time(std::string_view s) {
  int h = 0, mi = 0, sec = 0;
  if (s.size() < 5 || s[2] != ':' || !read_digits(s, 0, 2, h) || !read_digits(s, 3, 2, mi)) return false;
  if (h > 23 || mi > 59) return false;
  if (s.size() == 5) return true;
  if (s.size() < 8 || s[5] != ':' || !read_digits(s, 6, 2, sec) || sec > 59) return false;
  if (s.size() == 8) return true;
  const std::size_t fraction = s.size() - 9;
  int ignored = 0;
  if (s[8] != '.' || fraction < 1 || fraction > 12) return false;
  for (std::size_t i = 9; i < s.size(); ++i) {
    if (!read_digits(s, i, 1, ignored)) return false;
  }
  return true;
}

// A timestamp: date, or date and time separated by a space or T; with_zone requires a time and a
// zone (Z, UTC or +HH:MM/-HH:MM, optionally after a space), which a column without a zone refuses.
// Normalized to "YYYY-MM-DD HH:MM[:SS[.f]][ ZONE]".
std::optional<std::string> normalized_timestamp(std::string_view s, bool with_zone) {
  if (s.size() < 10 || !valid_date(s.substr(0, 10))) return std::nullopt;
  if (s.size() == 10) return with_zone ? std::nullopt : std::optional<std::string>(std::string(s));
  if (s[10] != ' ' && s[10] != 'T') return std::nullopt;
  std::string_view rest = s.substr(11);
  std::string zone;
  if (with_zone) {
    int zh = 0, zm = 0;
    if (!rest.empty() && rest.back() == 'Z') {
      zone = "UTC";
      rest.remove_suffix(1);
    } else if (rest.size() >= 3 && rest.substr(rest.size() - 3) == "UTC") {
      zone = "UTC";
      rest.remove_suffix(3);
    } else if (rest.size() >= 6 && (rest[rest.size() - 6] == '+' || rest[rest.size() - 6] == '-') &&
               rest[rest.size() - 3] == ':' && read_digits(rest, rest.size() - 5, 2, zh) &&
               read_digits(rest, rest.size() - 2, 2, zm) && zh <= 14 && zm <= 59) {
      zone = std::string(rest.substr(rest.size() - 6));
      rest.remove_suffix(6);
    } else {
      return std::nullopt;
    }
    if (!rest.empty() && rest.back() == ' ') rest.remove_suffix(1);
  }
  if (!valid_time(rest)) return std::nullopt;
  return std::string(s.substr(0, 10)) + " " + std::string(rest) + (zone.empty() ? "" : " " + zone);
}

// A numeral as plain decimal digits (no exponent, no leading zeros, no trailing fraction zeros),
// if decimal(p, s) can hold it exactly. Exponents only when allowed (JSON numbers print them).
std::optional<std::string> plain_decimal(std::string_view text, bool allow_exponent, int precision, int scale,
                                         std::string& why) {
  std::size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) negative = text[i++] == '-';
  std::string digits;
  std::size_t int_digits = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) digits += text[i++];
  int_digits = digits.size();
  bool ok = int_digits > 0;
  if (ok && i < text.size() && text[i] == '.') {
    ++i;
    const std::size_t before = digits.size();
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) digits += text[i++];
    ok = digits.size() > before;
  }
  long exponent = 0;
  if (ok && allow_exponent && i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) exp_negative = text[i++] == '-';
    std::size_t n = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) && n < 4) {
      exponent = exponent * 10 + (text[i++] - '0');
      ++n;
    }
    ok = n > 0;
    if (exp_negative) exponent = -exponent;
  }
  if (!ok || i != text.size()) {
    why = "a string that is not a decimal number";
    return std::nullopt;
  }
  // Move the decimal point by the exponent.
  long point = static_cast<long>(int_digits) + exponent;
  if (point < 0) {
    digits.insert(0, static_cast<std::size_t>(-point), '0');
    point = 0;
  }
  if (static_cast<std::size_t>(point) > digits.size())
    digits.append(static_cast<std::size_t>(point) - digits.size(), '0');
  std::string whole = digits.substr(0, static_cast<std::size_t>(point));
  std::string fraction = digits.substr(static_cast<std::size_t>(point));
  whole.erase(0, std::min(whole.find_first_not_of('0'), whole.size()));
  fraction.erase(fraction.find_last_not_of('0') + 1);
  if (static_cast<int>(whole.size()) > precision - scale || static_cast<int>(fraction.size()) > scale) {
    why = "a number that decimal(" + std::to_string(precision) + "," + std::to_string(scale) + ") cannot hold";
    return std::nullopt;
  }
  const bool zero = whole.empty() && fraction.empty();
  return std::string(negative && !zero ? "-" : "") + (whole.empty() ? "0" : whole) +
         (fraction.empty() ? "" : "." + fraction);
}

// Resolves a user value reference; nullopt when the principal has no such value.
std::optional<json> user_value(const Model& m, std::size_t user, const json& ref, std::string& why) {
  if (!ref.is_string()) {
    why = "$user must name name, roles or attributes.<key>";
    return std::nullopt;
  }
  const std::string r = ref.get<std::string>();
  const User& u = m.user(user);
  if (r == "name") return json(u.name);
  if (r == "roles") {
    // An empty list of the reader's is no rows (seed 001: "An empty list means zero rows"), for
    // not_in too: bound, `not_in ()` would show every row.
    if (m.direct_roles[user].empty()) {
      why = "user holds no role directly (an empty list)";
      return std::nullopt;
    }
    return json(std::vector<std::string>(m.direct_roles[user].begin(), m.direct_roles[user].end()));
  }
  if (r.rfind("attributes.", 0) == 0) {
    const std::string key = r.substr(11);
    if (!u.attributes.contains(key)) {
      why = "user has no attribute " + key;
      return std::nullopt;
    }
    // An empty claim is no claim (seed 001: the claim holds one non-empty value): bound as '',
    // it would show every row whose column is empty.
    const json& value = u.attributes.at(key);
    const auto empty = [](const json& v) { return v.is_string() && v.get_ref<const std::string&>().empty(); };
    if (empty(value) || (value.is_array() && std::any_of(value.begin(), value.end(), empty))) {
      why = "attribute " + key + " of the user is empty";
      return std::nullopt;
    }
    // Likewise an empty list claim (seed 001: "An empty list means zero rows"): under not_in it
    // would show every row.
    if (value.is_array() && value.empty()) {
      why = "attribute " + key + " of the user is an empty list";
      return std::nullopt;
    }
    return value;
  }
  why = "unknown $user reference " + quote(r);
  return std::nullopt;
}

// One condition node, with the principal's values bound. Throws std::string (the reason) when unsatisfiable.
json resolve(const Model& m, std::size_t user, const ObjectPolicy& op, const json& node) {
  if (!node.is_object()) throw std::string("a condition must be a mapping");
  if (node.size() == 1 && node.contains("true") && node["true"] == true) return {{"true", true}};
  if (node.size() == 1 && node.contains("false") && node["false"] == true) return kNoRows;
  for (const char* junction : {"and", "or"}) {
    if (!node.contains(junction)) continue;
    if (node.size() != 1) throw std::string(std::string(junction) + " takes no other keys");
    const json& parts = node[junction];
    if (!parts.is_array() || parts.size() < 2)
      throw std::string(std::string(junction) + " needs two or more conditions");
    json out = json::array();
    for (const auto& p : parts) out.push_back(resolve(m, user, op, p));
    return {{junction, out}};
  }
  for (const auto& [k, v] : node.items()) {
    if (k != "column" && k != "op" && k != "value" && k != "values") throw std::string("unknown key " + quote(k));
  }
  if (!node.contains("column") || !node["column"].is_string()) throw std::string("a comparison needs a column");
  if (!node.contains("op") || !node["op"].is_string()) throw std::string("a comparison needs an op");
  // Matched exactly against the snapshot's names (seed 004), then put in the engine's
  // spelling: Trino folds column names to lower case, StarRocks keeps them as written.
  const std::string& wanted = node["column"].get_ref<const std::string&>();
  const auto& columns = m.snapshot->objects[op.object].columns;
  const auto it = std::find_if(columns.begin(), columns.end(), [&](const Column& c) { return c.name == wanted; });
  if (it == columns.end()) throw std::string("unknown column " + quote(wanted));
  const auto index = static_cast<std::size_t>(it - columns.begin());
  const std::string column = op.columns[index];
  const std::string type = op.column_types[index];
  const std::string o = node["op"].get<std::string>();
  auto bind = [&](const json& v) -> json {
    if (v.is_object()) {
      if (v.size() != 1 || !v.contains("$user")) throw std::string("a value mapping must be {\"$user\": ...}");
      std::string why;
      auto bound = user_value(m, user, v["$user"], why);
      if (!bound) throw why;
      return *bound;
    }
    return v;
  };
  // The value as the column's type holds it; throws the reason when it cannot.
  auto typed = [&](const json& v) -> json {
    std::string why;
    auto t = typed_value(type, v, why);
    if (!t) throw std::string("column " + column + ": " + why);
    return *t;
  };
  const std::string type_key = lowercase_identifier(type);
  if (o == "is_null" || o == "is_not_null") {
    if (node.contains("value") || node.contains("values")) throw std::string(o + " takes no value");
    return {{"column", column}, {"op", o}};
  }
  if (o == "eq" || o == "ne" || o == "gt" || o == "gte" || o == "lt" || o == "lte") {
    if (!node.contains("value") || node.contains("values")) throw std::string(o + " needs exactly one value");
    return {{"column", column}, {"op", o}, {"type", type_key}, {"value", typed(bind(node["value"]))}};
  }
  if (o == "in" || o == "not_in") {
    json list;
    if (node.contains("values") && !node.contains("value")) {
      const json& values = node["values"];
      if (values.is_object()) {
        // {"values": {"$user": "roles"}}: seed 004 writes a reader's list this way ("{"$identity":
        // "groups"} as values"); read as a list literal it would be no rows for everybody.
        list = bind(values);
        if (!list.is_array()) throw std::string(o + " needs a list, found a single value");
      } else {
        if (!values.is_array()) throw std::string(o + " needs a list of values");
        list = json::array();
        for (const auto& v : values) list.push_back(bind(v));
      }
    } else if (node.contains("value") && !node.contains("values")) {
      list = bind(node["value"]);  // e.g. {"$user": "roles"}
      if (!list.is_array()) throw std::string(o + " needs a list, found a single value");
    } else {
      throw std::string(o + " needs values");
    }
    json values = json::array();
    for (const auto& v : list) values.push_back(typed(v));
    return {{"column", column}, {"op", o}, {"type", type_key}, {"values", values}};
  }
  throw std::string("unknown operator " + quote(o));
}

}  // namespace

std::optional<TypeName> parse_type_name(const std::string& type) {
  TypeName tn;
  const std::string t = lowercase_identifier(type);
  std::size_t i = 0;
  while (i < t.size() && (std::isalnum(static_cast<unsigned char>(t[i])) || t[i] == '_')) ++i;
  tn.name = t.substr(0, i);
  std::string rest = t.substr(i);
  const auto open = rest.find('(');
  if (open != std::string::npos) {
    const auto close = rest.find(')', open);
    if (close == std::string::npos) return std::nullopt;
    const std::string params = rest.substr(open + 1, close - open - 1);
    int* slot = &tn.precision;
    std::string digits;
    for (char c : params + ",") {
      if (std::isdigit(static_cast<unsigned char>(c))) {
        digits += c;
        if (digits.size() > 9) return std::nullopt;  // no engine type has such a parameter
      } else if (c == ',') {
        if (digits.empty() || slot == nullptr) return std::nullopt;
        *slot = std::stoi(digits);
        slot = slot == &tn.precision ? &tn.scale : nullptr;
        digits.clear();
      } else if (c != ' ') {
        return std::nullopt;
      }
    }
    rest = rest.substr(close + 1);
  }
  while (!rest.empty() && rest.front() == ' ') rest.erase(0, 1);
  tn.with_time_zone = rest == "with time zone";
  tn.zone_given = tn.with_time_zone || rest == "without time zone";
  if (!rest.empty() && !tn.zone_given) return std::nullopt;
  return tn;
}

std::string canonical(const json& condition) { return condition.dump(); }

LiteralKind literal_kind(const std::string& column_type) { return column_type_of(column_type).kind; }

std::optional<json> typed_value(const std::string& column_type, const json& v, std::string& why) {
  const ColumnType ct = column_type_of(column_type);
  const std::string type = lowercase_identifier(column_type);
  auto refuse = [&](const std::string& reason) -> std::optional<json> {
    why = reason;
    return std::nullopt;
  };
  auto wrong = [&]() { return refuse(kind_of(v) + " compared with a " + type + " column"); };
  switch (ct.kind) {
    case LiteralKind::String:
      if (v.is_string()) return v;
      return wrong();
    case LiteralKind::Boolean:
      if (v.is_boolean()) return v;
      return wrong();
    case LiteralKind::Integer:
      // 5.0 and 1e3 are numbers an integer column holds exactly (seed 004: "a string, number or
      // boolean value"; identity providers send numeric claims so): taken as the integer.
      if (v.is_number_float()) {
        const double d = v.get<double>();
        if (!std::isfinite(d) || std::trunc(d) != d) return wrong();
        if (std::fabs(d) > 9007199254740992.0)  // 2^53: beyond it a double names no one integer
          return refuse("an integer beyond 2^53 written with a fraction or an exponent; write it as an integer");
        const auto i = static_cast<std::int64_t>(d);
        if (i < ct.min || i > ct.max) return refuse("an integer out of range for a " + type + " column");
        return json(i);
      }
      if (!v.is_number_integer()) return wrong();
      if (v.is_number_unsigned() ? v.get<std::uint64_t>() > static_cast<std::uint64_t>(ct.max)
                                 : v.get<std::int64_t>() < ct.min || v.get<std::int64_t>() > ct.max)
        return refuse("an integer out of range for a " + type + " column");
      return v;
    case LiteralKind::Double:
      if (!v.is_number()) return wrong();
      if (v.is_number_float()) {
        const double d = v.get<double>();
        if (!std::isfinite(d)) return refuse("a number that is not finite");
        if (ct.name != "double" && std::fabs(d) > FLT_MAX) return refuse("a number out of range for a real column");
      }
      return v;
    case LiteralKind::Decimal: {
      if (!v.is_string() && !v.is_number()) return wrong();
      if (v.is_number_float() && !std::isfinite(v.get<double>())) return refuse("a number that is not finite");
      auto plain =
          plain_decimal(v.is_string() ? v.get<std::string>() : v.dump(), !v.is_string(), ct.precision, ct.scale, why);
      if (!plain) return std::nullopt;
      return json(*plain);
    }
    case LiteralKind::Date:
      if (!v.is_string()) return wrong();
      if (!valid_date(v.get<std::string>())) return refuse("a string that is not a date (YYYY-MM-DD)");
      return v;
    case LiteralKind::Time:
      if (!v.is_string()) return wrong();
      if (!valid_time(v.get<std::string>())) return refuse("a string that is not a time (HH:MM:SS)");
      return v;
    case LiteralKind::Timestamp:
    case LiteralKind::TimestampTz: {
      if (!v.is_string()) return wrong();
      const bool zone = ct.kind == LiteralKind::TimestampTz;
      auto ts = normalized_timestamp(v.get<std::string>(), zone);
      if (!ts)
        return refuse(zone ? "a string that is not a timestamp with a time zone (YYYY-MM-DD HH:MM:SS +HH:MM)"
                           : "a string that is not a timestamp (YYYY-MM-DD HH:MM:SS)");
      return json(*ts);
    }
    case LiteralKind::None:
      break;
  }
  return refuse("no literal is made for a " + type + " column");
}

namespace {

// Which part of the object a policy's scope reaches: nothing, some columns, or all of it.
struct ScopeReach {
  bool whole_object = false;
  std::vector<std::size_t> columns;  ///< positions in the object's columns, when not the whole object
  /// Reached only through the bases (not by the view's own name, domain, tags or columns): a row
  /// filter's condition names a base column, and a view column of that name need not hold it.
  bool only_through_bases = false;
  bool any() const { return whole_object || !columns.empty(); }
};

// "catalog.schema.table" == name, without making the dotted text (asked of every object and
// policy on every compile).
bool is_named(const QualifiedName& n, std::string_view dotted) {
  const std::size_t size = n.catalog.size() + n.schema.size() + n.table.size() + 2;
  if (dotted.size() != size) return false;
  if (dotted.substr(0, n.catalog.size()) != n.catalog || dotted[n.catalog.size()] != '.') return false;
  dotted.remove_prefix(n.catalog.size() + 1);
  if (dotted.substr(0, n.schema.size()) != n.schema || dotted[n.schema.size()] != '.') return false;
  return dotted.substr(n.schema.size() + 1) == n.table;
}

// Reads the model and the object only, never a profile: the same for every profile.
ScopeReach scope_reach(const Model& m, std::size_t object, const Policy& p) {
  ScopeReach r;
  const Object& o = m.object(object);
  const auto& bases = m.object_bases[object];
  // A view or materialized view reads its bases (as its owner, for a DEFINER view or an MV), and
  // there is no column lineage: a policy scoped to a base, to one of its columns or to its domain
  // reaches the whole view, as a base's tags do (MODEL §2). Otherwise the view would pass on
  // what the policy denies, masks or filters.
  auto reaches_through_base = [&](auto&& reaches_base) {
    for (const std::size_t b : bases) {
      if (reaches_base(m.object(b))) return true;
    }
    return false;
  };
  switch (p.scope.kind) {
    case PolicyScope::Kind::Object:
      r.whole_object = is_named(o.name, p.scope.name);
      r.only_through_bases =
          !r.whole_object && reaches_through_base([&](const Object& b) { return is_named(b.name, p.scope.name); });
      r.whole_object = r.whole_object || r.only_through_bases;
      break;
    case PolicyScope::Kind::Column: {
      // Validated: the scope names a column of an object (split after the third dot).
      const auto split = split_column_scope(p.scope.name).value();
      const std::string_view table = split.first;
      const std::string_view col = split.second;
      if (is_named(o.name, table)) {
        for (std::size_t i = 0; i < o.columns.size(); ++i) {
          if (o.columns[i].name == col) r.columns.push_back(i);
        }
      } else {
        r.whole_object = r.only_through_bases =
            reaches_through_base([&](const Object& b) { return is_named(b.name, table); });
      }
      break;
    }
    case PolicyScope::Kind::Domain:
      r.whole_object = within_domain(o.domain, p.scope.name);
      r.only_through_bases = !r.whole_object && reaches_through_base([&](const Object& b) {
        return within_domain(b.domain, p.scope.name);
      });
      r.whole_object = r.whole_object || r.only_through_bases;
      break;
    case PolicyScope::Kind::Tag:
    case PolicyScope::Kind::LevelAtLeast: {
      const auto& object_tags = m.object_tags[object];
      // The tag itself, or any classification at or above the level; asked of every object's tags on
      // every compile, so no set of them is built.
      auto in_scope = [&](const std::string& t) {
        if (p.scope.kind == PolicyScope::Kind::Tag) return t == p.scope.name;
        const auto it = m.tag_index.find(t);
        if (it == m.tag_index.end()) return false;
        const auto& level = m.snapshot->classifications[it->second].level;
        return level && *level >= p.scope.level;
      };
      for (const auto& t : object_tags) r.whole_object = r.whole_object || in_scope(t);
      bool own = false;  // the object's own tags, not inherited ones
      for (const auto& t : o.tags) own = own || in_scope(t);
      for (std::size_t i = 0; i < o.columns.size(); ++i) {
        for (const auto& t : o.columns[i].tags) {
          if (in_scope(t)) {
            own = true;
            if (!r.whole_object) r.columns.push_back(i);
            break;
          }
        }
      }
      r.only_through_bases = r.whole_object && !own;
      break;
    }
  }
  return r;
}

std::string describe_scope(const PolicyScope& scope) {
  switch (scope.kind) {
    case PolicyScope::Kind::Object:
      return "object " + scope.name;
    case PolicyScope::Kind::Column:
      return "column " + scope.name;
    case PolicyScope::Kind::Domain:
      return "domain " + scope.name;
    case PolicyScope::Kind::Tag:
      return "tag " + scope.name;
    case PolicyScope::Kind::LevelAtLeast:
      return "level >= " + std::to_string(scope.level);
  }
  return "?";
}

}  // namespace

bool any_policy_reaches(const Model& m, std::size_t object) {
  for (const auto& p : m.snapshot->policies) {
    if (p.enabled && scope_reach(m, object, p).any()) return true;
  }
  return false;
}

std::size_t reached_parts(const Model& m, std::size_t object, const Policy& p) {
  const ScopeReach reach = scope_reach(m, object, p);
  return reach.whole_object ? 1 : reach.columns.size();
}

std::vector<PolicyDecision> judge_policies(const Model& m, const ObjectPolicy& op, std::size_t user,
                                           PolicyReasons reasons) {
  std::vector<PolicyDecision> out;
  const Object& o = m.object(op.object);
  for (const auto& p : m.snapshot->policies) {
    if (!p.enabled) continue;
    ScopeReach reach = scope_reach(m, op.object, p);
    if (!reach.any()) continue;  // out of scope: not considered for this object
    PolicyDecision d;
    d.policy = p.name;
    d.type = p.type;
    d.mask = p.mask;
    d.visible_chars = p.visible_chars;
    d.whole_object = reach.whole_object;
    for (const std::size_t i : reach.columns) d.columns.push_back(op.columns[i]);
    const bool only_through_bases = reach.only_through_bases;
    const std::string scope_text = describe_scope(p.scope);
    if (d.whole_object && p.type == PolicyType::ColumnMask) d.columns = op.columns.to_vector();
    if (!d.whole_object && p.type == PolicyType::RowFilter) d.whole_object = true;  // a column carries the tag
    // Applies to: roles held directly or through a group count (more masking,
    // never less). Exempt: only roles held directly, as for clearances.
    const std::string& name = m.user(user).name;
    const bool with_roles = reasons == PolicyReasons::WithRoles;
    auto status = [&](const PrincipalSet& set, bool through_groups) {
      return with_roles ? principal_status(m, user, set, through_groups) : std::string();
    };
    if (!p.applies_to.empty() && !holds(m, user, p.applies_to, true)) {
      d.reason = "not applied: " + name + " is not among its applies_to" + status(p.applies_to, true);
    } else if (!p.exempt.empty() && holds(m, user, p.exempt, false)) {
      d.reason = "not applied: " + name + " is exempt" + status(p.exempt, false);
    } else {
      d.applies = true;
      d.reason = "applies through " + scope_text +
                 (p.applies_to.empty() ? " to everyone" : " to " + name + status(p.applies_to, true));
      // An exemption that does not reach them: say why (an expired or group-held role).
      if (with_roles && !p.exempt.empty()) d.reason += "; not exempt" + status(p.exempt, false);
      if (p.type == PolicyType::RowFilter) {
        try {
          if (only_through_bases)
            throw std::string("it reaches " + o.name.str() +
                              " through the objects it depends on, and a view has no column lineage");
          d.filter = resolve(m, user, op, p.condition);
        } catch (const std::string& why) {
          d.filter = kNoRows;
          d.unsatisfiable = true;
          d.reason += "; cannot be satisfied (" + why + "): no rows";
        }
      }
    }
    out.push_back(std::move(d));
  }
  return out;
}

void apply_policy_decisions(const std::vector<PolicyDecision>& decisions, const ObjectPolicy& op, UserAccess& ua) {
  Access& a = ua.access;
  json filters = json::array();
  std::map<std::string, ColumnMask> masks;
  for (const auto& d : decisions) {
    if (!d.applies) continue;
    if (d.type == PolicyType::Deny) {
      if (d.whole_object) {
        if (!a.privileges.empty()) ua.reasons.push_back("hidden by deny policy " + d.policy);
        a = Access{};
        return;  // deny wins over everything
      }
      for (const auto& c : d.columns) {
        if (std::find(a.denied_columns.begin(), a.denied_columns.end(), c) == a.denied_columns.end()) {
          a.denied_columns.push_back(c);
          ua.reasons.push_back("column " + c + " hidden by deny policy " + d.policy);
        }
      }
    } else if (d.type == PolicyType::RowFilter) {
      filters.push_back(d.filter);
      ua.reasons.push_back("rows filtered by " + d.policy + (d.unsatisfiable ? " (cannot be satisfied: no rows)" : ""));
    }
  }
  const PolicyDecision* unplaceable = nullptr;  // a mask of the whole object, which lists no column to put it on
  for (const auto& d : decisions) {
    if (!d.applies || d.type != PolicyType::ColumnMask) continue;
    if (d.whole_object && d.columns.empty() && !unplaceable) unplaceable = &d;
    for (const auto& c : d.columns) {
      // A clearance or deny refusal beats any mask: the column is not read at all.
      if (std::find(a.denied_columns.begin(), a.denied_columns.end(), c) != a.denied_columns.end()) continue;
      const auto idx =
          static_cast<std::size_t>(std::find(op.columns.begin(), op.columns.end(), c) - op.columns.begin());
      ColumnMask cm{c, d.mask, d.visible_chars, idx < op.column_types.size() ? op.column_types[idx] : "varchar"};
      auto it = masks.find(c);
      if (it == masks.end())
        masks.emplace(c, std::move(cm));
      else
        it->second = strictest(it->second, cm);
    }
  }
  for (auto it = masks.begin(); it != masks.end();) {
    const bool denied =
        std::find(a.denied_columns.begin(), a.denied_columns.end(), it->first) != a.denied_columns.end();
    it = denied ? masks.erase(it) : std::next(it);
  }
  std::sort(a.denied_columns.begin(), a.denied_columns.end());
  // A deny, mask or filter is keyed by the object's and columns' names; OWNERSHIP would let the
  // user rename them out from under it (Trino checks only OWNERSHIP to rename a table or column).
  if (a.privileges.has(Privilege::Ownership)) {
    for (const auto& d : decisions) {
      if (!d.applies) continue;
      a.privileges.remove(Privilege::Ownership);
      ua.reasons.push_back("OWNERSHIP withheld: " + d.policy + " applies (an owner could rename what it names)");
      break;
    }
  }
  // Trino's TRUNCATE TABLE needs only DELETE and ignores row filters, while DELETE, UPDATE and
  // INSERT honour them (observed on 483: a user filtered to region EU truncated the US rows too;
  // an INSERT of a US row is "Cannot insert row that does not match a row filter"). A filter that
  // keeps every row leaves nothing for TRUNCATE to reach beyond it.
  if (a.privileges.has(Privilege::Delete)) {
    for (const auto& d : decisions) {
      if (!d.applies || d.type != PolicyType::RowFilter || d.filter == json{{"true", true}}) continue;
      a.privileges.remove(Privilege::Delete);
      ua.reasons.push_back("DELETE withheld: " + d.policy + " applies (TRUNCATE TABLE ignores row filters)");
      break;
    }
  }
  // The engines mask by column name, and the snapshot names none: the mask would reach nothing,
  // and a view's engine columns would pass its bases' values on unmasked. Fail closed.
  if (unplaceable && a.privileges.has(Privilege::Select)) {
    a.privileges.remove(Privilege::Select);
    ua.reasons.push_back(std::string(kMaskWithoutColumns) + ": mask policy " + unplaceable->policy + " masks all of " +
                         op.engine_name.str() + ", whose columns the snapshot does not list");
  }
  if (!a.privileges.has(Privilege::Select)) {
    a.denied_columns.clear();
    return;
  }
  for (const auto& [c, cm] : masks) {
    a.masks.push_back(cm);
    ua.reasons.push_back("column " + c + " masked (" + describe(cm) + ")");
  }
  if (!filters.empty()) {
    bool none = false;
    for (const auto& f : filters) none = none || f == kNoRows;
    a.row_filter = canonical(none ? kNoRows : filters.size() == 1 ? filters[0] : json{{"and", filters}});
  }
}

}  // namespace tw

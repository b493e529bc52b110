#include "tagwarden/engines/starrocks/sql.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <regex>
#include <set>
#include <stdexcept>

#include "tagwarden/compile/access_policies.h"

namespace tw::starrocks::sql {
namespace {

constexpr std::array<std::string_view, 12> kPrivilegeOrder = {"SELECT",
                                                              "INSERT",
                                                              "UPDATE",
                                                              "DELETE",
                                                              "ALTER",
                                                              "DROP",
                                                              "REFRESH",
                                                              "CREATE",
                                                              "CREATE TABLE",
                                                              "CREATE VIEW",
                                                              "CREATE MATERIALIZED VIEW",
                                                              "USAGE"};

std::string privilege_list(const std::set<std::string>& privileges) {
  std::string out;
  for (const auto& p : ordered(privileges)) out += (out.empty() ? "" : ", ") + p;
  return out;
}

const char* object_keyword(Securable::Kind k) {
  switch (k) {
    case Securable::Kind::Catalog:
      return "CATALOG";
    case Securable::Kind::Database:
      return "DATABASE";
    case Securable::Kind::Table:
      return "TABLE";
    case Securable::Kind::View:
      return "VIEW";
    case Securable::Kind::MaterializedView:
      return "MATERIALIZED VIEW";
    case Securable::Kind::AsRead:
      break;
  }
  return "TABLE";
}

// The object part of GRANT/REVOKE ... ON <target>.
std::string grant_target(Dialect d, const Securable& on) {
  if (on.kind == Securable::Kind::AsRead) {
    if (d != Dialect::MySQL) throw std::invalid_argument("a target as read is a MySQL grant: " + on.name);
    return on.name;
  }
  if (d == Dialect::MySQL) {
    switch (on.kind) {
      case Securable::Kind::Catalog:
        // Every table of the server (a global grant read from mysql.user): revoked as *.*.
        if (on.catalog == "*") return "*.*";
        throw std::invalid_argument("the mysql dialect has no catalogs: cannot grant on catalog " + on.catalog);
      case Securable::Kind::Database:
        return mysql_db_pattern(on.database) + ".*";
      default:
        return ident(on.database) + "." + ident(on.name);
    }
  }
  switch (on.kind) {
    case Securable::Kind::Catalog:
      return std::string("CATALOG ") + ident(on.catalog);
    case Securable::Kind::Database:
      return std::string("DATABASE ") + ident(on.database);
    default:
      return std::string(object_keyword(on.kind)) + " " + ident(on.database) + "." + ident(on.name);
  }
}

std::string grantee_role(Dialect d, std::string_view role) {
  return (d == Dialect::StarRocks ? "ROLE " : "") + ident(role);
}

std::string grantee_user(Dialect d, std::string_view user) {
  return (d == Dialect::StarRocks ? "USER " : "") + user_identity(user);
}

std::string alter_object(const Securable& object) {
  return std::string("ALTER ") + object_keyword(object.kind) + " " + ident(object.database) + "." + ident(object.name);
}

}  // namespace

namespace {

// ident(name) appended to out, copying runs without a backtick whole.
void append_ident(std::string& out, std::string_view name) {
  if (name.find('\0') != std::string_view::npos) {
    throw std::invalid_argument("a name contains a NUL byte, which no engine can quote");
  }
  out += '`';
  for (std::size_t at = 0;;) {
    const std::size_t tick = name.find('`', at);
    if (tick == std::string_view::npos) {
      out.append(name, at);
      break;
    }
    out.append(name, at, tick + 1 - at);
    out += '`';
    at = tick + 1;
  }
  out += '`';
}

}  // namespace

std::string ident(std::string_view name) {
  std::string out;
  out.reserve(name.size() + 2);
  append_ident(out, name);
  return out;
}

namespace {

// `text` as in a literal, without the quotes: ' doubled, \ escaped, NUL as \0.
void append_escaped(std::string& out, std::string_view text) {
  for (char c : text) {
    switch (c) {
      case '\'':
        out += "''";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\0':
        out += "\\0";
        break;
      default:
        out += c;
    }
  }
}

}  // namespace

std::string literal(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out += '\'';
  append_escaped(out, text);
  out += '\'';
  return out;
}

std::string user_identity(std::string_view user) { return literal(user) + "@" + literal(kUserHost); }

std::string mysql_db_pattern(std::string_view database) {
  std::string escaped;
  for (char c : database) {
    if (c == '_' || c == '%' || c == '\\') escaped += '\\';
    escaped += c;
  }
  return ident(escaped);
}

std::vector<std::string> ordered(const std::set<std::string>& privileges) {
  std::vector<std::string> out(privileges.begin(), privileges.end());
  auto rank = [](const std::string& p) {
    auto it = std::find(kPrivilegeOrder.begin(), kPrivilegeOrder.end(), p);
    return static_cast<std::size_t>(it - kPrivilegeOrder.begin());
  };
  std::stable_sort(out.begin(), out.end(), [&](const auto& a, const auto& b) { return rank(a) < rank(b); });
  return out;
}

std::string create_role(Dialect, std::string_view role) { return "CREATE ROLE IF NOT EXISTS " + ident(role); }

std::string drop_role(Dialect, std::string_view role) { return "DROP ROLE IF EXISTS " + ident(role); }

std::string privileges_text(const std::set<std::string>& privileges) { return privilege_list(privileges); }

void append_grant_privileges(std::string& out, Dialect d, std::string_view privileges, const Securable& on,
                             std::string_view role) {
  out += "GRANT ";
  out += privileges;
  out += " ON ";
  if (d == Dialect::StarRocks && on.kind != Securable::Kind::Catalog && on.kind != Securable::Kind::Database &&
      on.kind != Securable::Kind::AsRead) {
    out += object_keyword(on.kind);
    out += ' ';
    append_ident(out, on.database);
    out += '.';
    append_ident(out, on.name);
  } else {
    out += grant_target(d, on);
  }
  out += d == Dialect::StarRocks ? " TO ROLE " : " TO ";
  append_ident(out, role);
}

std::string grant_privileges(Dialect d, const std::set<std::string>& privileges, const Securable& on,
                             std::string_view role) {
  std::string out;
  append_grant_privileges(out, d, privilege_list(privileges), on, role);
  return out;
}

std::string revoke_privileges(Dialect d, const std::set<std::string>& privileges, const Securable& on,
                              std::string_view role) {
  return "REVOKE " + privilege_list(privileges) + " ON " + grant_target(d, on) + " FROM " + grantee_role(d, role);
}

std::string grant_role(Dialect d, std::string_view role, std::string_view user) {
  return "GRANT " + ident(role) + " TO " + grantee_user(d, user);
}

std::string revoke_role(Dialect d, std::string_view role, std::string_view user) {
  return "REVOKE " + ident(role) + " FROM " + grantee_user(d, user);
}

std::string revoke_admin_option(Dialect, std::string_view role, std::string_view holder, bool holder_is_role) {
  return "REVOKE ADMIN OPTION FOR " + ident(role) + " FROM " + (holder_is_role ? ident(holder) : user_identity(holder));
}

std::string revoke_role_from_account(Dialect d, std::string_view role, std::string_view user, std::string_view host) {
  return "REVOKE " + ident(role) + " FROM " + (d == Dialect::StarRocks ? "USER " : "") + literal(user) + "@" +
         literal(host);
}

void append_grant_role_to_role(std::string& out, Dialect d, std::string_view role, std::string_view to_role) {
  // The most frequent statement of a plan (every atom role inherits its holder roles): built in place.
  out += "GRANT ";
  append_ident(out, role);
  out += d == Dialect::StarRocks ? " TO ROLE " : " TO ";
  append_ident(out, to_role);
}

std::string grant_role_to_role(Dialect d, std::string_view role, std::string_view to_role) {
  std::string out;
  out.reserve(role.size() + to_role.size() + 20);
  append_grant_role_to_role(out, d, role, to_role);
  return out;
}

std::string revoke_role_from_role(Dialect d, std::string_view role, std::string_view from_role) {
  // MariaDB's PUBLIC is a keyword, not a role name to quote.
  if (d == Dialect::MySQL && from_role == "PUBLIC") return "REVOKE " + ident(role) + " FROM PUBLIC";
  return "REVOKE " + ident(role) + " FROM " + grantee_role(d, from_role);
}

std::string set_catalog(std::string_view catalog) { return "SET CATALOG " + ident(catalog); }

std::string create_mask(const MaskPolicy& m) {
  const std::string arg = ident("tw_value");
  return "CREATE MASKING POLICY IF NOT EXISTS " + ident(m.object.database) + "." + ident(m.name) + " AS (" + arg + " " +
         m.type + ") RETURNS " + m.type + " -> " + mask_body(arg, m.type, m.cleared, m.masked) + " COMMENT " +
         literal("tagwarden: " + m.object.str() + "." + m.column);
}

std::string drop_mask(const Securable& object, std::string_view policy) {
  return "DROP MASKING POLICY IF EXISTS " + ident(object.database) + "." + ident(policy);
}

std::string set_mask(const ColumnRef& column, std::string_view policy) {
  return alter_object(column.first) + " MODIFY COLUMN " + ident(column.second) + " SET MASKING POLICY " +
         ident(column.first.database) + "." + ident(policy);
}

std::string unset_mask(const ColumnRef& column) {
  return alter_object(column.first) + " MODIFY COLUMN " + ident(column.second) + " UNSET MASKING POLICY";
}

std::string mask_type(std::string_view snapshot_type) {
  static const std::regex simple(R"(^\s*([A-Za-z][A-Za-z0-9_]*)\s*(\(\s*[0-9]{1,5}\s*(,\s*[0-9]{1,5}\s*)?\))?\s*$)");
  std::match_results<std::string_view::const_iterator> m;
  if (!std::regex_match(snapshot_type.begin(), snapshot_type.end(), m, simple)) return "";
  std::string base = m[1].str();
  for (auto& c : base) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::string args;
  for (char c : m[2].str()) {
    if (!std::isspace(static_cast<unsigned char>(c))) args += c;
  }
  if (args.empty() && (base == "VARCHAR" || base == "STRING" || base == "TEXT" || base == "CHAR")) {
    return "VARCHAR(65533)";
  }
  // A policy's signature must parse as a StarRocks type (StarRocks.g4 baseType / decimalType) and
  // be the column's type. StarRocks spells timestamp DATETIME and real FLOAT (as the row filters'
  // literals already do); TIMESTAMP(3) or REAL failed the CREATE POLICY statement and with it the
  // apply. A type StarRocks has no name for renders to nothing: the column is coarsened instead.
  if (base == "TIMESTAMP") return "DATETIME";
  if (base == "REAL") return "FLOAT";
  static const std::set<std::string, std::less<>> sized = {"TINYINT",  "SMALLINT", "INT",     "INTEGER",   "BIGINT",
                                                           "LARGEINT", "CHAR",     "VARCHAR", "VARBINARY", "BINARY"};
  static const std::set<std::string, std::less<>> decimal = {"DECIMAL",    "DECIMALV2", "DECIMAL32", "DECIMAL64",
                                                             "DECIMAL128", "NUMERIC",   "NUMBER"};
  static const std::set<std::string, std::less<>> plain = {"BOOLEAN",  "FLOAT", "DOUBLE", "DATE",
                                                           "DATETIME", "TIME",  "STRING", "JSON"};
  const bool two_args = args.find(',') != std::string::npos;
  if (decimal.count(base) || (sized.count(base) && !two_args) || (plain.count(base) && args.empty())) {
    return base + args;
  }
  return "";
}

namespace {

// current_user() is the identity 'user'@'host' as text, quotes included: each user is the
// literal of 'user'@'%', appended in place (policies list thousands of users).
void append_current_user_in(std::string& out, const std::vector<std::string>& users) {
  out += "current_user() IN (";
  bool first = true;
  for (const auto& u : users) {
    if (!first) out += ", ";
    first = false;
    out += '\'';
    append_escaped(out, "'");
    append_escaped(out, u);
    append_escaped(out, "'@'");
    append_escaped(out, kUserHost);
    append_escaped(out, "'");
    out += '\'';
  }
  out += ")";
}

std::string case_body(const std::vector<PolicyCase>& cases, const std::string& otherwise) {
  std::size_t size = 0;
  for (const auto& c : cases) {
    for (const auto& u : c.users) size += u.size() + 16;
    size += c.expression.size() + 40;
  }
  std::string out = "CASE";
  out.reserve(size + otherwise.size() + 16);
  bool any = false;
  for (const auto& c : cases) {
    if (c.users.empty()) continue;
    any = true;
    out += " WHEN ";
    append_current_user_in(out, c.users);
    out += " THEN ";
    out += c.expression;
  }
  if (!any) return otherwise;
  out += " ELSE ";
  out += otherwise;
  out += " END";
  return out;
}

bool is_string_type(std::string_view type) {
  return type.rfind("VARCHAR", 0) == 0 || type.rfind("CHAR", 0) == 0 || type == "STRING";
}

// A value typed to its column (the compiler's "type"), quoted; nullopt when the column cannot hold it.
std::optional<std::string> typed_literal(const nlohmann::json& c, const nlohmann::json& v) {
  if (!c.contains("type")) {
    if (v.is_string()) return literal(v.get<std::string>());
    if (v.is_boolean()) return v.get<bool>() ? "TRUE" : "FALSE";
    if (v.is_number_integer()) return v.dump();
    if (v.is_number()) return "CAST(" + literal(v.dump()) + " AS DOUBLE)";
    return std::nullopt;
  }
  if (!c["type"].is_string()) return std::nullopt;
  const std::string type = c["type"].get<std::string>();
  std::string why;
  const auto typed = typed_value(type, v, why);
  if (!typed || *typed != v) return std::nullopt;
  const std::string sql_type = mask_type(type);
  switch (literal_kind(type)) {
    case LiteralKind::String:
      return literal(v.get<std::string>());
    case LiteralKind::Boolean:
      return v.get<bool>() ? "TRUE" : "FALSE";
    case LiteralKind::Integer:
      return v.dump();
    case LiteralKind::Double:
      // A FLOAT (real) column compared with a DOUBLE or an integer is widened to DOUBLE,
      // where 0.1 as a FLOAT is not 0.1: ne, not_in, gt and lt would admit rows they hide.
      // A FLOAT literal compares as Trino's REAL does (Trino coerces integers to REAL too).
      if (sql_type.empty()) return std::nullopt;
      if (sql_type.rfind("DOUBLE", 0) != 0) return "CAST(" + literal(v.dump()) + " AS FLOAT)";
      if (v.is_number_integer()) return v.dump();
      return "CAST(" + literal(v.dump()) + " AS DOUBLE)";
    case LiteralKind::Decimal:
      if (sql_type.empty()) return std::nullopt;
      return "CAST(" + literal(v.get<std::string>()) + " AS " + sql_type + ")";
    case LiteralKind::Date:
      return "CAST(" + literal(v.get<std::string>()) + " AS DATE)";
    case LiteralKind::Timestamp:
      return "CAST(" + literal(v.get<std::string>()) + " AS DATETIME)";
    case LiteralKind::Time:
    case LiteralKind::TimestampTz:
    case LiteralKind::None:
      break;
  }
  return std::nullopt;
}

}  // namespace

std::string mask_body(std::string_view argument, std::string_view type, const std::vector<std::string>& cleared,
                      const std::vector<PolicyCase>& masked) {
  std::vector<PolicyCase> cases;
  if (!cleared.empty()) cases.push_back({std::string(argument), cleared});
  cases.insert(cases.end(), masked.begin(), masked.end());
  return case_body(cases, "CAST(NULL AS " + std::string(type) + ")");
}

std::string mask_expression(const ColumnMask& mask, std::string_view argument, std::string_view type) {
  const std::string t(type), v(argument);
  if (mask.kind == MaskKind::Null || !is_string_type(type)) return "CAST(NULL AS " + t + ")";
  std::string expr;
  switch (mask.kind) {
    case MaskKind::Full:
      expr = "'****'";
      break;
    case MaskKind::Partial: {
      const std::string n = std::to_string(mask.visible_chars);
      expr = "CASE WHEN char_length(" + v + ") <= " + std::to_string(mask.fully_masked_through()) +
             " THEN '****' ELSE concat('****', right(" + v + ", " + n + ")) END";
      break;
    }
    case MaskKind::Hash:
      expr = "lower(sha2(" + v + ", 256))";
      break;
    case MaskKind::Null:
      break;
  }
  // StarRocks does not cut a string cast to a shorter VARCHAR(n) or CHAR(n) (issue 56391): a hash
  // in a VARCHAR(6) policy returned all 64 digits where Trino's cast keeps 6, more than the
  // column holds. The mask is cut to the declared length, in characters, as Trino's cast does.
  if (const auto open = t.find('('); open != std::string::npos && t.back() == ')') {
    const std::string length = t.substr(open + 1, t.size() - open - 2);
    if (!length.empty() && length.size() <= 5 &&
        std::all_of(length.begin(), length.end(), [](unsigned char c) { return std::isdigit(c) != 0; }) &&
        std::stoi(length) < 65533)
      expr = "left(" + expr + ", " + length + ")";
  }
  return "CAST(" + expr + " AS " + t + ")";
}

std::optional<std::string> filter_expression(const nlohmann::json& c,
                                             const std::map<std::string, std::string>& arguments) {
  if (!c.is_object()) return std::nullopt;
  if (c.contains("true")) return "TRUE";
  if (c.contains("false")) return "FALSE";
  for (const char* junction : {"and", "or"}) {
    if (!c.contains(junction)) continue;
    std::string out;
    for (const auto& part : c[junction]) {
      auto e = filter_expression(part, arguments);
      if (!e) return std::nullopt;
      out += (out.empty() ? "" : (std::string(junction) == "and" ? " AND " : " OR ")) + ("(" + *e + ")");
    }
    return out.empty() ? std::nullopt : std::optional<std::string>(out);
  }
  if (!c.contains("column") || !c["column"].is_string() || !c.contains("op") || !c["op"].is_string())
    return std::nullopt;
  auto a = arguments.find(c["column"].get<std::string>());
  if (a == arguments.end()) return std::nullopt;
  const std::string col = ident(a->second);
  const std::string op = c["op"].get<std::string>();
  if (op == "is_null") return col + " IS NULL";
  if (op == "is_not_null") return col + " IS NOT NULL";
  static const std::pair<const char*, const char*> kCompare[] = {{"eq", " = "},   {"ne", " <> "}, {"gt", " > "},
                                                                 {"gte", " >= "}, {"lt", " < "},  {"lte", " <= "}};
  for (const auto& [name, sql] : kCompare) {
    if (op != name) continue;
    if (!c.contains("value")) return "FALSE";
    const auto lit = typed_literal(c, c["value"]);
    return lit ? col + sql + *lit : "FALSE";  // a value the column cannot hold: no rows (fail closed)
  }
  if (op != "in" && op != "not_in") return std::nullopt;
  if (!c.contains("values") || !c["values"].is_array()) return "FALSE";
  const auto& values = c["values"];
  if (values.empty()) return op == "in" ? "FALSE" : "TRUE";
  std::string list;
  for (const auto& v : values) {
    const auto lit = typed_literal(c, v);
    if (!lit) return "FALSE";  // never drop one value: for not_in that would widen
    list += (list.empty() ? "" : ", ") + *lit;
  }
  return col + (op == "in" ? " IN (" : " NOT IN (") + list + ")";
}

std::string row_argument(std::size_t i) { return "tw_a" + std::to_string(i); }

std::string create_row_policy(const RowPolicy& p) {
  std::string args;
  for (std::size_t i = 0; i < p.columns.size(); ++i) {
    args += (args.empty() ? "" : ", ") + ident(row_argument(i)) + " " + p.columns[i].second;
  }
  return "CREATE ROW ACCESS POLICY IF NOT EXISTS " + ident(p.object.database) + "." + ident(p.name) + " AS (" + args +
         ") RETURNS BOOLEAN -> " + case_body(p.cases, "FALSE") + " COMMENT " + literal("tagwarden: " + p.object.str());
}

std::string drop_row_policy(const Securable& object, std::string_view policy) {
  return "DROP ROW ACCESS POLICY IF EXISTS " + ident(object.database) + "." + ident(policy);
}

std::string add_row_policy(const RowPolicy& p) {
  std::string on;
  for (const auto& [column, type] : p.columns) on += (on.empty() ? "" : ", ") + ident(column);
  return alter_object(p.object) + " ADD ROW ACCESS POLICY " + ident(p.object.database) + "." + ident(p.name) + " ON (" +
         on + ")";
}

std::string remove_row_policy(const Securable& object, std::string_view policy) {
  return alter_object(object) + " DROP ROW ACCESS POLICY " + ident(object.database) + "." + ident(policy);
}

}  // namespace tw::starrocks::sql

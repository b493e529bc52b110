#include "tagwarden/engines/starrocks/sql.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <regex>
#include <stdexcept>

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
  }
  return "TABLE";
}

// The object part of GRANT/REVOKE ... ON <target>.
std::string grant_target(Dialect d, const Securable& on) {
  if (d == Dialect::MySQL) {
    switch (on.kind) {
      case Securable::Kind::Catalog:
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

std::string ident(std::string_view name) {
  std::string out = "`";
  for (char c : name) {
    if (c == '\0') throw std::invalid_argument("a name contains a NUL byte, which no engine can quote");
    if (c == '`') out += '`';
    out += c;
  }
  return out + "`";
}

std::string literal(std::string_view text) {
  std::string out = "'";
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
  return out + "'";
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

std::string grant_privileges(Dialect d, const std::set<std::string>& privileges, const Securable& on,
                             std::string_view role) {
  return "GRANT " + privilege_list(privileges) + " ON " + grant_target(d, on) + " TO " + grantee_role(d, role);
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

std::string set_catalog(std::string_view catalog) { return "SET CATALOG " + ident(catalog); }

std::string create_mask(const MaskPolicy& m) {
  const std::string arg = ident("tw_value");
  return "CREATE MASKING POLICY IF NOT EXISTS " + ident(m.object.database) + "." + ident(m.name) + " AS (" + arg + " " +
         m.type + ") RETURNS " + m.type + " -> " + mask_body(arg, m.type, m.cleared) + " COMMENT " +
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
  return base + args;
}

std::string mask_body(std::string_view argument, std::string_view type, const std::vector<std::string>& cleared) {
  const std::string masked = "CAST(NULL AS " + std::string(type) + ")";
  if (cleared.empty()) return masked;
  // current_user() is the identity 'user'@'host' as text, quotes included.
  std::string in;
  for (const auto& u : cleared) {
    in += (in.empty() ? "" : ", ") + literal("'" + u + "'@'" + std::string(kUserHost) + "'");
  }
  return "CASE WHEN current_user() IN (" + in + ") THEN " + std::string(argument) + " ELSE " + masked + " END";
}

}  // namespace tw::starrocks::sql

#pragma once
// The dialect seam: every piece of SQL text tagwarden sends to StarRocks or
// MySQL/MariaDB is built here, and every name enters it quoted: identifiers
// in backticks (backticks doubled), user names as string literals (quote and
// backslash escaped). No name from a snapshot reaches SQL any other way.

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "tagwarden/engines/starrocks/plan.h"

namespace tw::starrocks::sql {

/// `name` with backticks doubled. Throws std::invalid_argument for a NUL byte (no engine can quote it).
std::string ident(std::string_view name);

/// 'text' with ' doubled and \ escaped (and NUL as \0). For MySQL the session runs without NO_BACKSLASH_ESCAPES.
std::string literal(std::string_view text);

/// 'user'@'%'.
std::string user_identity(std::string_view user);

/// A database name in a MySQL database-level grant (ON `db`.*), where _ and % are wildcards: both escaped with \.
std::string mysql_db_pattern(std::string_view database);

/// The privilege names of one securable kind, in the order statements list them.
std::vector<std::string> ordered(const std::set<std::string>& privileges);

/// Statement builders (no trailing semicolon).
std::string create_role(Dialect d, std::string_view role);
std::string drop_role(Dialect d, std::string_view role);
std::string grant_privileges(Dialect d, const std::set<std::string>& privileges, const Securable& on,
                             std::string_view role);
/// The privileges as grant_privileges lists them ("SELECT, INSERT"), and that statement appended to
/// `out` with the list given, for scripts of many grants of few distinct privilege sets.
std::string privileges_text(const std::set<std::string>& privileges);
void append_grant_privileges(std::string& out, Dialect d, std::string_view privileges, const Securable& on,
                             std::string_view role);
std::string revoke_privileges(Dialect d, const std::set<std::string>& privileges, const Securable& on,
                              std::string_view role);
std::string grant_role(Dialect d, std::string_view role, std::string_view user);
std::string revoke_role(Dialect d, std::string_view role, std::string_view user);
/// MySQL: REVOKE ADMIN OPTION FOR role FROM 'user'@'%' (or FROM `role`): the membership stays.
std::string revoke_admin_option(Dialect d, std::string_view role, std::string_view holder, bool holder_is_role);
/// REVOKE role FROM 'user'@'host', for an account on another host than '%'.
std::string revoke_role_from_account(Dialect d, std::string_view role, std::string_view user, std::string_view host);
/// Role inheritance: `to_role` inherits `role` (StarRocks GRANT r TO ROLE r2; MySQL/MariaDB GRANT r TO r2).
std::string grant_role_to_role(Dialect d, std::string_view role, std::string_view to_role);
/// The same statement appended to `out`, for scripts of a million of them.
void append_grant_role_to_role(std::string& out, Dialect d, std::string_view role, std::string_view to_role);
std::string revoke_role_from_role(Dialect d, std::string_view role, std::string_view from_role);
std::string set_catalog(std::string_view catalog);

/// StarRocks only: masking policies.
std::string create_mask(const MaskPolicy& m);
std::string drop_mask(const Securable& object, std::string_view policy);
std::string set_mask(const ColumnRef& column, std::string_view policy);
std::string unset_mask(const ColumnRef& column);

/// The SQL type a snapshot column type renders to in a masking policy, or "" when it cannot be rendered safely.
std::string mask_type(std::string_view snapshot_type);

/// The body of a mask: the column's value for the cleared users, each case's expression for its
/// users, a typed NULL for everyone else (current_user() compared with quoted 'user'@'%' literals).
std::string mask_body(std::string_view argument, std::string_view type, const std::vector<std::string>& cleared,
                      const std::vector<PolicyCase>& masked = {});

/// The StarRocks expression of one effective mask over `argument` of SQL type `type` (from
/// mask_type): full '****', partial '****' + the last N characters (fully masked up to
/// mask.fully_masked_through() characters), hash lower-case SHA-256 hex of the UTF-8 value, null;
/// non-string types become a typed NULL. Always cast to `type`, which StarRocks requires of a
/// policy's result.
std::string mask_expression(const ColumnMask& mask, std::string_view argument, std::string_view type);

/// A canonical row-filter condition (PolicySet JSON) as a StarRocks boolean expression. Columns
/// are replaced by their policy argument (`arguments`: column -> argument name); every value is a
/// literal typed to its column and quoted. nullopt when a column has no argument (not renderable).
std::optional<std::string> filter_expression(const nlohmann::json& condition,
                                             const std::map<std::string, std::string>& arguments);

/// StarRocks only: row access policies.
std::string create_row_policy(const RowPolicy& p);
std::string drop_row_policy(const Securable& object, std::string_view policy);
std::string add_row_policy(const RowPolicy& p);
std::string remove_row_policy(const Securable& object, std::string_view policy);
/// The argument name of a row policy's i-th column.
std::string row_argument(std::size_t i);

}  // namespace tw::starrocks::sql

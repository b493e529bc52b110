#pragma once
// Reading a server: the state tagwarden owns (roles with the plan's prefix,
// their grants and members, its masking policies), the users that exist, the
// grants made outside tagwarden (for drift), and what the server can do.
//
// StarRocks: SHOW ROLES, SHOW USERS, sys.grants_to_roles, sys.grants_to_users,
// sys.role_edges, SHOW MASKING POLICIES, SHOW CREATE TABLE.
// MySQL/MariaDB: mysql.user, mysql.roles_mapping, mysql.tables_priv, mysql.columns_priv,
// mysql.db, mysql.procs_priv.

#include <set>
#include <string>
#include <vector>

#include "tagwarden/compile/finding.h"
#include "tagwarden/engines/starrocks/connection.h"
#include "tagwarden/engines/starrocks/plan.h"

namespace tw::starrocks {

/// A grant tagwarden does not own that reaches an engine user: made to the
/// user directly, or to a role not named with the plan's prefix that the user holds.
struct ForeignGrant {
  std::string user;  ///< engine user (host %)
  std::string role;  ///< empty: granted to the user directly
  /// What it is on: a Table (also views), a Database (every object in it) or a
  /// Catalog (every object in it; catalog "*" = every catalog).
  Securable on;
  bool database_pattern = false;  ///< MySQL database-level grant: on.database is a LIKE pattern (_ and % match)
  std::set<std::string> privileges;
  std::string grant;  ///< the grant as SQL, e.g. GRANT SELECT ON `finance`.`invoices` TO 'u'@'%'
};

struct LiveRead {
  LiveState state;
  std::vector<ForeignGrant> foreign;
  /// What an owned role holds that tagwarden cannot take back exactly on this server (StarRocks: a
  /// grant on an object kind it never grants on, a grant option), as `starrocks_drift` warnings.
  std::vector<Finding> owned_drift;
};

/// Reads what tagwarden owns for `plan` (its prefix, its objects) and the grants it does not own. Throws SqlError.
/// For StarRocks the session may be left in another catalog: callers switch before catalog-bound statements.
LiveRead read_live_state(Connection& c, const Plan& plan);

struct Probe {
  Capabilities capabilities;
  std::string version;
  std::vector<Finding> findings;  ///< e.g. roles that will not be active at login
  /// StarRocks' FE privilege_max_total_roles_per_user, when the applier may read it (ADMIN SHOW
  /// FRONTEND CONFIG); nullopt otherwise, and for MySQL.
  std::optional<std::size_t> max_roles_per_user;
};

/// The value of privilege_max_total_roles_per_user in the rows of ADMIN SHOW FRONTEND CONFIG LIKE
/// 'privilege_max_total_roles_per_user' (columns Key, AliasNames, Value, ...), or nullopt.
std::optional<std::size_t> parse_max_roles_per_user(const Rows& rows);

/// The roles-per-user cap a plan for a probed server is made with: the profile's max_roles_per_user,
/// or the server's setting when that is lower (with a warning naming both: memberships over the
/// server's setting would be refused, and those users locked out).
struct RolesCap {
  std::size_t cap = kDefaultMaxRolesPerUser;
  std::optional<Finding> lowered;
};
RolesCap roles_cap_for(const Probe& probe, std::size_t configured, const std::string& profile);

/// What the server can do. StarRocks: masking policies are probed by running
/// SHOW MASKING POLICIES (open-source StarRocks parses but does not implement
/// them). MySQL: no masking policies. Throws SqlError only for a lost connection.
Probe probe_server(Connection& c, Dialect d, const std::string& profile);

/// Grants made outside tagwarden that give an engine user a privilege on a
/// listed object that the plan does not give them: one warning finding per
/// grant, quoting it exactly.
std::vector<Finding> drift_findings(const Plan& plan, const std::vector<ForeignGrant>& foreign);

/// 'user'@'host' -> {user, host}; nullopt when it is not in that form.
std::optional<std::pair<std::string, std::string>> parse_user_identity(std::string_view text);

}  // namespace tw::starrocks

#pragma once
// PolicySet -> the state tagwarden owns on a StarRocks server (roles named
// tw_*, their grants and members, its masking policies), and the ordered
// statements that take a server's live state to it.
//
// A renderer decides nothing: who may do what comes from the PolicySet. What
// this stage adds is the translation (privilege mapping, compact roles, masks
// or coarsening where a server cannot mask) and the ordering of statements
// (tighten before widen), both pure functions of their inputs.

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "tagwarden/compile/finding.h"
#include "tagwarden/compile/policy_set.h"
#include "tagwarden/engines/starrocks/role_names.h"

namespace tw::starrocks {

/// The SQL spoken to the server. StarRocks for real StarRocks; MySQL for
/// MySQL/MariaDB (CREATE ROLE, GRANT priv ON db.t TO role), used by the tests
/// where StarRocks cannot run. Only the statement builders and the live-state
/// readers differ.
enum class Dialect { StarRocks, MySQL };
const char* to_string(Dialect d);
std::optional<Dialect> parse_dialect(std::string_view text);

/// The engine catalog that is StarRocks' internal catalog; every other catalog is external.
inline constexpr std::string_view kInternalCatalog = "default_catalog";
/// StarRocks' default privilege_max_total_roles_per_user, and the profiles' max_roles_per_user.
inline constexpr std::size_t kDefaultMaxRolesPerUser = 64;
/// The host part of every user identity tagwarden grants to: 'user'@'%'.
inline constexpr std::string_view kUserHost = "%";

/// What the server can do, probed when connecting; a plan made without a server assumes nothing.
struct Capabilities {
  bool masking_policies = false;     ///< CREATE MASKING POLICY / SET MASKING POLICY are implemented
  bool row_access_policies = false;  ///< CREATE ROW ACCESS POLICY / ADD ROW ACCESS POLICY are implemented
  auto operator<=>(const Capabilities&) const = default;
};

/// What a plan made without a server assumes from a profile's `masking` key: "on" = the server
/// implements masking and row access policies; "auto" and "off" = it does not (gated columns,
/// masks and row filters coarsen).
Capabilities compile_time_capabilities(std::string_view masking);

/// What a grant is on. Catalog: USAGE on an external catalog; Database: CREATE ... ON DATABASE.
/// AsRead: a target tagwarden never grants on, read from a MySQL server on a role it owns (a
/// database pattern with a wildcard, a stored routine): `name` holds the target exactly as its
/// REVOKE must name it (quoted), so that it is taken back and not refused as an unknown grant.
struct Securable {
  enum class Kind { Catalog, Database, Table, View, MaterializedView, AsRead };
  Kind kind = Kind::Table;
  std::string catalog;   ///< engine catalog
  std::string database;  ///< empty for Catalog and AsRead
  std::string name;      ///< empty for Catalog and Database; the REVOKE target for AsRead
  auto operator<=>(const Securable&) const = default;
  /// catalog.database.name (as many parts as it has), for messages.
  std::string str() const;
};

/// Users (engine names, sorted) who get one expression in a policy body.
struct PolicyCase {
  std::string expression;  ///< SQL over the policy's arguments
  std::vector<std::string> users;
  bool operator==(const PolicyCase&) const = default;
};

/// One column masking policy: the real value for the cleared users, each masked class's
/// effective mask for its users, NULL for everyone else (uncleared, denied, unknown users).
struct MaskPolicy {
  std::string name;                  ///< policy name, created in the object's database
  Securable object;                  ///< Table, View or MaterializedView
  std::string column;                ///< engine column name
  std::string type;                  ///< SQL type of the column (and of the policy's argument and result)
  std::vector<std::string> cleared;  ///< engine user names reading the value, sorted
  std::vector<PolicyCase> masked;    ///< mask expressions over `tw_value`, each with its users
  bool operator==(const MaskPolicy&) const = default;
};

/// One row access policy per table: per class of readers their ANDed filter, FALSE for everyone else.
struct RowPolicy {
  std::string name;                                          ///< created in the object's database
  Securable object;                                          ///< Table, View or MaterializedView
  std::vector<std::pair<std::string, std::string>> columns;  ///< column -> SQL type; argument i is `tw_aI`
  std::vector<PolicyCase> cases;                             ///< boolean expressions over the arguments
  bool operator==(const RowPolicy&) const = default;
};

using ColumnRef = std::pair<Securable, std::string>;

/// The part of a server tagwarden owns; desired (from a Plan) or live (read from a server).
struct OwnedState {
  struct Role {
    std::map<Securable, std::set<std::string>> grants;  ///< engine privilege names per securable
    std::set<std::string> members;                      ///< engine user names
    RoleNames roles;                                    ///< owned roles granted to this role (it inherits them)
    /// Roles tagwarden does not own that were granted this one (by hand): their holders would get its
    /// grants. Never wanted, so always revoked.
    std::set<std::string> foreign_holders;
    /// Accounts on another host than '%' (user, host) granted this role by hand: tagwarden grants
    /// only 'user'@'%', so never wanted either.
    std::set<std::pair<std::string, std::string>> other_host_members;
    /// Users (host %) and owned roles holding this role WITH ADMIN OPTION (MySQL): they could grant
    /// it to anyone. tagwarden never grants it, so it is always revoked, the membership kept if wanted.
    std::set<std::string> admin_members, admin_roles;
    bool operator==(const Role&) const = default;
  };
  std::map<std::string, Role> roles;              ///< by role name (all start with the plan's prefix)
  std::map<std::string, MaskPolicy> masks;        ///< by policy name; live entries know name and object only
  std::map<ColumnRef, std::string> attachments;   ///< column -> the owned policy attached to it
  std::map<std::string, RowPolicy> row_policies;  ///< by policy name; live entries know name and object only
  std::map<Securable, std::set<std::string>> row_attachments;  ///< object -> owned row access policies on it
  bool operator==(const OwnedState&) const = default;
};

/// Everything needed to converge one server to one profile's PolicySet.
struct Plan {
  std::string profile;
  Dialect dialect = Dialect::StarRocks;
  Capabilities capabilities;
  /// The most roles a user may hold on the server, PUBLIC and inherited roles counted (StarRocks'
  /// privilege_max_total_roles_per_user): atom roles inherit within it (render_plan).
  std::size_t max_roles_per_user = kDefaultMaxRolesPerUser;
  std::string prefix;  ///< every owned role and policy name starts with it: tw_<8 hex of the profile>_
  OwnedState desired;
  std::vector<std::string> users;  ///< every engine user of the PolicySet, sorted
  std::vector<Securable> objects;  ///< the listed objects, sorted
  /// What one access class of an object should hold (engine privilege names) and why it holds less than
  /// granted. Kept per class, never per user: the plan grows with objects x classes.
  /// The privileges and reasons are shared by the holdings that have the same: at L half a
  /// million holdings have a few dozen distinct privilege sets and a few thousand reasons, and a
  /// copy each was a tenth of a StarRocks profile's peak memory.
  struct Holding {
    UserListPtr users;                                        ///< indices into user_names, sorted
    std::shared_ptr<const std::set<std::string>> privileges;  ///< never null
    std::shared_ptr<const std::string> withheld;              ///< null when nothing granted is withheld
  };
  std::vector<std::string> user_names;               ///< engine user by PolicySet user index
  std::map<Securable, std::vector<Holding>> access;  ///< per listed object; drift is judged against it
  std::vector<Finding> findings;                     ///< coarsening and other translation warnings

  /// The holding of engine user `user` on `object`, or nullptr (no grant).
  const Holding* holding(const std::string& user, const Securable& object) const;
  /// user -> object -> privileges, materialized (tests and small plans only: users x objects).
  std::map<std::string, std::map<Securable, std::set<std::string>>> intended() const;
};

struct PlanOptions {
  Dialect dialect = Dialect::StarRocks;
  Capabilities capabilities;                                 ///< default: no masking policies, so gated columns coarsen
  std::size_t max_roles_per_user = kDefaultMaxRolesPerUser;  ///< the profile's max_roles_per_user
};

struct PlanRender {
  std::optional<Plan> plan;  ///< absent when errors is non-empty
  std::vector<std::string> errors;
};

/// What rendering one profile's plan leaves for the next render of the same profile: per
/// combination of user lists, their union (and the holder role name and user count written for
/// it), keyed by the lists themselves, which it holds so their addresses cannot be reused. The
/// compile memo hands untouched objects their previous lists, so after a small change most of
/// this is taken as it was. Names are taken only when the engine user names are the same.
/// Only a speed-up: the plan is the same with or without it (tests/unit/test_incremental.cpp).
/// Keeps only what the last render used. One render at a time per cache.
class RenderCache {
 public:
  RenderCache();
  ~RenderCache();
  struct State;
  std::unique_ptr<State> state;
};

/// Translates; decides nothing. Pure: the same PolicySet and options give the same Plan.
PlanRender render_plan(const PolicySet& ps, const PlanOptions& options = {}, RenderCache* cache = nullptr);

/// Why a class of readers loses SELECT on the whole object on a server with `caps` (coarsened: its
/// gated, denied or masked columns cannot be masked there, or its row filter cannot be enforced),
/// with the columns concerned; nullopt when the server enforces its access as is. render_plan and
/// explain share it.
struct CoarsenedRead {
  std::string reason;
  std::vector<std::string> columns;
  PrivilegeSet withheld;  ///< SELECT, with UPDATE and DELETE where the class held them
};
std::optional<CoarsenedRead> coarsened_read(const ObjectPolicy& op, const AccessClass& cls, const Capabilities& caps);

/// The owned-name prefix of a profile: tw_ + 8 hex digits of its name + _.
std::string owner_prefix(std::string_view profile);

enum class Phase { Prepare, Tighten, Widen, Cleanup };
const char* to_string(Phase p);

/// One statement of a plan. Statements run in vector order; catalog is the
/// catalog the session must be in (empty: any), which the runner switches to
/// with SET CATALOG (StarRocks) before running it.
struct Statement {
  Phase phase = Phase::Prepare;
  std::string catalog;
  std::string sql;  ///< without trailing semicolon
  bool operator==(const Statement&) const = default;
};

/// What was read from a server besides the owned state.
struct LiveState {
  OwnedState owned;
  std::optional<std::set<std::string>> users;  ///< engine users that exist (host %); nullopt = unknown, assume all
  std::set<ColumnRef> foreign_masks;           ///< columns carrying a masking policy tagwarden does not own
};

/// Pure parsers of what a StarRocks server answers, unit-tested with recorded rows.
/// SHOW MASKING POLICIES / SHOW ROW ACCESS POLICIES [FROM db]: columns Name, Type, Catalog, Database;
/// returns the names tagwarden makes under `prefix` (prefix + exactly 16 lower-case hex digits); any
/// other name, even one starting with the prefix, is not tagwarden's.
std::vector<std::string> parse_policy_names(const std::vector<std::vector<std::optional<std::string>>>& rows,
                                            std::string_view prefix);
/// SHOW CREATE TABLE|VIEW|MATERIALIZED VIEW text: the masking policy of each column
/// (`... WITH MASKING POLICY p` on a column line) and the row access policies of the object
/// (`WITH ROW ACCESS POLICY p [ON (...)]`), policy names without their database qualifier.
struct PolicyAttachments {
  std::vector<std::pair<std::string, std::string>> masks;  ///< column -> policy
  std::vector<std::string> row_policies;
};
PolicyAttachments parse_policy_attachments(std::string_view create_text);

/// The ordered statements taking `live` to plan.desired: empty when they agree.
/// Order: prepare (create roles and policies), tighten (attach masks, revoke
/// memberships and privileges), widen (grant privileges, then memberships,
/// unset masks), cleanup (drop roles no longer wanted, whose remaining members
/// the new roles already cover, and unattached policies). Every prefix of the
/// list leaves each user with at most what the old or the new state allows.
/// Memberships of users missing from live.users are left out (and reported
/// by diff_findings).
std::vector<Statement> diff_statements(const Plan& plan, const LiveState& live);

/// Findings about the diff itself: users that do not exist, columns whose mask tagwarden may not replace.
std::vector<Finding> diff_findings(const Plan& plan, const LiveState& live);

/// The statements as a SQL script: phase comments, SET CATALOG where the
/// catalog changes (StarRocks), one statement per line ending in ';'.
/// header_comments are emitted first as '-- ' lines.
std::string statements_text(const Plan& plan, const std::vector<Statement>& statements,
                            const std::vector<std::string>& header_comments = {});

/// statements_text(plan, diff_statements(plan, LiveState{}), header_comments), written from the plan
/// without making each statement first; and how many statements that is (SET CATALOG not counted).
std::string empty_server_script(const Plan& plan, const std::vector<std::string>& header_comments = {});
std::size_t empty_server_statements(const Plan& plan);

nlohmann::json statements_json(const Plan& plan, const std::vector<Statement>& statements);

/// Whether a statement of `catalog` needs SET CATALOG first when the session is in `current`: only
/// on StarRocks, and only for statements that name a catalog (roles and users are global).
bool switches_catalog(Dialect dialect, std::string_view current, std::string_view catalog);

}  // namespace tw::starrocks

#pragma once
// The engine-neutral result of compiling one profile: who may do what on each
// object the profile sees, and on names the snapshot does not list, with the
// reason for every decision. Renderers only translate it; no renderer decides.

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tagwarden/compile/finding.h"
#include "tagwarden/compile/user_list.h"
#include "tagwarden/config/profile.h"
#include "tagwarden/model/policy.h"
#include "tagwarden/model/snapshot.h"

namespace tw {

struct EngineUser {
  std::string platform_name;
  std::string engine_name;
};

/// The strictest mask that applies to one column for one principal.
struct ColumnMask {
  std::string column;  ///< engine column name
  MaskKind kind = MaskKind::Full;
  int visible_chars = 0;  ///< partial only
  std::string type;       ///< the column's type, for typed expressions
  /// Partial only, 0 unless above visible_chars: values this short are fully masked. Two partial
  /// masks combine to the fewer visible characters and the longer fully masked values, so no
  /// value shows more than either mask alone would show (partial 4 hides "123" whole).
  int masked_through = 0;
  auto operator<=>(const ColumnMask&) const = default;

  /// The length up to which a partial mask shows nothing but '****'.
  int fully_masked_through() const { return masked_through > visible_chars ? masked_through : visible_chars; }
};

/// The mask a principal gets when both a and b apply to one column: the stricter kind, or for two
/// partial masks one that shows no value more than either does.
ColumnMask strictest(const ColumnMask& a, const ColumnMask& b);

/// "partial 4", "partial 2 (4 or fewer characters fully masked)", "hash", ...: how reasons and
/// change reports name a mask.
std::string describe(const ColumnMask& m);

/// What one principal may do on one object.
struct Access {
  PrivilegeSet privileges;
  std::vector<std::string> denied_columns;  ///< engine column names, sorted; empty unless SELECT is held
  std::vector<ColumnMask> masks;            ///< by column; never on a denied column; empty unless SELECT
  /// Resolved row filter as canonical JSON (engine-neutral condition with the
  /// principal's values bound as literals; {"false":true} = no rows); empty = no filter.
  std::string row_filter;
  /// Trino: the principal owns a listed DEFINER view or materialized view that reads this
  /// object, and holds SELECT on it. Trino reads a view's base objects as its owner when
  /// anyone else queries it, and asks for GRANT_SELECT there
  /// (checkCanCreateViewWithSelectFromColumns); only those owners get it.
  bool grant_select = false;
  /// Trino: the row filter reads a column this principal is refused, and is evaluated as this
  /// user (index into PolicySet::users: the object's owner). Trino checks SELECT on a filter's
  /// columns as the identity it runs as; as the reader, that check refuses the whole object
  /// (observed on 483), where MODEL §2 takes only the column.
  std::optional<std::size_t> filter_as;
  auto operator<=>(const Access&) const = default;
};

/// One principal's decision on one object, as the compiler works it out.
struct UserAccess {
  std::size_t user = 0;              ///< index into PolicySet::users
  Access access;                     ///< after gates
  PrivilegeSet granted;              ///< before gates, from grants
  std::vector<std::string> reasons;  ///< why access is less than granted; empty when equal
};

/// Users who share one decision on one object, for the same reasons. The user
/// list is shared between objects with the same partition, so the PolicySet
/// grows with objects x access classes, not objects x users.
struct AccessClass {
  UserListPtr users;                 ///< indices into PolicySet::users, sorted, never empty
  PrivilegeSet granted;              ///< before gates, from grants
  Access access;                     ///< after gates and access policies
  std::vector<std::string> reasons;  ///< why access is less than granted; empty when equal

  /// The first reason that starts with `marker` (a k...-constant naming a kind of refusal), if any:
  /// findings and explain find the classes a refusal kind touches by it.
  const std::string* reason_starting(std::string_view marker) const;
};

/// An object's classes, never changed once decided, and shared: the compile memo hands the
/// classes of an object decided alike to the next PolicySet as they are, instead of a copy.
class AccessClasses {
 public:
  AccessClasses() = default;
  AccessClasses(std::vector<AccessClass> classes)  // NOLINT: implicit, as the list it holds
      : list_(std::make_shared<const std::vector<AccessClass>>(std::move(classes))) {}
  const std::vector<AccessClass>& list() const { return list_ ? *list_ : empty_list(); }
  std::vector<AccessClass>::const_iterator begin() const { return list().begin(); }
  std::vector<AccessClass>::const_iterator end() const { return list().end(); }
  std::size_t size() const { return list().size(); }
  bool empty() const { return list().empty(); }
  const AccessClass& operator[](std::size_t i) const { return list()[i]; }

 private:
  static const std::vector<AccessClass>& empty_list();
  std::shared_ptr<const std::vector<AccessClass>> list_;
};

struct ObjectPolicy {
  std::size_t object = 0;       ///< index into the snapshot's objects
  QualifiedName platform_name;  ///< as in the snapshot
  QualifiedName engine_name;    ///< catalog renamed, lowercased for Trino
  ObjectKind kind = ObjectKind::Table;
  SharedStrings columns;       ///< engine column names in snapshot order (shared with the snapshot's Columns)
  SharedStrings column_types;  ///< the snapshot's type of each column, same order
  std::vector<std::string> object_gates;  ///< engine-gated tags on the whole object (own + inherited), sorted
  std::vector<std::pair<std::string, std::vector<std::string>>> column_gates;  ///< engine column -> gated tags
  /// Users holding any grant on it, in classes ordered by (access, granted, reasons, users).
  AccessClasses classes;

  /// The class holding `user`, or nullptr when the user holds no grant on the object.
  const AccessClass* class_of(std::size_t user) const;
};

/// Access to names the snapshot does not list (e.g. a table about to be created).
/// Ordered most specific first: the first pattern matching a name decides.
struct UnlistedRule {
  QualifiedName pattern;  ///< engine names; schema/table may be "*"; catalog is concrete
  /// The users holding something here, grouped by what they hold: privilege sets ascending, none
  /// empty, each with its users (non-empty, disjoint). At L every pattern lists most of 20,000
  /// users in a few groups; a pair per user was 120 MB of a StarRocks profile's peak, and patterns
  /// mostly share their groups' lists (the same role holds them).
  std::vector<std::pair<PrivilegeSet, UserListPtr>> access;
  /// The privileges `user` has here (empty when absent).
  PrivilegeSet privileges_of(std::size_t user) const;
  /// How many users hold something here.
  std::size_t holders() const;
  /// The same groups of the same users (lists compared by content).
  bool same_access(const UnlistedRule& other) const;
};

/// The unlisted rules, immutable once built and shared by the PolicySet, the compile memo and the
/// Trino render cache: they hold every user's privileges per pattern, and copying them between
/// the three was 5 % of a daemon pass at M.
class UnlistedRules {
 public:
  UnlistedRules() : rules_(std::make_shared<const std::vector<UnlistedRule>>()) {}
  UnlistedRules(std::vector<UnlistedRule> rules)  // NOLINT: a list of rules is UnlistedRules
      : rules_(std::make_shared<const std::vector<UnlistedRule>>(std::move(rules))) {}
  std::vector<UnlistedRule>::const_iterator begin() const { return rules_->begin(); }
  std::vector<UnlistedRule>::const_iterator end() const { return rules_->end(); }
  std::size_t size() const { return rules_->size(); }
  bool empty() const { return rules_->empty(); }
  const UnlistedRule& operator[](std::size_t i) const { return (*rules_)[i]; }
  /// The same rules: one shared list, or equal patterns and access.
  bool same_as(const UnlistedRules& other) const;

 private:
  std::shared_ptr<const std::vector<UnlistedRule>> rules_;
};

struct PolicySet {
  std::string profile;
  Engine engine = Engine::Trino;
  Timestamp generated_at;
  std::vector<EngineUser> users;        ///< every snapshot user, snapshot order
  std::vector<std::string> catalogs;    ///< engine catalog names, sorted
  std::vector<ObjectPolicy> objects;    ///< visible objects, sorted by engine name
  UnlistedRules unlisted;               ///< evaluation order
  std::vector<std::string> gated_tags;  ///< engine-gated tags present on this profile
  /// Users who may not create materialized views (MODEL §2). On Trino, where one OWNERSHIP of the
  /// new name carries every CREATE, they also lose OWNERSHIP in `unlisted`; on StarRocks they keep
  /// it (CREATE TABLE and CREATE VIEW) and only CREATE MATERIALIZED VIEW is withheld.
  std::vector<std::size_t> create_restricted;

  /// The privileges a user has on an unlisted name: first matching UnlistedRule.
  PrivilegeSet unlisted_access(std::size_t user, const QualifiedName& engine_name) const;
};

/// Stable JSON used by --emit-policyset, validate diffs and the differential tests.
nlohmann::json to_json(const PolicySet& ps);

}  // namespace tw

#pragma once
// Access policies (MODEL.md section 4) judged for one principal on one object:
// which apply and why, which were considered and did not, and the combined
// effect (deny wins; strictest mask; row filters ANDed; anything that cannot
// be satisfied for the principal becomes no rows). Pure.

#include <optional>
#include <string>
#include <vector>

#include "tagwarden/compile/model.h"
#include "tagwarden/compile/policy_set.h"

namespace tw {

struct PolicyDecision {
  std::string policy;
  PolicyType type = PolicyType::ColumnMask;
  bool applies = false;
  std::string reason;                ///< why it applies, or why not
  std::vector<std::string> columns;  ///< engine columns it reaches (masks, column deny)
  bool whole_object = false;         ///< deny of the object / row filter of the object
  MaskKind mask = MaskKind::Full;    ///< masks
  int visible_chars = 0;             ///< partial masks
  nlohmann::json filter;             ///< row filters: the resolved condition
  bool unsatisfiable = false;        ///< row filters: fails closed to no rows
};

/// Whether a decision's `reason` says how the user holds each role the policy names. Only explain
/// reads it: working it out scans the role assignments, once per user, object and policy, which
/// made deciding M's trino_a 4.5x slower when the compile paid for it too.
enum class PolicyReasons { Short, WithRoles };

/// Whether any enabled policy's scope reaches the object (judge_policies is then not empty, for
/// every user): what the compile memo asks of every object, without judging anyone. Reads the
/// model only (build_model keeps the answer per object: Model::policy_reached).
bool any_policy_reaches(const Model& m, std::size_t object);

/// The parts of the object the policy's scope reaches, as StarRocks counts policies: 1 for the
/// whole object (its own tags or its bases'), else one per column reached, 0 when out of scope.
std::size_t reached_parts(const Model& m, std::size_t object, const Policy& p);

/// Every enabled policy whose scope reaches the object, judged for `user`.
std::vector<PolicyDecision> judge_policies(const Model& m, const ObjectPolicy& op, std::size_t user,
                                           PolicyReasons reasons = PolicyReasons::Short);

/// How the reason starts when a mask applies to the whole object and the snapshot lists none of
/// its columns: the engines mask by column name, so its users lose SELECT instead (fail closed).
inline constexpr const char* kMaskWithoutColumns = "SELECT withheld: no column to mask";

/// Folds the decisions into `ua.access` (which already reflects clearances) and its reasons.
void apply_policy_decisions(const std::vector<PolicyDecision>& decisions, const ObjectPolicy& op, UserAccess& ua);

/// Canonical text of a resolved condition, for comparing and keying classes.
std::string canonical(const nlohmann::json& condition);

/// How a column of a snapshot type takes a literal in a row filter. Each resolved
/// comparison carries the column's type ("type"), so the engine can type its literal.
/// A snapshot column type read by its grammar, name [ ( p [, s] ) ] [ with[out] time zone ], as
/// the loader accepts it; nullopt when it does not read so. Engines spell types from it.
struct TypeName {
  std::string name;             ///< lower case, as written (no alias resolved)
  int precision = -1;           ///< first parameter, -1 when absent
  int scale = -1;               ///< second parameter, -1 when absent
  bool with_time_zone = false;  ///< `with time zone`
  bool zone_given = false;      ///< `with time zone` or `without time zone`
};
std::optional<TypeName> parse_type_name(const std::string& type);

enum class LiteralKind { String, Boolean, Integer, Decimal, Double, Date, Time, Timestamp, TimestampTz, None };
LiteralKind literal_kind(const std::string& column_type);

/// `value` as a value the column can hold, normalized (dates and times as ISO text with a
/// space before the time, decimals as plain digits), or nullopt with the reason in `why`:
/// the wrong JSON type, out of range for the integer type, not representable in decimal(p,s),
/// a malformed or impossible date, or a column type no literal is made for. Pure; the same
/// function decides at compile time and again when an engine renders the literal.
std::optional<nlohmann::json> typed_value(const std::string& column_type, const nlohmann::json& value,
                                          std::string& why);

}  // namespace tw

#pragma once
// Access policies (MODEL.md section 4) as validated values. Conditions stay
// JSON: their meaning is decided per principal at compile time, where anything
// that cannot be satisfied fails closed to no rows.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace tw {

enum class PolicyType { ColumnMask, RowFilter, Deny };
enum class MaskKind { Partial = 1, Hash = 2, Full = 3, Null = 4 };  ///< higher = stricter

const char* to_string(PolicyType t);
const char* to_string(MaskKind m);

struct PolicyScope {
  enum class Kind { Object, Column, Tag, Domain, LevelAtLeast };
  Kind kind = Kind::Object;
  std::string name;  ///< object c.s.t, column c.s.t.col, tag, or domain path
  int level = 0;     ///< LevelAtLeast only
  bool operator==(const PolicyScope&) const = default;
};

/// A column scope `catalog.schema.object.column` as (object, column), split after its third dot:
/// an object name has exactly three parts and none holds a dot, while a column name may
/// (`c.s.t.c.1` is column `c.1` of `c.s.t`). nullopt when the scope has fewer than three dots.
std::optional<std::pair<std::string_view, std::string_view>> split_column_scope(std::string_view scope);

struct PrincipalSet {
  std::vector<std::string> roles;
  std::vector<std::string> users;
  bool empty() const { return roles.empty() && users.empty(); }
  bool operator==(const PrincipalSet&) const = default;
};

struct Policy {
  std::string name;
  bool enabled = true;
  PolicyType type = PolicyType::ColumnMask;
  MaskKind mask = MaskKind::Full;
  int visible_chars = 0;  ///< partial only, 1-8
  PolicyScope scope;
  PrincipalSet applies_to;  ///< empty = everyone
  PrincipalSet exempt;
  nlohmann::json condition;  ///< row_filter only
  bool operator==(const Policy&) const = default;
};

}  // namespace tw

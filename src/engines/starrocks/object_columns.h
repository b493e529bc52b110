#pragma once
// What rendering asks of a listed object's columns: the SQL type a policy gives each one, and
// whether a clearance gate guards it.

#include <string>
#include <unordered_map>

#include "tagwarden/compile/policy_set.h"
#include "tagwarden/engines/starrocks/sql.h"

namespace tw::starrocks {

/// The SQL type of each snapshot type, or "" (sql::mask_type), computed once per distinct type.
class TypeCache {
 public:
  const std::string& operator()(const std::string& snapshot_type) {
    auto it = types_.find(snapshot_type);
    if (it == types_.end()) it = types_.emplace(snapshot_type, sql::mask_type(snapshot_type)).first;
    return it->second;
  }

 private:
  std::unordered_map<std::string, std::string> types_;
};

/// The SQL type of one column of `op`, or "" when it has none (unknown column or type).
std::string column_type(const ObjectPolicy& op, const std::string& column, TypeCache& types);

/// Whether a clearance gate guards `column` of `op`.
bool gated_column(const ObjectPolicy& op, const std::string& column);

}  // namespace tw::starrocks

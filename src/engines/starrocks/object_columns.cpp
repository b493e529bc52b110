#include "object_columns.h"

#include <algorithm>

namespace tw::starrocks {

std::string column_type(const ObjectPolicy& op, const std::string& column, TypeCache& types) {
  auto it = std::find(op.columns.begin(), op.columns.end(), column);
  if (it == op.columns.end()) return "";
  const auto i = static_cast<std::size_t>(it - op.columns.begin());
  return i < op.column_types.size() ? types(op.column_types[i]) : "";
}

bool gated_column(const ObjectPolicy& op, const std::string& column) {
  return std::any_of(op.column_gates.begin(), op.column_gates.end(), [&](const auto& g) { return g.first == column; });
}

}  // namespace tw::starrocks

#pragma once
// The columns a resolved row filter reads (canonical condition JSON, Access::row_filter): the
// compiler runs a filter reading a refused column as the owner on Trino, and the StarRocks
// renderer types a row access policy by them.

#include <nlohmann/json.hpp>
#include <set>
#include <string>

namespace tw {

/// Engine column names the condition compares, sorted; empty for {"true": true} and {"false": true}.
std::set<std::string> filter_columns(const nlohmann::json& condition);

}  // namespace tw

#pragma once
// The columns a resolved row filter reads (Access::row_filter, canonical JSON).

#include <set>
#include <string>

namespace tw {

/// Engine column names the condition compares; empty for {"true": true} and {"false": true}.
std::set<std::string> filter_columns(const std::string& canonical_filter);

}  // namespace tw

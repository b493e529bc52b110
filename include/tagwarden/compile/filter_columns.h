#pragma once
// The columns a resolved row filter reads (canonical condition JSON, Access::row_filter): the
// compiler runs a filter reading a refused column as the owner on Trino, and the StarRocks
// renderer types a row access policy by them.

#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>

#include "tagwarden/compile/policy_set.h"

namespace tw {

/// Engine column names the condition compares, sorted; empty for {"true": true} and {"false": true}.
std::set<std::string> filter_columns(const nlohmann::json& condition);

/// The first column (by name) that `access`'s row filter reads and its holder is refused, if any:
/// on Trino the filter then cannot run as that holder.
std::optional<std::string> refused_filter_column(const Access& access);

/// How an access class's reason starts when its row filter reads a column its users are refused and
/// nobody may run it in their place: Trino then refuses them every query of the object.
inline constexpr const char* kFilterRefusesObject = "on Trino every query of the object is refused to them";

/// That reason of `cls`, if it has it (findings and explain read it).
const std::string* filter_refusal(const AccessClass& cls);

/// Whether `user` holds SELECT with `column` not refused, per an object's access classes: whom a
/// row filter may run as on Trino.
bool reads_column(const std::vector<AccessClass>& classes, std::size_t user, const std::string& column);

}  // namespace tw

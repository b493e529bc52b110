#pragma once
// SQL expressions Trino evaluates for column masks and row filters. Every
// identifier is double-quoted and every value is a quoted literal, so nothing
// from the snapshot can change the expression's shape.

#include <optional>
#include <string>
#include <string_view>

#include "tagwarden/compile/policy_set.h"

namespace tw::trino {

std::string quote_identifier(std::string_view name);
std::string string_literal(std::string_view value);
/// Trino's spelling of a snapshot column type (string -> varchar, int(11) -> integer,
/// "varchar (10)" -> varchar(10), ...), or nullopt when Trino has no such type (largeint,
/// decimal(40,2), timestamp(13), unknown names).
std::optional<std::string> known_trino_type(const std::string& type);
/// known_trino_type, or the type lowercased when Trino has none: a cast to it fails closed.
std::string trino_type(const std::string& type);
/// The mask expression, typed to the column: masks that cannot type-check
/// (e.g. a full mask of a date) become a typed NULL, the strictest.
std::string mask_expression(const ColumnMask& mask);
/// A resolved condition (see Access::row_filter) as a boolean SQL expression.
std::string filter_expression(const std::string& canonical_condition);

}  // namespace tw::trino

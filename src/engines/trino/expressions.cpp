#include "expressions.h"

#include <cstdint>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "tagwarden/compile/access_policies.h"
#include "tagwarden/engines/trino/rules.h"
#include "tagwarden/util/text.h"

namespace tw::trino {
namespace {

using nlohmann::json;

bool is_string(const std::string& trino) {
  return trino == "varchar" || trino.rfind("varchar(", 0) == 0 || trino.rfind("char", 0) == 0;
}

// Trino reads a bare integer as a bigint literal, and refuses one beyond 2^63 - 1 as unparsable.
bool fits_bigint(const json& v) {
  return v.is_number_integer() &&
         (!v.is_number_unsigned() ||
          v.get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()));
}

std::string literal(const json& v) {
  if (v.is_string()) return string_literal(v.get<std::string>());
  if (v.is_boolean()) return v.get<bool>() ? "TRUE" : "FALSE";
  if (fits_bigint(v)) return v.dump();
  if (v.is_number()) return "DOUBLE '" + v.dump() + "'";
  throw std::invalid_argument("a condition value must be a string, number or boolean");
}

// A literal typed to the comparison's column ("type", set by the compiler), or nullopt when the
// value is not one the column can hold (the compiler never emits one; checked again here so the
// comparison fails closed rather than erroring in Trino). Every text goes through string_literal.
std::optional<std::string> typed_literal(const json& c, const json& v) {
  if (!c.contains("type")) return literal(v);  // a condition resolved without column types
  if (!c["type"].is_string()) return std::nullopt;
  const std::string type = c["type"].get<std::string>();
  std::string why;
  const auto typed = typed_value(type, v, why);
  if (!typed || *typed != v) return std::nullopt;
  switch (literal_kind(type)) {
    case LiteralKind::String:
      return string_literal(v.get<std::string>());
    case LiteralKind::Boolean:
      return v.get<bool>() ? "TRUE" : "FALSE";
    case LiteralKind::Integer:
      return v.dump();
    case LiteralKind::Double:
      if (fits_bigint(v)) return v.dump();
      return (lowercase_identifier(type).rfind("double", 0) == 0 ? "DOUBLE " : "REAL ") + string_literal(v.dump());
    case LiteralKind::Decimal:
      return "DECIMAL " + string_literal(v.get<std::string>());
    case LiteralKind::Date:
      return "DATE " + string_literal(v.get<std::string>());
    case LiteralKind::Time:
      return "TIME " + string_literal(v.get<std::string>());
    case LiteralKind::Timestamp:
    case LiteralKind::TimestampTz:
      return "TIMESTAMP " + string_literal(v.get<std::string>());
    case LiteralKind::None:
      break;
  }
  return std::nullopt;
}

std::string render(const json& c) {
  if (c.contains("true")) return "true";
  if (c.contains("false")) return "1 = 0";
  for (const char* junction : {"and", "or"}) {
    if (!c.contains(junction)) continue;
    std::string out;
    for (const auto& part : c[junction]) {
      out += out.empty() ? "" : (std::string(junction) == "and" ? " AND " : " OR ");
      out += "(" + render(part) + ")";
    }
    return out;
  }
  const std::string col = quote_identifier(c.at("column").get<std::string>());
  const std::string op = c.at("op").get<std::string>();
  if (op == "is_null") return col + " IS NULL";
  if (op == "is_not_null") return col + " IS NOT NULL";
  static const std::pair<const char*, const char*> kCompare[] = {{"eq", " = "},   {"ne", " <> "}, {"gt", " > "},
                                                                 {"gte", " >= "}, {"lt", " < "},  {"lte", " <= "}};
  for (const auto& [name, sql] : kCompare) {
    if (op != name) continue;
    const auto lit = typed_literal(c, c.at("value"));
    return lit ? col + sql + *lit : "1 = 0";
  }
  const json& values = c.at("values");
  if (values.empty()) return op == "in" ? "1 = 0" : "true";
  std::string list;
  for (const auto& v : values) {
    const auto lit = typed_literal(c, v);
    if (!lit) return "1 = 0";  // never drop one value: for not_in that would widen
    list += (list.empty() ? "" : ", ") + *lit;
  }
  return col + (op == "in" ? " IN (" : " NOT IN (") + list + ")";
}

}  // namespace

std::string quote_identifier(std::string_view name) {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string string_literal(std::string_view value) {
  std::string out = "'";
  for (char c : value) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

std::optional<std::string> known_trino_type(const std::string& type) {
  const std::optional<TypeName> tn = parse_type_name(type);
  if (!tn) return std::nullopt;
  static const std::map<std::string, std::string> kAliases = {
      {"string", "varchar"},     {"text", "varchar"}, {"int", "integer"},    {"float", "real"},
      {"datetime", "timestamp"}, {"bool", "boolean"}, {"numeric", "decimal"}};
  const auto alias = kAliases.find(tn->name);
  const std::string name = alias == kAliases.end() ? tn->name : alias->second;
  const std::size_t given = tn->scale >= 0 ? 2 : tn->precision >= 0 ? 1 : 0;
  const auto with_params = [&](std::size_t most) -> std::optional<std::string> {
    if (given > most) return std::nullopt;
    if (given == 0) return name;
    return name + "(" + std::to_string(tn->precision) + (given == 2 ? "," + std::to_string(tn->scale) : "") + ")";
  };
  if (name == "time" || name == "timestamp") {
    if (tn->precision > 12) return std::nullopt;
    auto out = with_params(1);
    if (out && tn->with_time_zone) *out += " with time zone";
    return out;
  }
  if (tn->zone_given) return std::nullopt;
  // An integer's parameter is a display width (MySQL's int(11)): the type is the same.
  if (name == "tinyint" || name == "smallint" || name == "integer" || name == "bigint")
    return given <= 1 ? std::optional<std::string>(name) : std::nullopt;
  if (name == "varchar" || name == "char") return tn->precision == 0 ? std::nullopt : with_params(1);
  if (name == "decimal") {
    if (given > 0 && (tn->precision < 1 || tn->precision > 38 || tn->scale > tn->precision)) return std::nullopt;
    return with_params(2);
  }
  static const std::set<std::string> kPlain = {"boolean",   "real", "double", "date",
                                               "varbinary", "json", "uuid",   "ipaddress"};
  if (kPlain.count(name)) return with_params(0);
  return std::nullopt;
}

std::string trino_type(const std::string& type) {
  if (auto known = known_trino_type(type)) return *known;
  return lowercase_identifier(type);  // Trino refuses it: the cast fails closed (finding trino_mask_type_unknown)
}

std::string mask_expression(const ColumnMask& m) {
  const std::string type = trino_type(m.type);
  const std::string col = quote_identifier(m.column);
  if (m.kind == MaskKind::Null || !is_string(type)) return "CAST(NULL AS " + type + ")";
  // Trino pads a char(n) value with spaces to n characters: length() of one is always n and its
  // last characters are padding, so a partial mask read from the column itself showed a short
  // value that must be fully masked ('abcd', 8 visible: '****cd    ', observed on 483). The
  // value without its padding is the char cast to varchar; masks read that.
  const std::string value = type.rfind("char", 0) == 0 ? "CAST(" + col + " AS varchar)" : col;
  std::string expr;
  switch (m.kind) {
    case MaskKind::Full:
      expr = "'****'";
      break;
    case MaskKind::Partial: {
      const std::string n = std::to_string(m.visible_chars);
      expr = "CASE WHEN length(" + value + ") <= " + std::to_string(m.fully_masked_through()) +
             " THEN '****' ELSE concat('****', substr(" + value + ", -" + n + ")) END";
      break;
    }
    case MaskKind::Hash:
      expr = "lower(to_hex(sha256(to_utf8(" + value + "))))";
      break;
    case MaskKind::Null:
      break;
  }
  if (type != "varchar") expr = "CAST(" + expr + " AS " + type + ")";
  return expr;
}

nlohmann::json enforced_expressions(const Access& access) {
  json masks = json::object();
  for (const auto& m : access.masks) masks[m.column] = mask_expression(m);
  json out = {{"trino_masks", masks}};
  out["trino_filter"] = access.row_filter.empty() ? json() : json(filter_expression(access.row_filter));
  return out;
}

std::string filter_expression(const std::string& canonical_condition) {
  return render(json::parse(canonical_condition));
}

}  // namespace tw::trino

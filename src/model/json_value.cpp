#include "tagwarden/model/json_value.h"

#include <algorithm>

namespace tw {

std::int64_t JsonValue::integer() const {
  if (type() == Type::UINT64) return static_cast<std::int64_t>(element_.get_uint64().value_unsafe());
  return element_.get_int64().value_unsafe();
}

std::size_t JsonValue::size() const {
  if (is_array()) return element_.get_array().value_unsafe().size();
  if (is_object()) return element_.get_object().value_unsafe().size();
  return 0;
}

std::optional<JsonValue> JsonValue::find(std::string_view key) const {
  if (!is_object()) return std::nullopt;
  simdjson::dom::element found;
  if (element_.get_object().value_unsafe().at_key(key).get(found)) return std::nullopt;
  return JsonValue(found);
}

std::vector<JsonValue::Member> JsonValue::sorted_members() const {
  std::vector<Member> out;
  for (Member m : members()) out.push_back(m);
  std::sort(out.begin(), out.end(), [](const Member& a, const Member& b) { return a.key < b.key; });
  return out;
}

const char* JsonValue::type_name() const {
  switch (type()) {
    case Type::OBJECT:
      return "a mapping";
    case Type::ARRAY:
      return "a list";
    case Type::STRING:
      return "a string";
    case Type::BOOL:
      return "a boolean";
    case Type::INT64:
    case Type::UINT64:
    case Type::DOUBLE:
      return "a number";
    case Type::NULL_VALUE:
      return "null";
  }
  return "null";
}

nlohmann::json JsonValue::to_nlohmann() const {
  switch (type()) {
    case Type::OBJECT: {
      nlohmann::json out = nlohmann::json::object();
      for (Member m : members()) out[std::string(m.key)] = m.value.to_nlohmann();
      return out;
    }
    case Type::ARRAY: {
      nlohmann::json out = nlohmann::json::array();
      for (JsonValue item : elements()) out.push_back(item.to_nlohmann());
      return out;
    }
    case Type::STRING:
      return std::string(string());
    case Type::BOOL:
      return boolean();
    case Type::INT64: {
      const std::int64_t v = element_.get_int64().value_unsafe();
      if (v >= 0) return static_cast<std::uint64_t>(v);
      return v;
    }
    case Type::UINT64:
      return element_.get_uint64().value_unsafe();
    case Type::DOUBLE:
      return element_.get_double().value_unsafe();
    case Type::NULL_VALUE:
      return nullptr;
  }
  return nullptr;
}

}  // namespace tw

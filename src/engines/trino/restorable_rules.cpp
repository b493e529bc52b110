#include <simdjson.h>

#include "tagwarden/engines/trino/rules.h"

namespace tw::trino {

// Read on demand, not into a tree: a stored document is 1 GB at L, and a tree of it would take
// several times that at every restart.
bool restorable_rules(const std::string& text) {
  namespace od = simdjson::ondemand;
  std::string copy;
  const std::string* padded = &text;
  if (text.capacity() < text.size() + simdjson::SIMDJSON_PADDING) {
    copy.reserve(text.size() + simdjson::SIMDJSON_PADDING);
    copy = text;
    padded = &copy;
  }
  od::parser parser;
  od::document doc;
  if (parser.iterate(padded->data(), padded->size(), padded->capacity()).get(doc)) return false;
  od::object root;
  if (doc.get_object().get(root)) return false;
  bool catalogs_closed = false, schemas = false, tables = false;
  for (auto member : root) {
    od::field field;
    std::string_view key;
    if (std::move(member).get(field) || field.unescaped_key().get(key)) return false;
    od::array list;
    if (key == "catalogs") {
      if (field.value().get_array().get(list)) return false;
      // The last catalog rule allows nothing: exactly {"allow": "none"}.
      for (auto element : list) {
        od::object rule;
        if (element.get_object().get(rule)) return false;
        std::size_t fields = 0;
        bool none = false;
        for (auto rule_member : rule) {
          od::field f;
          std::string_view name, value;
          if (std::move(rule_member).get(f) || f.unescaped_key().get(name)) return false;
          ++fields;
          if (name == "allow" && !f.value().get_string().get(value)) none = value == "none";
        }
        catalogs_closed = fields == 1 && none;
      }
    } else if (key == "schemas" || key == "tables") {
      od::json_type type;
      if (field.value().type().get(type) || type != od::json_type::array) return false;
      (key == "schemas" ? schemas : tables) = true;
    }
  }
  return catalogs_closed && schemas && tables;
}

}  // namespace tw::trino

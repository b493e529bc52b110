#include "tagwarden/model/entry_reader.h"

#include <set>

namespace tw {

std::string index_path(const std::string& path, std::size_t i) { return path + "[" + std::to_string(i) + "]"; }

std::string key_path(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

namespace {

// Decodes one UTF-8 sequence; returns its length or 0 when invalid.
std::size_t utf8_char(std::string_view s, std::size_t i, char32_t& cp) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  std::size_t len;
  if (c < 0x80) {
    cp = c;
    return 1;
  } else if ((c & 0xE0) == 0xC0) {
    len = 2;
    cp = c & 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    len = 3;
    cp = c & 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    len = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  for (std::size_t k = 1; k < len; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(i + k) & 0x3F);
  }
  static constexpr char32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

std::string json_type(const nlohmann::json& v) {
  if (v.is_object()) return "a mapping";
  if (v.is_array()) return "a list";
  if (v.is_string()) return "a string";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number()) return "a number";
  return "null";
}

}  // namespace

bool check_name(const std::string& name, const std::string& path, std::string_view what,
                std::vector<ValidationError>& errors) {
  if (name.empty()) {
    errors.push_back({path, std::string(what) + " must not be empty"});
    return false;
  }
  if (name.size() > 256) {
    errors.push_back({path, std::string(what) + " is longer than 256 bytes"});
    return false;
  }
  for (std::size_t i = 0; i < name.size();) {
    char32_t cp = 0;
    const std::size_t len = utf8_char(name, i, cp);
    if (len == 0) {
      errors.push_back({path, std::string(what) + " is not valid UTF-8"});
      return false;
    }
    if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0) || cp == 0x2028 || cp == 0x2029) {
      errors.push_back({path, std::string(what) + " " +
                                  nlohmann::json(name).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
                                  " contains a control character, which engines cannot quote"});
      return false;
    }
    i += len;
  }
  return true;
}

EntryReader::EntryReader(const nlohmann::json& value, std::string path, std::vector<ValidationError>& errors,
                         std::initializer_list<std::string_view> allowed_keys)
    : value_(value), path_(std::move(path)), errors_(errors) {
  if (!value_.is_object()) {
    errors_.push_back({path_, "must be a mapping, found " + json_type(value_)});
    return;
  }
  for (const auto& [key, unused] : value_.items()) {
    bool known = false;
    for (std::string_view allowed : allowed_keys) known = known || key == allowed;
    if (!known) {
      std::string hint;
      for (std::string_view allowed : allowed_keys) hint += (hint.empty() ? "" : ", ") + std::string(allowed);
      errors_.push_back({key_path(path_, key), "unknown key \"" + key + "\" (expected one of: " + hint + ")"});
    }
  }
}

bool EntryReader::has(std::string_view key) const {
  return value_.is_object() && value_.contains(std::string(key)) && !value_.at(std::string(key)).is_null();
}

const nlohmann::json* EntryReader::get(std::string_view key, bool required, const char* expected) {
  if (!value_.is_object()) return nullptr;
  auto it = value_.find(std::string(key));
  if (it == value_.end() || it->is_null()) {
    if (required) errors_.push_back({path(key), std::string("is required (") + expected + ")"});
    return nullptr;
  }
  return &*it;
}

std::optional<std::string> EntryReader::string(std::string_view key, bool required) {
  const nlohmann::json* v = get(key, required, "a string");
  if (!v) return std::nullopt;
  if (!v->is_string()) {
    errors_.push_back({path(key), "must be a string, found " + json_type(*v)});
    return std::nullopt;
  }
  return v->get<std::string>();
}

std::optional<bool> EntryReader::boolean(std::string_view key) {
  const nlohmann::json* v = get(key, false, "true or false");
  if (!v) return std::nullopt;
  if (!v->is_boolean()) {
    errors_.push_back({path(key), "must be true or false, found " + json_type(*v)});
    return std::nullopt;
  }
  return v->get<bool>();
}

std::optional<std::int64_t> EntryReader::integer(std::string_view key) {
  const nlohmann::json* v = get(key, false, "an integer");
  if (!v) return std::nullopt;
  if (!v->is_number_integer()) {
    errors_.push_back({path(key), "must be an integer, found " + json_type(*v)});
    return std::nullopt;
  }
  return v->get<std::int64_t>();
}

const nlohmann::json* EntryReader::array(std::string_view key, bool required) {
  const nlohmann::json* v = get(key, required, "a list");
  if (v && !v->is_array()) {
    errors_.push_back({path(key), "must be a list, found " + json_type(*v)});
    return nullptr;
  }
  return v;
}

const nlohmann::json* EntryReader::mapping(std::string_view key, bool required) {
  const nlohmann::json* v = get(key, required, "a mapping");
  if (v && !v->is_object()) {
    errors_.push_back({path(key), "must be a mapping, found " + json_type(*v)});
    return nullptr;
  }
  return v;
}

std::vector<std::string> EntryReader::string_list(std::string_view key, std::string_view what) {
  std::vector<std::string> out;
  const nlohmann::json* list = array(key, false);
  if (!list) return out;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const std::string p = index_path(path(key), i);
    const nlohmann::json& item = (*list)[i];
    if (!item.is_string()) {
      errors_.push_back({p, "must be a string, found " + json_type(item)});
      continue;
    }
    std::string s = item.get<std::string>();
    if (!check_name(s, p, what, errors_)) continue;
    if (!seen.insert(s).second) {
      errors_.push_back({p, "duplicate " + std::string(what) + " \"" + s + "\""});
      continue;
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace tw

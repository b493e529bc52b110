#include "tagwarden/model/entry_reader.h"

#include <algorithm>
#include <nlohmann/json.hpp>

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

}  // namespace

std::optional<std::size_t> invalid_utf8_offset(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    char32_t cp = 0;
    const std::size_t len = utf8_char(s, i, cp);
    if (len == 0) return i;
    i += len;
  }
  return std::nullopt;
}

std::optional<std::string> name_problem(std::string_view name, std::string_view what) {
  if (name.empty()) return std::string(what) + " must not be empty";
  if (name.size() > 256) return std::string(what) + " is longer than 256 bytes";
  for (std::size_t i = 0; i < name.size();) {
    char32_t cp = 0;
    const std::size_t len = utf8_char(name, i, cp);
    if (len == 0) return std::string(what) + " is not valid UTF-8";
    if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0) || cp == 0x2028 || cp == 0x2029) {
      return std::string(what) + " " +
             nlohmann::json(std::string(name)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
             " contains a control character, which engines cannot quote";
    }
    i += len;
  }
  return std::nullopt;
}

bool check_name(std::string_view name, const std::string& path, std::string_view what,
                std::vector<ValidationError>& errors) {
  std::optional<std::string> problem = name_problem(name, what);
  if (problem) errors.push_back({path, std::move(*problem)});
  return !problem;
}

bool DistinctNames::insert(std::string_view name) {
  if (!many_.empty()) return many_.emplace(name).second;
  for (const std::string& n : few_) {
    if (n == name) return false;
  }
  few_.emplace_back(name);
  if (few_.size() > 32) {
    many_.insert(few_.begin(), few_.end());
    few_.clear();
  }
  return true;
}

EntryReader::EntryReader(JsonValue value, std::string path, std::vector<ValidationError>& errors,
                         std::initializer_list<std::string_view> allowed_keys)
    : value_(value), path_(std::move(path)), errors_(errors) {
  check_keys(allowed_keys);
}

EntryReader::EntryReader(JsonValue value, std::string_view list_path, std::size_t index,
                         std::vector<ValidationError>& errors, std::initializer_list<std::string_view> allowed_keys)
    : value_(value), list_path_(list_path), index_(index), path_built_(false), errors_(errors) {
  check_keys(allowed_keys);
}

const std::string& EntryReader::path() const {
  if (!path_built_) {
    path_.reserve(list_path_.size() + 8);
    path_ = list_path_;
    path_ += '[';
    path_ += std::to_string(index_);
    path_ += ']';
    path_built_ = true;
  }
  return path_;
}

void EntryReader::check_keys(std::initializer_list<std::string_view> allowed_keys) {
  if (!value_.is_object()) {
    errors_.push_back({path(), std::string("must be a mapping, found ") + value_.type_name()});
    return;
  }
  std::vector<std::string_view> unknown;
  for (const JsonValue::Member m : value_.members()) {
    bool known = false;
    for (std::string_view allowed : allowed_keys) known = known || m.key == allowed;
    if (!known) unknown.push_back(m.key);
  }
  if (unknown.empty()) return;
  std::string hint;
  for (std::string_view allowed : allowed_keys) hint += (hint.empty() ? "" : ", ") + std::string(allowed);
  std::sort(unknown.begin(), unknown.end());  // the order of sorted_members(), as always reported
  for (std::string_view key : unknown) {
    errors_.push_back(
        {key_path(path(), key), "unknown key \"" + std::string(key) + "\" (expected one of: " + hint + ")"});
  }
}

bool EntryReader::valid_name(std::string_view key, std::string_view name, std::string_view what) {
  std::optional<std::string> problem = name_problem(name, what);
  if (problem) errors_.push_back({path(key), std::move(*problem)});
  return !problem;
}

bool EntryReader::has(std::string_view key) const {
  const std::optional<JsonValue> v = value_.find(key);
  return v && !v->is_null();
}

bool EntryReader::is_null(std::string_view key) const {
  const std::optional<JsonValue> v = value_.find(key);
  return v && v->is_null();
}

std::optional<JsonValue> EntryReader::get(std::string_view key, bool required, const char* expected) {
  std::optional<JsonValue> v = value_.find(key);
  if (!v || v->is_null()) {
    if (required && value_.is_object()) errors_.push_back({path(key), std::string("is required (") + expected + ")"});
    return std::nullopt;
  }
  return v;
}

std::optional<std::string> EntryReader::string(std::string_view key, bool required) {
  const std::optional<JsonValue> v = get(key, required, "a string");
  if (!v) return std::nullopt;
  if (!v->is_string()) {
    errors_.push_back({path(key), std::string("must be a string, found ") + v->type_name()});
    return std::nullopt;
  }
  return std::string(v->string());
}

std::optional<bool> EntryReader::boolean(std::string_view key) {
  const std::optional<JsonValue> v = get(key, false, "true or false");
  if (!v) return std::nullopt;
  if (!v->is_boolean()) {
    errors_.push_back({path(key), std::string("must be true or false, found ") + v->type_name()});
    return std::nullopt;
  }
  return v->boolean();
}

std::optional<std::int64_t> EntryReader::integer(std::string_view key) {
  const std::optional<JsonValue> v = get(key, false, "an integer");
  if (!v) return std::nullopt;
  if (!v->is_integer()) {
    errors_.push_back({path(key), std::string("must be an integer, found ") + v->type_name()});
    return std::nullopt;
  }
  return v->integer();
}

std::optional<JsonValue> EntryReader::array(std::string_view key, bool required) {
  std::optional<JsonValue> v = get(key, required, "a list");
  if (v && !v->is_array()) {
    errors_.push_back({path(key), std::string("must be a list, found ") + v->type_name()});
    return std::nullopt;
  }
  return v;
}

std::optional<JsonValue> EntryReader::mapping(std::string_view key, bool required) {
  std::optional<JsonValue> v = get(key, required, "a mapping");
  if (v && !v->is_object()) {
    errors_.push_back({path(key), std::string("must be a mapping, found ") + v->type_name()});
    return std::nullopt;
  }
  return v;
}

std::vector<std::string> EntryReader::string_list(std::string_view key, std::string_view what) {
  std::vector<std::string> out;
  const std::optional<JsonValue> list = array(key, false);
  if (!list) return out;
  DistinctNames seen;
  for (const auto [i, item] : list->indexed()) {
    if (!item.is_string()) {
      errors_.push_back({index_path(path(key), i), std::string("must be a string, found ") + item.type_name()});
      continue;
    }
    const std::string_view s = item.string();
    if (std::optional<std::string> problem = name_problem(s, what)) {
      errors_.push_back({index_path(path(key), i), std::move(*problem)});
      continue;
    }
    if (!seen.insert(s)) {
      errors_.push_back({index_path(path(key), i), "duplicate " + std::string(what) + " \"" + std::string(s) + "\""});
      continue;
    }
    out.emplace_back(s);
  }
  return out;
}

}  // namespace tw

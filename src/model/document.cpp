#include "tagwarden/model/document.h"

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <unordered_set>

#include "tagwarden/model/entry_reader.h"
#include "yaml_documents.h"

namespace tw {

struct JsonDocument::Impl {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
};

JsonDocument::JsonDocument() = default;
JsonDocument::JsonDocument(JsonDocument&&) noexcept = default;
JsonDocument& JsonDocument::operator=(JsonDocument&&) noexcept = default;
JsonDocument::~JsonDocument() = default;

bool JsonDocument::has_value() const { return impl_ != nullptr; }

JsonValue JsonDocument::root() const { return JsonValue(impl_->root); }

// Builds JsonDocuments (a friend of JsonDocument).
struct DocumentParser {
  using Errors = std::vector<std::pair<std::string, std::string>>;

  static DocumentParse json(std::string_view text);
  static DocumentParse yaml(std::string_view text);
};

namespace {

std::string child_path(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

// A YAML number as JSON text reads it (nlohmann: strtod): a value too small for a
// double becomes 0 or subnormal, one too large is refused. std::stod threw on both,
// which refused the snapshot with the one word "stod" and no path.
nlohmann::json yaml_floating_point(const std::string& s, const std::string& path, DocumentParser::Errors& errors) {
  errno = 0;
  const double v = std::strtod(s.c_str(), nullptr);
  if (errno == ERANGE && std::isinf(v)) {
    errors.emplace_back(path, "invalid YAML: number overflow parsing '" + s + "'");
    return nullptr;
  }
  // Too small for a double: read as 0, 1e-400 compared with an integer column would match 0.
  const std::string mantissa = s.substr(0, s.find_first_of("eE"));
  if ((v == 0.0 && mantissa.find_first_of("123456789") != std::string::npos) || std::fpclassify(v) == FP_SUBNORMAL) {
    errors.emplace_back(path, "the number " + s +
                                  " is too small for a double (it would read as 0 or lose its digits); write 0 or a "
                                  "number a double holds");
    return nullptr;
  }
  return v;
}

// YAML 1.2 core schema resolution for plain scalars; quoted scalars stay strings.
nlohmann::json yaml_scalar(const YAML::Node& node, const std::string& path, DocumentParser::Errors& errors) {
  const std::string& s = node.Scalar();
  if (node.Tag() == "!" || node.Tag() == "tag:yaml.org,2002:str") return s;
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  static const std::regex integer(R"([-+]?[0-9]+)");
  static const std::regex floating(R"([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?)");
  if (std::regex_match(s, integer)) {
    // Beyond int64 an integer is read as JSON text reads it (nlohmann): unsigned up to
    // 2^64-1, floating point beyond, so that JSON and YAML of one content are one snapshot.
    try {
      return std::stoll(s);
    } catch (const std::out_of_range&) {
    }
    if (s[0] != '-') {
      try {
        return std::stoull(s);
      } catch (const std::out_of_range&) {
      }
    }
    return yaml_floating_point(s, path, errors);
  }
  if (std::regex_match(s, floating)) return yaml_floating_point(s, path, errors);
  return s;
}

// The problem with a string that is not UTF-8 (which simdjson, every engine and
// every JSON output refuse), or nullopt. simdjson checks first: the fast path.
std::optional<std::string> utf8_problem(const std::string& s) {
  if (simdjson::validate_utf8(s.data(), s.size())) return std::nullopt;
  const std::size_t at = invalid_utf8_offset(s).value_or(0);
  char byte[8];
  std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned>(static_cast<unsigned char>(s[at])));
  return "is not valid UTF-8 (byte " + std::string(byte) + " at offset " + std::to_string(at) +
         "); save the file as UTF-8";
}

// A parser's message as text every error output can carry: each byte that is not
// part of valid UTF-8 (nlohmann quotes the input it choked on) becomes \xNN.
std::string printable_message(std::string_view message) {
  std::string out;
  while (const std::optional<std::size_t> at = invalid_utf8_offset(message)) {
    out.append(message.substr(0, *at));
    char byte[8];
    std::snprintf(byte, sizeof byte, "\\x%02X", static_cast<unsigned>(static_cast<unsigned char>(message[*at])));
    out += byte;
    message.remove_prefix(*at + 1);
  }
  out.append(message);
  return out;
}

// A key for a path: invalid UTF-8 shown as U+FFFD, so that the path itself is
// text every error output can carry.
std::string printable_key(const std::string& key) {
  const std::string quoted = nlohmann::json(key).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return quoted.substr(1, quoted.size() - 2);
}

// YAML text -> the JSON value it stands for. Every string, key or value at any
// depth, that is not UTF-8 is an error naming its path: YAML (unlike JSON) does
// not refuse it, and the compiled rules could not carry it.
class YamlToJson {
 public:
  // An alias repeats its anchor's whole node, so a few hundred bytes of anchors
  // each naming the one before twice expand to gigabytes ("billion laughs"). The
  // expansion is bounded by the text's size: without aliases a node and its
  // scalar cost at most a few bytes of text each, and ordinary reuse of an
  // anchor stays far below the bound.
  static constexpr std::size_t kBytesPerTextByte = 16;
  static constexpr std::size_t kFreeBytes = std::size_t{1} << 20;

  YamlToJson(std::string_view text, DocumentParser::Errors& errors)
      : budget_(text.size() * kBytesPerTextByte + kFreeBytes),
        errors_(errors),
        escapes_to_bytes_(text.find("\\_") != std::string_view::npos || text.find("\\N") != std::string_view::npos) {}

  nlohmann::json convert(const YAML::Node& node, const std::string& path) {
    if (!spend(node.IsScalar() ? node.Scalar().size() : 0, path)) return nullptr;
    // A tag would change what a value is (!!binary decodes, !!int coerces, !foo is the
    // application's): only the plain reading is this snapshot's, so none but these are read.
    const std::string& tag = node.Tag();
    if (!tag.empty() && tag != "?" && tag != "!" && tag != "tag:yaml.org,2002:str" && tag != "tag:yaml.org,2002:map" &&
        tag != "tag:yaml.org,2002:seq") {
      const std::string core = "tag:yaml.org,2002:";
      const std::string shown = tag.rfind(core, 0) == 0 ? "!!" + tag.substr(core.size()) : tag;
      errors_.emplace_back(path, "the YAML tag " + printable_message(shown) +
                                     " is not read (only !!str, !!map and !!seq are): remove it and write the value "
                                     "as it is meant");
      return nullptr;
    }
    switch (node.Type()) {
      case YAML::NodeType::Null:
      case YAML::NodeType::Undefined:
        return nullptr;
      case YAML::NodeType::Scalar:
        if (std::optional<std::string> problem = utf8_problem(node.Scalar())) {
          const bool escaped = escapes_to_bytes_ && (node.Scalar().find('\xA0') != std::string::npos ||
                                                     node.Scalar().find('\x85') != std::string::npos);
          // yaml-cpp decodes the escapes \_ (U+00A0) and \N (U+0085) to one byte, not to UTF-8.
          errors_.emplace_back(path, escaped ? "holds the YAML escape \\_ or \\N, which this YAML reader cannot "
                                               "decode: write the character itself, or \\u00A0 / \\u0085"
                                             : std::move(*problem));
          return nullptr;
        }
        return yaml_scalar(node, path, errors_);
      case YAML::NodeType::Sequence: {
        nlohmann::json out = nlohmann::json::array();
        std::size_t i = 0;
        for (const auto& item : node) {
          out.push_back(convert(item, path + "[" + std::to_string(i) + "]"));
          if (exhausted_) return nullptr;
          ++i;
        }
        return out;
      }
      case YAML::NodeType::Map: {
        nlohmann::json out = nlohmann::json::object();
        for (const auto& kv : node) {
          if (!kv.first.IsScalar()) {
            // Such a key has no name to put in a path: its line and column say where it is.
            const YAML::Mark at = kv.first.Mark();
            errors_.emplace_back(path, "the mapping key at line " + std::to_string(at.line + 1) + ", column " +
                                           std::to_string(at.column + 1) +
                                           " is a list or mapping: keys must be plain strings");
            continue;
          }
          const std::string key = kv.first.Scalar();
          if (!spend(key.size(), path)) return nullptr;
          if (std::optional<std::string> problem = utf8_problem(key)) {
            const std::string key_at = child_path(path, printable_key(key));
            errors_.emplace_back(key_at, "key " + std::move(*problem));
            convert(kv.second, key_at);  // and every problem below it
            if (exhausted_) return nullptr;
            continue;
          }
          if (out.contains(key)) {
            errors_.emplace_back(child_path(path, key), "duplicate key \"" + key + "\"");
            continue;
          }
          out[key] = convert(kv.second, child_path(path, key));
          if (exhausted_) return nullptr;
        }
        return out;
      }
    }
    return nullptr;
  }

 private:
  // False (once with an error naming where) when the expansion is over budget.
  bool spend(std::size_t scalar_bytes, const std::string& path) {
    if (exhausted_) return false;
    const std::size_t cost = 1 + scalar_bytes;
    if (cost <= budget_) {
      budget_ -= cost;
      return true;
    }
    exhausted_ = true;
    errors_.emplace_back(path, "invalid YAML: its aliases (*name) expand it to more than " +
                                   std::to_string(kBytesPerTextByte) +
                                   " times its size; write the repeated content out or use fewer aliases");
    return false;
  }

  std::size_t budget_;
  bool exhausted_ = false;
  DocumentParser::Errors& errors_;
  bool escapes_to_bytes_ = false;  // the text holds \_ or \N
};

simdjson::error_code parse_padded(simdjson::dom::parser& parser, std::string_view text, simdjson::dom::element& root) {
  const simdjson::padded_string padded(text);  // the DOM copies every string out of it
  return parser.parse(padded).get(root);
}

// Re-writes JSON text as nlohmann reads it: simdjson refuses integers beyond 64
// bits, which nlohmann (and so this loader, before simdjson) reads as floating
// point. Duplicate keys are kept, for the duplicate check.
class Rewriter final : public nlohmann::json_sax<nlohmann::json> {
 public:
  std::string out;
  std::string error;

  bool null() override { return scalar("null"); }
  bool boolean(bool v) override { return scalar(v ? "true" : "false"); }
  bool number_integer(number_integer_t v) override { return scalar(std::to_string(v)); }
  bool number_unsigned(number_unsigned_t v) override { return scalar(std::to_string(v)); }
  bool number_float(number_float_t v, const string_t&) override { return scalar(nlohmann::json(v).dump()); }
  bool string(string_t& v) override { return scalar(nlohmann::json(v).dump()); }
  bool binary(binary_t&) override { return false; }  // not in JSON text
  bool start_object(std::size_t) override {
    separate();
    out += '{';
    first_.push_back(true);
    return true;
  }
  bool key(string_t& k) override {
    separate();
    out += nlohmann::json(k).dump();
    out += ':';
    after_key_ = true;
    return true;
  }
  bool end_object() override {
    first_.pop_back();
    out += '}';
    return true;
  }
  bool start_array(std::size_t) override {
    separate();
    out += '[';
    first_.push_back(true);
    return true;
  }
  bool end_array() override {
    first_.pop_back();
    out += ']';
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::json::exception& e) override {
    error = printable_message(e.what());
    return false;
  }

 private:
  bool scalar(const std::string& text) {
    separate();
    out += text;
    return true;
  }
  void separate() {
    if (after_key_) {
      after_key_ = false;
    } else if (!first_.empty()) {
      if (!first_.back()) out += ',';
      first_.back() = false;
    }
  }
  std::vector<bool> first_;  // per open list or mapping: nothing written in it yet
  bool after_key_ = false;
};

// One step of the path to a value, built into a string only for an error.
struct Step {
  std::string_view key;
  std::size_t index;
  bool is_index;
};

std::string step_path(const std::vector<Step>& steps, std::string_view last_key) {
  std::string path;
  for (const Step& s : steps) {
    if (s.is_index) {
      path += "[" + std::to_string(s.index) + "]";
    } else {
      if (!path.empty()) path += '.';
      path += s.key;
    }
  }
  if (!path.empty()) path += '.';
  path += last_key;
  return path;
}

// Refuses every repeated key of every mapping, in document order, with the
// wording and path of the YAML reader; like it, the value of a repeated key is
// not looked into.
// A floating-point number simdjson reads as 0 or as a subnormal: either one written so, or one too
// small for a double (1e-400), which simdjson reads as 0 without an error. Which one is told by
// the text (underflowing_numbers); kept here in document order, by path.
bool zero_or_subnormal(simdjson::dom::element e) {
  if (e.type() != simdjson::dom::element_type::DOUBLE) return false;
  const double d = e.get_double().value_unsafe();
  return d == 0.0 || std::fpclassify(d) == FP_SUBNORMAL;
}

void check_duplicates(simdjson::dom::element v, std::vector<Step>& steps, DocumentParser::Errors& errors,
                      std::vector<std::string>& tiny) {
  using Type = simdjson::dom::element_type;
  const auto container = [](simdjson::dom::element e) { return e.type() == Type::OBJECT || e.type() == Type::ARRAY; };
  if (v.type() == Type::ARRAY) {
    const simdjson::dom::array array = v.get_array().value_unsafe();
    std::size_t i = 0;
    for (simdjson::dom::element item : array) {
      if (container(item)) {
        steps.push_back({{}, i, true});
        check_duplicates(item, steps, errors, tiny);
        steps.pop_back();
      } else if (zero_or_subnormal(item)) {
        std::string path = steps.empty() ? std::string() : step_path(steps, {});
        if (!path.empty()) path.pop_back();  // the '.' step_path puts before a key
        tiny.push_back(path + "[" + std::to_string(i) + "]");
      }
      ++i;
    }
    return;
  }
  if (v.type() != Type::OBJECT) return;
  const simdjson::dom::object object = v.get_object().value_unsafe();
  const std::size_t n = object.size();
  constexpr std::size_t kSmall = 16;  // up to here, comparing with every earlier key beats hashing
  std::string_view small[kSmall];
  std::unordered_set<std::string_view> seen;
  std::size_t count = 0;
  for (auto it = object.begin(); it != object.end(); ++it) {
    const std::string_view key = it.key();
    bool repeated = false;
    if (n <= kSmall) {
      for (std::size_t k = 0; k < count && !repeated; ++k) repeated = small[k] == key;
      if (!repeated) small[count++] = key;
    } else {
      repeated = !seen.insert(key).second;
    }
    if (repeated) {
      errors.emplace_back(step_path(steps, key), "duplicate key \"" + std::string(key) + "\"");
      continue;
    }
    const simdjson::dom::element item = it.value();
    if (container(item)) {
      steps.push_back({key, 0, false});
      check_duplicates(item, steps, errors, tiny);
      steps.pop_back();
    } else if (zero_or_subnormal(item)) {
      tiny.push_back(step_path(steps, key));
    }
  }
}

// The floating-point number tokens of JSON text outside strings that read as 0 or subnormal, in
// order, each with whether its digits are all zero (then 0 is what was written).
std::vector<std::pair<std::string, bool>> zero_or_subnormal_tokens(std::string_view text) {
  std::vector<std::pair<std::string, bool>> out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\') ++i;
      }
      continue;
    }
    if (c != '-' && (c < '0' || c > '9')) continue;
    std::size_t end = i;
    while (end < text.size() && std::strchr("+-0123456789.eE", text[end]) != nullptr && text[end] != '\0') ++end;
    const std::string token(text.substr(i, end - i));
    i = end - 1;
    if (token.find_first_of(".eE") == std::string::npos) continue;  // an integer: never a double 0 here
    const double d = std::strtod(token.c_str(), nullptr);
    if (d != 0.0 && std::fpclassify(d) != FP_SUBNORMAL) continue;
    const std::string mantissa = token.substr(0, token.find_first_of("eE"));
    out.emplace_back(token, mantissa.find_first_of("123456789") == std::string::npos);
  }
  return out;
}

// Refuses numbers too small for a double: read as 0, `1e-400` compared with an integer column
// would match the rows holding 0 (fail closed: the snapshot is refused naming the entry).
void refuse_underflow(std::string_view text, const std::vector<std::string>& tiny, DocumentParser::Errors& errors) {
  if (tiny.empty()) return;
  const auto tokens = zero_or_subnormal_tokens(text);
  for (std::size_t k = 0; k < tokens.size(); ++k) {
    if (tokens[k].second && std::fpclassify(std::strtod(tokens[k].first.c_str(), nullptr)) != FP_SUBNORMAL) continue;
    const std::string path = k < tiny.size() && tokens.size() == tiny.size() ? tiny[k] : tiny.front();
    errors.emplace_back(path, "the number " + tokens[k].first +
                                  " is too small for a double (it would read as 0 or lose its digits); write 0 or "
                                  "a number a double holds");
  }
}

}  // namespace

DocumentParse DocumentParser::json(std::string_view text) {
  DocumentParse result;
  auto impl = std::make_unique<JsonDocument::Impl>();
  simdjson::error_code error = parse_padded(impl->parser, text, impl->root);
  if (error) {
    // nlohmann reads the text again: its message (with line and column) is the
    // one this loader always gave, and it reads integers beyond 64 bits (which
    // simdjson refuses) as floating point, as this loader always did.
    Rewriter rewriter;
    if (!nlohmann::json::sax_parse(text.begin(), text.end(), &rewriter)) {
      result.errors.emplace_back("", "invalid JSON: " + rewriter.error);
      return result;
    }
    if (error != simdjson::DEPTH_ERROR && error != simdjson::CAPACITY) {
      error = parse_padded(impl->parser, rewriter.out, impl->root);
    }
  }
  if (error) {
    result.errors.emplace_back("", std::string("invalid JSON: ") + simdjson::error_message(error));
    return result;
  }
  std::vector<Step> steps;
  std::vector<std::string> tiny;
  check_duplicates(impl->root, steps, result.errors, tiny);
  refuse_underflow(text, tiny, result.errors);  // the text as written, not as rewritten
  if (result.errors.empty()) result.document.impl_ = std::move(impl);
  return result;
}

DocumentParse DocumentParser::yaml(std::string_view text) {
  DocumentParse result;
  nlohmann::json value;
  try {
    // Every document of the stream is read: YAML::Load would read the first and
    // ignore the rest, even text that is not YAML, and a snapshot with a second
    // document appended (an update written after the old one) would compile the old.
    const std::string stream(text);
    const YamlDocumentCount count = count_yaml_documents(stream);
    if (count.stuck_at) {
      result.errors.emplace_back("", "invalid YAML: yaml-cpp: error at line " + std::to_string(count.stuck_at->first) +
                                         ", column " + std::to_string(count.stuck_at->second) +
                                         ": cannot read past this point");
      return result;
    }
    if (count.documents > 1) {
      result.errors.emplace_back("", "invalid YAML: the text holds " + std::to_string(count.documents) +
                                         " documents (separated by ---); it must be one");
      return result;
    }
    const YAML::Node root = count.documents == 0 ? YAML::Node() : YAML::Load(stream);
    value = YamlToJson(text, result.errors).convert(root, "");
    // Scalars and keys that are not UTF-8 were named by path above; a byte elsewhere (in a
    // comment) is refused too, as the docs promise of the whole text.
    if (result.errors.empty() && !simdjson::validate_utf8(text.data(), text.size())) {
      const std::size_t at = invalid_utf8_offset(text).value_or(0);
      const std::string_view before = text.substr(0, at);
      const std::size_t line = static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n')) + 1;
      const std::size_t line_start = before.rfind('\n') == std::string_view::npos ? 0 : before.rfind('\n') + 1;
      char byte[8];
      std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned>(static_cast<unsigned char>(text[at])));
      result.errors.emplace_back("", "invalid YAML: line " + std::to_string(line) + ", column " +
                                         std::to_string(at - line_start + 1) + ": byte " + byte +
                                         " is not valid UTF-8; save the file as UTF-8");
    }
  } catch (const YAML::Exception& e) {
    result.errors.emplace_back("", "invalid YAML: " + printable_message(e.what()));
  }
  if (!result.errors.empty()) return result;
  auto impl = std::make_unique<JsonDocument::Impl>();
  const simdjson::error_code error = parse_padded(impl->parser, value.dump(), impl->root);
  if (error == simdjson::DEPTH_ERROR) {
    result.errors.emplace_back(
        "", "invalid YAML: nested deeper than " + std::to_string(simdjson::DEFAULT_MAX_DEPTH) + " lists and mappings");
  } else if (error) {
    result.errors.emplace_back("", std::string("invalid YAML: ") + simdjson::error_message(error));
  } else {
    result.document.impl_ = std::move(impl);
  }
  return result;
}

DocumentParse parse_document(std::string_view text) {
  // Neither format allows a NUL byte, and simdjson ignores whatever follows one
  // after the document: a second document or garbage would pass unread.
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos) {
    DocumentParse refused;
    refused.errors.emplace_back("", "the text holds a NUL byte (at offset " + std::to_string(nul) +
                                        "): JSON and YAML are text without NUL bytes");
    return refused;
  }
  std::size_t i = 0;
  if (text.size() >= 3 && static_cast<unsigned char>(text[0]) == 0xEF && static_cast<unsigned char>(text[1]) == 0xBB &&
      static_cast<unsigned char>(text[2]) == 0xBF) {
    text.remove_prefix(3);
  }
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n')) ++i;
  if (i < text.size() && (text[i] == '{' || text[i] == '[')) return DocumentParser::json(text);
  return DocumentParser::yaml(text);
}

std::string read_file(const std::string& path, std::size_t spare_capacity) {
  // Read straight into the string: a stringstream copies a large snapshot twice (5 % of a compile at M).
  std::error_code ec;
  // A directory opens, and its "size" would be allocated: say what it is instead.
  if (std::filesystem::is_directory(path, ec)) throw std::runtime_error(path + " is a directory, not a file");
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::string out;
  const std::streamoff size = in.tellg();
  if (size > 0) {
    out.reserve(static_cast<std::size_t>(size) + spare_capacity);
    out.resize(static_cast<std::size_t>(size));
    in.seekg(0);
    in.read(out.data(), size);
    if (in.gcount() != size) throw std::runtime_error("cannot read " + path);
  }
  // Whatever the size said (a file that grew, or one whose size is not known): read to the end.
  std::ostringstream rest;
  rest << in.rdbuf();
  if (in.bad()) throw std::runtime_error("cannot read " + path);
  out += rest.str();
  if (out.capacity() < out.size() + spare_capacity) out.reserve(out.size() + spare_capacity);
  return out;
}

}  // namespace tw

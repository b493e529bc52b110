#include "http_source.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <random>
#include <thread>

namespace tw {
namespace {

std::string ascii_lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

struct CurlGlobal {
  CurlGlobal() { curl_global_init(CURL_GLOBAL_DEFAULT); }
  ~CurlGlobal() { curl_global_cleanup(); }
};

std::size_t on_body(char* data, std::size_t size, std::size_t n, void* user) {
  auto* body = static_cast<std::string*>(user);
  constexpr std::size_t kMaxSnapshot = std::size_t(2) << 30;
  if (body->size() + size * n > kMaxSnapshot) return 0;  // aborts the transfer
  body->append(data, size * n);
  return size * n;
}

// What the response's header says of it: its ETag, and how its body's end is marked.
struct ResponseHead {
  std::string etag;
  bool has_length = false;  ///< Content-Length
  bool chunked = false;     ///< Transfer-Encoding: chunked
  bool coded = false;       ///< another transfer-coding (gzip, deflate...), which nothing asked for
};

std::size_t on_header(char* data, std::size_t size, std::size_t n, void* user) {
  auto* head = static_cast<ResponseHead*>(user);
  std::string line(data, size * n);
  if (line.rfind("HTTP/", 0) == 0) {
    *head = ResponseHead{};  // a new response (after a 100 Continue): only its own header counts
    return size * n;
  }
  const auto colon = line.find(':');
  if (colon == std::string::npos) return size * n;
  const std::string name = ascii_lowercase(line.substr(0, colon));
  std::string v = line.substr(colon + 1);
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.erase(v.begin());
  while (!v.empty() && (v.back() == '\r' || v.back() == '\n' || v.back() == ' ' || v.back() == '\t')) v.pop_back();
  if (name == "etag") {
    head->etag = v;
  } else if (name == "content-length") {
    head->has_length = true;
  } else if (name == "transfer-encoding") {
    std::string codings = ascii_lowercase(v);
    for (std::size_t at = 0; at <= codings.size();) {
      const std::size_t end = std::min(codings.find(',', at), codings.size());
      std::string coding = codings.substr(at, end - at);
      coding.erase(0, coding.find_first_not_of(" \t"));
      coding.erase(coding.find_last_not_of(" \t") + 1);
      if (coding == "chunked") {
        head->chunked = true;
      } else if (!coding.empty() && coding != "identity") {
        head->coded = true;
      }
      at = end + 1;
    }
  }
  return size * n;
}

// Every occurrence of `secret` in `text` replaced by `with`.
void scrub(std::string& text, const std::string& secret, const std::string& with) {
  if (secret.empty()) return;
  for (std::size_t at = text.find(secret); at != std::string::npos; at = text.find(secret, at + with.size())) {
    text.replace(at, secret.size(), with);
  }
}

}  // namespace

std::string redact_url(const std::string& url) {
  // Query parameters may carry tokens (?access_token=...); userinfo is refused by the config
  // loader, and dropped here too in case a source is built some other way.
  std::string out = url;
  if (const auto q = out.find_first_of("?#"); q != std::string::npos) out = out.substr(0, q) + "?<redacted>";
  if (const auto scheme = out.find("://"); scheme != std::string::npos) {
    const auto host = scheme + 3;
    const auto end = out.find_first_of("/?", host);
    const auto at = out.rfind('@', end == std::string::npos ? std::string::npos : end);
    if (at != std::string::npos && at >= host) out.replace(host, at + 1 - host, "<redacted>@");
  }
  return out;
}

HttpSource::HttpSource(SourceSettings settings) : settings_(std::move(settings)) { static CurlGlobal global; }

void HttpSource::reset() {
  etag_.clear();
  last_content_.forget();
}

std::string HttpSource::describe() const { return "url " + redact_url(settings_.url); }

std::string HttpSource::redact(std::string text) const {
  const std::string shown = redact_url(settings_.url);
  scrub(text, settings_.url, shown);
  if (const auto q = settings_.url.find_first_of("?#"); q != std::string::npos && q + 1 < settings_.url.size()) {
    scrub(text, settings_.url.substr(q + 1), "<redacted>");
  }
  if (const auto scheme = settings_.url.find("://"); scheme != std::string::npos) {
    const auto host = scheme + 3;
    const auto end = settings_.url.find_first_of("/?#", host);
    const std::string authority = settings_.url.substr(host, end == std::string::npos ? end : end - host);
    if (const auto at = authority.rfind('@'); at != std::string::npos)
      scrub(text, authority.substr(0, at), "<redacted>");
  }
  scrub(text, settings_.bearer_token, "<redacted>");
  for (const auto& [name, value] : settings_.headers) {
    if (value.size() >= 8) scrub(text, value, "<redacted>");
  }
  return text;
}

SourceFetch HttpSource::fetch() {
  SourceFetch out;
  std::mt19937_64 rng(std::random_device{}());
  long long backoff = settings_.backoff_ms;
  for (int attempt = 0; attempt <= settings_.retries; ++attempt) {
    out.attempts = attempt + 1;
    if (attempt > 0) {
      // Full jitter: a random delay in [0, backoff], then double the ceiling.
      std::uniform_int_distribution<long long> jitter(0, backoff);
      std::this_thread::sleep_for(std::chrono::milliseconds(jitter(rng)));
      backoff = std::min<long long>(backoff * 2, 30000);
    }
    CURL* curl = curl_easy_init();
    char curl_error[CURL_ERROR_SIZE] = {0};
    if (!curl) {
      out.error = "libcurl could not start a request";
      continue;
    }
    std::string body;
    ResponseHead head;
    struct curl_slist* headers = nullptr;
    if (!etag_.empty()) headers = curl_slist_append(headers, ("If-None-Match: " + etag_).c_str());
    if (!settings_.bearer_token.empty()) {
      headers = curl_slist_append(headers, ("Authorization: Bearer " + settings_.bearer_token).c_str());
    }
    for (const auto& [k, v] : settings_.headers) headers = curl_slist_append(headers, (k + ": " + v).c_str());
    headers = curl_slist_append(headers, "Accept: application/json, application/yaml");
    curl_easy_setopt(curl, CURLOPT_URL, settings_.url.c_str());
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, curl_error);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &head);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(settings_.timeout_ms));
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(std::min(settings_.timeout_ms, 5000)));
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    // No Accept-Encoding: libcurl takes a compressed stream that ends without its last block (a
    // server that gave up halfway) as a whole body, and a YAML snapshot cut short may be valid.
    // A body sent compressed anyway is not decoded, and refused as not a snapshot.
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, settings_.verify_tls ? 1L : 0L);
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, settings_.verify_tls ? 2L : 0L);
    if (!settings_.ca_file.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, settings_.ca_file.c_str());
    const CURLcode rc = curl_easy_perform(curl);
    long status = 0, http_version = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_getinfo(curl, CURLINFO_HTTP_VERSION, &http_version);
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
    if (rc != CURLE_OK) {
      // libcurl's detail (host, port, TLS reason) is worth showing, but it may echo the URL.
      const std::string detail = curl_error[0] ? curl_error : curl_easy_strerror(rc);
      out.error = redact("fetching " + redact_url(settings_.url) + " failed: " + detail);
      continue;
    }
    if (status == 304) {
      if (etag_.empty()) {
        // Not modified since what? Nothing was asked conditionally: no snapshot was delivered.
        out.error = "fetching " + redact_url(settings_.url) +
                    " answered 304 Not Modified to a request without If-None-Match: no snapshot was delivered";
        break;
      }
      out.status = SourceFetch::Status::Unchanged;
      out.error.clear();
      return out;
    }
    // HTTP/1.x without Content-Length or chunking ends the body where the connection closes, so
    // a connection cut short reads as the whole body; and a YAML snapshot cut before its last
    // policies is itself valid. HTTP/2 and 3 mark the end of every stream.
    const bool framed = head.has_length || head.chunked ||
                        (http_version != CURL_HTTP_VERSION_1_0 && http_version != CURL_HTTP_VERSION_1_1);
    if (status == 200 && head.coded) {
      // libcurl decodes a transfer-coding such as gzip that nothing asked for, and takes a stream
      // that stops without its last block as whole, as it did for a Content-Encoding.
      out.error = "fetching " + redact_url(settings_.url) +
                  " answered with a Transfer-Encoding other than chunked, which was not asked for: a compressed "
                  "stream cut short could read as the whole snapshot, so it is refused; serve it uncompressed";
      break;
    }
    if (status == 200 && !framed) {
      out.error = "fetching " + redact_url(settings_.url) +
                  " answered without Content-Length or chunked Transfer-Encoding: a connection cut short "
                  "could not be told from the end of the snapshot, so it is refused; serve it with a "
                  "Content-Length";
      break;  // the server's framing will not change by retrying
    }
    if (status == 200) {
      etag_ = head.etag;
      out.error.clear();
      if (last_content_.same_as_last(body)) {
        out.status = SourceFetch::Status::Unchanged;
        return out;
      }
      out.status = SourceFetch::Status::Changed;
      out.body = std::move(body);
      return out;
    }
    out.error = "fetching " + redact_url(settings_.url) + " answered HTTP " + std::to_string(status);
    if (status != 429 && status < 500) break;  // a client error will not fix itself by retrying
  }
  out.status = SourceFetch::Status::Failed;
  return out;
}

}  // namespace tw

#include "tagwarden/util/resumed_sha256.h"

#include <openssl/evp.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "sha256_md.h"

namespace tw {

namespace {

struct FreeContext {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};
using Context = std::unique_ptr<EVP_MD_CTX, FreeContext>;

Context new_context() {
  Context c(EVP_MD_CTX_new());
  if (!c) throw std::runtime_error("sha256 failed: no context");
  return c;
}

Context copy_of(const EVP_MD_CTX* from) {
  Context c = new_context();
  if (EVP_MD_CTX_copy_ex(c.get(), from) != 1) throw std::runtime_error("sha256 failed: context copy");
  return c;
}

// How many leading bytes a and b share: memcmp over blocks, then bytes in the first block that differs.
std::size_t common_prefix(const std::string& a, const std::string& b) {
  constexpr std::size_t kBlock = 4096;
  const std::size_t n = std::min(a.size(), b.size());
  std::size_t i = 0;
  while (i + kBlock <= n && std::memcmp(a.data() + i, b.data() + i, kBlock) == 0) i += kBlock;
  while (i < n && a[i] == b[i]) ++i;
  return i;
}

}  // namespace

/// at[i]: the hash's state after the first i * stride bytes of the last text.
struct ResumedSha256::States {
  std::vector<Context> at;
};

ResumedSha256::ResumedSha256(std::size_t stride)
    : stride_(std::max<std::size_t>(stride, 1)), states_(std::make_unique<States>()) {}
ResumedSha256::~ResumedSha256() = default;
ResumedSha256::ResumedSha256(ResumedSha256&&) noexcept = default;
ResumedSha256& ResumedSha256::operator=(ResumedSha256&&) noexcept = default;

std::string ResumedSha256::digest(std::shared_ptr<const std::string> text) {
  if (!text) throw std::invalid_argument("ResumedSha256::digest: no text");
  std::vector<Context>& at = states_->at;
  std::size_t resume = 0;  // index into `at` of the state to go on from
  if (last_ && !at.empty()) {
    const std::size_t same = last_ == text ? text->size() : common_prefix(*last_, *text);
    resume = std::min(same / stride_, at.size() - 1);
  } else {
    at.clear();
    Context start = new_context();
    if (EVP_DigestInit_ex(start.get(), sha256_md(), nullptr) != 1) throw std::runtime_error("sha256 failed: init");
    at.push_back(std::move(start));
  }
  at.resize(resume + 1);
  Context ctx = copy_of(at[resume].get());
  const std::string& t = *text;
  std::size_t pos = resume * stride_;
  last_hashed_ = t.size() - pos;
  while (pos < t.size()) {
    const std::size_t n = std::min(stride_, t.size() - pos);
    if (EVP_DigestUpdate(ctx.get(), t.data() + pos, n) != 1) throw std::runtime_error("sha256 failed: update");
    pos += n;
    if (n == stride_) at.push_back(copy_of(ctx.get()));
  }
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_DigestFinal_ex(ctx.get(), md, &len) != 1) throw std::runtime_error("sha256 failed: final");
  if (t.size() <= kMaxHeldBytes) {
    last_ = std::move(text);
  } else {
    last_.reset();
    at.clear();
  }
  return std::string(reinterpret_cast<const char*>(md), len);
}

}  // namespace tw

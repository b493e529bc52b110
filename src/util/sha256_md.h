#pragma once
// The SHA-256 implementation every digest in the project uses, fetched from OpenSSL's provider once
// (util/sha256.h and util/resumed_sha256.h both hash with it).

#include <openssl/evp.h>

namespace tw {

const EVP_MD* sha256_md();

}  // namespace tw

// SHA-256 of byte strings, for provenance headers and profile-record keys (OpenSSL's implementation).
#pragma once

#include <string>

namespace strata {

// Lower-case hex digest of `bytes`.
std::string sha256_hex(const std::string& bytes);

}  // namespace strata

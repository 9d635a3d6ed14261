#include "common/error.h"

#include "common/inert_text.h"

namespace strata {

std::string format_located(const SourcePos& pos, const std::string& message) {
  std::string out = pos.file.empty() ? std::string("<input>") : pos.file;
  if (pos.line > 0) out += ":" + std::to_string(pos.line) + ":" + std::to_string(pos.column);
  return printable_line(out + ": " + message);
}

Error::Error(SourcePos pos, const std::string& message)
    : std::runtime_error(format_located(pos, message)), pos_(std::move(pos)), message_(message) {}

}  // namespace strata

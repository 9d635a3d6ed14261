// Errors the generator reports to its user. Every failure that stems from input (a spec file, a command-line
// value) is a strata::Error carrying the position it refers to; the CLI prints it as
//   strata: error: <file>:<line>:<col>: <message>
// and exits non-zero. Internal invariants use assert; nothing in the generator calls exit() or abort() on bad
// input.
#pragma once

#include <stdexcept>
#include <string>

namespace strata {

// A position in an input file. line and column are 1-based; 0 means "unknown" (whole file).
struct SourcePos {
  std::string file;
  int line = 0;
  int column = 0;
};

class Error : public std::runtime_error {
 public:
  Error(SourcePos pos, const std::string& message);

  const SourcePos& pos() const { return pos_; }
  const std::string& message() const { return message_; }

 private:
  SourcePos pos_;
  std::string message_;
};

// "<file>:<line>:<col>: <message>", or "<file>: <message>" when the position is unknown; one printable line
// (common/inert_text.h's printable_line), whatever bytes the file name or the message carry.
std::string format_located(const SourcePos& pos, const std::string& message);

}  // namespace strata

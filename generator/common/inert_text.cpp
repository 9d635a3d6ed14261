#include "common/inert_text.h"

#include <fmt/format.h>

#include <cstdint>

namespace strata {
namespace {

// One UTF-8 sequence at text[i]: its code point and length, or length 0 where the bytes there are not UTF-8
// (stray continuation bytes, truncated or overlong sequences, surrogates, values past U+10FFFF).
struct Decoded {
  char32_t code = 0;
  size_t length = 0;
};

Decoded decode_utf8(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80) return {lead, 1};
  size_t length = 0;
  char32_t code = 0;
  char32_t least = 0;
  if ((lead & 0xE0) == 0xC0) {
    length = 2, code = lead & 0x1F, least = 0x80;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3, code = lead & 0x0F, least = 0x800;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4, code = lead & 0x07, least = 0x10000;
  } else {
    return {};
  }
  if (i + length > text.size()) return {};
  for (size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return {};
    code = (code << 6) | (byte(i + k) & 0x3F);
  }
  if (code < least || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return {};
  return {code, length};
}

// Characters that print nothing, or reorder or break the text around them, in an editor or a terminal: C1
// controls, bidirectional controls (the "Trojan Source" reordering), zero-width characters, line and paragraph
// separators, the byte order mark, interlinear annotations, tags and noncharacters.
bool invisible(char32_t c) {
  return (c >= 0x80 && c <= 0x9F) || c == 0xAD || c == 0x34F || c == 0x61C || c == 0x180E ||
         (c >= 0x200B && c <= 0x200F) || (c >= 0x2028 && c <= 0x202E) || (c >= 0x2060 && c <= 0x206F) ||
         c == 0xFEFF || (c >= 0xFFF9 && c <= 0xFFFB) || c == 0xFFFE || c == 0xFFFF || (c >= 0xE0000 && c <= 0xE007F);
}

std::string byte_escape(unsigned char b) { return fmt::format("\\x{:02x}", b); }

// Walks `text` a character at a time: ascii(b) for each ASCII byte, stray(b) for each byte that is not part of a
// UTF-8 character, wide(code, bytes) for each multi-byte character.
template <typename Ascii, typename Stray, typename Wide>
void scan_utf8(std::string_view text, Ascii ascii, Stray stray, Wide wide) {
  for (size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    const Decoded d = b < 0x80 ? Decoded{b, 1} : decode_utf8(text, i);
    if (b < 0x80)
      ascii(b);
    else if (d.length == 0)
      stray(b);
    else
      wide(d.code, text.substr(i, d.length));
    i += d.length == 0 ? 1 : d.length;
  }
}

}  // namespace

std::string printable_line(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  scan_utf8(
      text,
      [&](unsigned char b) {
        if (b < 0x20 || b == 0x7F || b == '\\' || (b == '{' && !out.empty() && out.back() == '{'))
          out += byte_escape(b);
        else
          out += static_cast<char>(b);
      },
      [&](unsigned char b) { out += byte_escape(b); },
      [&](char32_t code, std::string_view bytes) {
        if (invisible(code))
          out += fmt::format("\\u{{{:04X}}}", static_cast<uint32_t>(code));
        else
          out.append(bytes);
      });
  return out;
}

std::string c_comment_text(std::string_view text) {
  const std::string base = printable_line(text);
  std::string out;
  out.reserve(base.size());
  for (size_t i = 0; i < base.size(); ++i) {
    const char c = base[i];
    if (!out.empty() && ((out.back() == '*' && c == '/') || (out.back() == '/' && c == '*'))) out += '\\';
    out += c;
    if (c == '?' && i + 1 < base.size() && base[i + 1] == '?') out += '\\';
  }
  return out;
}

std::string hash_comment_text(std::string_view text) { return printable_line(text); }

std::string markdown_text(std::string_view text) {
  static constexpr std::string_view kMarkup = "\\`*_[]<>|#!~&$";
  std::string out;
  for (const char c : printable_line(text)) {
    if (kMarkup.find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

std::string html_comment_text(std::string_view text) {
  std::string out;
  for (const char c : printable_line(text)) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else
      out += c;
  }
  return out;
}

std::string yaml_quoted(std::string_view text) {
  std::string out = "\"";
  scan_utf8(
      text,
      [&](unsigned char b) {
        if (b == '"' || b == '\\')
          out += {'\\', static_cast<char>(b)};
        else if (b == '\n')
          out += "\\n";
        else if (b == '\t')
          out += "\\t";
        else if (b < 0x20 || b == 0x7F)
          out += byte_escape(b);
        else
          out += static_cast<char>(b);
      },
      [&](unsigned char b) { out += byte_escape(b); },
      [&](char32_t code, std::string_view bytes) {
        if (!invisible(code))
          out.append(bytes);
        else if (code > 0xFFFF)
          out += fmt::format("\\U{:08X}", static_cast<uint32_t>(code));
        else
          out += fmt::format("\\u{:04X}", static_cast<uint32_t>(code));
      });
  return out + "\"";
}

}  // namespace strata

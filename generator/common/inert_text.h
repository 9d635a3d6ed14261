// Free text (a spec's description, a records file's compiler and CPU names, a command line) reaches emitted files,
// and the terminal, only through these functions, one per target syntax. Each returns one line of printable text
// that means nothing but itself in that syntax: newlines, control characters, bytes that are not UTF-8 and the
// invisible characters that reorder or hide text in a reviewer's editor (bidirectional controls, zero-width and
// line separators) become visible escapes, and each syntax's own delimiters are broken up. Spec text never runs as
// code in a package, whoever wrote the spec.
#pragma once

#include <string>
#include <string_view>

namespace strata {

// The common base: one line of printable UTF-8. Bytes below 0x20, DEL, bytes that are not UTF-8 and the
// backslash become \xNN (so the text never ends in a backslash, which would join the next line to a `//`
// comment); C1 controls and invisible formatting characters become \u{XXXX}; "{{" (a template marker) becomes
// "{\x7b". For terminals and error messages.
std::string printable_line(std::string_view text);

// Inside a C or C++ comment (`//` or `/* */`): the base, with "*/" and "/*" broken by a backslash, and "??"
// likewise (a trigraph in C, where `??/` ends a line comment early).
std::string c_comment_text(std::string_view text);

// Inside a `#` line comment (CMake, shell, YAML): the base; only a newline ends such a comment.
std::string hash_comment_text(std::string_view text);

// Markdown running text: the base, with every character that can open Markdown or HTML markup backslash-escaped,
// so the text renders as written.
std::string markdown_text(std::string_view text);

// Inside an HTML comment (`<!-- -->` in Markdown): the base, with < and > as &lt; and &gt;, so "-->" cannot end it.
std::string html_comment_text(std::string_view text);

// A double-quoted YAML scalar, quotes included, that reads back as the text (bytes that are not UTF-8 read back
// as the code points of their values).
std::string yaml_quoted(std::string_view text);

}  // namespace strata

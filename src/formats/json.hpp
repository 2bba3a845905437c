// The one way amdml parses JSON it reads: the host manifest (amdml-host.json), a runtime
// child's record, the torch probe's line and the fix journal. A document nested deeper
// than kMaxJsonDepth is refused before it is parsed: nothing amdml writes comes near it,
// and every later walk of a parsed document (redaction, dump, comparison) recurses once
// per level, so 300,000 nested arrays in 600 KB would otherwise overflow the stack.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/result.hpp"

namespace amdml::formats {

inline constexpr int kMaxJsonDepth = 64;

// The parsed document, or one line: "not valid JSON" or "nested deeper than 64 levels".
Result<nlohmann::json> parse_json(std::string_view text, int max_depth = kMaxJsonDepth);

// The depth check parse_json makes before it parses: "nested deeper than N levels".
Status check_json_depth(std::string_view text, int max_depth = kMaxJsonDepth);

// parse_json through a SAX handler (nlohmann's json_sax interface): the same checks, the
// same errors, and the same language accepted, for a reader that builds its own data
// rather than a document (formats/host_manifest.cpp: a snapshot's hundreds of device
// nodes).
template <class Sax>
Status parse_json_sax(std::string_view text, Sax& sax, int max_depth = kMaxJsonDepth) {
  AMDML_TRY_STATUS(check_json_depth(text, max_depth));
  if (!nlohmann::json::sax_parse(text.begin(), text.end(), &sax)) return make_error("not valid JSON");
  return {};
}

namespace json_detail {

// parse_plain_json's reader: recursive descent, one level of recursion per nesting level
// (at most max_depth).
template <class Sax>
class PlainReader {
 public:
  PlainReader(std::string_view text, Sax& sax, int max_depth)
      : p_(text.data()), end_(text.data() + text.size()), sax_(sax), max_depth_(max_depth) {}

  bool document() {
    if (!value(0)) return false;
    space();
    return p_ == end_;
  }

 private:
  void space() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\t' || *p_ == '\r')) ++p_;
  }
  bool at(char c) const { return p_ != end_ && *p_ == c; }

  bool value(int depth) {
    space();
    if (p_ == end_) return false;
    switch (*p_) {
      case '{': return object(depth + 1);
      case '[': return array(depth + 1);
      case '"': return string() && sax_.string(text_);
      case 't': return word("true") && sax_.boolean(true);
      case 'f': return word("false") && sax_.boolean(false);
      case 'n': return word("null") && sax_.null();
      default: return number();
    }
  }
  bool word(std::string_view w) {
    if (static_cast<std::size_t>(end_ - p_) < w.size() || std::string_view(p_, w.size()) != w) return false;
    p_ += w.size();
    return true;
  }
  // An integer of at most 18 digits: it fits, unsigned without a sign and signed with
  // one ("-0" too, as nlohmann reads it). A fraction or an exponent is not plain.
  bool number() {
    const bool negative = at('-');
    if (negative) ++p_;
    if (p_ == end_ || *p_ < '0' || *p_ > '9') return false;
    if (*p_ == '0' && p_ + 1 != end_ && p_[1] >= '0' && p_[1] <= '9') return false;
    std::uint64_t v = 0;
    for (int digits = 0; p_ != end_ && *p_ >= '0' && *p_ <= '9'; ++p_) {
      if (++digits > 18) return false;
      v = v * 10 + static_cast<std::uint64_t>(*p_ - '0');
    }
    if (at('.') || at('e') || at('E')) return false;
    if (negative) return sax_.number_integer(-static_cast<std::int64_t>(v));
    return sax_.number_unsigned(v);
  }
  // A string of printable ASCII and the one-letter escapes, into text_.
  bool string() {
    ++p_;
    text_.clear();
    const char* run = p_;
    for (; p_ != end_; ++p_) {
      const auto c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        text_.append(run, p_);
        ++p_;
        return true;
      }
      if (c < 0x20 || c >= 0x80) return false;
      if (c != '\\') continue;
      text_.append(run, p_);
      if (++p_ == end_) return false;
      switch (*p_) {
        case '"': text_ += '"'; break;
        case '\\': text_ += '\\'; break;
        case '/': text_ += '/'; break;
        case 'b': text_ += '\b'; break;
        case 'f': text_ += '\f'; break;
        case 'n': text_ += '\n'; break;
        case 'r': text_ += '\r'; break;
        case 't': text_ += '\t'; break;
        default: return false;  // \uXXXX
      }
      run = p_ + 1;
    }
    return false;
  }
  bool object(int depth) {
    ++p_;
    if (depth > max_depth_ || !sax_.start_object(static_cast<std::size_t>(-1))) return false;
    space();
    if (at('}')) {
      ++p_;
      return sax_.end_object();
    }
    for (;;) {
      space();
      if (!at('"') || !string()) return false;
      space();
      if (!at(':')) return false;
      ++p_;
      if (!sax_.key(text_) || !value(depth)) return false;
      space();
      if (at(',')) {
        ++p_;
        continue;
      }
      if (!at('}')) return false;
      ++p_;
      return sax_.end_object();
    }
  }
  bool array(int depth) {
    ++p_;
    if (depth > max_depth_ || !sax_.start_array(static_cast<std::size_t>(-1))) return false;
    space();
    if (at(']')) {
      ++p_;
      return sax_.end_array();
    }
    for (;;) {
      if (!value(depth)) return false;
      space();
      if (at(',')) {
        ++p_;
        continue;
      }
      if (!at(']')) return false;
      ++p_;
      return sax_.end_array();
    }
  }

  const char* p_;
  const char* end_;
  Sax& sax_;
  int max_depth_;
  std::string text_;  // the last string read
};

}  // namespace json_detail

// The fast path of parse_json_sax for the plain JSON amdml writes itself: objects,
// arrays, true/false/null, integers of at most 18 digits, strings of printable ASCII
// with one-letter escapes, nested at most max_depth. On such a text it gives sax the
// events nlohmann::json::sax_parse would and returns true. It returns false as soon as it
// meets anything else (valid or not: a fraction, \u, UTF-8, an error) or sax refuses an
// event; sax has then seen part of the text, and the caller starts over with a fresh
// handler and parse_json_sax, which decides.
template <class Sax>
bool parse_plain_json(std::string_view text, Sax& sax, int max_depth = kMaxJsonDepth) {
  return json_detail::PlainReader<Sax>(text, sax, max_depth).document();
}

}  // namespace amdml::formats
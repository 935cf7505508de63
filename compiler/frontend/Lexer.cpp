#include "compiler/frontend/Lexer.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace dspc {

namespace {

bool is_digit(int c) {
  return c >= '0' && c <= '9';
}
bool is_ident_start(int c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_ident_char(int c) {
  return is_ident_start(c) || is_digit(c);
}

// Literal suffixes are the numeric dtypes; `5bool` or `5x` are mistakes, not suffixes.
std::optional<DataType> parse_suffix(const std::string& s) {
  static const char* const kNames[] = {"i8",  "i16", "i32", "i64", "u8", "u16",
                                       "u32", "u64", "f16", "f32", "f64"};
  for (const char* n : kNames)
    if (s == n) return DataType::parse(s);
  return std::nullopt;
}

struct Punct {
  const char* text;
  Tok kind;
};

// Longest first, so `<<` wins over `<`.
constexpr Punct kPuncts[] = {
    {"->", Tok::Arrow}, {"&&", Tok::AmpAmp},  {"||", Tok::PipePipe}, {"<<", Tok::Shl},   {">>", Tok::Shr},
    {"<=", Tok::Le},    {">=", Tok::Ge},      {"==", Tok::EqEq},     {"!=", Tok::Ne},    {"(", Tok::LParen},
    {")", Tok::RParen}, {"[", Tok::LBracket}, {"]", Tok::RBracket},  {"{", Tok::LBrace}, {"}", Tok::RBrace},
    {",", Tok::Comma},  {":", Tok::Colon},    {";", Tok::Semi},      {".", Tok::Dot},    {"=", Tok::Assign},
    {"+", Tok::Plus},   {"-", Tok::Minus},    {"*", Tok::Star},      {"/", Tok::Slash},  {"%", Tok::Percent},
    {"&", Tok::Amp},    {"|", Tok::Pipe},     {"^", Tok::Caret},     {"!", Tok::Bang},   {"~", Tok::Tilde},
    {"<", Tok::Lt},     {">", Tok::Gt},       {"@", Tok::At},
};

}  // namespace

void Lexer::bump() {
  if (s_[pos_] == '\n') {
    ++line_;
    col_ = 1;
    line_start_ = true;
  } else {
    ++col_;
  }
  ++pos_;
}

void Lexer::skip_space_and_comments() {
  for (;;) {
    int c = peek();
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v') {
      bump();
    } else if (c == '#' || (c == '/' && peek(1) == '/')) {
      while (peek() != -1 && peek() != '\n') bump();
    } else {
      return;
    }
  }
}

Token Lexer::error(Token t, std::string message) {
  t.kind = Tok::Error;
  t.text = std::move(message);
  return t;
}

Token Lexer::number(Token t) {
  size_t begin = pos_;
  bool is_float = false;
  while (is_digit(peek())) bump();
  if (peek() == '.' && is_digit(peek(1))) {
    is_float = true;
    bump();
    while (is_digit(peek())) bump();
  }
  if ((peek() == 'e' || peek() == 'E') &&
      (is_digit(peek(1)) || ((peek(1) == '+' || peek(1) == '-') && is_digit(peek(2))))) {
    is_float = true;
    bump();
    bump();
    while (is_digit(peek())) bump();
  }
  t.text = s_.substr(begin, pos_ - begin);
  if (is_ident_start(peek())) {
    size_t sb = pos_;
    while (is_ident_char(peek())) bump();
    std::string suffix = s_.substr(sb, pos_ - sb);
    t.suffix = parse_suffix(suffix);
    if (!t.suffix) return error(t, "invalid suffix '" + suffix.substr(0, 32) + "' on number");
  }
  if (is_float) {
    t.kind = Tok::Float;
    t.float_value = std::strtod(t.text.c_str(), nullptr);
    if (std::isinf(t.float_value)) return error(t, "float literal too large");
    return t;
  }
  t.kind = Tok::Int;
  uint64_t v = 0;
  for (char c : t.text) {
    uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return error(t, "integer literal too large");
    v = v * 10 + d;
  }
  t.int_value = v;
  return t;
}

Token Lexer::next() {
  skip_space_and_comments();
  Token t;
  t.span = Span{line_, col_};
  t.line_start = line_start_;
  line_start_ = false;
  int c = peek();
  if (c == -1) return t;
  if (is_digit(c)) return number(std::move(t));
  if (is_ident_start(c)) {
    size_t begin = pos_;
    while (is_ident_char(peek())) bump();
    t.text = s_.substr(begin, pos_ - begin);
    t.kind = Tok::Ident;
    // The printer spells infinities and NaNs as inff32, nanf64, ...
    for (const char* word : {"inf", "nan"}) {
      if (t.text.size() > 3 && t.text.compare(0, 3, word) == 0) {
        auto dt = parse_suffix(t.text.substr(3));
        if (!dt || !dt->is_float()) continue;
        t.kind = Tok::Float;
        t.suffix = dt;
        t.float_value = word[0] == 'i' ? HUGE_VAL : std::nan("");
        t.text = word;
      }
    }
    return t;
  }
  if (c == '"') {
    bump();
    size_t begin = pos_;
    while (peek() != -1 && peek() != '"' && peek() != '\n') bump();
    // Resume right after the quote, so the rest of the line still reads as tokens and
    // recovery can find the closing brackets.
    if (peek() != '"') {
      pos_ = begin;
      col_ = t.span.col + 1;
      return error(t, "unterminated string");
    }
    size_t end = pos_;
    bump();
    // A string names a scope or a function: no control bytes (a NUL would cut every message
    // that quotes the name, and no name the language knows has one).
    for (size_t i = begin; i < end; ++i) {
      auto b = static_cast<unsigned char>(s_[i]);
      if (b >= 0x20 && b != 0x7f) continue;
      Token bad = t;
      bad.span.col = t.span.col + 1 + static_cast<uint32_t>(i - begin);
      char buf[48];
      std::snprintf(buf, sizeof buf, "control byte 0x%02x in a string", b);
      return error(bad, buf);
    }
    t.kind = Tok::String;
    t.text = s_.substr(begin, end - begin);
    return t;
  }
  for (const Punct& p : kPuncts) {
    size_t n = std::char_traits<char>::length(p.text);
    if (s_.compare(pos_, n, p.text) != 0) continue;
    for (size_t i = 0; i < n; ++i) bump();
    t.kind = p.kind;
    t.text = p.text;
    return t;
  }
  bump();
  if (c > 0x20 && c < 0x7f)
    return error(t, std::string("unexpected character '") + static_cast<char>(c) + "'");
  char buf[32];
  std::snprintf(buf, sizeof buf, "unexpected byte 0x%02x", c);
  return error(t, buf);
}

std::vector<Token> lex(const std::string& text) {
  Lexer lexer(text);
  std::vector<Token> out;
  for (;;) {
    out.push_back(lexer.next());
    if (out.back().kind == Tok::End) return out;
  }
}

std::string tok_name(Tok k) {
  switch (k) {
    case Tok::End: return "end of file";
    case Tok::Error: return "invalid token";
    case Tok::Ident: return "identifier";
    case Tok::Int: return "integer";
    case Tok::Float: return "number";
    case Tok::String: return "string";
    default: break;
  }
  for (const Punct& p : kPuncts)
    if (p.kind == k) return std::string("'") + p.text + "'";
  return "token";
}

std::string describe_token(const Token& t) {
  switch (t.kind) {
    case Tok::End: return "end of file";
    case Tok::Error: return "invalid token";
    case Tok::String: return "string \"" + t.text.substr(0, 40) + (t.text.size() > 40 ? "...\"" : "\"");
    case Tok::Int:
    case Tok::Float: {
      std::string s = t.text + (t.suffix ? t.suffix->str() : "");
      return "'" + s.substr(0, 40) + "'";
    }
    default: return "'" + t.text.substr(0, 40) + (t.text.size() > 40 ? "..." : "") + "'";
  }
}

}  // namespace dspc

// Tokens of the .dsp language and of TIR text (one lexer serves both).
//
// Comments are `#` or `//` to the end of the line; newlines are not tokens, but every token
// knows whether it starts a line (TIR uses that to end statements, recovery to find stages).
// Bad input never stops the lexer: it yields an Error token carrying the message and moves on.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/DataType.h"
#include "compiler/ir/SourceLocation.h"

namespace dspc {

enum class Tok : uint8_t {
  End,
  Error,  // text holds the message
  Ident,
  Int,     // int_value; optional suffix (5i8)
  Float,   // float_value; optional suffix (1.5f32); also inff32 / nanf64
  String,  // text holds the contents without quotes
  LParen,
  RParen,
  LBracket,
  RBracket,
  LBrace,
  RBrace,
  Comma,
  Colon,
  Semi,
  Dot,
  Arrow,
  Assign,
  Plus,
  Minus,
  Star,
  Slash,
  Percent,
  Amp,
  AmpAmp,
  Pipe,
  PipePipe,
  Caret,
  Bang,
  Tilde,
  Shl,
  Shr,
  Lt,
  Le,
  Gt,
  Ge,
  EqEq,
  Ne,
  At,  // `@host` in a graph
};

struct Token {
  Tok kind = Tok::End;
  std::string text;  // as written; for literals the number without its suffix
  Span span;
  bool line_start = false;  // first token on its line
  uint64_t int_value = 0;
  double float_value = 0;
  std::optional<DataType> suffix;
};

class Lexer {
 public:
  explicit Lexer(const std::string& text) : s_(text) {}
  Token next();  // End forever once the input is exhausted

 private:
  int peek(size_t k = 0) const {
    return pos_ + k < s_.size() ? static_cast<unsigned char>(s_[pos_ + k]) : -1;
  }
  void bump();
  void skip_space_and_comments();
  Token number(Token t);
  Token error(Token t, std::string message);

  const std::string& s_;
  size_t pos_ = 0;
  uint32_t line_ = 1, col_ = 1;
  bool line_start_ = true;
};

// All tokens of `text`, ending with one End token.
std::vector<Token> lex(const std::string& text);

// How a token kind is named in "expected X" messages: "'('", "identifier", "end of file".
std::string tok_name(Tok k);
// How a token is named in "found Y" messages: "'foo'", "'123'", "end of file".
std::string describe_token(const Token& t);

}  // namespace dspc

// The lexer: token kinds, texts, values, locations, line starts and errors.
#include <gtest/gtest.h>

#include <cmath>

#include "compiler/frontend/Lexer.h"

namespace dspc {
namespace {

std::vector<Tok> kinds(const std::vector<Token>& toks) {
  std::vector<Tok> out;
  for (const auto& t : toks) out.push_back(t.kind);
  return out;
}

TEST(Lexer, SignatureTokensAndLocations) {
  auto toks = lex("func f(A: i8[4]) -> (C: i8[4]) {\n  C[i] = A[i]\n}");
  std::vector<Tok> want = {
      Tok::Ident,    Tok::Ident,    Tok::LParen,   Tok::Ident,    Tok::Colon,  Tok::Ident,    Tok::LBracket,
      Tok::Int,      Tok::RBracket, Tok::RParen,   Tok::Arrow,    Tok::LParen, Tok::Ident,    Tok::Colon,
      Tok::Ident,    Tok::LBracket, Tok::Int,      Tok::RBracket, Tok::RParen, Tok::LBrace,   Tok::Ident,
      Tok::LBracket, Tok::Ident,    Tok::RBracket, Tok::Assign,   Tok::Ident,  Tok::LBracket, Tok::Ident,
      Tok::RBracket, Tok::RBrace,   Tok::End};
  ASSERT_EQ(kinds(toks), want);
  EXPECT_EQ(toks[0].text, "func");
  EXPECT_EQ(toks[0].span.line, 1u);
  EXPECT_EQ(toks[0].span.col, 1u);
  EXPECT_TRUE(toks[0].line_start);
  EXPECT_EQ(toks[1].text, "f");
  EXPECT_EQ(toks[1].span.col, 6u);
  EXPECT_FALSE(toks[1].line_start);
  EXPECT_EQ(toks[7].int_value, 4u);
  EXPECT_EQ(toks[7].span.col, 14u);
  EXPECT_EQ(toks[10].span.col, 18u);  // ->
  // `C` on line 2, after two spaces.
  EXPECT_EQ(toks[20].text, "C");
  EXPECT_EQ(toks[20].span.line, 2u);
  EXPECT_EQ(toks[20].span.col, 3u);
  EXPECT_TRUE(toks[20].line_start);
  EXPECT_EQ(toks[29].span.line, 3u);
  EXPECT_EQ(toks[29].span.col, 1u);
}

TEST(Lexer, OperatorsLongestMatch) {
  auto toks = lex("<< >> <= >= == != && || -> = < > + - * / % & | ^ ! ~ ; . : , ( ) [ ] { }");
  std::vector<Tok> want = {Tok::Shl,    Tok::Shr,      Tok::Le,     Tok::Ge,     Tok::EqEq,     Tok::Ne,
                           Tok::AmpAmp, Tok::PipePipe, Tok::Arrow,  Tok::Assign, Tok::Lt,       Tok::Gt,
                           Tok::Plus,   Tok::Minus,    Tok::Star,   Tok::Slash,  Tok::Percent,  Tok::Amp,
                           Tok::Pipe,   Tok::Caret,    Tok::Bang,   Tok::Tilde,  Tok::Semi,     Tok::Dot,
                           Tok::Colon,  Tok::Comma,    Tok::LParen, Tok::RParen, Tok::LBracket, Tok::RBracket,
                           Tok::LBrace, Tok::RBrace,   Tok::End};
  EXPECT_EQ(kinds(toks), want);
  // No spaces: `a<<-b` is a, <<, -, b and `x<=y` is x, <=, y.
  EXPECT_EQ(kinds(lex("a<<-b")), (std::vector<Tok>{Tok::Ident, Tok::Shl, Tok::Minus, Tok::Ident, Tok::End}));
  EXPECT_EQ(kinds(lex("x<=y")), (std::vector<Tok>{Tok::Ident, Tok::Le, Tok::Ident, Tok::End}));
}

TEST(Lexer, NumbersAndSuffixes) {
  auto toks = lex("5 5i8 200u8 7u64 18446744073709551615 1.5f32 2.0f64 1e+20f32 0.25e-3 3.5 inff32 nanf64");
  ASSERT_EQ(toks.size(), 13u);
  EXPECT_EQ(toks[0].kind, Tok::Int);
  EXPECT_EQ(toks[0].int_value, 5u);
  EXPECT_FALSE(toks[0].suffix.has_value());
  EXPECT_EQ(toks[1].kind, Tok::Int);
  EXPECT_EQ(toks[1].text, "5");
  EXPECT_EQ(*toks[1].suffix, DataType::i8());
  EXPECT_EQ(*toks[2].suffix, DataType::u8());
  EXPECT_EQ(toks[2].int_value, 200u);
  EXPECT_EQ(*toks[3].suffix, DataType::u64());
  EXPECT_EQ(toks[4].int_value, UINT64_MAX);
  EXPECT_EQ(toks[5].kind, Tok::Float);
  EXPECT_DOUBLE_EQ(toks[5].float_value, 1.5);
  EXPECT_EQ(*toks[5].suffix, DataType::f32());
  EXPECT_EQ(*toks[6].suffix, DataType::f64());
  EXPECT_EQ(toks[7].kind, Tok::Float);
  EXPECT_DOUBLE_EQ(toks[7].float_value, 1e20);
  EXPECT_DOUBLE_EQ(toks[8].float_value, 0.25e-3);
  EXPECT_FALSE(toks[9].suffix.has_value());
  EXPECT_EQ(toks[10].kind, Tok::Float);
  EXPECT_TRUE(std::isinf(toks[10].float_value));
  EXPECT_EQ(*toks[10].suffix, DataType::f32());
  EXPECT_TRUE(std::isnan(toks[11].float_value));
  EXPECT_EQ(*toks[11].suffix, DataType::f64());
  // `inf` alone is a name; `2.x` is 2, '.', x (the dot of `A.set_scope`).
  EXPECT_EQ(lex("inf")[0].kind, Tok::Ident);
  EXPECT_EQ(kinds(lex("2.x")), (std::vector<Tok>{Tok::Int, Tok::Dot, Tok::Ident, Tok::End}));
}

TEST(Lexer, CommentsAndLineStarts) {
  auto toks = lex("# a comment\n  a // another\n// whole line\n\tb c # tail");
  ASSERT_EQ(toks.size(), 4u);
  EXPECT_EQ(toks[0].text, "a");
  EXPECT_EQ(toks[0].span.line, 2u);
  EXPECT_EQ(toks[0].span.col, 3u);
  EXPECT_TRUE(toks[0].line_start);
  EXPECT_EQ(toks[1].text, "b");
  EXPECT_EQ(toks[1].span.line, 4u);
  EXPECT_EQ(toks[1].span.col, 2u);  // a tab is one column
  EXPECT_TRUE(toks[1].line_start);
  EXPECT_FALSE(toks[2].line_start);
  EXPECT_EQ(toks[3].kind, Tok::End);
  EXPECT_EQ(kinds(lex("")), std::vector<Tok>{Tok::End});
  EXPECT_EQ(kinds(lex("# only\n// comments")), std::vector<Tok>{Tok::End});
}

TEST(Lexer, Strings) {
  auto toks = lex("A.set_scope(\"local.vtcm\")");
  ASSERT_EQ(toks.size(), 7u);
  EXPECT_EQ(toks[4].kind, Tok::String);
  EXPECT_EQ(toks[4].text, "local.vtcm");
  EXPECT_EQ(toks[4].span.col, 13u);
  EXPECT_EQ(describe_token(toks[4]), "string \"local.vtcm\"");
}

TEST(Lexer, ErrorsAreTokensAndLexingGoesOn) {
  auto toks = lex("99999999999999999999 x");
  EXPECT_EQ(toks[0].kind, Tok::Error);
  EXPECT_EQ(toks[0].text, "integer literal too large");
  EXPECT_EQ(toks[1].text, "x");

  toks = lex("a \"open\nb");
  EXPECT_EQ(toks[1].kind, Tok::Error);
  EXPECT_EQ(toks[1].text, "unterminated string");
  EXPECT_EQ(toks[1].span.col, 3u);
  // Lexing resumes after the quote, so the rest of the line is still tokens.
  EXPECT_EQ(toks[2].text, "open");
  EXPECT_EQ(toks[2].span.col, 4u);
  EXPECT_EQ(toks[3].text, "b");
  EXPECT_EQ(toks[3].span.line, 2u);

  toks = lex("a $ b");
  EXPECT_EQ(toks[1].kind, Tok::Error);
  EXPECT_EQ(toks[1].text, "unexpected character '$'");
  EXPECT_EQ(toks[2].text, "b");

  toks = lex(std::string("a\0b\xff", 4));
  ASSERT_EQ(toks.size(), 5u);
  EXPECT_EQ(toks[1].text, "unexpected byte 0x00");
  EXPECT_EQ(toks[1].span.col, 2u);
  EXPECT_EQ(toks[2].text, "b");
  EXPECT_EQ(toks[3].text, "unexpected byte 0xff");

  toks = lex("12abc 3i7 1e999");
  EXPECT_EQ(toks[0].text, "invalid suffix 'abc' on number");
  EXPECT_EQ(toks[1].text, "invalid suffix 'i7' on number");
  EXPECT_EQ(toks[2].text, "float literal too large");
}

TEST(Lexer, Descriptions) {
  auto toks = lex("foo 12 5i8 ( ->");
  EXPECT_EQ(describe_token(toks[0]), "'foo'");
  EXPECT_EQ(describe_token(toks[1]), "'12'");
  EXPECT_EQ(describe_token(toks[2]), "'5i8'");
  EXPECT_EQ(describe_token(toks[3]), "'('");
  EXPECT_EQ(describe_token(toks[4]), "'->'");
  EXPECT_EQ(describe_token(toks[5]), "end of file");
  EXPECT_EQ(tok_name(Tok::RBracket), "']'");
  EXPECT_EQ(tok_name(Tok::Ident), "identifier");
}

}  // namespace
}  // namespace dspc

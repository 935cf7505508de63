// The .npy header parser and writer (common/npy.c), compiled with the host compiler.
#include "runtime-support/common/npy.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

std::vector<uint8_t> file_with(const std::string& dict, int major = 1) {
  std::vector<uint8_t> f = {0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<uint8_t>(major), 0};
  uint32_t n = static_cast<uint32_t>(dict.size());
  f.push_back(n & 0xFF);
  f.push_back((n >> 8) & 0xFF);
  if (major >= 2) {
    f.push_back((n >> 16) & 0xFF);
    f.push_back(n >> 24);
  }
  f.insert(f.end(), dict.begin(), dict.end());
  return f;
}

struct Parsed {
  int status;
  dspc_npy_header h;
  size_t offset;
  std::string error;
};

Parsed parse(const std::vector<uint8_t>& f) {
  Parsed p{};
  char buf[256];
  dspc_text err;
  dspc_text_init(&err, buf, sizeof buf);
  p.status = dspc_npy_parse(f.data(), f.size(), &p.h, &p.offset, &err);
  p.error = buf;
  return p;
}

TEST(Npy, ParsesWhatNumpyWrites) {
  const std::string dict = "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }          \n";
  Parsed p = parse(file_with(dict));
  ASSERT_EQ(p.status, 0) << p.error;
  EXPECT_EQ(p.h.kind, 'i');
  EXPECT_EQ(p.h.bytes, 4);
  ASSERT_EQ(p.h.ndim, 2u);
  EXPECT_EQ(p.h.shape[0], 2);
  EXPECT_EQ(p.h.shape[1], 3);
  EXPECT_EQ(p.offset, 10u + dict.size());
}

TEST(Npy, AcceptsVersion2KeyOrderQuotesAndScalarShapes) {
  const std::string dict = "{\"shape\": (), \"descr\": \"|b1\", \"fortran_order\": False}\n";
  Parsed p = parse(file_with(dict, 2));
  ASSERT_EQ(p.status, 0) << p.error;
  EXPECT_EQ(p.h.kind, 'b');
  EXPECT_EQ(p.h.ndim, 0u);
  EXPECT_EQ(p.offset, 12u + dict.size());
  p = parse(file_with("{'descr':'<f8','fortran_order':False,'shape':(7L,)}"));
  ASSERT_EQ(p.status, 0) << p.error;
  EXPECT_EQ(p.h.ndim, 1u);
  EXPECT_EQ(p.h.shape[0], 7);
}

TEST(Npy, AcceptsEveryListedDtype) {
  for (const char* d :
       {"<i1", "|i1", "<u1", "|u1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8", "<f2", "<f4", "<f8", "|b1"}) {
    Parsed p =
        parse(file_with(std::string("{'descr': '") + d + "', 'fortran_order': False, 'shape': (1,), }"));
    EXPECT_EQ(p.status, 0) << d << ": " << p.error;
  }
}

TEST(Npy, RejectsWithClearMessages) {
  struct Case {
    std::string dict;
    std::string message;
  } cases[] = {
      {"{'descr': '>i4', 'fortran_order': False, 'shape': (1,), }",
       "big-endian .npy data ('>i4') is not supported"},
      {"{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", "unsupported .npy dtype '<c8'"},
      {"{'descr': '<U3', 'fortran_order': False, 'shape': (1,), }", "unsupported .npy dtype '<U3'"},
      {"{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }",
       "Fortran-order .npy data is not supported"},
      {"{'descr': '<f4', 'shape': (1,), }", "it lacks 'fortran_order'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}", "unexpected key"},
      {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,)}", "repeated key"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", "expected a dimension"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999,), }", "dimension too large"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,) } junk", "unexpected text after"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,", "expected a dimension"},
      {"{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (1,)}", "expected a quoted string"},
  };
  for (const Case& c : cases) {
    Parsed p = parse(file_with(c.dict));
    EXPECT_NE(p.status, 0) << c.dict;
    EXPECT_NE(p.error.find(c.message), std::string::npos) << c.dict << " -> " << p.error;
  }
  std::vector<uint8_t> f = file_with("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }");
  f[6] = 4;
  EXPECT_NE(parse(f).error.find("unsupported .npy format version 4.0"), std::string::npos);
  f[0] = 'X';
  EXPECT_NE(parse(f).error.find("bad magic"), std::string::npos);
  f = file_with("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }");
  f.resize(f.size() - 5);
  EXPECT_NE(parse(f).error.find("truncated .npy header"), std::string::npos);
}

// The details compiler/interp/Npy.cpp passes on to users: what is wrong and where.
TEST(Npy, MessagesNameWhatIsWrong) {
  struct Case {
    std::string dict;
    std::string message;
  } cases[] = {
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'extra': 1}", "unexpected key 'extra'"},
      {"[1, 2, 3]", "malformed .npy header: expected '{' (the header is not a dict) at byte 0"},
      {"{'descr: <i4" + std::string(40, ' '), "string too long for a key"},
      {"{'descr", "unterminated string for a key"},
      {"{'de\\scr': '<f4'}", "unsupported escape in a string for a key"},
      {"{'descr': <f4, 'fortran_order': False, 'shape': (1,)}", "expected a quoted string for 'descr'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", "expected a dimension in the shape"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,) } junk",
       "unexpected text after the dictionary (only trailing spaces may follow it)"},
      {"{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }", "fortran_order is True"},
  };
  for (const Case& c : cases) {
    Parsed p = parse(file_with(c.dict));
    EXPECT_NE(p.status, 0) << c.dict;
    EXPECT_NE(p.error.find(c.message), std::string::npos) << c.dict << " -> " << p.error;
  }
  // Header bytes are quoted as one line of printable text.
  EXPECT_NE(parse(file_with("{'a\nb\xff': 1}")).error.find("unexpected key 'a\\x0ab\\xff'"),
            std::string::npos);
  EXPECT_NE(
      parse(file_with("{'descr': '<\t8', 'fortran_order': False, 'shape': ()}")).error.find("'<\\x098'"),
      std::string::npos);
  EXPECT_EQ(parse({}).error, "not a .npy file (too short for its 10-byte preamble)");
  std::vector<uint8_t> v2 = file_with("{}", 2);
  v2.resize(11);
  EXPECT_EQ(parse(v2).error, "truncated .npy header (in its 12-byte preamble)");
}

std::string data_size(const std::string& dict, uint64_t available, uint64_t* nbytes) {
  Parsed p = parse(file_with(dict));
  EXPECT_EQ(p.status, 0) << p.error;
  char buf[256];
  dspc_text err;
  dspc_text_init(&err, buf, sizeof buf);
  if (dspc_npy_data_size(&p.h, available, nbytes, &err) == 0) return "ok";
  return buf;
}

// The data must be exactly what the shape needs: a header claiming more than the file holds is
// refused before anyone sizes a buffer by it, even when its product overflows.
TEST(Npy, DataSizeIsCheckedAgainstTheFile) {
  uint64_t n = 0;
  EXPECT_EQ(data_size("{'descr': '<i2', 'fortran_order': False, 'shape': (2, 3), }", 12, &n), "ok");
  EXPECT_EQ(n, 12u);
  EXPECT_EQ(data_size("{'descr': '<f8', 'fortran_order': False, 'shape': (), }", 8, &n), "ok");
  EXPECT_EQ(n, 8u);
  EXPECT_EQ(data_size("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", 7, &n),
            "data has 7 bytes, the shape needs 8");
  EXPECT_EQ(data_size("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", 9, &n),
            "data has 9 bytes, the shape needs 8");
  const std::string huge =
      "{'descr': '<i8', 'fortran_order': False, 'shape': (1099511627776, 1099511627776, "
      "1099511627776, 1099511627776), }";
  EXPECT_EQ(data_size(huge, 4, &n), "data has 4 bytes, shorter than the shape says");
  EXPECT_EQ(data_size(huge, UINT64_MAX, &n),
            "data has 18446744073709551615 bytes, shorter than the shape says");
  // A zero extent anywhere makes an empty array, however large the others.
  n = 1;
  EXPECT_EQ(
      data_size("{'descr': '<i4', 'fortran_order': False, 'shape': (1099511627776, 1099511627776, 0), }", 0,
                &n),
      "ok");
  EXPECT_EQ(n, 0u);
  EXPECT_EQ(data_size("{'descr': '<i4', 'fortran_order': False, 'shape': (0, 3), }", 1, &n),
            "data has 1 bytes, the shape needs 0");
}

TEST(Npy, DescrIsWhatNumpyWrites) {
  char d[4];
  const struct {
    char kind;
    unsigned bytes;
    const char* descr;
  } cases[] = {{'i', 1, "|i1"}, {'u', 1, "|u1"}, {'b', 1, "|b1"}, {'i', 2, "<i2"}, {'u', 4, "<u4"},
               {'i', 8, "<i8"}, {'f', 2, "<f2"}, {'f', 4, "<f4"}, {'f', 8, "<f8"}};
  for (const auto& c : cases) {
    dspc_npy_descr(c.kind, c.bytes, d);
    EXPECT_STREQ(d, c.descr);
  }
}

TEST(Npy, NeverReadsOutOfBoundsOnGarbage) {
  // Each prefix of a valid header, and random mutations of it, parse or fail cleanly. Run
  // under ASan/valgrind to make out-of-bounds reads visible; here a crash would fail.
  std::vector<uint8_t> good =
      file_with("{'descr': '<i2', 'fortran_order': False, 'shape': (3, 4, 5), }   \n", 2);
  for (size_t n = 0; n <= good.size(); n++) {
    std::vector<uint8_t> prefix(good.begin(), good.begin() + n);
    Parsed p = parse(prefix);
    EXPECT_EQ(p.status == 0, n == good.size()) << n;
  }
  std::mt19937 rng(5);
  const std::string alphabet = "{}()[]',:\" 0123456789LTrueFalsdcptimhoa<|>if\n\\";
  for (int i = 0; i < 200000; i++) {
    std::vector<uint8_t> f = good;
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; e++) {
      size_t at = 12 + rng() % (f.size() - 12);
      f[at] =
          rng() % 2 ? static_cast<uint8_t>(alphabet[rng() % alphabet.size()]) : static_cast<uint8_t>(rng());
    }
    // Exact-size buffers, so that a read past the end lands outside the allocation.
    std::vector<uint8_t> exact(f);
    Parsed p = parse(exact);
    if (p.status != 0) {
      EXPECT_FALSE(p.error.empty());
    } else {
      EXPECT_LE(p.h.ndim, static_cast<uint32_t>(DSPC_NPY_MAX_DIMS));
    }
  }
}

TEST(Npy, WriterOutputParsesBackAndIsPadded) {
  int64_t shapes[][3] = {{2, 3, 4}, {0, 0, 0}, {7, 0, 0}};
  uint32_t ndims[] = {3, 0, 1};
  for (int i = 0; i < 3; i++) {
    uint8_t buf[256];
    size_t n = dspc_npy_write_header(buf, sizeof buf, "<f4", ndims[i], shapes[i]);
    ASSERT_GT(n, 0u);
    EXPECT_EQ(n % 64, 0u);
    EXPECT_EQ(buf[n - 1], '\n');
    Parsed p = parse(std::vector<uint8_t>(buf, buf + n));
    ASSERT_EQ(p.status, 0) << p.error;
    EXPECT_EQ(p.offset, n);
    ASSERT_EQ(p.h.ndim, ndims[i]);
    for (uint32_t d = 0; d < ndims[i]; d++) EXPECT_EQ(p.h.shape[d], shapes[i][d]);
  }
  uint8_t tiny[32];
  int64_t shape[1] = {5};
  EXPECT_EQ(dspc_npy_write_header(tiny, sizeof tiny, "<f4", 1, shape), 0u);
  uint8_t buf[128];
  size_t n = dspc_npy_write_header(buf, sizeof buf, "|u1", 1, shape);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(buf) + 10, n - 10),
            "{'descr': '|u1', 'fortran_order': False, 'shape': (5,), }" + std::string(60, ' ') + "\n");
  int64_t many[DSPC_NPY_MAX_DIMS + 1] = {};
  uint8_t big[4096];
  EXPECT_GT(dspc_npy_write_header(big, sizeof big, "<f4", DSPC_NPY_MAX_DIMS, many), 0u);
  EXPECT_EQ(dspc_npy_write_header(big, sizeof big, "<f4", DSPC_NPY_MAX_DIMS + 1, many), 0u);
}

// numpy's own layout: the header leaves 21 - digits(first extent) spaces for the array to grow
// in place, then pads with 1 to 64 spaces (64 when already aligned) and a newline.
TEST(Npy, WriterLaysOutTheHeaderAsNumpyDoes) {
  auto header = [](const char* descr, std::vector<int64_t> shape) {
    uint8_t buf[512];
    size_t n =
        dspc_npy_write_header(buf, sizeof buf, descr, static_cast<uint32_t>(shape.size()), shape.data());
    return std::string(reinterpret_cast<const char*>(buf), n);
  };
  // numpy.save of an int16 (2, 3) array.
  const std::string small = "{'descr': '<i2', 'fortran_order': False, 'shape': (2, 3), }";
  EXPECT_EQ(header("<i2", {2, 3}), std::string("\x93NUMPY\x01\x00\x76\x00", 10) + small +
                                       std::string(127 - 10 - small.size(), ' ') + "\n");
  // Here the dictionary and its 20 spare spaces end at byte 127, so that with the newline the
  // data would be aligned at 128 already: numpy adds 64 more spaces all the same.
  const std::string wide =
      "{'descr': '<i4', 'fortran_order': False, 'shape': (1, 1, 1111111111, 11111111111, 11111111111), }";
  ASSERT_EQ(10 + wide.size() + 20 + 1, 128u);
  EXPECT_EQ(header("<i4", {1, 1, 1111111111, 11111111111, 11111111111}),
            std::string("\x93NUMPY\x01\x00\xb6\x00", 10) + wide + std::string(20 + 64, ' ') + "\n");
  // A 0-d array has no extent to grow: 10 + 55 + 1 bytes, padded to 128.
  const std::string scalar = "{'descr': '<f8', 'fortran_order': False, 'shape': (), }";
  EXPECT_EQ(header("<f8", {}), std::string("\x93NUMPY\x01\x00\x76\x00", 10) + scalar +
                                   std::string(127 - 10 - scalar.size(), ' ') + "\n");
}

}  // namespace

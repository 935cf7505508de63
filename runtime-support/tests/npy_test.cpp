// The .npy header parser and writer (common/npy.c), compiled with the host compiler.
#include "npy.h"

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
}

}  // namespace

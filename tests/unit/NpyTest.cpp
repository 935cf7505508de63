// .npy reading and writing, malformed files, and the text rendering of tensors.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "compiler/interp/Npy.h"

namespace dspc {
namespace {

// The scratch files this process made, removed when it exits so that runs leave nothing behind.
std::vector<std::string>& scratch_files() {
  static std::vector<std::string> files;
  static const bool cleanup = std::atexit([] {
    for (const auto& f : scratch_files()) std::remove(f.c_str());
  }) == 0;
  (void)cleanup;
  return files;
}

// Unique per process and test: ctest runs every test case as its own process, in parallel.
std::string temp_path(const std::string& name) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string path =
      ::testing::TempDir() + "dspc_npy_" + std::to_string(getpid()) + "_" + info->name() + "_" + name;
  scratch_files().push_back(path);
  return path;
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream os(path, std::ios::binary | std::ios::trunc);
  os.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A v1.0 file with the given header dict (padded like numpy) and data.
std::string npy_v1(const std::string& dict, const std::string& data) {
  std::string h = dict;
  while ((10 + h.size() + 1) % 64 != 0) h += ' ';
  h += '\n';
  std::string out = std::string("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(h.size() & 0xff);
  out += static_cast<char>(h.size() >> 8);
  return out + h + data;
}

// Version 2.0 / 3.0 files use a 4-byte header length.
std::string npy_v23(int major, const std::string& dict, const std::string& data) {
  std::string h = dict + "\n";
  std::string out = std::string("\x93NUMPY", 6);
  out += static_cast<char>(major);
  out += '\0';
  uint32_t n = static_cast<uint32_t>(h.size());
  for (int i = 0; i < 4; ++i) out += static_cast<char>((n >> (8 * i)) & 0xff);
  return out + h + data;
}

bool read_string(const std::string& bytes, Tensor& t, std::string& err, const std::string& name = "in.npy") {
  std::string p = temp_path(name);
  write_bytes(p, bytes);
  return read_npy(p, t, err);
}

TEST(NpyTest, RoundTripsEveryDtype) {
  const DataType types[] = {DataType::i8(),  DataType::i16(), DataType::i32(), DataType::i64(),
                            DataType::u8(),  DataType::u16(), DataType::u32(), DataType::u64(),
                            DataType::f16(), DataType::f32(), DataType::f64(), DataType::boolean()};
  const std::vector<std::vector<int64_t>> shapes = {{}, {1}, {7}, {3, 5}, {2, 3, 4}};
  uint64_t seed = 1;
  for (DataType t : types) {
    for (const auto& shape : shapes) {
      Tensor in = random_tensor(t, shape, seed++);
      if (t.is_float() && t.bits == 16) {
        // random_tensor works on any dtype; make the f16 payload arbitrary bits too.
        for (size_t k = 0; k < in.data.size(); ++k) in.data[k] = static_cast<uint8_t>(k * 37 + 11);
      }
      std::string p = temp_path("rt.npy"), err;
      ASSERT_TRUE(write_npy(p, in, err)) << err;
      Tensor out;
      ASSERT_TRUE(read_npy(p, out, err)) << t.str() << ": " << err;
      EXPECT_EQ(out.dtype, t);
      EXPECT_EQ(out.shape, shape);
      EXPECT_EQ(out.data, in.data) << t.str();
      // Header padded to 64 bytes and newline-terminated, as numpy does.
      std::string bytes = read_bytes(p);
      size_t hl = static_cast<uint8_t>(bytes[8]) | (static_cast<uint8_t>(bytes[9]) << 8);
      EXPECT_EQ((10 + hl) % 64, 0u);
      EXPECT_EQ(bytes[10 + hl - 1], '\n');
      EXPECT_EQ(bytes.size(), 10 + hl + in.data.size());
    }
  }
}

TEST(NpyTest, WritesWhatNumpyWrites) {
  Tensor t = Tensor::zeros(DataType::i16(), {2, 3});
  for (int k = 0; k < 6; ++k) t.data[2 * k] = static_cast<uint8_t>(k + 1);
  t.data[11] = 0x80;  // last element: 6 - 32768
  std::string p = temp_path("golden.npy"), err;
  ASSERT_TRUE(write_npy(p, t, err)) << err;
  std::string dict = "{'descr': '<i2', 'fortran_order': False, 'shape': (2, 3), }";
  std::string want = std::string("\x93NUMPY\x01\x00\x76\x00", 10) + dict;
  want += std::string(127 - want.size(), ' ') + "\n";
  ASSERT_EQ(want.size(), 128u);
  want += std::string("\x01\x00\x02\x00\x03\x00\x04\x00\x05\x00\x06\x80", 12);
  EXPECT_EQ(read_bytes(p), want);

  // One-byte types are written byte-order free; 0-d and 1-d shapes use python's tuple syntax.
  Tensor b = Tensor::zeros(DataType::boolean(), {5});
  ASSERT_TRUE(write_npy(p, b, err)) << err;
  EXPECT_NE(read_bytes(p).find("{'descr': '|b1', 'fortran_order': False, 'shape': (5,), }"),
            std::string::npos);
  Tensor s = Tensor::zeros(DataType::u8(), {});
  ASSERT_TRUE(write_npy(p, s, err)) << err;
  std::string bytes = read_bytes(p);
  EXPECT_NE(bytes.find("{'descr': '|u1', 'fortran_order': False, 'shape': (), }"), std::string::npos);
  EXPECT_EQ(bytes.size(), 128u + 1);
}

TEST(NpyTest, ReadsOtherHeaderForms) {
  Tensor t;
  std::string err;
  ASSERT_TRUE(read_string(npy_v1("{'descr': '<i1', 'fortran_order': False, 'shape': (3,), }", "\x01\x02\xff"),
                          t, err))
      << err;
  EXPECT_EQ(t.dtype, DataType::i8());
  EXPECT_EQ(t.shape, std::vector<int64_t>{3});
  EXPECT_EQ(t.data[2], 0xff);
  // Key order, quotes and spacing vary; no trailing comma.
  ASSERT_TRUE(read_string(
      npy_v1("{\"shape\":(2,2),\"fortran_order\":False,\"descr\":\"<u2\"}", std::string(8, '\x01')), t, err))
      << err;
  EXPECT_EQ(t.dtype, DataType::u16());
  EXPECT_EQ(t.shape, (std::vector<int64_t>{2, 2}));
  ASSERT_TRUE(read_string(
      npy_v23(2, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }", std::string(8, '\0')), t, err))
      << err;
  EXPECT_EQ(t.dtype, DataType::f64());
  EXPECT_TRUE(t.shape.empty());
  EXPECT_EQ(t.num_elements(), 1);
  ASSERT_TRUE(read_string(
      npy_v23(3, "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2), }", std::string(8, '\0')), t,
      err))
      << err;
  EXPECT_EQ(t.dtype, DataType::f32());
  // Bool bytes are normalised to 0/1.
  ASSERT_TRUE(read_string(
      npy_v1("{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }", std::string("\x00\x07", 2)), t,
      err))
      << err;
  EXPECT_EQ(t.data, (std::vector<uint8_t>{0, 1}));
  // A zero extent is a valid, empty array.
  ASSERT_TRUE(read_string(npy_v1("{'descr': '<i4', 'fortran_order': False, 'shape': (0, 3), }", ""), t, err))
      << err;
  EXPECT_EQ(t.num_elements(), 0);
}

struct Malformed {
  const char* what;
  std::string bytes;
  const char* message;
};

TEST(NpyTest, MalformedFilesGiveErrors) {
  const std::string good_dict = "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }";
  std::string good = npy_v1(good_dict, std::string(8, '\x05'));
  std::string bad_len = good;
  bad_len[8] = '\xff';
  bad_len[9] = '\x7f';
  const Malformed cases[] = {
      {"empty", "", "too short"},
      {"bad magic", "\x93NUMPX" + good.substr(6), "bad magic"},
      {"text file", "hello, this is not a numpy file at all", "bad magic"},
      {"version 4", std::string("\x93NUMPY\x04\x00", 8) + good.substr(8), "version 4.0"},
      {"truncated header", good.substr(0, 40), "truncated .npy header"},
      {"header length past end", bad_len, "truncated .npy header"},
      {"truncated v2 prefix", std::string("\x93NUMPY\x02\x00\x10\x00", 10), "truncated .npy header"},
      {"huge shape",
       npy_v1("{'descr': '<i4', 'fortran_order': False, 'shape': (1099511627776, 1099511627776, "
              "1099511627776), }",
              "abcd"),
       "shorter"},
      {"extent overflows int64",
       npy_v1("{'descr': '<i4', 'fortran_order': False, 'shape': (99999999999999999999999,), }", ""),
       "too large"},
      {"data too short", npy_v1(good_dict, std::string(7, '\x05')), "data has 7 bytes, the shape needs 8"},
      {"data too long", npy_v1(good_dict, std::string(9, '\x05')), "data has 9 bytes, the shape needs 8"},
      {"fortran order",
       npy_v1("{'descr': '<i4', 'fortran_order': True, 'shape': (2,), }", std::string(8, '\0')), "fortran"},
      {"big endian",
       npy_v1("{'descr': '>i4', 'fortran_order': False, 'shape': (2,), }", std::string(8, '\0')), "'>i4'"},
      {"complex", npy_v1("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", std::string(8, '\0')),
       "'<c8'"},
      {"missing key", npy_v1("{'descr': '<i4', 'shape': (2,), }", std::string(8, '\0')), "lacks"},
      {"extra key",
       npy_v1("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), 'x': 1}", std::string(8, '\0')),
       "'x'"},
      {"negative extent", npy_v1("{'descr': '<i4', 'fortran_order': False, 'shape': (-2,), }", ""), "shape"},
      {"not a dict", npy_v1("[1, 2, 3]", ""), "not a dict"},
      {"unterminated string", npy_v1("{'descr: <i4", ""), "key"},
      {"garbage after dict", npy_v1(good_dict + " xyz", std::string(8, '\0')), "trailing"},
  };
  for (const auto& c : cases) {
    Tensor t;
    std::string err;
    EXPECT_FALSE(read_string(c.bytes, t, err)) << c.what;
    EXPECT_NE(err.find(c.message), std::string::npos) << c.what << ": " << err;
    EXPECT_EQ(err.find("in.npy"), std::string::npos) << "the caller names the file: " << err;
  }
  Tensor t;
  std::string err;
  EXPECT_FALSE(read_npy(temp_path("does_not_exist.npy"), t, err));
  EXPECT_NE(err.find("cannot open"), std::string::npos) << err;
  err.clear();
  EXPECT_FALSE(read_npy(::testing::TempDir(), t, err));  // a directory
  EXPECT_FALSE(err.empty());
}

// Every strict prefix of a valid file and every single-byte corruption is handled without a crash.
TEST(NpyTest, SurvivesTruncationAndCorruption) {
  Tensor in = random_tensor(DataType::i16(), {3, 4}, 3);
  std::string p = temp_path("fuzz_src.npy"), err;
  ASSERT_TRUE(write_npy(p, in, err)) << err;
  std::string good = read_bytes(p);
  for (size_t n = 0; n < good.size(); ++n) {
    Tensor t;
    EXPECT_FALSE(read_string(good.substr(0, n), t, err, "fuzz.npy")) << "prefix " << n;
  }
  int accepted = 0;
  for (size_t k = 0; k < good.size(); ++k) {
    for (unsigned char b : {0x00, 0x27, 0x29, 0x7f, 0xff}) {
      std::string bytes = good;
      bytes[k] = static_cast<char>(b);
      Tensor t;
      if (read_string(bytes, t, err, "fuzz.npy")) {
        ++accepted;
        ASSERT_EQ(static_cast<int64_t>(t.data.size()), t.num_elements() * t.dtype.bytes());
      }
    }
  }
  EXPECT_GT(accepted, 0);  // corrupting padding or data still reads
}

TEST(NpyTest, WriteErrors) {
  std::string err;
  Tensor t = Tensor::zeros(DataType::i8(), {4});
  EXPECT_FALSE(write_npy("/nonexistent-dir/x.npy", t, err));
  EXPECT_NE(err.find("cannot open"), std::string::npos) << err;
  t.data.pop_back();
  EXPECT_FALSE(write_npy(temp_path("w.npy"), t, err));
  EXPECT_NE(err.find("does not match"), std::string::npos) << err;
}

TEST(NpyTest, FormatsLikeNumpy) {
  Tensor t = Tensor::zeros(DataType::i8(), {2048});
  for (int k = 0; k < 2048; ++k)
    t.data[k] = static_cast<uint8_t>(k < 3 ? k + 1 : k >= 2045 ? k - 2045 + 7 : 100);
  EXPECT_EQ(format_tensor("C", t), "C: i8[2048] = [1, 2, 3, ..., 7, 8, 9]");

  Tensor m = Tensor::zeros(DataType::i32(), {2, 3});
  for (int k = 0; k < 6; ++k) m.data[4 * k] = static_cast<uint8_t>(k + 1);
  m.data[0] = 0xff, m.data[1] = 0xff, m.data[2] = 0xff, m.data[3] = 0xff;  // -1
  EXPECT_EQ(format_tensor("M", m), "M: i32[2, 3] = [[-1, 2, 3],\n                [4, 5, 6]]");

  // Exactly 16 per dimension is shown in full, 17 is summarised.
  Tensor u16 = Tensor::zeros(DataType::u8(), {16});
  u16.data[15] = 250;
  EXPECT_EQ(format_tensor("U", u16), "U: u8[16] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 250]");
  Tensor u17 = Tensor::zeros(DataType::u8(), {17});
  EXPECT_EQ(format_tensor("U", u17), "U: u8[17] = [0, 0, 0, ..., 0, 0, 0]");

  Tensor big = Tensor::zeros(DataType::u8(), {20, 2});
  EXPECT_EQ(format_tensor("B", big),
            "B: u8[20, 2] = [[0, 0],\n                [0, 0],\n                [0, 0],\n"
            "                ...,\n                [0, 0],\n                [0, 0],\n"
            "                [0, 0]]");

  Tensor f = Tensor::zeros(DataType::f32(), {4});
  float vals[4] = {0.5f, -1.0f, 0.1f, 1e20f};
  std::memcpy(f.data.data(), vals, sizeof vals);
  EXPECT_EQ(format_tensor("F", f), "F: f32[4] = [0.5, -1.0, 0.1, 1e+20]");

  Tensor s = Tensor::zeros(DataType::f64(), {});
  double d = 2.5;
  std::memcpy(s.data.data(), &d, 8);
  EXPECT_EQ(format_tensor("S", s), "S: f64[] = 2.5");

  Tensor b = Tensor::zeros(DataType::boolean(), {2});
  b.data[1] = 1;
  EXPECT_EQ(format_tensor("P", b), "P: bool[2] = [false, true]");

  // An empty tensor is [] whatever its other extents (libFuzzer's npy target: nested brackets
  // for 12 x 11132 x 12 x ... before a zero extent asked for gigabytes).
  Tensor e = Tensor::zeros(DataType::u8(), {2, 0});
  EXPECT_EQ(format_tensor("E", e), "E: u8[2, 0] = []");
  Tensor huge = Tensor::zeros(DataType::u64(), {12, 11132, 12, 32, 11132, 321, 4, 31, 21, 0, 31, 3});
  EXPECT_EQ(format_tensor("H", huge), "H: u64[12, 11132, 12, 32, 11132, 321, 4, 31, 21, 0, 31, 3] = []");

  Tensor u = Tensor::zeros(DataType::u64(), {1});
  std::memset(u.data.data(), 0xff, 8);
  EXPECT_EQ(format_tensor("Q", u), "Q: u64[1] = [18446744073709551615]");

  Tensor cube = Tensor::zeros(DataType::i8(), {2, 1, 2});
  EXPECT_EQ(format_tensor("K", cube), "K: i8[2, 1, 2] = [[[0, 0]],\n\n                  [[0, 0]]]");
}

}  // namespace
}  // namespace dspc

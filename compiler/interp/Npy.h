// Reading and writing NumPy .npy files (format 1.0/2.0/3.0, little-endian, C order) through
// the codec runtime-support/common/npy.h, which the device runner uses too.
#pragma once

#include <istream>
#include <string>

#include "compiler/interp/Interpreter.h"

namespace dspc {

bool read_npy(const std::string& path, Tensor& out, std::string& error);
// The same from a seekable stream holding the whole file (tests/fuzz/ reads from memory).
bool read_npy(std::istream& in, Tensor& out, std::string& error);
bool write_npy(const std::string& path, const Tensor& t, std::string& error);
// A readable rendering for `dspc run` without --output (numpy-like, summarised when large).
std::string format_tensor(const std::string& name, const Tensor& t);

}  // namespace dspc

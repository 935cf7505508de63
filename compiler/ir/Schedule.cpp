#include "compiler/ir/Schedule.h"

#include <numeric>

namespace dspc {

const char* schedule_kind_name(ScheduleKind k) {
  switch (k) {
#define DSPC_SCHEDULE_NAME(e, name) \
  case ScheduleKind::e: return name;
    DSPC_SCHEDULE_KINDS(DSPC_SCHEDULE_NAME)
#undef DSPC_SCHEDULE_NAME
  }
  return "?";
}

std::vector<int64_t> aligned_shape(const std::vector<int64_t>& shape,
                                   const std::vector<SchedulePrimitive>& schedule) {
  std::vector<int64_t> out = shape;
  for (size_t d = shape.size(); d-- > 1;) {
    int64_t dim = static_cast<int64_t>(d) - 1;
    for (const auto& p : schedule) {
      if (p.kind != ScheduleKind::StorageAlign || p.factors.size() != 2 || p.factors[0] != dim) continue;
      int64_t inner = 1;
      for (size_t k = d + 1; k < out.size(); ++k) inner *= out[k];
      // stride(dim) = out[d] * inner; round out[d] up to a multiple of F / gcd(F, inner).
      int64_t step = p.factors[1] / std::gcd(p.factors[1], inner);
      out[d] = (out[d] + step - 1) / step * step;
    }
  }
  return out;
}

std::string shorthand_inner_name(ScheduleKind k, const std::string& var) {
  return var + (k == ScheduleKind::Vectorize ? "_v" : "_u");
}

}  // namespace dspc

#include "compiler/ir/Schedule.h"

#include <numeric>

namespace dspc {

namespace {

struct PrimitiveRow {
  ScheduleKind kind;
  const char* name;
  ScheduleRole role;
  const char* forms;
  const char* usage;
};

const PrimitiveRow kPrimitives[] = {
#define DSPC_SCHEDULE_PRIMITIVE(e, name, role, forms, usage) \
  {ScheduleKind::e, name, ScheduleRole::role, forms, usage},
#include "compiler/ir/SchedulePrimitives.def"
};

// The enum and this array come from the same rows, in the same order.
const PrimitiveRow& row(ScheduleKind k) { return kPrimitives[static_cast<size_t>(k)]; }

}  // namespace

const std::vector<ScheduleKind>& schedule_kinds() {
  static const std::vector<ScheduleKind> kinds = [] {
    std::vector<ScheduleKind> out;
    for (const auto& r : kPrimitives) out.push_back(r.kind);
    return out;
  }();
  return kinds;
}

const char* schedule_kind_name(ScheduleKind k) { return row(k).name; }
ScheduleRole schedule_role(ScheduleKind k) { return row(k).role; }
const char* schedule_forms(ScheduleKind k) { return row(k).forms; }
const char* schedule_usage(ScheduleKind k) { return row(k).usage; }

std::optional<ScheduleKind> schedule_kind_named(const std::string& name) {
  for (const auto& r : kPrimitives)
    if (name == r.name) return r.kind;
  return std::nullopt;
}

bool schedule_primitive_not_yet(const std::string& name) {
  static const char* const kNotYet[] = {
#define DSPC_SCHEDULE_PRIMITIVE(e, name, role, forms, usage)
#define DSPC_SCHEDULE_NOT_YET(name) name,
#include "compiler/ir/SchedulePrimitives.def"
  };
  for (const char* n : kNotYet)
    if (name == n) return true;
  return false;
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

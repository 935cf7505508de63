#include "compiler/ir/Schedule.h"

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

std::string shorthand_inner_name(ScheduleKind k, const std::string& var) {
  return var + (k == ScheduleKind::Vectorize ? "_v" : "_u");
}

}  // namespace dspc

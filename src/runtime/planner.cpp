#include "runtime/planner.h"

namespace ucudnn::runtime {

// active_planner, set_total_workspace and total_workspace are wired in api/process_wiring.cpp.

int virtual_algo(ConvOp op) { return algo_count(op); }

}  // namespace ucudnn::runtime

#pragma once
// What the GPU benchmarks that write JSON share: writing it to the --json file.

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "bench_support.h"

namespace bench {

/// Writes `json` to `path` (nothing where the path is empty); fails with one line if it cannot.
inline void write_json(const std::string& path, const nlohmann::ordered_json& json) {
  if (path.empty()) return;
  std::ofstream out(path);
  out << json.dump(2) << "\n";
  if (!out) fail("cannot write " + path);
}

}  // namespace bench

// `ucudnn db stats` and `db verify`: counts and checks the database without changing it.
#include <cstddef>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "store/database.h"
#include "tools/cli.h"
#include "tools/command.h"
#include "tools/db_subcommands.h"

namespace ucudnn::tools::db_subcommands {
namespace {

template <typename T>
std::string joined(const std::vector<T>& values) {
  std::ostringstream text;
  for (std::size_t i = 0; i < values.size(); ++i) text << (i ? ", " : "") << values[i];
  return text.str();
}

// 1234567 as "1,234,567": row counts read at a glance.
std::string grouped(long long count) {
  std::string digits = std::to_string(count);
  for (std::size_t at = digits.size(); at > 3 && digits[at - 4] != '-'; at -= 3) digits.insert(at - 3, ",");
  return digits;
}

std::string counted(long long count, const std::string& one, const std::string& many) {
  return grouped(count) + " " + (count == 1 ? one : many);
}

}  // namespace

int run_stats(const DbOptions& options, BenchmarkDatabase& database, std::ostream& out, std::ostream& err) {
  const auto stats = database.stats();
  if (!stats) return report_error(err, kExitDataError, stats.message());
  if (options.json) {
    nlohmann::ordered_json json;
    json["rows"] = stats->rows;
    json["engine_rows"] = stats->engine_rows;
    json["kernels"] = stats->kernels;
    json["gpus"] = stats->gpus;
    json["cudnn_versions"] = stats->cudnn_versions;
    // Names stored by older versions may not be UTF-8: replaced (U+FFFD), never a failed dump.
    out << json.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
    return kExitOk;
  }
  out << "rows: " << stats->rows << '\n' << "kernels: " << stats->kernels << '\n';
  out << "GPUs: " << stats->gpus.size() << (stats->gpus.empty() ? "" : " (" + joined(stats->gpus) + ")") << '\n';
  out << "cuDNN versions: " << stats->cudnn_versions.size()
      << (stats->cudnn_versions.empty() ? "" : " (" + joined(stats->cudnn_versions) + ")") << '\n';
  out << "engine rows: " << stats->engine_rows << '\n';
  return kExitOk;
}

// One line that says what passed, so that "ok" is not mistaken for a look at the wrong file.
int run_verify(const DbOptions& /*options*/, BenchmarkDatabase& database, std::ostream& out, std::ostream& err) {
  const auto verified = database.verify();
  if (!verified) return report_error(err, kExitDataError, verified.message());
  const std::string older =
      verified->schema_version < store::kSchemaVersion
          ? " (read as it is; a write upgrades it to " + std::to_string(store::kSchemaVersion) + ")"
          : "";
  out << "ok: " << database.path() << ", schema " << verified->schema_version << older << ", "
      << counted(verified->rows, "row", "rows") << " and "
      << counted(verified->coverage_bounds, "coverage bound", "coverage bounds")
      << ", every one valid; integrity and schema checked\n";
  return kExitOk;
}

}  // namespace ucudnn::tools::db_subcommands

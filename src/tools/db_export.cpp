// `ucudnn db export`: one device's rows of the database as a benchmark table, written as they are
// read (a layer's rows at a time) by tools/database_table.h, which plan reads databases by too.
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "store/database.h"
#include "store/rows.h"
#include "tools/cli.h"
#include "tools/command.h"
#include "tools/database_table.h"
#include "tools/db_subcommands.h"
#include "tools/table_output.h"

namespace ucudnn::tools::db_subcommands {
namespace {
using ucudnn::store::RowReader;

// The value of an identity option where it was given.
template <typename T>
std::optional<T> if_given(const CLI::Option* given, const T& value) {
  return given->count() ? std::optional<T>(value) : std::nullopt;
}

TableRequest table_request(const DbOptions& options) {
  TableRequest request;
  request.device.gpu_name = if_given(options.gpu_name_given, options.gpu_name);
  request.device.compute_capability = if_given(options.compute_capability_given, options.compute_capability);
  request.device.sm_count = if_given(options.sm_count_given, options.sm_count);
  request.device.cudnn_version = if_given(options.cudnn_version_given, options.cudnn_version);
  request.device.cuda_version = if_given(options.cuda_version_given, options.cuda_version);
  request.network = options.network;
  request.other_layers = OtherLayers::kRefused;
  return request;
}

}  // namespace

int run_export(const DbOptions& options, BenchmarkDatabase& database, std::ostream& out, std::ostream& err) {
  if (!options.output.empty()) {
    const Status target = check_output(options.output, database.file());
    if (!target) return report_error(err, kExitDataError, target.message());
  }
  auto table = TableWriter::create("--output", options.output);
  if (!table) return report_error(err, kExitDataError, table.message());
  const TableRequest request = table_request(options);
  const Status read = database.read_rows([&](RowReader& reader) -> Status {
    UCUDNN_TRY(table->restart());  // a read retried after a lock starts over
    return write_database_table(reader, request, [&](std::string_view line) { return table->append(line); });
  });
  if (!read) return report_error(err, kExitDataError, read.message());
  // Only a whole table is shown: linked into place as a new file, or copied to the stream.
  const Status written = table->commit(&out);
  if (!written) return report_error(err, kExitDataError, written.message());
  return kExitOk;
}

}  // namespace ucudnn::tools::db_subcommands

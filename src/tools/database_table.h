#pragma once
// One device's rows of a benchmark database as a benchmark table (the format of
// tests/data/README.md): what `db export` writes and what `plan` reads from a database. One reader
// for both, so that a database plans exactly as the table exported from it would.

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"
#include "core/measurement_csv.h"
#include "store/database.h"
#include "store/rows.h"

namespace ucudnn::tools {

/// The options that choose one device among those a database has rows of, as errors name them.
inline constexpr char kDeviceOptions[] =
    "--gpu-name, --compute-capability, --sm-count, --cudnn-version, --cuda-version";

/// Which device's rows: each value given must match; none given, the database must hold one device's.
struct DeviceChoice {
  std::optional<std::string> gpu_name;
  std::optional<int> compute_capability;
  std::optional<int> sm_count;
  std::optional<int> cudnn_version;
  std::optional<int> cuda_version;
};

/// What becomes of the rows of layers that the network does not have.
enum class OtherLayers {
  kRefused,  ///< an error that counts them (`db export`: a table named by a network is that network's)
  kLeftOut,  ///< skipped (`plan --network`: the network's kernels out of a database of many)
};

struct TableRequest {
  DeviceChoice device;
  /// Layers named as this network names them (a built-in network or a network file); empty: by
  /// their signature (ConvKey::layer_signature), which db import reads back with --network.
  std::string network;
  OtherLayers other_layers = OtherLayers::kRefused;
};

/// Hands the table that `request` selects, a line at a time (the header first, each line with its
/// line break, checked as plan and db import read it), to `line`, inside `reader`'s read
/// transaction. Kernels in order of the layer's place in the network, name and op; a kernel's rows
/// by micro-batch, algorithm, math type and engine. Errors: no rows, no device or several matching
/// the choice (listing the devices and naming kDeviceOptions), a layer of another network
/// (kRefused), a name or row the table format cannot hold.
Status write_database_table(store::RowReader& reader, const TableRequest& request,
                            const std::function<Status(std::string_view line)>& line);

/// The same table read as `plan` reads a table file: its kernels, in its order (none where every
/// row was left out).
Expected<std::vector<KernelMeasurements>> read_database_table(store::BenchmarkDatabase& database,
                                                              const TableRequest& request);

}  // namespace ucudnn::tools

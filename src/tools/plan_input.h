#pragma once
// What `ucudnn plan` plans from: the measurements, a benchmark table (CSV) or a ucudnn database
// told apart by their first bytes (never by the file's name), and the network they are of. They
// are named by the command's words (`plan FILE`, `plan alexnet`, `plan FILE alexnet`), its
// --measurements and --network options, else UCUDNN_DATABASE.

#include <string>
#include <vector>

#include "core/expected.h"
#include "core/measurement_csv.h"
#include "tools/database_table.h"

namespace ucudnn::tools {

/// The files and network `plan` was given.
struct PlanSources {
  std::string measurements;  ///< the table or database
  std::string network;       ///< a built-in network's name or a network file; empty: none named
};

/// Sorts the words: one that names a built-in network (and no file here) is the network, one whose
/// file starts with '{' a network file, any other the measurements (a missing file then says so
/// when read). Then the options, then `database_setting` (UCUDNN_DATABASE) for the measurements.
/// Errors, one line each: a word that is neither a file nor a network, a thing named twice, no
/// measurements at all (saying exactly what is missing and how to give it).
Expected<PlanSources> plan_sources(const std::vector<std::string>& words, const std::string& measurements_option,
                                   const std::string& network_option, const std::string& database_setting);

/// The kernels to plan, and the network that selected or named them.
struct PlanInput {
  std::vector<KernelMeasurements> kernels;
  std::string network;    ///< empty: the table's kernels as they are
  bool database = false;  ///< read from a database (as `db export` reads it)
};

/// Reads the measurements. A table: its kernels, or with a network its kernels of that network's
/// layers. A database, opened read-only: `device`'s rows, of the network given or else the one
/// built-in network its layers are of. Errors say what the file is where it is neither a table nor
/// a database, which networks the measurements have where the network has no rows, and name
/// --network where a database's network cannot be told.
Expected<PlanInput> read_plan_input(const PlanSources& sources, const DeviceChoice& device);

}  // namespace ucudnn::tools

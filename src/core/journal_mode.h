#pragma once
// The benchmark database's journal modes (UCUDNN_DATABASE_JOURNAL, `ucudnn db --journal`).

#include <string>

#include "core/expected.h"

namespace ucudnn {

/// How the database journals its writes: WAL is fastest but unsafe on network file systems.
enum class JournalMode { kAuto, kWal, kDelete, kTruncate, kPersist };

/// auto, wal, delete, truncate or persist (case-insensitive; empty: auto).
Expected<JournalMode> parse_journal_mode(const std::string& text);

}  // namespace ucudnn

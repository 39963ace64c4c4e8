#include "store/layered_database.h"

#include <algorithm>
#include <utility>

#include "core/logging.h"

namespace ucudnn::store {

DatabaseLayers::DatabaseLayers(Database user, std::vector<Database> system)
    : user_(std::move(user)), system_(std::move(system)) {
  system_.erase(std::remove(system_.begin(), system_.end(), nullptr), system_.end());
}

std::vector<DatabaseLayers::Database> DatabaseLayers::open_system(const std::vector<std::string>& paths,
                                                                  std::vector<std::string>* skipped) {
  BenchmarkDatabase::Options options;
  options.create = false;    // a typo must not make an empty database
  options.read_only = true;  // shared by everyone: never written from here, however writable
  std::vector<Database> opened;
  for (const std::string& path : paths) {
    auto database = BenchmarkDatabase::open(path, options);
    if (database) {
      opened.emplace_back(std::move(database.value()));
      continue;
    }
    // The message names the file: "benchmark database 'PATH': does not exist".
    const std::string why = "skipping system " + database.message();
    warn_once("system database " + path, why);
    if (skipped) skipped->push_back(why);
  }
  return opened;
}

DatabaseLayers DatabaseLayers::with_user(Database user) const { return DatabaseLayers(std::move(user), system_); }

DatabaseLayers DatabaseLayers::with_system(std::vector<Database> system) const {
  return DatabaseLayers(user_, std::move(system));
}

std::string DatabaseLayers::user_path() const { return user_ ? user_->path() : std::string(); }

std::vector<std::string> DatabaseLayers::paths() const {
  std::vector<std::string> paths;
  if (user_) paths.push_back(user_->path());
  for (const Database& layer : system_) paths.push_back(layer->path());
  return paths;
}

std::optional<KernelLookup> DatabaseLayers::lookup(const DeviceIdentity& identity, const ConvKey& micro_key,
                                                   CandidateKind kind, std::size_t workspace_limit) const {
  const auto ask = [&](BenchmarkDatabase& layer) -> std::optional<KernelLookup> {
    auto found = layer.lookup(identity, micro_key, kind);
    if (!found) {
      warn_once("lookup " + layer.path(), found.message());  // then the next layer is asked
      return std::nullopt;
    }
    if (!found.value() || found.value()->measured_up_to < workspace_limit) return std::nullopt;
    return std::move(found.value());
  };
  if (user_) {
    if (auto found = ask(*user_)) return found;
  }
  for (const Database& layer : system_) {
    if (auto found = ask(*layer)) {
      UCUDNN_LOG_DEBUG("rows of " << micro_key.to_string() << " from system benchmark database '" << layer->path()
                                  << "'");
      return found;
    }
  }
  return std::nullopt;
}

Status DatabaseLayers::store(const DeviceIdentity& identity, const ConvKey& micro_key, CandidateKind kind,
                             std::size_t measured_up_to, const std::vector<Measurement>& rows) const {
  if (!user_) {
    return Error{ErrorCode::kBadParam,
                 "no user benchmark database (UCUDNN_DATABASE) to store rows in: the system databases are read-only"};
  }
  return user_->store(identity, micro_key, kind, measured_up_to, rows);
}

}  // namespace ucudnn::store

#include "runtime/plan_databases.h"

#include "core/logging.h"

namespace ucudnn::runtime {
using store::BenchmarkDatabase;
using store::DatabaseLayers;

PlanDatabases::PlanDatabases(std::string user_path, std::vector<std::string> system_paths, JournalMode journal)
    : user_path_(std::move(user_path)), system_paths_(std::move(system_paths)), journal_(journal) {}

PlanDatabases::PlanDatabases(std::shared_ptr<BenchmarkDatabase> user,
                             std::vector<std::shared_ptr<BenchmarkDatabase>> system)
    : layers_(std::make_shared<const DatabaseLayers>(std::move(user), std::move(system))),
      user_configured_(true),
      system_configured_(true) {}

Status PlanDatabases::set_user(const std::string& path) {
  std::lock_guard<std::mutex> lock(mutex_);
  user_configured_ = true;
  layers_ = std::make_shared<const DatabaseLayers>(layers_->with_user(nullptr));
  if (path.empty()) return Status::success();
  BenchmarkDatabase::Options options;
  options.journal = journal_;
  auto opened = BenchmarkDatabase::open(path, options);
  if (!opened) return opened.error();
  layers_ = std::make_shared<const DatabaseLayers>(layers_->with_user(std::move(opened.value())));
  if (layers_->user()->read_only()) {
    warn_once("read-only database " + path, "benchmark database '" + path + "' is read-only (" +
                                                layers_->user()->read_only_reason() +
                                                "): lookups use it, new results stay in memory");
  }
  return Status::success();
}

Status PlanDatabases::set_system(const std::vector<std::string>& paths) {
  std::vector<std::string> skipped;
  std::vector<std::shared_ptr<BenchmarkDatabase>> system = DatabaseLayers::open_system(paths, &skipped);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    system_configured_ = true;
    layers_ = std::make_shared<const DatabaseLayers>(layers_->with_system(std::move(system)));
  }
  if (skipped.empty()) return Status::success();
  std::string message;
  for (const std::string& why : skipped) message += (message.empty() ? "" : "; ") + why;
  return Error(ErrorCode::kBadParam, message);
}

std::shared_ptr<const DatabaseLayers> PlanDatabases::layers() {
  bool user_configured = false;
  bool system_configured = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (user_configured_ && system_configured_) return layers_;
    user_configured = user_configured_;
    system_configured = system_configured_;
  }
  if (!user_configured) {
    Status status = set_user(user_path_);
    if (!status.ok()) {
      warn_once("database " + user_path_, status.message() + "; benchmark results stay in memory");
    }
  }
  if (!system_configured) {
    // A file that cannot be opened is skipped with a warning. Opened unlocked; a call of
    // set_system meanwhile wins.
    auto system = DatabaseLayers::open_system(system_paths_);
    std::lock_guard<std::mutex> lock(mutex_);
    if (!system_configured_) {
      system_configured_ = true;
      layers_ = std::make_shared<const DatabaseLayers>(layers_->with_system(std::move(system)));
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  return layers_;
}

DeviceDatabase PlanDatabases::for_device(int device, MeasurementSource& source) {
  DeviceDatabase view;
  std::shared_ptr<const DatabaseLayers> db = layers();
  if (!db->empty() && source.identify(device, &view.identity).ok()) view.db = std::move(db);
  return view;
}

}  // namespace ucudnn::runtime

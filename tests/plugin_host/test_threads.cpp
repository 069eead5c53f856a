// One registry shared by threads: a plugin without MX_PLUGIN_FLAG_THREAD_SAFE
// is never entered concurrently (the good plugin fails if it is).
#include <atomic>
#include <thread>
#include <vector>

#include "scoped_model.hpp"
#include "test_support.hpp"

TEST_CASE("runs of a non-thread-safe plugin are serialised") {
  mx_registry* r = registry_with(nlohmann::json{{"discover", false}, {"plugin_dirs", {MX_TEST_GOOD_DIR}}});
  std::vector<mx_model*> models;
  for (int i = 0; i < 4; ++i) models.push_back(make_scoped_model());
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (mx_model* m : models)
    threads.emplace_back([&, m] {
      for (int k = 0; k < 5; ++k) {
        mx_status* s = mx_registry_tag(r, "good", m, nullptr);
        if (s) ++failures;
        mx_status_release(s);
      }
    });
  for (auto& t : threads) t.join();
  CHECK(failures == 0);
  for (mx_model* m : models) mx_model_release(m);
  mx_registry_release(r);
}

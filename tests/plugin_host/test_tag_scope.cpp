// mx_registry_tag with the real "scope" strategy, and "auto" combining it
// with the good C strategy, on a model built in the test.
#include <map>

#include "scoped_model.hpp"
#include "test_support.hpp"

using nlohmann::json;

namespace {

const std::string kSelf = "encoder.layer.0.attention.self";

// node name → {module, evidence} from the model's hierarchy document.
std::map<std::string, std::pair<std::string, std::string>> records(const mx_model* m) {
  std::map<std::string, std::pair<std::string, std::string>> out;
  const json doc = hierarchy_of(m);  // named: iterating a temporary's member dangles
  for (const auto& n : doc["nodes"])
    out[n["name"].get<std::string>()] = {n["module"].get<std::string>(), n["evidence"].get<std::string>()};
  return out;
}

mx_registry* registry_loading(const std::vector<std::string>& files) {
  mx_registry* r = registry_with(nlohmann::json{{"discover", false}});
  for (const auto& f : files) REQUIRE_OK(mx_registry_load_plugin(r, f.c_str()));
  return r;
}

json module_entry(const json& doc, const std::string& path) {
  for (const auto& m : doc["modules"])
    if (m["path"] == path) return m;
  return nullptr;
}

}  // namespace

TEST_CASE("scope strategy + propagation on a scoped model") {
  mx_registry* r = registry_loading({kScopePlugin});
  mx_model* m = make_scoped_model();
  REQUIRE_OK(mx_registry_tag(r, "scope", m, nullptr));
  auto rec = records(m);
  using P = std::pair<std::string, std::string>;
  CHECK(rec["Constant_12"] == P{kSelf, "propagated"});
  CHECK(rec["Cast_3"] == P{kSelf, "propagated"});
  CHECK(rec["/encoder/layer.0/attention/self/query/MatMul"] == P{kSelf + ".query", "scope"});
  CHECK(rec["/encoder/layer.0/attention/self/query/Add"] == P{kSelf + ".query", "scope"});
  CHECK(rec["/encoder/layer.0/attention/self/key/Mul"] == P{kSelf + ".key", "scope"});
  CHECK(rec["Add_7"] == P{kSelf, "propagated"});
  CHECK(rec["MatMul_9"] == P{kSelf, "propagated"});
  CHECK(rec["/Constant"] == P{"", "scope"});  // "/Op": the root's own forward

  json doc = hierarchy_of(m);
  json modules = json::array();
  for (const auto& mod : doc["modules"]) modules.push_back(mod["path"]);
  for (const char* p : {"", "encoder", "encoder.layer", "encoder.layer.0", "encoder.layer.0.attention",
                        "encoder.layer.0.attention.self.query"})
    CHECK_MESSAGE(std::find(modules.begin(), modules.end(), p) != modules.end(), p);
  CHECK(module_entry(doc, kSelf + ".query")["parent"] == kSelf);
  mx_model_release(m);
  mx_registry_release(r);
}

TEST_CASE("a supplied hierarchy gives classes and tags") {
  mx_registry* r = registry_loading({kScopePlugin});
  mx_model* m = make_scoped_model();
  json hierarchy = {{"schema", "modelexport.hierarchy/1"},
                    {"nodes", json::array()},
                    {"modules",
                     {{{"path", ""}, {"class", "BertModel"}},
                      {{"path", "encoder"}, {"class", "BertEncoder"}},
                      {{"path", "encoder.layer"}, {"class", "ModuleList"}},
                      {{"path", "encoder.layer.0"}, {"class", "BertLayer"}},
                      {{"path", "encoder.layer.0.attention"}, {"class", "BertAttention"}},
                      {{"path", kSelf}, {"class", "BertSelfAttention"}},
                      {{"path", kSelf + ".query"}, {"class", "Linear"}},
                      {{"path", kSelf + ".key"}, {"class", "Linear"}}}}};
  REQUIRE_OK(mx_registry_tag(r, "scope", m, json{{"hierarchy", hierarchy}}.dump().c_str()));
  json doc = hierarchy_of(m);
  for (const auto& n : doc["nodes"])
    if (n["name"] == "/encoder/layer.0/attention/self/query/MatMul")
      CHECK(n["tag"] == "/BertModel/BertEncoder/BertLayer.0/BertAttention/BertSelfAttention/Linear");
  CHECK(module_entry(doc, "encoder.layer.0")["class"] == "BertLayer");
  mx_model_release(m);
  mx_registry_release(r);
}

TEST_CASE("auto: scope outranks other strategies, which fill the gaps") {
  mx_registry* r = registry_loading({kGoodPlugin, kScopePlugin});
  mx_model* m = make_scoped_model();
  REQUIRE_OK(mx_registry_tag(r, "auto", m, nullptr));
  auto rec = records(m);
  using P = std::pair<std::string, std::string>;
  CHECK(rec["/encoder/layer.0/attention/self/query/MatMul"] == P{kSelf + ".query", "scope"});
  CHECK(rec["MatMul_9"] == P{"good.matmul", "parameter"});
  json doc = hierarchy_of(m);
  CHECK(module_entry(doc, "good")["class"] == "GoodBlock");
  mx_model_release(m);
  mx_registry_release(r);
}

// Tagging at scale: a synthetic graph of N nodes (default 200,000;
// scope-named like the TorchScript exporter, tests/concurrency/
// synthetic_model.hpp) is tagged through the public C API the way
// `modelexport tag` does it (load bytes, scope strategy + propagation with
// mx_registry_tag, save bytes) and compared, in the same run, with merely
// parsing and serializing the same bytes with protobuf (the floor). Prints
// each phase, the ratios, process CPU time and page faults per phase.
// With --cli, also the CLI's `tag` of the same graph against the library
// path (the bound of docs/performance.md: within 2x). Figures and their
// history: docs/benchmarks.md and docs/performance.md.
//
// Build and run (against any build tree's library and plugins):
//   g++ -O2 -std=c++17 -DONNX_ML=1 -DONNX_NAMESPACE=mx_onnx benchmarks/tagging_scale.cpp -Iabi/include \
//       -Itests/concurrency -Icommon/onnx/include -I.deps/onnx-1.23.2/include -L<build>/sdk -lmodelexport \
//       -L<build>/common/onnx -lmodelexport_onnx -lprotobuf \
//       -Wl,-rpath,<build>/sdk:<build>/common/onnx -o /tmp/tagging_scale
//   /tmp/tagging_scale <build>/plugins-out [nodes] [--runs N] [--fresh N] [--check] [--json-protocol] [--write PREFIX]
//       [--cli <build>/sdk/modelexport]
// Another build's library: LD_LIBRARY_PATH=<other build>/sdk with
// <other build>/plugins-out (the rpath is a RUNPATH, which it overrides).
// --runs N (default 3): each run is the floor, then the tagging; run 1 is
// the summary (cold: the process's first tagging), the best of the runs is
// printed as well. --check also runs the ONNX checker + shape inference;
// it is reported as its own phase, not in the ratio.
// --fresh N runs run 1 alone in N fresh processes (this program again)
// and prints the medians: the cold figure with the floor's noise averaged
// out (the plugin directory must not contain a single quote).
// --write PREFIX writes run 1's saved model bytes to PREFIX.onnx and the
// hierarchy document (mx_model_hierarchy_json) to PREFIX.hierarchy.json, so
// two builds can be compared byte for byte (cmp).
// --json-protocol also tags with the graph as JSON text (plugin ABI 1.0's
// request) in the same process, as the baseline of the graph reader.
// --cli EXE also runs `EXE tag IN -o OUT --strategy scope --quiet` on the
// same graph written to a file, --runs times, each a fresh process, and
// prints its wall and CPU times against the library's load + tag + save of
// run 1 (and best against best), with the load average before and after.
// benchmarks/tagging_scale_ab.sh alternates two builds of the library;
// benchmarks/tagging_scale_cli_ab.sh two builds of the CLI and library.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <unistd.h>
#include <time.h>

#include "modelexport/modelexport.h"
#include "synthetic_model.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// Minor page faults of the process so far. A fresh page costs several
// microseconds on a VM, so a cold run 1 is slower than a warm run 2
// mostly by its faults: they are printed per phase ("page faults" lines)
// to tell fresh memory from work.
long minor_faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

// The process's CPU time, every thread's. On a machine shared with
// builds the wall times of one run vary by 30% and more; CPU time is not
// stretched by waiting for a core, so its ratio is printed beside the
// wall-time one ("cpu" lines).
double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

void must(mx_status* s, const char* what) {
  if (!s) return;
  std::fprintf(stderr, "%s: %s: %s\n", what, mx_code_name(mx_status_code(s)), mx_status_message(s));
  std::exit(1);
}

// The floor: protobuf parse + serialize of the same bytes.
struct Floor {
  double parse = 0, serialize = 0;
  double cpu = 0;   // CPU seconds of parse + serialize
  long faults = 0;  // minor page faults of parse + serialize
  double total() const { return parse + serialize; }
};

Floor measure_floor(const std::string& bytes) {
  Floor f;
  onnx::ModelProto proto;
  const double cpu0 = cpu_seconds();
  const long faults0 = minor_faults();
  auto t0 = Clock::now();
  if (!proto.ParseFromString(bytes)) std::exit(1);
  f.parse = seconds_since(t0);
  t0 = Clock::now();
  std::string again = proto.SerializeAsString();
  f.serialize = seconds_since(t0);
  f.cpu = cpu_seconds() - cpu0;
  f.faults = minor_faults() - faults0;
  return f;
}

// One `modelexport tag` through the C API: load bytes, tag, save bytes.
struct TagRun {
  double load = 0, tag = 0, save = 0;
  double output_serialize = 0;                            // protobuf serializing the tagged output
  double check = 0;                                       // --check: libonnx checker, not in total()
  double release = 0;                                     // mx_model_release, not in total()
  double cpu = 0;                                         // CPU seconds of load + tag + save
  long load_faults = 0, tag_faults = 0, save_faults = 0;  // minor page faults
  size_t out_size = 0;
  double total() const { return load + tag + save; }
};

TagRun measure_tag(const mx_registry* reg, const std::string& bytes, bool check,
                   const std::string& write_prefix) {
  TagRun r;
  const double cpu0 = cpu_seconds();
  long faults = minor_faults();
  auto t0 = Clock::now();
  mx_model* model = nullptr;
  must(mx_model_load_bytes(bytes.data(), bytes.size(), &model), "load");
  r.load = seconds_since(t0);
  r.load_faults = minor_faults() - faults;
  faults += r.load_faults;
  t0 = Clock::now();
  must(mx_registry_tag(reg, "scope", model, nullptr), "tag");
  r.tag = seconds_since(t0);
  r.tag_faults = minor_faults() - faults;
  faults += r.tag_faults;
  t0 = Clock::now();
  void* out = nullptr;
  must(mx_model_save_bytes(model, "{\"check\":false}", &out, &r.out_size), "save");
  r.save = seconds_since(t0);
  r.save_faults = minor_faults() - faults;
  r.cpu = cpu_seconds() - cpu0;
  if (!write_prefix.empty()) {
    std::ofstream(write_prefix + ".onnx", std::ios::binary)
        .write(static_cast<const char*>(out), static_cast<std::streamsize>(r.out_size));
    char* doc = nullptr;
    size_t doc_size = 0;
    must(mx_model_hierarchy_json(model, &doc, &doc_size), "hierarchy");
    std::ofstream(write_prefix + ".hierarchy.json", std::ios::binary)
        .write(doc, static_cast<std::streamsize>(doc_size));
    mx_free(doc);
  }
  // A second floor: parse the input, serialize the output. The tagged
  // file is ~3x the input (four metadata entries per node, the module
  // tree), so writing it is work any tagger producing it must do; the
  // issue's floor (same bytes in and out) does not count it.
  {
    onnx::ModelProto tagged;
    if (!tagged.ParseFromArray(out, static_cast<int>(r.out_size))) std::exit(1);
    t0 = Clock::now();
    std::string again_out = tagged.SerializeAsString();
    r.output_serialize = seconds_since(t0);
  }
  mx_free(out);
  if (check) {
    t0 = Clock::now();
    must(mx_model_check(model), "check");
    r.check = seconds_since(t0);
  }
  t0 = Clock::now();
  mx_model_release(model);
  r.release = seconds_since(t0);
  return r;
}

// The strategy reading a JSON text of the graph (the 1.0 protocol): the
// baseline of ABI 1.2's graph reader.
double measure_json_tag(const std::string& opts, const std::string& bytes) {
  mx_registry* json_reg = nullptr;
  const std::string json_opts = opts.substr(0, opts.size() - 1) + ",\"graph_reader\":false}";
  must(mx_registry_create(json_opts.c_str(), &json_reg), "registry");
  mx_model* model = nullptr;
  must(mx_model_load_bytes(bytes.data(), bytes.size(), &model), "load");
  const auto t0 = Clock::now();
  must(mx_registry_tag(json_reg, "scope", model, nullptr), "tag");
  const double s = seconds_since(t0);
  mx_model_release(model);
  mx_registry_release(json_reg);
  return s;
}

void print_run(const char* label, const Floor& f, const TagRun& r) {
  std::printf(
      "%-6s floor %.3f s (parse %.3f + serialize %.3f); load %.3f + tag %.3f + save %.3f = %.3f s"
      " = %.1fx (load %.1fx, tag %.1fx, save %.1fx); cpu %.3f / %.3f s = %.1fx\n",
      label, f.total(), f.parse, f.serialize, r.load, r.tag, r.save, r.total(), r.total() / f.total(),
      r.load / f.total(), r.tag / f.total(), r.save / f.total(), r.cpu, f.cpu, r.cpu / f.cpu);
  std::printf("%-6s page faults: floor %ld; load %ld + tag %ld + save %ld\n", "", f.faults, r.load_faults,
              r.tag_faults, r.save_faults);
}

// --cli EXE: `EXE tag IN -o OUT --strategy scope --quiet` on the same
// graph written to a file, each run a fresh process (what a user runs:
// the file read, plugin discovery, the tagged file and its sidecar
// written, the summary printed); wall and CPU time (user + system of the
// child) of each run.
struct CliRuns {
  std::vector<double> wall, cpu;
};

double children_cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_CHILDREN, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

CliRuns measure_cli(const std::string& cli, const std::string& plugin_dir, const std::string& bytes,
                    int runs) {
  char dir_template[] = "/tmp/tagging_scale_cli.XXXXXX";
  const char* dir = mkdtemp(dir_template);
  if (!dir) std::exit(1);
  const std::string in = std::string(dir) + "/in.onnx", out = std::string(dir) + "/out.onnx";
  std::ofstream(in, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  const std::string command = "MODELEXPORT_PLUGIN_PATH='" + plugin_dir + "' '" + cli + "' tag '" + in +
                              "' -o '" + out + "' --strategy scope --quiet > /dev/null";
  CliRuns times;
  for (int run = 0; run < runs; ++run) {
    const double cpu0 = children_cpu_seconds();
    const auto t0 = Clock::now();
    if (std::system(command.c_str()) != 0)
      std::fprintf(stderr, "cli: '%s' failed\n", command.c_str()), std::exit(1);
    times.wall.push_back(seconds_since(t0));
    times.cpu.push_back(children_cpu_seconds() - cpu0);
  }
  if (std::system(("rm -rf '" + std::string(dir) + "'").c_str()) != 0)
    std::fprintf(stderr, "cli: %s left\n", dir);
  return times;
}

// The 1-minute load average, which says how shared the cores were.
double load_average() {
  double one = -1;
  if (FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf", &one) != 1) one = -1;
    std::fclose(f);
  }
  return one;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// --fresh N: run 1 (cold) in N fresh processes of this program, each its
// own invocation with --runs 1, and the medians. One invocation's ratio
// moves with its floor, which varies by up to 2x between processes on a
// shared VM; the median of the totals over the median of all the floors
// is the steadier cold figure.
int run_fresh(int count, const std::string& plugin_dir, long nodes) {
  // This program's file (popen's shell would read its own /proc/self/exe).
  char self[4096];
  const ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
  if (length <= 0) return std::perror("readlink /proc/self/exe"), 1;
  self[length] = 0;
  std::vector<double> floors, loads, tags, saves, totals, ratios;
  for (int k = 0; k < count; ++k) {
    const std::string command =
        "'" + std::string(self) + "' '" + plugin_dir + "' " + std::to_string(nodes) + " --runs 1";
    FILE* child = popen(command.c_str(), "r");
    if (!child) return std::perror("popen"), 1;
    char line[1024];
    bool seen = false;
    while (std::fgets(line, sizeof line, child)) {
      double f = 0, parse = 0, serialize = 0, load = 0, tag = 0, save = 0, total = 0;
      if (std::sscanf(line,
                      "run 1 floor %lf s (parse %lf + serialize %lf); load %lf + tag %lf + save %lf = %lf s",
                      &f, &parse, &serialize, &load, &tag, &save, &total) == 7) {
        std::printf("fresh %2d: %s", k + 1, line);
        floors.push_back(f), loads.push_back(load), tags.push_back(tag), saves.push_back(save);
        totals.push_back(total), ratios.push_back(total / f);
        seen = true;
      }
    }
    if (pclose(child) != 0 || !seen) return std::fprintf(stderr, "fresh %d: the child failed\n", k + 1), 1;
  }
  std::printf(
      "fresh, medians of %d processes: floor %.3f s; load %.3f + tag %.3f + save %.3f, total %.3f s"
      " = %.2fx the floor (median of the ratios %.2fx)\n",
      count, median(floors), median(loads), median(tags), median(saves), median(totals),
      median(totals) / median(floors), median(ratios));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(
        stderr,
        "usage: %s PLUGIN_DIR [NODES] [--runs N] [--fresh N] [--check] [--json-protocol] [--write PREFIX]"
        " [--cli EXE]\n",
        argv[0]);
    return 2;
  }
  const std::string plugin_dir = argv[1];
  long nodes = argc > 2 && argv[2][0] != '-' ? std::atol(argv[2]) : 200000;
  bool check = false, json_protocol = false;
  int runs = 3, fresh = 0;
  std::string write_prefix, cli;
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--cli") == 0 && i + 1 < argc) cli = argv[++i];
    check = check || std::strcmp(argv[i], "--check") == 0;
    json_protocol = json_protocol || std::strcmp(argv[i], "--json-protocol") == 0;
    if (std::strcmp(argv[i], "--write") == 0 && i + 1 < argc) write_prefix = argv[++i];
    if (std::strcmp(argv[i], "--runs") == 0 && i + 1 < argc) runs = std::max(1, std::atoi(argv[++i]));
    if (std::strcmp(argv[i], "--fresh") == 0 && i + 1 < argc) fresh = std::max(1, std::atoi(argv[++i]));
  }
  if (fresh > 0) return run_fresh(fresh, plugin_dir, nodes);
  const int layers = static_cast<int>((nodes + 3) / 4);

  const std::string bytes = synthetic::scoped_model(layers).SerializeAsString();
  std::printf("graph: %d nodes, %.1f MB\n", layers * 4, bytes.size() / 1e6);

  mx_registry* reg = nullptr;
  const std::string opts = "{\"discover\":false,\"plugin_dirs\":[\"" + plugin_dir + "\"]}";
  must(mx_registry_create(opts.c_str(), &reg), "registry");

  // Each run: the floor, then the tagging, in one process. Run 1 is the
  // summary's (cold: the floor reuses the memory the model generator just
  // freed, the tagging pays the kernel's zeroing of every page it touches
  // first). Later runs find the process's memory warm for both; the best of
  // each is printed too, and the floor gains more from it than the tagging,
  // so the warm ratio is not the kinder one.
  Floor cold_floor, best_floor;
  TagRun cold, best;
  double best_floor_cpu = 0, best_cpu = 0;
  double best_json = 0;
  for (int run = 0; run < runs; ++run) {
    const Floor f = measure_floor(bytes);
    const TagRun r = measure_tag(reg, bytes, check, run == 0 ? write_prefix : std::string());
    char label[16];
    std::snprintf(label, sizeof label, "run %d", run + 1);
    print_run(label, f, r);
    if (run == 0) cold_floor = f, cold = r;
    if (run == 0 || f.total() < best_floor.total()) best_floor = f;
    if (run == 0 || r.total() < best.total()) best = r;
    if (run == 0 || f.cpu < best_floor_cpu) best_floor_cpu = f.cpu;
    if (run == 0 || r.cpu < best_cpu) best_cpu = r.cpu;
    if (json_protocol) {
      const double j = measure_json_tag(opts, bytes);
      if (run == 0 || j < best_json) best_json = j;
    }
  }
  if (runs > 1) {
    std::printf("best of %d: floor %.3f s; load %.3f + tag %.3f + save %.3f = %.3f s = %.1fx\n", runs,
                best_floor.total(), best.load, best.tag, best.save, best.total(),
                best.total() / best_floor.total());
    std::printf("best of %d, cpu: floor %.3f s; load + tag + save %.3f s = %.1fx\n", runs, best_floor_cpu,
                best_cpu, best_cpu / best_floor_cpu);
  }
  // The summary is run 1's (cold), as before.
  const Floor& f = cold_floor;
  const TagRun& r = cold;
  std::printf("floor   parse %.3f s + serialize %.3f s = %.3f s\n", f.parse, f.serialize, f.total());
  std::printf("tag     load %.3f s + tag (scope + propagation) %.3f s + save %.3f s = %.3f s\n", r.load,
              r.tag, r.save, r.total());
  if (check)
    std::printf("checker %.3f s (libonnx check_model + shape inference, not in the ratio)\n", r.check);
  std::printf("release %.3f s (mx_model_release, not in the ratio)\n", r.release);
  if (json_protocol)
    std::printf(
        "json    tag with the graph as JSON text (graph_reader: false), best of %d: %.3f s = %.2fx "
        "the reader's best\n",
        runs, best_json, best_json / best.tag);
  std::printf("ratio   tag / floor = %.1fx   (load %.1fx, tag %.1fx, save %.1fx)\n", r.total() / f.total(),
              r.load / f.total(), r.tag / f.total(), r.save / f.total());
  std::printf("cpu     tag / floor = %.1fx   (process CPU time: %.3f s / %.3f s)\n", r.cpu / f.cpu, r.cpu,
              f.cpu);
  const double output_floor = f.parse + r.output_serialize;
  std::printf(
      "floor2  parse input %.3f s + serialize the tagged output (%.1f MB) %.3f s = %.3f s; "
      "tag / floor2 = %.1fx\n",
      f.parse, r.out_size / 1e6, r.output_serialize, output_floor, r.total() / output_floor);
  mx_registry_release(reg);
  if (!cli.empty()) {
    const double load_before = load_average();
    const CliRuns c = measure_cli(cli, plugin_dir, bytes, runs);
    std::printf("cli     load average (1 min) %.2f before the runs, %.2f after\n", load_before,
                load_average());
    std::printf(
        "cli     `tag` in a fresh process, %d runs: wall first %.3f s, median %.3f s, best %.3f s; "
        "cpu median %.3f s\n",
        runs, c.wall[0], median(c.wall), *std::min_element(c.wall.begin(), c.wall.end()), median(c.cpu));
    std::printf(
        "cli     / library load + tag + save: wall median / run 1 %.2fx, best / best %.2fx; "
        "cpu median / run 1 %.2fx, best / best %.2fx\n",
        median(c.wall) / r.total(), *std::min_element(c.wall.begin(), c.wall.end()) / best.total(),
        median(c.cpu) / r.cpu, *std::min_element(c.cpu.begin(), c.cpu.end()) / best_cpu);
  }
  return 0;
}

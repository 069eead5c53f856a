// Tagging at scale (issue 8, "Performance at scale"): a synthetic graph of
// N nodes (default 200,000; scope-named like the TorchScript exporter,
// tests/concurrency/synthetic_model.hpp) is tagged through the public C API
// the way `modelexport tag` does it — load bytes, scope strategy +
// propagation (mx_registry_tag), save bytes — and compared, in the same
// run, with merely parsing and serializing the same bytes with protobuf
// (the I/O floor). Prints each phase and the ratios.
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
// the summary (cold, the measurement of every figure below), the best of
// the runs is printed as well. --check also runs the libonnx checker +
// shape inference (the CLI's default); it is reported as its own phase.
// --fresh N runs run 1 alone in N fresh processes (this program again)
// and prints the medians: the cold figure with the floor's noise averaged
// out (the plugin directory must not contain a single quote).
// --write PREFIX writes run 1's saved model bytes to PREFIX.onnx and the
// hierarchy document (mx_model_hierarchy_json) to PREFIX.hierarchy.json, so
// two builds can be compared byte for byte (cmp).
// --cli EXE also runs `EXE tag` on the same graph written to a file, --runs
// times, each a fresh process, and prints its times against the library's
// load + tag + save of the same run (issue 29's bound: within 2x).
//
// Measured (issue 8; 2 shared cores under other builds, so wall times vary
// by up to 2x between runs: before/after were run back to back, same binary,
// LD_LIBRARY_PATH switching the library):
//   before (aec2741), 200,000 nodes: floor 0.12 s; load 0.44 s, tag 13.9-16.9 s,
//     save 1.6-2.7 s (108-145x the floor); 20,000 nodes: tag 2.37 s
//   after, 200,000 nodes: floor 0.09-0.18 s; load 0.21-0.53 s, tag 2.9-6.8 s
//     (2.5-3.4x less than before in each back-to-back pair on a loaded
//     machine, 5.4x between the quietest runs: 15.7 s -> 2.9 s),
//     save 1.9-4.3 s; 20,000 nodes: tag 0.22 s (11x less)
//   Saved model bytes and hierarchy document are byte-identical before and
//   after (--write, cmp) at 200,000 nodes, at 20,000 with --check, and with
//   a supplied hierarchy + strategy options.
// Profile (perf record --call-graph dwarf) before: flat, JSON and malloc.
// Removed: the graph view's JSON text round trip (mx_model_graph_json →
// parse → strategy_graph → dump; the request text is now written straight
// from the proto, same bytes), the document's text round trip (dump →
// mx_model_set_hierarchy_json → parse → validate twice; now a
// hierarchy::Document built in memory and stored by model::set_hierarchy,
// validated once), ModuleTree's JSON per module and unmemoised tags,
// std::map/std::set<std::string> everywhere (propagation's producer map was
// built three times, a std::set per node for edges; validation copied every
// name into a set), and set_hierarchy's n log n stable_sort doing two hash
// lookups per comparison (now positions once, no sort when in order). The
// super-linear growth came from those: log n string compares of long common
// prefixes ("encoder.layer.123…") in the maps and the sort, and glibc's
// malloc_consolidate walking millions of freed small JSON nodes.
// What remains of the tag phase (perf, 200,000 nodes): the strategy plugin
// itself, ~30% (it parses the ~32 MB request into nlohmann::json and dumps
// its answer: the documented JSON plugin protocol, kept as is);
// model::set_hierarchy ~20% (the public setter's validation: hashed unique
// paths/names, parent chains; kept on purpose); building the document's
// 200,000 records and 150,000 modules ~15% (the in-memory form the model
// keeps: strings and an ordered_json "index" per record); propagation ~17%
// (hash lookups by value name; linear). The rest is allocation and hash
// lookups with cache misses at this size, which is why 10x the nodes still
// costs ~13x the time. Save (store on nodes + protobuf) is untouched here.
//
// Issue 14 round (2026-11-25, same machine, quiet; --json-protocol gives
// the graph-as-JSON baseline in the same process): before, 200,000 nodes:
// load 0.33 s + tag 3.61 s + save 1.56 s = 60x the floor. After plugin ABI
// 1.2 (strategies read the graph through the host), the save's copy in a
// protobuf arena serialized with cached sizes, the structure check in flat
// arrays, and the module indexes of issue 16: load 0.20 s + tag 2.05 s +
// save 1.04 s = 39x the floor (three runs: 38.8x, 39.3x, 41.8x); the tag
// with the JSON request in the same runs 3.1-3.4 s (1.4-1.7x the reader's).
// Outputs byte-identical (--write, cmp). Against floor2 (parse the input,
// serialize the 89 MB tagged output) that is 15x. The target (5x
// the floor) is not met: what remains is spread over propagation (13% of
// the run), set_hierarchy's checks (11%), the save's copy and per-node
// records (14%), building the document (7%), each a hash table or string
// per node or module; no single cause is left.
//
// Issue 14, third round (2026-11-25, later session; quiet machine; the
// session's start 69803d3 and its end measured back to back with this
// benchmark, three invocations each, LD_LIBRARY_PATH switching the
// library): start: run 1 = 38.5-42.9x the floor (load 0.19 + tag 1.92 +
// save 0.96-1.02 s), best of 3 = 3.07-3.13 s; end: run 1 = 14.2-14.8x
// (load 0.08 + tag 0.62-0.68 + save 0.26-0.28 s), best of 3 = 0.95-1.04 s
// = 13.7-14.4x the best floor; against floor2 7.9-8.2x. The JSON request
// (--json-protocol) is now 2.3-2.5x the reader's tag. Outputs
// byte-identical to the start's (--write, cmp). What changed: the save
// writes the tagged bytes straight from the loaded model (nodes keep their
// serialized fields and gain their entries after them: no copy of the
// proto, no entry protos; model/tagged_bytes), dynamo namespaces walk
// parent positions with the chain above consecutive siblings kept;
// set_hierarchy attaches records whose index names their node without the
// name index; the structure check and propagation share one table of
// value names (model/value_table); propagation and the scope strategy
// intern module paths (flat tables, no string per node); the module tree
// sorts its paths once. Still not the 5x: the remaining tag phase
// (~0.65 s) is spread over building the document's records and 150,000
// modules (~25%), set_hierarchy's checks and indexes (~20%), propagation
// (~17%), interning the value names (~9%), the graph view (~8%), the
// strategy (~7%): each a hash table or a string per node or module, and
// the document holds every module path, tag and record as its own
// std::string. Reaching 5x (0.42 s for load + tag + save, of which
// serializing the 89 MB output is 0.10-0.16 s) needs records and modules
// that refer to interned paths and tags instead of owning strings, through
// tagging, the document and the save.
//
// Issue 14, fourth round (2026-11-25, evening; quiet machine; dbf4ea4,
// the third round's end, and f7bc903 alternately, three invocations each,
// LD_LIBRARY_PATH switching the library): before: run 1 = 14.3-15.0x the
// floor (load 0.08 + tag 0.83-0.85 + save 0.38-0.39 s), best of 3 =
// 0.99-1.04 s = 14.0-14.4x; after: run 1 = 8.9-9.5x (load 0.08 + tag
// 0.52 + save 0.20-0.23 s), best of 3 = 0.574-0.581 s = 7.9-8.1x; against
// floor2 5.6-5.9x (was 8.4-8.5x). The JSON request is now 3.6-4.0x the
// reader's tag. Outputs byte-identical (--write, cmp). What changed: the
// module tree links rows to their parent as paths are added and orders
// its output by sibling groups (no sort of every path), build_document
// adds a node's module and reads its tag in one lookup; set_hierarchy's
// checks compare neighbouring paths in a tree listed in path order
// instead of hashing (benchmarks/set_hierarchy_scale.cpp: 121-125 ms ->
// 64-68 ms), and a tree the tagger built from checked paths alone skips
// validate_consistency (consistent by construction; a randomized test
// holds it to the checks); value names and module paths are interned in
// model/name_index (8-byte slots, prefetched), the graph view keeps its
// names in one flat array of views; strategies' answers are moved, not
// copied; the save finds modules near the last one or by binary search
// (model/module_lookup) instead of indexing them all, keeps the last
// namespace chains, writes each node's entries straight into the output.
// The difference between run 1 and later runs (tag 0.52 vs 0.36 s) is the
// fresh process touching its memory for the first time (page faults; the
// malloc thresholds do not change it; transparent huge pages do, but
// only sometimes, and the first madvised allocation can stall on
// compaction). What remains of the tag phase: building the document
// (~30%: moving 150,000 modules of ~300 bytes into the document, a tag
// string per record), propagation (~15%), interning the value names
// (~12%), the strategy (~12%), the graph view (~11%), set_hierarchy
// (~11%), the structure check (~6%) (perf, run 1).
//
// Issue 14, fifth round (2026-11-26; another machine of the same kind,
// slower and noisier: its cold floor varies 0.10-0.20 s between runs, and
// a page fault costs ~1.5 us; f52a7e0, the fourth round's end, and this
// round's end alternately, five invocations each, LD_LIBRARY_PATH
// switching the library): run 1 (cold) before 6.3-8.8x the floor (load
// 0.11-0.18 + tag 0.78-0.89 + save 0.30-0.41 s = 1.19-1.44 s), after
// 5.5-7.5x (0.11-0.18 + 0.62-0.66 + 0.26-0.30 = 0.99-1.12 s); best of 3
// before 6.2-8.2x, after 4.8-5.6x (0.61-0.87 s). The process CPU time
// ratios ("cpu", new this round) agree within 0.3x. Outputs byte-identical
// (--write, cmp; 200,000 nodes, and 20,000 with --check). What changed:
// the tagger's document is stored as built (model::Vouched::everything:
// no checks, attach or index for a document consistent by construction,
// which tests/tagging/test_hierarchy_document.cpp holds to the checks),
// the module tree's rows hold a path and a tag and each output module is
// built once in place (siblings sorted on an 8-byte key), records and
// modules carry checked position hints (module_at, parent_at) that the
// save's namespaces read instead of searching, the graph's value names are
// read once for the structure check, the view and propagation, file order
// is taken as the stable topological order when it is one, and the saved
// bytes are populated in one madvise call (a file is written in 8 MB
// pieces: modelexport tag peaks 86 MB lower). What remains of the cold tag
// phase (perf, run 1, 466 samples): building the document 37% (most of it
// page faults on the 45 MB of Modules and 30 MB of records: the sizes of
// hierarchy::Module, ~300 bytes, and NodeRecord's three strings),
// propagation 21%, the strategy 15%, interning 12%, the graph view 8%, the
// structure check 6%.
//
// Issue 14, sixth round (2026-11-26, same machine; 5d9f505, the fifth
// round's end, and this round's end alternately in fresh processes, 12
// each, run 1 only; LD_LIBRARY_PATH switching the library): medians before
// load 0.119 + tag 0.490 + save 0.240 = 0.829 s, 6.17x the floor (5.0-7.9x);
// after 0.124 + 0.448 + 0.204 = 0.764 s, 5.73x (5.2-6.6x); the total fell in
// 9 pairs of 12. An earlier block of 10 pairs (--runs 3, run 1) gave
// medians 0.991 -> 0.833 s. The floor alone varies 0.105-0.207 s between
// processes, which moves one invocation's ratio more than this round's
// change: --fresh N (new) prints medians over N fresh processes. Outputs
// byte-identical (--write, cmp; 200,000 nodes, and 20,000 with --check).
// What changed: propagation carries each module's id with its path
// (ModuleFacts::Ref) instead of hashing the path per question (perf
// samples under propagate 157-174 -> 66-80), the scope strategy visits
// only the path prefixes a node does not share with its neighbour and
// places nodes as views into one copy per module run (shows_repeated_calls
// 29 -> 9 samples), the save writes the module tree's keys pre-quoted
// (modules_text ~30% fewer samples) and keeps each namespace prefix as two
// references instead of a copy (plan_suffix ~10% fewer). Page faults
// ("page faults" lines, new) are unchanged: 45,650 in the cold tag phase
// before and after, since what propagation no longer touches the document
// touches later; a fresh page costs 2.6-6.3 us here (17-19 us while other
// builds ran; the fifth round's 1.5 us was wrong), so the cold tag phase
// pays ~0.1-0.3 s for them, and warm runs (0 faults) are that much
// faster. Cold tag phase now (perf, run 1): building the document 46%
// (the Modules and records: 150,000 x ~300 bytes and 200,000 x ~144 bytes
// plus their strings, all fresh memory), interning 16%, the strategy 14%,
// propagation 14%, the graph view 8%, the structure check 3%. The next
// step is still the interned document (records as a module position and a
// tag override, modules as a path id, a parent position and child
// positions): it is the largest block of fresh memory left. A design note
// with the places to move and an order of steps: docs/interned-document.md.
//
// Issue 14, seventh round (2026-11-26, same machine; ae8f0e6, the sixth
// round's end, and f998e51 alternately in fresh processes, 12 each, run 1;
// LD_LIBRARY_PATH switching the library): medians before load 0.136 + tag
// 0.463 + save 0.184 = 0.803 s, 5.20x the floor (3.5-6.4x); after 0.098 +
// 0.363 + 0.182 = 0.664 s, 4.55x (3.4-6.2x); the total fell in 11 pairs of
// 12. An earlier block (with a change reverted since) gave 0.914 -> 0.833 s,
// and the same ae8f0e6 build measured 6.2-6.3x in other blocks: the
// machine's drift is as large as the margin to 5x. Page faults (the same in
// every run): tag 45,645 -> 31,760, save 26,721 -> 26,625 (-19% in all);
// peak RSS 769 -> 739 MB. Outputs byte-identical (--write, cmp; 200,000
// nodes, and 20,000 with --check). What changed: a tagged record reads its
// module's tag (NodeRecord::tag_from_module, hierarchy::record_tag) and a
// tagged module's parent is its path's prefix (Module::parent_from_path,
// hierarchy::stated_parent) instead of copies; Module's rarely filled
// schema fields live out of line (304 -> 184 bytes); an Assignment's
// evidence is the Evidence kind and propagation fills the strategies'
// vector in place; build_document frees the graph view and the
// assignments before building the modules, which then reuse their memory;
// a load lists the tensors once for its checks. Next: steps 2 and 3 of
// docs/interned-document.md (a record's module and a module's children as
// positions), and a prefetch for ModuleTree::add_path_row's bucket misses.
//
// Issue 14, eighth round (2026-11-26, later session, same machine; 7b26b53,
// the seventh round's end, and 74f1e92 alternately in fresh processes, 16
// pairs per block, two blocks, run 1): medians of block 1 before load 0.145
// + tag 0.433 + save 0.235 = 0.824 s, 4.8x the floor (3.4-5.6x, 12 of 16
// runs <= 5x); after 0.105 + 0.350 + 0.236 = 0.697 s, 4.0x (3.0-5.7x,
// quartiles 3.6-4.8x, 13 of 16 <= 5x), total lower in 15 pairs. Block 2:
// before 0.871 s, 4.85x (2.9-5.6x); after 0.645 s, 3.9x (3.1-5.1x,
// quartiles 3.7-4.7x, 14 of 16 <= 5x), lower in 14 pairs. Total over the
// median of all 32 floors of its block: 4.60 -> 3.89x and 4.89 -> 3.62x;
// process CPU 4.75 -> 3.95x and 4.85 -> 3.95x. Page faults tag 31,761 ->
// 28,734, save 26,624 -> 26,543; peak RSS 739 -> 730 MB; release (not in
// the ratio) 0.15-0.16 -> 0.04 s. Outputs byte-identical (--write, cmp; at
// 200,000 nodes and at 20,000 with --check). What changed: the model's
// proto lives in an arena of its own and is parsed in place (load: perf
// samples under parse 231 -> 115-140; the release frees blocks, not a
// million objects); the scope strategy reads each node name once and
// copies each path once (its samples 105-114 -> 54-59); ModuleTree indexes
// rows with model::NameIndex (one probe finds or adds a path, and
// build_document prefetches the slot 8 nodes ahead; callgrind at 20,000
// nodes: tag 146.4M -> 145.7M instructions, D1 misses 1.080M -> 1.039M);
// the graph view's op types are views; StringBlocks no longer zero-fills.
// What remains, in perf samples of one quiet run (2,000 Hz): load 168,
// tag 669 (build_document 332: the modules 161, of which their tags 52 and
// first touches 42; add_path_row 73), save 454 (the plan 255, of which the
// modules' JSON text ~128; the write 99; populating the 89 MB output 79).
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

// The process's CPU time (every thread; the work here runs on one). On a
// machine shared with builds the wall times of one run vary by 30% and
// more; CPU time is not stretched by waiting for a core, so its ratio is
// printed beside the wall-time one ("cpu" lines).
// Minor page faults of the process so far. A fresh page costs ~5-6 us on
// the VMs this was measured on (an 89 MB buffer written once: 0.12-0.14 s),
// so a cold run 1 is slower than a warm run 2 mostly by its faults: they
// are printed per phase ("faults" lines) to tell fresh memory from work.
long minor_faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

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

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// --fresh N: run 1 (cold) in N fresh processes of this program, each its
// own invocation with --runs 1, and the medians. One invocation's ratio
// moves with its floor, which varies 0.11-0.21 s between processes on a
// shared VM (20 invocations, 2026-11-26); the median of the totals over
// the median of all the floors is the steadier cold figure.
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
  // measurement every figure above was taken with (cold: the floor reuses
  // the memory the model generator just freed, the tagging pays the
  // kernel's zeroing of every page it touches first). Later runs find the
  // process's memory warm for both; the best of each is printed too, and
  // the floor gains more from it than the tagging (serialize 0.035 ->
  // 0.019 s), so the warm ratio is not the kinder one.
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
    const CliRuns c = measure_cli(cli, plugin_dir, bytes, runs);
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

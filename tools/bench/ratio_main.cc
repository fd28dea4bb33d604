// main() for the project's benchmarks: runs them as Google Benchmark does, then prints, for
// every benchmark named `<Case>_Baseline<Label><args>`, the ratio of its time to that of
// `<Case>_Project<args>` (same case and arguments):
//
//   BM_Init_Project                  412 ns
//   BM_Init_BaselineIstringstream   2650 ns
//   ...
//   ratio BM_Init vs Istringstream: 6.43 (baseline time / project time; > 1: project faster)
//
// With --benchmark_repetitions the medians are compared. Counters that are rates (bytes per
// second) are already in the times, so one ratio serves both.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace {

class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.error_occurred) continue;
      const bool is_median = run.run_type == Run::RT_Aggregate && run.aggregate_name == "median";
      if (run.run_type == Run::RT_Aggregate && !is_median) continue;
      const std::string name = run.run_name.str();
      // A median replaces single iterations of the same name; the first iteration otherwise.
      if (is_median || times_.count(name) == 0) times_[name] = run.GetAdjustedRealTime();
    }
  }

  void Finalize() override {
    ConsoleReporter::Finalize();
    bool printed_header = false;
    for (const auto& [name, baseline_time] : times_) {
      const size_t at = name.find("_Baseline");
      if (at == std::string::npos) continue;
      const size_t label_end = name.find('/', at);
      const std::string label = name.substr(at + 9, label_end - at - 9);
      const std::string rest = label_end == std::string::npos ? "" : name.substr(label_end);
      const auto project = times_.find(name.substr(0, at) + "_Project" + rest);
      if (project == times_.end() || project->second <= 0) continue;
      if (!printed_header) {
        std::printf("\nRatios: baseline time / project time (> 1: the project is faster)\n");
        printed_header = true;
      }
      std::printf("ratio %s%s vs %s: %.3f\n", name.substr(0, at).c_str(), rest.c_str(),
                  label.empty() ? "baseline" : label.c_str(), baseline_time / project->second);
    }
    std::fflush(stdout);
  }

 private:
  std::map<std::string, double> times_;
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}

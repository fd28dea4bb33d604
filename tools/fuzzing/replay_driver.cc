// Runs a libFuzzer target without libFuzzer: every input file named on the command line,
// then FUZZ_REPLAY_MUTATIONS (default 20000) mutations of them from a fixed seed. Any crash,
// sanitizer report or escaping exception fails the test; the run is deterministic.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

std::string ReadFile(const char* path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "replay_driver: cannot read %s\n", path);
    std::exit(2);
  }
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void Run(const std::string& input) {
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
}

// One to four edits of the kinds libFuzzer makes: flip, insert, erase, duplicate, splice.
std::string Mutate(const std::vector<std::string>& corpus, std::mt19937_64& rng) {
  std::string input = corpus[rng() % corpus.size()];
  const char kInteresting[] = "{}[]\":,\\=\n 0123456789.-+eE_aeNnfFtu";
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits; ++e) {
    const size_t at = input.empty() ? 0 : rng() % (input.size() + 1);
    switch (rng() % 5) {
      case 0:
        if (at < input.size()) input[at] = static_cast<char>(input[at] ^ (1u << (rng() % 8)));
        break;
      case 1:
        input.insert(at, 1, rng() % 2 ? static_cast<char>(rng())
                                      : kInteresting[rng() % (sizeof(kInteresting) - 1)]);
        break;
      case 2:
        if (at < input.size()) input.erase(at, 1 + rng() % 4);
        break;
      case 3:
        if (at < input.size()) input.insert(at, input.substr(at, 1 + rng() % 8));
        break;
      default: {
        const std::string& other = corpus[rng() % corpus.size()];
        input = input.substr(0, at) + other.substr(other.empty() ? 0 : rng() % other.size());
      }
    }
  }
  return input;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> corpus;
  for (int i = 1; i < argc; ++i) corpus.push_back(ReadFile(argv[i]));
  if (corpus.empty()) corpus.emplace_back();
  for (const std::string& input : corpus) Run(input);
  const char* env = std::getenv("FUZZ_REPLAY_MUTATIONS");
  const long mutations = env ? std::atol(env) : 20000;
  std::mt19937_64 rng(20261122);
  for (long i = 0; i < mutations; ++i) Run(Mutate(corpus, rng));
  std::printf("replay_driver: %zu corpus inputs and %ld mutations ran clean\n", corpus.size(),
              mutations);
  return 0;
}

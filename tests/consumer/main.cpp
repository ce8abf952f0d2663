// Solves a small graph through the installed library and checks the result
// against distances worked out by hand, the certificate and a path. Prints
// "apsp consumer: ok" and exits 0, or names the first mismatch and exits 1.
#include <cstdio>
#include <vector>

#include <apsp/apsp.hpp>

int main() {
  // 0 -> 1 (4), 0 -> 2 (1), 2 -> 1 (-2), 1 -> 3 (5), 3 -> 0 (0); vertex 4 is isolated.
  apsp::Graph g;
  g.n = 5;
  g.edges = {{0, 1, 4}, {0, 2, 1}, {2, 1, -2}, {1, 3, 5}, {3, 0, 0}};
  constexpr apsp::dist_t X = apsp::kInf;
  const std::vector<apsp::dist_t> expected = {
      0, -1, 1, 4, X,  //
      5, 0,  6, 5, X,  //
      3, -2, 0, 3, X,  //
      0, -1, 1, 0, X,  //
      X, X,  X, X, 0,
  };

  apsp::SolveOptions options;
  options.backend = apsp::Backend::cpu;
  options.predecessors = true;
  try {
    const apsp::SolveResult r = apsp::solve(g, options);
    for (std::size_t k = 0; k < expected.size(); ++k)
      if (r.dist[k] != expected[k]) {
        std::printf("apsp consumer: d[%zu][%zu] = %d, expected %d\n", k / 5, k % 5, r.dist[k], expected[k]);
        return 1;
      }
    const apsp::Graph normalized = apsp::normalize(g);
    const apsp::VerifyReport report = apsp::verify(normalized, r.dist);
    if (!report.ok) {
      std::printf("apsp consumer: verify failed: %s\n", report.first_violation.c_str());
      return 1;
    }
    const std::vector<apsp::vertex_t> path = apsp::shortest_path(normalized, r.dist, r.pred, 0, 3);
    if (path != std::vector<apsp::vertex_t>{0, 2, 1, 3}) {
      std::printf("apsp consumer: the path 0 -> 3 is not 0 2 1 3\n");
      return 1;
    }
    std::printf("apsp consumer: ok (%s on %s)\n", r.algorithm.c_str(), apsp::to_string(r.backend));
  } catch (const apsp::Error& error) {
    std::printf("apsp consumer: %s\n", error.what());
    return 1;
  }
  return 0;
}

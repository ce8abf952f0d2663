// The `apsp` command-line tool, run as a real process (APSP_CLI_PATH): every
// bad input gives one `apsp: ` line on stderr and its exit code; the happy
// paths agree with the independent reference distances.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "apsp/error.hpp"
#include "apsp/generate.hpp"
#include "apsp/graph.hpp"
#include "apsp/io.hpp"
#include "apsp/verify.hpp"
#include "support/cases.hpp"
#include "support/scratch.hpp"

namespace apsp {
namespace {

namespace fs = std::filesystem;

struct CliRun {
  std::string command;
  int status = -1;  // exit code, or 128 + signal
  std::string out;
  std::string err;
};

std::ostream& operator<<(std::ostream& os, const CliRun& r) {
  return os << "\n  command: " << r.command << "\n  exit: " << r.status << "\n  stdout: " << r.out
            << "\n  stderr: " << r.err;
}

// Each test works in a fresh directory and runs the CLI there with stdin from
// /dev/null, as CI does.
class Cli : public test::ScratchDirTest {
 protected:
  // `shell_setup` runs in the same shell first (e.g. "ulimit -f 64").
  CliRun run(const std::string& args, const std::string& shell_setup = "") const {
    CliRun r;
    r.command = (shell_setup.empty() ? "" : shell_setup + "; ") + "apsp " + args;
    const std::string shell = "cd '" + dir_.string() + "' && " + (shell_setup.empty() ? "" : shell_setup + " && ") +
                              "'" APSP_CLI_PATH "' " + args + " </dev/null >stdout.log 2>stderr.log";
    const int raw = std::system(shell.c_str());
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + (WIFSIGNALED(raw) ? WTERMSIG(raw) : 0);
    r.out = read_text("stdout.log");
    r.err = read_text("stderr.log");
    return r;
  }

  // The NTHU .bin layout: int32 values, little-endian as on every target.
  void write_ints(const std::string& name, const std::vector<std::int32_t>& values) const {
    std::ofstream out(dir_ / name, std::ios::binary);
    out.write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size() * 4));
  }

  // Runs and expects failure with `code`, exactly one stderr line starting
  // "apsp: " that contains `words`, and nothing on stdout.
  CliRun expect_error(const std::string& args, int code, const std::string& words) const {
    const CliRun r = run(args);
    EXPECT_EQ(r.status, code) << r;
    EXPECT_EQ(r.err.rfind("apsp: ", 0), 0u) << r;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r;
    EXPECT_EQ(r.err.back(), '\n') << r;
    EXPECT_NE(r.err.find(words), std::string::npos) << "missing '" << words << "'" << r;
    return r;
  }

  // Writes an input file and expects `apsp solve` to reject it (exit 2) naming `location`.
  void expect_rejected_text(const std::string& name, const std::string& text, const std::string& location) const {
    write_text(name, text);
    expect_error("solve " + name, 2, location);
  }
  void expect_rejected_bin(const std::string& name, const std::vector<std::int32_t>& values,
                           const std::string& location) const {
    write_ints(name, values);
    expect_error("solve " + name, 2, location);
  }

  // Runs and expects success; returns stdout.
  std::string expect_ok(const std::string& args) const {
    const CliRun r = run(args);
    EXPECT_EQ(r.status, 0) << r;
    EXPECT_EQ(r.err, "") << r;
    return r.out;
  }
};

using test::generated;  // `apsp gen`'s graphs rebuilt in-process, to check results against the reference

// ---- input as users have it ---------------------------------------------

// Without --seed, gen draws one and prints it; that seed repeats the graph.
TEST_F(Cli, GenWithoutSeedPrintsTheSeedItDrew) {
  const std::string out = expect_ok("gen rmat -n 100 -o x.bin");
  const auto at = out.find(", seed ");
  ASSERT_NE(at, std::string::npos) << out;
  EXPECT_NE(out.find("(drawn; --seed repeats it)"), std::string::npos) << out;
  const std::string seed = out.substr(at + 7, out.find(' ', at + 7) - at - 7);
  ASSERT_FALSE(seed.empty());
  const std::string again = expect_ok("gen rmat -n 100 --seed " + seed + " -o y.bin");
  EXPECT_EQ(again.find("drawn"), std::string::npos) << again;
  EXPECT_EQ(read_text("x.bin"), read_text("y.bin"));
}

// A .mtx file as the network repository distributes it (no banner, "n n m",
// then "i j [w]") is solved, with one note on stderr; --format coordinate
// names the dialect for any extension; an unknown header is exit 2.
TEST_F(Cli, NetworkRepositoryCoordinateFilesAreReadWithANote) {
  const std::string text = "4 4 3\n1 2 5\n2 3\n4 1 2\n";
  write_text("road.mtx", text);
  const CliRun r = run("solve road.mtx -o d.txt");
  ASSERT_EQ(r.status, 0) << r;
  EXPECT_EQ(r.err.rfind("apsp: note: road.mtx: no '%%MatrixMarket' banner; read as the network repository's", 0), 0u)
      << r;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r;
  std::int64_t n = 0;
  const std::vector<std::int32_t> d = io::read_matrix(path("d.txt"), n);
  ASSERT_EQ(n, 4);
  EXPECT_EQ(d[0 * 4 + 2], 6);     // 1 -> 2 -> 3: 5 + 1
  EXPECT_EQ(d[3 * 4 + 2], 8);     // 4 -> 1 -> 2 -> 3
  EXPECT_EQ(d[2 * 4 + 0], kInf);  // nothing leaves 3
  write_text("road.edges", text);
  expect_ok("solve road.edges --format coordinate -o e.txt");
  EXPECT_EQ(read_text("d.txt"), read_text("e.txt"));
  expect_rejected_text("odd.mtx", "graph with 4 nodes\n1 2\n", "odd.mtx:1: unknown header 'graph with 4 nodes'");
}

// --relabel: a SNAP edge list whose ids run to 3352 over 3 edges is solved
// as 4 vertices; the id map beside the result lets path and verify take and
// print the original ids, in an edge list and in a 1-based format alike.
TEST_F(Cli, RelabelCompactsSparseIdsAndPathReadsTheMapBack) {
  write_text("snap.txt", "# SNAP\n3352 17 4\n17 99 1\n0 3352 2\n");
  const std::string out = expect_ok("solve snap.txt --relabel -o d.txt --predecessors p.bin");
  EXPECT_NE(out.find("id map"), std::string::npos) << out;
  std::int64_t n = 0;
  const std::vector<std::int32_t> d = io::read_matrix(path("d.txt"), n);
  ASSERT_EQ(n, 4);
  EXPECT_EQ(d[0 * 4 + 2], 7);     // 0 -> 3352 -> 17 -> 99
  EXPECT_EQ(d[2 * 4 + 0], kInf);  // nothing leaves 99
  EXPECT_EQ(io::read_id_map(path("d.txt.ids")), (std::vector<vertex_t>{0, 17, 99, 3352}));
  EXPECT_EQ(expect_ok("path snap.txt d.txt --from 0 --to 99"), "0 -> 3352 -> 17 -> 99\nweight 7\n");
  EXPECT_EQ(expect_ok("path snap.txt d.txt --from 0 --to 99 --predecessors p.bin"),
            "0 -> 3352 -> 17 -> 99\nweight 7\n");
  EXPECT_EQ(expect_ok("path snap.txt d.txt --from 99 --to 0"), "unreachable\n");
  EXPECT_NE(expect_ok("verify snap.txt d.txt").find("ok"), std::string::npos);
  expect_error("path snap.txt d.txt --from 5 --to 99", 2, "--from 5 is not in the id map");
  write_text("other.txt", "0 1 1\n");
  expect_error("path other.txt d.txt --from 0 --to 1", 2, "d.txt.ids: the id map does not match the graph other.txt");
  // Without --relabel the result is the graph's own numbering, and the old map goes.
  expect_ok("solve snap.txt -o d.txt");
  EXPECT_FALSE(fs::exists(path("d.txt.ids")));
  EXPECT_EQ(expect_ok("path snap.txt d.txt --from 0 --to 99"), "0 -> 3352 -> 17 -> 99\nweight 7\n");

  write_text("sparse.gr", "p sp 5000 2\na 10 4000 3\na 4000 20 1\n");  // 1-based: vertices 9, 3999, 19
  expect_ok("solve sparse.gr --relabel -o g.bin");
  EXPECT_EQ(io::read_id_map(path("g.bin.ids")), (std::vector<vertex_t>{9, 19, 3999}));
  EXPECT_EQ(expect_ok("path sparse.gr g.bin --from 9 --to 19"), "9 -> 3999 -> 19\nweight 4\n");
}

// ---- bad input: exit 2 ----------------------------------------------------

TEST_F(Cli, TruncatedBinIsExit2WithItsByteOffset) {
  expect_rejected_bin("trunc.bin", {3, 2, 0, 1, 5, 1, 2}, "trunc.bin@");  // the second edge lacks its weight
  expect_rejected_bin("short.bin", {3}, "short.bin@");
}

TEST_F(Cli, MalformedTextLinesAreExit2WithTheirLine) {
  expect_rejected_text("bad.gr", "c comment\np sp 3 2\na 1 2 5\na 2 x 3\n", "bad.gr:4");
  expect_rejected_text("noheader.gr", "a 1 2 5\n", "noheader.gr:1");
  expect_rejected_text("bad.mtx", "%%MatrixMarket matrix coordinate integer general\n3 3 2\n1 2\n2 3 2\n", "bad.mtx:3");
  expect_rejected_text("banner.mtx", "%%MatrixMarket matrix array integer general\n2 2\n1\n2\n3\n4\n", "banner.mtx:1");
  expect_rejected_text("bad.txt", "# u v w\n0 1 5\n1 2 oops\n", "bad.txt:3");
  expect_rejected_text("bad.el", "0 1 5 7 9\n", "bad.el:1");
}

TEST_F(Cli, OutOfRangeAndNegativeVertexIdsAreExit2) {
  expect_rejected_bin("range.bin", {3, 1, 0, 3, 5}, "range.bin@");
  expect_rejected_bin("negid.bin", {3, 1, -1, 2, 5}, "negid.bin@");
  expect_rejected_text("range.gr", "p sp 3 1\na 1 4 5\n", "range.gr:2");
  expect_rejected_text("zero.gr", "p sp 3 1\na 0 1 5\n", "zero.gr:2");  // DIMACS is 1-based
  expect_rejected_text("range.mtx", "%%MatrixMarket matrix coordinate integer general\n3 3 1\n4 1 2\n", "range.mtx:3");
  expect_rejected_text("negid.txt", "0 1 5\n-1 2 3\n", "negid.txt:2");
}

TEST_F(Cli, NegativeAndImpossibleSizesFailCleanly) {
  expect_rejected_bin("negn.bin", {-5, 0}, "negn.bin@0");
  expect_rejected_text("negn.gr", "p sp -4 0\n", "negn.gr:1");
  // n = 2e9 with 5 declared edges in a 20-byte file: the edges are not there.
  expect_rejected_bin("beyond_file.bin", {2000000000, 5, 0, 1, 5}, "beyond_file.bin@");
  expect_rejected_bin("many_edges.bin", {10, 2000000000, 0, 1, 5}, "many_edges.bin@");
  // A well-formed file whose n x n result cannot fit in memory.
  write_ints("beyond_memory.bin", {2000000000, 0});
  expect_error("solve beyond_memory.bin", 3, "memory");
  // Its rows would stream to a file (no n x n matrix in memory), but the
  // 36 TB file cannot fit the disk: refused before solving.
  write_ints("large.bin", {3000000, 0});
  expect_error("solve large.bin -o out.bin", 3, "on the file system");
  EXPECT_FALSE(fs::exists(path("out.bin")));
  expect_error("gen random -n 2000000000 --seed 1 -o huge.bin", 3, "memory");
  expect_error("gen random -n 3000000000 -m 0 --seed 1 -o huge.bin", 1, "n exceeds int32: 3000000000");
  EXPECT_FALSE(fs::exists(path("huge.bin")));
}

// Non-integral weights are refused under --weights int32 (naming the line)
// and solved as float64 under auto; integral ones stay int32.
TEST_F(Cli, NonIntegralMatrixMarketWeightsAreExit2AsInt32) {
  write_text("real.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 1.5\n2 3 2\n");
  expect_error("solve real.mtx --weights int32", 2, "real.mtx:3");
  EXPECT_NE(expect_ok("solve real.mtx").find("float64"), std::string::npos);
  write_text("integral.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 1.0\n2 3 2e1\n");
  const std::string summary = expect_ok("solve integral.mtx");
  EXPECT_NE(summary.find("2 after normalization"), std::string::npos) << summary;
  EXPECT_NE(summary.find("int32"), std::string::npos) << summary;
}

// Integer weights whose distances int32 cannot hold ((n-1) * max|w| reaches
// 2^30 - 1) are solved in float64 under --weights auto, and refused under
// --weights int32 before any work (exit 1).
TEST_F(Cli, DistancesBeyondInt32AreFloat64UnderAutoAndRefusedAsInt32) {
  // Three edges of 2^29: the 0 -> 3 distance 3 * 2^29 is beyond int32 with kInf.
  write_text("overflow.txt", "0 1 536870912\n1 2 536870912\n2 3 536870912\n");
  for (const char* algo : {"auto", "fw-seq", "fw-blocked", "dijkstra", "bellman-ford", "johnson"}) {
    SCOPED_TRACE(algo);
    const std::string summary = expect_ok(std::string("solve overflow.txt -o d.txt --algo ") + algo);
    EXPECT_NE(summary.find("float64"), std::string::npos) << summary;
    EXPECT_NE(read_text("d.txt").find("1610612736"), std::string::npos) << read_text("d.txt");
    expect_error(std::string("solve overflow.txt --weights int32 --algo ") + algo, 1, "int32 distances cannot hold");
  }
  // The issue's path: 1100 edges of 1e6 (1.1e9 end to end) in NTHU .bin.
  std::vector<std::int32_t> bin = {1101, 1100};
  for (std::int32_t v = 0; v < 1100; ++v) bin.insert(bin.end(), {v, v + 1, 1000000});
  write_ints("path.bin", bin);
  EXPECT_NE(expect_ok("solve path.bin").find("float64"), std::string::npos);
}

TEST_F(Cli, NegativeCycleIsExit2AndNamesAVertex) {
  const test::Case c = test::negative_cycle_case(40, 5);
  io::write_graph(path("negcycle.bin"), c.graph);
  // The cycle is n/3 -> n/2 -> n-2 -> n/3 (tests/support/cases.cpp).
  for (const char* algo : {"auto", "fw-seq", "fw-blocked", "bellman-ford", "johnson"}) {
    SCOPED_TRACE(std::string(c.name) + " " + algo);
    const CliRun r =
        expect_error(std::string("solve negcycle.bin --algo ") + algo, 2, "negative cycle through vertex ");
    const auto at = r.err.find("vertex ");
    ASSERT_NE(at, std::string::npos) << r;
    EXPECT_GE(std::stoll(r.err.substr(at + 7)), 0) << r;
    EXPECT_LT(std::stoll(r.err.substr(at + 7)), 40) << r;
  }
  write_text("selfloop.txt", "0 1 2\n1 1 -1\n");
  expect_error("solve selfloop.txt", 2, "negative cycle through vertex 1");
}

// Distributed fw's per-rank memory choice: a share above --memory-budget is
// refused before any work (exit 3), naming the rank and the sizes.
TEST_F(Cli, DistributedShareAboveTheMemoryBudgetIsExit3) {
  write_text("g.txt", "0 1 2\n1 2 3\n");
  expect_error("solve g.txt --memory-budget 1K --distribution rows --algo fw-blocked -o d.bin", 3,
               "rank 0 (and every other rank): its share of fw (n = 3) needs");
  EXPECT_FALSE(std::filesystem::exists(dir_ / "d.bin"));
}

TEST_F(Cli, MissingFilesAreExit2) {
  expect_error("solve nothere.bin", 2, "nothere.bin");
  expect_error("verify nothere.gr d.bin", 2, "nothere.gr");
  write_text("g.txt", "0 1 2\n");
  expect_error("verify g.txt nothere.bin", 2, "nothere.bin");
  expect_error("path g.txt nothere.bin --from 0 --to 1", 2, "nothere.bin");
}

// ---- usage: exit 1 --------------------------------------------------------

TEST_F(Cli, UnknownNamesAndBadSyntaxAreExit1) {
  write_text("g.txt", "0 1 2\n1 2 3\n");
  expect_error("solve g.txt --algo nope", 1, "nope");
  expect_error("solve g.txt --backend tpu", 1, "tpu");
  expect_error("solve g.txt --format xml", 1, "xml");
  expect_error("solve g.txt -o out.xyz", 1, "out.xyz");
  expect_error("solve g.txt --out-format xml -o out.bin", 1, "xml");
  expect_error("solve g.txt --precision int8", 1, "int8");
  expect_error("solve g.txt --block 8by8", 1, "8by8");
  expect_error("solve g.txt --block 0x8", 1, "0x8");
  expect_error("solve g.txt --threads many", 1, "many");
  // Issue 20, defects 6 and 16: a count OpenMP cannot start crashed the
  // process (exit 139), and -1 printed the bounds as doubles.
  expect_error("solve g.txt --threads -1", 1, "--threads: -1 is not a count from 0 to 1024");
  expect_error("solve g.txt --threads 100000", 1, "--threads: 100000 is not a count from 0 to 1024");
  expect_error("solve g.txt --threads 1025 --distribution rows", 1, "--threads: 1025 is not a count from 0 to 1024");
  expect_error("solve g.txt --device -1", 1, "--device: -1 is not a count from 0 to");
  expect_error("solve g.txt --memory-budget 8X", 1, "--memory-budget: '8X' is not a positive byte count");
  expect_error("solve g.txt --memory-budget 0", 1, "--memory-budget: '0' is not a positive byte count");
  expect_error("solve g.txt --memory-budget 99999999999T", 1, "--memory-budget: '99999999999T' is more bytes");
  expect_error("solve g.txt --memory-budget 1G --distribution rows --algo dijkstra", 1,
               "--memory-budget: is for distributed fw's tiles");
  expect_error("solve g.unknown", 1, "g.unknown");
  expect_error("solve", 1, "IN");
  expect_error("frobnicate", 1, "frobnicate");
  expect_error("", 1, "subcommand");
  expect_error("solve g.txt --no-such-option", 1, "--no-such-option");
  expect_error("gen torus -n 5 --seed 1 -o g.bin", 1, "torus");
  expect_error("gen random -n 5 --seed 1 -o g.bin --weights 5", 1, "--weights");
  expect_error("gen random -n 5 --seed 1 -o g.bin --weights 9:1", 1, "--weights: the range 9:1 needs LO <= HI");
  expect_error("gen random -n 5 --seed 1 -o g.bin --weights -9:-1", 1, "--weights: with HI < 0");
  expect_error("gen scale-free -n 5 --degree 0 --seed 1 -o g.bin", 1, "--degree: must be >= 1, got 0");
  expect_error("gen random -n 5 --seed 1 -o g.xyz", 1, "g.xyz");
  expect_error("gen dense -n 5 --density 2 --seed 1 -o g.bin", 1, "--density: must be in [0, 1]");
  expect_error("gen geometric -n 5 --weights -1:5 --seed 1 -o g.bin", 1, "--weights: geometric weights grow");
  expect_error("path g.txt d.bin --to 1", 1, "--from");
  EXPECT_FALSE(fs::exists(path("g.bin")));
}

// Issue 20, defect 4: one file for -o and --predecessors kept only the
// predecessors. Every spelling of one file is refused (exit 1) before the
// input is read, and nothing is written.
TEST_F(Cli, OneFileForDistancesAndPredecessorsIsRefused) {
  write_text("g.txt", "0 1 2\n1 2 3\n");
  write_text("old.bin", "the old result");
  fs::create_directories(dir_ / "sub");
  fs::create_symlink("old.bin", dir_ / "link.bin");
  fs::create_hard_link(dir_ / "old.bin", dir_ / "hard.bin");
  for (const char* args : {"-o d.bin --predecessors d.bin", "-o ./d.bin --predecessors d.bin",
                           "-o sub/../d.bin --predecessors d.bin", "-o old.bin --predecessors link.bin",
                           "-o hard.bin --predecessors old.bin", "-o d.npy --predecessors ./sub/../d.npy"}) {
    SCOPED_TRACE(args);
    expect_error(std::string("solve missing.txt ") + args, 1, "name one file: each needs its own");
    expect_error(std::string("solve g.txt --distribution rows ") + args, 1, "--predecessors: the distances (");
  }
  EXPECT_EQ(read_text("old.bin"), "the old result");
  EXPECT_FALSE(fs::exists(dir_ / "d.bin"));
  EXPECT_FALSE(fs::exists(dir_ / "d.npy"));
  // Two files of one name in two directories are two files.
  expect_ok("solve g.txt -o d.bin --predecessors sub/d.bin");
}

// Issue 20, defect 14: the README's exit-code table and the code agree. Each
// row's code is the apsp::ExitCode of its kind of error, and a documented
// case of each (a failed write among them: -o into a missing directory
// exited 2) ends with that code; an unexpected exception is 4, not 2.
TEST_F(Cli, TheReadmeExitCodeTableMatchesTheCode) {
  std::ifstream readme(std::string(APSP_SOURCE_DIR) + "/README.md");
  std::map<int, std::string> rows;  // code -> meaning
  bool in_table = false;
  for (std::string line; std::getline(readme, line);) {
    if (line == "| Code | Meaning |")
      in_table = true;
    else if (in_table && line.rfind("| ---", 0) == 0)
      continue;
    else if (in_table && line.rfind("| ", 0) == 0) {
      const std::size_t bar = line.find(" | ", 2);
      ASSERT_NE(bar, std::string::npos) << line;
      rows[std::stoi(line.substr(2, bar - 2))] = line.substr(bar + 3);
    } else if (in_table)
      break;
  }
  const std::map<int, std::string> expected = {{static_cast<int>(ExitCode::ok), "success"},
                                               {static_cast<int>(ExitCode::usage), "usage"},
                                               {static_cast<int>(ExitCode::bad_input), "bad input"},
                                               {static_cast<int>(ExitCode::resource), "resources"},
                                               {static_cast<int>(ExitCode::internal), "internal error"}};
  ASSERT_EQ(rows.size(), expected.size());
  for (const auto& [code, starts] : expected) {
    ASSERT_TRUE(rows.count(code)) << "no README row for exit code " << code;
    EXPECT_EQ(rows[code].rfind(starts, 0), 0u) << rows[code];
  }
  // A case of each row, as the README words it.
  EXPECT_EQ(exit_code_of(UsageError("x")), ExitCode::usage);
  EXPECT_EQ(exit_code_of(InputError("x")), ExitCode::bad_input);
  EXPECT_EQ(exit_code_of(NegativeCycleError(1)), ExitCode::bad_input);
  EXPECT_EQ(exit_code_of(VerifyError("x")), ExitCode::bad_input);
  EXPECT_EQ(exit_code_of(ResourceError("x")), ExitCode::resource);
  EXPECT_EQ(exit_code_of(std::bad_alloc()), ExitCode::resource);
  EXPECT_EQ(exit_code_of(std::logic_error("a bug")), ExitCode::internal);
  EXPECT_EQ(exit_code_of(std::out_of_range("a bug")), ExitCode::internal);
  write_text("g.txt", "0 1 2\n1 2 3\n");
  expect_ok("solve g.txt -o d.bin");
  expect_error("solve g.txt --algo nope", 1, "nope");
  expect_error("solve absent.txt", 2, "absent.txt");
  EXPECT_NE(rows[3].find("`-o /nonexistent/dir/d.bin`"), std::string::npos) << rows[3];
  expect_error("solve g.txt -o nonexistent/dir/d.bin", 3, "cannot open nonexistent/dir/d.bin for writing");
  expect_error("solve g.txt -o d.bin --predecessors nonexistent/p.bin", 3, "nonexistent/p.bin");
  expect_error("gen random -n 5 --seed 1 -o nonexistent/g.bin", 3, "nonexistent/g.bin");
}

TEST_F(Cli, HelpIsExit0OnStdout) {
  for (const char* args : {"--help", "solve --help", "gen --help", "verify --help", "path --help", "info --help"}) {
    const CliRun r = run(args);
    EXPECT_EQ(r.status, 0) << r;
    EXPECT_NE(r.out.find("Usage"), std::string::npos) << r;
  }
  EXPECT_NE(run("solve --help").out.find("--predecessors"), std::string::npos);
  // What a size costs, before anyone tries it.
  EXPECT_NE(run("solve --help").out.find("the distances take n^2 x 4 bytes"), std::string::npos);
}

// Bug 5 of issue 6: with n = 5000 a text output (limited to 4096 vertices)
// was refused only after the whole solve. Here the solve itself would fail at
// once, with its own error: dijkstra refuses the negative edge 0->1 as it
// starts. So the text limit's error, and not dijkstra's, says that the limit
// was checked before the solver ran (no clock involved).
TEST_F(Cli, OutputLimitsAreCheckedBeforeSolving) {
  std::vector<std::int32_t> cycle = {5000, 5000};
  for (std::int32_t v = 0; v < 5000; ++v) cycle.insert(cycle.end(), {v, (v + 1) % 5000, v == 0 ? -1 : 7});
  write_ints("big.bin", cycle);
  expect_error("solve big.bin --algo dijkstra -o d.txt", 1, "5000 vertices exceed the text limit of 4096");
  expect_error("solve big.bin --algo dijkstra -o d.bin --predecessors p.mat", 1, "text limit of 4096");
  EXPECT_FALSE(fs::exists(path("d.txt")));
  EXPECT_FALSE(fs::exists(path("d.bin")));
}

// Outputs are written to a temporary file and renamed when complete: a
// failed solve, and one killed half-way through its write (here by the file
// size limit's SIGXFSZ), leave an existing file as it was and nothing else.
TEST_F(Cli, AFailedOrKilledWriteLeavesTheOldFileAndNoTemporary) {
  const test::Case cycle = test::negative_cycle_case(40, 5);
  io::write_graph(path("cycle.bin"), cycle.graph);
  expect_ok("gen random -n 400 --seed 3 -o g.bin");
  write_text("d.bin", "the old result");
  write_text("g2.bin", "the old graph");
  const std::set<std::string> before = {"cycle.bin", "g.bin", "d.bin", "g2.bin", "stdout.log", "stderr.log"};
  expect_error("solve cycle.bin -o d.bin", 2, "negative cycle");
  for (const char* algo : {"fw-blocked", "dijkstra"}) {
    // 400 x 400 x 4 bytes = 640 KB against a limit of 100 blocks.
    const CliRun r = run(std::string("solve g.bin -o d.bin --algo ") + algo, "ulimit -f 100");
    EXPECT_NE(r.status, 0) << r;
  }
  const CliRun killed_gen = run("gen rmat -n 4000 --seed 1 -o g2.bin", "ulimit -f 100");
  EXPECT_NE(killed_gen.status, 0) << killed_gen;
  EXPECT_EQ(read_text("d.bin"), "the old result");
  EXPECT_EQ(read_text("g2.bin"), "the old graph");
  std::set<std::string> after;
  for (const auto& entry : fs::directory_iterator(dir_)) after.insert(entry.path().filename().string());
  EXPECT_EQ(after, before);
  // Without the limit both replace the old files.
  expect_ok("solve g.bin -o d.bin");
  EXPECT_EQ(fs::file_size(dir_ / "d.bin"), 400u * 400u * 4u);
}

// The summary's stages, the CLI's and the library's, add up to the total
// with "other" for the glue between them; stages that move bytes show a rate.
TEST_F(Cli, StagesAddUpToTheTotal) {
  expect_ok("gen rmat -n 300 --seed 2 -o g.bin");
  for (const char* args : {"solve g.bin --algo fw-blocked -o d.bin --predecessors p.npy --verify",
                           "solve g.bin --algo johnson -o d.txt", "solve g.bin --algo dijkstra"}) {
    SCOPED_TRACE(args);
    const std::string summary = expect_ok(args);
    std::istringstream lines(summary);
    std::string line;
    double sum = 0, total = -1;
    std::map<std::string, std::string> stage_lines;
    while (std::getline(lines, line)) {
      const auto ms = line.find(" ms");
      if (ms == std::string::npos) continue;
      std::istringstream words(line);
      std::string name, word;
      double value = 0;
      while (words >> word) {
        if (std::isdigit(static_cast<unsigned char>(word[0]))) {
          value = std::stod(word);
          break;
        }
        name += (name.empty() ? "" : " ") + word;
      }
      stage_lines[name] = line;
      if (name == "total")
        total = value;
      else
        sum += value;
    }
    ASSERT_GT(total, 0) << summary;
    // Each printed value is rounded to 0.001 ms.
    EXPECT_NEAR(sum, total, 0.001 * static_cast<double>(stage_lines.size())) << summary;
    for (const char* stage : {"read", "normalize", "check graph", "open output", "compute", "commit", "other"})
      EXPECT_EQ(stage_lines.count(stage), 1u) << "no '" << stage << "' in\n" << summary;
    EXPECT_NE(stage_lines["read"].find("GB/s"), std::string::npos) << summary;
    if (std::string(args).find("--verify") != std::string::npos) {
      EXPECT_EQ(stage_lines.count("open files"), 1u) << summary;
      for (const char* stage : {"store", "verify", "write"})
        EXPECT_NE(stage_lines[stage].find("GB/s"), std::string::npos) << stage << " in\n" << summary;
    }
    if (std::string(args).find("johnson") != std::string::npos) EXPECT_EQ(stage_lines.count("potentials"), 1u);
  }
}

// ---- resources: exit 3 ----------------------------------------------------

TEST_F(Cli, CudaWithoutABuildOrDeviceIsExit3) {
  write_text("g.txt", "0 1 2\n1 2 3\n");
  const std::string info = expect_ok("info");
  if (info.find("devices: none") == std::string::npos) GTEST_SKIP() << "a CUDA device is present" << info;
  expect_error("solve g.txt --backend cuda", 3, "CUDA");
  expect_error("solve g.txt --backend cuda --algo fw", 3, "CUDA");
  expect_error("solve g.txt --backend cuda --algo fw-ooc --memory-budget 64M", 3, "CUDA");
}

// ---- happy paths ----------------------------------------------------------

TEST_F(Cli, GenSolveVerifyForEveryGraphAndMatrixFormat) {
  const Graph g = generated(GraphKind::random, 70, 200, 1, 50, 4);
  const auto reference = test::reference_distances(g);
  const auto counts = test::count_entries(reference, g.n);
  ASSERT_GT(counts.finite_off_diagonal, 0);
  ASSERT_GT(counts.unreachable, 0);
  for (const char* graph_ext : {"bin", "gr", "mtx", "txt", "el", "edges", "npy", "mat", "dense"}) {
    SCOPED_TRACE(std::string("graph format .") + graph_ext);
    const std::string graph = std::string("g.") + graph_ext;
    expect_ok("gen random -n 70 -m 200 --weights 1:50 --seed 4 -o " + graph);
    for (const char* matrix_ext : {"bin", "npy", "txt"}) {
      SCOPED_TRACE(std::string("matrix format .") + matrix_ext);
      const std::string dist = std::string("d.") + matrix_ext;
      const std::string summary = expect_ok("solve " + graph + " -o " + dist + " --verify");
      EXPECT_NE(summary.find("verify: ok"), std::string::npos) << summary;
      std::int64_t n = 0;
      const auto d = io::read_matrix(path(dist), n);
      ASSERT_EQ(n, g.n);
      EXPECT_EQ(test::first_difference(reference, d, n), "");
      EXPECT_EQ(expect_ok("verify " + graph + " " + dist), "ok\n");
    }
  }
}

TEST_F(Cli, SolveMatchesTheReferenceWithEveryAlgorithmAndNegativeWeights) {
  const Graph g = generated(GraphKind::rmat, 90, 400, -20, 60, 9);
  const auto reference = test::reference_distances(g);
  expect_ok("gen rmat -n 90 -m 400 --weights -20:60 --seed 9 -o g.gr");
  for (const char* algo : {"auto", "fw-seq", "fw-blocked", "bellman-ford", "johnson"}) {
    SCOPED_TRACE(algo);
    const std::string summary = expect_ok(std::string("solve g.gr -o d.npy --threads 2 --algo ") + algo);
    std::int64_t n = 0;
    EXPECT_EQ(test::first_difference(reference, io::read_matrix(path("d.npy"), n), g.n), "");
  }
  // Dijkstra needs non-negative weights: this input does not fit it.
  expect_error("solve g.gr --algo dijkstra", 2, "dijkstra");
}

TEST_F(Cli, SummaryNamesSizesAlgorithmAndEveryStage) {
  expect_ok("gen grid -n 100 --seed 2 -o g.bin");
  const std::string summary = expect_ok("solve g.bin --algo fw-seq --backend cpu");
  for (const char* words :
       {"n                100", "m                360 after normalization (360 as read)", "algorithm        fw-seq",
        "backend          cpu", "precision", "read", "normalize", "initialize", "compute", "store", "commit", "other",
        "total", "updates/s", "peak host memory"})
    EXPECT_NE(summary.find(words), std::string::npos) << "missing '" << words << "' in\n" << summary;
  EXPECT_EQ(summary.find("verify"), std::string::npos) << summary;
  EXPECT_LE(std::count(summary.begin(), summary.end(), '\n'), 24) << summary;
  // Without -o nothing is written; Dijkstra is not a Floyd-Warshall update count.
  EXPECT_EQ(expect_ok("solve g.bin --algo dijkstra").find("updates/s"), std::string::npos);
  EXPECT_FALSE(fs::exists(path("d.bin")));
}

// The summary's precision is the width the CPU computed in: int64 where
// (n-1) * max|w| could overflow int32 sums, or when asked for.
TEST_F(Cli, SummaryPrintsThePrecisionActuallyUsed) {
  write_text("small.txt", "0 1 5\n1 2 7\n");
  // (n-1) * max|w| = 6e8: int32 distances hold every answer (auto keeps int32
  // weights), but sums of two may not fit int32 arithmetic (int64 precision).
  write_text("wide.txt", "# vertices: 3\n0 1 300000000\n1 2 200000000\n");
  const auto precision_of = [&](const std::string& args) {
    const std::string summary = expect_ok("solve " + args);
    const auto at = summary.find("precision");
    return at == std::string::npos ? summary : summary.substr(at, summary.find('\n', at) - at);
  };
  EXPECT_EQ(precision_of("small.txt --algo fw-blocked"), "precision        int32");
  EXPECT_EQ(precision_of("small.txt --algo fw-blocked --precision int64"), "precision        int64");
  EXPECT_EQ(precision_of("small.txt --algo johnson"), "precision        int64");
  EXPECT_EQ(precision_of("wide.txt --algo fw-blocked -o d.bin"), "precision        int64");
  std::int64_t n = 0;
  EXPECT_EQ(io::read_matrix(path("d.bin"), n)[2], 500000000);
  expect_error("solve small.txt --backend cuda --precision int64", 1, "--precision: int64 is a CPU mode");
  expect_error("solve small.txt --precision int16 --backend cpu", 1,
               "--precision: the CPU backend computes in int32 or wider only");
}

TEST_F(Cli, UndirectedAndDenseInputOptions) {
  write_text("one_way.txt", "0 1 4\n1 2 5\n");
  expect_ok("solve one_way.txt --undirected -o d.bin");
  std::int64_t n = 0;
  auto d = io::read_matrix(path("d.bin"), n);
  ASSERT_EQ(n, 3);
  EXPECT_EQ(d[2 * 3 + 0], 9);
  EXPECT_EQ(expect_ok("verify one_way.txt d.bin --undirected"), "ok\n");
  expect_error("verify one_way.txt d.bin", 2, "d[1][0] = 4 is not attained");
  // The labs' dense text matrix with 0 meaning "no edge".
  write_text("lab.dense", "3\n0 7 0\n0 0 2\n0 0 0\n");
  expect_ok("solve lab.dense --no-edge 0 -o d.txt");
  d = io::read_matrix(path("d.txt"), n);
  EXPECT_EQ(d, (std::vector<dist_t>{0, 7, 9, kInf, 0, 2, kInf, kInf, 0}));
  EXPECT_EQ(expect_ok("verify lab.dense d.txt --no-edge 0"), "ok\n");
  EXPECT_EQ(expect_ok("path lab.dense d.txt --no-edge 0 --from 0 --to 2"), "0 -> 1 -> 2\nweight 9\n");
  expect_error("verify lab.dense d.txt", 2, "d[0][2] = 9 but");  // read with -1 = no edge, 0 is an edge
  // The same text as an edge list through --format.
  write_text("edges.dat", "0 1 4\n");
  expect_ok("solve edges.dat --format edges -o d.bin");
  d = io::read_matrix(path("d.bin"), n);
  EXPECT_EQ(d, (std::vector<dist_t>{0, 4, kInf, 0}));
}

// Checks `apsp path` output "a -> b -> c\nweight W\n" against the graph.
void expect_valid_path_output(const std::string& out, const Graph& g, const std::vector<dist_t>& d, std::int64_t from,
                              std::int64_t to) {
  SCOPED_TRACE("path " + std::to_string(from) + " -> " + std::to_string(to) + ": " + out);
  const dist_t expected = d[from * g.n + to];
  if (expected == kInf) {
    EXPECT_EQ(out, "unreachable\n");
    return;
  }
  std::istringstream in(out);
  std::string line;
  std::getline(in, line);
  std::vector<std::int64_t> vertices;
  std::istringstream words(line);
  for (std::string word; words >> word;)
    if (word != "->") vertices.push_back(std::stoll(word));
  ASSERT_FALSE(vertices.empty());
  EXPECT_EQ(vertices.front(), from);
  EXPECT_EQ(vertices.back(), to);
  std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> lightest;
  for (const Edge& e : g.edges) {
    auto [it, fresh] = lightest.emplace(std::make_pair(e.src, e.dst), e.w);
    if (!fresh) it->second = std::min<std::int64_t>(it->second, e.w);
  }
  std::int64_t total = 0;
  for (std::size_t k = 0; k + 1 < vertices.size(); ++k) {
    const auto it = lightest.find({vertices[k], vertices[k + 1]});
    ASSERT_NE(it, lightest.end()) << "no edge " << vertices[k] << "->" << vertices[k + 1];
    total += it->second;
  }
  EXPECT_EQ(total, expected);
  std::getline(in, line);
  EXPECT_EQ(line, "weight " + std::to_string(expected));
}

// The geometric family through the CLI is generate()'s graph, and the
// summary's note says what "auto" picked and why.
TEST_F(Cli, GeometricGraphAndTheAutoNote) {
  expect_ok("gen geometric -n 300 --weights 0:50 --seed 3 -o geo.bin");  // 4 nearest neighbours by default
  const Graph expected = generated(GraphKind::geometric, 300, -1, 0, 50, 3);
  const Graph read = io::read_graph(path("geo.bin"));
  ASSERT_EQ(read.n, expected.n);
  ASSERT_EQ(read.edges.size(), expected.edges.size());
  for (std::size_t e = 0; e < read.edges.size(); ++e) {
    EXPECT_EQ(read.edges[e].src, expected.edges[e].src);
    EXPECT_EQ(read.edges[e].dst, expected.edges[e].dst);
    EXPECT_EQ(read.edges[e].w, expected.edges[e].w);
  }
  const std::string summary = expect_ok("solve geo.bin --backend cpu");
  EXPECT_NE(summary.find("auto picked "), std::string::npos) << summary;
  EXPECT_EQ(expect_ok("solve geo.bin --backend cpu --algo dijkstra").find("auto picked"), std::string::npos);
}

TEST_F(Cli, PredecessorsThenPath) {
  const Graph g = generated(GraphKind::scale_free, 60, -1, 0, 9, 3);
  expect_ok("gen scale-free -n 60 --weights 0:9 --seed 3 -o g.mtx");
  // An extra vertex no edge reaches, so some pairs are unreachable.
  Graph with_isolated = g;
  with_isolated.n = 61;
  io::write_graph(path("g61.mtx"), with_isolated);
  const auto d = test::reference_distances(with_isolated);
  const std::string summary = expect_ok("solve g61.mtx -o d.bin --predecessors p.bin --verify");
  EXPECT_NE(summary.find("verify: ok"), std::string::npos) << summary;
  std::int64_t n = 0;
  const auto pred = io::read_matrix(path("p.bin"), n);
  ASSERT_EQ(n, 61);
  EXPECT_EQ(test::check_predecessors(with_isolated, d, pred), "");
  for (std::int64_t from : {0, 17, 60})
    for (std::int64_t to : {0, 5, 33, 59, 60}) {
      const std::string args = "path g61.mtx d.bin --from " + std::to_string(from) + " --to " + std::to_string(to);
      expect_valid_path_output(expect_ok(args + " --predecessors p.bin"), with_isolated, d, from, to);
      expect_valid_path_output(expect_ok(args), with_isolated, d, from, to);
    }
  expect_error("path g61.mtx d.bin --from 0 --to 61", 2, "--to 61 is outside 0..60");
  expect_error("path g61.mtx d.bin --from -3 --to 1", 2, "--from -3 is outside 0..60");
  expect_error("path g61.mtx d.bin --from 0 --to 5000000000", 2, "--to 5000000000 is outside 0..60");
  expect_error("path g.mtx d.bin --from 0 --to 1", 2, "60 vertices");
}

TEST_F(Cli, VerifyRejectsEachCorruption) {
  const Graph g = generated(GraphKind::random, 50, 150, 1, 30, 12);
  expect_ok("gen random -n 50 -m 150 --weights 1:30 --seed 12 -o g.bin");
  const auto good = test::reference_distances(g);
  const std::int64_t n = g.n;
  std::int64_t finite = -1, unreachable = -1;  // row-0 entries of each kind
  for (std::int64_t j = 1; j < n; ++j) (good[j] == kInf ? unreachable : finite) = j;
  ASSERT_GE(finite, 0);
  ASSERT_GE(unreachable, 0);
  io::write_matrix(path("good.bin"), good, n);
  EXPECT_EQ(expect_ok("verify g.bin good.bin"), "ok\n");
  struct Corruption {
    const char* what;
    std::int64_t cell;
    dist_t value;
    std::string words;
  };
  const std::string f = std::to_string(finite);
  const std::vector<Corruption> corruptions = {
      {"wrong diagonal", 3 * n + 3, 1, "d[3][3] = 1, expected 0"},
      {"unrelaxed edge", finite, good[finite] + 1, "d[0][" + f + "] = " + std::to_string(good[finite] + 1) + " but"},
      {"unattained finite value", finite, good[finite] - 1, "d[0]"},
      {"finite where INF belongs", unreachable, 5, "d[0]"},
      {"INF where finite belongs", finite, kInf, "d[0][" + f + "] = INF but"},
  };
  for (const auto& c : corruptions) {
    SCOPED_TRACE(c.what);
    auto d = good;
    d[c.cell] = c.value;
    for (const char* ext : {"bin", "npy", "txt"}) {
      const std::string file = std::string("bad.") + ext;
      io::write_matrix(path(file), d, n);
      expect_error("verify g.bin " + file, 2, c.words);
    }
    // The library says the same.
    const VerifyReport r = verify(normalize(g), d);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.first_violation.find(c.words), std::string::npos) << r.first_violation;
  }
  io::write_matrix(path("small.bin"), std::vector<dist_t>(49, 0), 7);
  expect_error("verify g.bin small.bin", 2, "7 x 7");
}

// ---- verify and path with real weights -------------------------------------

// The Cli fixture with its helpers open to the typed helpers below.
class CliRealDistances : public Cli {
 public:
  using Cli::expect_error;
  using Cli::expect_ok;
  using Cli::path;
  using Cli::write_text;
  const fs::path& dir() const { return dir_; }
};

// A standard case with negative weights (no negative cycle), duplicates,
// self-loops and an unreachable vertex, its weights scaled to reals.
GraphF64 real_case_with_negative_weights() {
  for (const test::Case& c : test::standard_cases()) {
    if (c.graph.n != 65) continue;
    const bool negative =
        std::any_of(c.graph.edges.begin(), c.graph.edges.end(), [](const Edge& e) { return e.w < 0; });
    if (negative) return test::with_real_weights(c.graph);
  }
  ADD_FAILURE() << "no standard case of 65 vertices with negative weights";
  return {};
}

// The value a real matrix file names in text (shortest round trip), as W.
template <class W>
W parse_as(const std::string& text) {
  if (text == "inf") return std::numeric_limits<W>::infinity();
  W value{};
  const auto parsed = std::from_chars(text.data(), text.data() + text.size(), value);
  EXPECT_TRUE(parsed.ec == std::errc() && parsed.ptr == text.data() + text.size()) << "'" << text << "'";
  return value;
}

// `apsp path` output for a real graph: unreachable exactly where d is +inf;
// otherwise a chain of edges of g from `from` to `to` whose weight (summed in
// double) is d[from][to] within `tolerance`, and a weight line that reads
// back as exactly the matrix's cell.
template <class W>
void expect_valid_real_path_output(const std::string& out, const BasicGraph<W>& g, Span<const W> d, std::int64_t from,
                                   std::int64_t to, double tolerance) {
  SCOPED_TRACE("path " + std::to_string(from) + " -> " + std::to_string(to) + ": " + out);
  const W expected = d[static_cast<std::size_t>(from * g.n + to)];
  if (std::isinf(expected)) {
    EXPECT_EQ(out, "unreachable\n");
    return;
  }
  std::istringstream in(out);
  std::string line;
  std::getline(in, line);
  std::vector<std::int64_t> vertices;
  std::istringstream words(line);
  for (std::string word; words >> word;)
    if (word != "->") vertices.push_back(std::stoll(word));
  ASSERT_FALSE(vertices.empty());
  EXPECT_EQ(vertices.front(), from);
  EXPECT_EQ(vertices.back(), to);
  std::map<std::pair<std::int64_t, std::int64_t>, double> lightest;
  for (const auto& e : g.edges) {
    auto [it, fresh] = lightest.emplace(std::make_pair(e.src, e.dst), e.w);
    if (!fresh) it->second = std::min<double>(it->second, e.w);
  }
  double total = 0;
  for (std::size_t k = 0; k + 1 < vertices.size(); ++k) {
    const auto it = lightest.find({vertices[k], vertices[k + 1]});
    ASSERT_NE(it, lightest.end()) << "no edge " << vertices[k] << "->" << vertices[k + 1];
    total += it->second;
  }
  EXPECT_NEAR(total, static_cast<double>(expected), tolerance);
  std::getline(in, line);
  ASSERT_EQ(line.rfind("weight ", 0), 0u) << line;
  EXPECT_EQ(parse_as<W>(line.substr(7)), expected);
}

// A C-order n x n .npy of W (<f4 or <f8), written here so that a test can
// hand verify any matrix.
template <class W>
void write_real_npy(const fs::path& file, const std::vector<W>& cells, std::int64_t n) {
  std::string header = std::string("{'descr': '") + (sizeof(W) == 4 ? "<f4" : "<f8") +
                       "', 'fortran_order': False, 'shape': (" + std::to_string(n) + ", " + std::to_string(n) + "), }";
  while ((10 + header.size() + 1) % 64 != 0) header.push_back(' ');
  header.push_back('\n');
  std::ofstream out(file, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  const char length[2] = {static_cast<char>(header.size() & 0xff), static_cast<char>(header.size() >> 8)};
  out.write(length, 2);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  out.write(reinterpret_cast<const char*>(cells.data()), static_cast<std::streamsize>(cells.size() * sizeof(W)));
}

// solve -> verify -> path in one real type: .npy (its dtype names the type),
// text (the type named) and the raw bin-f32 / bin-f64 (the format named).
template <class W>
void solve_verify_path_round_trip(const CliRealDistances& cli, const GraphF64& g64, const std::string& type,
                                  const char* raw) {
  SCOPED_TRACE(type);
  const std::int64_t n = g64.n;
  const std::string raw_format = std::string(" --dist-format ") + raw;
  cli.expect_ok("solve g.el --weights " + type + " -o d.npy --predecessors p.npy");
  cli.expect_ok("solve g.el --weights " + type + " -o d.txt");
  cli.expect_ok("solve g.el --weights " + type + " -o d.raw --out-format " + raw);
  // The result is right (checked here against the independent reference),
  // with both finite and unreachable entries.
  const io::BasicMatrixFile<W> d(cli.path("d.npy"));
  ASSERT_EQ(d.n(), n);
  std::vector<double> as_double(d.cells().begin(), d.cells().end());
  EXPECT_EQ(test::first_real_difference(test::reference_distances(g64), as_double, n, test::max_abs_weight(g64),
                                        test::test_relative_tolerance<W>(n)),
            "");
  const test::EntryCounts counts = test::count_entries(as_double, n);
  EXPECT_GT(counts.finite_off_diagonal, 0);
  EXPECT_GT(counts.unreachable, 0);

  const std::string ok = std::string("ok (within ");
  const std::string states = "relative: n * epsilon(" + type + "))\n";
  for (const std::string& args :
       std::vector<std::string>{"verify g.el d.npy", "verify g.el d.npy --weights " + type,
                                "verify g.el d.txt --weights " + type, "verify g.el d.raw" + raw_format}) {
    const std::string out = cli.expect_ok(args);
    EXPECT_EQ(out.rfind(ok, 0), 0u) << args << ": " << out;
    EXPECT_NE(out.find(states), std::string::npos) << args << ": " << out;
  }

  // The graph as the solve saw it: weights rounded to W.
  BasicGraph<W> g;
  g.n = n;
  for (const EdgeF64& e : g64.edges) g.edges.push_back({e.src, e.dst, static_cast<W>(e.w)});
  const double tolerance = test::test_relative_tolerance<W>(n) * std::max(test::max_abs_weight(g64), [&] {
                             double m = 0;
                             for (const double v : as_double)
                               if (std::isfinite(v)) m = std::max(m, std::fabs(v));
                             return m;
                           }());
  std::int64_t unreachable_pairs = 0;
  for (std::int64_t from : {0, 1, 31, 64})
    for (std::int64_t to : {0, 1, 2, 40, 63, 64}) {
      unreachable_pairs += std::isinf(d.cells()[from * n + to]);
      const std::string args = " --from " + std::to_string(from) + " --to " + std::to_string(to);
      expect_valid_real_path_output(cli.expect_ok("path g.el d.npy --predecessors p.npy" + args), g, d.cells(), from,
                                    to, tolerance);
      expect_valid_real_path_output(cli.expect_ok("path g.el d.npy" + args), g, d.cells(), from, to, tolerance);
      expect_valid_real_path_output(cli.expect_ok("path g.el d.txt --weights " + type + args), g, d.cells(), from, to,
                                    tolerance);
      expect_valid_real_path_output(cli.expect_ok("path g.el d.raw" + raw_format + args), g, d.cells(), from, to,
                                    tolerance);
    }
  EXPECT_GT(unreachable_pairs, 0);
}

TEST_F(CliRealDistances, RealWeightsSolveVerifyPathRoundTripInFloat32AndFloat64) {
  const GraphF64 g = real_case_with_negative_weights();
  ASSERT_EQ(g.n, 65);
  io::write_graph(path("g.el"), g);
  solve_verify_path_round_trip<float>(*this, g, "float32", "bin-f32");
  solve_verify_path_round_trip<double>(*this, g, "float64", "bin-f64");
}

// verify of real distances: rounding within n * epsilon(W) of the row's scale
// passes, a real violation beyond it fails naming the tolerance; in both types
// and both real-typed matrix files.
template <class W>
void verify_tolerance(const CliRealDistances& cli, const GraphF64& g64, const std::string& type) {
  SCOPED_TRACE(type);
  const std::int64_t n = g64.n;
  cli.expect_ok("solve g.el --weights " + type + " -o solved.npy");
  const io::BasicMatrixFile<W> solved(cli.path("solved.npy"));
  const std::vector<W> good(solved.cells().begin(), solved.cells().end());
  std::int64_t finite = -1;  // a finite, non-zero entry of row 0
  for (std::int64_t j = 1; j < n && finite < 0; ++j)
    if (std::isfinite(good[j]) && good[j] != 0) finite = j;
  ASSERT_GE(finite, 0);
  const W eps = std::numeric_limits<W>::epsilon();
  // The reference distances, rounded once to W: another summation order.
  std::vector<W> reference;
  for (const double v : test::reference_distances(g64)) reference.push_back(static_cast<W>(v));
  write_real_npy(cli.dir() / "reference.npy", reference, n);
  EXPECT_EQ(cli.expect_ok("verify g.el reference.npy").rfind("ok (within ", 0), 0u);
  // A few ulps off in one cell: rounding, accepted.
  std::vector<W> rounded = good;
  rounded[finite] += 4 * eps * std::fabs(good[finite]);
  rounded[n + 1] = 2 * eps;  // a diagonal entry near 0
  write_real_npy(cli.dir() / "rounded.npy", rounded, n);
  EXPECT_EQ(cli.expect_ok("verify g.el rounded.npy").rfind("ok (within ", 0), 0u);
  // Far beyond n * epsilon, yet a small relative change: a violation.
  std::vector<W> violated = good;
  violated[finite] += static_cast<W>(std::fabs(good[finite]) * 1000 * static_cast<double>(n) * eps);
  write_real_npy(cli.dir() / "violated.npy", violated, n);
  cli.expect_error("verify g.el violated.npy", 2, "violated.npy: d[0][" + std::to_string(finite) + "] = ");
  cli.expect_error("verify g.el violated.npy", 2, "beyond the rounding tolerance");
  cli.expect_error("verify g.el violated.npy", 2, "n * epsilon(" + type + ")");
  // The same in text, read in the type named.
  std::string text;
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      char cell[32];
      const W v = violated[i * n + j];
      text += std::isinf(v) ? std::string("inf") : std::string(cell, std::to_chars(cell, cell + 32, v).ptr);
      text += j + 1 < n ? " " : "\n";
    }
  }
  cli.write_text("violated.txt", text);
  cli.expect_error("verify g.el violated.txt --weights " + type, 2, "beyond the rounding tolerance");
}

TEST_F(CliRealDistances, VerifyOfRealDistancesAcceptsRoundingAndRejectsAViolation) {
  const GraphF64 g = real_case_with_negative_weights();
  io::write_graph(path("g.el"), g);
  verify_tolerance<float>(*this, g, "float32");
  verify_tolerance<double>(*this, g, "float64");
}

// A matrix of one weight type checked against a graph of another is a clear
// error naming both, never a silent answer; the conversions that are made are
// well defined (an integer graph takes a float matrix's type, as solve
// --weights converts it).
TEST_F(CliRealDistances, VerifyAndPathRefuseMismatchedWeightTypes) {
  const GraphF64 real = real_case_with_negative_weights();
  io::write_graph(path("real.el"), real);
  write_text("int.el", "0 1 2\n1 2 -1\n2 0 5\n# vertices: 4\n");
  expect_ok("solve int.el -o int.bin");
  expect_ok("solve int.el -o int.txt");
  expect_ok("solve int.el --weights float32 -o f32.npy");
  expect_ok("solve int.el --weights float64 -o f64.txt");
  expect_ok("solve int.el --weights float32 -o f32.raw --out-format bin-f32");
  expect_ok("solve real.el --weights float32 -o real32.npy");

  // A float matrix under a named type that differs.
  expect_error("verify real.el real32.npy --weights float64", 2,
               "real32.npy: the distance matrix holds float32 values but --weights is float64");
  expect_error("path real.el real32.npy --weights float64 --from 0 --to 1", 2,
               "holds float32 values but --weights is float64");
  expect_error("verify int.el f32.raw --dist-format bin-f32 --weights int32", 2,
               "holds float32 values but --weights is int32");
  // int32 distances of a real-valued graph (the sizes differ too, but the
  // types are named first).
  write_text("real4.el", "0 1 0.5\n1 2 -0.25\n# vertices: 4\n");
  expect_error("verify real4.el int.bin", 2,
               "int.bin: the distance matrix holds int32 values but the graph has real "
               "weights (float64)");
  expect_error("path real4.el int.bin --from 0 --to 1", 2, "holds int32 values but the graph has real weights");
  // Text stores no type: real text read as the int32 of an integer graph.
  expect_error("verify int.el f64.txt", 2, "is a real value, not an int32 distance");
  expect_error("verify real4.el int.txt --weights int32", 2, "weight '0.5' is not an integer inside int32");
  // A raw real matrix named as the other real type cannot pass for one.
  expect_error("verify int.el f32.raw --dist-format bin-f64", 2, "float64 values");
  expect_error("verify int.el f32.raw", 1, "name the format");

  // Well-defined: an integer graph with a float matrix takes the matrix's type.
  EXPECT_EQ(expect_ok("verify int.el f32.npy"), "ok (within 4.77e-07 relative: n * epsilon(float32))\n");
  EXPECT_EQ(expect_ok("path int.el f32.npy --from 0 --to 2"), "0 -> 1 -> 2\nweight 1\n");
  EXPECT_EQ(expect_ok("verify int.el f32.raw --dist-format bin-f32"),
            "ok (within 4.77e-07 relative: n * epsilon(float32))\n");
  EXPECT_EQ(expect_ok("verify int.el f64.txt --weights float64"),
            "ok (within 8.88e-16 relative: n * epsilon(float64))\n");
  // int32 text of an integer graph read as float64 (INF is +infinity).
  EXPECT_EQ(expect_ok("verify int.el int.txt --weights float64"),
            "ok (within 8.88e-16 relative: n * epsilon(float64))\n");
  EXPECT_EQ(expect_ok("verify int.el int.bin"), "ok\n");
}

TEST_F(Cli, GenIsDeterministicAndWritesWhatItSays) {
  expect_ok("gen rmat -n 128 --seed 5 -o a.bin");
  expect_ok("gen rmat -n 128 --seed 5 -o b.bin");
  expect_ok("gen rmat -n 128 --seed 6 -o c.bin");
  EXPECT_EQ(read_text("a.bin"), read_text("b.bin"));
  EXPECT_NE(read_text("a.bin"), read_text("c.bin"));
  for (const char* kind : {"random", "scale-free", "rmat", "grid", "dense"}) {
    SCOPED_TRACE(kind);
    const std::string out =
        expect_ok(std::string("gen ") + kind + " -n 40 --density 0.3 --degree 2 --weights=-5:20 --seed 1 -o k.gr");
    EXPECT_NE(out.find("n = 40"), std::string::npos) << out;
    const Graph g = io::read_graph(path("k.gr"));
    EXPECT_EQ(g.n, 40);
    EXPECT_GT(g.edges.size(), 0u);
    EXPECT_TRUE(verify(normalize(g), test::reference_distances(g)).ok);
  }
  expect_ok("gen dense -n 30 --density 1 --seed 1 -o full.bin");
  EXPECT_EQ(io::read_graph(path("full.bin")).edges.size(), 30u * 29u);
}

// Bug 5: .npy wrote -1 for "no edge", so `gen --weights -3:9 -o g.npy` built
// the graph and then refused to write it. Now gen -> solve through .npy gives
// the reference distances; the text matrix, where -1 still means no edge, and
// the dense size limits are refused before anything is generated or written.
TEST_F(Cli, GenWithWeightMinusOneRoundTripsThroughNpy) {
  const Graph g = generated(GraphKind::random, 80, 120, -3, 9, 21);
  ASSERT_TRUE(std::any_of(g.edges.begin(), g.edges.end(), [](const Edge& e) { return e.w == -1; }));
  const auto reference = test::reference_distances(g);
  const auto counts = test::count_entries(reference, g.n);
  ASSERT_GT(counts.finite_off_diagonal, 0);
  ASSERT_GT(counts.unreachable, 0);
  expect_ok("gen random -n 80 -m 120 --weights -3:9 --seed 21 -o g.npy");
  expect_ok("solve g.npy -o d.bin --verify");
  std::int64_t n = 0;
  EXPECT_EQ(test::first_difference(reference, io::read_matrix(path("d.bin"), n), g.n), "");
  expect_error("gen random -n 80 -m 120 --weights -3:9 --seed 21 -o g.mat", 1, "weights -3:9 include -1");
  EXPECT_FALSE(fs::exists(path("g.mat")));
  expect_error("gen random -n 4097 -m 10 --seed 1 -o big.mat", 1, "4096");
  expect_error("gen random -n 16385 -m 10 --seed 1 -o big.npy", 1, "16384");
  EXPECT_FALSE(fs::exists(path("big.mat")));
  EXPECT_FALSE(fs::exists(path("big.npy")));
}

TEST_F(Cli, InfoListsBackendsAlgorithmsAndThreads) {
  const std::string info = expect_ok("info");
  for (const char* words :
       {"apsp ", "backends: cpu", "devices:", "algorithms (cpu): fw-seq", "johnson", "openmp max threads: "})
    EXPECT_NE(info.find(words), std::string::npos) << "missing '" << words << "' in\n" << info;
}

// ---- parts of the matrix: sources x targets, cutoff, nearest, output type ----

// A rows x cols int32 matrix as solve writes it in `format` (bin: raw; npy:
// after its header; txt: rows of numbers, INF for kInf), -1 values on a parse failure.
std::vector<std::int32_t> read_part(const std::string& file, const std::string& format, std::size_t cells) {
  std::ifstream in(file, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::int32_t> values;
  if (format == "txt") {
    std::istringstream text(bytes);
    std::string token;
    while (text >> token) values.push_back(token == "INF" ? kInf : std::stoi(token));
    return values;
  }
  if (bytes.size() < cells * 4) return values;
  values.resize(cells);
  std::memcpy(values.data(), bytes.data() + bytes.size() - cells * 4, cells * 4);
  return values;
}

TEST_F(Cli, SourcesByTargetsOnEveryMatrixFormat) {
  const Graph g = generated(GraphKind::random, 70, 200, -5, 50, 4);
  const auto reference = test::reference_distances(g);
  expect_ok("gen random -n 70 -m 200 --weights=-5:50 --seed 4 -o g.gr");
  // One unreachable pair (s, t) joins the chosen ones.
  vertex_t s = 0, t = 0;
  for (std::int64_t x = 0; x < 70 * 70; ++x)
    if (reference[static_cast<std::size_t>(x)] == kInf) {
      s = static_cast<vertex_t>(x / 70);
      t = static_cast<vertex_t>(x % 70);
    }
  ASSERT_NE(s, t);
  write_text("targets.txt", "# the targets\n69 0, 5\n5 33 # again\n" + std::to_string(t) + "\n");
  const std::vector<vertex_t> sources = {69, 3, 3, 10, 11, 12, s}, targets = {69, 0, 5, 5, 33, t};
  const std::string source_list = "69,3,3,10-12," + std::to_string(s);
  for (const char* format : {"bin", "npy", "txt"}) {
    SCOPED_TRACE(format);
    const std::string out = std::string("d.") + format;
    const std::string summary =
        expect_ok("solve g.gr --sources " + source_list + " --targets targets.txt --threads 2 -o " + out);
    EXPECT_NE(summary.find("7 sources x 6 targets"), std::string::npos) << summary;
    if (std::string(format) == "npy") EXPECT_NE(read_text(out).find("'shape': (7, 6)"), std::string::npos);
    const auto got = read_part(path(out), format, 42);
    ASSERT_EQ(got.size(), 42u);
    std::int64_t finite = 0, unreachable = 0;
    for (std::size_t r = 0; r < 7; ++r)
      for (std::size_t k = 0; k < 6; ++k) {
        const dist_t want = reference[sources[r] * 70 + targets[k]];
        EXPECT_EQ(got[r * 6 + k], want) << "source " << sources[r] << " target " << targets[k];
        (want == kInf ? unreachable : finite) += 1;
      }
    EXPECT_GT(finite, 0);
    EXPECT_GT(unreachable, 0);
  }
  // fw computes every row: the chosen ones are sliced out, the same entries.
  expect_ok("solve g.gr --algo fw-blocked --sources " + source_list + " --targets targets.txt -o fw.bin");
  EXPECT_EQ(read_part(path("fw.bin"), "bin", 42), read_part(path("d.bin"), "bin", 42));
  expect_error("solve g.gr --sources 3,70 -o x.bin", 1, "--sources: vertex 70 is outside the graph's vertices 0..69");
  expect_error("solve g.gr --targets nothere.txt -o x.bin", 2, "nothere.txt");
  write_text("bad.txt", "1 2\nthree\n");
  expect_error("solve g.gr --targets bad.txt -o x.bin", 2, "bad.txt:2");
  EXPECT_FALSE(fs::exists(path("x.bin")));
}

TEST_F(Cli, CutoffAndNearestWriteTheKeptPairsAsAGraphFile) {
  const Graph g = generated(GraphKind::random, 70, 300, 1, 50, 6);
  const auto reference = test::reference_distances(g);
  expect_ok("gen random -n 70 -m 300 --weights 1:50 --seed 6 -o g.bin");
  for (const char* ext : {"txt", "mtx", "gr"}) {
    SCOPED_TRACE(ext);
    const std::string out = std::string("kept.") + ext;
    const std::string summary = expect_ok("solve g.bin --cutoff 40 --sources 0-9 -o " + out);
    EXPECT_NE(summary.find("kept"), std::string::npos) << summary;
    const Graph kept = io::read_graph(path(out));
    std::set<std::pair<vertex_t, vertex_t>> seen;
    for (const Edge& e : kept.edges) {
      EXPECT_EQ(e.w, reference[e.src * 70 + e.dst]) << e.src << " -> " << e.dst;
      EXPECT_LE(e.w, 40);
      EXPECT_LT(e.src, 10);
      seen.insert({e.src, e.dst});
    }
    std::size_t within = 0, beyond = 0;
    for (vertex_t s = 0; s < 10; ++s)
      for (vertex_t t = 0; t < 70; ++t) (reference[s * 70 + t] <= 40 ? within : beyond) += 1;
    EXPECT_EQ(seen.size(), within);
    EXPECT_EQ(kept.edges.size(), within);
    EXPECT_GT(beyond, 0u);
  }
  expect_ok("solve g.bin --nearest 3 -o near.txt");
  const Graph near = io::read_graph(path("near.txt"));
  std::vector<int> per_source(70, 0);
  for (const Edge& e : near.edges) {
    ++per_source[static_cast<std::size_t>(e.src)];
    // No unkept target of the source is nearer.
    std::int64_t nearer = 0;
    for (vertex_t t = 0; t < 70; ++t) nearer += reference[e.src * 70 + t] < e.w;
    EXPECT_LT(nearer, 3) << e.src << " -> " << e.dst;
  }
  for (vertex_t s = 0; s < 70; ++s) {
    std::int64_t reachable = 0;
    for (vertex_t t = 0; t < 70; ++t) reachable += reference[s * 70 + t] != kInf;
    EXPECT_EQ(per_source[static_cast<std::size_t>(s)], std::min<std::int64_t>(3, reachable)) << s;
  }
  expect_error("solve g.bin --cutoff 5 --predecessors p.bin -o k.txt", 1, "--predecessors");
  expect_error("solve g.bin --nearest 3 -o k.npyy", 1, "npyy");
}

TEST_F(Cli, PathForManyPairsFromAFileWithAndWithoutPredecessors) {
  write_text("g.txt", "0 1 2\n1 2 3\n0 2 9\n3 0 1\n");
  expect_ok("solve g.txt -o d.txt --predecessors p.bin");
  write_text("pairs.txt", "0 2\n# a comment\n\n2 0\n3 2  # the last\n");
  const std::string want = "0 2: 0 -> 1 -> 2; weight 5\n2 0: unreachable\n3 2: 3 -> 0 -> 1 -> 2; weight 6\n";
  EXPECT_EQ(expect_ok("path g.txt d.txt --pairs pairs.txt"), want);
  EXPECT_EQ(expect_ok("path g.txt d.txt --pairs pairs.txt --predecessors p.bin"), want);
  write_text("bad.txt", "0 2\n1\n");
  expect_error("path g.txt d.txt --pairs bad.txt", 2, "bad.txt:2: expected two vertex ids");
  write_text("far.txt", "0 2\n0 7\n");
  expect_error("path g.txt d.txt --pairs far.txt", 2, "to 7 is outside 0..3");
  expect_error("path g.txt d.txt --pairs pairs.txt --from 0", 1, "not both");
  expect_error("path g.txt d.txt --from 0", 1, "--to");
}

TEST_F(Cli, OutputTypeConvertsStatesLossAndRefusesInexactInt32) {
  write_text("real.txt", "0 1 0.1\n1 2 0.2\n2 0 1.7\n# vertices: 4\n");
  std::string summary = expect_ok("solve real.txt --output-type float32 -o d.npy");
  EXPECT_NE(summary.find("float32 (lossy: rounded from float64)"), std::string::npos) << summary;
  EXPECT_NE(summary.find("float64 is the narrowest output type"), std::string::npos) << summary;
  EXPECT_NE(summary.find("float32 halves it, rounded (lossy)"), std::string::npos) << summary;
  EXPECT_NE(read_text("d.npy").find("'<f4'"), std::string::npos);
  // One row holds the only inexact distances, in column order: the error
  // names the same one whichever thread finishes first.
  write_text("half.txt", "0 1 0.5\n1 2 2\n");
  expect_error("solve half.txt --output-type int32 -o i.npy", 1, "--output-type: the distance 0.5 (row 0, column 1)");
  EXPECT_FALSE(fs::exists(path("i.npy")));
  expect_error("solve half.txt --output-type int16 -o i.npy", 1, "int16 output would not be exact");
  EXPECT_FALSE(fs::exists(path("i.npy")));
  expect_error("solve real.txt --output-type int8 -o i.npy", 1, "--output-type");
  write_text("ints.txt", "0 1 1.0\n1 2 3.0\n");  // real tokens (float64 weights), integer distances
  summary = expect_ok("solve ints.txt --output-type int32 -o i.bin");
  EXPECT_NE(summary.find("int32 (exact)"), std::string::npos) << summary;
  EXPECT_EQ(read_part(path("i.bin"), "bin", 9), (std::vector<std::int32_t>{0, 1, 4, kInf, 0, 3, kInf, kInf, 0}));
  summary = expect_ok("solve ints.txt -o i.npy");
  EXPECT_NE(summary.find("int16 is the narrowest output type"), std::string::npos) << summary;
  // int16: exact below 2^15 - 1, INF in text, 32767 in binary; .bin (int32 only) refused.
  summary = expect_ok("solve ints.txt --output-type int16 -o s.txt");
  EXPECT_NE(summary.find("int16 (exact)"), std::string::npos) << summary;
  EXPECT_EQ(read_text("s.txt"), "0 1 4\nINF 0 3\nINF INF 0\n");
  expect_ok("solve ints.txt --output-type int16 -o s.npy");
  const std::string npy = read_text("s.npy");
  EXPECT_NE(npy.find("'<i2'"), std::string::npos);
  std::vector<std::int16_t> cells(9);
  ASSERT_GE(npy.size(), 18u);
  std::memcpy(cells.data(), npy.data() + npy.size() - 18, 18);
  EXPECT_EQ(cells, (std::vector<std::int16_t>{0, 1, 4, kOutputInf16, 0, 3, kOutputInf16, kOutputInf16, 0}));
  expect_error("solve ints.txt --output-type int16 -o s.bin", 1, "int32 values");
  write_text("far.txt", "0 1 30000\n1 2 30000\n");
  summary = expect_ok("solve far.txt -o f.npy");
  EXPECT_NE(summary.find("int32 is the narrowest output type"), std::string::npos) << summary;
  expect_error("solve far.txt --output-type int16 -o f16.npy", 1, "the distance 60000 (row 0, column 2)");
}

}  // namespace
}  // namespace apsp

namespace apsp {
namespace {

// --weights on solve: auto keeps int32 for integer files and takes float64
// for real ones; named types convert; the summary shows the weight type;
// real results go to text with round-trip values and to .bin only when named.
class CliRealWeights : public test::ScratchDirTest {
 protected:
  int run(const std::string& args, std::string* out = nullptr, std::string* err = nullptr) const {
    const std::string shell = "cd '" + dir_.string() + "' && '" APSP_CLI_PATH "' " + args +
                              " </dev/null >stdout.log 2>stderr.log";
    const int raw = std::system(shell.c_str());
    if (out) *out = read_text("stdout.log");
    if (err) *err = read_text("stderr.log");
    return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  }
};

TEST_F(CliRealWeights, AutoTypeTextOutputVerifyAndSummary) {
  write_text("g.txt", "0 1 0.1\n1 2 0.2\n2 0 -0.25\n");
  std::string out, err;
  ASSERT_EQ(run("solve g.txt -o d.txt --predecessors p.txt --verify", &out, &err), 0) << err;
  EXPECT_NE(out.find("weights          float64"), std::string::npos) << out;
  EXPECT_NE(out.find("verify: ok (within"), std::string::npos) << out;
  // The CPU's auto pick is noted for real weights as for int32 (issue 20, defect 16).
  EXPECT_NE(out.find("note             auto picked "), std::string::npos) << out;
  EXPECT_EQ(read_text("d.txt"), "0 0.1 0.30000000000000004\n-0.04999999999999999 0 0.2\n-0.25 -0.15 0\n");
  // Every algorithm agrees in float32 within rounding (each sums in its own order).
  const double expected[9] = {0, 0.1, 0.3, -0.05, 0, 0.2, -0.25, -0.15, 0};
  for (const char* algo : {"fw-seq", "fw-blocked", "bellman-ford", "johnson"}) {
    SCOPED_TRACE(algo);
    ASSERT_EQ(run(std::string("solve g.txt --weights float32 -o f.txt --algo ") + algo, &out, &err), 0) << err;
    EXPECT_NE(out.find("weights          float32"), std::string::npos) << out;
    std::istringstream text(read_text("f.txt"));
    for (const double e : expected) {
      double value = 1e300;
      text >> value;
      EXPECT_NEAR(value, e, 1e-6);
    }
  }
  write_text("i.txt", "0 1 2\n1 2 3\n");
  ASSERT_EQ(run("solve i.txt", &out), 0);
  EXPECT_NE(out.find("weights          int32"), std::string::npos) << out;
  EXPECT_NE(out.find("precision        int32"), std::string::npos) << out;
  ASSERT_EQ(run("solve i.txt --weights float64 -o i.npy", &out), 0);
  EXPECT_NE(read_text("i.npy").find("'<f8'"), std::string::npos);
}

TEST_F(CliRealWeights, GenRealWritesGraphsThatSolveAsFloat64) {
  std::string out, err;
  ASSERT_EQ(run("gen random -n 60 --weights -3:9 --real 3 --seed 5 -o r.gr", &out, &err), 0) << err;
  EXPECT_NE(out.find("weights -3:9 real, 3 decimals"), std::string::npos) << out;
  EXPECT_NE(read_text("r.gr").find("."), std::string::npos);
  for (const char* algo : {"fw-blocked", "johnson", "bellman-ford"}) {
    ASSERT_EQ(run(std::string("solve r.gr --verify --algo ") + algo, &out, &err), 0) << err;
    EXPECT_NE(out.find("weights          float64"), std::string::npos) << out;
  }
  EXPECT_EQ(run("gen random -n 10 --real 2 --seed 1 -o r.bin", nullptr, &err), 1);
  EXPECT_NE(err.find("holds integer weights"), std::string::npos) << err;
  EXPECT_EQ(run("gen random -n 10 --real 7 --seed 1 -o r.gr", nullptr, &err), 1);
}

TEST_F(CliRealWeights, RefusalsAreOneLineWithTheirExitCode) {
  write_text("g.gr", "p sp 3 2\na 1 2 0.5\na 2 3 1e\n");
  std::string err;
  EXPECT_EQ(run("solve g.gr", nullptr, &err), 2);
  EXPECT_EQ(err, "apsp: g.gr:3: expected a number for the weight, found '1e'\n");
  write_text("g.txt", "0 1 0.5\n1 2 2\n");
  EXPECT_EQ(run("solve g.txt --weights int32", nullptr, &err), 2);
  EXPECT_EQ(err, "apsp: g.txt:1: weight '0.5' is not an integer inside int32; real weights need the float32 or "
                 "float64 weight type\n");
  EXPECT_EQ(run("solve g.txt --weights f16", nullptr, &err), 1);
  EXPECT_EQ(err, "apsp: --weights: unknown weight type 'f16' (expected int32, float32 or float64)\n");
  EXPECT_EQ(run("solve g.txt -o d.bin", nullptr, &err), 1);
  EXPECT_NE(err.find("the NTHU .bin format holds int32 values; name the format bin-f64"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(dir_ / "d.bin"));
  EXPECT_EQ(run("solve g.txt -o d.bin --out-format bin-f64", nullptr, &err), 0) << err;
  EXPECT_EQ(fs::file_size(dir_ / "d.bin"), 9 * sizeof(double));
  // The distributed solver takes real weights (issue 22): the same file as one process.
  EXPECT_EQ(run("solve g.txt --weights float64 -o one.npy", nullptr, &err), 0) << err;
  EXPECT_EQ(run("solve g.txt --weights float64 --distribution rows -o dd.npy", nullptr, &err), 0) << err;
  EXPECT_EQ(read_text("dd.npy"), read_text("one.npy"));
}
}  // namespace
}  // namespace apsp

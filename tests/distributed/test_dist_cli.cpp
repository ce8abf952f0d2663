// `apsp solve` distributed, run as real processes under mpirun (through
// tests/distributed/run-mpi): outputs equal the single-process fw-blocked files on
// 1, 2, 3, 4 and 6 ranks, every failure ends every rank with one `apsp:` line
// and a non-zero exit within the time limit, and no output or temporary file
// is left behind. Skips, saying why, where mpirun is absent.
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "apsp/cuda.hpp"

namespace apsp {
namespace {

namespace fs = std::filesystem;

// Every command runs under coreutils' timeout: a hang fails the test instead
// of stalling the suite.
constexpr int kLimitSeconds = 120;

struct ProcessRun {
  std::string command;
  int status = -1;  // exit code, or 128 + signal
  std::string out, err;
  double seconds = 0;
};

std::ostream& operator<<(std::ostream& os, const ProcessRun& r) {
  return os << "\n  command: " << r.command << "\n  exit: " << r.status << " after " << r.seconds
            << " s\n  stdout: " << r.out << "\n  stderr: " << r.err;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

int count_lines_starting(const std::string& text, const std::string& prefix) {
  int count = 0;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = text.find('\n', at);
    if (text.compare(at, prefix.size(), prefix) == 0) ++count;
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return count;
}

class DistributedCli : public ::testing::Test {
 protected:
  static bool have_mpirun() { return !std::string(APSP_MPIRUN).empty() && access(APSP_MPIRUN, X_OK) == 0; }

  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("apsp_dist_cli_" + std::string(info->name()) + "_" + std::to_string(static_cast<long>(getpid())));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure() && !dir_.empty()) fs::remove_all(dir_);
  }


  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  ProcessRun shell(const std::string& what, const std::string& command) const {
    ProcessRun r;
    r.command = what;
    const std::string line = "cd '" + dir_.string() + "' && timeout " + std::to_string(kLimitSeconds) + " " + command +
                             " </dev/null >stdout.log 2>stderr.log";
    const auto start = std::chrono::steady_clock::now();
    const int raw = std::system(line.c_str());
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + (WIFSIGNALED(raw) ? WTERMSIG(raw) : 0);
    r.out = slurp(dir_ / "stdout.log");
    r.err = slurp(dir_ / "stderr.log");
    return r;
  }
  ProcessRun apsp(const std::string& args) const { return shell("apsp " + args, "'" APSP_CLI_PATH "' " + args); }
  // `env` ("env NAME=VALUE") goes before mpirun, which passes it to its
  // ranks; `launcher` (e.g. "--bind-to none") goes to mpirun itself.
  ProcessRun mpirun(int ranks, const std::string& args, const std::string& env = {},
                    const std::string& launcher = {}) const {
    return shell("mpirun -np " + std::to_string(ranks) + " " + launcher + " apsp " + args,
                 kMpiEnvironment + env + " '" APSP_RUN_MPI "' '" APSP_MPIRUN "' " + std::to_string(ranks) + " " +
                     launcher + " '" APSP_CLI_PATH "' " + args);
  }
  // Open MPI's own allocations are not ours to fix: no leak report from
  // sanitizer builds of the ranks.
  static constexpr const char* kMpiEnvironment = "env ASAN_OPTIONS=detect_leaks=0 ";

  // A graph of 300 vertices (5 tiles of 64, the last partial) with negative
  // weights, and its single-process fw-blocked result in ref.bin / refp.bin.
  void make_graph_and_reference() const {
    ASSERT_EQ(apsp("gen random -n 300 -m 1500 --weights -10:60 --seed 5 -o g.bin").status, 0);
    const ProcessRun ref = apsp("solve g.bin --algo fw-blocked --threads 1 -o ref.bin --predecessors refp.bin");
    ASSERT_EQ(ref.status, 0) << ref;
  }

  // Nothing but the inputs and logs: no output, no temporary file.
  void expect_no_output_files() const {
    for (const auto& entry : fs::directory_iterator(dir_)) {
      const std::string name = entry.path().filename().string();
      EXPECT_TRUE(name == "g.bin" || name == "bad.bin" || name == "cycle.txt" || name == "ref.bin" ||
                  name == "refp.bin" || name.size() > 4 && name.substr(name.size() - 4) == ".log")
          << "left behind: " << name;
    }
  }

  fs::path dir_;
};
#define SKIP_WITHOUT_MPIRUN() \
  if (!have_mpirun()) GTEST_SKIP() << "mpirun not found at configure time (scripts/setup-deps installs Open MPI)"

TEST_F(DistributedCli, EveryRankCountAndLayoutWritesTheSingleProcessResult) {
  SKIP_WITHOUT_MPIRUN();
  make_graph_and_reference();
  struct Launch {
    int ranks;
    std::string options;
  };
  const Launch launches[] = {
      {1, "--distribution rows"},
      {2, "--distribution rows"},
      {2, "--distribution 2d"},
      {2, "--distribution 2d --grid 2x1"},
      {3, "--distribution 2d --grid 1x3 --no-lookahead"},
      {3, ""},
      {4, "--distribution 2d"},
      {4, "--distribution rows --no-lookahead"},
      {6, "--distribution 2d --grid 2x3 --verify"},
      {6, "--distribution 2d --grid 3x2 --no-lookahead"},
      {6, "--distribution rows"},
  };
  for (const Launch& l : launches) {
    const ProcessRun r = mpirun(l.ranks, "solve g.bin " + l.options + " --threads 1 -o d.bin --predecessors p.bin");
    ASSERT_EQ(r.status, 0) << r;
    EXPECT_EQ(slurp(dir_ / "d.bin"), slurp(dir_ / "ref.bin")) << r;
    EXPECT_EQ(slurp(dir_ / "p.bin"), slurp(dir_ / "refp.bin")) << r;
    EXPECT_EQ(count_lines_starting(r.out, "apsp solve g.bin (distributed)"), 1) << r;  // rank 0 only
    EXPECT_NE(r.out.find("communicator     mpi, " + std::to_string(l.ranks) + " rank"), std::string::npos) << r;
    for (const char* row : {"  grid ", "  compute ", "  communication ", "  wait ", "min / median / max"})
      EXPECT_NE(r.out.find(row), std::string::npos) << row << r;
    EXPECT_EQ(r.err, "") << r;
    if (l.options.find("--verify") != std::string::npos)
      EXPECT_NE(r.out.find("\nverify: ok\n"), std::string::npos) << r;
    fs::remove(dir_ / "d.bin");
    fs::remove(dir_ / "p.bin");
  }
  const ProcessRun grid = mpirun(6, "solve g.bin --distribution 2d --threads 1");
  EXPECT_NE(grid.out.find("2 x 3 (2d)"), std::string::npos) << grid;
}

// Out of core per rank, forced (--super-width): distances are fw-blocked's,
// predecessors fw-ooc's at its width 128; the summary says so; a width that is
// no multiple of 64 is refused.
TEST_F(DistributedCli, SuperWidthRunsFwOocsSuperRoundsOnEveryRank) {
  make_graph_and_reference();
  const ProcessRun ooc = apsp("solve g.bin --algo fw-ooc --threads 1 -o oocd.bin --predecessors oocp.bin");
  ASSERT_EQ(ooc.status, 0) << ooc;
  EXPECT_EQ(slurp(dir_ / "oocd.bin"), slurp(dir_ / "ref.bin"));
  const ProcessRun one =
      apsp("solve g.bin --distribution rows --super-width 128 --threads 1 -o d.bin --predecessors p.bin");
  ASSERT_EQ(one.status, 0) << one;
  EXPECT_EQ(slurp(dir_ / "d.bin"), slurp(dir_ / "ref.bin")) << one;
  EXPECT_EQ(slurp(dir_ / "p.bin"), slurp(dir_ / "oocp.bin")) << one;
  EXPECT_NE(one.out.find("out of core      super-rounds of 128"), std::string::npos) << one;
  const ProcessRun bad = apsp("solve g.bin --distribution rows --super-width 100 --threads 1 -o e.bin");
  EXPECT_EQ(bad.status, 1) << bad;
  EXPECT_NE(bad.err.find("not a positive multiple of 64"), std::string::npos) << bad;
  EXPECT_FALSE(fs::exists(dir_ / "e.bin"));
  const ProcessRun single = apsp("solve g.bin --super-width 128 --threads 1 -o e.bin");
  EXPECT_EQ(single.status, 1) << single;
  EXPECT_NE(single.err.find("is for the distributed solver"), std::string::npos) << single;
  const ProcessRun rows = apsp("solve g.bin --distribution rows --algo dijkstra --super-width 128 -o e.bin");
  EXPECT_EQ(rows.status, 1) << rows;
  EXPECT_NE(rows.err.find("the row split of dijkstra holds rows"), std::string::npos) << rows;
  EXPECT_FALSE(fs::exists(dir_ / "e.bin"));
  if (!have_mpirun()) return;
  for (const std::string& options : {std::string("--distribution rows --super-width 128"),
                                     std::string("--distribution 2d --super-width 192 --no-lookahead")}) {
    fs::remove(dir_ / "d.bin");
    fs::remove(dir_ / "p.bin");
    const ProcessRun r = mpirun(3, "solve g.bin " + options + " --threads 1 -o d.bin --predecessors p.bin --verify");
    ASSERT_EQ(r.status, 0) << r;
    EXPECT_EQ(slurp(dir_ / "d.bin"), slurp(dir_ / "ref.bin")) << r;
    if (options.find("128") != std::string::npos) EXPECT_EQ(slurp(dir_ / "p.bin"), slurp(dir_ / "oocp.bin")) << r;
    EXPECT_NE(r.out.find("\nverify: ok\n"), std::string::npos) << r;
  }
}

// .npy from every rank through the shared file sink, as one process writes it.
TEST_F(DistributedCli, NpyOutputEqualsTheSingleProcessFile) {
  SKIP_WITHOUT_MPIRUN();
  make_graph_and_reference();
  const ProcessRun ref = apsp("solve g.bin --algo fw-blocked --threads 1 -o ref.npy --predecessors refp.npy");
  ASSERT_EQ(ref.status, 0) << ref;
  const ProcessRun r = mpirun(3, "solve g.bin --distribution 2d --threads 1 -o d.npy --predecessors p.npy");
  ASSERT_EQ(r.status, 0) << r;
  EXPECT_EQ(slurp(dir_ / "d.npy"), slurp(dir_ / "ref.npy")) << r;
  EXPECT_EQ(slurp(dir_ / "p.npy"), slurp(dir_ / "refp.npy")) << r;
}

TEST_F(DistributedCli, DistributionWithoutMpirunRunsOneRank) {
  make_graph_and_reference();
  const ProcessRun r = apsp("solve g.bin --distribution 2d --threads 1 -o d.bin");
  ASSERT_EQ(r.status, 0) << r;
  EXPECT_EQ(slurp(dir_ / "d.bin"), slurp(dir_ / "ref.bin"));
  EXPECT_NE(r.out.find("communicator     single, 1 rank"), std::string::npos) << r;
}

// --algorithm under the distributed solver takes the registry's distributable
// entries (and auto), and refuses the others naming them.
TEST_F(DistributedCli, AlgorithmNamesComeFromTheRegistrysDistributableColumn) {
  make_graph_and_reference();
  const ProcessRun named = apsp("solve g.bin --distribution rows --algo fw-blocked --threads 1 -o d.bin");
  ASSERT_EQ(named.status, 0) << named;
  EXPECT_EQ(slurp(dir_ / "d.bin"), slurp(dir_ / "ref.bin"));
  const ProcessRun teaching = apsp("solve g.bin --distribution rows --algo fw-seq --threads 1 -o e.bin");
  EXPECT_EQ(teaching.status, 1) << teaching;
  EXPECT_NE(teaching.err.find("the distributed solver runs blocked Floyd-Warshall (auto, fw-blocked or fw) or a "
                              "per-source algorithm's row split, not 'fw-seq'"),
            std::string::npos)
      << teaching;
  EXPECT_FALSE(fs::exists(dir_ / "e.bin"));
}

// Rank 0 alone reads the input and broadcasts the normalized graph (issue
// 22, item 5): the other ranks' input paths are never opened (an MPMD
// launch naming a missing file there still writes the single-process
// result), and a parse error on rank 0 is every rank's, reported once
// without a rank (exit 2).
TEST_F(DistributedCli, RankZeroReadsTheInputForEveryRank) {
  SKIP_WITHOUT_MPIRUN();
  make_graph_and_reference();
  {
    std::ofstream bad(dir_ / "bad.bin", std::ios::binary);
    bad << slurp(dir_ / "g.bin").substr(0, 20);
  }
  const auto mpmd = [&](const std::string& rank0_input, const std::string& others_input) {
    return shell("mpirun -np 1 apsp solve " + rank0_input + " : -np 2 apsp solve " + others_input,
                 std::string(kMpiEnvironment) + "'" APSP_RUN_MPI "' '" APSP_MPIRUN "' 1 '" APSP_CLI_PATH "' solve " +
                     rank0_input + " --distribution 2d --threads 1 -o d.bin --predecessors p.bin : -np 2 '" +
                     APSP_CLI_PATH + "' solve " + others_input +
                     " --distribution 2d --threads 1 -o d.bin --predecessors p.bin");
  };
  const ProcessRun good = mpmd("g.bin", "missing.bin");
  ASSERT_EQ(good.status, 0) << good;
  EXPECT_EQ(slurp(dir_ / "d.bin"), slurp(dir_ / "ref.bin"));
  EXPECT_EQ(slurp(dir_ / "p.bin"), slurp(dir_ / "refp.bin"));
  EXPECT_NE(good.out.find("    parse (rank 0) "), std::string::npos) << good;
  EXPECT_NE(good.out.find("    broadcast "), std::string::npos) << good;
  fs::remove(dir_ / "d.bin");
  fs::remove(dir_ / "p.bin");

  const ProcessRun r = mpmd("bad.bin", "g.bin");
  EXPECT_EQ(r.status, 2) << r;
  EXPECT_EQ(count_lines_starting(r.err, "apsp: "), 1) << r;
  EXPECT_NE(r.err.find("apsp: bad.bin@20: truncated"), std::string::npos) << r;
  EXPECT_EQ(r.err.find("apsp: rank"), std::string::npos) << r;
  expect_no_output_files();
}

TEST_F(DistributedCli, FailureOfOneRankMidSolveAbortsEveryRank) {
  SKIP_WITHOUT_MPIRUN();
  make_graph_and_reference();
  for (const char* layout : {"rows", "2d"}) {
    const ProcessRun r = mpirun(3, std::string("solve g.bin --distribution ") + layout + " --threads 1 -o d.bin",
                                "env APSP_TEST_FAIL_RANK=1");
    EXPECT_NE(r.status, 0) << r;
    EXPECT_NE(r.status, 124) << "timed out" << r;
    EXPECT_EQ(count_lines_starting(r.err, "apsp: "), 1) << r;
    EXPECT_NE(r.err.find("apsp: rank 1: injected failure on rank 1"), std::string::npos) << r;
    expect_no_output_files();
  }
}

// True while `pid` runs (a zombie, never reaped where no init reaps
// orphans, counts as ended).
bool running(long pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return false;
  const std::size_t paren = text.rfind(')');
  return paren != std::string::npos && paren + 2 < text.size() && text[paren + 2] != 'Z';
}

// Hidden temporaries of the outputs d.bin and p.bin in `dir`.
int temporaries_in(const fs::path& dir) {
  int found = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    found += name.rfind(".d.bin.", 0) == 0 || name.rfind(".p.bin.", 0) == 0;
  }
  return found;
}

// Issue 20, defect 2: a killed distributed solve left its full-size hidden
// temporaries (SIGTERM to mpirun; Ctrl-C with --distribution rows). Every
// rank pauses halfway through the rounds, its files begun
// (APSP_TEST_PAUSE_MIDWAY), and says so; the test waits for those lines,
// never for a time, then signals the run. SIGTERM and SIGINT remove the
// temporaries; SIGKILL cannot be caught, and the next output of the same
// file removes what the dead processes left.
TEST_F(DistributedCli, AKilledRunLeavesNoTemporary) {
  SKIP_WITHOUT_MPIRUN();
  make_graph_and_reference();
  const std::string outputs = " --threads 1 -o d.bin --predecessors p.bin";
  // Starts `command` in the background and returns its pid and the ranks'
  // pids once `ranks` of them have paused.
  const auto start_paused = [&](const std::string& command, int ranks) {
    std::vector<long> pids;
    // The last run's log would read as this one's until the shell starts it.
    fs::remove(dir_ / "bg.err.log");
    const std::string line = "cd '" + dir_.string() + "' && { env APSP_TEST_PAUSE_MIDWAY=1 " + command +
                             " </dev/null >bg.out.log 2>bg.err.log & echo $! >bg.pid.log; }";
    EXPECT_EQ(std::system(line.c_str()), 0);
    pids.push_back(std::stol(slurp(dir_ / "bg.pid.log")));
    // Each check reads the log; the deadline only ends a run that never pauses.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kLimitSeconds);
    std::string err;
    while (count_lines_starting(err = slurp(dir_ / "bg.err.log"), "paused midway") < ranks) {
      if (!running(pids.front()) || std::chrono::steady_clock::now() > deadline) {
        ADD_FAILURE() << command << " did not pause: " << err;
        return pids;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    for (std::size_t at = err.find(" pid "); at != std::string::npos; at = err.find(" pid ", at + 1))
      pids.push_back(std::stol(err.substr(at + 5)));
    return pids;
  };
  const auto wait_for_end = [&](const std::vector<long>& pids) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kLimitSeconds);
    for (const long pid : pids)
      while (running(pid) && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    for (const long pid : pids) EXPECT_FALSE(running(pid)) << "pid " << pid << " still runs";
  };
  const std::string mpi = std::string(kMpiEnvironment) + "'" APSP_RUN_MPI "' '" APSP_MPIRUN "' ";
  for (const char* layout : {"rows", "2d"}) {
    SCOPED_TRACE(layout);
    const std::vector<long> pids =
        start_paused(mpi + "2 '" APSP_CLI_PATH "' solve g.bin --distribution " + layout + outputs, 2);
    EXPECT_EQ(temporaries_in(dir_), 2) << "the ranks share named temporaries while they write";
    ::kill(static_cast<pid_t>(pids.front()), SIGTERM);  // to mpirun, which passes it on
    wait_for_end(pids);
    EXPECT_EQ(temporaries_in(dir_), 0);
    expect_no_output_files();
  }
  {
    // One rank, no mpirun: Ctrl-C. Its temporaries have no name to leave.
    const std::vector<long> pids = start_paused("'" APSP_CLI_PATH "' solve g.bin --distribution rows" + outputs, 1);
    EXPECT_EQ(temporaries_in(dir_), 0);
    ::kill(static_cast<pid_t>(pids.front()), SIGINT);
    wait_for_end(pids);
    EXPECT_EQ(temporaries_in(dir_), 0);
    expect_no_output_files();
  }
  {
    // SIGKILL to the ranks: their temporaries stay until the next output of
    // the same files on this host, which removes them (their pids are gone).
    const std::vector<long> pids = start_paused(mpi + "2 '" APSP_CLI_PATH "' solve g.bin" + outputs, 2);
    for (std::size_t r = 1; r < pids.size(); ++r) ::kill(static_cast<pid_t>(pids[r]), SIGKILL);
    wait_for_end(pids);
    EXPECT_EQ(temporaries_in(dir_), 2);
    const ProcessRun next = apsp("solve g.bin" + outputs);
    ASSERT_EQ(next.status, 0) << next;
    EXPECT_EQ(temporaries_in(dir_), 0);
    EXPECT_EQ(slurp(dir_ / "d.bin"), slurp(dir_ / "ref.bin"));
  }
}

TEST_F(DistributedCli, NegativeCycleSeenOffRankZeroIsReportedOnce) {
  SKIP_WITHOUT_MPIRUN();
  // Vertex 100 lies in tile 1: rank 1 of rows and of a 2 x 2 grid sees the
  // cycle 10 -> 100 -> 10 first.
  ASSERT_EQ(apsp("gen random -n 200 -m 800 --weights 1:20 --seed 9 -o cycle.txt").status, 0);
  std::ofstream(dir_ / "cycle.txt", std::ios::app) << "100 10 -5\n10 100 2\n";
  for (const char* layout : {"rows", "2d"}) {
    const ProcessRun r = mpirun(4, std::string("solve cycle.txt --distribution ") + layout + " --threads 1 -o d.bin");
    EXPECT_EQ(r.status, 2) << r;
    EXPECT_EQ(count_lines_starting(r.err, "apsp: "), 1) << r;
    EXPECT_NE(r.err.find("apsp: negative cycle through vertex 100"), std::string::npos) << r;
    expect_no_output_files();
  }
}

// On the GPU machine: ranks sharing its GPU (mpi communicator) and one
// process over it (--devices), against the CPU result.
// Ranks that the launcher leaves unbound share the node's CPUs: each takes
// its part by default, and --threads or OMP_NUM_THREADS still decide when
// given. A rank bound to one core keeps that one.
TEST_F(DistributedCli, UnboundRanksOfANodeShareItsCpus) {
  SKIP_WITHOUT_MPIRUN();
  cpu_set_t mine;
  CPU_ZERO(&mine);
  ASSERT_EQ(sched_getaffinity(0, sizeof mine, &mine), 0);
  const int available = CPU_COUNT(&mine);
  if (available < static_cast<int>(std::thread::hardware_concurrency()))
    GTEST_SKIP() << "this process may run on " << available << " of the machine's CPUs: its launcher binds already";
  make_graph_and_reference();
  const std::string unset = "env -u OMP_NUM_THREADS ";
  const auto threads_line = [](int n) { return "threads          " + std::to_string(n) + " per rank"; };
  const ProcessRun shared = mpirun(2, "solve g.bin -o d.bin", unset, "--bind-to none");
  ASSERT_EQ(shared.status, 0) << shared;
  EXPECT_NE(shared.out.find(threads_line(std::max(1, available / 2))), std::string::npos) << shared;
  EXPECT_EQ(slurp(dir_ / "d.bin"), slurp(dir_ / "ref.bin")) << shared;
  const ProcessRun bound = mpirun(2, "solve g.bin", unset, "--bind-to core");
  ASSERT_EQ(bound.status, 0) << bound;
  EXPECT_NE(bound.out.find(threads_line(1)), std::string::npos) << bound;
  const ProcessRun asked = mpirun(2, "solve g.bin --threads 3", unset, "--bind-to none");
  ASSERT_EQ(asked.status, 0) << asked;
  EXPECT_NE(asked.out.find(threads_line(3)), std::string::npos) << asked;
  const ProcessRun from_env = mpirun(2, "solve g.bin", "env OMP_NUM_THREADS=3 ", "--bind-to none");
  ASSERT_EQ(from_env.status, 0) << from_env;
  EXPECT_NE(from_env.out.find(threads_line(3)), std::string::npos) << from_env;
}

TEST_F(DistributedCli, GpuRanksWriteTheCpuResult) {
  SKIP_WITHOUT_MPIRUN();
  if (cuda::devices().empty()) GTEST_SKIP() << "no CUDA device";
  make_graph_and_reference();
  for (const std::string& args :
       {std::string("--comm mpi --distribution rows"), std::string("--comm mpi --distribution 2d --no-lookahead")}) {
    const ProcessRun r = mpirun(2, "solve g.bin --backend cuda " + args + " -o d.bin --verify");
    ASSERT_EQ(r.status, 0) << r;
    EXPECT_EQ(slurp(dir_ / "d.bin"), slurp(dir_ / "ref.bin")) << r;
    EXPECT_NE(r.out.find("backend          cuda"), std::string::npos) << r;
    fs::remove(dir_ / "d.bin");
  }
  const ProcessRun local = apsp("solve g.bin --devices 0 -o d.bin");
  ASSERT_EQ(local.status, 0) << local;
  EXPECT_EQ(slurp(dir_ / "d.bin"), slurp(dir_ / "ref.bin")) << local;
  EXPECT_NE(local.out.find("communicator     local, 1 rank"), std::string::npos) << local;
}

TEST_F(DistributedCli, UsageErrorsNameTheFlag) {
  SKIP_WITHOUT_MPIRUN();
  make_graph_and_reference();
  struct Bad {
    std::string args, message;
  };
  const Bad cases[] = {
      {"--distribution 3d", "apsp: --distribution: unknown distribution '3d' (expected rows or 2d)"},
      {"--distribution rows --grid 2x1", "apsp: --grid: a grid shape needs --distribution 2d"},
      {"--distribution 2d --grid 2x2", "apsp: --grid: a 2 x 2 grid does not have the 3 ranks of the communicator"},
      {"--distribution rows -o d.txt", "apsp: --output: the distributed solver writes .bin or .npy matrices"},
      {"--distribution 2d --algo dijkstra",
       "apsp: --distribution: the row split of dijkstra hands out rows; --distribution 2d is for fw"},
      {"--distribution rows --algo fw-seq",
       "apsp: the distributed solver runs blocked Floyd-Warshall (auto, fw-blocked or fw) or a per-source "
       "algorithm's row split, not 'fw-seq'"},
      {"--distribution rows --precision int16", "apsp: --precision: the distributed CPU solver computes in int32"},
  };
  for (const Bad& b : cases) {
    const ProcessRun r = mpirun(3, "solve g.bin --threads 1 " + b.args);
    EXPECT_EQ(r.status, 1) << r;
    EXPECT_EQ(count_lines_starting(r.err, "apsp: "), 1) << r;
    EXPECT_NE(r.err.find(b.message), std::string::npos) << b.message << r;
  }
  expect_no_output_files();
}

// Issue 22: a real-weighted graph under mpirun (refused until then) is
// solved in its own type, rows and 2d, predecessors included, and the files
// are those of the single-process fw-blocked byte for byte (the same tile
// kernels in the same order).
TEST_F(DistributedCli, RealWeightsUnderMpirunEqualOneProcess) {
  SKIP_WITHOUT_MPIRUN();
  ASSERT_EQ(apsp("gen random -n 300 -m 1500 --weights -10:60 --real 3 --seed 6 -o real.gr").status, 0);
  for (const char* type : {"float64", "float32"}) {
    SCOPED_TRACE(type);
    const std::string weights = std::string(" --weights ") + type;
    const ProcessRun ref =
        apsp("solve real.gr --algo fw-blocked --threads 1 -o ref.npy --predecessors refp.npy" + weights);
    ASSERT_EQ(ref.status, 0) << ref;
    for (const char* layout : {"rows", "2d"}) {
      const ProcessRun r =
          mpirun(4, "solve real.gr --threads 1 -o d.npy --predecessors p.npy --verify --distribution " +
                        std::string(layout) + weights);
      ASSERT_EQ(r.status, 0) << r;
      EXPECT_NE(r.out.find(std::string("weights          ") + type), std::string::npos) << r;
      // The summary splits startup and setup (issue 22, item 5).
      for (const char* part : {"    communicator ", "    normalize ", "    same graph ", "    split comms ",
                               "    build tiles ", "    begin sink "})
        EXPECT_NE(r.out.find(part), std::string::npos) << part << r;
      EXPECT_EQ(slurp(dir_ / "d.npy"), slurp(dir_ / "ref.npy")) << layout;
      EXPECT_EQ(slurp(dir_ / "p.npy"), slurp(dir_ / "refp.npy")) << layout;
    }
  }
}

// Issue 20, defect 13: --device is the ranks' GPU (as --devices) or refused
// where it cannot be.
TEST_F(DistributedCli, DeviceIsRefusedOnceAndClearly) {
  SKIP_WITHOUT_MPIRUN();
  make_graph_and_reference();
  const ProcessRun both = mpirun(3, "solve g.bin --threads 1 --device 0 --devices 0");
  EXPECT_EQ(both.status, 1) << both;
  EXPECT_NE(both.err.find("apsp: --device: both --device and --devices name GPUs"), std::string::npos) << both;
  const ProcessRun cpu = apsp("solve g.bin --threads 1 --distribution rows --backend cpu --device 1");
  EXPECT_EQ(cpu.status, 1) << cpu;
  EXPECT_NE(cpu.err.find("apsp: --device: names a GPU, and the distributed cpu backend uses none"), std::string::npos)
      << cpu;
  std::filesystem::remove(dir_ / "real.gr");
  expect_no_output_files();
}

// The row split under mpirun: every per-source algorithm writes the file one
// process writes, bit for bit, predecessors included, on 1, 2 and 3 ranks.
TEST_F(DistributedCli, RowSplitWritesTheSingleProcessResult) {
  SKIP_WITHOUT_MPIRUN();
  make_graph_and_reference();
  for (const char* algo : {"johnson", "bellman-ford", "supernodal"}) {
    const std::string one = std::string("solve g.bin --algo ") + algo + " --threads 1";
    const ProcessRun ref = apsp(one + " -o one.bin --predecessors onep.bin");
    ASSERT_EQ(ref.status, 0) << ref;
    for (int ranks : {1, 2, 3}) {
      const ProcessRun r = mpirun(ranks, one + " -o d.bin --predecessors p.bin --verify");
      ASSERT_EQ(r.status, 0) << r;
      EXPECT_EQ(slurp(dir_ / "d.bin"), slurp(dir_ / "one.bin")) << r;
      EXPECT_EQ(slurp(dir_ / "p.bin"), slurp(dir_ / "onep.bin")) << r;
      EXPECT_NE(r.out.find("  layout           row split over " + std::to_string(ranks) + " ranks"), std::string::npos)
          << r;
      // CPU ranks put each row as computed: their download is 0.
      EXPECT_NE(r.out.find("  download                0.000 / 0.000 / 0.000 ms"), std::string::npos) << r;
      EXPECT_NE(r.out.find("\nverify: ok\n"), std::string::npos) << r;
      EXPECT_EQ(r.err, "") << r;
    }
    for (const char* name : {"one.bin", "onep.bin", "d.bin", "p.bin"}) fs::remove(dir_ / name);
  }
  expect_no_output_files();
}

// Real weights in the row split: the file of one process's johnson, in
// float32 and float64.
TEST_F(DistributedCli, RowSplitTakesRealWeights) {
  SKIP_WITHOUT_MPIRUN();
  make_graph_and_reference();
  for (const char* weights : {"float32", "float64"}) {
    const std::string common = std::string("solve g.bin --algo johnson --weights ") + weights + " --threads 1 ";
    const ProcessRun ref = apsp(common + "-o one.npy");
    ASSERT_EQ(ref.status, 0) << ref;
    const ProcessRun r = mpirun(3, common + "-o d.npy");
    ASSERT_EQ(r.status, 0) << r;
    EXPECT_EQ(slurp(dir_ / "d.npy"), slurp(dir_ / "one.npy")) << r;
    EXPECT_NE(r.out.find("  layout           row split over 3 ranks"), std::string::npos) << r;
    fs::remove(dir_ / "one.npy");
    fs::remove(dir_ / "d.npy");
  }
  expect_no_output_files();
}

// "auto" without a layout: a sparse graph takes the row split of the
// one-process choice and the summary says why.
TEST_F(DistributedCli, AutoSplitsTheRowsOfASparseGraph) {
  SKIP_WITHOUT_MPIRUN();
  ASSERT_EQ(apsp("gen rmat -n 3000 --seed 2 -o s.bin").status, 0);
  const ProcessRun ref = apsp("solve s.bin --algo dijkstra --threads 1 -o one.bin");
  ASSERT_EQ(ref.status, 0) << ref;
  const ProcessRun r = mpirun(2, "solve s.bin --threads 1 -o d.bin");
  ASSERT_EQ(r.status, 0) << r;
  EXPECT_EQ(slurp(dir_ / "d.bin"), slurp(dir_ / "one.bin")) << r;
  EXPECT_NE(r.out.find("  auto             auto picked dijkstra"), std::string::npos) << r;
  EXPECT_NE(r.out.find("its rows split over 2 ranks"), std::string::npos) << r;
  for (const char* name : {"s.bin", "one.bin", "d.bin"}) fs::remove(dir_ / name);
}

// "auto" on a dense graph: the distributed Floyd-Warshall, its layout from
// the ranks (rows on 2 CPU ranks, 2d on 4, where the rows layout's strips
// would reach half the rounds' compute at n = 300), each equal to one
// process's fw-blocked bit for bit.
TEST_F(DistributedCli, AutoPicksFwsLayoutFromTheRanks) {
  SKIP_WITHOUT_MPIRUN();
  ASSERT_EQ(apsp("gen dense -n 300 --weights -5:60 --seed 6 -o g.bin").status, 0);
  const ProcessRun ref = apsp("solve g.bin --algo fw-blocked --threads 1 -o ref.bin");
  ASSERT_EQ(ref.status, 0) << ref;
  for (const auto& [ranks, layout] : {std::pair<int, const char*>{2, "(rows)"}, {4, "(2d)"}}) {
    const ProcessRun r = mpirun(ranks, "solve g.bin --threads 1 -o d.bin");
    ASSERT_EQ(r.status, 0) << r;
    EXPECT_EQ(slurp(dir_ / "d.bin"), slurp(dir_ / "ref.bin")) << r;
    EXPECT_NE(r.out.find("distributed Floyd-Warshall over " + std::to_string(ranks) + " ranks, layout"),
              std::string::npos)
        << r;
    EXPECT_NE(r.out.find(layout), std::string::npos) << r;
    fs::remove(dir_ / "d.bin");
  }
}

// A rank that fails while drawing rows stops the others: one agreed line,
// every rank exits with its code, no file is left.
TEST_F(DistributedCli, RowSplitFailureOfOneRankStopsEveryRank) {
  SKIP_WITHOUT_MPIRUN();
  make_graph_and_reference();
  const ProcessRun r =
      mpirun(3, "solve g.bin --algo johnson --threads 1 -o d.bin --predecessors p.bin", "env APSP_TEST_FAIL_RANK=1");
  EXPECT_EQ(r.status, 3) << r;
  EXPECT_EQ(count_lines_starting(r.err, "apsp: "), 1) << r;
  EXPECT_NE(r.err.find("apsp: rank 1: injected failure on rank 1"), std::string::npos) << r;
  expect_no_output_files();
}

// Issue 23 across ranks: --sources / --targets under mpirun write the s x t
// file one process writes, byte for byte (int32, negative weights, a
// source repeated, the unreachable last vertex among the targets).
TEST_F(DistributedCli, PartsUnderMpirunEqualOneProcess) {
  SKIP_WITHOUT_MPIRUN();
  ASSERT_EQ(apsp("gen random -n 300 -m 1500 --weights -10:60 --seed 5 -o g.bin").status, 0);
  const std::string part = "solve g.bin --threads 1 --sources 7,3,7,250-260 --targets 299,0,5,5,120 ";
  const ProcessRun one = apsp(part + "-o one.bin");
  ASSERT_EQ(one.status, 0) << one;
  const ProcessRun r = mpirun(3, part + "-o d.bin");
  ASSERT_EQ(r.status, 0) << r;
  EXPECT_EQ(slurp(dir_ / "d.bin"), slurp(dir_ / "one.bin")) << r;
  EXPECT_NE(r.out.find("  part             14 sources x 5 targets"), std::string::npos) << r;
  EXPECT_NE(r.out.find("  layout           row split over 3 ranks"), std::string::npos) << r;
  EXPECT_EQ(r.err, "") << r;
}

// --cutoff and --nearest under mpirun: the kept pairs gathered on rank 0 and
// written there, the same edge list as one process's (float64 distances).
TEST_F(DistributedCli, SparseUnderMpirunEqualsOneProcess) {
  SKIP_WITHOUT_MPIRUN();
  ASSERT_EQ(apsp("gen random -n 300 -m 1500 --weights -10:60 --seed 5 -o g.bin").status, 0);
  const std::string part = "solve g.bin --threads 1 --weights float64 --sources 0-40 --cutoff 25 --nearest 4 ";
  const ProcessRun one = apsp(part + "-o one.txt");
  ASSERT_EQ(one.status, 0) << one;
  const ProcessRun r = mpirun(2, part + "-o d.txt");
  ASSERT_EQ(r.status, 0) << r;
  EXPECT_FALSE(slurp(dir_ / "one.txt").empty());
  EXPECT_EQ(slurp(dir_ / "d.txt"), slurp(dir_ / "one.txt")) << r;
  EXPECT_NE(r.out.find("  kept             "), std::string::npos) << r;
  EXPECT_EQ(r.err, "") << r;
}

// A bad source is refused once, before any work, on every rank. Then: a
// part keeps no partial rows (as in one process), nor does a sparse result;
// --output-type stays one process's.
TEST_F(DistributedCli, BadPartsAreRefusedOnce) {
  SKIP_WITHOUT_MPIRUN();
  ASSERT_EQ(apsp("gen random -n 300 -m 1500 --weights -10:60 --seed 5 -o g.bin").status, 0);
  const ProcessRun r = mpirun(2, "solve g.bin --threads 1 --sources 0,999 -o d.bin");
  EXPECT_EQ(r.status, 1) << r;
  EXPECT_EQ(count_lines_starting(r.err, "apsp: "), 1) << r;
  EXPECT_NE(r.err.find("apsp: --sources: vertex 999 is outside the graph's vertices 0..299"), std::string::npos) << r;
  expect_no_output_files();
}

// Refused in one rank (--distribution rows) as under mpirun.
TEST_F(DistributedCli, PartsKeepNoPartialRows) {
  ASSERT_EQ(apsp("gen random -n 300 -m 1500 --weights -10:60 --seed 5 -o g.bin").status, 0);
  const ProcessRun resume = apsp("solve g.bin --distribution rows --cutoff 5 -o d.txt --resume");
  EXPECT_EQ(resume.status, 1) << resume;
  EXPECT_NE(resume.err.find("apsp: --resume: a sparse result (--cutoff, --nearest) is kept in memory"),
            std::string::npos)
      << resume;
  // Partial rows are the whole matrix's only, as in one process.
  const ProcessRun kept = apsp("solve g.bin --distribution rows --sources 1,2 -o d.bin --checkpoint");
  EXPECT_EQ(kept.status, 1) << kept;
  EXPECT_NE(kept.err.find("apsp: --checkpoint: partial rows are kept for the whole n x n matrix only"),
            std::string::npos)
      << kept;
  const ProcessRun type = apsp("solve g.bin --distribution rows --output-type float32 -o d.npy");
  EXPECT_EQ(type.status, 1) << type;
  EXPECT_NE(type.err.find("apsp: --output-type: is not available with the distributed solver"), std::string::npos)
      << type;
  expect_no_output_files();
}

// GPU ranks (mpirun with --backend cuda, and --devices in one process):
// the same s x t file and sparse result as one process's CPU solve (int32).
// Skips without a device.
TEST_F(DistributedCli, GpuRanksWriteParts) {
  SKIP_WITHOUT_MPIRUN();
  if (cuda::devices().empty()) GTEST_SKIP() << "no CUDA device";
  ASSERT_EQ(apsp("gen random -n 3000 -m 15000 --weights 1:60 --seed 5 -o g.bin").status, 0);
  const std::string part = "solve g.bin --sources 7,3,7,250-2600 --targets 2999,0,5,5,120-1700 ";
  const std::string sparse = "solve g.bin --sources 100-900 --cutoff 60 --nearest 8 ";
  ASSERT_EQ(apsp(part + "--backend cpu --algo dijkstra -o one.bin").status, 0);
  ASSERT_EQ(apsp(sparse + "--backend cpu --algo dijkstra -o one.txt").status, 0);
  for (const std::string& run : {std::string("mpirun"), std::string("devices")}) {
    SCOPED_TRACE(run);
    const auto solve = [&](const std::string& args) {
      return run == "mpirun" ? mpirun(2, args + "--backend cuda --comm mpi") : apsp(args + "--devices 0");
    };
    const ProcessRun r = solve(part + "-o d.bin ");
    ASSERT_EQ(r.status, 0) << r;
    EXPECT_EQ(slurp(dir_ / "d.bin"), slurp(dir_ / "one.bin")) << r;
    EXPECT_NE(r.out.find("backend          cuda"), std::string::npos) << r;
    const ProcessRun s = solve(sparse + "-o d.txt ");
    ASSERT_EQ(s.status, 0) << s;
    EXPECT_EQ(slurp(dir_ / "d.txt"), slurp(dir_ / "one.txt")) << s;
    fs::remove(dir_ / "d.bin");
    fs::remove(dir_ / "d.txt");
  }
}

// Issue 24, distributed resume: a job killed by SIGKILL on one rank (the
// hook APSP_TEST_KILL_AT at a count of journal records, no sleep) dies
// whole; --resume then writes files byte-identical to one process's, from
// the rows the killed run kept (the note says how many). The row split
// resumes on any number of ranks.
class DistributedResume : public DistributedCli {
 protected:
  // Kills `args` under `ranks` ranks at the COUNT-th journal record of
  // whichever rank gets there first; expects the job dead with rows kept.
  void killed(int ranks, const std::string& args, int count) const {
    killed_at(ranks, args, "journal:" + std::to_string(count));
  }
  // The same at any kill point of the hook (POINT:COUNT).
  void killed_at(int ranks, const std::string& args, const std::string& point) const {
    const ProcessRun r = mpirun(ranks, args + " --checkpoint", "env APSP_TEST_KILL_AT=" + point);
    ASSERT_NE(r.status, 0) << r;
    ASSERT_FALSE(fs::exists(dir_ / "d.bin")) << r;
    ASSERT_TRUE(fs::exists(dir_ / ".d.bin.apsp-journal")) << r;
    ASSERT_TRUE(fs::exists(dir_ / ".d.bin.apsp-partial")) << r;
  }
  // Resumes `args`; expects success, the reference files and the note.
  ProcessRun resumed(int ranks, const std::string& args, const std::string& ref, const std::string& refp) const {
    const ProcessRun r = mpirun(ranks, args + " --resume");
    EXPECT_EQ(r.status, 0) << r;
    EXPECT_EQ(slurp(dir_ / "d.bin"), slurp(dir_ / ref)) << r;
    EXPECT_EQ(slurp(dir_ / "p.bin"), slurp(dir_ / refp)) << r;
    EXPECT_NE(r.out.find("  note             resumed d.bin: "), std::string::npos) << r;
    EXPECT_EQ(r.err, "") << r;
    return r;
  }
  // The rows the note says were kept ("resumed d.bin: K of N rows kept").
  static long kept_rows(const ProcessRun& r) {
    const std::size_t at = r.out.find("resumed d.bin: ");
    return at == std::string::npos ? -1 : std::stol(r.out.substr(at + 15));
  }
  // No journal, partial file or checkpoint of d.bin or p.bin is left.
  void expect_nothing_kept() const {
    for (const auto& entry : fs::directory_iterator(dir_)) {
      const std::string name = entry.path().filename().string();
      EXPECT_EQ(name.find(".apsp-"), std::string::npos) << "left behind: " << name;
    }
  }
};

TEST_F(DistributedResume, RowSplitKilledOnOneRankResumesOnAnyRankCount) {
  SKIP_WITHOUT_MPIRUN();
  make_graph_and_reference();
  const std::string args = "solve g.bin --algo johnson --threads 1 -o d.bin --predecessors p.bin";
  ASSERT_EQ(apsp("solve g.bin --algo johnson --threads 1 -o one.bin --predecessors onep.bin").status, 0);
  for (const auto& [kill_ranks, resume_ranks] : {std::pair<int, int>{2, 2}, {2, 3}, {3, 1}}) {
    killed(kill_ranks, args, 3);
    const ProcessRun r = resumed(resume_ranks, args, "one.bin", "onep.bin");
    EXPECT_GT(kept_rows(r), 0) << r;
    EXPECT_LT(kept_rows(r), 300) << r;
    expect_nothing_kept();
    fs::remove(dir_ / "d.bin");
    fs::remove(dir_ / "p.bin");
  }
}

// The distributed Floyd-Warshall killed while it delivers its rows (rows and
// 2d): the resumed run puts only the rows not kept (no round checkpoint was
// due at the default interval: its rounds run again).
TEST_F(DistributedResume, DenseFwKilledWhileDeliveringResumes) {
  SKIP_WITHOUT_MPIRUN();
  make_graph_and_reference();
  for (const auto& [ranks, layout] : {std::pair<int, const char*>{2, "rows"}, {4, "2d"}}) {
    const std::string args = std::string("solve g.bin --algo fw-blocked --distribution ") + layout +
                             " --threads 1 -o d.bin --predecessors p.bin";
    killed(ranks, args, 2);
    const ProcessRun r = resumed(ranks, args, "ref.bin", "refp.bin");
    EXPECT_GT(kept_rows(r), 0) << r;
    expect_nothing_kept();
    fs::remove(dir_ / "d.bin");
    fs::remove(dir_ / "p.bin");
  }
}

// The distributed Floyd-Warshall killed mid-rounds (n = 300: 5 rounds, a
// checkpoint due after every one): after one rank's second save, or
// half-way through one rank's third; each rank saved its share at the same
// rounds, and the resumed run continues from the newest round every rank
// holds, byte-identical to one process.
TEST_F(DistributedResume, DenseFwKilledMidRoundsResumesFromTheCommonRound) {
  SKIP_WITHOUT_MPIRUN();
  make_graph_and_reference();
  struct Kill {
    int ranks;
    const char* layout;
    const char* point;
  };
  for (const Kill& k : {Kill{2, "rows", "checkpoint:2"}, Kill{4, "2d", "checkpoint-write:3"},
                        Kill{3, "2d --grid 1x3 --no-lookahead", "checkpoint:1"}}) {
    const std::string args = std::string("solve g.bin --algo fw-blocked --distribution ") + k.layout +
                             " --threads 1 --checkpoint-every 1e-9 -o d.bin --predecessors p.bin";
    killed_at(k.ranks, args, k.point);
    const ProcessRun r = resumed(k.ranks, args, "ref.bin", "refp.bin");
    EXPECT_NE(r.out.find("resumed the rounds after round "), std::string::npos) << r;
    expect_nothing_kept();
    fs::remove(dir_ / "d.bin");
    fs::remove(dir_ / "p.bin");
  }
}

// GPU ranks out of core per rank (--super-width 128 on the cuda backend,
// n = 300: 3 super-rounds, a checkpoint due after every one): the output
// and predecessors equal in-core distributed fw's on the GPU, the summary
// says out of core, and a run killed after one rank's second save resumes
// from the round every rank holds, byte-identical.
TEST_F(DistributedResume, GpuRanksOutOfCoreKilledMidRoundsResume) {
  SKIP_WITHOUT_MPIRUN();
  if (cuda::devices().empty()) GTEST_SKIP() << "no CUDA device";
  make_graph_and_reference();
  const std::string gpu = "solve g.bin --backend cuda --comm mpi --distribution rows --threads 1 ";
  const ProcessRun in_core = mpirun(2, gpu + "-o gref.bin --predecessors grefp.bin");
  ASSERT_EQ(in_core.status, 0) << in_core;
  EXPECT_EQ(slurp(dir_ / "gref.bin"), slurp(dir_ / "ref.bin")) << in_core;
  const ProcessRun ooc = mpirun(2, gpu + "--super-width 128 -o d.bin --predecessors p.bin --verify");
  ASSERT_EQ(ooc.status, 0) << ooc;
  EXPECT_EQ(slurp(dir_ / "d.bin"), slurp(dir_ / "gref.bin")) << ooc;
  EXPECT_EQ(slurp(dir_ / "p.bin"), slurp(dir_ / "grefp.bin")) << ooc;
  EXPECT_NE(ooc.out.find("out of core      super-rounds of 128"), std::string::npos) << ooc;
  EXPECT_NE(ooc.out.find("\nverify: ok\n"), std::string::npos) << ooc;
  fs::remove(dir_ / "d.bin");
  fs::remove(dir_ / "p.bin");
  const std::string args = gpu + "--super-width 128 --checkpoint-every 1e-9 -o d.bin --predecessors p.bin";
  killed_at(2, args, "checkpoint:2");
  const ProcessRun r = resumed(2, args, "gref.bin", "grefp.bin");
  EXPECT_NE(r.out.find("resumed the rounds after round "), std::string::npos) << r;
  expect_nothing_kept();
}

// One rank's newest share damaged: the resume falls back to the previous
// round every rank holds. Checkpoints of another rank count are refused.
TEST_F(DistributedResume, DamagedShareFallsBackAndOtherRankCountsAreRefused) {
  SKIP_WITHOUT_MPIRUN();
  make_graph_and_reference();
  const std::string args = "solve g.bin --algo fw-blocked --distribution rows --threads 1 --checkpoint-every 1e-9 "
                           "-o d.bin --predecessors p.bin";
  // Killed after some rank's third save (rounds 1, 2, 3 in slots 0, 1, 0):
  // every rank saved round 2 before round 3's panels could reach it.
  killed_at(2, args, "checkpoint:3");
  const fs::path newest = dir_ / ".d.bin.apsp-checkpoint-1-of-2.0";
  if (fs::exists(newest)) {
    std::fstream file(newest, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(static_cast<std::streamoff>(fs::file_size(newest) / 2));
    file.put('\x7f').put('\x01');
  }
  const ProcessRun r = resumed(2, args, "ref.bin", "refp.bin");
  EXPECT_NE(r.out.find("resumed the rounds after round 2 of 5"), std::string::npos) << r;
  expect_nothing_kept();
  fs::remove(dir_ / "d.bin");
  fs::remove(dir_ / "p.bin");

  killed_at(2, args, "checkpoint:1");
  const ProcessRun other = mpirun(3, args + " --resume");
  EXPECT_EQ(other.status, 1) << other;
  EXPECT_EQ(count_lines_starting(other.err, "apsp: "), 1) << other;
  EXPECT_NE(other.err.find("it was written by 2 ranks and this run has 3"), std::string::npos) << other;
  // The same rank count resumes them.
  resumed(2, args, "ref.bin", "refp.bin");
  expect_nothing_kept();
}

// A resume must continue the same solve: another algorithm or graph is
// refused once, clearly, and what the killed run kept stays for a resume of
// the right solve; damaged partial rows are computed again, and a damaged
// journal starts afresh, never a wrong result.
TEST_F(DistributedResume, MismatchIsRefusedAndDamageFallsBack) {
  SKIP_WITHOUT_MPIRUN();
  make_graph_and_reference();
  const std::string args = " --threads 1 -o d.bin --predecessors p.bin";
  ASSERT_EQ(apsp("solve g.bin --algo johnson --threads 1 -o one.bin --predecessors onep.bin").status, 0);
  ASSERT_EQ(apsp("gen random -n 300 -m 1500 --weights -10:60 --seed 6 -o g2.bin").status, 0);
  killed(2, "solve g.bin --algo johnson" + args, 3);
  for (const std::string& other : {"solve g.bin --algo bellman-ford" + args, "solve g2.bin --algo johnson" + args}) {
    const ProcessRun r = mpirun(2, other + " --resume");
    EXPECT_EQ(r.status, 1) << r;
    EXPECT_EQ(count_lines_starting(r.err, "apsp: "), 1) << r;
    EXPECT_NE(r.err.find("cannot resume d.bin: the interrupted run that left"), std::string::npos) << r;
    EXPECT_TRUE(fs::exists(dir_ / ".d.bin.apsp-journal")) << r;
  }
  // Every partial row damaged: each record fails its digest, every row is
  // computed again.
  {
    const fs::path partial = dir_ / ".d.bin.apsp-partial";
    std::string bytes = slurp(partial);
    for (std::size_t i = 16; i < bytes.size(); ++i) bytes[i] = static_cast<char>(0x5a);
    std::ofstream(partial, std::ios::binary | std::ios::trunc) << bytes;
  }
  const ProcessRun damaged = resumed(2, "solve g.bin --algo johnson" + args, "one.bin", "onep.bin");
  EXPECT_EQ(kept_rows(damaged), 0) << damaged;
  EXPECT_NE(damaged.out.find("did not match the partial output"), std::string::npos) << damaged;
  expect_nothing_kept();
  // A torn journal: started afresh, with the note.
  fs::remove(dir_ / "d.bin");
  fs::remove(dir_ / "p.bin");
  killed(2, "solve g.bin --algo johnson" + args, 3);
  fs::resize_file(dir_ / ".d.bin.apsp-journal", 10);
  const ProcessRun torn = mpirun(2, "solve g.bin --algo johnson" + args + " --resume");
  EXPECT_EQ(torn.status, 0) << torn;
  EXPECT_NE(torn.out.find("is damaged: started afresh"), std::string::npos) << torn;
  EXPECT_EQ(slurp(dir_ / "d.bin"), slurp(dir_ / "one.bin")) << torn;
  EXPECT_EQ(slurp(dir_ / "p.bin"), slurp(dir_ / "onep.bin")) << torn;
  expect_nothing_kept();
}

// GPU ranks (two sharing one device): the row split of sssp (its rows kept
// on the device until each rank's last chunk, and, APSP_ROW_DOWNLOAD=per-chunk,
// downloaded chunk by chunk: the journal holds only rows in the file either
// way) and the distributed fw, each killed on one rank and resumed, write the
// files of an uninterrupted run of the same command.
TEST_F(DistributedResume, GpuRanksResume) {
  SKIP_WITHOUT_MPIRUN();
  if (cuda::devices().empty()) GTEST_SKIP() << "no CUDA device";
  ASSERT_EQ(apsp("gen rmat -n 3000 --seed 2 -o s.bin").status, 0);
  for (const auto& [solve, download] :
       {std::pair<std::string, const char*>{"solve s.bin --backend cuda --algo sssp --comm mpi", nullptr},
        {"solve s.bin --backend cuda --algo sssp --comm mpi", "per-chunk"},
        {"solve s.bin --backend cuda --algo fw --distribution rows --comm mpi", nullptr}}) {
    SCOPED_TRACE(solve + (download ? " with APSP_ROW_DOWNLOAD=per-chunk" : ""));
    // mpirun's ranks inherit this process's environment.
    if (download != nullptr) ::setenv("APSP_ROW_DOWNLOAD", download, 1);
    const ProcessRun ref = mpirun(2, solve + " -o one.bin --predecessors onep.bin");
    EXPECT_EQ(ref.status, 0) << ref;
    const std::string args = solve + " -o d.bin --predecessors p.bin";
    if (ref.status == 0) {
      killed(2, args, 2);
      resumed(2, args, "one.bin", "onep.bin");
      expect_nothing_kept();
    }
    ::unsetenv("APSP_ROW_DOWNLOAD");
    for (const char* name : {"one.bin", "onep.bin", "d.bin", "p.bin"}) fs::remove(dir_ / name);
  }
}

}  // namespace
}  // namespace apsp

// Resumable solves (`apsp solve --checkpoint / --resume`, FileSink::
// keep_partial): a run killed at a chosen point (SIGKILL from the test hook
// APSP_TEST_KILL_AT, no sleeps) and resumed writes files byte-identical to
// an uninterrupted run; a resume of another solve is refused; a damaged
// journal or partial file is detected and its rows computed again.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "apsp/cuda.hpp"
#include "apsp/error.hpp"
#include "sink/round_checkpoint.hpp"
#include "sink/row_journal.hpp"
#include "sink/resume.hpp"
#include "support/scratch.hpp"

namespace apsp {
namespace {

namespace fs = std::filesystem;

struct Outcome {
  int status = -1;  // exit code, or 128 + signal
  std::string out, err;
};

class Resume : public test::ScratchDirTest {
 protected:
  // Runs `apsp ARGS` in the scratch directory, with `env` ("NAME=VALUE" or "").
  Outcome run(const std::string& args, const std::string& env = "") const {
    const std::string shell = "cd '" + dir_.string() + "' && " + (env.empty() ? "" : "env " + env + " ") +
                              "'" APSP_CLI_PATH "' " + args + " </dev/null >stdout.log 2>stderr.log";
    const int raw = std::system(shell.c_str());
    Outcome r;
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + (WIFSIGNALED(raw) ? WTERMSIG(raw) : 0);
    r.out = read_text("stdout.log");
    r.err = read_text("stderr.log");
    return r;
  }
  std::string ok(const std::string& args, const std::string& env = "") const {
    const Outcome r = run(args, env);
    EXPECT_EQ(r.status, 0) << args << "\n" << r.err;
    return r.out;
  }
  // Runs with the hook set to kill at `point` (and `env`, "NAME=VALUE" or
  // ""); expects SIGKILL (137).
  void killed(const std::string& args, const std::string& point, const std::string& env = "") const {
    const Outcome r = run(args, (env.empty() ? "" : env + " ") + "APSP_TEST_KILL_AT=" + point);
    ASSERT_EQ(r.status, 128 + 9) << args << " killed at " << point << "\n" << r.out << r.err;
  }
  // The hidden files beside the outputs.
  std::set<std::string> hidden() const {
    std::set<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_))
      if (entry.path().filename().string()[0] == '.') names.insert(entry.path().filename().string());
    return names;
  }
  // Byte-identical files (compared without printing megabytes on failure).
  ::testing::AssertionResult same_file(const std::string& a, const std::string& b) const {
    if (read_text(a) == read_text(b)) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << a << " and " << b << " differ";
  }
  // `solve` (a command without its outputs) into ref.bin, then into d.bin
  // with a checkpoint at every round boundary, killed at each kill point and
  // resumed: each resume's summary holds the point's note, and the files are
  // the first run's. `pred`: predecessors too (ref.npy, p.npy). Returns the
  // first run's summary.
  std::string resumes_like_uninterrupted(
      const std::string& solve, bool pred,
      const std::vector<std::pair<std::string, std::string>>& points_and_notes) const {
    const std::string fresh = ok(solve + " -o ref.bin" + (pred ? " --predecessors ref.npy" : ""));
    const std::string args = solve + " -o d.bin" + (pred ? " --predecessors p.npy" : "") + " --checkpoint-every 1e-9";
    for (const auto& [point, note] : points_and_notes) {
      SCOPED_TRACE(point);
      killed(args + " --checkpoint", point);
      const std::string summary = ok(args + " --resume");
      EXPECT_NE(summary.find(note), std::string::npos) << summary;
      EXPECT_TRUE(same_file("d.bin", "ref.bin"));
      if (pred) EXPECT_TRUE(same_file("p.npy", "ref.npy"));
      EXPECT_TRUE(hidden().empty());
    }
    return fresh;
  }
  void flip_byte(const std::string& name, std::uint64_t offset) const {
    std::fstream f(path(name), std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(static_cast<std::streamoff>(offset));
    char c = 0;
    f.read(&c, 1);
    c = static_cast<char>(c ^ 0x5a);
    f.seekp(static_cast<std::streamoff>(offset));
    f.write(&c, 1);
  }
};

// 1000 vertices with --threads 2: the per-source solvers put blocks of at
// most 64 rows, so a run writes 16 or more journal records per plane.
constexpr const char* kGraph = "g.bin";
const std::string kSolve = "solve g.bin --threads 2 -o d.bin --predecessors p.npy ";

TEST_F(Resume, KilledAtAnyPointAndResumedGivesTheUninterruptedFiles) {
  ok("gen random -n 1000 --seed 11 -o g.bin");
  for (const char* algo : {"dijkstra", "bellman-ford", "fw-blocked"}) {
    SCOPED_TRACE(algo);
    const std::string args = kSolve + "--algo " + algo;
    ok("solve g.bin --threads 2 -o ref.bin --predecessors ref.npy --algo " + std::string(algo));
    const std::string ref_d = read_text("ref.bin"), ref_p = read_text("ref.npy");
    for (const char* point : {"journal:1", "journal:9", "journal:20", "rename", "renamed"}) {
      SCOPED_TRACE(point);
      killed(args + " --checkpoint", point);
      if (std::string(point) != "renamed") {
        EXPECT_FALSE(fs::exists(path("d.bin")));
        EXPECT_TRUE(fs::exists(path(".d.bin.apsp-partial")));
      }
      EXPECT_TRUE(fs::exists(path(".d.bin.apsp-journal")));
      // Killed again while resuming: the second resume still finishes it.
      if (std::string(point) == "journal:9") killed(args + " --resume", "journal:3");
      const std::string summary = ok(args + " --resume");
      EXPECT_TRUE(read_text("d.bin") == ref_d) << "d.bin differs from the uninterrupted run's";
      EXPECT_TRUE(read_text("p.npy") == ref_p) << "p.npy differs from the uninterrupted run's";
      EXPECT_TRUE(hidden().empty()) << *hidden().begin();
      if (std::string(point) == "rename")
        EXPECT_NE(summary.find("1000 of 1000 rows kept"), std::string::npos) << summary;
      fs::remove(path("d.bin"));
      fs::remove(path("p.npy"));
    }
  }
}

// A checkpointed run over existing outputs: killed, it leaves them as they
// were; resumed, it replaces them (an exchange of names with the partial
// file's hidden link) with nothing left beside them. A run killed inside
// that commit, after the exchange and before the partial name went, leaves
// the partial name on the finished output's inode (made here with a hard
// link): the next run must not write into the output in place.
TEST_F(Resume, ACheckpointedRunReplacesExistingOutputs) {
  ok("gen random -n 1000 --seed 11 -o g.bin");
  const std::string args = kSolve + "--algo dijkstra";
  ok("solve g.bin --threads 2 -o ref.bin --predecessors ref.npy --algo dijkstra");
  const std::string ref_d = read_text("ref.bin"), ref_p = read_text("ref.npy");
  write_text("d.bin", "old distances");
  write_text("p.npy", "old predecessors");
  killed(args + " --checkpoint", "journal:9");
  EXPECT_EQ(read_text("d.bin"), "old distances");
  EXPECT_EQ(read_text("p.npy"), "old predecessors");
  ok(args + " --resume");
  EXPECT_TRUE(read_text("d.bin") == ref_d) << "d.bin differs from the uninterrupted run's";
  EXPECT_TRUE(read_text("p.npy") == ref_p) << "p.npy differs from the uninterrupted run's";
  EXPECT_TRUE(hidden().empty()) << *hidden().begin();
  fs::create_hard_link(path("d.bin"), path(".d.bin.apsp-partial"));
  killed(args + " --checkpoint", "journal:1");
  EXPECT_TRUE(read_text("d.bin") == ref_d) << "the output was written in place";
  ok(args + " --resume");
  EXPECT_TRUE(read_text("d.bin") == ref_d) << "d.bin differs from the uninterrupted run's";
  EXPECT_TRUE(read_text("p.npy") == ref_p) << "p.npy differs from the uninterrupted run's";
  EXPECT_TRUE(hidden().empty()) << *hidden().begin();
}

// The per-source solvers (and supernodal's row solve) compute only the rows
// the journal does not hold: the summary says how many were kept.
TEST_F(Resume, PerSourceSolvesComputeOnlyTheRowsLeft) {
  ok("gen random -n 1000 --seed 5 --weights 0:9 -o g.bin");
  ok("gen grid -n 1024 --seed 5 -o grid.bin");
  for (const std::string& solve : {std::string("solve g.bin --algo johnson"),
                                   std::string("solve grid.bin --algo supernodal --predecessors p.npy")}) {
    SCOPED_TRACE(solve);
    ok(solve.substr(0, solve.find(" --predecessors")) + " -o ref.npy" +
       (solve.find("p.npy") == std::string::npos ? "" : " --predecessors refp.npy"));
    killed(solve + " --threads 2 -o d.npy --checkpoint", "journal:6");
    const std::string summary = ok(solve + " --threads 2 -o d.npy --resume");
    const auto at = summary.find("resumed d.npy: ");
    ASSERT_NE(at, std::string::npos) << summary;
    const long kept = std::stol(summary.substr(at + 15));
    // Six records are six blocks of distances when they come alone.
    if (solve.find("p.npy") == std::string::npos) EXPECT_GE(kept, 6);
    EXPECT_LT(kept, 1000);
    EXPECT_TRUE(same_file("d.npy", "ref.npy"));
    if (solve.find("p.npy") != std::string::npos) EXPECT_TRUE(same_file("p.npy", "refp.npy"));
    EXPECT_TRUE(hidden().empty());
  }
}

// Rows pass the CLI's ConvertingSink (--output-type, the advice): a resumed
// run still skips the kept rows, and gives no advice on rows it never saw.
TEST_F(Resume, ResumesThroughAnOutputTypeConversion) {
  ok("gen random -n 1000 --seed 7 --weights 0:9 -o g.bin");
  const std::string args = "solve g.bin --threads 2 --algo dijkstra --output-type float64";
  const std::string fresh = ok(args + " -o ref.npy --predecessors refp.npy");
  EXPECT_NE(fresh.find("int16 is the narrowest"), std::string::npos) << fresh;
  killed(args + " -o d.npy --predecessors p.npy --checkpoint", "journal:9");
  const std::string summary = ok(args + " -o d.npy --predecessors p.npy --resume");
  EXPECT_NE(summary.find("resumed d.npy: "), std::string::npos) << summary;
  EXPECT_EQ(summary.find("advice"), std::string::npos) << summary;
  EXPECT_TRUE(same_file("d.npy", "ref.npy"));
  EXPECT_TRUE(same_file("p.npy", "refp.npy"));
  EXPECT_TRUE(hidden().empty());
}

// fw-blocked's rounds (16 for 1000 vertices) with a checkpoint at every
// round boundary (an interval far below a round's time): a run killed after
// a checkpoint, during the write of the next, or with a damaged checkpoint
// resumes from the last valid one (or the first round) to the same files.
TEST_F(Resume, FwBlockedResumesFromItsLastValidRoundCheckpoint) {
  ok("gen random -n 1000 --seed 11 --weights 0:30 -o g.bin");
  ok("solve g.bin --threads 2 -o ref.bin --predecessors ref.npy --algo fw-blocked");
  const std::string args = kSolve + "--algo fw-blocked --checkpoint-every 1e-9";
  struct Case {
    const char* kill_at;
    std::function<void()> damage;
    const char* note;
  };
  const auto checkpoint = [&] { return path(".d.bin.apsp-checkpoint"); };
  const std::vector<Case> cases = {
      {"checkpoint:5", [] {}, "resumed from the checkpoint after round 5 of 16"},
      {"checkpoint-write:7", [] {}, "resumed from the checkpoint after round 6 of 16"},
      {"checkpoint-write:1", [] {}, "resumed d.bin: 0 of 1000 rows kept"},
      {"checkpoint:3", [&] { flip_byte(".d.bin.apsp-checkpoint", 200); }, "is damaged: the rounds started afresh"},
      {"checkpoint:3", [&] { flip_byte(".d.bin.apsp-checkpoint", 3 * 8 + 1); }, "is damaged"},
      {"checkpoint:3", [&] { fs::resize_file(checkpoint(), fs::file_size(checkpoint()) - 100); }, "is truncated"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.kill_at);
    killed(args + " --checkpoint", c.kill_at);
    c.damage();
    const std::string summary = ok(args + " --resume");
    EXPECT_NE(summary.find(c.note), std::string::npos) << summary;
    EXPECT_TRUE(same_file("d.bin", "ref.bin"));
    EXPECT_TRUE(same_file("p.npy", "ref.npy"));
    EXPECT_TRUE(hidden().empty());
  }
  // fw-ooc's super-rounds (8 of 128 vertices) keep checkpoints the same way.
  ok("solve g.bin --threads 2 -o refo.bin --algo fw-ooc");
  killed("solve g.bin --threads 2 -o d.bin --algo fw-ooc --checkpoint-every 1e-9 --checkpoint", "checkpoint:3");
  const std::string ooc = ok("solve g.bin --threads 2 -o d.bin --algo fw-ooc --checkpoint-every 1e-9 --resume");
  EXPECT_NE(ooc.find("resumed from the checkpoint after round 3 of 8"), std::string::npos) << ooc;
  EXPECT_TRUE(same_file("d.bin", "refo.bin"));
  EXPECT_TRUE(hidden().empty());
  // Killed while resuming from a checkpoint: the next resume goes on from a later one.
  killed(args + " --checkpoint", "checkpoint:4");
  killed(args + " --resume", "checkpoint:6");
  const std::string summary = ok(args + " --resume");
  EXPECT_NE(summary.find("after round 10 of 16"), std::string::npos) << summary;
  EXPECT_TRUE(same_file("d.bin", "ref.bin"));
}

TEST_F(Resume, AResumeOfAnotherSolveIsRefused) {
  ok("gen random -n 1000 --seed 11 -o g.bin");
  ok("gen random -n 1000 --seed 12 -o other.bin");
  killed(kSolve + "--algo dijkstra --checkpoint", "journal:4");
  const std::vector<std::string> others = {
      "solve other.bin --threads 2 -o d.bin --predecessors p.npy --algo dijkstra --resume",  // another graph
      kSolve + "--algo bellman-ford --resume",                                               // another algorithm
      "solve g.bin --threads 2 -o d.bin --algo dijkstra --resume",                           // no predecessors
      kSolve + "--algo dijkstra --weights float64 --resume",                                 // other weights
      kSolve + "--algo dijkstra --precision int64 --resume",                                 // other precision
      kSolve + "--algo dijkstra --out-format npy --resume",                                  // other format
  };
  for (const std::string& args : others) {
    const Outcome r = run(args);
    EXPECT_NE(r.status, 0) << args << "\n" << r.out << r.err;
    EXPECT_EQ(r.err.rfind("apsp: ", 0), 0u) << args << "\n" << r.err;
  }
  const Outcome r = run(others[0]);
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("solved another problem"), std::string::npos) << r.err;
  // The interrupted run's files are untouched by the refusals: it still resumes.
  ok("solve g.bin --threads 2 -o ref.bin --predecessors ref.npy --algo dijkstra");
  ok(kSolve + "--algo dijkstra --resume");
  EXPECT_TRUE(same_file("d.bin", "ref.bin"));
  EXPECT_TRUE(same_file("p.npy", "ref.npy"));
}

// Damage is detected, never trusted: a record failing its digest, a torn
// last record, rows of the partial file that differ from their record, a
// damaged header or a missing journal: the rows concerned (or all) are
// computed again, with a note.
TEST_F(Resume, DamagedJournalsAndPartialFilesAreRecomputed) {
  ok("gen random -n 1000 --seed 11 -o g.bin");
  ok("solve g.bin --threads 2 -o ref.bin --predecessors ref.npy --algo dijkstra");
  const std::string args = kSolve + "--algo dijkstra";
  struct Damage {
    const char* what;
    std::function<void()> apply;
    const char* note;
  };
  const std::uint64_t header = 7 * 8, record = 5 * 8;
  const std::vector<Damage> damages = {
      {"a record's bytes", [&] { flip_byte(".d.bin.apsp-journal", header + record + 9); }, "did not match"},
      {"a torn last record",
       [&] { fs::resize_file(path(".d.bin.apsp-journal"), fs::file_size(path(".d.bin.apsp-journal")) - 7); },
       "did not match"},
      {"the partial rows", [&] { flip_byte(".d.bin.apsp-partial", 5); }, "did not match"},
      {"the header", [&] { flip_byte(".d.bin.apsp-journal", 20); }, "is damaged: started afresh"},
      {"a journal cut inside its header", [&] { fs::resize_file(path(".d.bin.apsp-journal"), 30); },
       "is damaged: started afresh"},
      {"no journal", [&] { fs::remove(path(".d.bin.apsp-journal")); }, "started afresh"},
      {"a partial file of another length", [&] { fs::resize_file(path(".d.bin.apsp-partial"), 4000); },
       "did not match"},
  };
  for (const Damage& damage : damages) {
    SCOPED_TRACE(damage.what);
    killed(args + " --checkpoint", "journal:12");
    damage.apply();
    const std::string summary = ok(args + " --resume");
    EXPECT_NE(summary.find(damage.note), std::string::npos) << summary;
    EXPECT_TRUE(same_file("d.bin", "ref.bin"));
    EXPECT_TRUE(same_file("p.npy", "ref.npy"));
    EXPECT_TRUE(hidden().empty());
  }
}

TEST_F(Resume, OptionsThatCannotKeepRowsAreRefused) {
  ok("gen random -n 50 --seed 1 -o g.bin");
  for (const std::string& args :
       {std::string("solve g.bin -o d.txt --checkpoint"), std::string("solve g.bin --checkpoint"),
        std::string("solve g.bin -o d.bin --verify --resume")}) {
    const Outcome r = run(args);
    EXPECT_EQ(r.status, 1) << args << "\n" << r.err;
    EXPECT_EQ(r.err.rfind("apsp: ", 0), 0u) << r.err;
    EXPECT_FALSE(fs::exists(path("d.bin")));
    EXPECT_TRUE(hidden().empty());
  }
  // A part of the matrix is refused even where it has n rows and n columns:
  // every target, in reverse order (a PartSink's columns).
  std::string reversed;
  for (int v = 49; v >= 0; --v) reversed += std::to_string(v) + (v > 0 ? "," : "");
  for (const char* algo : {"dijkstra", "fw-blocked"}) {
    const Outcome r = run(std::string("solve g.bin -o d.bin --checkpoint --algo ") + algo + " --targets " + reversed);
    EXPECT_EQ(r.status, 1) << algo << "\n" << r.err;
    EXPECT_NE(r.err.find("whole n x n matrix only"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(path("d.bin")));
    EXPECT_TRUE(hidden().empty());
  }
  // Without --checkpoint a killed run keeps nothing, as before.
  ok("solve g.bin -o d.bin");
  EXPECT_TRUE(hidden().empty());
  // The distributed solver keeps rows too (issue 24; its kill-and-resume
  // tests are tests/distributed's DistributedResume.*): a run that ends
  // leaves nothing hidden.
  fs::remove(path("d.bin"));
  ok("solve g.bin -o d.bin --distribution rows --checkpoint");
  EXPECT_TRUE(fs::exists(path("d.bin")));
  EXPECT_TRUE(hidden().empty());
}

// A partial file another run holds (its flock, taken here) is not touched:
// a second --checkpoint run of that output is refused (exit 3).
TEST_F(Resume, ASecondRunOfAHeldOutputIsRefused) {
  ok("gen random -n 50 --seed 1 -o g.bin");
  write_text(".d.bin.apsp-partial", "another run's rows");
  const int held = ::open(path(".d.bin.apsp-partial").c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(held, 0);
  ASSERT_EQ(::flock(held, LOCK_EX | LOCK_NB), 0);
  const Outcome r = run("solve g.bin -o d.bin --checkpoint");
  ::close(held);
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_NE(r.err.find("another run holds its partial output"), std::string::npos) << r.err;
  EXPECT_EQ(read_text(".d.bin.apsp-partial"), "another run's rows");
  EXPECT_FALSE(fs::exists(path("d.bin")));
  ok("solve g.bin -o d.bin --checkpoint");
  EXPECT_TRUE(hidden().empty());
}

// The journal format on its own: records round-trip; a damaged record is
// dropped and counted, the others kept.
TEST_F(Resume, JournalRecordsRoundTripAndDamageIsCounted) {
  const sink::JournalHeader header{42, 100, 100, 7};
  {
    sink::RowJournal journal(path("j"), header, {{Plane::distances, 0, 10, 1}});
    journal.append({Plane::predecessors, 10, 5, 2});
    journal.append({Plane::distances, 90, 10, 3});
  }
  sink::JournalContents read = sink::read_journal(path("j"));
  ASSERT_EQ(read.state, sink::JournalContents::State::ok);
  EXPECT_TRUE(read.header == header);
  ASSERT_EQ(read.records.size(), 3u);
  EXPECT_EQ(read.records[1].plane, Plane::predecessors);
  EXPECT_EQ(read.records[1].first_row, 10);
  EXPECT_EQ(read.records[2].digest, 3u);
  EXPECT_EQ(read.damaged_records, 0);
  flip_byte("j", 7 * 8 + 5 * 8 + 3);
  read = sink::read_journal(path("j"));
  EXPECT_EQ(read.records.size(), 2u);
  EXPECT_EQ(read.damaged_records, 1);
  fs::resize_file(path("j"), fs::file_size(path("j")) - 1);
  read = sink::read_journal(path("j"));
  EXPECT_EQ(read.records.size(), 1u);
  EXPECT_EQ(read.damaged_records, 2);
  EXPECT_EQ(sink::read_journal(path("none")).state, sink::JournalContents::State::missing);
  // A record naming rows outside the matrix is damage too.
  { sink::RowJournal journal(path("k"), header, {{Plane::distances, 95, 10, 1}}); }
  EXPECT_EQ(sink::read_journal(path("k")).damaged_records, 1);
}

// The round checkpoint file on its own, as the GPU's fw uses it (it asks
// due() before fetching its planes from the device, and holds() before an
// int16 or tagged attempt): a save restores byte for byte into the same
// layout only; a damaged or truncated one is refused with a note.
TEST_F(Resume, RoundCheckpointsRestoreOnlyTheirOwnLayoutWhole) {
  std::vector<std::int32_t> a(1000), b(500);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<std::int32_t>(i * 7);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = -static_cast<std::int32_t>(i);
  RoundState state;
  state.layout = "gpu fw tagged tiles 128 n_pad 1000";
  state.rounds = 8;
  state.planes = {{a.data(), a.size() * 4}, {b.data(), b.size() * 4}};
  {
    sink::FileRoundCheckpoints never(path("c"), 42, 0, false);
    EXPECT_FALSE(never.due(3, 8));  // interval 0: never
    sink::FileRoundCheckpoints always(path("c"), 42, 1e-9, false);
    EXPECT_TRUE(always.due(3, 8));
    EXPECT_FALSE(always.due(8, 8));     // after the last round: never
    EXPECT_FALSE(always.holds(state));  // a fresh solve holds nothing
    state.round = 3;
    always.round_done(state);
    EXPECT_EQ(always.saves(), 1);
  }
  std::vector<std::int32_t> a2(a.size()), b2(b.size());
  RoundState into = state;
  into.planes = {{a2.data(), a2.size() * 4}, {b2.data(), b2.size() * 4}};
  {
    sink::FileRoundCheckpoints resumed(path("c"), 42, 1e-9, true);
    EXPECT_TRUE(resumed.holds(into));
    EXPECT_EQ(resumed.restore(into), 3);
    EXPECT_EQ(a2, a);
    EXPECT_EQ(b2, b);
    EXPECT_NE(resumed.note().find("after round 3 of 8"), std::string::npos) << resumed.note();
    // Another layout, another solve or other plane sizes: not held, not restored.
    RoundState other = into;
    other.layout = "gpu fw int32 tiles 128 n_pad 1000";
    EXPECT_FALSE(resumed.holds(other));
    EXPECT_EQ(resumed.restore(other), 0);
    EXPECT_NE(resumed.note().find("another solve or layout"), std::string::npos) << resumed.note();
    other = into;
    other.planes.pop_back();
    EXPECT_FALSE(resumed.holds(other));
    sink::FileRoundCheckpoints another_key(path("c"), 43, 1e-9, true);
    EXPECT_FALSE(another_key.holds(into));
  }
  // A flipped byte in the planes: the header still matches (held), restore refuses.
  flip_byte("c", 14 * 8 + 100);
  {
    sink::FileRoundCheckpoints resumed(path("c"), 42, 1e-9, true);
    EXPECT_TRUE(resumed.holds(into));
    EXPECT_EQ(resumed.restore(into), 0);
    EXPECT_NE(resumed.note().find("damaged"), std::string::npos) << resumed.note();
  }
  flip_byte("c", 14 * 8 + 100);  // whole again
  fs::resize_file(path("c"), fs::file_size(path("c")) - 1);
  {
    sink::FileRoundCheckpoints resumed(path("c"), 42, 1e-9, true);
    EXPECT_EQ(resumed.restore(into), 0);
    EXPECT_NE(resumed.note().find("truncated"), std::string::npos) << resumed.note();
  }
  flip_byte("c", 3 * 8);  // the header's round
  {
    sink::FileRoundCheckpoints resumed(path("c"), 42, 1e-9, true);
    EXPECT_FALSE(resumed.holds(into));
    EXPECT_EQ(resumed.restore(into), 0);
    EXPECT_NE(resumed.note().find("damaged"), std::string::npos) << resumed.note();
  }
}

// CPU fw-ooc (super-rounds of 128 of 1000 vertices: 8) killed at many
// super-round boundaries and during checkpoint writes, with predecessors,
// resumes to the uninterrupted files.
TEST_F(Resume, CpuFwOocResumesAtEverySuperRound) {
  ok("gen random -n 1000 --seed 13 --weights 0:30 -o g.bin");
  ok("solve g.bin --threads 2 -o ref.bin --predecessors ref.npy --algo fw-ooc");
  const std::string args = kSolve + "--algo fw-ooc --checkpoint-every 1e-9";
  for (int k = 1; k <= 7; ++k) {
    const std::string point = (k % 2 == 0 ? "checkpoint-write:" : "checkpoint:") + std::to_string(k);
    SCOPED_TRACE(point);
    killed(args + " --checkpoint", point);
    const std::string summary = ok(args + " --resume");
    const int from = k % 2 == 0 ? k - 1 : k;  // a torn write leaves the one before
    if (from > 0)
      EXPECT_NE(summary.find("after round " + std::to_string(from) + " of 8"), std::string::npos) << summary;
    EXPECT_TRUE(same_file("d.bin", "ref.bin"));
    EXPECT_TRUE(same_file("p.npy", "ref.npy"));
    EXPECT_TRUE(hidden().empty());
  }
}

// ---- On a device (skipped without one): the GPU's dense and row solvers.

#define SKIP_WITHOUT_DEVICE() \
  if (cuda::devices().empty()) GTEST_SKIP() << "no CUDA device"

// GPU fw (in-core) keeps round checkpoints: killed after the first save
// (the later ones depend on how far the host runs ahead of the device) or
// during its write, it resumes to the uninterrupted files, in int32, int16,
// predecessor (tagged) mode and float32.
TEST_F(Resume, GpuFwResumesFromARoundCheckpoint) {
  SKIP_WITHOUT_DEVICE();
  ok("gen rmat -n 3000 --seed 3 --weights 1:40 -o g.bin");
  ok("gen rmat -n 3000 --seed 3 --weights 1:40 --real 2 -o gf.gr");
  for (const std::string& mode : {std::string("g.bin --precision int32"), std::string("g.bin --precision int16"),
                                  std::string("g.bin"), std::string("gf.gr --weights float32 --out-format bin-f32")}) {
    SCOPED_TRACE(mode);
    const bool pred = mode == "g.bin";  // automatic precision with predecessors: the tagged mode
    resumes_like_uninterrupted("solve " + mode + " --backend cuda --algo fw", pred,
                               {{"checkpoint:1", "resumed from the checkpoint after round "},
                                {"checkpoint-write:1", "resumed d.bin: 0 of "}});
  }
}

// GPU fw-ooc, its super-tiles forced small (a 24 MiB device budget: at
// least 4 super-rounds for 2048 vertices), keeps super-round checkpoints.
TEST_F(Resume, GpuFwOocResumesFromASuperRoundCheckpoint) {
  SKIP_WITHOUT_DEVICE();
  ok("gen rmat -n 2048 --seed 4 --weights 1:40 -o g.bin");
  for (const std::string& mode : {std::string("--precision int32"), std::string("--precision int16"), std::string()}) {
    SCOPED_TRACE(mode);
    const std::string fresh =
        resumes_like_uninterrupted("solve g.bin --backend cuda --algo fw-ooc --memory-budget 24M " + mode, mode.empty(),
                                   {{"checkpoint:2", "resumed from the checkpoint after round 2"},
                                    {"checkpoint-write:2", "resumed from the checkpoint after round 1"}});
    EXPECT_NE(fresh.find("out of core: "), std::string::npos) << fresh;
    EXPECT_EQ(fresh.find("out of core: 1 x 1"), std::string::npos) << fresh;
    EXPECT_EQ(fresh.find("out of core: 2 x 2"), std::string::npos) << fresh;
  }
}

// GPU sssp and supernodal killed mid-rows compute only the range of rows
// the journal lacks (the summary's count), to the uninterrupted files. 8192
// vertices: a row is 32 KiB, so the download's 32 MiB blocks put 1024 rows
// each; with OMP_NUM_THREADS=1 each block is one put, one journal record
// (the download puts a block in one part per thread: 16 records a block on
// 16 cores). With predecessors a resumable output takes both planes in
// slices of 128 MiB (2048 rows: 2 records of distances, then 2 of
// predecessors), so the 6th record is in the second slice and the first
// slice's 2048 rows are kept. Before the slices the whole distance plane
// came first, and a kill in it (journal:12 on 16 cores) kept no row.
TEST_F(Resume, GpuRowSolversComputeOnlyTheRowsLeft) {
  SKIP_WITHOUT_DEVICE();
  ok("gen rmat -n 8192 --seed 5 --weights 1:40 -o g.bin");
  ok("gen grid -n 8192 --seed 5 -o grid.bin");
  struct Case {
    std::string solve, kill_at;
    bool pred;
  };
  const std::string one_thread = "OMP_NUM_THREADS=1";
  for (const Case& c : {Case{"solve g.bin --backend cuda --algo sssp", "journal:4", false},
                        Case{"solve g.bin --backend cuda --algo sssp", "journal:6", true},
                        Case{"solve grid.bin --backend cuda --algo supernodal", "journal:4", false}}) {
    SCOPED_TRACE(c.solve + " killed at " + c.kill_at);
    ok(c.solve + " -o ref.npy" + (c.pred ? " --predecessors refp.npy" : ""));
    const std::string out = " -o d.npy" + std::string(c.pred ? " --predecessors p.npy" : "");
    killed(c.solve + out + " --checkpoint", c.kill_at, one_thread);
    const std::string summary = ok(c.solve + out + " --resume", one_thread);
    EXPECT_TRUE(same_file("d.npy", "ref.npy"));
    if (c.pred) EXPECT_TRUE(same_file("p.npy", "refp.npy"));
    EXPECT_TRUE(hidden().empty());
    const auto at = summary.find("resumed: rows ");
    ASSERT_NE(at, std::string::npos) << summary;
    const auto open = summary.find('(', at);
    const long computed = std::stol(summary.substr(open + 1));
    const long rows = std::stol(summary.substr(summary.find(" of ", open) + 4));
    EXPECT_GT(computed, 0) << summary;
    EXPECT_LT(computed, rows) << summary;
    // The first slice of both planes (2048 rows) was in before the kill.
    if (c.pred) EXPECT_LE(computed, rows - 2048) << summary;
    fs::remove(path("d.npy"));
    fs::remove(path("p.npy"));
  }
}

// A sink that kept some rows of an interrupted solve (Sink::resumed).
class KeptRowsSink : public Sink {
 public:
  explicit KeptRowsSink(std::vector<bool> present) : present_(std::move(present)) {}
  void begin(const SinkLayout&) override {}
  void put(const RowBlock& block) override {
    for (std::int64_t r = 0; r < block.rows; ++r) put_rows.push_back(block.first_row + r);
  }
  void commit() override {}
  SinkResume resumed() const override { return {present_, ""}; }
  bool keeps_partial() const override { return true; }
  std::vector<std::int64_t> put_rows;

 private:
  std::vector<bool> present_;
};

// The GPU's row solvers (sssp, supernodal) resume through the one row
// split: the gaps between the kept rows, one chunk each; no kept row is
// computed again.
TEST_F(Resume, RowSolversResumeTheRangesOfRowsLeft) {
  std::vector<bool> present(100, true);
  for (const int r : {0, 40, 41, 55, 70, 99}) present[static_cast<std::size_t>(r)] = false;
  KeptRowsSink sink(present);
  SinkLayout layout;
  layout.n = 100;
  const resume::RowsLeft left = resume::rows_left(sink, layout, SolveOptions{}, false, true);
  ASSERT_NE(left.run.row_split, nullptr);
  EXPECT_EQ(left.rows_computed, 6);
  EXPECT_EQ(left.ranges, 5);
  EXPECT_EQ(left.split->first(), 0);
  EXPECT_EQ(left.split->end(), 100);
  std::vector<std::pair<std::int64_t, std::int64_t>> drawn;
  for (RowSplit::Range r = left.run.row_split->next(); r.count > 0; r = left.run.row_split->next()) {
    drawn.emplace_back(r.first, r.count);
    EXPECT_EQ(left.split->rows_before(r.chunk + 1) - left.split->rows_before(r.chunk), r.count);
  }
  EXPECT_EQ(drawn, (std::vector<std::pair<std::int64_t, std::int64_t>>{{0, 1}, {40, 2}, {55, 1}, {70, 1}, {99, 1}}));
  // The solve puts the rows it drew (and, from another solver, maybe a kept
  // one): only the rows left reach the sink.
  std::vector<std::int32_t> rows(31 * 100, 0);
  left.into->put(RowBlock{Plane::distances, Element::int32, 40, 31, 100, rows.data()});
  left.into->put(RowBlock{Plane::distances, Element::int32, 0, 1, 100, rows.data()});
  EXPECT_EQ(sink.put_rows, (std::vector<std::int64_t>{40, 41, 55, 70, 0}));
  // A solve of the rows left delivers as into the resumable sink itself (the
  // GPU's paired planes), so a second kill keeps rows too.
  EXPECT_TRUE(left.into->keeps_partial());
  // Without row_range (the GPU's dense solvers): every row, the kept ones dropped.
  const resume::RowsLeft whole = resume::rows_left(sink, layout, SolveOptions{}, false, false);
  EXPECT_EQ(whole.run.row_split, nullptr);
  EXPECT_EQ(whole.rows_computed, -1);
  // Every row kept: nothing to compute, no split.
  KeptRowsSink all(std::vector<bool>(100, true));
  const resume::RowsLeft none = resume::rows_left(all, layout, SolveOptions{}, false, true);
  EXPECT_TRUE(none.nothing_left);
  EXPECT_EQ(none.run.row_split, nullptr);
}

}  // namespace
}  // namespace apsp

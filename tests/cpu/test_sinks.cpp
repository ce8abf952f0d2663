// The result sinks (apsp/sinks.hpp): every sink and every matrix format with
// rows in any order, from several threads, in blocks that do not divide n;
// the ledger that catches a row delivered twice or never; outputs that are
// never half-written; and the refusals that come before any work (disk
// space through an injected statvfs, memory through injected /proc/meminfo
// and cgroup files, the text format's size limit).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <mutex>
#include <numeric>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "apsp/error.hpp"
#include "apsp/generate.hpp"
#include "apsp/io.hpp"
#include "apsp/sinks.hpp"
#include "apsp/solver.hpp"
#include "apsp/verify.hpp"
#include "core/resources.hpp"
#include "io/files.hpp"
#include "sink/rows.hpp"
#include "support/cases.hpp"
#include "support/scratch.hpp"

namespace apsp {
namespace {

namespace fs = std::filesystem;

// A fresh directory per test; the library's test hooks are reset afterwards.
class SinkTest : public test::ScratchDirTest {
 protected:
  void TearDown() override {
    resources::set_statvfs_for_testing(nullptr);
    resources::set_memory_sources_for_testing(nullptr);
    io::detail::set_unnamed_temporaries_for_testing(true);
    io::detail::set_rename_exchange_for_testing(true);
    sink::fail_between_renames_for_testing(false);
    ScratchDirTest::TearDown();
  }
  // The names in the test's directory: a discarded or committed output must
  // leave no temporary file behind.
  std::set<std::string> files() const {
    std::set<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_)) names.insert(entry.path().filename().string());
    return names;
  }
};

// An n x n matrix whose cells name their place, with kInf in every fifth.
std::vector<dist_t> distance_pattern(std::int64_t n) {
  std::vector<dist_t> m(static_cast<std::size_t>(n * n));
  for (std::int64_t x = 0; x < n * n; ++x) m[x] = x % 5 == 3 ? kInf : static_cast<dist_t>((x / n) * 7919 + x % n - 500);
  return m;
}

std::vector<vertex_t> predecessor_pattern(std::int64_t n) {
  std::vector<vertex_t> m(static_cast<std::size_t>(n * n));
  for (std::int64_t x = 0; x < n * n; ++x) m[x] = x % 7 == 0 ? -1 : static_cast<vertex_t>((x / n + x % n) % n);
  return m;
}

// Puts the rows of `m` into `sink` as blocks of `block` rows (the last one
// shorter when block does not divide n), in a shuffled order, from `threads`
// threads, each block copied at row stride `stride` >= n first.
void put_shuffled(Sink& sink, Plane plane, const std::vector<std::int32_t>& m, std::int64_t n, std::int64_t block,
                  int threads, std::int64_t stride, unsigned seed) {
  std::vector<std::int64_t> firsts;
  for (std::int64_t first = 0; first < n; first += block) firsts.push_back(first);
  std::shuffle(firsts.begin(), firsts.end(), std::mt19937(seed));
  std::vector<std::thread> workers;
  std::vector<std::string> errors(static_cast<std::size_t>(threads));
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      try {
        for (std::size_t k = static_cast<std::size_t>(t); k < firsts.size(); k += static_cast<std::size_t>(threads)) {
          const std::int64_t first = firsts[k], rows = std::min(block, n - first);
          std::vector<std::int32_t> padded(static_cast<std::size_t>(rows * stride), 77);
          for (std::int64_t r = 0; r < rows; ++r) std::copy_n(&m[(first + r) * n], n, &padded[r * stride]);
          sink.put(RowBlock{plane, Element::int32, first, rows, stride, padded.data()});
        }
      } catch (const std::exception& e) {
        errors[t] = e.what();
      }
    });
  for (auto& w : workers) w.join();
  for (const auto& e : errors) ASSERT_EQ(e, "");
}

template <class T>
std::vector<std::int32_t> as_vector(const HostVector<T>& v) {
  return std::vector<std::int32_t>(v.begin(), v.end());
}

const std::int64_t kSizes[] = {0, 1, 2, 63, 64, 65, 130, 257};

TEST_F(SinkTest, HostMatrixHoldsRowsFromAnyThreadInAnyOrder) {
  for (const std::int64_t n : kSizes)
    for (const std::int64_t block : {std::int64_t{1}, std::int64_t{7}, std::int64_t{64}})
      for (const std::int64_t pad : {std::int64_t{0}, std::int64_t{3}}) {
        SCOPED_TRACE("n=" + std::to_string(n) + " block=" + std::to_string(block) + " pad=" + std::to_string(pad));
        const auto d = distance_pattern(n);
        const auto p = predecessor_pattern(n);
        HostMatrixSink sink;
        sink.begin(SinkLayout{n, Element::int32, true});
        put_shuffled(sink, Plane::distances, d, n, block, 3, n + pad, 1);
        put_shuffled(sink, Plane::predecessors, p, n, block, 3, n + pad, 2);
        sink.commit();
        EXPECT_EQ(test::first_difference(d, sink.distances(), n), "");
        EXPECT_EQ(as_vector(sink.predecessors()), p);
      }
}

TEST_F(SinkTest, HostMatrixExposesItsRowsForComputingInPlace) {
  const std::int64_t n = 65;
  HostMatrixSink sink;
  EXPECT_EQ(sink.row_address(Plane::distances, 0), nullptr);  // nothing before begin()
  sink.begin(SinkLayout{n, Element::int32, false});
  EXPECT_EQ(sink.row_address(Plane::predecessors, 0), nullptr);  // not announced
  auto* row0 = static_cast<dist_t*>(sink.row_address(Plane::distances, 0));
  ASSERT_NE(row0, nullptr);
  EXPECT_EQ(static_cast<dist_t*>(sink.row_address(Plane::distances, 10)), row0 + 10 * n);  // stride n
  const auto d = distance_pattern(n);
  std::copy(d.begin(), d.end(), row0);
  // put() of the sink's own rows copies nothing and counts them.
  sink.put(RowBlock{Plane::distances, Element::int32, 0, 40, n, row0});
  sink.put(RowBlock{Plane::distances, Element::int32, 40, n - 40, n, row0 + 40 * n});
  sink.commit();
  EXPECT_EQ(test::first_difference(d, sink.distances(), n), "");
}

// prepare() (what the GPU backend calls while the device computes) only
// commits pages: the rows put afterwards, of every element type and both
// planes, are what the sink holds; before begin() it is a usage error, and
// commit_pages accepts an empty range.
TEST_F(SinkTest, HostMatrixPrepareCommitsPagesAndChangesNothingElse) {
  const std::int64_t n = 300;  // rows of 1200 bytes: a page spans rows
  HostMatrixSink early;
  EXPECT_THROW(early.prepare(), UsageError);
  EXPECT_NO_THROW(commit_pages(nullptr, 0));
  const auto d = distance_pattern(n);
  for (const Element element : {Element::int32, Element::float64}) {
    SCOPED_TRACE(to_string(element));
    HostMatrixSink sink;
    sink.begin(SinkLayout{n, element, true});
    sink.prepare();
    std::vector<double> d64(d.begin(), d.end());
    std::vector<vertex_t> p(static_cast<std::size_t>(n * n));
    std::iota(p.begin(), p.end(), 7);
    sink.put(RowBlock{Plane::distances, element, 0, n, n,
                      element == Element::int32 ? static_cast<const void*>(d.data()) : d64.data()});
    sink.put(RowBlock{Plane::predecessors, Element::int32, 0, n, n, p.data()});
    sink.commit();
    if (element == Element::int32)
      EXPECT_EQ(test::first_difference(d, sink.distances(), n), "");
    else
      EXPECT_TRUE(std::equal(d64.begin(), d64.end(), sink.distances_f64().begin()));
    EXPECT_EQ(as_vector(sink.predecessors()), p);
  }
}

// Each sink refuses what a correct producer never sends, and commit() finds
// the row that never came.
TEST_F(SinkTest, EverySinkChecksItsRows) {
  const std::int64_t n = 70;
  const auto d = distance_pattern(n);
  auto make = [&](int kind) -> std::unique_ptr<Sink> {
    if (kind == 0) return std::make_unique<HostMatrixSink>();
    if (kind == 1) return std::make_unique<NullSink>();
    return std::make_unique<FileSink>(MatrixFileTarget{path("d.bin")});
  };
  for (int kind = 0; kind < 3; ++kind) {
    SCOPED_TRACE("sink " + std::to_string(kind));
    auto expect_usage = [](const std::function<void()>& f, const std::string& words) {
      try {
        f();
        ADD_FAILURE() << "no UsageError (" << words << ")";
      } catch (const UsageError& e) {
        EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
      }
    };
    auto sink = make(kind);
    expect_usage([&] { sink->put(RowBlock{Plane::distances, Element::int32, 0, 1, n, d.data()}); }, "before begin");
    sink->begin(SinkLayout{n, Element::int32, false});
    const RowBlock first{Plane::distances, Element::int32, 0, 30, n, d.data()};
    sink->put(first);
    expect_usage(
        [&] {
          sink->put(RowBlock{Plane::distances, Element::int32, 29, 2, n, &d[29 * n]});
        },
        "row 29 of the distances arrived twice");
    expect_usage(
        [&] {
          sink->put(RowBlock{Plane::predecessors, Element::int32, 40, 1, n, d.data()});
        },
        "not told that predecessors come");
    expect_usage([&] { sink->put(RowBlock{Plane::distances, Element::float32, 40, 1, n, d.data()}); }, "holds float32");
    expect_usage(
        [&] {
          sink->put(RowBlock{Plane::distances, Element::int32, 60, 11, n, d.data()});
        },
        "rows [60, 71) are outside the 70 rows");
    expect_usage([&] { sink->put(RowBlock{Plane::distances, Element::int32, 40, 1, n - 1, d.data()}); }, "stride 69");
    sink->put(RowBlock{Plane::distances, Element::int32, 31, n - 31, n, &d[31 * n]});
    try {
      sink->commit();
      ADD_FAILURE() << "commit() without row 30";
    } catch (const UsageError&) {
      ADD_FAILURE() << "a missing row is not a usage error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("69 of the 70 rows of the distances (row 30 never arrived)"),
                std::string::npos)
          << e.what();
    }
    sink->discard();
  }
  EXPECT_EQ(files(), std::set<std::string>{});  // the file sink left nothing
}

// A rank of a distributed solve delivers only its own rows: NullSink with
// Rows::some commits them, and still refuses a row given twice.
TEST_F(SinkTest, NullSinkForSomeRowsCommitsAPart) {
  const std::int64_t n = 70;
  const auto d = distance_pattern(n);
  NullSink sink(NullSink::Rows::some);
  sink.begin(SinkLayout{n, Element::int32, false});
  sink.put(RowBlock{Plane::distances, Element::int32, 10, 20, n, &d[10 * n]});
  EXPECT_THROW(sink.put(RowBlock{Plane::distances, Element::int32, 29, 1, n, &d[29 * n]}), UsageError);
  EXPECT_NO_THROW(sink.commit());
}

TEST_F(SinkTest, FileSinkWritesEveryFormatFromShuffledBlocks) {
  for (const char* ext : {"bin", "npy", "txt", "mat"})
    for (const std::int64_t n : kSizes) {
      SCOPED_TRACE(std::string(ext) + " n=" + std::to_string(n));
      const auto d = distance_pattern(n);
      const auto p = predecessor_pattern(n);
      const std::string dist_name = std::string("d.") + ext, pred_name = std::string("p.") + ext;
      const std::string dist_file = path(dist_name), pred_file = path(pred_name);
      {
        FileSink sink(MatrixFileTarget{dist_file}, MatrixFileTarget{pred_file});
        sink.begin(SinkLayout{n, Element::int32, true});
        put_shuffled(sink, Plane::distances, d, n, 9, 4, n + 2, 3);
        put_shuffled(sink, Plane::predecessors, p, n, 9, 4, n, 4);
        sink.commit();
        EXPECT_EQ(sink.bytes_written(), fs::file_size(dist_file) + fs::file_size(pred_file));
      }
      std::int64_t read_n = -1;
      EXPECT_EQ(test::first_difference(d, io::read_matrix(dist_file, read_n), n), "");
      EXPECT_EQ(read_n, n);
      EXPECT_EQ(io::read_matrix(pred_file, read_n), p);
      const std::string dist_bytes = read_text(dist_name), pred_bytes = read_text(pred_name);
      if (std::string(ext) == "bin") {
        EXPECT_EQ(dist_bytes, std::string(reinterpret_cast<const char*>(d.data()), d.size() * 4));
      } else if (std::string(ext) == "npy") {
        EXPECT_EQ(dist_bytes.substr(0, 6), "\x93NUMPY");
        EXPECT_EQ(dist_bytes.size() % 64, (n * n * 4) % 64);  // the data starts 64-byte aligned
      } else if (n >= 4) {
        // Text: unreachable distances print INF; predecessors print -1, never INF.
        EXPECT_NE(dist_bytes.find("INF"), std::string::npos);
        EXPECT_EQ(pred_bytes.find("INF"), std::string::npos);
        EXPECT_NE(pred_bytes.find("-1"), std::string::npos);
      }
      EXPECT_EQ(files(), (std::set<std::string>{dist_name, pred_name}));
      fs::remove(dist_file);
      fs::remove(pred_file);
    }
}

// A whole matrix in one put(): text is formatted in parallel pieces and
// still written in row order; put_matrix splits it into blocks itself.
TEST_F(SinkTest, LargeTextBlocksAreFormattedInParallelAndWrittenInOrder) {
  const std::int64_t n = 300;
  const auto d = distance_pattern(n);
  {
    FileSink sink(MatrixFileTarget{path("one.txt")});
    sink.begin(SinkLayout{n, Element::int32, false});
    sink.put(RowBlock{Plane::distances, Element::int32, 0, n, n, d.data()});
    sink.commit();
  }
  {
    FileSink sink(MatrixFileTarget{path("blocks.txt")});
    sink.begin(SinkLayout{n, Element::int32, false});
    put_matrix(sink, Plane::distances, d.data(), n);
    sink.commit();
  }
  std::int64_t read_n = 0;
  EXPECT_EQ(test::first_difference(d, io::read_matrix(path("one.txt"), read_n), n), "");
  EXPECT_EQ(read_text("one.txt"), read_text("blocks.txt"));
  // io::write_matrix is the same writer.
  io::write_matrix(path("wrapper.txt"), d, n);
  EXPECT_EQ(read_text("one.txt"), read_text("wrapper.txt"));
}

TEST_F(SinkTest, FileSinkRefusesGraphFormatsAndAPredecessorFileWithoutPredecessors) {
  EXPECT_THROW(FileSink(MatrixFileTarget{path("d.gr")}), UsageError);
  EXPECT_THROW(FileSink(MatrixFileTarget{path("d.csv")}), UsageError);
  FileSink sink(MatrixFileTarget{path("d.bin")}, MatrixFileTarget{path("p.bin")});
  try {
    sink.begin(SinkLayout{5, Element::int32, false});
    ADD_FAILURE() << "no UsageError";
  } catch (const UsageError& e) {
    EXPECT_EQ(e.option(), "predecessors");
  }
  // The NTHU .bin holds int32 only; raw floats go to .bin only as a named
  // bin-f32 / bin-f64. Text and .npy take the real-valued element types.
  FileSink bin(MatrixFileTarget{path("f.bin")});
  EXPECT_THROW(bin.begin(SinkLayout{5, Element::float64, false}), UsageError);
  FileSink text(MatrixFileTarget{path("f.txt")});
  text.begin(SinkLayout{5, Element::float64, false});
  text.discard();
  FileSink npy(MatrixFileTarget{path("f.npy")});
  npy.begin(SinkLayout{2, Element::float64, false});
  const double cells[4] = {0.0, 1.5, 2.25, 0.0};
  npy.put(RowBlock{Plane::distances, Element::float64, 0, 2, 2, cells});
  npy.commit();
  const std::string bytes = read_text("f.npy");
  EXPECT_NE(bytes.find("'descr': '<f8'"), std::string::npos);
  EXPECT_EQ(bytes.size(), 128u + sizeof cells);
  EXPECT_EQ(bytes.substr(128), std::string(reinterpret_cast<const char*>(cells), sizeof cells));
  EXPECT_EQ(files(), (std::set<std::string>{"f.npy"}));
}

// Discarding, or destroying the sink without commit(), keeps an existing
// file byte for byte and leaves no temporary; commit() replaces the file,
// keeps its permissions and writes through a symbolic link. Both kinds of
// temporary file: unnamed (O_TMPFILE) and hidden named ones; both ways of
// replacing: an exchange of names and rename(2) over the old file.
TEST_F(SinkTest, OutputsAreNeverHalfWritten) {
  const std::int64_t n = 100;
  const auto d = distance_pattern(n);
  for (const int variant : {0, 1, 2, 3}) {
    const bool unnamed = variant % 2 == 0, exchange = variant < 2;
    SCOPED_TRACE(std::string(unnamed ? "unnamed temporaries" : "named temporaries") +
                 (exchange ? ", exchanged" : ", renamed over"));
    io::detail::set_unnamed_temporaries_for_testing(unnamed);
    io::detail::set_rename_exchange_for_testing(exchange);
    for (const char* name : {"d.bin", "d.npy", "d.txt"}) {
      SCOPED_TRACE(name);
      write_text(name, "the old result");
      {
        FileSink sink(MatrixFileTarget{path(name)});
        sink.begin(SinkLayout{n, Element::int32, false});
        put_shuffled(sink, Plane::distances, d, n, 10, 2, n, 5);
        sink.discard();
      }
      EXPECT_EQ(read_text(name), "the old result");
      {
        FileSink sink(MatrixFileTarget{path(name)});
        sink.begin(SinkLayout{n, Element::int32, false});
        sink.put(RowBlock{Plane::distances, Element::int32, 0, 50, n, d.data()});
      }  // destroyed half-way
      EXPECT_EQ(read_text(name), "the old result");
      EXPECT_EQ(files(), std::set<std::string>{name});
      fs::permissions(path(name), fs::perms::owner_read | fs::perms::owner_write);
      {
        FileSink sink(MatrixFileTarget{path(name)});
        sink.begin(SinkLayout{n, Element::int32, false});
        put_matrix(sink, Plane::distances, d.data(), n);
        EXPECT_EQ(read_text(name), "the old result");  // until commit()
        sink.commit();
      }
      std::int64_t read_n = 0;
      EXPECT_EQ(test::first_difference(d, io::read_matrix(path(name), read_n), n), "");
      EXPECT_EQ(fs::status(path(name)).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
      EXPECT_EQ(files(), std::set<std::string>{name});
      fs::remove(path(name));
    }
    // Through a symbolic link: the file it points to is replaced, the link stays.
    write_text("real.bin", "old");
    fs::create_symlink(path("real.bin"), path("link.bin"));
    io::write_matrix(path("link.bin"), d, n);
    EXPECT_TRUE(fs::is_symlink(path("link.bin")));
    EXPECT_EQ(fs::file_size(path("real.bin")), static_cast<std::uintmax_t>(n * n * 4));
    EXPECT_EQ(files(), (std::set<std::string>{"link.bin", "real.bin"}));
    fs::remove(path("link.bin"));
    fs::remove(path("real.bin"));
    // Graph writers too.
    write_text("g.gr", "old graph");
    EXPECT_THROW(io::write_graph(path("g.gr"), Graph{2, {{0, 5, 1}}}), InputError);
    EXPECT_EQ(read_text("g.gr"), "old graph");
    io::write_graph(path("g.gr"), Graph{2, {{0, 1, 1}}});
    EXPECT_NE(read_text("g.gr").find("p sp 2 1"), std::string::npos);
    EXPECT_EQ(files(), std::set<std::string>{"g.gr"});
    fs::remove(path("g.gr"));
  }
}

// Issue 20, defect 10: the two files were renamed one after the other, so a
// failure between the renames left new distances beside old predecessors.
// With a failure injected there, both files stay as they were (or neither
// appears where there were none), with no temporary left; without it, both
// are replaced. Old files are replaced by an exchange of names (the old
// predecessors then wait under the temporary's name) or by rename(2).
TEST_F(SinkTest, DistancesAndPredecessorsAreReplacedTogetherOrNotAtAll) {
  const std::int64_t n = 20;
  const auto d = distance_pattern(n);
  const auto p = predecessor_pattern(n);
  for (const int variant : {0, 1, 2, 3}) {
    const bool unnamed = variant % 2 == 0, exchange = variant < 2;
    io::detail::set_unnamed_temporaries_for_testing(unnamed);
    io::detail::set_rename_exchange_for_testing(exchange);
    for (const bool existing : {true, false}) {
      SCOPED_TRACE(std::string(unnamed ? "unnamed" : "named") + (exchange ? ", exchanged" : ", renamed over") +
                   (existing ? ", old files" : ", no old files"));
      if (existing) {
        write_text("d.npy", "old distances");
        write_text("p.npy", "old predecessors");
      }
      sink::fail_between_renames_for_testing(true);
      {
        FileSink sink(MatrixFileTarget{path("d.npy")}, MatrixFileTarget{path("p.npy")});
        sink.begin(SinkLayout{n, Element::int32, true});
        put_matrix(sink, Plane::distances, d.data(), n);
        put_matrix(sink, Plane::predecessors, p.data(), n);
        EXPECT_THROW(sink.commit(), ResourceError);
      }
      sink::fail_between_renames_for_testing(false);
      if (existing) {
        EXPECT_EQ(read_text("d.npy"), "old distances");
        EXPECT_EQ(read_text("p.npy"), "old predecessors");
        EXPECT_EQ(files(), (std::set<std::string>{"d.npy", "p.npy"}));
      } else {
        EXPECT_EQ(files(), std::set<std::string>{});
      }
      {
        FileSink sink(MatrixFileTarget{path("d.npy")}, MatrixFileTarget{path("p.npy")});
        sink.begin(SinkLayout{n, Element::int32, true});
        put_matrix(sink, Plane::distances, d.data(), n);
        put_matrix(sink, Plane::predecessors, p.data(), n);
        sink.commit();
      }
      std::int64_t read_n = 0;
      EXPECT_EQ(test::first_difference(d, io::read_matrix(path("d.npy"), read_n), n), "");
      EXPECT_EQ(test::first_difference(p, io::read_matrix(path("p.npy"), read_n), n), "");
      EXPECT_EQ(files(), (std::set<std::string>{"d.npy", "p.npy"}));
      fs::remove(path("d.npy"));
      fs::remove(path("p.npy"));
    }
  }
}

// True when every extent of the file `name` is still delayed-allocation
// (no block given on disk: its dirty pages wait for the kernel's writeback);
// false when any has blocks. nullopt where FIEMAP cannot tell.
std::optional<bool> all_delalloc(const std::string& name) {
  const int fd = ::open(name.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  constexpr int kExtents = 64;
  std::vector<unsigned char> buffer(sizeof(fiemap) + kExtents * sizeof(fiemap_extent), 0);
  auto* map = reinterpret_cast<fiemap*>(buffer.data());
  map->fm_length = FIEMAP_MAX_OFFSET;
  map->fm_extent_count = kExtents;
  const bool mapped = ::ioctl(fd, FS_IOC_FIEMAP, map) == 0;
  ::close(fd);
  if (!mapped || map->fm_mapped_extents == 0) return std::nullopt;
  for (unsigned e = 0; e < map->fm_mapped_extents; ++e)
    if ((map->fm_extents[e].fe_flags & FIEMAP_EXTENT_DELALLOC) == 0) return false;
  return true;
}

// Replacing an existing output leaves the new file's pages to the kernel's
// writeback, as writing a new one does: ext4 flushed a file renamed over an
// existing one (auto_da_alloc), which cost the write of the whole output to
// disk inside rename (0.6-0.8 s per GiB, docs/perf.md "Replacing an
// existing output"). Seen without timing: right after the commit the file's
// extents are still delayed-allocation, where the flush would have given
// them blocks. ext4 with delayed allocation only; skipped where the kernel's
// own writeback ran during the test (a file written before the output was
// given blocks too). Also checks that rename(2) over the old file, the
// fallback, does flush here (else skipped): the test tells the two apart.
TEST_F(SinkTest, ReplacingAnOutputLeavesItsPagesToWriteback) {
  struct statfs fs_info {};
  ASSERT_EQ(::statfs(dir_.c_str(), &fs_info), 0);
  if (fs_info.f_type != 0xEF53) GTEST_SKIP() << "not ext4: no flush on rename to avoid";
  const std::int64_t n = 512;  // 1 MiB of int32
  const auto d = distance_pattern(n);
  for (const bool exchange : {true, false}) {
    SCOPED_TRACE(exchange ? "exchanged" : "renamed over");
    io::detail::set_rename_exchange_for_testing(exchange);
    write_text("d.bin", "the old result");
    write_text("witness", std::string(std::size_t{1} << 20, 'w'));
    if (all_delalloc(path("witness")) != true) GTEST_SKIP() << "no delayed allocation on " << dir_;
    io::write_matrix(path("d.bin"), d, n);
    const std::optional<bool> delalloc = all_delalloc(path("d.bin"));
    if (all_delalloc(path("witness")) != true) GTEST_SKIP() << "the kernel's writeback ran during the test";
    ASSERT_TRUE(delalloc.has_value());
    if (!exchange && *delalloc) GTEST_SKIP() << "this ext4 does not flush on rename (noauto_da_alloc)";
    EXPECT_EQ(*delalloc, exchange);
    std::int64_t read_n = 0;
    EXPECT_EQ(test::first_difference(d, io::read_matrix(path("d.bin"), read_n), n), "");
    EXPECT_EQ(files(), (std::set<std::string>{"d.bin", "witness"}));
    fs::remove(path("d.bin"));
    fs::remove(path("witness"));
  }
}

// A new output file gets the mode open(O_CREAT) would give it, 0666 less
// the umask, through either kind of temporary (issue 20, defect 16: the
// named fallback made every new file 0644).
TEST_F(SinkTest, NewOutputsHonourTheUmask) {
  const std::int64_t n = 4;
  const auto d = distance_pattern(n);
  const mode_t saved = ::umask(0);
  for (const mode_t mask : {mode_t{077}, mode_t{002}, mode_t{022}}) {
    ::umask(mask);
    for (const bool unnamed : {true, false}) {
      SCOPED_TRACE(std::string(unnamed ? "unnamed" : "named") + " temporaries, umask " + std::to_string(mask));
      io::detail::set_unnamed_temporaries_for_testing(unnamed);
      io::write_matrix(path("d.bin"), d, n);
      struct stat info {};
      ASSERT_EQ(::stat(path("d.bin").c_str(), &info), 0);
      EXPECT_EQ(info.st_mode & 07777, 0666u & ~mask);
      fs::remove(path("d.bin"));
    }
  }
  ::umask(saved);
}

// A solve that fails, by a negative cycle or by a sink that fails half-way,
// leaves the existing output untouched and no temporary file.
class FailingSink : public Sink {
 public:
  FailingSink(Sink& inner, int puts_before_failing) : inner_(inner), left_(puts_before_failing) {}
  void begin(const SinkLayout& layout) override { inner_.begin(layout); }
  void put(const RowBlock& block) override {
    if (left_-- <= 0) throw ResourceError("injected write failure");
    inner_.put(block);
  }
  void commit() override { inner_.commit(); }
  void discard() noexcept override {
    discarded_ = true;
    inner_.discard();
  }
  bool discarded() const { return discarded_; }

 private:
  Sink& inner_;
  std::atomic<int> left_;
  bool discarded_ = false;
};

TEST_F(SinkTest, AFailedSolveLeavesTheOldFileAndNoTemporary) {
  const test::Case cycle = test::negative_cycle_case(50, 3);
  write_text("d.bin", "old");
  for (const std::string algorithm : list_algorithms(Backend::cpu)) {
    SCOPED_TRACE(algorithm);
    SolveOptions o;
    o.backend = Backend::cpu;
    o.algorithm = algorithm;
    if (algorithm != "dijkstra") {
      FileSink sink(MatrixFileTarget{path("d.bin")});
      EXPECT_THROW(solve(cycle.graph, o, sink), NegativeCycleError);
      EXPECT_EQ(read_text("d.bin"), "old");
    }
    GenerateOptions g;
    g.kind = GraphKind::random;
    g.n = 300;
    g.seed = 4;
    FileSink file(MatrixFileTarget{path("d.bin")});
    FailingSink failing(file, 2);
    try {
      solve(generate(g), o, failing);
      ADD_FAILURE() << "the injected failure did not surface";
    } catch (const ResourceError& e) {
      EXPECT_STREQ(e.what(), "injected write failure");
    }
    EXPECT_TRUE(failing.discarded());
    EXPECT_EQ(read_text("d.bin"), "old");
    EXPECT_EQ(files(), std::set<std::string>{"d.bin"});
  }
}

// A sink that records every block (copying its rows), from whichever thread
// puts it, and optionally exposes its memory like a host matrix.
class RecordingSink : public Sink {
 public:
  explicit RecordingSink(bool expose_memory) : expose_memory_(expose_memory) {}
  void begin(const SinkLayout& layout) override {
    layout_ = layout;
    const auto cells = static_cast<std::size_t>(layout.n * layout.n);
    dist_.assign(cells, -99);
    pred_.assign(layout.predecessors ? cells : 0, -99);
    arrivals_.assign(static_cast<std::size_t>(2 * layout.n), 0);
  }
  void put(const RowBlock& b) override {
    std::lock_guard<std::mutex> lock(mutex_);
    blocks_.push_back(b.rows);
    threads_.insert(std::this_thread::get_id());
    std::vector<std::int32_t>& m = b.plane == Plane::distances ? dist_ : pred_;
    const auto* rows = static_cast<const std::int32_t*>(b.data);
    for (std::int64_t r = 0; r < b.rows; ++r) {
      ++arrivals_[static_cast<std::size_t>((b.plane == Plane::distances ? 0 : layout_.n) + b.first_row + r)];
      if (rows + r * b.row_stride != &m[(b.first_row + r) * layout_.n])
        std::copy_n(rows + r * b.row_stride, layout_.n, &m[(b.first_row + r) * layout_.n]);
    }
  }
  void commit() override { committed_ = true; }
  void* row_address(Plane plane, std::int64_t row) override {
    if (!expose_memory_) return nullptr;
    std::vector<std::int32_t>& m = plane == Plane::distances ? dist_ : pred_;
    return m.empty() ? nullptr : &m[row * layout_.n];
  }

  SinkLayout layout_;
  bool expose_memory_;
  std::mutex mutex_;
  std::vector<std::int32_t> dist_, pred_;
  std::vector<int> arrivals_;  // per row of each announced plane
  std::vector<std::int64_t> blocks_;
  std::set<std::thread::id> threads_;
  bool committed_ = false;
};

TEST_F(SinkTest, CpuAlgorithmsHandEveryRowToTheSinkOnce) {
  bool saw_partial_block = false, saw_several_threads = false;
  for (const test::Case& c : test::standard_cases()) {
    const std::int64_t n = c.graph.n;
    if (n != 0 && n != 1 && n != 65 && n != 200 && n != 257) continue;
    const std::vector<dist_t> expected = test::reference_distances(c.graph);
    const bool negative = weight_stats(normalize(c.graph)).has_negative();
    for (const std::string algorithm : list_algorithms(Backend::cpu))
      for (const bool expose : {false, true})
        for (const int threads : {1, 3}) {
          SCOPED_TRACE(c.name + " " + algorithm + (expose ? " in the sink's memory" : " staged") +
                       " threads=" + std::to_string(threads));
          if (negative && algorithm == "dijkstra") continue;
          SolveOptions o;
          o.backend = Backend::cpu;
          o.algorithm = algorithm;
          o.threads = threads;
          o.predecessors = true;
          RecordingSink sink(expose);
          const SolveSummary s = solve(c.graph, o, sink);
          EXPECT_EQ(s.algorithm, algorithm);
          EXPECT_TRUE(sink.committed_);
          EXPECT_EQ(std::count(sink.arrivals_.begin(), sink.arrivals_.end(), 1),
                    static_cast<std::ptrdiff_t>(sink.arrivals_.size()));
          EXPECT_EQ(test::first_difference(expected, sink.dist_, c.graph.n), "");
          EXPECT_EQ(test::check_predecessors(c.graph, sink.dist_, sink.pred_), "");
          if (!sink.blocks_.empty() && n % *std::max_element(sink.blocks_.begin(), sink.blocks_.end()) != 0)
            saw_partial_block = true;
          if (sink.threads_.size() > 1) saw_several_threads = true;
        }
  }
  EXPECT_TRUE(saw_partial_block) << "no case had a row block size that does not divide n";
  EXPECT_TRUE(saw_several_threads) << "no solve put rows from more than one thread";
}

// Statvfs answers for the injected disk: `g_free_blocks` blocks of 4 KiB.
unsigned long g_free_blocks = 0;
int fake_statvfs(const char*, struct statvfs* out) {
  *out = {};
  out->f_frsize = 4096;
  out->f_bsize = 4096;
  out->f_bavail = g_free_blocks;
  out->f_bfree = g_free_blocks;
  return 0;
}

TEST_F(SinkTest, AFileThatCannotFitItsDiskIsRefusedBeforeAnyWork) {
  resources::set_statvfs_for_testing(fake_statvfs);
  g_free_blocks = 4;  // 16384 bytes
  const Graph g{100, {{0, 1, 3}, {1, 2, 4}}};
  write_text("d.bin", "old");
  for (const char* name : {"d.bin", "d.npy", "d.txt"}) {
    SCOPED_TRACE(name);
    std::vector<double> progress;
    SolveOptions o;
    o.backend = Backend::cpu;
    o.algorithm = "fw-seq";
    o.progress = [&](double f) { progress.push_back(f); };
    FileSink sink(MatrixFileTarget{path(name)});
    try {
      solve(g, o, sink);
      ADD_FAILURE() << "no ResourceError";
    } catch (const ResourceError& e) {
      const std::string text = e.what();
      const char* size = std::string(name) == "d.bin"   ? "(40000 bytes)"
                         : std::string(name) == "d.npy" ? "(40128 bytes)"
                                                        : "(20000 bytes)";  // text: at least 2 bytes a value
      for (const std::string& words : {std::string("the 100 x 100 distance matrix in ") + path(name), std::string(size),
                                       std::string("which has 0.00 GiB (16384 bytes) free")})
        EXPECT_NE(text.find(words), std::string::npos) << "missing '" << words << "' in " << text;
    }
    EXPECT_TRUE(progress.empty()) << "the solve started before the refusal";
  }
  EXPECT_EQ(read_text("d.bin"), "old");
  EXPECT_EQ(files(), std::set<std::string>{"d.bin"});
  // With room for it the same solve writes the file.
  g_free_blocks = 11;
  SolveOptions o;
  o.backend = Backend::cpu;
  FileSink sink(MatrixFileTarget{path("d.bin")});
  solve(g, o, sink);
  EXPECT_EQ(fs::file_size(path("d.bin")), 40000u);
}

// Issue 20, defect 3: the distances and the predecessors on one file system
// must fit it together. Each of these fits alone (40000 bytes of 61440
// free), both do not; the refusal names both and comes before any work.
TEST_F(SinkTest, TwoOutputsOnOneDiskAreCheckedAsASum) {
  resources::set_statvfs_for_testing(fake_statvfs);
  g_free_blocks = 15;
  const Graph g{100, {{0, 1, 3}, {1, 2, 4}}};
  std::vector<double> progress;
  SolveOptions o;
  o.backend = Backend::cpu;
  o.algorithm = "fw-seq";
  o.predecessors = true;
  o.progress = [&](double f) { progress.push_back(f); };
  {
    FileSink sink(MatrixFileTarget{path("d.bin")}, MatrixFileTarget{path("p.bin")});
    try {
      solve(g, o, sink);
      ADD_FAILURE() << "no ResourceError";
    } catch (const ResourceError& e) {
      const std::string text = e.what();
      for (const std::string& words : {"the 100 x 100 distance matrix in " + path("d.bin") +
                                           " and the 100 x 100 predecessor matrix in " + path("p.bin") + " needs",
                                       std::string("(80000 bytes)"), std::string("(61440 bytes) free")})
        EXPECT_NE(text.find(words), std::string::npos) << "missing '" << words << "' in " << text;
    }
  }
  EXPECT_TRUE(progress.empty()) << "the solve started before the refusal";
  EXPECT_EQ(files(), std::set<std::string>{});
  // Each alone fits; both fit with room for the sum.
  o.predecessors = false;
  {
    FileSink sink(MatrixFileTarget{path("d.bin")});
    solve(g, o, sink);
  }
  fs::remove(path("d.bin"));
  g_free_blocks = 20;
  o.predecessors = true;
  FileSink sink(MatrixFileTarget{path("d.bin")}, MatrixFileTarget{path("p.bin")});
  solve(g, o, sink);
  EXPECT_EQ(files(), (std::set<std::string>{"d.bin", "p.bin"}));
}

// Bug 5 of issue 6: text output stops at 4096 vertices, and a solve with such
// an output computed everything before refusing. The refusal now comes from
// the sink's begin(), before the algorithm starts: dijkstra, which would
// refuse the negative edge with an InputError as it starts, never runs, and
// no progress is reported (no clock involved).
TEST_F(SinkTest, TheTextLimitIsCheckedBeforeSolving) {
  const Graph g{5000, {{0, 1, -1}}};
  std::vector<double> progress;
  SolveOptions o;
  o.backend = Backend::cpu;
  o.algorithm = "dijkstra";
  o.progress = [&](double f) { progress.push_back(f); };
  FileSink sink(MatrixFileTarget{path("d.txt")}, MatrixFileTarget{path("p.bin")});
  o.predecessors = true;
  try {
    solve(g, o, sink);
    ADD_FAILURE() << "no UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("5000 vertices exceed the text limit of 4096"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(progress.empty());
  EXPECT_EQ(files(), std::set<std::string>{});
}

// Fake /proc/meminfo, /proc/self/cgroup and cgroup hierarchies.
class MemoryTest : public SinkTest {
 protected:
  resources::MemorySources sources() const {
    resources::MemorySources s;
    s.meminfo = path("meminfo");
    s.self_cgroup = path("cgroup");
    s.cgroup_root = path("fs");
    return s;
  }
  void put(const std::string& relative, const std::string& text) const {
    fs::create_directories((dir_ / relative).parent_path());
    write_text(relative, text);
  }
};

TEST_F(MemoryTest, AvailableMemoryIsMemAvailableLoweredByCgroupLimits) {
  EXPECT_FALSE(resources::available_memory(sources()));  // nothing readable
  put("meminfo", "MemTotal:       24684084 kB\nMemFree:          100000 kB\nMemAvailable:    1048576 kB\n");
  auto a = resources::available_memory(sources());
  ASSERT_TRUE(a);
  EXPECT_EQ(a->bytes, std::uint64_t{1} << 30);
  EXPECT_EQ(a->limited_by, "MemAvailable");

  // cgroup v2: limit minus usage less the inactive page cache, the tightest level wins.
  put("cgroup", "0::/jobs/one\n");
  put("fs/jobs/one/memory.max", "600000000\n");
  put("fs/jobs/one/memory.current", "100000000\n");
  put("fs/jobs/one/memory.stat", "anon 40000000\nfile 60000000\ninactive_file 50000000\n");
  a = resources::available_memory(sources());
  ASSERT_TRUE(a);
  EXPECT_EQ(a->bytes, 550000000u);
  EXPECT_EQ(a->limited_by, path("fs") + "/jobs/one/memory.max");
  put("fs/jobs/memory.max", "400000000\n");
  put("fs/jobs/memory.current", "300000000\n");
  EXPECT_EQ(resources::available_memory(sources())->bytes, 100000000u);
  put("fs/jobs/memory.max", "max\n");  // no limit at that level
  EXPECT_EQ(resources::available_memory(sources())->bytes, 550000000u);

  // cgroup v1 (memory controller in its own hierarchy); "unlimited" is a
  // value near 2^63. A hybrid system mounts v2 under unified/.
  fs::remove_all(dir_ / "fs");
  put("cgroup", "12:pids:/x\n4:memory,foo:/x/y\n0::/\n");
  put("fs/memory/x/y/memory.limit_in_bytes", "9223372036854771712\n");
  put("fs/memory/x/y/memory.usage_in_bytes", "5\n");
  EXPECT_EQ(resources::available_memory(sources())->limited_by, "MemAvailable");
  put("fs/memory/x/memory.limit_in_bytes", "2000000000\n");
  put("fs/memory/x/memory.usage_in_bytes", "1500000000\n");
  put("fs/memory/x/memory.stat", "cache 700000000\ntotal_inactive_file 500000000\n");
  a = resources::available_memory(sources());
  EXPECT_EQ(a->bytes, 1000000000u);
  EXPECT_EQ(a->limited_by, path("fs") + "/memory/x/memory.limit_in_bytes");
  put("fs/unified/memory.max", "300000000\n");
  put("fs/unified/memory.current", "100000000\n");
  EXPECT_EQ(resources::available_memory(sources())->bytes, 200000000u);
}

// Bug 11 of issue 6: the guards compared with RAM plus swap, so a result
// beyond what is available (or beyond the cgroup's limit) passed and the OOM
// killer ended the solve. The result's memory is now checked against the
// available memory, and the message names the sizes.
TEST_F(MemoryTest, AResultBeyondTheAvailableMemoryIsRefusedBeforeSolving) {
  put("meminfo", "MemAvailable:  67108864 kB\n");  // 64 GiB
  put("cgroup", "0::/job\n");
  put("fs/job/memory.max", "100000000\n");
  put("fs/job/memory.current", "20000000\n");  // 80 MB left
  const resources::MemorySources fake = sources();
  resources::set_memory_sources_for_testing(&fake);
  const Graph g{5000, {{0, 1, 1}}};  // 100 MB of distances
  for (const std::string algorithm : list_algorithms(Backend::cpu)) {
    SCOPED_TRACE(algorithm);
    std::vector<double> progress;
    SolveOptions o;
    o.backend = Backend::cpu;
    o.algorithm = algorithm;
    o.progress = [&](double f) { progress.push_back(f); };
    try {
      solve(g, o);
      ADD_FAILURE() << "no ResourceError";
    } catch (const ResourceError& e) {
      const std::string text = e.what();
      for (const std::string& words :
           {std::string("the 5000 x 5000 distance matrix needs 0.09 GiB (100000000 bytes) of memory"),
            std::string("only 0.07 GiB are available (") + path("fs") + "/job/memory.max)"})
        EXPECT_NE(text.find(words), std::string::npos) << "missing '" << words << "' in " << text;
    }
    EXPECT_TRUE(progress.empty());
  }
  // Written to a file instead, the per-source algorithms hold no n x n matrix
  // and fit; fw-seq's working matrix does not.
  SolveOptions o;
  o.backend = Backend::cpu;
  o.algorithm = "dijkstra";
  FileSink file(MatrixFileTarget{path("d.bin")});
  solve(g, o, file);
  EXPECT_EQ(fs::file_size(path("d.bin")), 100000000u);
  o.algorithm = "fw-seq";
  FileSink again(MatrixFileTarget{path("d2.bin")});
  EXPECT_THROW(solve(g, o, again), ResourceError);
  EXPECT_FALSE(fs::exists(path("d2.bin")));
}

// A host matrix allocated without zero-fill does not lower MemAvailable until
// it is touched; the check counts it until the sink lets it go.
TEST_F(MemoryTest, AllocatedResultsCountUntilReleased) {
  put("meminfo", "MemAvailable:  1048576 kB\n");  // 1 GiB
  const resources::MemorySources fake = sources();
  resources::set_memory_sources_for_testing(&fake);
  EXPECT_NO_THROW(resources::require_memory(700u << 20, "x"));
  {
    HostMatrixSink sink;
    sink.begin(SinkLayout{10000, Element::int32, false});  // 400 MB
    try {
      resources::require_memory(700u << 20, "the working matrix");
      ADD_FAILURE() << "no ResourceError";
    } catch (const ResourceError& e) {
      EXPECT_NE(std::string(e.what()).find("less 0.37 GiB already allocated for results"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_NO_THROW(resources::require_memory(700u << 20, "x"));
}

TEST_F(SinkTest, MatrixFilesAreReadInPlaceWhereTheFormatAllows) {
  GenerateOptions go;
  go.kind = GraphKind::rmat;
  go.n = 150;
  go.seed = 9;
  const Graph g = normalize(generate(go));
  const std::vector<dist_t> d = test::reference_distances(g);
  for (const char* name : {"d.bin", "d.npy", "d.txt"}) {
    SCOPED_TRACE(name);
    io::write_matrix(path(name), d, g.n);
    const io::MatrixFile file(path(name));
    EXPECT_EQ(file.n(), g.n);
    EXPECT_EQ(file.in_place(), std::string(name) != "d.txt");
    EXPECT_EQ(test::first_difference(d, file.cells(), g.n), "");
    std::vector<double> progress;
    const VerifyReport r = verify(g, file.cells(), [&](double f) { progress.push_back(f); });
    EXPECT_TRUE(r.ok) << r.first_violation;
    EXPECT_EQ(test::check_progress(progress), "");
  }
  // A Fortran-order .npy is converted, not viewed.
  std::string npy = read_text("d.npy");
  npy.replace(npy.find("False"), 5, "True ");
  write_text("f.npy", npy);
  const io::MatrixFile fortran(path("f.npy"));
  EXPECT_FALSE(fortran.in_place());
  EXPECT_EQ(fortran.cells()[1], d[150]);
}

// Stages come in the order they ran, each under its name.
TEST_F(SinkTest, SolveStagesAreNamedAndInOrder) {
  GenerateOptions go;
  go.kind = GraphKind::random;
  go.n = 120;
  go.seed = 5;
  const test::Case c{"random_n120", generate(go)};
  const std::pair<const char*, std::vector<std::string>> expected[] = {
      {"fw-seq", {"normalize", "open output", "initialize", "compute", "store", "commit"}},
      {"fw-blocked", {"normalize", "open output", "initialize", "compute", "store", "commit"}},
      {"dijkstra", {"normalize", "open output", "compute", "commit"}},
      {"bellman-ford", {"normalize", "open output", "compute", "commit"}},
      {"johnson", {"normalize", "open output", "potentials", "compute", "commit"}},
      {"supernodal", {"normalize", "open output", "ordering", "symbolic", "factor", "compute", "commit"}},
  };
  for (const auto& [algorithm, names] : expected) {
    SCOPED_TRACE(algorithm);
    SolveOptions o;
    o.backend = Backend::cpu;
    o.algorithm = algorithm;
    NullSink sink;
    const auto start = std::chrono::steady_clock::now();
    const SolveSummary s = solve(c.graph, o, sink);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::vector<std::string> got;
    for (const Stage& stage : s.times.stages) {
      got.push_back(stage.name);
      EXPECT_GE(stage.seconds, 0);
    }
    EXPECT_EQ(got, names);
    EXPECT_LE(s.times.total(), wall);
    EXPECT_EQ(s.times.seconds("compute") > 0, true);
  }
  // A graph that is normalized already is only checked.
  SolveOptions o;
  o.backend = Backend::cpu;
  NullSink sink;
  EXPECT_EQ(solve(normalize(c.graph), o, sink).times.stages.front().name, "check graph");
}

}  // namespace
}  // namespace apsp

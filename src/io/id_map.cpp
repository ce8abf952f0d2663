// The id map of a relabelled graph (apsp solve --relabel): a text file beside
// the result, "# apsp id map: ..." and "# vertices: K" comment lines, then K
// lines, line k holding the original vertex id of vertex k, increasing.
#include <limits>
#include <string>
#include <vector>

#include "apsp/error.hpp"
#include "apsp/io.hpp"
#include "io/files.hpp"
#include "io/formats.hpp"
#include "io/text.hpp"

namespace apsp::io {

void write_id_map(const std::string& path, const std::vector<vertex_t>& ids) {
  detail::write_text_file(path, [&](detail::TextWriter& text) {
    text.text("# apsp id map: the original (0-based) id of each vertex of the result, one per line\n# vertices: ")
        .number(static_cast<std::int64_t>(ids.size()))
        .character('\n');
    for (const vertex_t id : ids) text.number(id).character('\n');
  });
}

std::vector<vertex_t> read_id_map(const std::string& path) {
  const detail::InputFile file(path);
  detail::TextCursor text(file);
  std::vector<vertex_t> ids;
  while (text.next_line()) {
    const std::string_view content = detail::Tokens::trim_front(text.line());
    if (content.empty() || content.front() == '#') continue;
    detail::Tokens tokens(content);
    const std::int64_t id = detail::parse_integer(text.require(tokens, "vertex id"), "vertex id", text.here());
    text.require_end(tokens);
    if (id < 0 || id > std::numeric_limits<vertex_t>::max())
      throw InputError("vertex id " + std::to_string(id) + " is outside 0.." +
                           std::to_string(std::numeric_limits<vertex_t>::max()),
                       text.here());
    if (!ids.empty() && id <= ids.back())
      throw InputError("vertex id " + std::to_string(id) + " does not increase (the previous id is " +
                           std::to_string(ids.back()) + ")",
                       text.here());
    ids.push_back(static_cast<vertex_t>(id));
  }
  return ids;
}

std::string id_map_path(const std::string& result_path) { return result_path + ".ids"; }

}  // namespace apsp::io

// The element types of result matrices (apsp::Element, apsp/sink.hpp): every
// layer that stores or writes rows reads their sizes and names here.
#include "apsp/sink.hpp"

namespace apsp {

std::size_t element_bytes(Element e) {
  switch (e) {
    case Element::int32: return 4;
    case Element::float32: return 4;
    case Element::float64: return 8;
    case Element::int16: return 2;
  }
  return 0;
}

const char* to_string(Element e) {
  switch (e) {
    case Element::int32: return "int32";
    case Element::float32: return "float32";
    case Element::float64: return "float64";
    case Element::int16: return "int16";
  }
  return "?";
}

}  // namespace apsp

// Names of the solve options' enums (apsp/solver.hpp): printed and parsed by
// every layer, so they live at the bottom.
#include <string>

#include "apsp/error.hpp"
#include "apsp/solver.hpp"

namespace apsp {

const char* to_string(Backend b) {
  switch (b) {
    case Backend::automatic: return "auto";
    case Backend::cpu: return "cpu";
    case Backend::cuda: return "cuda";
  }
  return "?";
}

const char* to_string(Precision p) {
  switch (p) {
    case Precision::automatic: return "auto";
    case Precision::int32: return "int32";
    case Precision::int16: return "int16";
    case Precision::int64: return "int64";
  }
  return "?";
}

Backend parse_backend(const std::string& s) {
  if (s == "auto") return Backend::automatic;
  if (s == "cpu") return Backend::cpu;
  if (s == "cuda" || s == "gpu") return Backend::cuda;
  throw UsageError("unknown backend '" + s + "' (expected auto, cpu or cuda)", "backend");
}

Precision parse_precision(const std::string& s) {
  if (s == "auto") return Precision::automatic;
  if (s == "int32") return Precision::int32;
  if (s == "int16") return Precision::int16;
  if (s == "int64") return Precision::int64;
  throw UsageError("unknown precision '" + s + "' (expected auto, int16, int32 or int64)", "precision");
}

}  // namespace apsp

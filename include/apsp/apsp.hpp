// Umbrella header for the apsp library.
#pragma once

#include "apsp/dense.hpp"
#include "apsp/error.hpp"
#include "apsp/generate.hpp"
#include "apsp/graph.hpp"
#include "apsp/io.hpp"
#include "apsp/matrix.hpp"
#include "apsp/path.hpp"
#include "apsp/sinks.hpp"
#include "apsp/solver.hpp"
#include "apsp/verify.hpp"

# Third-party libraries: Debian packages first, carried copies in APSP_DEPS_DIR
# second. Nothing is downloaded at build time.
find_package(OpenMP REQUIRED COMPONENTS CXX)
find_package(Threads REQUIRED)

find_package(CLI11 CONFIG QUIET)
# The CLI's only. The Python build needs no CLI: there CLI11 is optional, and
# without it the CLI target is left out.
if(NOT TARGET CLI11::CLI11)
  find_path(APSP_CLI11_INCLUDE CLI/CLI.hpp HINTS "${APSP_DEPS_DIR}/include" /usr/include)
  if(APSP_CLI11_INCLUDE)
    add_library(CLI11::CLI11 INTERFACE IMPORTED)
    target_include_directories(CLI11::CLI11 INTERFACE "${APSP_CLI11_INCLUDE}")
  elseif(NOT APSP_BUILD_PYTHON)
    message(FATAL_ERROR "CLI11 not found: apt-get install libcli11-dev (or put CLI/ under ${APSP_DEPS_DIR}/include)")
  endif()
endif()

if(APSP_BUILD_TESTS)
  find_package(GTest CONFIG QUIET)
  if(NOT TARGET GTest::gtest_main)
    find_path(APSP_GTEST_SOURCE CMakeLists.txt
              HINTS "${APSP_DEPS_DIR}/googletest" /usr/src/googletest NO_DEFAULT_PATH)
    if(NOT APSP_GTEST_SOURCE)
      message(FATAL_ERROR "GoogleTest not found: apt-get install libgtest-dev googletest")
    endif()
    set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
    set(BUILD_GMOCK OFF CACHE BOOL "" FORCE)
    add_subdirectory("${APSP_GTEST_SOURCE}" "${CMAKE_BINARY_DIR}/_deps/googletest" EXCLUDE_FROM_ALL)
    add_library(GTest::gtest_main ALIAS gtest_main)
    add_library(GTest::gtest ALIAS gtest)
  endif()
  include(GoogleTest)
endif()

if(APSP_BUILD_BENCH)
  find_package(benchmark CONFIG QUIET)
endif()

# METIS (nested dissection for the supernodal solver): optional. Without it
# the supernodal entries of the registry are present but unavailable.
option(APSP_ENABLE_METIS "Use METIS for the supernodal solver's ordering when found" ON)
set(APSP_WITH_METIS OFF)
if(APSP_ENABLE_METIS)
  find_path(APSP_METIS_INCLUDE metis.h HINTS "${APSP_DEPS_DIR}/include" /usr/include)
  find_library(APSP_METIS_LIBRARY metis HINTS "${APSP_DEPS_DIR}/lib")
  if(APSP_METIS_INCLUDE AND APSP_METIS_LIBRARY)
    set(APSP_WITH_METIS ON)
  endif()
endif()
message(STATUS "apsp: METIS ordering ${APSP_WITH_METIS}")

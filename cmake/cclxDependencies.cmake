# Every dependency comes from a Debian package (see README / cmake/setup.sh).
find_package(MPI REQUIRED COMPONENTS CXX)  # the C API, found through the C++ compiler
find_package(Boost 1.74 REQUIRED)          # Boost.Graph (header-only parts)
find_package(Eigen3 3.3 REQUIRED NO_MODULE)
find_package(nlohmann_json 3.10 REQUIRED)  # schedule / topology JSON (reader and writer)
find_package(Threads REQUIRED)

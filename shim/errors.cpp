#include "errors.hpp"

#include <mutex>
#include <string>
#include <vector>

namespace cclx::shim {

namespace {

constexpr std::size_t max_codes = 16;

struct Codes {
  std::mutex mu;
  int error_class = -1;
  std::vector<int> codes;
  std::size_t next = 0;
};

int code_for(std::string_view message) {
  static Codes c;
  std::lock_guard lock(c.mu);
  if (c.error_class < 0 && PMPI_Add_error_class(&c.error_class) != MPI_SUCCESS) c.error_class = -2;
  if (c.error_class == -2) return MPI_ERR_OTHER;
  int code = MPI_ERR_OTHER;
  if (c.codes.size() < max_codes) {
    if (PMPI_Add_error_code(c.error_class, &code) != MPI_SUCCESS) return MPI_ERR_OTHER;
    c.codes.push_back(code);
  } else {
    code = c.codes[c.next];
    c.next = (c.next + 1) % max_codes;
  }
  std::string text(message.substr(0, MPI_MAX_ERROR_STRING - 1));
  PMPI_Add_error_string(code, text.c_str());
  return code;
}

}  // namespace

int raise_error(MPI_Comm comm, std::string_view message) {
  const int code = code_for(message);
  PMPI_Comm_call_errhandler(comm, code);
  return code;
}

}  // namespace cclx::shim

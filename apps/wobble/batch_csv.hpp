#pragma once
// A small reader of comma-separated values (RFC 4180), for CSV batch manifests: cells are
// separated by commas; a cell in double quotes may hold commas, line breaks and doubled quotes
// (""). Line ends may be LF or CRLF; a UTF-8 byte order mark and blank lines are skipped.
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace wobble::cli {

struct CsvRow {
  std::size_t line = 0;  // 1-based line number where the row starts, for messages
  std::vector<std::string> cells;
};

// Throws Error naming the file and line for an unterminated quote or a quote inside an unquoted
// cell.
std::vector<CsvRow> read_csv(const std::filesystem::path& file);
std::vector<CsvRow> parse_csv(const std::string& text, const std::filesystem::path& source);

}  // namespace wobble::cli

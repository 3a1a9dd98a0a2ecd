#include "batch_csv.hpp"

#include <fstream>
#include <sstream>

#include <wobble/error.hpp>

#include "core/fail.hpp"

namespace wobble::cli {

namespace {

bool is_blank(const CsvRow& row) { return row.cells.size() == 1 && row.cells[0].empty(); }

}  // namespace

std::vector<CsvRow> parse_csv(const std::string& text, const std::filesystem::path& source) {
  std::vector<CsvRow> rows;
  CsvRow row{1, {}};
  std::string cell;
  std::size_t line = 1, i = text.rfind("\xEF\xBB\xBF", 0) == 0 ? 3 : 0;
  bool quoted = false, was_quoted = false;
  auto end_cell = [&] {
    row.cells.push_back(std::move(cell));
    cell.clear();
    was_quoted = false;
  };
  auto end_row = [&] {
    end_cell();
    if (!is_blank(row)) rows.push_back(std::move(row));
    row = CsvRow{line, {}};
  };
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        line += c == '\n';
        cell += c;
      }
    } else if (c == '"') {
      if (!cell.empty() || was_quoted)
        fail(source, "line {}: a quote inside an unquoted cell (quote the whole cell)", line);
      quoted = was_quoted = true;
    } else if (c == ',') {
      end_cell();
    } else if (c == '\n' || (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n')) {
      i += c == '\r';
      ++line;
      end_row();
    } else if (was_quoted) {
      fail(source, "line {}: text after the closing quote of a cell", line);
    } else {
      cell += c;
    }
  }
  if (quoted) fail(source, "line {}: a quoted cell is not closed", row.line);
  end_row();
  return rows;
}

std::vector<CsvRow> read_csv(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) fail(file, "cannot open the file");
  std::stringstream text;
  text << in.rdbuf();
  return parse_csv(text.str(), file);
}

}  // namespace wobble::cli

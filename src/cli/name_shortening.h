// Long names in a given width, keeping what tells them apart: the text tables' shortening.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace mlprof::cli {

// Display width of UTF-8 text (counts code points; enough for names and units).
size_t display_width(const std::string& s);

// `name` in at most `max_width` columns, keeping what tells names apart: a scope path
// (`replica_3/.../op:Type`) keeps its first and last components, a demangled C++ function
// keeps its qualified name without template arguments and parameters.
std::string shorten_name(const std::string& name, size_t max_width);

// The names of one column shortened together: distinct names stay distinct (where the width
// leaves room for a difference), showing the parts in which they differ.
std::vector<std::string> shorten_names(const std::vector<std::string>& names, size_t max_width);

}  // namespace mlprof::cli

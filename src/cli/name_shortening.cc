// Long names shortened so that rows of a table stay apart (report_text_table.h uses it): a
// scope path keeps its first and last components, a demangled C++ function its qualified name.
#include "cli/name_shortening.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <string_view>
#include <utility>

namespace mlprof::cli {
namespace {

constexpr std::string_view kEllipsis = "…";
constexpr std::string_view kAnonymousNamespace = "(anonymous namespace)";
// A function's name is not cut shorter than this to show its template arguments.
constexpr size_t kMinFunctionName = 12;

// Byte offset of the first `columns` code points of `s` (from the end when `from_end`).
size_t byte_offset(const std::string& s, size_t columns, bool from_end) {
  size_t w = 0;
  if (!from_end) {
    size_t i = 0;
    for (; i < s.size(); ++i) {
      if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && w++ == columns) break;
    }
    return i;
  }
  size_t i = s.size();
  while (i > 0 && w < columns) {
    --i;
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) ++w;
  }
  return i;
}

// The head and the tail of `s`, with an ellipsis between them.
std::string cut_middle(const std::string& s, size_t max) {
  if (display_width(s) <= max) return s;
  if (max <= 1) return std::string(kEllipsis);
  const size_t tail = (max - 1) / 2, head = max - 1 - tail;
  return s.substr(0, byte_offset(s, head, false)) + std::string(kEllipsis) + s.substr(byte_offset(s, tail, true));
}

std::vector<std::string> split(const std::string& s, std::string_view sep) {
  std::vector<std::string> parts;
  size_t begin = 0;
  for (size_t at; (at = s.find(sep, begin)) != std::string::npos; begin = at + sep.size())
    parts.push_back(s.substr(begin, at - begin));
  parts.push_back(s.substr(begin));
  return parts;
}

// The components marked in `keep`, each run of the others shown as one ellipsis.
std::string join_kept(const std::vector<std::string>& parts, const std::vector<bool>& keep, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (!keep[i] && i > 0 && !keep[i - 1]) continue;
    if (i > 0) out += sep;
    out += keep[i] ? parts[i] : std::string(kEllipsis);
  }
  return out;
}

// A path of components in `max` columns: the components in `keep` always, then as many of
// the last ones as fit (the end of a scope names the op), the rest elided.
std::string fit_components(const std::vector<std::string>& parts, std::vector<bool> keep, std::string_view sep,
                           size_t max) {
  std::string out = join_kept(parts, keep, sep);
  for (size_t i = parts.size(); i-- > 0 && display_width(out) <= max;) {
    if (keep[i]) continue;
    keep[i] = true;
    const std::string longer = join_kept(parts, keep, sep);
    if (display_width(longer) > max) break;
    out = longer;
  }
  return display_width(out) <= max ? out : cut_middle(out, max);
}

// A scope path such as TensorFlow's `replica_3/model/layer_2/dense/MatMul:MatMul`.
bool is_scope_path(const std::string& name) {
  return name.find('/') != std::string::npos && name.find(' ') == std::string::npos;
}

// A demangled C++ function, `void ns::kernel<T>(T*, int)`: a qualified name with a parameter
// list or template arguments at its end.
bool is_cpp_function(const std::string& name) {
  if (name.size() < 3 || name.find("::") == std::string::npos) return false;
  return name.back() == ')' || name.back() == '>';
}

// A C++ function as a tool shows it at one level of detail: its return type dropped, template
// arguments kept to `template_depth` levels (deeper ones read "…"), its parameters kept or not.
std::string cpp_view(const std::string& name, int template_depth, bool keep_params) {
  // The return type ends at the last top-level space before the first bracket.
  size_t start = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    if (name.compare(i, kAnonymousNamespace.size(), kAnonymousNamespace) == 0) i += kAnonymousNamespace.size() - 1;
    else if (name[i] == '<' || name[i] == '(') break;
    else if (name[i] == ' ') start = i + 1;
  }
  std::string out;
  int templates = 0, parens = 0;
  for (size_t i = start; i < name.size(); ++i) {
    const char c = name[i];
    if (name.compare(i, kAnonymousNamespace.size(), kAnonymousNamespace) == 0) {
      if (templates <= template_depth && (parens == 0 || keep_params)) out += kAnonymousNamespace;
      i += kAnonymousNamespace.size() - 1;
      continue;
    }
    const bool shown = templates <= template_depth && (parens == 0 || keep_params);
    if (c == '(') {
      if (shown && keep_params) out += c;
      ++parens;
    } else if (c == ')') {
      parens = std::max(parens - 1, 0);
      if (shown && keep_params) out += c;
    } else if (c == '<') {
      ++templates;
      if (shown && templates <= template_depth) out += c;
      else if (shown && template_depth > 0) out += "<" + std::string(kEllipsis) + ">";
    } else if (c == '>' && templates > 0) {
      if (shown && templates <= template_depth) out += c;
      --templates;
    } else if (shown) {
      out += c;
    }
  }
  return out;
}

// The qualified name of a C++ function fitted into `max`: the namespaces go first.
std::string fit_cpp_name(const std::string& name, size_t max) {
  const std::string qualified = cpp_view(name, 0, false);
  const auto parts = split(qualified, "::");
  std::vector<bool> keep(parts.size(), false);
  keep.back() = true;
  // The function's own name uncut rather than its namespaces.
  if (display_width(join_kept(parts, keep, "::")) > max) return cut_middle(parts.back(), max);
  return fit_components(parts, keep, "::", max);
}

// `ns::Functor<ns::T>` as `Functor<T>`: inside template arguments the namespaces say little.
std::string without_namespaces(const std::string& text) {
  std::string out;
  size_t word = 0;  // where the identifier being copied starts in `out`
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 2, "::") == 0) {
      out.erase(word), ++i;
      continue;
    }
    const char c = text[i];
    out += c;
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) word = out.size();
  }
  return out;
}

// The top-level template arguments of a C++ function (the first `<...>` after its name).
std::vector<std::string> template_arguments(const std::string& name) {
  const std::string templated = cpp_view(name, 1 << 20, false);
  std::vector<std::string> args;
  int depth = 0;
  std::string arg;
  for (char c : templated) {
    if (c == '<' && depth++ == 0) continue;
    if (depth == 0) continue;
    if (c == '>' && --depth == 0) break;
    if (c == ',' && depth == 1) {
      args.push_back(arg), arg.clear();
      continue;
    }
    if (!(arg.empty() && c == ' ')) arg += c;
  }
  if (!arg.empty()) args.push_back(arg);
  for (auto& a : args) {
    while (!a.empty() && a.back() == ' ') a.pop_back();
    a = without_namespaces(a);
  }
  return args;
}

// Components of `path` that some other path of `group` lacks: where the paths differ.
std::vector<bool> distinguishing_components(const std::vector<std::string>& path,
                                            const std::vector<std::vector<std::string>>& group) {
  std::vector<bool> keep(path.size(), false);
  for (size_t i = 0; i < path.size(); ++i)
    for (const auto& other : group)
      if (std::find(other.begin(), other.end(), path[i]) == other.end()) keep[i] = true;
  return keep;
}

// Longest common prefix of `a` and `b`, in bytes.
size_t common_prefix(const std::string& a, const std::string& b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

// The last resort for names that read alike: `head`, then the text of `name` around where it
// first differs from the nearest other name of `group`.
std::string around_difference(const std::string& name, const std::string& head, const std::vector<std::string>& group,
                              size_t max) {
  constexpr size_t kContext = 8;  // bytes of the common part shown before the difference
  size_t differs_at = 0;
  for (const auto& other : group)
    if (other != name) differs_at = std::max(differs_at, common_prefix(name, other));
  while (differs_at > 0 && (static_cast<unsigned char>(name[differs_at]) & 0xC0) == 0x80) --differs_at;
  if (differs_at < display_width(head) + kContext) return cut_middle(name, max);
  size_t from = differs_at > kContext ? differs_at - kContext : 0;
  while (from > 0 && (static_cast<unsigned char>(name[from]) & 0xC0) == 0x80) --from;
  std::string out = head + std::string(kEllipsis);
  const std::string rest = name.substr(from);
  const size_t room = max > display_width(out) ? max - display_width(out) : 0;
  if (display_width(rest) <= room) return out + rest;
  if (room < 2) return cut_middle(name, max);
  return out + rest.substr(0, byte_offset(rest, room - 1, false)) + std::string(kEllipsis);
}

// `name` shortened for a row of `group` (the full names whose shortest forms are alike), at
// `detail` (0: as shorten_name; more: more of the parts in which names differ).
std::string shorten_in_group(const std::string& name, const std::vector<std::string>& group, int detail, size_t max) {
  if (display_width(name) <= max) return name;
  if (is_cpp_function(name) && detail == 1) {
    // The template arguments in which the functions differ, the others elided.
    std::vector<std::vector<std::string>> args_of;
    for (const auto& other : group) args_of.push_back(template_arguments(other));
    const auto args = template_arguments(name);
    if (!args.empty()) {
      const std::string kept = "<" + join_kept(args, distinguishing_components(args, args_of), ", ") + ">";
      const size_t room = max > display_width(kept) ? max - display_width(kept) : 0;
      if (room >= kMinFunctionName) return fit_cpp_name(name, room) + kept;
      return cut_middle(kept, max);
    }
  }
  if (is_cpp_function(name)) {
    // All template arguments, then the parameters too.
    return cut_middle(without_namespaces(cpp_view(name, 1 << 20, detail > 2)), max);
  }
  if (is_scope_path(name) && detail == 1) {
    std::vector<std::vector<std::string>> paths;
    for (const auto& other : group) paths.push_back(split(other, "/"));
    const auto path = split(name, "/");
    const auto differences = distinguishing_components(path, paths);
    // The differences with the first and the last component, else with the last (the op),
    // else with the first, else alone.
    for (auto [first, last] : {std::pair{true, true}, {false, true}, {true, false}, {false, false}}) {
      auto keep = differences;
      keep.front() = keep.front() || first;
      keep.back() = keep.back() || last;
      if (display_width(join_kept(path, keep, "/")) <= max || (!first && !last))
        return fit_components(path, keep, "/", max);
    }
  }
  return cut_middle(name, max);
}

constexpr int kMostDetail = 3;

}  // namespace

size_t display_width(const std::string& s) {
  size_t w = 0;
  for (unsigned char c : s) w += (c & 0xC0) != 0x80;
  return w;
}

std::string shorten_name(const std::string& name, size_t max_width) {
  if (display_width(name) <= max_width) return name;
  if (is_cpp_function(name)) return fit_cpp_name(name, max_width);
  if (is_scope_path(name)) {
    const auto path = split(name, "/");
    std::vector<bool> keep(path.size(), false);
    keep.front() = keep.back() = true;
    return fit_components(path, keep, "/", max_width);
  }
  return cut_middle(name, max_width);
}

std::vector<std::string> shorten_names(const std::vector<std::string>& names, size_t max_width) {
  std::vector<std::string> shown(names.size());
  for (size_t i = 0; i < names.size(); ++i) shown[i] = shorten_name(names[i], max_width);
  // Rows that read alike but are not: show more of each, level by level, until they differ.
  for (int detail = 1; detail <= kMostDetail + 1; ++detail) {
    std::map<std::string, std::vector<size_t>> rows_by_shown;
    for (size_t i = 0; i < names.size(); ++i) rows_by_shown[shown[i]].push_back(i);
    bool collisions = false;
    for (const auto& [text, rows] : rows_by_shown) {
      std::vector<std::string> group;
      for (size_t i : rows)
        if (std::find(group.begin(), group.end(), names[i]) == group.end()) group.push_back(names[i]);
      if (group.size() < 2) continue;
      collisions = true;
      for (size_t i : rows)
        shown[i] = detail <= kMostDetail
                       ? shorten_in_group(names[i], group, detail, max_width)
                       : around_difference(names[i], shorten_name(names[i], max_width / 2), group, max_width);
    }
    if (!collisions) break;
  }
  return shown;
}

}  // namespace mlprof::cli

// core/debug/dot.cpp — to_dot (core/debug/debug.h): the recorded graph as Graphviz DOT, parameters
// by their registered names, ops boxed by the layer (section path) they ran in.
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>

#include "core/engine/bookkeeping.h"
#include "core/debug/debug.h"
#include "core/io/files.h"
#include "core/nn/module.h"

namespace d2l {
namespace {

// A DOT string literal's body: quotes and backslashes escaped.
std::string escaped(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  const std::string sep = " > ";
  size_t start = 0;
  while (!path.empty()) {
    const size_t at = path.find(sep, start);
    parts.push_back(path.substr(start, at - start));
    if (at == std::string::npos) break;
    start = at + sep.size();
  }
  return parts;
}

// The layer boxes: one cluster per section, nested as the sections nest.
struct Cluster {
  std::map<std::string, Cluster> children;
  std::vector<std::string> node_lines;
};

void write_cluster(std::ostringstream& os, const Cluster& c, int depth, int& next_id) {
  const std::string pad(2 * depth + 2, ' ');
  for (const std::string& line : c.node_lines) os << pad << line << "\n";
  for (const auto& [label, child] : c.children) {
    os << pad << "subgraph cluster_" << next_id++ << " {\n"
       << pad << "  label=\"" << escaped(label) << "\"; style=rounded; color=\"#888888\";\n";
    write_cluster(os, child, depth + 1, next_id);
    os << pad << "}\n";
  }
}

}  // namespace

void to_dot(const Tensor& root, const std::string& path) {
  check(root.defined(), "to_dot", "the tensor is undefined (default-constructed handle)");
  // Every node reachable from root, numbered in discovery order, with its consumers' sections.
  std::unordered_map<const Node*, int> id;
  std::vector<const Node*> nodes;
  std::vector<std::pair<int, int>> edges;
  std::vector<const Node*> todo{root.node()};
  id[root.node()] = 0;
  nodes.push_back(root.node());
  while (!todo.empty()) {
    const Node* n = todo.back();
    todo.pop_back();
    for (const auto& in : n->inputs) {
      if (!in) continue;
      auto [it, fresh] = id.emplace(in.get(), static_cast<int>(nodes.size()));
      if (fresh) {
        nodes.push_back(in.get());
        todo.push_back(in.get());
      }
      edges.emplace_back(it->second, id[n]);
    }
  }
  std::vector<std::string> section(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) section[i] = recorded_section(*nodes[i]);
  // A parameter sits in its layer's box when every op reading it ran in that one layer.
  std::vector<std::set<std::string>> reader_sections(nodes.size());
  for (const auto& [from, to] : edges) reader_sections[from].insert(section[to]);

  int freed = 0;
  Cluster top;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node* n = nodes[i];
    const std::string name = n->inputs.empty() && !n->book->freed ? parameter_name(n) : std::string();
    std::ostringstream line;
    line << "n" << i << " [label=\"" << escaped(name.empty() ? n->op : name) << "\\n" << shape_str(n->shape);
    if (n->book->freed) {
      ++freed;
      line << "\\n(freed by backward)\", style=dashed";
    } else if (n->inputs.empty()) {
      line << "\", style=filled, fillcolor=\"" << (n->requires_grad ? "#c6dbef" : "#eeeeee") << "\"";
    } else {
      line << "\"";
    }
    line << "];";
    std::string where = section[i];
    if (!name.empty() && reader_sections[i].size() == 1) where = *reader_sections[i].begin();
    Cluster* c = &top;
    for (const std::string& part : split_path(where)) c = &c->children[part];
    c->node_lines.push_back(line.str());
  }

  std::ostringstream os;
  os << "digraph d2l {\n  rankdir=BT;\n  graph [fontname=\"DejaVu Sans\"];\n  node [shape=box, fontname=\"DejaVu Sans\"];\n";
  if (freed) {
    // Said in the file (a comment and the graph's title) and on stderr: a freed node has lost
    // its inputs, so what is drawn stops there.
    const std::string note = root.node()->book->freed
                                 ? "the graph was already freed by backward(): only its root is left; call to_dot "
                                   "before backward()"
                                 : std::to_string(freed) +
                                       " node(s) of this graph were freed by an earlier backward(): the graph stops "
                                       "there; call to_dot before backward()";
    os << "  // " << note << "\n  label=\"" << escaped(note) << "\"; labelloc=t;\n";
    std::fprintf(stderr, "[to_dot] warning: %s (writing '%s' anyway)\n", note.c_str(), path.c_str());
  }
  int cluster_id = 0;
  write_cluster(os, top, 0, cluster_id);
  for (const auto& [from, to] : edges) os << "  n" << from << " -> n" << to << ";\n";
  os << "}\n";

  // Like every output file: a unique temporary renamed over the target, never over a link,
  // FIFO or device (`--dot /dev/null` must not replace the device), none left on Ctrl-C.
  write_file_atomically(path, os.str(), "to_dot");
}

}  // namespace d2l

// This file implements Graph::ToText and Graph::FromText: a line-based text
// form of a graph that reads back into an equal graph (Note [Graph text]).
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <sstream>

#include "graph/graph.h"

namespace ember {
namespace {

// Note [Graph text]
// Line 1 is "ember.graph 1". Then one line per node, in id order:
//   arg <id> <index> <outputs> <device>
//   node <id> <op> <inputs> <list_sizes> <control> <bindings> <attrs> <outputs> <device> <location>
// and a last line "return <endpoints>". Every field is one token without
// spaces: lists are comma-separated ("-" when empty), endpoints are
// "node:output", outputs are "dtype[2,?]" joined by ";", attrs are typed
// ("b1", "i-3", "f0x1.8p+1" exact hex floats, "s<escaped>", "l1|2|3",
// "tfloat32", "n" for None) joined by ";", and strings escape every byte
// outside [A-Za-z0-9._/:-] as %XX. FromText checks every field (numbers
// in range, endpoints naming earlier nodes' outputs, attrs of their declared
// types) and then validates the graph (Note [Graph validation]); an error
// names the line.

std::string Escape(const std::string& s) {
  if (s.empty()) return "%";  // a lone % is the empty string
  std::string out;
  for (unsigned char c : s) {
    if (isalnum(c) || c == '.' || c == '_' || c == '/' || c == ':' || c == '-') {
      out += static_cast<char>(c);
    } else {
      char buf[4];
      std::snprintf(buf, sizeof(buf), "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// False on a truncated or non-hex %XX escape.
bool Unescape(const std::string& s, std::string* out) {
  out->clear();
  if (s == "%") return true;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      *out += s[i];
      continue;
    }
    if (s.size() - i < 3) return false;
    const int hi = HexDigit(s[i + 1]), lo = HexDigit(s[i + 2]);
    if (hi < 0 || lo < 0) return false;
    *out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return true;
}

// Checked numbers: the whole token, in range, nothing thrown or wrapped.
bool ParseInt64(const std::string& s, int64_t* out) {
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, *out);
  return ec == std::errc() && ptr == end && !s.empty();
}

bool ParseInt(const std::string& s, int* out) {
  int64_t v;
  if (!ParseInt64(s, &v) || v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) return false;
  *out = static_cast<int>(v);
  return true;
}

bool ParseDouble(const std::string& s, double* out) {
  if (s.empty() || std::isspace(static_cast<unsigned char>(s[0]))) return false;
  char* end = nullptr;
  *out = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  if (s == "-") return parts;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  parts.push_back(cur);
  return parts;
}

template <typename T, typename Fn>
std::string Join(const std::vector<T>& items, char sep, Fn&& fn) {
  if (items.empty()) return "-";
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += sep;
    out += fn(items[i]);
  }
  return out;
}

std::string AttrText(const AttrValue& a, AttrType type) {
  if (a.is_none()) return "n";
  switch (type) {
    case AttrType::kBool: return a.as_bool() ? "b1" : "b0";
    case AttrType::kInt: return "i" + std::to_string(a.as_int());
    case AttrType::kFloat: {
      char buf[64];
      std::snprintf(buf, sizeof(buf), "f%a", a.as_float());
      return buf;
    }
    case AttrType::kString: return "s" + Escape(a.as_string());
    case AttrType::kIntList:
      return "l" + Join(a.as_int_list(), '|', [](int64_t v) { return std::to_string(v); });
    case AttrType::kDType: return std::string("t") + DTypeName(a.as_dtype());
  }
  return "n";
}

// Reads one attr as the type its definition declares.
Status ParseAttr(const std::string& s, const AttrDef& def, AttrValue* out) {
  const std::string name = std::string("attribute '") + def.name + "'";
  if (s == "n") {
    if (!def.optional) return InvalidArgument(name + " may not be None");
    *out = AttrValue();
    return Status::OK();
  }
  static constexpr char kPrefix[] = {'b', 'i', 'f', 's', 'l', 't'};  // by AttrType
  if (s.empty() || s[0] != kPrefix[static_cast<int>(def.type)]) {
    return InvalidArgument(name + " must be " + AttrTypeName(def.type) + ", got '" + s + "'");
  }
  const std::string body = s.substr(1);
  const Status bad = InvalidArgument("malformed " + name + " '" + s + "'");
  switch (def.type) {
    case AttrType::kBool:
      if (body != "0" && body != "1") return bad;
      *out = AttrValue(body == "1");
      return Status::OK();
    case AttrType::kInt: {
      int64_t v;
      if (!ParseInt64(body, &v)) return bad;
      *out = AttrValue(v);
      return Status::OK();
    }
    case AttrType::kFloat: {
      double v;
      if (!ParseDouble(body, &v)) return bad;
      *out = AttrValue(v);
      return Status::OK();
    }
    case AttrType::kString: {
      std::string v;
      if (!Unescape(body, &v)) return bad;
      *out = AttrValue(std::move(v));
      return Status::OK();
    }
    case AttrType::kIntList: {
      std::vector<int64_t> v;
      for (const std::string& p : Split(body, '|')) {
        if (!ParseInt64(p, &v.emplace_back())) return bad;
      }
      *out = AttrValue(std::move(v));
      return Status::OK();
    }
    case AttrType::kDType: {
      DType d;
      if (!ParseDType(body, &d).ok()) return bad;
      *out = AttrValue(d);
      return Status::OK();
    }
  }
  return bad;
}

std::string ValueText(const ValueInfo& v) {
  std::string dims = Join(v.shape.ToVector(), ',', [](int64_t d) { return d < 0 ? std::string("?") : std::to_string(d); });
  return std::string(DTypeName(v.dtype)) + "[" + (dims == "-" ? "" : dims) + "]";
}

// "float32[2,?]": ? (or -1) is an unknown dim.
Status ParseValue(const std::string& s, ValueInfo* out) {
  const size_t open = s.find('[');
  if (open == std::string::npos || s.back() != ']') return InvalidArgument("bad value '" + s + "'");
  EMBER_RETURN_IF_ERROR(ParseDType(s.substr(0, open), &out->dtype));
  const std::string dims = s.substr(open + 1, s.size() - open - 2);
  Shape shape;
  if (!dims.empty()) {
    for (const std::string& d : Split(dims, ',')) {
      int64_t v = Shape::kUnknownDim;
      if (d != "?" && !ParseInt64(d, &v)) return InvalidArgument("bad dimension '" + d + "' in '" + s + "'");
      shape.AddDim(v);
      if (shape.rank() > kMaxGraphRank) return InvalidArgument("rank too large in '" + s.substr(0, 40) + "...'");
    }
  }
  out->shape = std::move(shape);
  return CheckValueInfo(*out);
}

Status ParseValues(const std::string& s, std::vector<ValueInfo>* out) {
  for (const std::string& v : Split(s, ';')) {
    EMBER_RETURN_IF_ERROR(ParseValue(v, &out->emplace_back()));
  }
  return Status::OK();
}

std::string EndpointText(const Endpoint& e) { return std::to_string(e.node) + ":" + std::to_string(e.output); }

// "node:output", naming an output of an earlier node.
Status ParseEndpoint(const Graph& g, const std::string& s, Endpoint* e) {
  const size_t colon = s.find(':');
  if (colon == std::string::npos || !ParseInt(s.substr(0, colon), &e->node) ||
      !ParseInt(s.substr(colon + 1), &e->output)) {
    return InvalidArgument("bad endpoint '" + s + "'");
  }
  if (e->node < 0 || e->node >= g.num_nodes()) return InvalidArgument("endpoint " + s + " names no earlier node");
  if (e->output < 0 || e->output >= static_cast<int>(g.node(e->node).outputs.size())) {
    return InvalidArgument("endpoint " + s + " names no output of node " + std::to_string(e->node));
  }
  return Status::OK();
}

Status ParseEndpoints(const Graph& g, const std::string& s, std::vector<Endpoint>* out) {
  for (const std::string& e : Split(s, ',')) EMBER_RETURN_IF_ERROR(ParseEndpoint(g, e, &out->emplace_back()));
  return Status::OK();
}

Status ParseInts(const std::string& s, const char* what, std::vector<int>* out) {
  for (const std::string& p : Split(s, ',')) {
    if (!ParseInt(p, &out->emplace_back())) return InvalidArgument(std::string("bad ") + what + " '" + p + "'");
  }
  return Status::OK();
}

}  // namespace

std::string Graph::ToText() const {
  std::ostringstream out;
  out << "ember.graph 1\n";
  for (const Node& n : nodes_) {
    const std::string outputs = Join(n.outputs, ';', ValueText);
    if (n.is_arg()) {
      out << "arg " << n.id << " " << n.arg_index << " " << outputs << " " << Escape(n.device) << "\n";
      continue;
    }
    std::vector<int> bindings;
    for (size_t i = 0; i < n.op->type_vars.size(); ++i) bindings.push_back(static_cast<int>(n.bindings[i]));
    std::vector<std::string> attrs;
    for (size_t i = 0; i < n.attrs.size(); ++i) attrs.push_back(AttrText(n.attrs[i], n.op->attrs[i].type));
    auto str = [](int v) { return std::to_string(v); };
    out << "node " << n.id << " " << n.op->name << " " << Join(n.inputs, ',', EndpointText) << " "
        << Join(n.list_sizes, ',', str) << " " << Join(n.control_inputs, ',', str) << " "
        << Join(bindings, ',', [](int d) { return std::string(DTypeName(static_cast<DType>(d))); }) << " "
        << Join(attrs, ';', [](const std::string& a) { return a; }) << " " << outputs << " "
        << Escape(n.device) << " " << Escape(n.location) << "\n";
  }
  out << "return " << Join(outputs_, ',', EndpointText) << "\n";
  return out.str();
}

namespace {

// Reads graph text line by line into a Graph. Every field is checked
// before it is used, and each node is validated as soon as it is read
// (its inputs are earlier nodes, so a graph that reads is acyclic).
class GraphTextReader {
 public:
  Status Read(const std::string& text, Graph* out) {
    std::istringstream in(text);
    std::string line;
    if (!std::getline(in, line) || line != "ember.graph 1") {
      return InvalidArgument("graph text must start with 'ember.graph 1'");
    }
    int line_no = 1;
    bool returned = false;
    while (std::getline(in, line)) {
      ++line_no;
      std::istringstream fields(line);
      std::vector<std::string> f;
      for (std::string tok; fields >> tok;) f.push_back(tok);
      if (f.empty()) continue;
      Status s = returned ? InvalidArgument("nothing may follow the 'return' line") : ReadLine(f, &returned);
      // Shape functions may answer TypeError; graph text errors are all one kind.
      if (!s.ok()) return InvalidArgument("graph text line " + std::to_string(line_no) + ": " + s.message());
    }
    if (!returned) return InvalidArgument("graph text has no 'return' line");
    std::vector<Node> nodes = g_.nodes();
    out->Reset(std::move(nodes), num_args_, std::move(outputs_));
    Status s = ValidateGraph(*out);
    return s.ok() ? s : InvalidArgument("graph text: " + s.message());
    return Status::OK();
  }

 private:
  Status ReadLine(const std::vector<std::string>& f, bool* returned) {
    if (f[0] == "return" && f.size() == 2) {
      *returned = true;
      return ParseEndpoints(g_, f[1], &outputs_);
    }
    if (f[0] == "arg" && f.size() == 5) return ReadArg(f);
    if (f[0] == "node" && f.size() == 11) return ReadNode(f);
    return InvalidArgument("expected 'arg' (5 fields), 'node' (11 fields) or 'return' (2 fields)");
  }

  Status CheckId(const std::string& s) {
    int id;
    if (!ParseInt(s, &id) || id != g_.num_nodes()) {
      return InvalidArgument("node id '" + s + "' must be " + std::to_string(g_.num_nodes()) + " (ids are consecutive)");
    }
    return Status::OK();
  }

  // arg <id> <index> <outputs> <device>
  Status ReadArg(const std::vector<std::string>& f) {
    EMBER_RETURN_IF_ERROR(CheckId(f[1]));
    Node node;
    if (!ParseInt(f[2], &node.arg_index) || node.arg_index < 0) return InvalidArgument("bad argument index");
    EMBER_RETURN_IF_ERROR(ParseValues(f[3], &node.outputs));
    if (node.outputs.size() != 1) return InvalidArgument("an argument has exactly one output");
    if (!Unescape(f[4], &node.device)) return InvalidArgument("bad device '" + f[4] + "'");
    // Indices must form 0..n-1; ValidateGraph checks it once all are read.
    num_args_ = std::max(num_args_, node.arg_index + 1);
    g_.AddNode(std::move(node));
    return Status::OK();
  }

  // node <id> <op> <inputs> <list_sizes> <control> <bindings> <attrs> <outputs> <device> <location>
  Status ReadNode(const std::vector<std::string>& f) {
    EMBER_RETURN_IF_ERROR(CheckId(f[1]));
    Node node;
    if (!FindOpDef(f[2].c_str(), &node.op).ok()) return InvalidArgument("unknown op '" + f[2] + "'");
    const OpDef& op = *node.op;
    EMBER_RETURN_IF_ERROR(ParseEndpoints(g_, f[3], &node.inputs));
    EMBER_RETURN_IF_ERROR(ParseInts(f[4], "list size", &node.list_sizes));
    EMBER_RETURN_IF_ERROR(ParseInts(f[5], "control input", &node.control_inputs));
    for (int c : node.control_inputs) {
      if (c < 0 || c >= g_.num_nodes()) return InvalidArgument("control input " + std::to_string(c) + " names no earlier node");
    }
    EMBER_RETURN_IF_ERROR(ReadBindings(op, f[6], &node));
    const std::vector<std::string> attrs = Split(f[7], ';');
    if (attrs.size() != op.attrs.size()) {
      return InvalidArgument(std::string(op.name) + " takes " + std::to_string(op.attrs.size()) + " attributes, got " +
                             std::to_string(attrs.size()));
    }
    for (size_t i = 0; i < attrs.size(); ++i) {
      EMBER_RETURN_IF_ERROR(ParseAttr(attrs[i], op.attrs[i], &node.attrs.emplace_back()));
    }
    EMBER_RETURN_IF_ERROR(ParseValues(f[8], &node.outputs));
    if (!Unescape(f[9], &node.device)) return InvalidArgument("bad device '" + f[9] + "'");
    if (!Unescape(f[10], &node.location)) return InvalidArgument("bad location '" + f[10] + "'");
    const int id = g_.AddNode(std::move(node));
    Status s = ValidateNode(g_, id);
    return s.ok() ? s : s.WithPrefix(std::string(op.name) + ": ");
  }

  Status ReadBindings(const OpDef& op, const std::string& field, Node* node) {
    const std::vector<std::string> names = Split(field, ',');
    if (names.size() != op.type_vars.size()) {
      return InvalidArgument(std::string(op.name) + " has " + std::to_string(op.type_vars.size()) +
                             " type variables, got " + std::to_string(names.size()) + " bindings");
    }
    for (size_t i = 0; i < names.size(); ++i) EMBER_RETURN_IF_ERROR(ParseDType(names[i], &node->bindings[i]));
    return Status::OK();
  }

  Graph g_;  // the nodes read so far; Read() adds arguments and outputs
  int num_args_ = 0;
  std::vector<Endpoint> outputs_;
};

}  // namespace

Status Graph::FromText(const std::string& text, Graph* graph) {
  // The reader returns errors as values; this is the last line of defence
  // against a throw from a library call, which must not reach Python.
  try {
    return GraphTextReader().Read(text, graph);
  } catch (const std::exception& e) {
    return InvalidArgument(std::string("graph text: ") + e.what());
  }
}

}  // namespace ember

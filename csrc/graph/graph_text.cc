// This file implements Graph::ToText and Graph::FromText: a line-based text
// form of a graph that reads back into an equal graph (Note [Graph text]).
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
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
// outside [A-Za-z0-9._/:-] as %XX.

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

bool Unescape(const std::string& s, std::string* out) {
  out->clear();
  if (s == "%") return true;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      *out += s[i];
      continue;
    }
    if (i + 2 >= s.size()) return false;
    *out += static_cast<char>(std::strtol(s.substr(i + 1, 2).c_str(), nullptr, 16));
    i += 2;
  }
  return true;
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

Status ParseAttr(const std::string& s, AttrValue* out) {
  if (s.empty()) return InvalidArgument("empty attribute");
  const std::string body = s.substr(1);
  switch (s[0]) {
    case 'n': *out = AttrValue(); return Status::OK();
    case 'b': *out = AttrValue(body == "1"); return Status::OK();
    case 'i': *out = AttrValue(static_cast<int64_t>(std::strtoll(body.c_str(), nullptr, 10))); return Status::OK();
    case 'f': *out = AttrValue(std::strtod(body.c_str(), nullptr)); return Status::OK();
    case 's': {
      std::string v;
      if (!Unescape(body, &v)) return InvalidArgument("bad string attribute " + s);
      *out = AttrValue(std::move(v));
      return Status::OK();
    }
    case 'l': {
      std::vector<int64_t> v;
      for (const std::string& p : Split(body, '|')) v.push_back(std::strtoll(p.c_str(), nullptr, 10));
      *out = AttrValue(std::move(v));
      return Status::OK();
    }
    case 't': {
      DType d;
      EMBER_RETURN_IF_ERROR(ParseDType(body, &d));
      *out = AttrValue(d);
      return Status::OK();
    }
  }
  return InvalidArgument("unknown attribute form " + s);
}

std::string ValueText(const ValueInfo& v) {
  std::string dims = Join(v.shape.ToVector(), ',', [](int64_t d) { return d < 0 ? std::string("?") : std::to_string(d); });
  return std::string(DTypeName(v.dtype)) + "[" + (dims == "-" ? "" : dims) + "]";
}

Status ParseValue(const std::string& s, ValueInfo* out) {
  const size_t open = s.find('[');
  if (open == std::string::npos || s.back() != ']') return InvalidArgument("bad value " + s);
  EMBER_RETURN_IF_ERROR(ParseDType(s.substr(0, open), &out->dtype));
  const std::string dims = s.substr(open + 1, s.size() - open - 2);
  std::vector<int64_t> v;
  if (!dims.empty()) {
    for (const std::string& d : Split(dims, ',')) v.push_back(d == "?" ? Shape::kUnknownDim : std::stoll(d));
  }
  out->shape = Shape(v);
  return Status::OK();
}

std::string EndpointText(const Endpoint& e) { return std::to_string(e.node) + ":" + std::to_string(e.output); }

Status ParseEndpoint(const std::string& s, int num_nodes, Endpoint* e) {
  const size_t colon = s.find(':');
  if (colon == std::string::npos) return InvalidArgument("bad endpoint " + s);
  e->node = std::atoi(s.substr(0, colon).c_str());
  e->output = std::atoi(s.substr(colon + 1).c_str());
  if (e->node < 0 || e->node >= num_nodes) return InvalidArgument("endpoint " + s + " names no earlier node");
  return Status::OK();
}

std::vector<int> ParseInts(const std::string& s) {
  std::vector<int> v;
  for (const std::string& p : Split(s, ',')) v.push_back(std::atoi(p.c_str()));
  return v;
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

Status Graph::FromText(const std::string& text, Graph* graph) {
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line != "ember.graph 1") {
    return InvalidArgument("graph text must start with 'ember.graph 1'");
  }
  Graph g;
  int line_no = 1;
  bool returned = false;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty()) continue;
    std::istringstream fields(line);
    std::vector<std::string> f;
    for (std::string tok; fields >> tok;) f.push_back(tok);
    auto fail = [&](const std::string& why) {
      return InvalidArgument("graph text line " + std::to_string(line_no) + ": " + why);
    };
    if (f[0] == "return" && f.size() == 2) {
      for (const std::string& e : Split(f[1], ',')) {
        Endpoint ep;
        Status s = ParseEndpoint(e, g.num_nodes(), &ep);
        if (!s.ok()) return fail(s.message());
        g.outputs_.push_back(ep);
      }
      returned = true;
      continue;
    }
    Node node;
    for (const std::string& v : Split(f.back() == "" ? "-" : (f[0] == "arg" ? f[3] : f[8]), ';')) {
      ValueInfo info;
      Status s = ParseValue(v, &info);
      if (!s.ok()) return fail(s.message());
      node.outputs.push_back(std::move(info));
    }
    if (f[0] == "arg" && f.size() == 5) {
      if (std::atoi(f[1].c_str()) != g.num_nodes()) return fail("node ids must be consecutive");
      if (!Unescape(f[4], &node.device)) return fail("bad device");
      node.arg_index = std::atoi(f[2].c_str());
      ++g.num_args_;
      g.AddNode(std::move(node));
      continue;
    }
    if (f[0] != "node" || f.size() != 11) return fail("expected 'arg', 'node' or 'return'");
    if (std::atoi(f[1].c_str()) != g.num_nodes()) return fail("node ids must be consecutive");
    EMBER_RETURN_IF_ERROR(FindOpDef(f[2].c_str(), &node.op));
    for (const std::string& e : Split(f[3], ',')) {
      Endpoint ep;
      Status s = ParseEndpoint(e, g.num_nodes(), &ep);
      if (!s.ok()) return fail(s.message());
      node.inputs.push_back(ep);
    }
    node.list_sizes = ParseInts(f[4]);
    node.control_inputs = ParseInts(f[5]);
    std::vector<std::string> bindings = Split(f[6], ',');
    if (bindings.size() != node.op->type_vars.size()) return fail("wrong number of type bindings");
    for (size_t i = 0; i < bindings.size(); ++i) {
      Status s = ParseDType(bindings[i], &node.bindings[i]);
      if (!s.ok()) return fail(s.message());
    }
    for (const std::string& a : Split(f[7], ';')) {
      AttrValue v;
      Status s = ParseAttr(a, &v);
      if (!s.ok()) return fail(s.message());
      node.attrs.push_back(std::move(v));
    }
    if (node.attrs.size() != node.op->attrs.size()) return fail("wrong number of attributes");
    if (!Unescape(f[9], &node.device) || !Unescape(f[10], &node.location)) return fail("bad string field");
    g.AddNode(std::move(node));
  }
  if (!returned) return InvalidArgument("graph text has no 'return' line");
  *graph = std::move(g);
  return Status::OK();
}

}  // namespace ember

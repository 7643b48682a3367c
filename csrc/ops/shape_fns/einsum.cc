// This file implements the einsum shape function and the equation parser
// that the CPU kernel reuses (einsum.h).
#include "ops/shape_fns/einsum.h"

#include <algorithm>
#include <cctype>

#include "ops/shape_fns/shape_fns.h"

namespace ember::shape_fns {
namespace {

constexpr int kNumLetters = 52;
constexpr int64_t kUnseen = -2;  // a label no operand uses

int LetterIndex(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return 26 + (c - 'a');
  return -1;
}

char LetterOf(int index) { return static_cast<char>(index < 26 ? 'A' + index : 'a' + (index - 26)); }

// One comma-separated term: its letters and where '...' sits among them.
struct Term {
  std::string text;
  std::vector<int> letters;  // LetterIndex of each letter, in order
  int ellipsis_at = -1;      // position in `letters` before which '...' goes; -1: none
};

Status ParseTerm(const std::string& text, Term* term) {
  term->text = text;
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == '.') {
      if (text.compare(i, 3, "...") != 0) {
        return InvalidArgument("invalid '.' in term '" + text + "'; an ellipsis is exactly '...'");
      }
      if (term->ellipsis_at >= 0) return InvalidArgument("more than one '...' in term '" + text + "'");
      term->ellipsis_at = static_cast<int>(term->letters.size());
      i += 3;
      continue;
    }
    const int index = LetterIndex(c);
    if (index < 0) {
      return InvalidArgument(std::string("invalid character '") + c + "' in term '" + text +
                             "'; expected letters, ',', '->' or '...'");
    }
    term->letters.push_back(index);
    ++i;
  }
  return Status::OK();
}

std::vector<std::string> SplitTerms(const std::string& lhs) {
  std::vector<std::string> terms(1);
  for (char c : lhs) {
    if (c == ',') terms.emplace_back();
    else terms.back() += c;
  }
  return terms;
}

}  // namespace

Status ParseEinsum(const std::string& equation, const Shape* shapes, int num_operands,
                   EinsumSpec* spec) {
  std::string eq;
  for (char c : equation) {
    if (!std::isspace(static_cast<unsigned char>(c))) eq += c;
  }
  const size_t arrow = eq.find("->");
  const bool has_output = arrow != std::string::npos;
  const std::string lhs = eq.substr(0, arrow);
  const std::string rhs = has_output ? eq.substr(arrow + 2) : std::string();
  if (rhs.find("->") != std::string::npos) {
    return InvalidArgument("equation '" + equation + "' has more than one '->'");
  }
  if (rhs.find(',') != std::string::npos) {
    return InvalidArgument("equation '" + equation + "' has a ',' after '->'; the output is one term");
  }
  if (num_operands < 1) return InvalidArgument("needs at least one input tensor");
  const std::vector<std::string> texts = SplitTerms(lhs);
  std::vector<Term> terms(texts.size());
  for (size_t i = 0; i < texts.size(); ++i) EMBER_RETURN_IF_ERROR(ParseTerm(texts[i], &terms[i]));
  if (static_cast<int>(texts.size()) != num_operands) {
    return InvalidArgument("equation '" + equation + "' has " + std::to_string(texts.size()) +
                           " input terms but " + std::to_string(num_operands) + " inputs were given");
  }

  // Ranks: each term names exactly its operand's dims; '...' takes the rest.
  std::vector<int> ellipsis_dims(num_operands, 0);
  int num_ellipsis = 0;
  for (int i = 0; i < num_operands; ++i) {
    const int named = static_cast<int>(terms[i].letters.size());
    const int rank = shapes[i].rank();
    if (terms[i].ellipsis_at >= 0 ? rank < named : rank != named) {
      return InvalidArgument("input " + std::to_string(i) + " has shape " + shapes[i].ToString() + " (rank " +
                             std::to_string(rank) + ") but its term '" + texts[i] + "' names " +
                             std::to_string(named) + " dims" +
                             (terms[i].ellipsis_at >= 0 ? " or more" : ""));
    }
    ellipsis_dims[i] = rank - named;
    num_ellipsis = std::max(num_ellipsis, ellipsis_dims[i]);
  }

  spec->num_ellipsis_dims = num_ellipsis;
  spec->sizes.assign(num_ellipsis + kNumLetters, kUnseen);
  spec->inputs.assign(num_operands, {});
  std::vector<int> counts(spec->sizes.size(), 0);
  for (int i = 0; i < num_operands; ++i) {
    const Term& term = terms[i];
    std::vector<int>& labels = spec->inputs[i];
    for (int pos = 0; pos <= static_cast<int>(term.letters.size()); ++pos) {
      if (pos == term.ellipsis_at) {
        for (int j = num_ellipsis - ellipsis_dims[i]; j < num_ellipsis; ++j) labels.push_back(j);
      }
      if (pos < static_cast<int>(term.letters.size())) labels.push_back(num_ellipsis + term.letters[pos]);
    }
    for (int d = 0; d < static_cast<int>(labels.size()); ++d) {
      const int label = labels[d];
      const int64_t dim = shapes[i].dim(d);
      int64_t& size = spec->sizes[label];
      ++counts[label];
      if (size == kUnseen || size == Shape::kUnknownDim) {
        if (!(label < num_ellipsis && dim == 1 && size == Shape::kUnknownDim)) size = dim;
      } else if (dim == Shape::kUnknownDim || dim == size) {
        // Consistent (or unknown until run time).
      } else if (label < num_ellipsis && (dim == 1 || size == 1)) {
        if (size == 1) size = dim;  // '...' dims broadcast
      } else if (label < num_ellipsis) {
        return InvalidArgument("the dims of '...' do not broadcast: input " + std::to_string(i) + " has shape " +
                               shapes[i].ToString() + ", and another input has size " + std::to_string(size) +
                               " where it has " + std::to_string(dim));
      } else {
        return InvalidArgument("label '" + std::string(1, LetterOf(label - num_ellipsis)) + "' has size " +
                               std::to_string(size) + " in one place but " + std::to_string(dim) +
                               " in input " + std::to_string(i) + " (shape " + shapes[i].ToString() + ")");
      }
    }
  }

  spec->output.clear();
  if (has_output) {
    Term out;
    EMBER_RETURN_IF_ERROR(ParseTerm(rhs, &out));
    std::vector<bool> seen(spec->sizes.size(), false);
    for (int pos = 0; pos <= static_cast<int>(out.letters.size()); ++pos) {
      if (pos == out.ellipsis_at) {
        for (int j = 0; j < num_ellipsis; ++j) spec->output.push_back(j);
      }
      if (pos == static_cast<int>(out.letters.size())) break;
      const int label = num_ellipsis + out.letters[pos];
      const std::string name(1, LetterOf(out.letters[pos]));
      if (seen[label]) return InvalidArgument("output label '" + name + "' appears more than once");
      if (counts[label] == 0) {
        return InvalidArgument("output label '" + name + "' does not appear in any input term of '" +
                               equation + "'");
      }
      seen[label] = true;
      spec->output.push_back(label);
    }
    if (num_ellipsis > 0 && out.ellipsis_at < 0) {
      return InvalidArgument("the output of '" + equation + "' needs '...': the inputs' '...' stand for " +
                             std::to_string(num_ellipsis) + " dims");
    }
  } else {
    for (int j = 0; j < num_ellipsis; ++j) spec->output.push_back(j);
    for (int label = num_ellipsis; label < spec->num_labels(); ++label) {
      if (counts[label] == 1) spec->output.push_back(label);
    }
  }
  return Status::OK();
}

Status Einsum(ShapeContext& ctx) {
  const int first = ctx.arg_start(0);
  const int count = ctx.arg_size(0);
  std::vector<Shape> shapes;
  shapes.reserve(count);
  for (int i = 0; i < count; ++i) shapes.push_back(ctx.input_shape(first + i));
  EinsumSpec spec;
  EMBER_RETURN_IF_ERROR(ParseEinsum(ctx.attr(0).as_string(), shapes.data(), count, &spec));
  Shape out;
  for (int label : spec.output) out.AddDim(spec.sizes[label]);
  ctx.set_output_shape(0, std::move(out));
  return Status::OK();
}

namespace {

std::vector<bool> LabelSet(const std::vector<int>& labels, int num_labels) {
  std::vector<bool> set(num_labels, false);
  for (int l : labels) set[l] = true;
  return set;
}

template <typename Pred>
std::vector<int> UniqueLabels(const std::vector<int>& labels, Pred keep) {
  std::vector<int> out;
  for (int l : labels) {
    if (keep(l) && std::find(out.begin(), out.end(), l) == out.end()) out.push_back(l);
  }
  return out;
}

}  // namespace

std::vector<std::vector<bool>> EinsumLaterLabels(const EinsumSpec& spec) {
  const int n = static_cast<int>(spec.inputs.size());
  std::vector<std::vector<bool>> later(n, LabelSet(spec.output, spec.num_labels()));
  for (int i = n - 2; i >= 0; --i) {
    later[i] = later[i + 1];
    for (int l : spec.inputs[i + 1]) later[i][l] = true;
  }
  return later;
}

EinsumPairLabels SplitEinsumPair(const std::vector<int>& a, const std::vector<int>& b, const std::vector<bool>& later,
                                 int num_labels) {
  const std::vector<bool> in_a = LabelSet(a, num_labels);
  const std::vector<bool> in_b = LabelSet(b, num_labels);
  EinsumPairLabels p;
  p.batch = UniqueLabels(a, [&](int l) { return in_b[l] && later[l]; });
  p.contracted = UniqueLabels(a, [&](int l) { return in_b[l] && !later[l]; });
  p.a_free = UniqueLabels(a, [&](int l) { return !in_b[l] && later[l]; });
  p.a_sum = UniqueLabels(a, [&](int l) { return !in_b[l] && !later[l]; });
  p.b_free = UniqueLabels(b, [&](int l) { return !in_a[l] && later[l]; });
  p.b_sum = UniqueLabels(b, [&](int l) { return !in_a[l] && !later[l]; });
  return p;
}

std::vector<int> EinsumLabelsOutside(const std::vector<int>& labels, const std::vector<int>& keep, int num_labels) {
  const std::vector<bool> kept = LabelSet(keep, num_labels);
  return UniqueLabels(labels, [&](int l) { return !kept[l]; });
}

std::vector<int> ConcatLabels(std::vector<int> a, const std::vector<int>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace ember::shape_fns

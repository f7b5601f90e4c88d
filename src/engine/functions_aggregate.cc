// Aggregates SQLite lacks: the one value of a scalar subquery, LISTAGG with DISTINCT or WITHIN
// GROUP, ARRAY_AGG, variances and deviations, percentiles, FIRST_VALUE and LAST_VALUE. Those that
// keep values count the bytes they hold in the connection's FunctionState, so that a query over
// its memory budget stops (engine.h).
#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "engine/functions_impl.h"

namespace hop::engine::internal {
namespace {

FunctionState* StateOf(sqlite3_context* ctx) {
  return static_cast<FunctionState*>(sqlite3_user_data(ctx));
}

// An aggregate's state object, made on the first row (sqlite3_aggregate_context hands zeroed
// memory of a fixed size: it holds a pointer to the real state).
template <typename T>
T* State(sqlite3_context* ctx, bool create) {
  auto** slot = static_cast<T**>(sqlite3_aggregate_context(ctx, create ? sizeof(T*) : 0));
  if (slot == nullptr) return nullptr;
  if (*slot == nullptr && create) *slot = new T();
  return *slot;
}

template <typename T>
void Free(sqlite3_context* ctx, T* state) {
  if (state == nullptr) return;
  StateOf(ctx)->held_bytes -= state->bytes;
  delete state;
  auto** slot = static_cast<T**>(sqlite3_aggregate_context(ctx, 0));
  if (slot != nullptr) *slot = nullptr;
}

struct Held {
  int64_t bytes = 0;
  void Add(sqlite3_context* ctx, int64_t n) {
    bytes += n;
    StateOf(ctx)->held_bytes += n;
  }
};

// ---- the one value of a scalar subquery ----

struct Single : Held {
  int64_t rows = 0;
  sqlite3_value* value = nullptr;
  ~Single() { sqlite3_value_free(value); }
};

void SingleStep(sqlite3_context* ctx, int, sqlite3_value** argv) {
  Single* s = State<Single>(ctx, true);
  if (!s) return sqlite3_result_error_nomem(ctx);
  if (++s->rows > 1) return SetError(ctx, "A scalar subquery returned more than one row");
  s->value = sqlite3_value_dup(argv[0]);
}

void SingleFinal(sqlite3_context* ctx) {
  Single* s = State<Single>(ctx, false);
  if (s && s->value) {
    sqlite3_result_value(ctx, s->value);
  } else {
    sqlite3_result_null(ctx);
  }
  Free(ctx, s);
}

// ---- ordering of kept values by sort keys ----

// SQLite's order of values: NULL, numbers, text, blobs.
int CompareValues(sqlite3_value* a, sqlite3_value* b) {
  const int ta = sqlite3_value_type(a), tb = sqlite3_value_type(b);
  auto rank = [](int t) {
    switch (t) {
      case SQLITE_NULL: return 0;
      case SQLITE_INTEGER:
      case SQLITE_FLOAT: return 1;
      case SQLITE_TEXT: return 2;
      default: return 3;
    }
  };
  if (rank(ta) != rank(tb)) return rank(ta) < rank(tb) ? -1 : 1;
  switch (rank(ta)) {
    case 0: return 0;
    case 1: {
      if (ta == SQLITE_INTEGER && tb == SQLITE_INTEGER) {
        const int64_t x = sqlite3_value_int64(a), y = sqlite3_value_int64(b);
        return x < y ? -1 : x > y ? 1 : 0;
      }
      const double x = sqlite3_value_double(a), y = sqlite3_value_double(b);
      return x < y ? -1 : x > y ? 1 : 0;
    }
    default: {
      const int na = sqlite3_value_bytes(a), nb = sqlite3_value_bytes(b);
      const void* pa = ta == SQLITE_TEXT ? static_cast<const void*>(sqlite3_value_text(a))
                                         : sqlite3_value_blob(a);
      const void* pb = tb == SQLITE_TEXT ? static_cast<const void*>(sqlite3_value_text(b))
                                         : sqlite3_value_blob(b);
      const int c = std::memcmp(pa, pb, static_cast<size_t>(std::min(na, nb)));
      if (c != 0) return c < 0 ? -1 : 1;
      return na < nb ? -1 : na > nb ? 1 : 0;
    }
  }
}

struct Keyed {
  std::string value;
  bool null = false;
  std::vector<sqlite3_value*> keys;
};

struct Collected : Held {
  std::vector<Keyed> rows;
  std::vector<int> flags;  // per key: 1 descending, 2 NULL first
  ~Collected() {
    for (auto& r : rows) {
      for (auto* k : r.keys) sqlite3_value_free(k);
    }
  }
  void Sort() {
    std::stable_sort(rows.begin(), rows.end(), [&](const Keyed& a, const Keyed& b) {
      for (size_t i = 0; i < flags.size(); ++i) {
        const bool an = sqlite3_value_type(a.keys[i]) == SQLITE_NULL;
        const bool bn = sqlite3_value_type(b.keys[i]) == SQLITE_NULL;
        if (an != bn) return (flags[i] & 2) ? an : bn;
        int c = CompareValues(a.keys[i], b.keys[i]);
        if (flags[i] & 1) c = -c;
        if (c != 0) return c < 0;
      }
      return false;
    });
  }
};

// Collects argv[0] (as text, or as a JSON fragment of `rep`) with keys argv[first_key, ...).
void Collect(sqlite3_context* ctx, int argc, sqlite3_value** argv, int first_key, const Rep* rep) {
  Collected* c = State<Collected>(ctx, true);
  if (!c) return sqlite3_result_error_nomem(ctx);
  Keyed row;
  row.null = sqlite3_value_type(argv[0]) == SQLITE_NULL;
  if (rep != nullptr) {
    row.value = JsonFragment(argv[0], *rep);
  } else if (!row.null) {
    row.value = std::string(ArgText(argv[0]));
  }
  if (c->flags.empty()) {
    for (int i = first_key; i + 1 < argc; i += 2)
      c->flags.push_back(sqlite3_value_int(argv[i + 1]));
  }
  for (int i = first_key; i + 1 < argc; i += 2) row.keys.push_back(sqlite3_value_dup(argv[i]));
  c->Add(ctx, static_cast<int64_t>(row.value.size() + 16 * row.keys.size() + sizeof(Keyed)));
  c->rows.push_back(std::move(row));
}

// LISTAGG(x, sep) WITHIN GROUP (ORDER BY k ...): (x, sep, k1, flags1, ...).
struct Listagg : Collected {
  std::string separator = ",";
  bool have_separator = false;
};

void ListaggOrderedStep(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  Listagg* l = State<Listagg>(ctx, true);
  if (!l) return sqlite3_result_error_nomem(ctx);
  if (!l->have_separator && sqlite3_value_type(argv[1]) != SQLITE_NULL) {
    l->separator = std::string(ArgText(argv[1]));
    l->have_separator = true;
  }
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return;
  Keyed row;
  row.value = std::string(ArgText(argv[0]));
  if (l->flags.empty()) {
    for (int i = 2; i + 1 < argc; i += 2) l->flags.push_back(sqlite3_value_int(argv[i + 1]));
  }
  for (int i = 2; i + 1 < argc; i += 2) row.keys.push_back(sqlite3_value_dup(argv[i]));
  l->Add(ctx, static_cast<int64_t>(row.value.size() + 16 * row.keys.size() + sizeof(Keyed)));
  l->rows.push_back(std::move(row));
}

void ListaggOrderedFinal(sqlite3_context* ctx) {
  Listagg* l = State<Listagg>(ctx, false);
  if (!l || l->rows.empty()) {
    sqlite3_result_null(ctx);
    return Free(ctx, l);
  }
  l->Sort();
  std::string out;
  for (size_t i = 0; i < l->rows.size(); ++i) {
    if (i > 0) out += l->separator;
    out += l->rows[i].value;
  }
  SetText(ctx, out);
  Free(ctx, l);
}

struct Distinct : Held {
  std::vector<std::string> values;
  std::set<std::string> seen;
  std::string separator = ",";
  bool have_separator = false;
};

void ListaggDistinctStep(sqlite3_context* ctx, int, sqlite3_value** argv) {
  Distinct* d = State<Distinct>(ctx, true);
  if (!d) return sqlite3_result_error_nomem(ctx);
  if (!d->have_separator && sqlite3_value_type(argv[1]) != SQLITE_NULL) {
    d->separator = std::string(ArgText(argv[1]));
    d->have_separator = true;
  }
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return;
  std::string v(ArgText(argv[0]));
  if (d->seen.insert(v).second) {
    d->Add(ctx, static_cast<int64_t>(2 * v.size() + 64));
    d->values.push_back(std::move(v));
  }
}

void ListaggDistinctFinal(sqlite3_context* ctx) {
  Distinct* d = State<Distinct>(ctx, false);
  if (!d || d->values.empty()) {
    sqlite3_result_null(ctx);
    return Free(ctx, d);
  }
  std::string out;
  for (size_t i = 0; i < d->values.size(); ++i) {
    if (i > 0) out += d->separator;
    out += d->values[i];
  }
  SetText(ctx, out);
  Free(ctx, d);
}

// ARRAY_AGG(x) [WITHIN GROUP (...)]: (x, code, k1, flags1, ...).
void ArrayAggStep(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  const Rep* rep = ArgRep(ctx, argv, 1);
  if (!rep) return;
  Collect(ctx, argc, argv, 2, rep);
}

void ArrayAggFinal(sqlite3_context* ctx) {
  Collected* c = State<Collected>(ctx, false);
  if (!c) {
    // Calcite's ARRAY_AGG of no rows is NULL.
    return sqlite3_result_null(ctx);
  }
  c->Sort();
  std::string out = "[";
  for (size_t i = 0; i < c->rows.size(); ++i) {
    if (i > 0) out += ',';
    out += c->rows[i].value;
  }
  SetText(ctx, out + "]");
  Free(ctx, c);
}

// ---- variances ----

struct Moments {
  int64_t n = 0;
  double mean = 0, m2 = 0;
};

// HOP_VARIANCE(x, kind) dispatches on its constant kind: the step records it.
struct Variance {
  Moments m;
  int kind = -1;  // 0 var_pop, 1 var_samp, 2 stddev_pop, 3 stddev_samp
};

void VarianceKindStep(sqlite3_context* ctx, int, sqlite3_value** argv) {
  auto* v = static_cast<Variance*>(sqlite3_aggregate_context(ctx, sizeof(Variance)));
  if (!v) return sqlite3_result_error_nomem(ctx);
  if (v->kind < 0 || v->m.n == 0) {
    const std::string_view k = ArgText(argv[1]);
    v->kind = k == "var_pop" ? 0 : k == "var_samp" ? 1 : k == "stddev_pop" ? 2 : 3;
  }
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return;
  const double x = sqlite3_value_double(argv[0]);
  Moments& m = v->m;
  ++m.n;
  const double delta = x - m.mean;
  m.mean += delta / static_cast<double>(m.n);
  m.m2 += delta * (x - m.mean);
}

void VarianceKindFinal(sqlite3_context* ctx) {
  auto* v = static_cast<Variance*>(sqlite3_aggregate_context(ctx, 0));
  if (!v) return sqlite3_result_null(ctx);
  const bool sample = v->kind == 1 || v->kind == 3;
  const bool root = v->kind >= 2;
  if (v->m.n == 0 || (sample && v->m.n < 2)) return sqlite3_result_null(ctx);
  double r = v->m.m2 / static_cast<double>(sample ? v->m.n - 1 : v->m.n);
  if (root) r = std::sqrt(r);
  sqlite3_result_double(ctx, r);
}

// ---- percentiles ----

struct Percentile : Held {
  double fraction = -1;
  bool descending = false;
  std::vector<double> numbers;         // PERCENTILE_CONT
  std::vector<sqlite3_value*> values;  // PERCENTILE_DISC
  ~Percentile() {
    for (auto* v : values) sqlite3_value_free(v);
  }
};

template <bool kCont>
void PercentileStep(sqlite3_context* ctx, int, sqlite3_value** argv) {
  Percentile* p = State<Percentile>(ctx, true);
  if (!p) return sqlite3_result_error_nomem(ctx);
  if (p->fraction < 0) {
    p->fraction = sqlite3_value_double(argv[0]);
    p->descending = sqlite3_value_int(argv[2]) != 0;
    if (!(p->fraction >= 0 && p->fraction <= 1)) {
      return SetError(ctx, "The percentile must be between 0 and 1");
    }
  }
  if (sqlite3_value_type(argv[1]) == SQLITE_NULL) return;
  if (kCont) {
    p->numbers.push_back(sqlite3_value_double(argv[1]));
    p->Add(ctx, 8);
  } else {
    p->values.push_back(sqlite3_value_dup(argv[1]));
    p->Add(ctx, 16 + sqlite3_value_bytes(argv[1]));
  }
}

template <bool kCont>
void PercentileFinal(sqlite3_context* ctx) {
  Percentile* p = State<Percentile>(ctx, false);
  if (!p || (kCont ? p->numbers.empty() : p->values.empty())) {
    sqlite3_result_null(ctx);
    return Free(ctx, p);
  }
  if (kCont) {
    auto& v = p->numbers;
    std::sort(v.begin(), v.end());
    if (p->descending) std::reverse(v.begin(), v.end());
    const double pos = p->fraction * static_cast<double>(v.size() - 1);
    const size_t lo = static_cast<size_t>(std::floor(pos));
    const size_t hi = std::min(lo + 1, v.size() - 1);
    sqlite3_result_double(ctx, v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo)));
  } else {
    auto& v = p->values;
    std::stable_sort(v.begin(), v.end(), [&](sqlite3_value* a, sqlite3_value* b) {
      const int c = CompareValues(a, b);
      return p->descending ? c > 0 : c < 0;
    });
    size_t index = static_cast<size_t>(std::ceil(p->fraction * static_cast<double>(v.size())));
    index = index == 0 ? 0 : std::min(index - 1, v.size() - 1);
    sqlite3_result_value(ctx, v[index]);
  }
  Free(ctx, p);
}

// ---- first and last ----

struct Kept {
  sqlite3_value* value = nullptr;
  bool set = false;
};

template <bool kFirst>
void KeepStep(sqlite3_context* ctx, int, sqlite3_value** argv) {
  auto* k = static_cast<Kept*>(sqlite3_aggregate_context(ctx, sizeof(Kept)));
  if (!k) return sqlite3_result_error_nomem(ctx);
  if (kFirst && k->set) return;
  sqlite3_value_free(k->value);
  k->value = sqlite3_value_dup(argv[0]);
  k->set = true;
}

void KeepFinal(sqlite3_context* ctx) {
  auto* k = static_cast<Kept*>(sqlite3_aggregate_context(ctx, 0));
  if (!k || !k->value) return sqlite3_result_null(ctx);
  sqlite3_result_value(ctx, k->value);
  sqlite3_value_free(k->value);
  k->value = nullptr;
}

using StepFn = void (*)(sqlite3_context*, int, sqlite3_value**);
using FinalFn = void (*)(sqlite3_context*);

Status AddAggregate(sqlite3* db, std::string_view name, int nargs, StepFn step, FinalFn final,
                    FunctionState* state) {
  const std::string n(name);
  if (sqlite3_create_function_v2(db, n.c_str(), nargs, SQLITE_UTF8 | SQLITE_INNOCUOUS, state,
                                 nullptr, step, final, nullptr) != SQLITE_OK) {
    return Status::Internal(fmt::format("cannot register {}: {}", n, sqlite3_errmsg(db)));
  }
  return Status::OK();
}

}  // namespace

Status RegisterAggregateFunctions(sqlite3* db, FunctionState* state) {
  HOP_RETURN_IF_ERROR(AddAggregate(db, fn::kSingle, 1, SingleStep, SingleFinal, state));
  HOP_RETURN_IF_ERROR(
      AddAggregate(db, fn::kListaggDistinct, 2, ListaggDistinctStep, ListaggDistinctFinal, state));
  HOP_RETURN_IF_ERROR(
      AddAggregate(db, fn::kListaggOrdered, -1, ListaggOrderedStep, ListaggOrderedFinal, state));
  HOP_RETURN_IF_ERROR(AddAggregate(db, fn::kArrayAgg, -1, ArrayAggStep, ArrayAggFinal, state));
  HOP_RETURN_IF_ERROR(
      AddAggregate(db, fn::kVariance, 2, VarianceKindStep, VarianceKindFinal, state));
  HOP_RETURN_IF_ERROR(
      AddAggregate(db, fn::kPercentileCont, 3, PercentileStep<true>, PercentileFinal<true>, state));
  HOP_RETURN_IF_ERROR(AddAggregate(db, fn::kPercentileDisc, 3, PercentileStep<false>,
                                   PercentileFinal<false>, state));
  HOP_RETURN_IF_ERROR(AddAggregate(db, fn::kFirst, 1, KeepStep<true>, KeepFinal, state));
  HOP_RETURN_IF_ERROR(AddAggregate(db, fn::kLast, 1, KeepStep<false>, KeepFinal, state));
  return Status::OK();
}

}  // namespace hop::engine::internal

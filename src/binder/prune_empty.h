// Plans that provably yield no rows, reduced before they run, as Calcite's planner reduces them
// (an always-false filter, LIMIT 0, a join or a grouping over nothing): such a plan reads none of
// its tables, so it runs even over tables the local engine cannot read, and gives Calcite's
// answer (docs/engine.md, "Plans that yield no rows").
#pragma once

#include "binder/bound.h"

namespace hop::binder {

// The value of a condition that depends on no row, in SQL's three-valued logic.
enum class Truth : uint8_t { kTrue, kFalse, kNull, kUnknown };

// What `condition` is for every row: a literal, NOT, AND, OR, IS [NOT] NULL | TRUE | FALSE |
// UNKNOWN, the comparisons of two numeric literals (exactly, as decimals) or the equality of two
// string literals, and EXISTS / [NOT] IN over a subquery already reduced to no rows, folded as
// Calcite's simplifier folds them. kUnknown when it reads a column or holds anything else (a
// function, any other subquery): nothing is assumed about those.
Truth ConstantTruth(const Scalar& condition);

// `plan` with every operator that provably yields no rows replaced by a Values of its row type
// with no rows, as Calcite's rules for empty relations do: a Filter whose condition is never
// true (FALSE or NULL), a Sort with a FETCH (LIMIT) of 0, and, over such an input, a Filter,
// Project, Sort, an Aggregate with GROUP BY keys, an inner join with either side empty (or a
// condition never true), an outer join with its preserved side empty, a UNION whose every
// input, an INTERSECT whose any input and an EXCEPT whose first input is empty. An Aggregate
// without GROUP BY over nothing stays: it yields its one row (COUNT 0, SUM NULL, ...). Subqueries
// in expressions are reduced likewise. Null when nothing in `plan` is reduced; shared nodes the
// reduction does not touch are kept, not copied.
RelPtr PruneEmpty(const Rel& plan);

}  // namespace hop::binder

#pragma once
// What cws-pcg reports of each variant once its solves are done (its JSON
// entry: time to solution, iterations, residual, verification; for cws the
// learning and replaying phases of every solve, locality per kernel and the
// breakdown of spmv's time), its verification, the per-solve lines and the
// table.
//
// Verification: the reference (serial, the first variant finished) against
// the manufactured solution, its error within cond(A) x residual and its
// true residual within 10 x tol; every other variant against the reference,
// bit for bit: the same iterations, residual history and solution.

#include <string>
#include <vector>

#include "common/locality_tally.hpp"
#include "common/report.hpp"
#include "pcg/variants.hpp"

namespace pcg {

cws_apps::json run_params(const options& o, const variant_set& set, const std::vector<std::string>& policies,
                          cws::runtime& rt);

class results {
 public:
  results(cws_apps::report& out, const options& o, const variant_set& set, const cws_apps::locality_tally& tally);

  // After the variant's last solve: its entry and its verification; then
  // its matrix and vectors are released, unless it is the reference.
  void finish(variant& v, const cws_apps::phase_timer& timer);
  // The ratios, the per-solve lines of the cws variants (unless --json or
  // -q) and the table or the JSON document.
  void print(cws::runtime& rt) const;
  // One message per mismatch.
  const std::vector<std::string>& wrong() const noexcept { return wrong_; }

 private:
  static std::vector<cws_apps::column> columns();  // of the table
  bool verify_reference(const variant& v, cws_apps::json& e);
  bool same_as_reference(const variant& v);
  void put_cws(const variant& v, cws_apps::json& e) const;

  cws_apps::report& out_;
  const options& opt_;
  const variant_set& set_;
  const cws_apps::locality_tally& tally_;
  const variant* reference_ = nullptr;
  std::vector<std::string> wrong_;
  std::vector<std::string> solve_lines_;
};

}  // namespace pcg

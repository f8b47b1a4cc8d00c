#include "pcg/flags.hpp"

namespace pcg {

void problem_flags::resolve() {
  prob.stencil = stencil == 27 ? stencil_kind::twenty_seven : stencil_kind::seven;
  prob.coef = parse_coefficient(coef);
  so.pc = parse_preconditioner(precond);
}

}  // namespace pcg

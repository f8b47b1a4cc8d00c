// The parts of cws-lulesh (apps/lulesh): the mesh (volumes, masses, corner
// lists, boundary flags), the Sedov energy deposit and first time step, the
// time-step rules, the symmetry of the solution after a few cycles, the
// verification rules, bitwise equality of a cws run with the serial one, and
// LULESH 2.0's published result at size 5.

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <limits>
#include <string>

#include <cws/cws.hpp>

#include "common/hinted_recursion.hpp"
#include "lulesh/domain.hpp"
#include "lulesh/simulation.hpp"
#include "lulesh/time_step.hpp"
#include "lulesh/verification.hpp"

namespace {

using lulesh::domain;
using lulesh::initial_conditions;
using lulesh::outcome;
using lulesh::real;

// A domain of edge^3 elements in its initial state, set up serially.
struct fresh {
  lulesh::serial_runner serial;
  domain d;
  explicit fresh(std::size_t edge, initial_conditions start = initial_conditions::lulesh2)
      : d(edge, cws::numa::first_touch, start) {
    d.setup(serial);
  }
};

// Every loop as one cws phase, split by the hinted recursion (no schedule per loop needed here).
class cws_loops final : public lulesh::loop_runner {
 public:
  cws_loops(cws::runtime& rt, cws_apps::recursion shape) : rt_(rt), shape_(shape) {}
  void run(lulesh::loop_id, std::size_t n, const lulesh::hint_target& hint, lulesh::range_fn body) override {
    rt_.run([&] { cws_apps::hinted_for(shape_, 0, n, 3, hint, body); });
  }

 private:
  cws::runtime& rt_;
  cws_apps::recursion shape_;
};

TEST(LuleshMesh, VolumesAndMassesAddUpToTheCube) {
  for (std::size_t edge : {1u, 3u, 6u}) {
    SCOPED_TRACE(edge);
    fresh f(edge);
    const domain& d = f.d;
    ASSERT_EQ(d.num_elem(), edge * edge * edge);
    ASSERT_EQ(d.num_node(), (edge + 1) * (edge + 1) * (edge + 1));
    const double cube = 1.125 * 1.125 * 1.125;
    double volume = 0, element_mass = 0, nodal_mass = 0;
    for (std::size_t k = 0; k < d.num_elem(); ++k) {
      EXPECT_NEAR(d.volo[k], cube / static_cast<double>(d.num_elem()), 1e-14);
      volume += d.volo[k];
      element_mass += d.elem_mass[k];
      EXPECT_EQ(d.v[k], 1.0);
    }
    for (std::size_t n = 0; n < d.num_node(); ++n) nodal_mass += d.nodal_mass[n];
    EXPECT_NEAR(volume, cube, 1e-12);
    EXPECT_NEAR(element_mass, cube, 1e-12);  // unit density
    EXPECT_NEAR(nodal_mass, cube, 1e-12);    // each element's mass split over its 8 nodes
  }
}

TEST(LuleshMesh, CornerListsMatchTheConnectivityInElementOrder) {
  const std::size_t edge = 4;
  fresh f(edge);
  const domain& d = f.d;
  std::size_t corners = 0;
  for (std::size_t n = 0; n < d.num_node(); ++n) {
    const std::size_t i = n % (edge + 1), j = n / (edge + 1) % (edge + 1), k = n / ((edge + 1) * (edge + 1));
    // Elements meeting at a node: 2 per axis inside, 1 on a face of the cube.
    const auto along = [&](std::size_t c) { return (c == 0 || c == edge) ? 1 : 2; };
    ASSERT_EQ(d.node_corner_count[n], along(i) * along(j) * along(k)) << n;
    int previous_element = -1;
    for (int s = 0; s < d.node_corner_count[n]; ++s) {
      const int corner = d.node_corners[8 * n + static_cast<std::size_t>(s)];
      EXPECT_GT(corner / 8, previous_element) << "corners of node " << n << " out of element order";
      EXPECT_EQ(static_cast<std::size_t>(d.nodelist[static_cast<std::size_t>(corner)]), n);
      previous_element = corner / 8;
      ++corners;
    }
  }
  EXPECT_EQ(corners, 8 * d.num_elem());
}

TEST(LuleshMesh, BoundaryFlagsMarkTheSymmetryPlanesAndFreeSurfaces) {
  const std::size_t edge = 3;
  fresh f(edge);
  const domain& d = f.d;
  EXPECT_EQ(d.elem_bc[0], lulesh::xi_m_symm | lulesh::eta_m_symm | lulesh::zeta_m_symm);
  EXPECT_EQ(d.elem_bc[d.num_elem() - 1], lulesh::xi_p_free | lulesh::eta_p_free | lulesh::zeta_p_free);
  EXPECT_EQ(d.elem_bc[13], 0);  // the centre element of 3^3
  EXPECT_EQ(d.node_bc[0], lulesh::on_x0 | lulesh::on_y0 | lulesh::on_z0);
  EXPECT_EQ(d.node_bc[1], lulesh::on_y0 | lulesh::on_z0);
  EXPECT_EQ(d.node_bc[d.num_node() - 1], 0);
  EXPECT_EQ(d.x[edge], 1.125);
  EXPECT_EQ(d.z[d.num_node() - 1], 1.125);
}

TEST(LuleshSedov, TheBlastEnergyIsInTheOriginElementOnly) {
  fresh f(6);
  const domain& d = f.d;
  const double scale = 6.0 / 45.0;
  EXPECT_EQ(d.e[0], 3.948746e+7 * scale * scale * scale);
  for (std::size_t k = 1; k < d.num_elem(); ++k) ASSERT_EQ(d.e[k], 0.0) << k;
  EXPECT_EQ(d.clock.cycle, 0);
  EXPECT_EQ(d.clock.time, 0.0);
  EXPECT_DOUBLE_EQ(d.clock.deltatime, 0.5 * std::cbrt(d.volo[0]) / std::sqrt(2.0 * d.e[0]));

  fresh old(6, initial_conditions::lulesh1);
  EXPECT_EQ(old.d.e[0], 3.948746e+7);  // LULESH 1.0: the 45^3 energy at every size
  EXPECT_EQ(old.d.clock.deltatime, 1.0e-7);
}

TEST(LuleshTimeStep, FirstCycleKeepsTheStepThenGrowthIsBounded) {
  fresh f(2);
  domain& d = f.d;
  d.clock.deltatime = 1e-6;  // far from the stop time
  const real dt0 = d.clock.deltatime;
  d.clock.dtcourant = 1.0;  // would allow a huge step, ignored on the first cycle
  lulesh::time_increment(d);
  EXPECT_EQ(d.clock.deltatime, dt0);
  EXPECT_EQ(d.clock.cycle, 1);
  lulesh::time_increment(d);  // courant / 2 is far above: at most 1.2 x
  EXPECT_EQ(d.clock.deltatime, dt0 * 1.2);
  d.clock.dtcourant = 2.1 * d.clock.deltatime;  // ratio 1.05 < 1.1: unchanged
  const real kept = d.clock.deltatime;
  lulesh::time_increment(d);
  EXPECT_EQ(d.clock.deltatime, kept);
  d.clock.dthydro = 0.3 * kept;  // shrinks at once
  lulesh::time_increment(d);
  EXPECT_EQ(d.clock.deltatime, 0.3 * kept * 2.0 / 3.0);
  // Near the stop time: a remainder under 4/3 of the next step is split
  // (2/3 of a step now), and the last step lands on the stop time.
  d.clock.dtcourant = d.clock.dthydro = 1.0e20;
  const real step = d.clock.deltatime;
  d.clock.time = d.param.stoptime - 1.5 * step;
  lulesh::time_increment(d);  // would grow to 1.2 x step; 1.5 < 4/3 x 1.2
  EXPECT_DOUBLE_EQ(d.clock.deltatime, 2.0 * (1.2 * step) / 3.0);
  lulesh::time_increment(d);
  EXPECT_DOUBLE_EQ(d.clock.time, d.param.stoptime);
}

TEST(LuleshSedov, PlaneZeroStaysSymmetricAndTheBlastSpreads) {
  fresh f(6);
  const outcome o = lulesh::simulate(f.d, f.serial, 25);
  EXPECT_EQ(o.cycles, 25);
  EXPECT_LT(o.sym.max_rel_diff, lulesh::symmetry_tolerance);
  EXPECT_LT(o.origin_energy, f.d.initial_energy());  // energy left the origin element
  EXPECT_GT(f.d.e[1], 0.0);
  EXPECT_GT(f.d.e[6], 0.0);
  EXPECT_NEAR(f.d.e[1], f.d.e[6], 1e-8 * f.d.e[6]);  // (x, y) swapped
  EXPECT_GT(f.d.xd[1], 0.0);                         // the nodes next to the origin move outwards
  EXPECT_EQ(f.d.xd[0], 0.0);                         // the origin stays on the symmetry planes
}

TEST(LuleshSedov, SizeFiveReproducesLulesh2PublishedResult) {
  fresh f(5);
  const outcome o = lulesh::simulate(f.d, f.serial);
  EXPECT_EQ(o.cycles, 72);
  EXPECT_TRUE(lulesh::matches_printed(o.origin_energy, 7.853665e+03)) << o.origin_energy;
  EXPECT_EQ(lulesh::against_reference(o, 5, initial_conditions::lulesh2, true), std::nullopt);
  outcome off = o;
  off.cycles = 73;
  EXPECT_NE(lulesh::against_reference(off, 5, initial_conditions::lulesh2, true), std::nullopt);
  EXPECT_EQ(lulesh::against_reference(off, 5, initial_conditions::lulesh2, false), std::nullopt);  // cut short
  EXPECT_EQ(lulesh::against_reference(off, 6, initial_conditions::lulesh2, true), std::nullopt);   // unpublished
  EXPECT_EQ(lulesh::against_reference(off, 5, initial_conditions::lulesh1, true), std::nullopt);
}

TEST(LuleshVerification, DetectsAnyDifferenceFromSerial) {
  outcome serial;
  serial.cycles = 40;
  serial.origin_energy = 1234.5;
  EXPECT_EQ(lulesh::mismatch(serial, serial), std::nullopt);
  outcome run = serial;
  run.cycles = 41;
  EXPECT_NE(lulesh::mismatch(run, serial), std::nullopt);
  run = serial;
  run.origin_energy = std::nextafter(serial.origin_energy, 2e3);  // one ulp
  EXPECT_NE(lulesh::mismatch(run, serial), std::nullopt);
  run = serial;
  run.sym.max_rel_diff = 2e-8;
  EXPECT_NE(lulesh::mismatch(run, serial), std::nullopt);
  run.sym.max_rel_diff = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NE(lulesh::mismatch(run, serial), std::nullopt);
}

TEST(LuleshDeterminism, CwsRunsEqualTheSerialRunBitwise) {
  cws::runtime_config cfg;
  cfg.workers = 2;
  cws::runtime rt(cfg);
  fresh reference(6);
  const outcome expected = lulesh::simulate(reference.d, reference.serial, 30);
  for (auto shape : {cws_apps::recursion::regular, cws_apps::recursion::irregular}) {
    cws_loops loops(rt, shape);
    domain d(6, cws::numa::first_touch);
    d.setup(loops);
    const outcome o = lulesh::simulate(d, loops, 30);
    EXPECT_EQ(lulesh::mismatch(o, expected), std::nullopt);
    for (std::size_t n = 0; n < d.num_node(); ++n) ASSERT_EQ(d.x[n], reference.d.x[n]) << n;
    for (std::size_t k = 0; k < d.num_elem(); ++k) ASSERT_EQ(d.e[k], reference.d.e[k]) << k;
  }
}

}  // namespace

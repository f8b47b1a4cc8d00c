#pragma once
// The Sedov blast problem's mesh and state (LULESH's Domain): a cube of
// edge^3 hexahedral elements and (edge + 1)^3 nodes over [0, 1.125]^3,
// symmetry planes on the three faces through the origin, free surfaces on
// the other three, and the blast energy deposited in the element at the
// origin. Every array is a cws::numa array placed as the variant asks (the
// hinted variants block-cyclic, so that element k of every array, and node k
// of every node array, sits in the same relative block).
//
// Numbering (LULESH's): element (col, row, plane) is plane * edge^2 + row *
// edge + col, node (i, j, k) likewise with edge + 1; both plane by plane, so
// a range of elements and the nodes they use stay in the same relative
// position of their arrays.
//
// No atomics anywhere: the nodal forces and masses are gathers over each
// node's corner list, in increasing element order, so a result does not
// depend on which worker ran what.

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include <cws/numa.hpp>

#include "lulesh/element_math.hpp"
#include "lulesh/loops.hpp"

namespace lulesh {

using index_t = std::int32_t;
using field = cws::numa::array<real>;
using index_field = cws::numa::array<index_t>;

// The constants of the problem (LULESH's Domain constructor).
struct constants {
  real e_cut = 1.0e-7, p_cut = 1.0e-7, q_cut = 1.0e-7, v_cut = 1.0e-10, u_cut = 1.0e-7;
  real hgcoef = 3.0;
  real ss4o3 = real(4.0) / real(3.0);
  real qstop = 1.0e+12;
  real monoq_max_slope = 1.0, monoq_limiter_mult = 2.0;
  real qlc_monoq = 0.5, qqc_monoq = real(2.0) / real(3.0), qqc = 2.0;
  real eosvmax = 1.0e+9, eosvmin = 1.0e-9;
  real pmin = 0.0, emin = -1.0e+15;
  real dvovmax = 0.1;
  real refdens = 1.0;
  real stoptime = 1.0e-2;
  real dtmax = 1.0e-2;
  real deltatimemultlb = 1.1, deltatimemultub = 1.2;
};

// Where the run starts: LULESH 2.0 (the blast energy scaled by (edge / 45)^3
// and the first time step from the analytic CFL estimate; its published
// reference values are for this) or LULESH 1.0 (PufferFish's port: the
// energy of the 45^3 problem at every size, first step 1e-7).
enum class initial_conditions { lulesh2, lulesh1 };
const char* to_string(initial_conditions c) noexcept;

// Element boundary flags: which faces are symmetry planes or free surfaces.
enum elem_bc : index_t {
  xi_m_symm = 0x00001,
  xi_p_free = 0x00010,
  eta_m_symm = 0x00040,
  eta_p_free = 0x00400,
  zeta_m_symm = 0x01000,
  zeta_p_free = 0x10000,
};
// Node boundary flags: the symmetry plane(s) the node lies on (its
// acceleration normal to the plane is zero).
enum node_bc : index_t { on_x0 = 1, on_y0 = 2, on_z0 = 4 };

// Time-step bookkeeping, advanced serially between the loops.
struct clock_state {
  real time = 0;
  real deltatime = 0;
  real dtcourant = 1.0e+20;
  real dthydro = 1.0e+20;
  std::int64_t cycle = 0;
};

// What a leaf found wrong (the run stops after the loop with an error).
enum class failure : int { none = 0, negative_volume = 1, q_stop = 2 };
const char* to_string(failure f) noexcept;

class domain {
 public:
  // Allocates every array for an edge^3 problem, placed as `where`; touches
  // nothing (setup() does, with the variant's loops).
  domain(std::size_t edge, cws::numa::placement where, initial_conditions start = initial_conditions::lulesh2);
  domain(const domain&) = delete;
  domain& operator=(const domain&) = delete;

  // Writes the initial state into every array through `loops` (the three
  // setup loops; the arrays' first touch on the first call) and resets the
  // clock: the state every run starts from.
  void setup(loop_runner& loops);

  std::size_t edge() const noexcept { return edge_; }
  std::size_t num_elem() const noexcept { return num_elem_; }
  std::size_t num_node() const noexcept { return num_node_; }
  initial_conditions start() const noexcept { return start_; }
  cws::numa::placement placement() const noexcept { return where_; }
  // The blast energy put into element 0.
  real initial_energy() const noexcept;
  // Bytes of all arrays.
  std::size_t bytes() const noexcept { return bytes_; }
  // The number of arrays (node, element, 8-per-element and EOS scratch).
  std::size_t array_count() const noexcept { return arrays_; }

  // Gathers the corner coordinates of element k.
  void corner_positions(std::size_t k, corners& c) const noexcept {
    const index_t* n = &nodelist[8 * k];
    for (int i = 0; i < 8; ++i) c.x[i] = x[n[i]], c.y[i] = y[n[i]], c.z[i] = z[n[i]];
  }
  void corner_velocities(std::size_t k, corners& c) const noexcept {
    const index_t* n = &nodelist[8 * k];
    for (int i = 0; i < 8; ++i) c.x[i] = xd[n[i]], c.y[i] = yd[n[i]], c.z[i] = zd[n[i]];
  }

  // Declares (cws::touch) items [lo, hi) of every node or every element
  // array: what the setup loops touch, and what a loop that leads the
  // others' schedules stands for (cws-evolve-follow).
  void declare_touches(extent over, std::size_t lo, std::size_t hi);

  // Records the first problem a leaf found (thread-safe); check() throws it.
  void flag(failure f) noexcept {
    int none = 0;
    failed_.compare_exchange_strong(none, static_cast<int>(f), std::memory_order_relaxed);
  }
  // Throws std::runtime_error naming the problem and the cycle, if a leaf flagged one.
  void check() const;

  constants param;
  clock_state clock;

  // Node-centred.
  field x, y, z;        // coordinates
  field xd, yd, zd;     // velocities
  field xdd, ydd, zdd;  // accelerations
  field fx, fy, fz;     // forces
  field nodal_mass;
  index_field node_bc;            // node_bc flags
  index_field node_corner_count;  // how many element corners meet at the node (1..8)
  index_field node_corners;       // 8 per node: the corners (8 * element + local), in element order

  // Element-centred.
  index_field nodelist;                                  // 8 per element: its nodes, in corner order
  index_field lxim, lxip, letam, letap, lzetam, lzetap;  // neighbours (self on a boundary)
  index_field elem_bc;                                   // elem_bc flags
  field e, p, q, ql, qq;                                 // energy, pressure, artificial viscosity and its terms
  field v, volo, vnew, delv, vdov, arealg, ss, elem_mass;
  field dxx, dyy, dzz;                            // strain rates
  field delv_xi, delv_eta, delv_zeta;             // velocity gradients (monotonic q)
  field delx_xi, delx_eta, delx_zeta;             // position gradients
  field sigxx, sigyy, sigzz, determ, vnewc;       // stress, Jacobian determinant, bounded volume
  field fx_elem, fy_elem, fz_elem;                // 8 per element: corner forces
  field dvdx, dvdy, dvdz, x8n, y8n, z8n;          // 8 per element: hourglass inputs
  field e_old, delvc, p_old, q_old, compression;  // EOS scratch
  field comp_half_step, qq_old, ql_old, work;     //
  field p_new, e_new, q_new, bvc, pbvc, p_half;   //

 private:
  // The arrays of each kind, f(array, values per item): for their allocation,
  // their size and the setup loops' touch declarations.
  template <class F>
  void for_each_node_array(F&& f);
  template <class F>
  void for_each_element_array(F&& f);

  void setup_node_range(std::size_t lo, std::size_t hi) noexcept;
  void setup_element_range(std::size_t lo, std::size_t hi) noexcept;
  void setup_mass_range(std::size_t lo, std::size_t hi) noexcept;

  std::size_t edge_, edge_nodes_, num_elem_, num_node_;
  initial_conditions start_;
  cws::numa::placement where_;
  std::size_t bytes_ = 0, arrays_ = 0;
  std::atomic<int> failed_{0};
};

}  // namespace lulesh

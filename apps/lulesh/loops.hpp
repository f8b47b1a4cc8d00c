#pragma once
// The parallel loops of cws-lulesh: every loop of the benchmark is a named
// site (its own cws schedule in the cws variants), runs over the elements or
// the nodes, and hints at one main array. A variant decides how a loop runs
// (loop_runner: serial, cws through the hinted recursion, TBB, OpenMP); the
// kernels only say what a range [lo, hi) of items computes.

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cws/hint.hpp>
#include <cws/numa.hpp>

namespace lulesh {

enum class extent : unsigned char { elements, nodes };

// Every loop site, in the order a cycle runs them (the three setup loops first).
enum class loop_id : unsigned {
  // Setup (per run, untimed): nodes (coordinates, connectivity), elements
  // (connectivity, fields, volumes), nodal masses (a gather).
  setup_nodes,
  setup_elements,
  setup_mass,
  // LagrangeNodal
  stress_init,       // sigma = -p - q
  stress_integrate,  // corner forces from the stresses, determinants
  stress_gather,     // nodal forces: sum of the node's corner forces
  hourglass_prep,    // volume derivatives and corner coordinates
  hourglass_force,   // Flanagan-Belytschko hourglass corner forces
  hourglass_gather,  // nodal forces += the node's hourglass corner forces
  acceleration,      // a = f / m, zero across the symmetry planes
  velocity,
  position,
  // LagrangeElements
  kinematics,       // new volumes, characteristic lengths, strain rates
  strain,           // volumetric strain rate, deviatoric strains
  monoq_gradients,  // velocity and position gradients per direction
  monoq_region,     // monotonic limiter: linear and quadratic q terms
  material,         // relative volumes bounded for the EOS
  eos_gather,       // old energy, pressure, q, volume change
  eos_compression,  // compression at the end and the middle of the step
  energy_predict,   // half-step energy
  pressure_half,    // half-step pressure
  energy_correct,   // half-step q, energy corrected
  energy_work,      // energy += work, cut-offs
  pressure_full,    // pressure from the corrected energy
  energy_final,     // third energy stage (q estimate)
  pressure_final,   // pressure from the final energy
  viscosity_final,  // final q
  eos_store,        // p, e, q back into the element fields
  sound_speed,
  volume_update,
  // CalcTimeConstraintsForElems
  time_constraints,  // Courant and hydro limits (min reductions)
  count
};
inline constexpr std::size_t loop_count = static_cast<std::size_t>(loop_id::count);
inline constexpr std::size_t first_cycle_loop = static_cast<std::size_t>(loop_id::stress_init);
inline constexpr std::size_t index(loop_id id) noexcept { return static_cast<std::size_t>(id); }

struct loop_site {
  const char* name;
  extent over;
};
// "stress_init", ... with what it iterates over.
const loop_site& site(loop_id id) noexcept;

// What the leaves of a loop hint at: items [lo, hi) of the loop are elements
// [lo * per_item, hi * per_item) of one cws::numa array.
class hint_target {
 public:
  template <class T>
  explicit hint_target(const cws::numa::array<T>& a, std::size_t per_item = 1) noexcept
      : base_(reinterpret_cast<const char*>(a.data())), item_bytes_(sizeof(T) * per_item), region_(a.memory()) {}
  cws::touch_hint operator()(std::size_t lo, std::size_t hi) const noexcept {
    return {base_ + lo * item_bytes_, (hi - lo) * item_bytes_, region_};
  }

 private:
  const char* base_;
  std::size_t item_bytes_;
  const cws::numa::region* region_;
};

// A non-owning reference to a callable body(lo, hi), cheap to copy into
// tasks. It refers to its argument, which must outlive it: pass a lambda
// straight to loop_runner::run (a temporary lives until run returns).
class range_fn {
 public:
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, range_fn>>>
  range_fn(F&& f) noexcept  // NOLINT: implicit on purpose, like std::function_ref
      : object_(const_cast<void*>(static_cast<const void*>(&f))),
        call_([](void* o, std::size_t lo, std::size_t hi) { (*static_cast<std::remove_reference_t<F>*>(o))(lo, hi); }) {
  }
  void operator()(std::size_t lo, std::size_t hi) const { call_(object_, lo, hi); }

 private:
  void* object_;
  void (*call_)(void*, std::size_t, std::size_t);
};

// How a variant runs its loops.
class loop_runner {
 public:
  virtual ~loop_runner() = default;
  // Runs body over [0, n) once, as loop `id`, hinting at `hint`; returns when
  // every item ran.
  virtual void run(loop_id id, std::size_t n, const hint_target& hint, range_fn body) = 0;
  // Whether the setup loops should declare (cws::touch) every array they
  // initialise, so that first-touch pages get homes for the locality report.
  virtual bool declares_touches() const noexcept { return false; }
};

// Every loop as one call body(0, n) on the calling thread: the serial variant.
class serial_runner final : public loop_runner {
 public:
  void run(loop_id, std::size_t n, const hint_target&, range_fn body) override { body(0, n); }
};

}  // namespace lulesh

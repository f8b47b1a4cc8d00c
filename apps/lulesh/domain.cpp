#include "lulesh/domain.hpp"

#include <cws/touch.hpp>

#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace lulesh {

const char* to_string(initial_conditions c) noexcept { return c == initial_conditions::lulesh2 ? "2.0" : "1.0"; }

const char* to_string(failure f) noexcept {
  switch (f) {
    case failure::none:
      return "none";
    case failure::negative_volume:
      return "an element's volume became negative";
    case failure::q_stop:
      return "the artificial viscosity exceeded qstop";
  }
  return "?";
}

namespace {

// The position of corner (di, dj, dk) of an element in LULESH's corner order.
constexpr int local_corner(std::size_t di, std::size_t dj, std::size_t dk) noexcept {
  constexpr int in_face[2][2] = {{0, 3}, {1, 2}};  // [di][dj]
  return static_cast<int>(4 * dk) + in_face[di][dj];
}

}  // namespace

template <class F>
void domain::for_each_node_array(F&& f) {
  for (field* a : {&x, &y, &z, &xd, &yd, &zd, &xdd, &ydd, &zdd, &fx, &fy, &fz, &nodal_mass}) f(*a, 1);
  f(node_bc, 1);
  f(node_corner_count, 1);
  f(node_corners, 8);
}

template <class F>
void domain::for_each_element_array(F&& f) {
  f(nodelist, 8);
  for (index_field* a : {&lxim, &lxip, &letam, &letap, &lzetam, &lzetap, &elem_bc}) f(*a, 1);
  for (field* a : {&e,         &p,           &q,
                   &ql,        &qq,          &v,
                   &volo,      &vnew,        &delv,
                   &vdov,      &arealg,      &ss,
                   &elem_mass, &dxx,         &dyy,
                   &dzz,       &delv_xi,     &delv_eta,
                   &delv_zeta, &delx_xi,     &delx_eta,
                   &delx_zeta, &sigxx,       &sigyy,
                   &sigzz,     &determ,      &vnewc,
                   &e_old,     &delvc,       &p_old,
                   &q_old,     &compression, &comp_half_step,
                   &qq_old,    &ql_old,      &work,
                   &p_new,     &e_new,       &q_new,
                   &bvc,       &pbvc,        &p_half})
    f(*a, 1);
  for (field* a : {&fx_elem, &fy_elem, &fz_elem, &dvdx, &dvdy, &dvdz, &x8n, &y8n, &z8n}) f(*a, 8);
}

domain::domain(std::size_t edge, cws::numa::placement where, initial_conditions start)
    : edge_(edge),
      edge_nodes_(edge + 1),
      num_elem_(edge * edge * edge),
      num_node_((edge + 1) * (edge + 1) * (edge + 1)),
      start_(start),
      where_(where) {
  if (edge == 0) throw std::invalid_argument("the mesh needs at least one element per edge");
  // Every array, in its placement: per node or per element, `per` values each.
  const auto allocate = [where](auto& a, std::size_t items, std::size_t per) {
    a = cws::numa::allocate<typename std::remove_reference_t<decltype(a)>::value_type>(items * per, where);
  };
  for_each_node_array([&](auto& a, std::size_t per) { allocate(a, num_node_, per); });
  for_each_element_array([&](auto& a, std::size_t per) { allocate(a, num_elem_, per); });
  const auto count = [this](const auto& a, std::size_t) {
    bytes_ += a.size() * sizeof(a[0]);
    ++arrays_;
  };
  for_each_node_array(count);
  for_each_element_array(count);
}

real domain::initial_energy() const noexcept {
  const real ebase = real(3.948746e+7);  // right for 45 elements per edge
  if (start_ == initial_conditions::lulesh1) return ebase;
  const real scale = static_cast<real>(edge_) / real(45.0);
  return ebase * scale * scale * scale;
}

void domain::setup_node_range(std::size_t lo, std::size_t hi) noexcept {
  const std::size_t en = edge_nodes_;
  const real side = static_cast<real>(edge_);
  for (std::size_t n = lo; n < hi; ++n) {
    const std::size_t i = n % en, j = (n / en) % en, k = n / (en * en);
    // As LULESH: each coordinate from its index (no accumulated round-off).
    x[n] = real(1.125) * static_cast<real>(i) / side;
    y[n] = real(1.125) * static_cast<real>(j) / side;
    z[n] = real(1.125) * static_cast<real>(k) / side;
    xd[n] = yd[n] = zd[n] = real(0.0);
    xdd[n] = ydd[n] = zdd[n] = real(0.0);
    fx[n] = fy[n] = fz[n] = real(0.0);
    nodal_mass[n] = real(0.0);
    node_bc[n] = (i == 0 ? on_x0 : 0) | (j == 0 ? on_y0 : 0) | (k == 0 ? on_z0 : 0);
    // The element corners at this node, in increasing element order (plane,
    // then row, then column of the element).
    index_t count = 0;
    index_t* list = &node_corners[8 * n];
    for (std::size_t dk = 0; dk < 2; ++dk) {
      if (k < 1 - dk || k - (1 - dk) >= edge_) continue;
      const std::size_t ck = k - (1 - dk);
      for (std::size_t dj = 0; dj < 2; ++dj) {
        if (j < 1 - dj || j - (1 - dj) >= edge_) continue;
        const std::size_t cj = j - (1 - dj);
        for (std::size_t di = 0; di < 2; ++di) {
          if (i < 1 - di || i - (1 - di) >= edge_) continue;
          const std::size_t ci = i - (1 - di);
          const std::size_t elem = (ck * edge_ + cj) * edge_ + ci;
          // The node is corner (1 - di, 1 - dj, 1 - dk) of that element.
          list[count++] = static_cast<index_t>(8 * elem + local_corner(1 - di, 1 - dj, 1 - dk));
        }
      }
    }
    node_corner_count[n] = count;
    for (index_t s = count; s < 8; ++s) list[s] = -1;
  }
}

void domain::setup_element_range(std::size_t lo, std::size_t hi) noexcept {
  const std::size_t ne = edge_, en = edge_nodes_, plane = ne * ne;
  for (std::size_t k = lo; k < hi; ++k) {
    const std::size_t col = k % ne, row = (k / ne) % ne, pl = k / plane;
    const auto first = static_cast<index_t>((pl * en + row) * en + col);
    const auto step_row = static_cast<index_t>(en), step_plane = static_cast<index_t>(en * en);
    index_t* nl = &nodelist[8 * k];
    nl[0] = first;
    nl[1] = first + 1;
    nl[2] = first + step_row + 1;
    nl[3] = first + step_row;
    nl[4] = first + step_plane;
    nl[5] = first + step_plane + 1;
    nl[6] = first + step_plane + step_row + 1;
    nl[7] = first + step_plane + step_row;
    // Neighbours as LULESH sets them: the previous/next element along each
    // axis, the element itself at the ends (where the boundary flags make
    // the monotonic limiter ignore them anyway).
    const auto self = static_cast<index_t>(k);
    lxim[k] = k == 0 ? self : self - 1;
    lxip[k] = k + 1 == num_elem_ ? self : self + 1;
    letam[k] = k < ne ? self : self - static_cast<index_t>(ne);
    letap[k] = k + ne >= num_elem_ ? self : self + static_cast<index_t>(ne);
    lzetam[k] = k < plane ? self : self - static_cast<index_t>(plane);
    lzetap[k] = k + plane >= num_elem_ ? self : self + static_cast<index_t>(plane);
    elem_bc[k] = (col == 0 ? xi_m_symm : 0) | (col + 1 == ne ? xi_p_free : 0) | (row == 0 ? eta_m_symm : 0) |
                 (row + 1 == ne ? eta_p_free : 0) | (pl == 0 ? zeta_m_symm : 0) | (pl + 1 == ne ? zeta_p_free : 0);

    for (field* f : {&e,       &p,        &q,         &ql,    &qq,          &vnew,           &delv,     &vdov,
                     &arealg,  &ss,       &dxx,       &dyy,   &dzz,         &delv_xi,        &delv_eta, &delv_zeta,
                     &delx_xi, &delx_eta, &delx_zeta, &sigxx, &sigyy,       &sigzz,          &determ,   &vnewc,
                     &e_old,   &delvc,    &p_old,     &q_old, &compression, &comp_half_step, &qq_old,   &ql_old,
                     &work,    &p_new,    &e_new,     &q_new, &bvc,         &pbvc,           &p_half})
      (*f)[k] = real(0.0);
    for (field* f : {&fx_elem, &fy_elem, &fz_elem, &dvdx, &dvdy, &dvdz, &x8n, &y8n, &z8n})
      for (std::size_t c = 0; c < 8; ++c) (*f)[8 * k + c] = real(0.0);
    v[k] = real(1.0);  // relative volume

    corners c;
    corner_positions(k, c);
    const real volume = element_volume(c);
    volo[k] = volume;
    elem_mass[k] = volume;  // unit density
  }
}

void domain::setup_mass_range(std::size_t lo, std::size_t hi) noexcept {
  for (std::size_t n = lo; n < hi; ++n) {
    const index_t* list = &node_corners[8 * n];
    real mass = real(0.0);
    for (index_t s = 0; s < node_corner_count[n]; ++s) mass += volo[static_cast<std::size_t>(list[s] / 8)] / real(8.0);
    nodal_mass[n] = mass;
  }
}

void domain::declare_touches(extent over, std::size_t lo, std::size_t hi) {
  const auto declare = [&](const auto& a, std::size_t per) {
    cws::touch(a.data() + lo * per, (hi - lo) * per * sizeof(a[0]));
  };
  if (over == extent::nodes)
    for_each_node_array(declare);
  else
    for_each_element_array(declare);
}

void domain::setup(loop_runner& loops) {
  const bool declare = loops.declares_touches();
  loops.run(loop_id::setup_nodes, num_node_, hint_target(x), [&](std::size_t lo, std::size_t hi) {
    if (declare) declare_touches(extent::nodes, lo, hi);
    setup_node_range(lo, hi);
  });
  loops.run(loop_id::setup_elements, num_elem_, hint_target(e), [&](std::size_t lo, std::size_t hi) {
    if (declare) declare_touches(extent::elements, lo, hi);
    setup_element_range(lo, hi);
  });
  loops.run(loop_id::setup_mass, num_node_, hint_target(nodal_mass),
            [&](std::size_t lo, std::size_t hi) { setup_mass_range(lo, hi); });

  // The blast: all the energy in the element at the origin.
  const real einit = initial_energy();
  e[0] = einit;
  clock = clock_state{};
  clock.deltatime = start_ == initial_conditions::lulesh2
                        ? (real(.5) * std::cbrt(volo[0])) / std::sqrt(real(2.0) * einit)
                        : real(1.0e-7);
  failed_.store(0, std::memory_order_relaxed);
}

void domain::check() const {
  const auto f = static_cast<failure>(failed_.load(std::memory_order_relaxed));
  if (f == failure::none) return;
  throw std::runtime_error(std::string(to_string(f)) + " in cycle " + std::to_string(clock.cycle));
}

}  // namespace lulesh

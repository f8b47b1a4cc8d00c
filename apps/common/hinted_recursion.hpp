#pragma once
// PufferFish's two loop drivers, with a data-affinity hint on every child
// (cws::spawn(hint, f): routed by the `hinted` policies, an ordinary spawn
// under every other policy; a child that spawns nothing records its hint as
// its touch, for the locality report).
//
//   cws_apps::hinted_for(recursion::regular, lo, hi, tile, hint_of, body);
//
//   regular    binary: a range longer than `tile` is halved at
//              floor((lo + hi) / 2), both halves spawned, then a sync.
//   irregular  the "-ir" benchmarks: two mutually recursive splitters. A
//              2-way node longer than `tile` spawns a 4-way node on its lower
//              half and a 2-way node on its upper half; a 4-way node longer
//              than `tile` (and at least 4) spawns 2-, 2-, 4- and 2-way nodes
//              on its quarters of floor(len / 4) (the last takes the rest).
//              The recursion starts at a 2-way node. Leaves are at most
//              `tile` long either way; only the branching degree differs.
//
// hint_of(lo, hi) gives the hint of a child over [lo, hi): a cws::touch_hint
// or a std::array of them (cws::hints). body(lo, hi) runs a leaf. Both are
// copied into every child, so keep them small (capture pointers).

#include <cstddef>

#include <cws/cws.hpp>

namespace cws_apps {

enum class recursion { regular, irregular };

namespace detail {

template <class HintOf, class Body>
struct hinted_splitter {
  std::size_t tile;
  HintOf hint_of;
  Body body;

  void regular(std::size_t lo, std::size_t hi) const {
    if (hi - lo <= tile) return body(lo, hi);
    const std::size_t mid = lo + (hi - lo) / 2;
    cws::spawn(hint_of(lo, mid), [this, lo, mid] { regular(lo, mid); });
    cws::spawn(hint_of(mid, hi), [this, mid, hi] { regular(mid, hi); });
    cws::sync();
  }

  void two_way(std::size_t lo, std::size_t hi) const {
    if (hi - lo <= tile) return body(lo, hi);
    const std::size_t mid = lo + (hi - lo) / 2;
    cws::spawn(hint_of(lo, mid), [this, lo, mid] { four_way(lo, mid); });
    cws::spawn(hint_of(mid, hi), [this, mid, hi] { two_way(mid, hi); });
    cws::sync();
  }

  void four_way(std::size_t lo, std::size_t hi) const {
    const std::size_t len = hi - lo;
    if (len <= tile || len < 4) return body(lo, hi);
    const std::size_t c = len / 4, a = lo + c, b = a + c, d = b + c;
    cws::spawn(hint_of(lo, a), [this, lo, a] { two_way(lo, a); });
    cws::spawn(hint_of(a, b), [this, a, b] { two_way(a, b); });
    cws::spawn(hint_of(b, d), [this, b, d] { four_way(b, d); });
    cws::spawn(hint_of(d, hi), [this, d, hi] { two_way(d, hi); });
    cws::sync();
  }
};

}  // namespace detail

// Runs body over [lo, hi) in leaves of at most `tile` (>= 1) elements, with
// the chosen recursion, and returns when every leaf has run. Call it inside a
// phase (rt.run); outside one it runs serially (the serial elision).
template <class HintOf, class Body>
void hinted_for(recursion shape, std::size_t lo, std::size_t hi, std::size_t tile, HintOf hint_of, Body body) {
  if (hi <= lo) return;
  const detail::hinted_splitter<HintOf, Body> s{tile == 0 ? 1 : tile, std::move(hint_of), std::move(body)};
  if (shape == recursion::regular)
    s.regular(lo, hi);
  else
    s.two_way(lo, hi);
}

}  // namespace cws_apps

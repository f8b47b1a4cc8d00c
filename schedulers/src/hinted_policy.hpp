#pragma once
// Registration of the hinted policies (hinted_policy.cpp).

namespace cws::schedulers::detail {

// Adds `hinted` and `hinted-hpt` to cws::policy_registry (register_policies()).
void register_hinted_policies();

}  // namespace cws::schedulers::detail

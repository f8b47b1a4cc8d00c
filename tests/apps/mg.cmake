# cws-mg (apps/mg): the kernels' oracles (unit) and the app's runner suite (apps).
if(TARGET cws_mg_kernels)
  cws_test(test_mg_oracles SOURCES test_mg_oracles.cpp LABELS unit)
  target_link_libraries(test_mg_oracles PRIVATE cws_mg_kernels)
endif()

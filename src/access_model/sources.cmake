target_sources(cunum PRIVATE ${CMAKE_CURRENT_LIST_DIR}/access_model.cpp)

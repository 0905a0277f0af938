# Cross-compiling the agent for Cortex-M with Debian's gcc-arm-none-eabi and
# newlib. TB_CPU (cortex-m0 / m3 / m4 / m7) picks the core; floats stay in
# software (nothing we measure uses them), so one newlib multilib per core.
include(${CMAKE_CURRENT_LIST_DIR}/bare-metal.cmake)
tb_bare_metal_toolchain(arm arm-none-eabi cortex-m4)
set(CMAKE_C_FLAGS_INIT "-mcpu=${TB_CPU} -mthumb -mfloat-abi=soft -ffunction-sections -fdata-sections")
set(CMAKE_ASM_FLAGS_INIT "-mcpu=${TB_CPU} -mthumb")
set(CMAKE_EXE_LINKER_FLAGS_INIT "--specs=nosys.specs -Wl,--gc-sections")

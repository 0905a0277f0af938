"""An image is stale only when one of its own inputs changes: its stamp lists
the agent/ files its Ninja build compiled, linked and configured it from, so
a change to another library's adapter leaves it fresh. Checked on the
Cortex-M4 images the other firmware tests build (no build of its own), with
the changes made in a copy of agent/."""

from __future__ import annotations

import shutil
from pathlib import Path

import images
from conftest import needs_tools

from tlsbench import paths
from tlsbench.targets import firmware


def _touch(agent: Path, name: str) -> None:
    f = agent / name
    f.write_text(f.read_text() + "\n/* changed */\n")


def test_a_stamp_without_the_file_list_is_judged_by_the_whole_tree(tmp_path: Path) -> None:
    # a stamp written before images listed their files: fresh while agent/ is unchanged, as before
    agent = tmp_path / "agent"
    shutil.copytree(paths.root() / "agent", agent)
    old = {"agent": firmware.agent_sources_hash(agent)}
    assert firmware.agent_hash_now(old, agent) == old["agent"]
    _touch(agent, "adapters/wolfssl/sym.c")
    assert firmware.agent_hash_now(old, agent) != old["agent"]


def test_a_listed_file_changed_or_missing_changes_the_hash(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    (agent / "core").mkdir(parents=True)
    (agent / "core" / "a.c").write_text("int a;\n")
    (agent / "other.c").write_text("int b;\n")
    stamp = {firmware.AGENT_FILES_KEY: ["core/a.c"]}
    before = firmware.agent_hash_now(stamp, agent)
    (agent / "other.c").write_text("int c;\n")  # not listed: no change
    assert firmware.agent_hash_now(stamp, agent) == before
    (agent / "core" / "a.c").write_text("int a2;\n")
    changed = firmware.agent_hash_now(stamp, agent)
    assert changed != before
    (agent / "core" / "a.c").unlink()
    assert firmware.agent_hash_now(stamp, agent) not in (before, changed)


def test_a_build_without_ninja_records_lists_no_files(tmp_path: Path) -> None:
    assert firmware.image_agent_files(tmp_path, "tlsbench-agent-mbedtls") is None


@needs_tools("qemu-system-arm", "arm-none-eabi-gcc", "ninja")
def test_only_the_images_built_from_a_changed_file_are_stale(firmware_images, tmp_path: Path) -> None:
    target = firmware_images(images.M4)
    assert (target.cmake_dir() / "build.ninja").exists()  # a Makefile build: every file under agent/ counts
    libs = ["mbedtls", "wolfssl", "selftest"]
    for lib in libs:  # images built before stamps listed their files (a kept build folder): list them now
        if firmware.AGENT_FILES_KEY not in (firmware.read_stamp(target, lib) or {}):
            firmware.write_stamp(target, lib, "Os")
    stamps = {lib: firmware.read_stamp(target, lib) or {} for lib in libs}
    files = {lib: set(s.get(firmware.AGENT_FILES_KEY, [])) for lib, s in stamps.items()}
    # what the build says each image is made of: its adapter, the core, its board, its configuration
    assert {"core/tls.c", "include/tb/platform.h", "platform/mps2/board_mps2.c", "platform/mps2/mps2.ld",
            "CMakeLists.txt",
            "cmake/arm-none-eabi.cmake", "adapters/mbedtls/sym.c", "adapters/mbedtls/tb_mbedtls_config.h",
            "adapters/mbedtls/library.cmake"} <= files["mbedtls"]
    assert {"adapters/wolfssl/user_settings.h", "adapters/wolfssl/library.cmake"} <= files["wolfssl"]
    for lib, own in files.items():
        others = [f for f in own if f.startswith("adapters/") and not f.startswith(f"adapters/{lib}/")]
        assert others == [], lib
        # never the fuzzer, the host platform or the size probes' sources; sizeprobe.cmake is listed when the
        # build folder was configured with the size probes too (another test's run may have done so): its
        # configure step then read it
        assert not [f for f in own if f.startswith(("fuzz/", "platform/host/"))
                    or (f.startswith("sizeprobe/") and f != "sizeprobe/sizeprobe.cmake")]

    agent = tmp_path / "agent"
    shutil.copytree(paths.root() / "agent", agent)
    assert firmware.stale(target, libs, agent_dir=agent) == {}
    _touch(agent, "adapters/wolfssl/user_settings.h")  # one library's configuration
    assert firmware.stale(target, libs, agent_dir=agent) == {"wolfssl": ("agent sources changed", "Os")}
    _touch(agent, "core/tls.c")  # a file every image compiles
    assert set(firmware.stale(target, libs, agent_dir=agent)) == set(libs)

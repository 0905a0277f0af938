"""The user's own library configuration and compiler options (--config,
--cflags): every refusal with its exact message, checked before anything is
built (the compiler is asked what the configuration defines), and the build
folders the inputs key."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import needs_tools

from tlsbench.errors import PlanError, SetupError
from tlsbench.targets import target as targets
from tlsbench.targets import userconfig

ARM_M4 = ["arm-none-eabi-gcc", "-mthumb", "-mcpu=cortex-m4"]


def _file(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def _check(user: userconfig.UserBuild, tmp_path: Path, firmware: bool) -> None:
    userconfig.check(user, tmp_path / "build", {}, ARM_M4 if firmware else ["cc"], firmware)


def _host_refusal(tmp_path: Path, name: str, text: str, spec: str = "mbedtls=") -> tuple[Path, str]:
    """text written to name and given as --config {spec}{path}: its path and
    the host check's refusal of it."""
    path = _file(tmp_path, name, text)
    with pytest.raises(SetupError) as e:
        _check(userconfig.parse([f"{spec}{path}"], None), tmp_path, firmware=False)
    return path, str(e.value)


def _config_refusal(items: list[str]) -> str:
    """The one-line refusal of these --config items."""
    with pytest.raises(PlanError) as e:
        userconfig.parse_config(items)
    return str(e.value)


@pytest.mark.parametrize("item, message", [
    ("mbedtls", "--config expects LIBRARY=PATH or LIBRARY=full:PATH, e.g. mbedtls=./my_config.h (got 'mbedtls')"),
    ("openssl=x.h", "--config openssl=x.h: 'openssl' takes no configuration file; allowed: mbedtls, wolfssl"),
    ("wolfssl=full:/tmp/settings.h", "--config wolfssl=full:/tmp/settings.h: wolfSSL reads a file named"
     " user_settings.h (WOLFSSL_USER_SETTINGS); rename settings.h or layer it without full:"),
    ("mbedtls=/nonexistent/c.h", "--config mbedtls=/nonexistent/c.h: cannot read /nonexistent/c.h:"
     " No such file or directory"),
])
def test_a_malformed_config_option_is_one_line(item: str, message: str) -> None:
    assert _config_refusal([item]) == message


def test_two_configs_of_one_library_are_refused(tmp_path: Path) -> None:
    a, b = _file(tmp_path, "a.h", ""), _file(tmp_path, "b.h", "")
    assert _config_refusal([f"mbedtls={a}", f"mbedtls={b}"]) == (f"--config mbedtls={b}: mbedtls has a configuration"
                                                                   f" already (mbedtls={a}); one per library")


@pytest.mark.parametrize("text, message", [
    ("-O2 'x", "--cflags \"-O2 'x\": No closing quotation"),
    ("-O2 lto", "--cflags '-O2 lto': 'lto' is not a compiler option (each starts with '-', none holds ';')"),
    ("-DA=1;rm", "--cflags '-DA=1;rm': '-DA=1;rm' is not a compiler option (each starts with '-', none holds ';')"),
])
def test_bad_cflags_are_refused(text: str, message: str) -> None:
    with pytest.raises(PlanError) as e:
        userconfig.parse_cflags(text)
    assert str(e.value) == message


def test_cflags_are_an_argument_list_never_a_shell_string() -> None:
    assert userconfig.parse_cflags('-O2 -flto "-DNAME=a b"') == ("-O2", "-flto", "-DNAME=a b")


def test_without_user_inputs_the_build_folders_and_options_are_todays() -> None:
    m4 = targets.parse("qemu:mps2-an386")
    assert (targets.HOST.build_name, m4.build_name) == ("host", "qemu-mps2-an386")
    assert userconfig.cmake_defines(userconfig.NONE, Path("/x"), {}) == []


def test_the_build_folder_is_keyed_by_the_files_bytes_and_the_flags(tmp_path: Path) -> None:
    a = _file(tmp_path, "a.h", "#define MBEDTLS_SSL_IN_CONTENT_LEN 2048\n")
    same = _file(tmp_path / "..", f"{tmp_path.name}-copy.h", a.read_text())
    other = _file(tmp_path, "b.h", "#define MBEDTLS_SSL_IN_CONTENT_LEN 4096\n")
    key = {name: userconfig.suffix(userconfig.parse([f"mbedtls={p}"], None))
           for name, p in (("a", a), ("same", same), ("other", other))}
    assert key["a"] == key["same"] != key["other"]
    assert key["a"].startswith("-user-") and len(key["a"]) == len("-user-") + 12
    with_flags = userconfig.suffix(userconfig.parse([f"mbedtls={a}"], "-O2"))
    assert with_flags not in (key["a"], key["other"])


def test_the_run_record_holds_each_files_text_and_hash(tmp_path: Path) -> None:
    text = "#define MBEDTLS_ECP_WINDOW_SIZE 2\n"
    path = _file(tmp_path, "c.h", text)
    user = userconfig.parse([f"mbedtls={path}"], "-O2 -flto")
    record = user.record()
    assert record == {"configs": {"mbedtls": {
        "path": str(path), "full": False, "text": text,
        "sha256": hashlib.sha256(text.encode()).hexdigest()}},
        "cflags": ["-O2", "-flto"]}
    assert userconfig.from_record(record) == user


@needs_tools("cc")
def test_a_config_that_removes_the_seed_hook_is_refused_before_building(tmp_path: Path) -> None:
    path, refusal = _host_refusal(tmp_path, "c.h", "#undef MBEDTLS_ENTROPY_HARDWARE_ALT\n")
    assert refusal == (f"--config mbedtls={path}: MBEDTLS_ENTROPY_HARDWARE_ALT is off; tlsbench needs it for the"
                       " harness's seed hook mbedtls_hardware_poll (the test RNG)")
    assert not (tmp_path / "build" / "cmake").exists()


@needs_tools("cc", "arm-none-eabi-gcc")
def test_a_firmware_need_is_checked_on_firmware_only(tmp_path: Path) -> None:
    path = _file(tmp_path, "c.h", "#undef MBEDTLS_PLATFORM_MS_TIME_ALT\n")
    user = userconfig.parse([f"mbedtls={path}"], None)
    _check(user, tmp_path, firmware=False)  # the host has its own clock
    with pytest.raises(SetupError) as e:
        _check(user, tmp_path, firmware=True)
    assert str(e.value).endswith(": MBEDTLS_PLATFORM_MS_TIME_ALT is off; tlsbench needs it for the adapter's"
                                 " millisecond clock (the firmware's frozen clock)")


@needs_tools("cc")
def test_a_full_mbedtls_config_is_checked_as_the_whole_configuration(tmp_path: Path) -> None:
    path, refusal = _host_refusal(tmp_path, "full.h", "#define MBEDTLS_SHA256_C\n#define MBEDTLS_ENTROPY_C\n",
                                  "mbedtls=full:")
    assert refusal == (f"--config mbedtls=full:{path}: MBEDTLS_ENTROPY_HARDWARE_ALT is off; tlsbench needs it"
                       " for the harness's seed hook mbedtls_hardware_poll (the test RNG)")


@needs_tools("cc")
def test_a_wolfssl_seed_hook_of_another_name_is_refused(tmp_path: Path) -> None:
    path, refusal = _host_refusal(tmp_path, "s.h", "#undef CUSTOM_RAND_GENERATE_SEED\n"
                                  "#define CUSTOM_RAND_GENERATE_SEED my_trng\n", "wolfssl=")
    assert refusal == (f"--config wolfssl={path}: CUSTOM_RAND_GENERATE_SEED is my_trng; tlsbench needs"
                       " tb_wolfssl_seed for the harness's seed hook (the test RNG)")


@needs_tools("cc")
def test_a_config_that_does_not_compile_is_the_compilers_first_error(tmp_path: Path) -> None:
    path, refusal = _host_refusal(tmp_path, "broken.h", "/* mine */\n#error no such board\n#error second\n")
    assert refusal == f"--config mbedtls={path} does not compile: {path}:2:2: error: #error no such board"


@needs_tools("cc")
def test_a_layered_overlay_passes_the_check(tmp_path: Path) -> None:
    path = _file(tmp_path, "ok.h", "#define MBEDTLS_SSL_IN_CONTENT_LEN 2048\n#undef MBEDTLS_SSL_PROTO_TLS1_2\n")
    _check(userconfig.parse([f"mbedtls={path}"], None), tmp_path, firmware=False)


@needs_tools("cc")
def test_the_cli_refuses_with_one_line_before_cmake_runs(tmp_path: Path) -> None:
    path = _file(tmp_path, "c.h", "#undef MBEDTLS_CTR_DRBG_C\n")
    proc = subprocess.run([sys.executable, "-m", "tlsbench", "build", "--libraries", "mbedtls", "--config",
                           f"mbedtls={path}"], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "CCACHE_DISABLE": "1"})
    assert proc.returncode != 0
    assert proc.stderr.strip().splitlines() == [
        f"tlsbench: error: --config mbedtls={path}: MBEDTLS_CTR_DRBG_C is off; tlsbench needs it for the adapter's"
        " random generator"]
    folder = Path(__file__).resolve().parents[2] / "build" / ("host" + userconfig.suffix(userconfig.parse(
        [f"mbedtls={path}"], None)))
    assert not (folder / "CMakeCache.txt").exists()


def _machine(tmp_path: Path, text: str, cflags: str | None = None) -> dict:
    path = _file(tmp_path, "my_config.h", text)
    return {"user_build": userconfig.parse([f"mbedtls={path}"], cflags).record()}


def test_compare_prints_the_configuration_difference_first(tmp_path: Path) -> None:
    from tlsbench.report import compare

    ours = {**compare.user_build_context({}), "target": "qemu:mps2-an386", "mbedtls config": "ours"}
    text = "#define MBEDTLS_SSL_IN_CONTENT_LEN 2048\n#undef MBEDTLS_SSL_PROTO_TLS1_2\n"
    theirs = {**compare.user_build_context(_machine(tmp_path, text, "-O2")), "target": "qemu:mps2-an386",
              "mbedtls config": "theirs"}
    sha = hashlib.sha256(text.encode()).hexdigest()[:16]
    assert compare._differences(ours, theirs) == [
        f"mbedtls your config file: - -> my_config.h (layered over ours, sha256 {sha})",
        "mbedtls your config: + #define MBEDTLS_SSL_IN_CONTENT_LEN 2048",
        "mbedtls your config: + #undef MBEDTLS_SSL_PROTO_TLS1_2",
        "your compiler options: - -> -O2",
        "mbedtls config: ours -> theirs",
    ]


def test_compare_of_two_configurations_shows_the_lines_that_differ(tmp_path: Path) -> None:
    from tlsbench.report import compare

    a = compare.user_build_context(_machine(tmp_path / "..", "#define A 1\n#define B 2\n"))
    b = compare.user_build_context(_machine(tmp_path, "#define A 1\n#define B 3\n"))
    assert compare._differences(a, b)[1:] == ["mbedtls your config: - #define B 2",
                                              "mbedtls your config: + #define B 3"]


def test_the_report_context_shows_the_file_its_hash_and_text(tmp_path: Path) -> None:
    from tlsbench.report import tables

    machine = _machine(tmp_path, "/* mine */\n\n#define MBEDTLS_ECP_WINDOW_SIZE 2\n", "-O2 -flto")
    sha = hashlib.sha256(b"/* mine */\n\n#define MBEDTLS_ECP_WINDOW_SIZE 2\n").hexdigest()
    assert tables.user_build_lines(machine["user_build"], "  ") == [
        f"  mbedtls your configuration: {tmp_path / 'my_config.h'} (layered over ours), sha256 {sha}",
        "      /* mine */", "      #define MBEDTLS_ECP_WINDOW_SIZE 2",
        "  your compiler options: -O2 -flto"]
    assert tables.user_build_lines({}, "  ") == []


def test_runs_can_be_filtered_by_the_configurations_hash_and_the_flags(tmp_path: Path) -> None:
    from tlsbench.engine import labels

    machine = _machine(tmp_path, "#define MBEDTLS_ECP_WINDOW_SIZE 2\n", "-O2 -flto")
    recorded = labels.recorded(machine)
    sha = hashlib.sha256(b"#define MBEDTLS_ECP_WINDOW_SIZE 2\n").hexdigest()[:16]
    assert (recorded["build.config.mbedtls"], recorded["build.cflags"]) == (sha, "-O2 -flto")
    assert labels.matches(recorded, labels.parse([f"build.config.mbedtls={sha}"], recorded_ok=True))
    assert not any(k.startswith("build.") for k in labels.recorded({}))
    with pytest.raises(PlanError):
        labels.parse(["build.cflags=-O2"])  # recorded by tlsbench, not given


def test_the_cmake_options_of_a_user_build(tmp_path: Path) -> None:
    path = _file(tmp_path, "mine.h", "#define MBEDTLS_ECP_WINDOW_SIZE 2\n")
    user = userconfig.parse([f"mbedtls={path}"], "-O2 -flto")
    build = tmp_path / "build"
    staged = build / "userconfig" / "mbedtls" / "mbedtls_user_config.h"
    layer = build / "userconfig" / "mbedtls" / "tb_mbedtls_user_layer.h"
    assert userconfig.cmake_defines(user, build, {"mbedtls": "small"}) == [
        "-DTB_USER_CFLAGS=-O2;-flto", f"-DTB_MBEDTLS_USER_CONFIG={layer}", "-DTB_MBEDTLS_USER_CONFIG_FULL=OFF",
        f"-DTB_MBEDTLS_USER_CONFIG_SHA256={user.configs[0].sha256}"]
    assert staged.read_text() == path.read_text()  # what is compiled is a copy at a fixed name
    profile = Path(__file__).resolve().parents[2] / "agent" / "adapters" / "mbedtls" / "profiles" / "small.h"
    assert layer.read_text().splitlines()[1:] == [f'#include "{profile}"', f'#include "{staged}"']


def test_a_failed_build_names_the_users_file_not_its_copy(tmp_path: Path) -> None:
    path = _file(tmp_path, "mine.h", "#define X\n")
    user = userconfig.parse([f"mbedtls={path}"], "-O2")
    build = tmp_path / "build"
    copy = userconfig.staged(build, user.configs[0])
    log = f"[1/9] Building C object x.c.obj\n{copy}:1:9: error: macro names must be identifiers\n{copy}:2: error: b\n"
    assert userconfig.first_error(user, build, log) == (
        f"your build (--config mbedtls={path}, --cflags '-O2') does not compile: {path}:1:9: error: macro names"
        " must be identifiers")


@pytest.mark.parametrize("target", ["serial:/dev/ttyACM0"])
def test_a_user_build_is_refused_where_tlsbench_does_not_build_the_image(target: str, tmp_path: Path) -> None:
    import argparse

    from tlsbench.cli import args as cli

    path = _file(tmp_path, "mine.h", "")
    args = argparse.Namespace(config=[f"mbedtls={path}"], cflags=None)
    with pytest.raises(PlanError) as e:
        cli.with_user_build(targets.parse(target, "nucleo-f446re"), args)
    assert str(e.value) == ("--config/--cflags build their own images: give --target host or qemu:BOARD and build"
                            " them there (tlsbench build --target qemu:BOARD --config ...), then flash them yourself")


def test_a_failed_link_names_the_linkers_words_not_collect2s(tmp_path: Path) -> None:
    user = userconfig.parse(None, "-flto")
    log = ("ld: /tmp/x.ltrans0.ltrans.o: in function `SysTick_Handler':\n"
           "<artificial>:(.text+0x16): undefined reference to `f'\ncollect2: error: ld returned 1 exit status\n")
    assert userconfig.first_error(user, tmp_path, log) == (
        "your build (--cflags '-flto') does not compile: <artificial>:(.text+0x16): undefined reference to `f'")


# ---- a second configuration of one library in one run (an alias: --config mbedtls@a2=b.h) ----

def test_an_alias_is_a_library_of_its_own_built_apart(tmp_path: Path) -> None:
    from tlsbench import versions

    a, b = _file(tmp_path, "a.h", "#define MBEDTLS_ECP_WINDOW_SIZE 2\n"), _file(tmp_path, "b.h", "/* b */\n")
    both = userconfig.parse([f"mbedtls={a}", f"mbedtls@a2={b}"], "-O2")
    assert [c.library for c in both.configs] == ["mbedtls", "mbedtls@a2"]
    assert (both.aliases, versions.canonical("mbedtls@a2"), versions.version_of("mbedtls@a2").library) == (
        ("mbedtls@a2",), "mbedtls@a2", "mbedtls")
    # the alias's image: the same build with b.h as Mbed TLS's file, keyed like a run of b.h alone
    alone = userconfig.parse([f"mbedtls={b}"], "-O2")
    assert both.for_alias("mbedtls@a2") == alone
    assert userconfig.digest(both) == userconfig.digest(userconfig.parse([f"mbedtls={a}"], "-O2"))
    assert both.of("mbedtls@a2").path == b and both.of("mbedtls").path == a and both.of("mbedtls@3.6").path == a
    qemu = targets.parse("qemu:mps2-an386").with_user_build(both)
    assert qemu.firmware_path("mbedtls@a2") == qemu.with_user_build(alone).firmware_path("mbedtls")
    assert qemu.firmware_path("mbedtls") != qemu.firmware_path("mbedtls@a2")
    assert qemu.agent_path("mbedtls@a2") == qemu.build_dir() / "tlsbench-agent-mbedtls@a2"  # its launcher


def test_an_alias_alone_leaves_the_librarys_own_images_ours(tmp_path: Path) -> None:
    b = _file(tmp_path, "b.h", "/* b */\n")
    user = userconfig.parse([f"mbedtls@p256m={b}"], None)
    assert userconfig.suffix(user) == "" and targets.parse("qemu:mps2-an386").with_user_build(user).build_name \
        == "qemu-mps2-an386"
    assert userconfig.cmake_defines(user, tmp_path, {}) == []


def test_a_plan_measures_each_alias_beside_its_library(tmp_path: Path) -> None:
    b = _file(tmp_path, "b.h", "")
    user = userconfig.parse([f"wolfssl@small={b}"], None)
    assert user.with_aliases(["mbedtls", "wolfssl"]) == ["mbedtls", "wolfssl", "wolfssl@small"]
    assert user.with_aliases(["wolfssl@small"]) == ["wolfssl@small"]
    assert user.with_aliases(["mbedtls"]) == ["mbedtls"]
    with pytest.raises(PlanError) as e:
        userconfig.NONE.with_aliases(["mbedtls", "wolfssl@small"])
    assert str(e.value) == "wolfssl@small is an alias of wolfssl with its own configuration: give it with" \
                           " --config wolfssl@small=PATH"


@pytest.mark.parametrize("item, message", [
    ("openssl@x=a.h", "--config openssl@x=a.h: 'openssl@x' takes no configuration file; allowed: mbedtls, wolfssl"),
    ("mbedtls@3.6=a.h", "--config mbedtls@3.6=a.h: 'mbedtls@3.6' is no alias: after '@' a name of lower-case"
     " letters, digits, '_' or '-' starting with a letter (at most 24), not a version (a config applies to every"
     " version of its library)"),
    ("mbedtls@A2=a.h", "--config mbedtls@A2=a.h: 'mbedtls@A2' is no alias: after '@' a name of lower-case"
     " letters, digits, '_' or '-' starting with a letter (at most 24), not a version (a config applies to every"
     " version of its library)"),
])
def test_a_bad_alias_is_one_line(item: str, message: str) -> None:
    assert _config_refusal([item]) == message


def test_an_alias_has_its_own_label_and_compares_against_its_library(tmp_path: Path) -> None:
    from tlsbench.engine import labels
    from tlsbench.report import compare

    a, b = _file(tmp_path, "a.h", "#define A 1\n"), _file(tmp_path, "b.h", "#define A 2\n")
    machine = {"user_build": userconfig.parse([f"mbedtls={a}", f"mbedtls@a2={b}"], None).record()}
    recorded = labels.recorded(machine)
    sha_a, sha_b = (hashlib.sha256(t).hexdigest()[:16] for t in (b"#define A 1\n", b"#define A 2\n"))
    assert (recorded["build.config.mbedtls"], recorded["build.config.mbedtls@a2"]) == (sha_a, sha_b)
    assert labels.matches(recorded, labels.parse([f"build.config.mbedtls@a2={sha_b}"], recorded_ok=True))
    side = compare.RunSide(run_id=1, context=compare.user_build_context(machine), units={},
                           values={"instructions": {"mbedtls/kex/p256/derive": 10.0,
                                                    "mbedtls@a2/kex/p256/derive": 12.0}})
    mine, other = compare.one_version(side, "mbedtls"), compare.one_version(side, "mbedtls@a2")
    assert (mine.values, other.values) == ({"instructions": {"mbedtls/kex/p256/derive": 10.0}},
                                           {"instructions": {"mbedtls/kex/p256/derive": 12.0}})
    assert compare._differences(mine.context, other.context) == [
        f"mbedtls your config file: a.h (layered over ours, sha256 {sha_a}) -> b.h (layered over ours,"
        f" sha256 {sha_b})",
        "mbedtls your config: - #define A 1", "mbedtls your config: + #define A 2"]


def test_two_checkouts_at_different_paths_give_the_same_image_key(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The key of an image (its build folder's name and its stamp's inputs) holds no path: the same agent
    sources, lock, config bytes (kept anywhere) and flags in two checkouts give the same key, another
    config byte another one."""
    import shutil

    from tlsbench import paths
    from tlsbench.targets import firmware

    real = paths.root()
    keys = []
    for checkout in ("one", "a/checkout/in/a/much/longer/folder"):
        root = tmp_path / checkout
        shutil.copytree(real / "agent", root / "agent")
        shutil.copy(real / "libraries.lock.toml", root / "libraries.lock.toml")
        mine = _file(root, "my_config.h", "#define MBEDTLS_ECP_WINDOW_SIZE 2\n")
        monkeypatch.setenv("TLSBENCH_ROOT", str(root))
        target = targets.parse("qemu:mps2-an386").with_user_build(userconfig.parse([f"mbedtls={mine}"], "-O2"))
        assert target.build_dir().parent == root / "build"
        keys.append((target.build_name, firmware.inputs(target, "mbedtls", "Os", toolchain="arm-none-eabi-gcc 12")))
    assert keys[0] == keys[1]
    other = _file(tmp_path, "other.h", "#define MBEDTLS_ECP_WINDOW_SIZE 3\n")
    changed = targets.parse("qemu:mps2-an386").with_user_build(userconfig.parse([f"mbedtls={other}"], "-O2"))
    assert changed.build_name != keys[0][0]
    assert firmware.inputs(changed, "mbedtls", "Os", toolchain="arm-none-eabi-gcc 12")["user"] != keys[0][1]["user"]


def test_a_config_without_0rtt_builds_and_its_0rtt_cases_name_the_define(tmp_path: Path) -> None:
    """Mbed TLS's own default leaves MBEDTLS_SSL_EARLY_DATA off: such a config is taken (the adapter leaves
    its 0-RTT calls out), and only the 0-RTT cases are unsupported, naming the define."""
    path = _file(tmp_path, "c.h", "#undef MBEDTLS_SSL_EARLY_DATA\n")
    user = userconfig.parse([f"mbedtls={path}"], None)
    _check(user, tmp_path, firmware=False)
    off = userconfig.turned_off(user, tmp_path / "build", {}, ["cc"], False)
    assert off == {"mbedtls": {"MBEDTLS_SSL_EARLY_DATA"}}
    early = "mbedtls/tls/TLS_AES_128_GCM_SHA256/x25519/ecdsa-p256-full/0rtt"
    assert userconfig.unsupported_reason("mbedtls", early, off, "0-RTT: MBEDTLS_SSL_EARLY_DATA is off in this"
                                         " build") == ("MBEDTLS_SSL_EARLY_DATA is off in your config (0-RTT:"
                                                       " MBEDTLS_SSL_EARLY_DATA is off in this build)")
    full = "mbedtls/tls/TLS_AES_128_GCM_SHA256/x25519/ecdsa-p256-full/resumption"
    assert userconfig.unsupported_reason("mbedtls", full, off, "why") == "why"


def test_one_compiler_option_alone_is_taken_as_the_value_of_cflags() -> None:
    from tlsbench.cli import args as cli
    from tlsbench.cli import parser

    assert cli.cflags_joined(["run", "--cflags", "-O2", "--quiet"]) == ["run", "--cflags=-O2", "--quiet"]
    assert cli.cflags_joined(["run", "--cflags", "-O2 -flto"]) == ["run", "--cflags=-O2 -flto"]
    args = parser().parse_args(cli.cflags_joined(["run", "--cflags", "-O2"]))
    assert userconfig.parse_cflags(args.cflags) == ("-O2",)

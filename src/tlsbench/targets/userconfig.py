"""The user's own library configuration and compiler options (--config, --cflags).

Each library's own mechanism, not a third one: Mbed TLS takes the user's
file as MBEDTLS_USER_CONFIG_FILE over our base configuration and the build
profile (or, with ``full:``, as the whole MBEDTLS_CONFIG_FILE); wolfSSL
reads its user_settings.h, where the user's file is included last (after
our base and profile, so it may #undef what it turns off), or, with
``full:``, instead of ours. What the harness itself needs is one table
(HARNESS_NEEDS), checked by asking the compiler what the configuration
defines (``-dM -E``) before anything is built.

A build with user inputs lives in its own folder, named by the hash of
those inputs (the config files' bytes, the flags), so two configurations
coexist and nothing built from other bytes is reused; a build without
them keeps its folder and bytes.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tlsbench import paths, versions
from tlsbench.errors import PlanError, SetupError
from tlsbench.targets import sources


@dataclass(frozen=True)
class Need:
    """A define the harness needs from a library's configuration."""
    define: str
    why: str
    value: str | None = None  # the value it must have (None: defined at all)
    firmware_only: bool = False


@dataclass(frozen=True)
class Mechanism:
    """How one library takes a user's configuration."""
    header: str  # what the compiler includes to see the whole configuration
    layered: str  # the help text's one line on how the file is applied
    needs: tuple[Need, ...]


# The per-library facts (a Library record's config_mechanism and harness_requires).
MECHANISMS: dict[str, Mechanism] = {
    "mbedtls": Mechanism(
        "mbedtls/build_info.h",
        "MBEDTLS_USER_CONFIG_FILE over our base and profile (full:PATH: the whole MBEDTLS_CONFIG_FILE)",
        (
            Need("MBEDTLS_ENTROPY_C", "the entropy module that seeds every DRBG from the harness's seed"),
            Need("MBEDTLS_ENTROPY_HARDWARE_ALT", "the harness's seed hook mbedtls_hardware_poll (the test RNG)"),
            Need("MBEDTLS_NO_PLATFORM_ENTROPY", "one seed path, the harness's deterministic test stream",
                 firmware_only=True),
            Need("MBEDTLS_PLATFORM_MS_TIME_ALT", "the adapter's millisecond clock (the firmware's frozen clock)",
                 firmware_only=True),
            Need("MBEDTLS_CTR_DRBG_C", "the adapter's random generator"),
            Need("MBEDTLS_MD_C", "the adapter's hash and HMAC calls (the md layer)"),
            Need("MBEDTLS_CIPHER_C", "the adapter's AEAD and CBC calls (the cipher layer)"),
            Need("MBEDTLS_BIGNUM_C", "the adapter's key exchange and signature calls"),
            Need("MBEDTLS_ECP_C", "the adapter's elliptic-curve calls"),
            Need("MBEDTLS_ECDH_C", "the adapter's ECDH calls"),
            Need("MBEDTLS_RSA_C", "the adapter's RSA calls"),
            Need("MBEDTLS_PK_C", "the adapter's test keys (pk layer)"),
            Need("MBEDTLS_PK_PARSE_C", "the adapter's test keys (DER parsing)"),
            Need("MBEDTLS_X509_CRT_PARSE_C", "the handshakes' certificates"),
            Need("MBEDTLS_SSL_TLS_C", "the adapter's TLS calls"),
            Need("MBEDTLS_SSL_CLI_C", "the TLS client side of the handshakes"),
            Need("MBEDTLS_SSL_SRV_C", "the TLS server side of the handshakes"),
            Need("MBEDTLS_PSA_CRYPTO_C", "psa_crypto_init, which the adapter calls"),
            Need("MBEDTLS_VERSION_C", "the version string the run records"),
        )),
    "wolfssl": Mechanism(
        "wolfssl/wolfcrypt/settings.h",
        "included at the end of our user_settings.h (WOLFSSL_USER_SETTINGS), after our base and profile:"
        " #undef what it turns off (full:PATH: your user_settings.h instead of ours)",
        (
            Need("HAVE_HASHDRBG", "the DRBG the harness seeds"),
            Need("CUSTOM_RAND_GENERATE_SEED", "the harness's seed hook (the test RNG)", value="tb_wolfssl_seed"),
            Need("SINGLE_THREADED", "bare metal: no threads", firmware_only=True),
            Need("NO_FILESYSTEM", "bare metal: no files", firmware_only=True),
            Need("WOLFSSL_USER_IO", "the adapter's in-memory TLS I/O callbacks", firmware_only=True),
        )),
}


@dataclass(frozen=True)
class UserConfig:
    """One library's configuration file, as read when the run started."""
    library: str  # "mbedtls", "wolfssl", or an alias measured beside it ("mbedtls@a2")
    path: Path
    text: str
    full: bool  # replaces our base configuration instead of layering over it

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()

    @property
    def is_alias(self) -> bool:
        return "@" in self.library

    def flag(self) -> str:
        return f"{self.library}={'full:' if self.full else ''}{self.path}"


@dataclass(frozen=True)
class UserBuild:
    """Everything of the user's that goes into an image besides our own sources.
    A config of an alias ("mbedtls@a2") is built apart (for_alias): the library's
    own images here take the configs of the libraries themselves (own)."""
    configs: tuple[UserConfig, ...] = ()
    cflags: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.configs or self.cflags)

    def of(self, library: str) -> UserConfig | None:
        """The config a library identifier's image is built with (an alias's own; a version's: its library's)."""
        return (next((c for c in self.configs if c.library == library), None) if library in self.aliases
                else next((c for c in self.own if c.library == versions.base(library)), None))

    @property
    def own(self) -> tuple[UserConfig, ...]:
        """The configs of the libraries themselves (not of their aliases)."""
        return tuple(c for c in self.configs if not c.is_alias)

    @property
    def builds_here(self) -> bool:
        """Whether the libraries' own images differ from ours (an alias alone leaves them ours)."""
        return bool(self.own or self.cflags)

    @property
    def aliases(self) -> tuple[str, ...]:
        return tuple(c.library for c in self.configs if c.is_alias)

    def for_alias(self, alias: str) -> UserBuild:
        """The build of an alias's image: this build with the alias's file as its library's (the other
        libraries' files and the compiler options as they are), so the same inputs share one folder."""
        c = next(c for c in self.configs if c.library == alias)
        others = tuple(o for o in self.own if o.library != versions.base(alias))
        mine = UserConfig(versions.base(alias), c.path, c.text, c.full)
        return UserBuild(tuple(sorted((*others, mine), key=lambda x: x.library)), self.cflags)

    def with_aliases(self, libraries: list[str]) -> list[str]:
        """A plan's libraries with each configured alias measured right after its library (when the plan
        has that library and not the alias); an alias the configs do not name is refused."""
        unknown = [lib for lib in libraries if versions.is_alias(lib) and lib not in self.aliases]
        if unknown:
            raise PlanError(f"{unknown[0]} is an alias of {versions.base(unknown[0])} with its own configuration:"
                            f" give it with --config {unknown[0]}=PATH")
        out = list(libraries)
        for alias in self.aliases:
            if alias not in out and versions.base(alias) in out:
                out.insert(out.index(versions.base(alias)) + 1, alias)
        return out

    def record(self) -> dict[str, object]:
        """What a run stores: each file's text and SHA-256, the flags."""
        return {"configs": {c.library: {"path": str(c.path), "full": c.full, "sha256": c.sha256, "text": c.text}
                            for c in self.configs},
                "cflags": list(self.cflags)}


NONE = UserBuild()


def parse_config(items: list[str] | None) -> tuple[UserConfig, ...]:
    """--config LIB=[full:]PATH (repeatable) -> the files, read now."""
    out: dict[str, UserConfig] = {}
    for item in items or []:
        lib, sep, rest = item.partition("=")
        if not sep or not rest:
            raise PlanError(f"--config expects LIBRARY=PATH or LIBRARY=full:PATH, e.g. mbedtls=./my_config.h"
                            f" (got {item!r})")
        if versions.base(lib) not in MECHANISMS:
            raise PlanError(f"--config {item}: {lib!r} takes no configuration file; allowed: {', '.join(MECHANISMS)}")
        if "@" in lib and not versions.alias_syntax(lib):
            raise PlanError(f"--config {item}: {lib!r} is no alias: after '@' a name of lower-case letters, digits,"
                            " '_' or '-' starting with a letter (at most 24), not a version (a config applies to"
                            " every version of its library)")
        if lib in out:
            raise PlanError(f"--config {item}: {lib} has a configuration already ({out[lib].flag()});"
                            " one per library")
        full = rest.startswith("full:")
        path = Path(rest.removeprefix("full:")).expanduser().resolve()
        if full and versions.base(lib) == "wolfssl" and path.name != "user_settings.h":
            raise PlanError(f"--config {item}: wolfSSL reads a file named user_settings.h (WOLFSSL_USER_SETTINGS);"
                            f" rename {path.name} or layer it without full:")
        try:
            text = path.read_text()
        except (OSError, UnicodeDecodeError) as e:
            raise PlanError(f"--config {item}: cannot read {path}: {getattr(e, 'strerror', None) or e}") from None
        out[lib] = UserConfig(lib, path, text, full)
    for lib in out:
        if "@" in lib:
            versions.register_alias(lib)  # a library identifier from now on: plans, the store and reports name it
    return tuple(sorted(out.values(), key=lambda c: c.library))


def parse_cflags(text: str | None) -> tuple[str, ...]:
    """--cflags "-O2 -flto" -> an argument list (shell-like quoting, never a shell)."""
    if not text:
        return ()
    try:
        flags = shlex.split(text)
    except ValueError as e:
        raise PlanError(f"--cflags {text!r}: {e}") from None
    bad = [f for f in flags if ";" in f or not f.startswith("-")]
    if bad:
        raise PlanError(f"--cflags {text!r}: {bad[0]!r} is not a compiler option (each starts with '-',"
                        " none holds ';')")
    return tuple(flags)


def parse(config: list[str] | None, cflags: str | None) -> UserBuild:
    return UserBuild(parse_config(config), parse_cflags(cflags))


def from_record(record: dict | None) -> UserBuild:
    """The UserBuild a run stored (its files' text, not today's files)."""
    if not record:
        return NONE
    configs = tuple(UserConfig(lib, Path(c["path"]), c["text"], bool(c["full"]))
                    for lib, c in sorted(record.get("configs", {}).items()))
    for c in configs:
        if c.is_alias and versions.alias_syntax(c.library):
            versions.register_alias(c.library)
    return UserBuild(configs, tuple(record.get("cflags", ())))


def digest(user: UserBuild) -> str:
    """The hash of the user's inputs (files' bytes, flags), the key of their build folder (an alias's
    file is not: it goes into its own build, UserBuild.for_alias)."""
    data = json.dumps({"configs": [[c.library, c.full, c.sha256] for c in user.own],
                       "cflags": list(user.cflags)}, sort_keys=True)
    return hashlib.sha256(data.encode()).hexdigest()


def suffix(user: UserBuild) -> str:
    """What a build folder's name gets for these inputs ("" for none: today's folders)."""
    return f"-user-{digest(user)[:12]}" if user.builds_here else ""


def _write_if_changed(path: Path, text: str) -> Path:
    """A generated file, rewritten only when its text changes (an unchanged one triggers no rebuild)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)
    return path


def staged(build: Path, config: UserConfig) -> Path:
    """The copy of the user's file the build compiles, at a fixed name in the
    build folder: the image and the compiler cache do not depend on where the
    user keeps it (a file that includes others names them by full path)."""
    name = "user_settings.h" if config.library == "wolfssl" and config.full else f"{config.library}_user_config.h"
    return _write_if_changed(build / "userconfig" / config.library / name, config.text)


def layer_file(build: Path, config: UserConfig, profile_header: Path, user_file: Path) -> Path:
    """Mbed TLS's MBEDTLS_USER_CONFIG_FILE for a layered config: our profile, then the user's file."""
    name = "tb_mbedtls_user_layer.h" if user_file.parent == build / "userconfig" / "mbedtls" else "tb_mbedtls_check.h"
    return _write_if_changed(build / "userconfig" / "mbedtls" / name,
                             "/* written by tlsbench: the build profile, then the user's configuration */\n"
                             f'#include "{profile_header}"\n#include "{user_file}"\n')


def cmake_defines(user: UserBuild, build: Path, profiles: dict[str, str]) -> list[str]:
    """The CMake -D options of these inputs (none for a build without them)."""
    out = [f"-DTB_USER_CFLAGS={';'.join(user.cflags)}"] if user.cflags else []
    for c in user.own:  # an alias's config: its own build (UserBuild.for_alias)
        copy = staged(build, c)
        if c.library == "mbedtls" and not c.full:
            copy = layer_file(build, c, mbedtls_profile(profiles), copy)
        out.append(f"-DTB_{c.library.upper()}_USER_CONFIG={copy}")
        out.append(f"-DTB_{c.library.upper()}_USER_CONFIG_FULL={'ON' if c.full else 'OFF'}")
        out.append(f"-DTB_{c.library.upper()}_USER_CONFIG_SHA256={c.sha256}")
    return out


def first_error(user: UserBuild, build: Path, log: str) -> str:
    """A failed build of a user's configuration in one line: the compiler's
    first error, naming the user's file where the build read its copy."""
    lines = log.splitlines()
    # the compiler's or the linker's own words before collect2's summary ("ld returned 1 exit status")
    line = next((x for x in lines if "error:" in x and "collect2" not in x), None) \
        or next((x for x in lines if "undefined reference" in x), None) \
        or next((x for x in lines if "error" in x), None) or (lines[-1] if lines else "")
    line = line.strip()
    for c in user.configs:
        line = line.replace(str(staged(build, c)), str(c.path))
    flags = ", ".join([*(f"--config {c.flag()}" for c in user.configs),
                       *([f"--cflags {' '.join(user.cflags)!r}"] if user.cflags else [])])
    return f"your build ({flags}) does not compile: {line}"


def mbedtls_profile(profiles: dict[str, str]) -> Path:
    return paths.root() / "agent" / "adapters" / "mbedtls" / "profiles" / f"{profiles.get('mbedtls', 'default')}.h"


def _preprocessor_args(config: UserConfig, tree: Path, build: Path, profiles: dict[str, str],
                       firmware: bool, ours: bool = False) -> list[str]:
    """The include paths and defines with which the library's build sees this
    configuration (ours: the build without it, to tell what it turned off)."""
    adapters = paths.root() / "agent" / "adapters"
    bare = ["-DTB_BARE_METAL=1"] if firmware else []
    if config.library == "mbedtls" and ours:
        return [f"-I{tree / 'include'}", f'-DMBEDTLS_CONFIG_FILE="{adapters / "mbedtls" / "tb_mbedtls_config.h"}"',
                f'-DMBEDTLS_USER_CONFIG_FILE="{mbedtls_profile(profiles)}"', *bare]
    if config.library == "wolfssl" and ours:
        return [f"-I{adapters / 'wolfssl'}", f"-I{tree}", "-DWOLFSSL_USER_SETTINGS",
                f'-DTB_WOLFSSL_PROFILE_HEADER="profiles/{profiles.get("wolfssl") or "c"}.h"', *bare]
    if config.library == "mbedtls":
        base = config.path if config.full else adapters / "mbedtls" / "tb_mbedtls_config.h"
        user = (mbedtls_profile(profiles) if config.full
                else layer_file(build, config, mbedtls_profile(profiles), config.path))
        return [f"-I{tree / 'include'}", f'-DMBEDTLS_CONFIG_FILE="{base}"', f'-DMBEDTLS_USER_CONFIG_FILE="{user}"',
                *bare]
    profile = profiles.get("wolfssl") or "c"  # the maths choice does not decide what the harness needs
    settings = ([f"-I{config.path.parent}"] if config.full
                else [f"-I{adapters / 'wolfssl'}", f'-DTB_WOLFSSL_USER_CONFIG="{config.path}"'])
    return [*settings, f"-I{tree}", "-DWOLFSSL_USER_SETTINGS", f'-DTB_WOLFSSL_PROFILE_HEADER="profiles/{profile}.h"',
            *bare]


def defined_macros(compiler: list[str], args: list[str], header: str) -> dict[str, str]:
    """What a configuration defines, asked of the compiler (-dM -E), never read by regex from the text.
    A configuration that does not preprocess raises SetupError with the compiler's first error."""
    cmd = [*compiler, "-E", "-dM", "-x", "c", *args, "-"]
    try:
        proc = subprocess.run(cmd, input=f"#include <{header}>\n", capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise SetupError(f"{compiler[0]} does not run ({e})") from None
    if proc.returncode != 0:
        errors = [line for line in proc.stderr.splitlines() if "error" in line]
        raise SetupError((errors or proc.stderr.strip().splitlines() or ["(no message)"])[0])
    out = {}
    for line in proc.stdout.splitlines():
        parts = line.split(None, 2)
        if len(parts) >= 2 and parts[0] == "#define":
            out[parts[1].split("(")[0]] = parts[2] if len(parts) == 3 else ""
    return out


def problems(library: str, macros: dict[str, str], firmware: bool) -> list[str]:
    """What of the harness's needs a configuration lacks: one line each."""
    out = []
    for need in MECHANISMS[library].needs:
        if need.firmware_only and not firmware:
            continue
        if need.define not in macros:
            out.append(f"{need.define} is off; tlsbench needs it for {need.why}")
        elif need.value is not None and macros[need.define].strip() != need.value:
            out.append(f"{need.define} is {macros[need.define].strip()}; tlsbench needs {need.value} for {need.why}")
    return out


def check(user: UserBuild, build: Path, profiles: dict[str, str], compiler: list[str], firmware: bool) -> None:
    """Refuses, before anything is built, a configuration that does not
    preprocess or lacks what the harness needs: one line naming the file
    (an alias's file: when its own build is checked)."""
    for c in user.own:
        lock = versions.version_of(c.library).lock
        tree = sources.ensure_sources([lock])[lock]
        args = _preprocessor_args(c, tree, build, profiles, firmware)
        try:
            macros = defined_macros(compiler, args, MECHANISMS[c.library].header)
        except SetupError as e:
            raise SetupError(f"--config {c.flag()} does not compile: {e}") from None
        found = problems(c.library, macros, firmware)
        if found:
            raise SetupError(f"--config {c.flag()}: {found[0]}")


# What a case needs from each library's configuration, matched on its name
# (library/kind/alg/op): a define that must be on, or "!NAME" one that must be off.
CASE_NEEDS: dict[str, tuple[tuple[str, str], ...]] = {
    "mbedtls": (
        (r"/tls/TLS_(AES|CHACHA20)_", "MBEDTLS_SSL_PROTO_TLS1_3"),
        (r"/tls/TLS_\w+_WITH_", "MBEDTLS_SSL_PROTO_TLS1_2"),
        (r"/tls/TLS_ECDHE_ECDSA_WITH_", "MBEDTLS_KEY_EXCHANGE_ECDHE_ECDSA_ENABLED"),
        (r"/tls/TLS_ECDHE_RSA_WITH_", "MBEDTLS_KEY_EXCHANGE_ECDHE_RSA_ENABLED"),
        (r"/tls/TLS_DHE_RSA_WITH_", "MBEDTLS_KEY_EXCHANGE_DHE_RSA_ENABLED"),
        (r"/tls/TLS_RSA_WITH_", "MBEDTLS_KEY_EXCHANGE_RSA_ENABLED"),
        (r"/tls/TLS_ECDH_ECDSA_WITH_", "MBEDTLS_KEY_EXCHANGE_ECDH_ECDSA_ENABLED"),
        (r"/tls/TLS_PSK_WITH_", "MBEDTLS_KEY_EXCHANGE_PSK_ENABLED"),
        (r"/tls/TLS_ECDHE_PSK_WITH_", "MBEDTLS_KEY_EXCHANGE_ECDHE_PSK_ENABLED"),
        (r"/tls/TLS_DHE_PSK_WITH_", "MBEDTLS_KEY_EXCHANGE_DHE_PSK_ENABLED"),
        (r"(?i)chacha20", "MBEDTLS_CHACHAPOLY_C"),
        (r"(?i)_GCM|-gcm", "MBEDTLS_GCM_C"),
        (r"(?i)_CCM|-ccm", "MBEDTLS_CCM_C"),
        (r"(?i)_CBC_|-cbc", "MBEDTLS_CIPHER_MODE_CBC"),
        (r"x25519", "MBEDTLS_ECP_DP_CURVE25519_ENABLED"),
        (r"x448", "MBEDTLS_ECP_DP_CURVE448_ENABLED"),
        (r"p256|secp256r1", "MBEDTLS_ECP_DP_SECP256R1_ENABLED"),
        (r"p384|secp384r1", "MBEDTLS_ECP_DP_SECP384R1_ENABLED"),
        (r"ffdhe", "MBEDTLS_DHM_C"),
        (r"sha3-", "MBEDTLS_SHA3_C"),
        (r"/md5", "MBEDTLS_MD5_C"),
        (r"/sha1|-sha1", "MBEDTLS_SHA1_C"),
    ),
    "wolfssl": (
        (r"/tls/TLS_(AES|CHACHA20)_", "WOLFSSL_TLS13"),
        (r"/tls/TLS_\w+_WITH_", "!WOLFSSL_NO_TLS12"),
        (r"(?i)chacha20", "HAVE_CHACHA"),
        (r"(?i)_GCM|-gcm", "HAVE_AESGCM"),
        (r"(?i)_CCM|-ccm", "HAVE_AESCCM"),
        (r"x25519", "HAVE_CURVE25519"),
        (r"x448", "HAVE_CURVE448"),
        (r"ed25519", "HAVE_ED25519"),
        (r"p256|p384|ecdsa|secp", "HAVE_ECC"),
        (r"ffdhe", "HAVE_FFDHE"),
        (r"sha3-", "WOLFSSL_SHA3"),
    ),
}


def turned_off(user: UserBuild, build: Path, profiles: dict[str, str], compiler: list[str],
               firmware: bool) -> dict[str, set[str]]:
    """library -> the defines its user's configuration turned off against ours
    ("!NAME" for a NO_ define it turned on), asked of the compiler (an alias's:
    of its own build's user, UserBuild.for_alias)."""
    out = {}
    for c in user.own:
        lock = versions.version_of(c.library).lock
        tree = sources.ensure_sources([lock])[lock]
        header = MECHANISMS[c.library].header
        theirs = defined_macros(compiler, _preprocessor_args(c, tree, build, profiles, firmware), header)
        ours = defined_macros(compiler, _preprocessor_args(c, tree, build, profiles, firmware, ours=True), header)
        out[c.library] = {d for d in ours if d not in theirs} | {f"!{d}" for d in theirs if d not in ours}
    return out


def unsupported_reason(library: str, case_name: str, off: dict[str, set[str]], reason: str) -> str:
    """An unsupported case's reason, naming the define the user's configuration turned off when one is why
    (off: per library, or per alias, whose own configuration it is)."""
    mine = off.get(library, off.get(versions.base(library), set()))
    for pattern, define in CASE_NEEDS.get(versions.base(library), ()):
        if define in mine and re.search(pattern, case_name):
            state = f"{define[1:]} is on" if define.startswith("!") else f"{define} is off"
            return f"{state} in your config ({reason})"
    return reason


def help_text() -> str:
    return ("; ".join(f"{lib}: {m.layered}" for lib, m in MECHANISMS.items())
            + "; LIB@NAME=PATH (e.g. mbedtls@a2=b.h): a second configuration measured beside LIB as its own"
              " library, in its own image")

"""GnuTLS 3.8.13 built from its pinned source (with nettle 3.10.1) into its
own prefix, beside the system's GnuTLS 3.7: the agent reports 3.8.13 and
loads that prefix's libraries, `list libraries` says what it lacks, and a
TLS 1.3 handshake's exact bytes are GnuTLS 3.7's but for what the ClientHello
differs by. Building the prefix takes minutes on two cores: it is built once
(build/libs/gnutls-3.8, stamped) and only when missing."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import env_without_agent_dir, tlsbench_cmd
from tls_wire import client_hello_extensions

from tlsbench import paths, versions
from tlsbench.families.tls.cases import TlsCase, parse_records, run_handshakes
from tlsbench.families.tls.certs import make_chain
from tlsbench.targets import build, gnutlsbuild
from tlsbench.targets.libraries import probe

pytestmark = pytest.mark.timeout(1800)  # GnuTLS 3.8 and nettle from source: minutes

GNUTLS38, GNUTLS37 = versions.canonical("gnutls@3.8"), versions.canonical("gnutls@3.7")
T13 = "TLS_AES_128_GCM_SHA256"


@pytest.fixture(scope="module")
def gnutls_agents() -> dict[str, Path]:
    names = (GNUTLS38, GNUTLS37)
    if not all(paths.agent_path(n).exists() for n in names):
        # with every default agent, so the host build folder stays configured for all of them (a parallel
        # worker may build a peer program there next)
        build.build_agents([*versions.built_by_default(), GNUTLS38], jobs=2)
    return {n: paths.agent_path(n) for n in names}


def test_the_3_8_agent_is_3_8_13_from_its_own_prefix(gnutls_agents) -> None:
    info = probe(GNUTLS38)
    assert info.version == "3.8.13" and probe(GNUTLS37).version.startswith("3.7.")
    prefix = gnutlsbuild.prefix_of(GNUTLS38)
    assert f"into {prefix}" in info.config and "nettle 3.10" in info.config
    # every GnuTLS and nettle library the agent loads is the prefix's, never the system's
    ldd = subprocess.run(["ldd", str(gnutls_agents[GNUTLS38])], capture_output=True, text=True, check=True).stdout
    loaded = {line.split()[0]: line.split()[2] for line in ldd.splitlines() if "=>" in line}
    for soname in ("libgnutls.so.30", "libnettle.so.8", "libhogweed.so.6"):
        assert Path(loaded[soname]).parent == prefix / "lib", (soname, loaded[soname])
    out = subprocess.run([*tlsbench_cmd(), "list", "libraries"], capture_output=True, text=True,
                         env=env_without_agent_dir(), check=True).stdout
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith(f"{GNUTLS38} "))
    assert lines[at].split(None, 1)[1] == ("GnuTLS 3.8.13 with nettle 3.10.1; "
                                           "ML-KEM: no (needs leancrypto, not packaged)")
    assert lines[at + 1].split() == ["built:", "3.8.13"]


def _schemes(body: bytes) -> list[int]:
    """signature_algorithms' body: its SignatureScheme code points."""
    return [int.from_bytes(body[j:j + 2], "big") for j in range(2, len(body), 2)]


def _one(r, field: str) -> int:
    values = {int(s[field]) for s in r.samples}
    assert len(values) == 1, (field, values)  # bytes and round trips: the same in every repeat
    return values.pop()


SIGNATURE_ALGORITHMS = 13
MLDSA_SCHEMES = [0x0904, 0x0905, 0x0906]  # mldsa44, mldsa65, mldsa87 (draft-ietf-tls-mldsa)


def test_a_tls13_handshake_is_3_7s_bytes_but_for_three_ml_dsa_schemes(gnutls_agents) -> None:
    """Ed25519 chain (a signature of one length, so the bytes are exact):
    the server's bytes are 3.7's to the byte. The client's are 6 more: 3.8's
    default priorities offer ML-DSA-44/65/87 in signature_algorithms even in
    a build without leancrypto, which can neither sign nor verify them."""
    chain = make_chain("ed25519", "full", "server")
    runs = {n: run_handshakes(gnutls_agents[n], TlsCase(13, T13, "x25519", chain), repeats=2, warmup=0,
                              transcript=True) for n in (GNUTLS38, GNUTLS37)}
    for r in runs.values():
        assert r.status == "ok", r.message
    new, old = runs[GNUTLS38], runs[GNUTLS37]
    assert (_one(new, "s2c_bytes"), _one(old, "s2c_bytes")) == (1539, 1539)
    assert (_one(new, "c2s_bytes"), _one(old, "c2s_bytes")) == (323, 317)
    ext_new = client_hello_extensions(parse_records(new.wire["client"])[0][1])
    ext_old = client_hello_extensions(parse_records(old.wire["client"])[0][1])
    assert ext_new.keys() == ext_old.keys()
    assert {k for k in ext_new if ext_new[k] != ext_old[k] and k != 51} == {SIGNATURE_ALGORITHMS}  # 51: key share
    assert _schemes(ext_new[SIGNATURE_ALGORITHMS]) == MLDSA_SCHEMES + _schemes(ext_old[SIGNATURE_ALGORITHMS])
    assert _one(new, "round_trips") == _one(old, "round_trips") == 1


def test_gnutls_3_8_is_built_only_on_request(tmp_path: Path) -> None:
    """The default build (scripts/setup, CI) leaves it out; a run that names
    it unbuilt says how to build it; plans and the CLI still accept it; its
    missing post-quantum kinds say why."""
    from tlsbench.engine import agent
    from tlsbench.errors import AgentError
    from tlsbench.families.primitive.checks import unsupported_reason

    assert GNUTLS38 in versions.identifiers() and GNUTLS38 not in versions.built_by_default()
    # its post-quantum cases are unsupported with the reason, not the release's
    assert unsupported_reason(GNUTLS38, "kem") == (
        "gnutls 3.8 has no kem algorithms (its ML-KEM and ML-DSA need leancrypto, which Debian does not package);"
        f" versions with them: {versions.canonical('wolfssl@5.9')}, {versions.canonical('openssl@3.5')}")
    assert {"gnutls", versions.canonical("openssl@3.5"), versions.canonical("wolfssl@5.9")} <= set(
        versions.built_by_default())
    with pytest.raises(AgentError, match=r"tlsbench-agent-gnutls-3\.8 is not built "
                                         r"\(run: tlsbench build --libraries gnutls@3\.8\)"):
        agent.call(tmp_path / versions.agent_name(GNUTLS38), [], 1, "hello")
    with pytest.raises(AgentError, match=r"tlsbench-agent-gnutls is not built \(run: tlsbench build\)$"):
        agent.call(tmp_path / versions.agent_name(GNUTLS37), [], 1, "hello")


def test_the_system_tools_have_no_ml_kem_group(tmp_path: Path) -> None:
    """Interop cases of the external client and server (Debian 12's
    gnutls-cli 3.7 and openssl s_server 3.0) on an ML-KEM group are
    unsupported with the reason: not a crash of the run, not a failure."""
    from tlsbench.families.tls.net import PeerUnsupported, gnutls_priority, run_over_tcp

    chain = make_chain("ed25519", "full", "server")
    hybrid = TlsCase(13, T13, "x25519mlkem768", chain)
    with pytest.raises(PeerUnsupported, match="^gnutls-cli: no group x25519mlkem768$"):
        gnutls_priority(hybrid)
    assert gnutls_priority(TlsCase(13, T13, "x25519", chain)).endswith(":+GROUP-X25519")
    # the server never listens, so no client is started
    r = run_over_tcp(tmp_path / "no-client", "openssl-s_server", hybrid, repeats=1)
    assert (r.status, r.message) == ("unsupported", "openssl s_server has no group x25519mlkem768")

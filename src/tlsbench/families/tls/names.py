"""The TLS case name grammar, built and parsed here only.

A TLS case is named ``<library>/tls/<suite>/<variant>`` (engine.case.Case),
where the variant is ``<group>/<credential>-<chain>[/<option>+<option>...]``:
the group (or, for suites without one, rsa-kx / psk-kx / cert-curve), the
certificate key type (or psk / anon) and chain kind (full / leaf / none),
then in this order: mutual, noverify (the client skips verifying the
server), a handshake kind other than full, tcp,
server=<side>, client=<tool>, clients=<n>, device=<side>, mfl=<bytes> (the
client asks for this maximum fragment length), share=<group> (a HelloRetryRequest
case's first client key share, when the plan names it: [tls] hrr_shares). The plain TCP baseline is suite
``TCP`` with the variant ``tcp``. The name is the comparison key between runs,
so a variant prints the same text it was parsed from.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from tlsbench.families.tls import catalog as tls_catalog

BASELINE = "TCP"  # the suite name of the plain TCP baseline
BASELINE_OP = "tcp"
_NO_GROUP = ("rsa-kx", "psk-kx", "cert-curve")


@dataclass(frozen=True)
class TlsVariant:
    """Everything about a TLS case but its suite and library."""

    group: str | None
    cred: str  # certificate key type, or psk / anon
    chain: str  # full | leaf | none
    auth: str = "server"
    handshake: str = "full"
    transport: str = "memory"
    server: str = "same"  # tcp: the server side
    client: str = "same"  # tcp: an external client tool (the case's library is then the server)
    capacity: int = 0  # tcp: transactions/s with this many clients
    device: str = ""  # firmware: only this side ("client" / "server") on the device, its peer on the host
    max_frag: int = 0  # the maximum fragment length the client asks for (0: none asked)
    verify: bool = True  # False: the client does not verify the server's chain (plan [tls] verify_peer)
    share: str = ""  # hrr: the client's first key share ("" the catalog's guess, hrr_first_share)

    def op(self, suite: str) -> str:
        base = f"{self.group or tls_catalog.no_group_label(suite)}/{self.cred}-{self.chain}"
        opts = [o for o in (
            "mutual" if self.auth == "mutual" else "",
            "noverify" if not self.verify else "",
            self.handshake if self.handshake != "full" else "",
            "tcp" if self.transport == "tcp" else "",
            f"server={self.server}" if self.server != "same" else "",
            f"client={self.client}" if self.client != "same" else "",
            f"clients={self.capacity}" if self.capacity else "",
            f"device={self.device}" if self.device else "",
            f"mfl={self.max_frag}" if self.max_frag else "",
            f"share={self.share}" if self.share else "",
        ) if o]
        return base + ("/" + "+".join(opts) if opts else "")

    @staticmethod
    def parse(op: str) -> TlsVariant:
        parts = op.split("/")
        if len(parts) < 2 or "-" not in parts[1]:
            raise ValueError(f"not a TLS case variant: {op!r} (expected <group>/<credential>-<chain>[/<options>])")
        group = None if parts[0] in _NO_GROUP else parts[0]
        cred, chain = parts[1].rsplit("-", 1)
        v = TlsVariant(group, cred, chain)
        for opt in parts[2].split("+") if len(parts) > 2 else []:
            if opt == "mutual":
                v = replace(v, auth="mutual")
            elif opt == "noverify":
                v = replace(v, verify=False)
            elif opt in tls_catalog.HANDSHAKES:
                v = replace(v, handshake=opt)
            elif opt == "tcp":
                v = replace(v, transport="tcp")
            elif opt.startswith("server="):
                v = replace(v, server=opt[7:])
            elif opt.startswith("client="):
                v = replace(v, client=opt[7:])
            elif opt.startswith("clients="):
                v = replace(v, capacity=int(opt[8:]))
            elif opt.startswith("device="):
                v = replace(v, device=opt[7:])
            elif opt.startswith("mfl=") and opt[4:] in {str(n) for n in tls_catalog.MAX_FRAGMENTS}:
                v = replace(v, max_frag=int(opt[4:]))
            elif opt.startswith("share=") and opt[6:] in tls_catalog.GROUPS:
                v = replace(v, share=opt[6:])
            else:
                raise ValueError(f"unknown TLS case option {opt!r} in {op!r}")
        return v

    def peers_removed(self, suite: str) -> str:
        """The variant without its transport and peers: what one row of the
        interop matrix stands for."""
        return replace(self, transport="memory", server="same", client="same").op(suite)


def is_baseline(suite: str) -> bool:
    return suite == BASELINE


def is_capacity(suite: str, op: str) -> bool:
    return not is_baseline(suite) and TlsVariant.parse(op).capacity > 0


def server_of(suite: str, op: str, library: str) -> str | None:
    """The server side of a TCP case (None for in-memory cases and the baseline)."""
    if is_baseline(suite):
        return None
    v = TlsVariant.parse(op)
    if v.transport != "tcp":
        return None
    return library if v.server == "same" else v.server


def client_of(suite: str, op: str, library: str) -> str:
    """The client side of a case: the library, or an external client tool."""
    if is_baseline(suite):
        return library
    v = TlsVariant.parse(op)
    return library if v.client == "same" else v.client

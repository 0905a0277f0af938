"""Instrument checks and the pages made from stored runs: fidelity, stability, results."""

from __future__ import annotations

import argparse
import os

from tlsbench.studies import (
    boardresults,
    docpages,
    fidelity,
    fidelity_counts,
    fidelity_layouts,
    fidelity_native,
    hwcryptoresults,
    resultsminram,
    resultspq,
    resultspqcores,
    studypages,
    validation,
    validation_add,
)


def cmd_fidelity(a: argparse.Namespace) -> int:
    if a.handshakes:  # each library's own handshake benchmark (fidelity_handshakes.py)
        from tlsbench.studies import fidelity_handshakes as fh

        before = os.getloadavg()
        rows = fh.compare(rounds=a.rounds or 3, seconds=a.seconds)
        print(fh.render(rows, (before, os.getloadavg())), end="")
        return 0
    if a.peers:  # the embedded libraries' own benchmark programs (fidelity_peers.py)
        from tlsbench.studies import fidelity_peers

        print(fidelity_peers.render(fidelity_peers.compare(rounds=a.rounds or 3), rounds=a.show_rounds), end="")
        return 0
    rows = fidelity.compare(a.rounds or 7)
    print(fidelity.render(rows))
    outside = [r for r in rows if not r.within]
    for r in outside:
        print(f"OUTSIDE: {r.alg} differs {100 * abs(r.ratio - 1):.1f}% (bound {100 * r.bound:.0f}%)")
    if not outside:
        print("every algorithm within its bound (" + ", ".join(f"{r.alg} {100 * r.bound:.0f}%" for r in rows) + ")")
    return 1 if outside else 0


def add_parsers(sub: argparse._SubParsersAction, db: argparse.ArgumentParser) -> None:
    from tlsbench.report import stability  # the command lives in its own module

    stability.add_parser(sub, db)
    from tlsbench.report import resultsdoc  # the results pages, from stored runs

    resultsdoc.add_parser(sub, db)
    validation_add.add_parser(sub, db)  # tlsbench validate add
    fi = sub.add_parser("fidelity", help="compare OpenSSL figures with `openssl speed` (instrument check)")
    fi.add_argument("--rounds", type=int, help="alternations of the two tools (default 7; with --peers 3)")
    fi.add_argument("--peers", action="store_true",
                    help="Mbed TLS and wolfSSL against their own benchmark programs, built like our agents")
    fi.add_argument("--show-rounds", action="store_true",
                    help="with --peers: each round's figures as well as the best")
    fi.add_argument("--handshakes", action="store_true",
                    help="handshakes against each library's own handshake benchmark (openssl s_time,"
                         " gnutls-cli --benchmark-tls-kx, wolfSSL tls_bench), CPU time per handshake")
    fi.add_argument("--seconds", type=int, default=3, choices=range(1, 61), metavar="1..60",
                    help="with --handshakes: seconds per run of a time-window tool (default 3)")
    fi.set_defaults(func=cmd_fidelity)
    st = sub.add_parser("study", help="the longer instrument checks and the pages made from stored runs (each also"
                        " has a script in scripts/)")
    studies = st.add_subparsers(dest="study", required=True, metavar="STUDY")
    fidelity_layouts.add_parser(studies)
    fidelity_native.add_parser(studies)
    resultsminram.add_parser(studies, db)
    resultspq.add_parser(studies, db)
    resultspqcores.add_parser(studies, db)
    validation.add_parser(studies, db)
    fidelity_counts.add_parser(studies)
    studypages.add_parser(studies, db)
    boardresults.add_parser(studies)
    docpages.add_parser(studies)
    hwcryptoresults.add_parser(studies, db)

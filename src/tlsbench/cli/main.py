"""The entry point: parse, dispatch to the subcommand's handler, and turn every error into one line
on stderr with a non-zero exit."""

from __future__ import annotations

import logging
import os
import signal
import sys

from tlsbench import messages, paths
from tlsbench.cli.args import cflags_joined
from tlsbench.cli.parser import parser
from tlsbench.engine import stopping
from tlsbench.engine.store_backends import db_errors, is_url, redacted
from tlsbench.engine.store_faults import explain, resume_command
from tlsbench.errors import RunInterrupted, TlsbenchError


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(cflags_joined(sys.argv[1:] if argv is None else argv))
    args.tlsbench = main  # a study that runs tlsbench commands runs them in this process, through this entry
    logging.raiseExceptions = False  # a log that cannot be written (a full disk) never adds a traceback
    log_dir = paths.data_dir() / "logs"
    try:
        log_dir.mkdir(parents=True, exist_ok=True)
        logging.basicConfig(filename=log_dir / "tlsbench.log", level=logging.DEBUG,
                            format="%(asctime)s %(levelname)s %(message)s")
    except OSError:
        pass
    messages.show_on("stderr")  # build and progress messages, as the commands printed them
    try:
        with stopping.like_ctrl_c():  # a scheduler's SIGTERM, a closed terminal's SIGHUP: as Ctrl-C
            rc = args.func(args)
        sys.stdout.flush()  # a closed pipe shows here, not as a traceback at exit
        return rc
    except RunInterrupted as e:
        where = str(getattr(args, "db", ""))
        again = resume_command(redacted(where) if is_url(where) else where, e.run_id)
        print(f"tlsbench: {getattr(e, 'why', 'interrupted')}: run {e.run_id} keeps what it measured; finish it with:"
              f" {again}",
              file=sys.stderr)
        return e.exit_code
    except TlsbenchError as e:
        logging.exception("command failed")
        print(f"tlsbench: error: {e}", file=sys.stderr)
        return 2
    except db_errors() as e:  # outside a run (a run says how to resume itself)
        logging.exception("database error")
        where = getattr(args, "db", "?")
        print(f"tlsbench: error: {explain(e, redacted(where) if is_url(where) else where)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as e:
        signum = getattr(e, "signum", signal.SIGINT)
        print("tlsbench: interrupted" if signum == signal.SIGINT else f"tlsbench: stopped by {e}", file=sys.stderr)
        return 128 + signum
    except BrokenPipeError:  # e.g. `tlsbench list presets | head -1`: the reader has what it wanted
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0

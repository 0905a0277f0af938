import sys

from tlsbench.cli.main import main

sys.exit(main())

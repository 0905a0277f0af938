import sys

from tlsbench.cli import main

sys.exit(main())

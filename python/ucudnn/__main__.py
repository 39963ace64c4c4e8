"""`python -m ucudnn ARGS...`: the same as the `ucudnn` entry point."""

import sys

from ucudnn import main

sys.exit(main())

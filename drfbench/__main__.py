"""`python -m drfbench`: the `drfbench` command (drfbench.cli)."""
import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())

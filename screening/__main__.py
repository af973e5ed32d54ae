"""``python -m screening``: see screening/cli.py."""

import sys

from screening.cli import main

if __name__ == "__main__":
    sys.exit(main())

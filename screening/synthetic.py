"""``python -m screening.synthetic OUT.csv``: the documented command (the market: screening/data/synthetic.py)."""

import sys

from screening.data.synthetic import main

if __name__ == "__main__":
    sys.exit(main())

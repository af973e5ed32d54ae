"""``python -m screening.finetune train|evaluate`` (the same as ``python -m screening finetune``).

The guard matters: vLLM starts its engine core with multiprocessing spawn, which re-imports this module.
"""

import argparse
import logging
import sys

from screening.finetune.cli import add_finetune_args, cmd_finetune

if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m screening.finetune", description=__doc__)
    parser.add_argument("-v", "--verbose", action="store_true")
    add_finetune_args(parser)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    sys.exit(cmd_finetune(args))

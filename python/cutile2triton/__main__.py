"""python -m cutile2triton: the command-line tool, run by the C library."""

import sys

from ._native import main

if __name__ == "__main__":
    sys.exit(main(["cutile2triton", *sys.argv[1:]]))

# Starts `marimo edit` with the arguments after this program, as `python -m marimo edit` would,
# with one difference: the program is given with `-c`, so a kernel that multiprocessing spawns
# has no main module to import again. With `-m marimo`, every kernel first imports marimo's
# command line (about 0.4 s in the kernel image) before its own runtime.
import sys

from marimo._cli.cli import main

sys.exit(main(prog_name="marimo"))

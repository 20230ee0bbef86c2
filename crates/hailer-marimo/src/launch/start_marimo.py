# Starts `marimo edit` with the arguments after this program, as `python -m marimo edit` would,
# with its notebooks' kernels started sooner:
# - the program is given with `-c`, so a kernel has no main module to import again (with
#   `-m marimo`, every spawned kernel first imports marimo's command line, about 0.4 s in the
#   kernel image);
# - on Linux, kernels are forked from a fork server that imports marimo's runtime while this
#   process imports the web server, on another core, instead of each kernel importing it anew
#   (about 1 s a kernel in the image). A kernel still leads its own session and watches this
#   server's pid, as a spawned one does. Where no fork server can start, kernels are spawned as
#   marimo spawns them.
import sys

if sys.platform == "linux":
    try:
        import multiprocessing
        import multiprocessing.forkserver

        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["marimo._runtime.runtime"])
        multiprocessing.forkserver.ensure_running()
    except Exception as error:  # noqa: BLE001 - any failure leaves marimo's own way
        print(f"Kernels are spawned: the fork server did not start ({error}).", file=sys.stderr)
    else:
        import marimo._session.managers.kernel as kernel_manager
        import marimo._session.managers.queue as queue_manager

        kernel_manager.get_context = lambda _method=None: context
        queue_manager.get_context = lambda _method=None: context

from marimo._cli.cli import main

sys.exit(main(prog_name="marimo"))

"""The median wall time of `PROGRAM --version`, started from Python as a shell would start it.

    python scripts/bench-version.py PROGRAM [--runs N] [--limit-ms MS]

Prints the median (and the fastest and slowest run); exits 1 when the median is over the limit.
"""

import argparse
import statistics
import subprocess
import sys
import time


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("program")
    parser.add_argument("--runs", type=int, default=51)
    parser.add_argument("--limit-ms", type=float)
    args = parser.parse_args()

    # One run first, so the file is in the page cache as it is for a user's second command.
    subprocess.run([args.program, "--version"], check=True, capture_output=True)
    times = []
    for _ in range(args.runs):
        start = time.perf_counter()
        subprocess.run([args.program, "--version"], check=True, stdout=subprocess.DEVNULL)
        times.append((time.perf_counter() - start) * 1000)
    median = statistics.median(times)
    print(
        f"{args.program} --version: median {median:.2f} ms over {args.runs} runs "
        f"(fastest {min(times):.2f} ms, slowest {max(times):.2f} ms)"
    )
    if args.limit_ms is not None and median > args.limit_ms:
        print(f"the median is over the {args.limit_ms} ms limit", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

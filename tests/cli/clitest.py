"""What the command-line tests of tests/cli share: their common arguments and a fresh work
folder, and small executable scripts (stand-in simulators)."""
import argparse
import os
import shutil
import stat
import sys


def setup(doc, qemu=False, extra=None):
    """Parses --dspc, --source-dir, --work-dir (and --qemu); empties the work folder.
    `extra(ap)` adds a test's own arguments. Returns (args, dspc, source dir, work dir), absolute."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dspc", required=True)
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--work-dir", required=True)
    if qemu:
        ap.add_argument("--qemu", required=True)
    if extra:
        extra(ap)
    a = ap.parse_args()
    work = os.path.abspath(a.work_dir)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    return a, os.path.abspath(a.dspc), os.path.abspath(a.source_dir), work


def script(path, body):
    """Writes an executable /bin/sh script; returns its path."""
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + body)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


def finish(failures, ok_message):
    """Prints each failure (or the message when there is none); returns the exit code."""
    for f in failures:
        print("FAIL:", f, file=sys.stderr)
    if not failures:
        print(ok_message)
    return 1 if failures else 0

"""One verdict line per check, and the exit status, for the integration
scripts that compare idlereplay with an independent expectation
(test_fidelity.py, test_truth.py).  Not an assert: it survives python -O
and reports every failing check, not only the first."""
import sys

failed = []


def check(name, ok, detail):
    print(("ok   " if ok else "FAIL ") + name + ": " + detail)
    if not ok:
        failed.append(name)


def finish():
    print("%d failed" % len(failed))
    sys.exit(1 if failed else 0)

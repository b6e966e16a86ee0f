#!/usr/bin/python3
"""Validates what bgtask wrote and prints against docs/record.schema.json.

Usage: check_records.py [--bgtask BIN] [--schema FILE] DIR...

For each task directory DIR:
  - with --bgtask, runs `BIN --dir DIR list --json` and `status --json --tail 2`
    on every task it lists (as root: as the owner of DIR), and validates both
    outputs (record_array, status_array); a directory bgtask refuses (exit 2)
    is skipped with a note;
  - validates every regular file ID.status.json against the schema's
    `record`, except those `list` reported as unreadable (a test wrote them
    on purpose; their `--json` form was validated instead).
Without --bgtask only the files are validated. In a directory of more than
300 tasks, 300 of them, spread over it, are (the unreadable ones always).

Exit status: 0 all valid (or nothing to check), 1 a violation (each printed
on stderr with the file or command and the path inside the document), 2 a
usage error or python3-jsonschema missing.
"""

import argparse
import atexit
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile

try:
    import jsonschema
except ImportError:
    print("check_records: python3-jsonschema is not installed "
          "(scripts/deps.sh test installs it)", file=sys.stderr)
    sys.exit(2)

SUFFIX = ".status.json"
# At most this many records of one directory are validated (spread over it,
# the unreadable ones always): validation costs milliseconds a record, and a
# test of thousands of tasks proves nothing more with all of them.
SAMPLE = 300
HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_SCHEMA = os.path.join(HERE, "..", "..", "docs", "record.schema.json")


class Checker:
    def __init__(self, schema_path):
        with open(schema_path, encoding="utf-8") as f:
            self.schema = json.load(f)
        jsonschema.Draft202012Validator.check_schema(self.schema)
        self.problems = 0
        self.checked = 0

    def check(self, document, definition, where):
        """Validates `document` against $defs/`definition`; reports each error."""
        validator = jsonschema.Draft202012Validator(
            {"$ref": "#/$defs/" + definition, "$defs": self.schema["$defs"]})
        self.checked += 1
        for error in validator.iter_errors(document):
            self.problems += 1
            for detail in explain(error):
                path = "/".join(str(p) for p in detail.absolute_path) or "(top)"
                print(f"check_records: {where}: {definition} at {path}: {detail.message[:300]}",
                      file=sys.stderr)


def explain(error):
    """The errors worth printing for `error`. "Not valid under any of the given
    schemas" says little: for a oneOf/anyOf, those of the branch that came
    closest (fewest errors), without the "unevaluated properties" echo of a
    failed branch when there is more to say."""
    if error.validator not in ("oneOf", "anyOf") or not error.context:
        return [error]
    branches = {}
    for sub in error.context:
        branches.setdefault(sub.relative_schema_path[0], []).extend(explain(sub))
    closest = min(branches.values(), key=len)
    plain = [e for e in closest if e.validator != "unevaluatedProperties"]
    return plain or closest


SHARED_COPIES = {}


def shared_copy(binary):
    """A copy of `binary` that every user can run, for the directories of
    other users: a build under root's home (mode 700) is out of their reach."""
    if binary not in SHARED_COPIES:
        place = tempfile.mkdtemp(prefix="bgtask-check-records.")
        atexit.register(shutil.rmtree, place, True)
        os.chmod(place, 0o755)
        copy = os.path.join(place, "bgtask")
        shutil.copyfile(binary, copy)
        os.chmod(copy, 0o755)
        SHARED_COPIES[binary] = copy
    return SHARED_COPIES[binary]


def run_bgtask(binary, directory, args):
    """(exit status, parsed stdout or None, stderr) of `bgtask --dir DIR ARGS`."""
    # Without the test's BGTASK_* settings (fault seams, limits), which were
    # meant for the test's own commands.
    # A Slurm controller the test has stopped by now is not waited for long.
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("BGTASK_") or k == "BGTASK_TEST_WORK"}
    env["BGTASK_SLURM_TIMEOUT"] = "3s"
    # As root, a directory of another user is read as that user (bgtask
    # refuses a directory it does not own), whether or not the user still exists.
    owner = {}
    try:
        info = os.stat(directory)
        if os.geteuid() == 0 and info.st_uid != 0:
            owner = {"user": info.st_uid, "group": info.st_gid, "extra_groups": []}
            binary = shared_copy(binary)
    except OSError:
        pass
    try:
        done = subprocess.run([binary, "--dir", directory] + args, capture_output=True,
                              timeout=60, check=False, env=env, cwd="/", **owner)
    except subprocess.TimeoutExpired:
        return None, None, "timed out after 60 s"
    try:
        parsed = json.loads(done.stdout) if done.stdout.strip() else None
    except ValueError as e:
        parsed = ValueError(str(e))
    return done.returncode, parsed, done.stderr.decode(errors="replace")


def sample(entries):
    """At most SAMPLE of `entries` (list --json items), evenly spread, with
    every unreadable one."""
    if len(entries) <= SAMPLE:
        return entries
    step = len(entries) / SAMPLE
    chosen = {int(i * step) for i in range(SAMPLE)} | {len(entries) - 1}
    chosen |= {i for i, e in enumerate(entries)
               if isinstance(e, dict) and e.get("state") == "corrupt"}
    return [entries[i] for i in sorted(chosen)]


def check_with_bgtask(checker, binary, directory):
    """Validates list and status output; returns (IDs list calls unreadable,
    IDs whose files to check or None for all), or None when bgtask refused
    the directory."""
    rc, listed, err = run_bgtask(binary, directory, ["list", "--json"])
    if rc != 0:
        print(f"check_records: note: {directory}: list exited {rc} ({err.strip()[:200]}); "
              "not checked", file=sys.stderr)
        return None
    if not isinstance(listed, list):
        checker.problems += 1
        print(f"check_records: {directory}: list --json printed no JSON array: {listed}",
              file=sys.stderr)
        return set(), None
    chosen = sample(listed)
    checker.check(chosen, "record_array", f"{directory}: list --json" +
                  (f" ({len(chosen)} of {len(listed)} records)" if chosen is not listed else ""))
    ids = [e.get("id") for e in chosen if isinstance(e, dict) and isinstance(e.get("id"), str)]
    unreadable = {e.get("id") for e in listed
                  if isinstance(e, dict) and e.get("state") == "corrupt"}
    if ids:
        # Exit 1 (an unreadable record) and 2 (a task removed meanwhile) still print JSON.
        rc, shown, err = run_bgtask(binary, directory, ["status", "--json", "--tail", "2"] + ids)
        if not isinstance(shown, list):
            checker.problems += 1
            print(f"check_records: {directory}: status --json exited {rc} without a JSON "
                  f"array: {err.strip()[:200]}", file=sys.stderr)
        else:
            checker.check(shown, "status_array", f"{directory}: status --json --tail 2")
    return unreadable, (set(ids) if chosen is not listed else None)


def check_files(checker, directory, skip, only=None):
    try:
        names = sorted(os.listdir(directory))
    except OSError as e:
        print(f"check_records: note: {directory}: {e.strerror}; files not checked",
              file=sys.stderr)
        return
    for name in names:
        task = name[:-len(SUFFIX)]
        if not name.endswith(SUFFIX) or task in skip or (only is not None and task not in only):
            continue
        path = os.path.join(directory, name)
        try:
            info = os.lstat(path)
            if not stat.S_ISREG(info.st_mode):
                continue  # a planted link or FIFO: bgtask's own files are regular
            with open(path, "rb") as f:
                text = f.read()
        except OSError:
            continue  # removed meanwhile, or not ours to read
        try:
            document = json.loads(text)
        except ValueError as e:
            checker.problems += 1
            print(f"check_records: {path}: not JSON: {e}", file=sys.stderr)
            continue
        checker.check(document, "record", path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bgtask", help="the bgtask binary, to validate its --json output too")
    parser.add_argument("--schema", default=DEFAULT_SCHEMA)
    parser.add_argument("dirs", nargs="*")
    options = parser.parse_args()
    checker = Checker(options.schema)
    for directory in options.dirs:
        skip, only = set(), None
        if options.bgtask:
            found = check_with_bgtask(checker, options.bgtask, directory)
            if found is None:
                continue
            skip, only = found
        check_files(checker, directory, skip, only)
    if checker.problems:
        print(f"check_records: {checker.problems} schema violations in {checker.checked} "
              "documents", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Samples how many of a task directory's supervisors watch it, while a queue drains.

Usage: queue_watchers.py DIR STOP_FILE INTERVAL_S

Until STOP_FILE exists (or 600 s have passed), every INTERVAL_S seconds it
looks at the processes of DIR's tasks (command lines `... --dir DIR start
...`: the CLIs and the supervisors they fork) and prints one line:

    WATCHING RUNNABLE LOAD [PID...]

WATCHING: how many hold an inotify watch on DIR itself (a running task's own
instance watches its output file, which does not count); RUNNABLE: how many
without a child (waiting supervisors) are runnable, what the load average
counts; LOAD: the 1-minute load average; the PIDs of the watchers follow when
there is more than one. Reading /proc is no snapshot: a slot that changes
hands during a scan would show its old holder and its new one, so watchers
found are read again right after the scan, and only those still watching
count (a real overlap outlasts that).
"""
import os
import sys
import time


def watches(pid, inode):
    try:
        return any(
            inode in open(f"/proc/{pid}/fdinfo/{fd}").read()
            for fd in os.listdir(f"/proc/{pid}/fdinfo")
        )
    except OSError:
        return False  # it exited meanwhile


def runnable_without_child(pid):
    try:
        if open(f"/proc/{pid}/task/{pid}/children").read().strip():
            return False
        return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] == "R"
    except OSError:
        return False


def main():
    if len(sys.argv) != 4:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    directory, stop_file, interval = sys.argv[1], sys.argv[2], float(sys.argv[3])
    inode = "ino:%x " % os.stat(directory).st_ino
    marker = ("--dir\0" + directory + "\0start").encode()
    deadline = time.time() + 600
    while not os.path.exists(stop_file) and time.time() < deadline:
        watching, runnable = [], 0
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                if marker not in open(f"/proc/{pid}/cmdline", "rb").read():
                    continue
            except OSError:
                continue
            if watches(pid, inode):
                watching.append(pid)
            runnable += runnable_without_child(pid)
        if len(watching) > 1:
            watching = [pid for pid in watching if watches(pid, inode)]
        load = open("/proc/loadavg").read().split()[0]
        pids = " ".join(watching) if len(watching) > 1 else ""
        print(len(watching), runnable, load, pids, flush=True)
        time.sleep(interval)
    return 0


if __name__ == "__main__":
    sys.exit(main())

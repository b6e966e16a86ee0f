#!/usr/bin/env bash
# While a queue drains, at most one of its supervisors watches the task
# directory at any moment: the waiter first in line. A waiter that takes a
# slot removes its watch before it forks the command (which inherits the
# instance until it closes the supervisor's descriptors) and before anyone
# behind it can see it leave the line, so no hand-off shows two.
source "$(dirname "$0")/lib.sh"

tasks=120
bg queue drain --slots 2 >/dev/null
# Samples every few milliseconds, until the tasks are waited for, the
# processes of this directory's tasks that hold an inotify watch on it.
python3 - "$D" "$WORK/drained" >"$WORK/samples" <<'PYTHON' &
import os, sys, time
d, drained = sys.argv[1], sys.argv[2]
ino = "ino:%x " % os.stat(d).st_ino
marker = ("--dir\0" + d + "\0start").encode()


def watches(pid):
    try:
        return any(ino in open(f"/proc/{pid}/fdinfo/{fd}").read() for fd in os.listdir(f"/proc/{pid}/fdinfo"))
    except OSError:
        return False  # it exited meanwhile


most, samples, deadline = 0, 0, time.time() + 120
while not os.path.exists(drained) and time.time() < deadline:
    watching = set()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if marker in open(f"/proc/{pid}/cmdline", "rb").read() and watches(pid):
                watching.add(pid)
        except OSError:
            pass  # it exited meanwhile
    # The scan is no snapshot: a slot that changed hands during it shows the
    # old holder and the new one. Those found are read again: a real overlap
    # outlasts that.
    if len(watching) > 1:
        watching = {pid for pid in watching if watches(pid)}
    most, samples = max(most, len(watching)), samples + 1
    if len(watching) > 1:
        print("at once:", [(p, open(f"/proc/{p}/stat").read().split()[2:4], open(f"/proc/{p}/task/{p}/children").read().strip()) for p in sorted(watching) if os.path.exists(f"/proc/{p}/stat")], flush=True)
    time.sleep(0.002)
print(f"most {most} samples {samples}")
PYTHON
sampler=$!
ids=$(for _ in $(seq "$tasks"); do bg start --queue drain -- sleep 0.05; done)
# shellcheck disable=SC2086
bg wait $ids >/dev/null || fail "the queued tasks did not all succeed"
touch "$WORK/drained"
wait "$sampler" || fail "the sampler failed"
most=$(awk '/^most/ { print $2 }' "$WORK/samples")
samples=$(awk '/^most/ { print $4 }' "$WORK/samples")
[ -n "$most" ] || fail "the sampler printed nothing: $(cat "$WORK/samples")"
[ "$samples" -ge 20 ] || fail "only $samples samples were taken while the queue drained"
# Two slots for tasks of 50 ms: the starts outpace them, so a line forms.
[ "$most" -ge 1 ] || fail "no supervisor was seen waiting first in line: the check saw nothing"
[ "$most" -le 1 ] || fail "$most supervisors of one queue watched the directory at once: $(cat "$WORK/samples")"
echo "ok: at most $most watching supervisor in $samples samples of a $tasks-task drain"

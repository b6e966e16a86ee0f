#!/usr/bin/env bash
# Power cuts on xfs: test_crash_power_cut.sh with its task directories on a
# loop-mounted xfs instead of ext4 (FS_IOC_SHUTDOWN is xfs's own
# XFS_IOC_GOINGDOWN). CI size: one random cut under 8 tasks; full size
# (scripts/soak): as on ext4.
BGTASK_POWER_CUT_FS=xfs
source "$(dirname "$0")/test_crash_power_cut.sh"

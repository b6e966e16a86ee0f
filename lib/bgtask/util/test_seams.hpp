#pragma once

namespace bgtask {

// Test seams: environment variables (all named BGTASK_TEST_*) through which
// tests make bgtask stop at a point or see another boot id. Only a build
// configured with -DBGTASK_TEST_SEAMS=ON (the one scripts/test makes) reads
// them; in any other build, Release included, this file is compiled without
// them: the names are not even in the binary, whatever the environment says.
enum class TestSeam {
  stop_supervisor,         // BGTASK_TEST_STOP_SUPERVISOR: the supervisor stops itself after setsid
  boot_id_file,            // BGTASK_TEST_BOOT_ID_FILE: a file to read the boot id from
  rename_noreplace_einval, // BGTASK_TEST_RENAME_NOREPLACE_EINVAL: renameat2 flags refused
  clock_offset_file,       // BGTASK_TEST_CLOCK_OFFSET_FILE: a file holding a wall-clock offset (ms)
  handoff_kill,            // BGTASK_TEST_HANDOFF_KILL: a supervisor's hand-off SIGKILLs itself at
                           // this point (queue_handoff.hpp)
  group_start_kill,        // BGTASK_TEST_GROUP_START_KILL=POINT@N: a group start SIGKILLs
                           // itself the Nth time it reaches POINT (group_start.hpp)
};

// SIGKILLs this process if BGTASK_TEST_HANDOFF_KILL names `point`; nothing
// in a build without seams.
void kill_at_handoff_seam(const char* point);

// SIGKILLs this process the Nth time it calls this with `point`, if
// BGTASK_TEST_GROUP_START_KILL is `point@N` (`point` alone: N = 1); nothing
// in a build without seams.
void kill_at_group_start_seam(const char* point);

// The value of `seam`, or nullptr (always, in a build without seams).
const char* test_seam(TestSeam seam);

// Removes `seam` from this process's environment (so children do not see it).
void clear_test_seam(TestSeam seam);

// Whether this build reads test seams.
bool test_seams_built();

} // namespace bgtask

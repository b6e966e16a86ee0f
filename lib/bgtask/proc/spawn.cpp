#include <bgtask/proc/spawn.hpp>

#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>

namespace bgtask {

namespace {

// posix_spawn's two attribute objects, destroyed on every path that
// initialised them. Once a step failed (the initialisation included), no
// further step runs: error() names the first failure.
class SpawnSetup
{
public:
  SpawnSetup()
  {
    m_error = ::posix_spawn_file_actions_init(&m_actions);
    m_actions_ready = m_error == 0;
    if (m_actions_ready) {
      m_error = ::posix_spawnattr_init(&m_attributes);
      m_attributes_ready = m_error == 0;
    }
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;
  ~SpawnSetup()
  {
    if (m_attributes_ready) {
      ::posix_spawnattr_destroy(&m_attributes);
    }
    if (m_actions_ready) {
      ::posix_spawn_file_actions_destroy(&m_actions);
    }
  }

  // Runs `call` (a posix_spawn_* setter returning 0 or an errno) unless a
  // step failed before; records the first failure.
  template <typename Call> void step(Call&& call)
  {
    if (m_error == 0) {
      m_error = call();
    }
  }
  void stream(int fd, int target, int null_flags)
  {
    step([&] {
      return fd < 0
               ? ::posix_spawn_file_actions_addopen(&m_actions, target, "/dev/null", null_flags, 0)
               : ::posix_spawn_file_actions_adddup2(&m_actions, fd, target);
    });
  }

  int error() const { return m_error; }
  posix_spawn_file_actions_t* actions() { return &m_actions; }
  posix_spawnattr_t* attributes() { return &m_attributes; }

private:
  posix_spawn_file_actions_t m_actions{};
  posix_spawnattr_t m_attributes{};
  bool m_actions_ready = false;
  bool m_attributes_ready = false;
  int m_error = 0;
};

} // namespace

Spawned spawn_program(const SpawnRequest& request)
{
  if (request.argv.empty()) {
    return Spawned{-1, EINVAL};
  }
  const ExecStrings argv(request.argv);
  const ExecStrings envp(request.env);
  SpawnSetup setup;
  setup.stream(request.stdin_fd, 0, O_RDONLY);
  setup.stream(request.stdout_fd, 1, O_WRONLY);
  setup.stream(request.stderr_fd, 2, O_WRONLY);
  setup.step([&] { return ::posix_spawn_file_actions_addclosefrom_np(setup.actions(), 3); });
  if (request.cwd) {
    setup.step([&] {
      return ::posix_spawn_file_actions_addchdir_np(setup.actions(), request.cwd->c_str());
    });
  }
  sigset_t all;
  sigset_t none;
  sigfillset(&all);
  sigemptyset(&none);
  setup.step([&] { return ::posix_spawnattr_setsigdefault(setup.attributes(), &all); });
  setup.step([&] { return ::posix_spawnattr_setsigmask(setup.attributes(), &none); });
  short flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK;
  if (request.group == ProcessGroup::own) {
    flags |= POSIX_SPAWN_SETPGROUP;
    setup.step([&] { return ::posix_spawnattr_setpgroup(setup.attributes(), 0); });
  }
  setup.step([&] { return ::posix_spawnattr_setflags(setup.attributes(), flags); });
  if (setup.error() != 0) {
    return Spawned{-1, setup.error()};
  }
  const mode_t own_umask = request.umask ? ::umask(*request.umask) : 0;
  pid_t pid = -1;
  const int error = ::posix_spawnp(&pid, argv.get()[0], setup.actions(), setup.attributes(),
                                   argv.get(), envp.get());
  if (request.umask) {
    ::umask(own_umask);
  }
  return error == 0 ? Spawned{pid, 0} : Spawned{-1, error};
}

} // namespace bgtask

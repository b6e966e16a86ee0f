#include <bgtask/exec/slurm/slurm_job_wrapper.hpp>
#include <bgtask/util/shell_quote.hpp>

#include <string_view>

namespace bgtask {

namespace {

// The wrapper, for `perl -e` (core modules only: POSIX, IO::Handle). The
// signals are blocked around fork, so none is lost or handled in the child
// before exec; the child restores the default actions and the mask. The
// job id is the one the record holds (`ARRAYJOB_INDEX` for an array
// element). Failing to write the file changes nothing but that.
constexpr std::string_view k_wrapper = R"PERL(use strict; use POSIX ();
my @names = grep { ($SIG{$_} // '') ne 'IGNORE' } qw(HUP INT QUIT TERM USR1 USR2 ALRM);
my (%got, $child);
my $mask = POSIX::SigSet->new(map { POSIX->can("SIG$_")->() } @names);
my $old = POSIX::SigSet->new;
POSIX::sigprocmask(POSIX::SIG_BLOCK(), $mask, $old);
for my $n (@names) { $SIG{$n} = sub { $got{$n} = 1; kill($n, $child) if $child } }
my $t0 = time;
$child = fork;
if (!$child) {
  $SIG{$_} = 'DEFAULT' for @names;
  POSIX::sigprocmask(POSIX::SIG_SETMASK(), $old);
  { exec { $ARGV[0] } @ARGV; }
  print STDERR "$ARGV[0]: $!\n";
  POSIX::_exit($!{ENOENT} ? 127 : 126);
}
POSIX::sigprocmask(POSIX::SIG_SETMASK(), $old);
my $status;
while (1) {
  my $r = waitpid($child, 0);
  if ($r == $child) { $status = $?; last }
  last if $r == -1 && !$!{EINTR};
}
my $t1 = time;
exit 127 unless defined $status;
my $sig = $status & 127;
sub stamp { POSIX::strftime('%Y-%m-%dT%H:%M:%S.000Z', gmtime shift) }
sub js { my $v = shift; return 'null' unless defined $v; $v =~ s/([\\"])/\\$1/g;
  $v =~ s/([\x00-\x1f])/sprintf('\\u%04x', ord $1)/ge; "\"$v\"" }
my ($id, $dir) = ($ENV{BGTASK_ID} // '', $ENV{BGTASK_DIR} // '');
my $job = defined $ENV{SLURM_ARRAY_TASK_ID} ? "$ENV{SLURM_ARRAY_JOB_ID}_$ENV{SLURM_ARRAY_TASK_ID}"
  : $ENV{SLURM_JOB_ID};
if ($id =~ /^[0-9a-z]+$/ && $dir ne '') {
  my $text = '{"schema":1,"task":' . js($id) . ',"job_id":' . js($job) . ',"job_name":'
    . js($ENV{SLURM_JOB_NAME}) . ',"exit_code":' . ($sig ? 'null' : $status >> 8)
    . ',"signal":' . ($sig ? $sig : 'null') . ',"signals_received":['
    . join(',', map { js("SIG$_") } sort keys %got) . '],"started_at":' . js(stamp($t0))
    . ',"finished_at":' . js(stamp($t1)) . ',"node":' . js($ENV{SLURMD_NODENAME}) . "}\n";
  my $tmp = sprintf('%s/.%s.outcome.json.%08x%08x.tmp', $dir, $id, rand(2**32), rand(2**32));
  if (sysopen(my $fh, $tmp, POSIX::O_WRONLY() | POSIX::O_CREAT() | POSIX::O_EXCL(), 0600)) {
    my $ok = syswrite($fh, $text) == length($text) && $fh->sync;
    $ok = close($fh) && $ok;
    unlink $tmp unless $ok && rename($tmp, "$dir/$id.outcome.json");
  }
}
exit($status >> 8) unless $sig;
$SIG{$_} = 'DEFAULT' for @names;
exec '/bin/sh', '-c', 'ulimit -c 0; kill -s "$1" $$', 'sh', $sig;
exit(128 + $sig);
)PERL";

} // namespace

std::string slurm_run_command_lines(const std::vector<std::string>& argv)
{
  std::string command;
  for (const auto& word : argv) {
    command += ' ' + shell_quote(word);
  }
  std::string lines = "if command -v perl >/dev/null 2>&1; then\n";
  lines += "  exec perl -e " + shell_quote(k_wrapper) + " --" + command + "\n";
  lines += "fi\n";
  lines += "exec" + command + "\n";
  return lines;
}

} // namespace bgtask

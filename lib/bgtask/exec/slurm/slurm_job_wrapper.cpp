#include <bgtask/exec/slurm/slurm_job_wrapper.hpp>
#include <bgtask/util/shell_quote.hpp>

#include <string_view>

namespace bgtask {

namespace {

// The wrapper, for `perl -e` (core modules only: POSIX, IO::Handle; the
// times are to the millisecond where Time::HiRes is installed, else to the
// second, as perl-base alone has them). The
// relayed signals and SIGCHLD stay blocked in it but inside sigsuspend, so
// none is lost between a check and the wait; the child restores the
// default actions and the mask before exec. The sentinel is a second
// process that keeps the relayed signals blocked and does nothing else: a
// signal Slurm sends to every process of the job stays pending in it, one
// sent to the batch shell alone never reaches it. A signal the wrapper gets
// is passed on only if it is not pending in the sentinel within about 1 s;
// one that is pending is taken from the sentinel (its ack) and not passed
// on, since the command had it from Slurm. The job id is the one the record
// holds (`ARRAYJOB_INDEX` for an array element). A run Slurm restarted
// (a requeued job: SLURM_RESTART_COUNT above 0) first removes the file of
// the run before, and every file says which run wrote it. Failing to write
// the file changes nothing but that.
constexpr std::string_view k_wrapper = R"PERL(use strict; use POSIX ();
my @names = grep { ($SIG{$_} // '') ne 'IGNORE' } qw(HUP INT QUIT TERM USR1 USR2 ALRM);
my %num = map { $_ => POSIX->can("SIG$_")->() } @names;
my $hires = eval { require Time::HiRes; 1 };
sub clock { $hires ? Time::HiRes::time() : time }
my (%got, @queue, $child, $sentinel, $ask, $ack);
my ($id, $dir) = ($ENV{BGTASK_ID} // '', $ENV{BGTASK_DIR} // '');
my $restart = ($ENV{SLURM_RESTART_COUNT} // '') =~ /^([0-9]{1,9})$/ ? $1 : 0;
my $ours = $id =~ /^[0-9a-z]+$/ && $dir ne '';
unlink "$dir/$id.outcome.json" if $ours && $restart > 0;
my $old = POSIX::SigSet->new;
POSIX::sigprocmask(POSIX::SIG_BLOCK(), POSIX::SigSet->new(values(%num), POSIX::SIGCHLD()), $old);
my $wait = POSIX::SigSet->new(grep { $old->ismember($_) } 1 .. 64);
$wait->delset(POSIX::SIGCHLD());
if (pipe(my $ask_r, $ask) && pipe($ack, my $ack_w)) {
  $sentinel = fork;
  if (defined $sentinel && !$sentinel) {
    close $ask; close $ack;
    $SIG{$_} = sub {} for @names;
    while (sysread($ask_r, my $n, 1)) {
      my $one = POSIX::SigSet->new(ord $n);
      POSIX::sigprocmask(POSIX::SIG_UNBLOCK(), $one);
      POSIX::sigprocmask(POSIX::SIG_BLOCK(), $one);
      syswrite($ack_w, $n);
    }
    POSIX::_exit(0);
  }
  close $ask_r; close $ack_w;
}
sub pending_in_sentinel {
  my $bit = shift;
  open(my $f, '<', "/proc/$sentinel/status") or return 0;
  while (my $line = <$f>) {
    return (hex(substr($1, -8)) >> ($bit - 1)) & 1 if $line =~ /^ShdPnd:\s*([0-9a-f]+)/;
  }
  return 0;
}
sub relay {
  my $n = $num{shift()};
  for (1 .. ($sentinel ? 100 : 0)) {
    if (pending_in_sentinel($n)) {
      $sentinel = undef unless syswrite($ask, chr $n) && sysread($ack, my $x, 1);
      return;
    }
    select(undef, undef, undef, 0.01);
  }
  kill($n, $child) if $child;
}
for my $n (@names) { $SIG{$n} = sub { $got{$n} = 1; push @queue, $n } }
my $chld = $SIG{CHLD} // '';
$SIG{CHLD} = sub {};
my $t0 = clock();
$child = fork;
if (!$child) {
  $SIG{$_} = 'DEFAULT' for @names;
  $SIG{CHLD} = $chld eq 'IGNORE' ? 'IGNORE' : 'DEFAULT';
  POSIX::sigprocmask(POSIX::SIG_SETMASK(), $old);
  { exec { $ARGV[0] } @ARGV; }
  print STDERR "$ARGV[0]: $!\n";
  POSIX::_exit($!{ENOENT} ? 127 : 126);
}
my $status;
while (1) {
  relay(shift @queue) while @queue;
  my $r = waitpid($child, POSIX::WNOHANG());
  if ($r == $child) { $status = $?; last }
  last if $r == -1;
  POSIX::sigsuspend($wait);
}
my $t1 = clock();
exit 127 unless defined $status;
my $sig = $status & 127;
sub stamp { my $s = int $_[0];
  POSIX::strftime('%Y-%m-%dT%H:%M:%S', gmtime $s) . sprintf('.%03dZ', ($_[0] - $s) * 1000) }
sub js { my $v = shift; return 'null' unless defined $v; $v =~ s/([\\"])/\\$1/g;
  $v =~ s/([\x00-\x1f])/sprintf('\\u%04x', ord $1)/ge; "\"$v\"" }
my $job = defined $ENV{SLURM_ARRAY_TASK_ID} ? "$ENV{SLURM_ARRAY_JOB_ID}_$ENV{SLURM_ARRAY_TASK_ID}"
  : $ENV{SLURM_JOB_ID};
if ($ours) {
  my $text = '{"schema":1,"task":' . js($id) . ',"job_id":' . js($job) . ',"job_name":'
    . js($ENV{SLURM_JOB_NAME}) . ',"restart_count":' . $restart . ',"exit_code":' . ($sig ? 'null' : $status >> 8)
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
POSIX::sigprocmask(POSIX::SIG_SETMASK(), $old);
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

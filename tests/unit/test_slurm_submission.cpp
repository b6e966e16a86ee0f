#include <bgtask/exec/slurm/slurm_submission.hpp>
#include <bgtask/proc/client_process.hpp>
#include <bgtask/util/error.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <unistd.h>

using bgtask::LaunchRequest;

namespace {

LaunchRequest request_for(std::vector<std::string> argv)
{
  LaunchRequest request;
  request.record.id = "01hx2k3m4n5p";
  request.record.command = argv;
  request.record.cwd = "/";
  request.argv = std::move(argv);
  return request;
}

// Runs a batch script the way a job would (with /bin/sh), capturing stdout.
bgtask::ClientResult run_script(const std::string& script)
{
  bgtask::ClientCall call;
  call.argv = {"/bin/sh", "-s"};
  call.input = script;
  call.timeout = std::chrono::seconds(20);
  return bgtask::run_client(call);
}

std::size_t position(const std::vector<std::string>& args, const std::string& arg)
{
  return static_cast<std::size_t>(std::find(args.begin(), args.end(), arg) - args.begin());
}

} // namespace

TEST(SlurmBatchScript, RunsTheExactArgvWithTheTaskEnvironment)
{
  const std::vector<std::string> argv{"printf", "%s|", "it's", "two words",
                                      "$HOME",  "`x`", "\\n",  ""};
  auto request = request_for(argv);
  request.record.cwd = std::filesystem::temp_directory_path().string();
  const auto script = bgtask::slurm_batch_script(request, "/tasks/dir", 022);
  EXPECT_TRUE(script.starts_with("#!/bin/sh\n"));
  const auto result = run_script(script);
  ASSERT_EQ(result.end, bgtask::ClientEnd::exited);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "it's|two words|$HOME|`x`|\\n||");

  const auto env = run_script(bgtask::slurm_batch_script(
    request_for({"/bin/sh", "-c", "echo \"$BGTASK_ID $BGTASK_DIR $(pwd) $(umask)\""}), "/tasks/dir",
    027));
  EXPECT_EQ(env.out, "01hx2k3m4n5p /tasks/dir / 0027\n");
}

TEST(SlurmBatchScript, PassesTheCommandsExitStatusOn)
{
  EXPECT_EQ(
    run_script(bgtask::slurm_batch_script(request_for({"/bin/sh", "-c", "exit 3"}), "/d", 022))
      .exit_code,
    3);
  EXPECT_EQ(
    run_script(bgtask::slurm_batch_script(request_for({"no-such-command-bgtask"}), "/d", 022))
      .exit_code,
    127);
  auto missing_dir = request_for({"true"});
  missing_dir.record.cwd = "/no/such/dir/bgtask";
  EXPECT_EQ(run_script(bgtask::slurm_batch_script(missing_dir, "/d", 022)).exit_code, 127);
}

TEST(SlurmBatchScript, RefusesACommandNameStartingWithADash)
{
  EXPECT_THROW(bgtask::slurm_batch_script(request_for({"-x"}), "/d", 022), bgtask::Error);
}

TEST(SbatchArguments, PutsUserArgumentsLast)
{
  auto request = request_for({"true"});
  request.record.options.partition = "debug";
  bgtask::SbatchJob job;
  job.after_jobs = {"12"};
  // `--comment` without its value: sbatch must not take a word of bgtask's as it.
  request.record.options.slurm_args = {"--partition=other", "--mem=1G", "--comment"};
  request.timeout = std::chrono::seconds(90);
  const auto args = bgtask::sbatch_arguments(request, "/tasks/%dir/01hx2k3m4n5p.output", job);
  EXPECT_EQ(args.front(), "sbatch");
  EXPECT_LT(position(args, "--time=2"), args.size());
  EXPECT_LT(position(args, "--partition=debug"), position(args, "--partition=other"));
  EXPECT_LT(position(args, "--job-name=bgtask-01hx2k3m4n5p"), position(args, "--mem=1G"));
  EXPECT_LT(position(args, "--open-mode=append"), position(args, "--mem=1G"));
  EXPECT_LT(position(args, "--dependency=afterok:12"), position(args, "--mem=1G"));
  EXPECT_EQ(args.back(), "--comment");
  EXPECT_LT(position(args, "--parsable"), args.size());
  EXPECT_LT(position(args, "--output=/tasks/%%dir/01hx2k3m4n5p.output"), args.size());
  EXPECT_LT(position(args, "--error=/tasks/%%dir/01hx2k3m4n5p.output"), args.size());
  EXPECT_LT(position(args, "--open-mode=append"), args.size());
  EXPECT_LT(position(args, "--chdir=/"), args.size());

  request.record.options.slurm_time = "1-00:00:00";
  const auto explicit_time = bgtask::sbatch_arguments(request, "/o");
  EXPECT_LT(position(explicit_time, "--time=1-00:00:00"), explicit_time.size());
  EXPECT_EQ(position(explicit_time, "--time=2"), explicit_time.size());
}

TEST(SbatchArguments, RefusesArgumentsThatTakeTheJobOutOfBgtasksHands)
{
  const bgtask::SlurmArgContext plain;
  for (const auto* arg : {"--output=x", "-o", "-ox", "--out=x", "--error=x", "-e",
                          "--open-mode=truncate", "--job-name=x", "-J", "--parsable", "--array=1-3",
                          "-a", "--wait", "-W", "--wrap=true", "--clusters=c", "-M"}) {
    EXPECT_THROW(bgtask::check_slurm_args({arg}, plain), bgtask::Error) << arg;
  }
  EXPECT_NO_THROW(bgtask::check_slurm_args({"--mem=1G", "--cpus-per-task=2", "-c", "--exclusive",
                                            "--partition=x", "--qos=high", "-N1", "--gres=gpu:1"},
                                           plain));
}

TEST(SbatchArguments, RefusesEveryPrefixSbatchWouldAccept)
{
  // sbatch's getopt_long takes any unambiguous prefix of a long option.
  const bgtask::SlurmArgContext plain;
  for (const auto* arg : {"--ar=1-3", "--arr=1-3", "--wr=true", "--ou=x", "--er=x", "--ope=t",
                          "--jo=x", "--pars", "--wai", "--cl=c", "--cluster=c", "--o=x"}) {
    EXPECT_THROW(bgtask::check_slurm_args({arg}, plain), bgtask::Error) << arg;
  }
  // Short options after flags that take no value, in one word.
  for (const auto* arg : {"-Ho/tmp/x", "-vWx", "-Qa1-3", "-sJname"}) {
    EXPECT_THROW(bgtask::check_slurm_args({arg}, plain), bgtask::Error) << arg;
  }
  // A letter inside an option's value is the value.
  EXPECT_NO_THROW(bgtask::check_slurm_args(
    {"-pdebug_o", "-Aproject-a", "--wait-all-nodes=1", "--exclude=n1", "--", "--time=1"}, plain));
}

TEST(SbatchArguments, NamesOptionByPrefixAndShortLetter)
{
  EXPECT_TRUE(bgtask::names_option("--dep=afterok:1", "dependency", 'd'));
  EXPECT_TRUE(bgtask::names_option("-dafterok:1", "dependency", 'd'));
  EXPECT_TRUE(bgtask::names_option("-Hd", "dependency", 'd'));
  EXPECT_FALSE(bgtask::names_option("--dependencyx", "dependency", 'd'));
  EXPECT_FALSE(bgtask::names_option("-pd", "dependency", 'd'));
  EXPECT_FALSE(bgtask::names_option("d", "dependency", 'd'));
}

TEST(SbatchArguments, KeepsDependenciesInBgtasksHandsWithAfter)
{
  const bgtask::SlurmArgContext after{true, false, false};
  EXPECT_THROW(bgtask::check_slurm_args({"--dependency=afterany:3"}, after), bgtask::Error);
  EXPECT_THROW(bgtask::check_slurm_args({"-d", "afterany:3"}, after), bgtask::Error);
  EXPECT_THROW(bgtask::check_slurm_args({"--kill-on=no"}, after), bgtask::Error);
  EXPECT_NO_THROW(bgtask::check_slurm_args({"--dependency=afterany:3"}, {}));

  auto request = request_for({"true"});
  bgtask::SbatchJob job;
  job.after_jobs = {"12", "15"};
  const auto args = bgtask::sbatch_arguments(request, "/o", job);
  EXPECT_LT(position(args, "--dependency=afterok:12:15"), args.size());
  EXPECT_LT(position(args, "--kill-on-invalid-dep=yes"), args.size());
  EXPECT_EQ(
    position(bgtask::sbatch_arguments(request_for({"true"}), "/o"), "--kill-on-invalid-dep=yes"),
    bgtask::sbatch_arguments(request_for({"true"}), "/o").size());
}

TEST(SbatchArguments, LetsEnvValuesThroughARestrictedExport)
{
  const bgtask::SlurmArgContext env{false, true, false};
  for (const auto* arg : {"--export=NONE", "--export=none", "--export=NIL", "--export=NONE,X=1"}) {
    EXPECT_THROW(bgtask::check_slurm_args({arg}, env), bgtask::Error) << arg;
    EXPECT_NO_THROW(bgtask::check_slurm_args({arg}, {})) << arg;
  }
  EXPECT_NO_THROW(bgtask::check_slurm_args({"--export=HOME", "--export=ALL,X=1"}, env));

  auto request = request_for({"true"});
  request.record.env_names = {"TOKEN", "MODE"};
  request.record.options.slurm_args = {"--export=HOME,PATH"};
  const auto args = bgtask::sbatch_arguments(request, "/o");
  EXPECT_LT(position(args, "--export=HOME,PATH,TOKEN,MODE"), args.size());
  EXPECT_EQ(position(args, "--export=HOME,PATH"), args.size());
  request.record.options.slurm_args = {"--export=ALL,X=1"};
  EXPECT_LT(position(bgtask::sbatch_arguments(request, "/o"), "--export=ALL,X=1"), args.size());
}

TEST(SbatchArguments, ReadsExportAsTwoWordsAndByPrefix)
{
  const bgtask::SlurmArgContext env{false, true, false};
  // sbatch takes `--export NONE` as --export=NONE.
  EXPECT_THROW(bgtask::check_slurm_args({"--export", "NONE"}, env), bgtask::Error);
  EXPECT_THROW(bgtask::check_slurm_args({"--mem=1G", "--export", "nil,X=1"}, env), bgtask::Error);
  EXPECT_NO_THROW(bgtask::check_slurm_args({"--export", "HOME"}, env));
  EXPECT_NO_THROW(bgtask::check_slurm_args({"--export", "NONE"}, {}));
  // A prefix would get no names added: refused with --env, whatever its value.
  for (const auto* arg : {"--exp=NONE", "--expo=HOME", "--expor=ALL"}) {
    EXPECT_THROW(bgtask::check_slurm_args({arg}, env), bgtask::Error) << arg;
    EXPECT_NO_THROW(bgtask::check_slurm_args({arg}, {})) << arg;
  }
  EXPECT_THROW(bgtask::check_slurm_args({"--exp", "HOME"}, env), bgtask::Error);
  EXPECT_NO_THROW(bgtask::check_slurm_args({"--export-file=/f", "--exclusive"}, env));

  auto request = request_for({"true"});
  request.record.env_names = {"TOKEN"};
  request.record.options.slurm_args = {"--export", "HOME", "--mem=1G"};
  const auto args = bgtask::sbatch_arguments(request, "/o");
  EXPECT_LT(position(args, "--export=HOME,TOKEN"), args.size());
  EXPECT_EQ(position(args, "HOME"), args.size());
  EXPECT_EQ(position(args, "--export"), args.size());
  EXPECT_LT(position(args, "--mem=1G"), args.size());
}

TEST(SlurmFilePattern, EscapesPercentSigns)
{
  EXPECT_EQ(bgtask::slurm_file_pattern("/a/b.output"), "/a/b.output");
  EXPECT_EQ(bgtask::slurm_file_pattern("/a%j/b"), "/a%%j/b");
  EXPECT_EQ(bgtask::slurm_file_pattern("/a\\b%j"), "/a\\b%j");
}

TEST(SlurmTimeLimit, RoundsUpToWholeMinutes)
{
  EXPECT_EQ(bgtask::slurm_time_limit(std::chrono::milliseconds(1)), "1");
  EXPECT_EQ(bgtask::slurm_time_limit(std::chrono::seconds(60)), "1");
  EXPECT_EQ(bgtask::slurm_time_limit(std::chrono::seconds(61)), "2");
  EXPECT_EQ(bgtask::slurm_time_limit(std::chrono::hours(2)), "120");
}

TEST(SlurmJobName, PutsTheTaskNameBeforeTheIdWithinSlurmsRules)
{
  EXPECT_EQ(bgtask::slurm_job_name("01hx2k3m4n5p", std::nullopt), "bgtask-01hx2k3m4n5p");
  EXPECT_EQ(bgtask::slurm_job_name("01hx2k3m4n5p", std::string("train.v2")),
            "train.v2-bgtask-01hx2k3m4n5p");
  // Spaces, commas, `|`, newlines and non-ASCII bytes would split or break
  // the clients' answers.
  EXPECT_EQ(bgtask::slurm_job_name("01hx2k3m4n5p", std::string("a b,c|d\ne\xc3\xa9")),
            "a_b_c_d_e__-bgtask-01hx2k3m4n5p");
  EXPECT_EQ(bgtask::slurm_job_name("01hx2k3m4n5p", std::string(300, 'x')),
            std::string(bgtask::k_max_name_part, 'x') + "-bgtask-01hx2k3m4n5p");
  EXPECT_EQ(bgtask::slurm_array_job_name("01hx2k3m4n5p", std::string("sweep")),
            "sweep-bgtask-array-01hx2k3m4n5p");

  auto request = request_for({"true"});
  request.record.name = "train";
  EXPECT_LT(
    position(bgtask::sbatch_arguments(request, "/o"), "--job-name=train-bgtask-01hx2k3m4n5p"),
    bgtask::sbatch_arguments(request, "/o").size());
  // A record of an earlier version has no job name: its job is bgtask-ID.
  bgtask::TaskRecord old;
  old.id = "01hx2k3m4n5p";
  old.name = "train";
  old.slurm = bgtask::SlurmJobRef{};
  old.slurm->job_id = "12";
  EXPECT_EQ(bgtask::recorded_job_name(old), "bgtask-01hx2k3m4n5p");
  old.slurm->job_name = "train-bgtask-01hx2k3m4n5p";
  EXPECT_EQ(bgtask::recorded_job_name(old), "train-bgtask-01hx2k3m4n5p");
}

TEST(SbatchArguments, MapsMemoryMaxToMemAndRefusesAnotherMemoryOption)
{
  auto request = request_for({"true"});
  request.record.options.limits.memory_max = 512ULL * 1024 * 1024;
  const auto args = bgtask::sbatch_arguments(request, "/o");
  EXPECT_LT(position(args, "--mem=512M"), args.size());
  request.record.options.limits.memory_max = 512ULL * 1024 * 1024 + 1;
  EXPECT_LT(position(bgtask::sbatch_arguments(request, "/o"), "--mem=513M"), args.size());
  const bgtask::SlurmArgContext memory{false, false, true};
  for (const auto* arg : {"--mem=1G", "--mem-per-cpu=1G", "--mem-per-g=1G", "--me=1G"}) {
    EXPECT_THROW(bgtask::check_slurm_args({arg}, memory), bgtask::Error) << arg;
    EXPECT_NO_THROW(bgtask::check_slurm_args({arg}, {})) << arg;
  }
  EXPECT_NO_THROW(bgtask::check_slurm_args({"--mem-bind=local"}, memory));
}

TEST(SlurmArrayScript, RunsEachElementAsItsOwnTask)
{
  const auto dir =
    std::filesystem::temp_directory_path() / ("bgtask-array-script-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::vector<bgtask::SlurmArrayElement> elements{
    {3, "aaaaaaaaaaa3", (dir / "a3.output").string()},
    {7, "aaaaaaaaaaa7", (dir / "a7 'x'.output").string()}};
  const auto request =
    request_for({"/bin/sh", "-c", "echo \"$BGTASK_ID $BGTASK_ARRAY_INDEX $BGTASK_DIR\"; exit 4"});
  const auto script = bgtask::slurm_array_script(request, elements, "/tasks", 022);
  for (const auto& element : elements) {
    bgtask::ClientCall call;
    call.argv = {"/bin/sh", "-s"};
    call.input = script;
    call.env_additions = {"SLURM_ARRAY_TASK_ID=" + std::to_string(element.index)};
    call.timeout = std::chrono::seconds(20);
    const auto result = bgtask::run_client(call);
    EXPECT_EQ(result.exit_code, 4) << result.err;
    EXPECT_EQ(result.out, ""); // all of it went to the task's own output file
    std::ifstream in(element.output_path);
    std::string line;
    std::getline(in, line);
    EXPECT_EQ(line, element.task_id + " " + std::to_string(element.index) + " /tasks");
  }
  bgtask::ClientCall stray;
  stray.argv = {"/bin/sh", "-s"};
  stray.input = script;
  stray.env_additions = {"SLURM_ARRAY_TASK_ID=5"};
  stray.timeout = std::chrono::seconds(20);
  EXPECT_EQ(bgtask::run_client(stray).exit_code, 127);
  std::filesystem::remove_all(dir);
}

// Model-based test of a task's life: random sequences of start, a command's
// end (exit 0, exit 3, SIGKILL), cancel, pause, resume, retry (`--retry 1`),
// cleanup and reconciliation after a SIGKILLed supervisor, run against the
// real binary (RapidCheck's state machine testing), with `list --json`
// compared to a small model of the state machine after every step.
//
// Cases and their length: BGTASK_MODEL_CASES (default 8) and
// BGTASK_MODEL_STEPS (default 12); RC_PARAMS (e.g. "seed=N") reproduces a run.
// RC_ASSERT and RC_PRE take their condition apart and evaluate both sides of
// && and ||: a condition that must short-circuit is put in parentheses.

#include "e2e/e2e_support.hpp"
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <rapidcheck.h>
#include <rapidcheck/state.h>

namespace json = boost::json;
namespace fs = std::filesystem;
using e2e::Result;
using namespace std::chrono_literals;

namespace {

// What the model knows of one task.
struct ModelTask
{
  std::string state = "running"; // running, succeeded, failed, cancelled, lost
  bool paused = false;
  bool unsupervised = false;
  int attempt = 1; // the attempt that runs, or ran last
  int retries_left = 0;
  bool removed = false;
  std::optional<int> exit_code;
  std::optional<int> signal;

  bool running() const { return state == "running"; }
};

struct Model
{
  std::vector<ModelTask> tasks; // in start order; removed ones stay, marked
};

// How a command ends when told to.
enum class Ending { exit_0, exit_3, sigkill };

// The system under test: a fresh task directory (E2eTest's) and the IDs
// `start` printed, in the model's order.
class Sut : public e2e::E2eTest
{
public:
  Sut() { SetUp(); }
  ~Sut() override { TearDown(); }
  Sut(const Sut&) = delete;
  Sut& operator=(const Sut&) = delete;
  void TestBody() override {}

  std::vector<std::string> ids;

  using E2eTest::bg;
  using E2eTest::record;
  using E2eTest::wait_until_released;
  using E2eTest::work;

  // The command of every task: waits for its go file (one per task and
  // attempt), then exits with the code written in it.
  std::string script() const
  {
    const std::string go = work().string() + "/go.$BGTASK_ID.$BGTASK_ATTEMPT";
    return "while [ ! -e \"" + go + "\" ]; do sleep 0.02; done; exit $(cat \"" + go + "\")";
  }

  // Tells attempt `attempt` of task `id` to exit with `code`.
  void release(const std::string& id, int attempt, int code) const
  {
    const fs::path go = work() / ("go." + id + "." + std::to_string(attempt));
    const fs::path temp = work() / ".go.tmp";
    std::ofstream(temp) << code << '\n';
    fs::rename(temp, go);
  }
};

using SutCommand = rc::state::Command<Model, Sut>;

int number(const json::value& value)
{
  return static_cast<int>(value.to_number<std::int64_t>());
}

std::optional<int> optional_number(const json::object& record, const char* key)
{
  const auto* value = record.if_contains(key);
  if (value == nullptr || value->is_null()) {
    return std::nullopt;
  }
  return number(*value);
}

// The record of `id` as `status --json` shows it (reconciled).
json::object current_record(Sut& sut, const std::string& id)
{
  const Result status = sut.bg({"status", "--json", id});
  RC_ASSERT(status.exit_code == 0);
  const auto value = e2e::parse_json(status.out);
  RC_ASSERT((value.is_array() && value.get_array().size() == 1u));
  return value.get_array()[0].as_object();
}

// `list --json` against the model: the same tasks, each in the model's
// state, pause, supervision, attempts and exit status.
void check_list(const Model& model, Sut& sut)
{
  const Result list = sut.bg({"list", "--json"});
  RC_ASSERT(list.exit_code == 0);
  const auto value = e2e::parse_json(list.out);
  RC_ASSERT(value.is_array());
  std::map<std::string, json::object> listed;
  for (const auto& item : value.get_array()) {
    listed.emplace(std::string(item.at("id").as_string()), item.as_object());
  }
  std::size_t present = 0;
  for (std::size_t i = 0; i < model.tasks.size(); ++i) {
    const ModelTask& task = model.tasks[i];
    const auto found = listed.find(sut.ids.at(i));
    if (task.removed) {
      RC_ASSERT(found == listed.end());
      continue;
    }
    ++present;
    RC_ASSERT(found != listed.end());
    const json::object& record = found->second;
    RC_ASSERT(std::string(record.at("state").as_string()) == task.state);
    RC_ASSERT(record.at("paused").as_bool() == task.paused);
    RC_ASSERT(record.at("unsupervised").as_bool() == task.unsupervised);
    if (task.state == "failed") {
      RC_ASSERT(optional_number(record, "exit_code") == task.exit_code);
      RC_ASSERT(optional_number(record, "signal") == task.signal);
    }
    if (task.attempt > 1 || task.retries_left > 0) {
      const auto finished = static_cast<int>(record.at("attempts").as_array().size());
      RC_ASSERT(finished == (task.running() ? task.attempt - 1 : task.attempt));
    }
  }
  RC_ASSERT(listed.size() == present);
}

// A task of the model, chosen at random (discarded when there is none).
std::size_t pick_task(const Model& model)
{
  RC_PRE(!model.tasks.empty());
  return *rc::gen::inRange<std::size_t>(0, model.tasks.size());
}

// Waits until the supervisor of `id` has exited, so that `cleanup` finds it
// released.
void wait_released(Sut& sut, const std::string& id)
{
  RC_ASSERT(sut.wait_until_released(id));
}

struct Start : SutCommand
{
  int retries = *rc::gen::inRange(0, 2);

  void checkPreconditions(const Model& model) const override
  {
    RC_PRE(model.tasks.size() < 6u); // bounded load on a small machine
  }
  void apply(Model& model) const override
  {
    ModelTask task;
    task.retries_left = retries;
    model.tasks.push_back(task);
  }
  void run(const Model& model, Sut& sut) const override
  {
    std::vector<std::string> args = {"start"};
    if (retries > 0) {
      args.insert(args.end(), {"--retry", std::to_string(retries)});
    }
    args.insert(args.end(), {"--", "sh", "-c", sut.script()});
    const Result started = sut.bg(args);
    RC_ASSERT(started.exit_code == 0);
    sut.ids.push_back(started.line());
    check_list(nextState(model), sut);
  }
  void show(std::ostream& os) const override { os << "start --retry " << retries; }
};

// The command of a running, unpaused task ends: it exits 0 or 3, or is
// SIGKILLed. Without its supervisor the task is then lost; with one it is
// retried while retries are left and the attempt failed, else finished.
struct EndCommand : SutCommand
{
  std::size_t index;
  Ending ending = *rc::gen::element(Ending::exit_0, Ending::exit_3, Ending::sigkill);

  explicit EndCommand(const Model& model)
    : index(pick_task(model))
  {
  }
  void checkPreconditions(const Model& model) const override
  {
    RC_PRE(index < model.tasks.size());
    const ModelTask& task = model.tasks[index];
    RC_PRE((task.running() && !task.paused && !task.removed));
  }
  bool failed() const { return ending != Ending::exit_0; }
  void apply(Model& model) const override
  {
    ModelTask& task = model.tasks[index];
    if (task.unsupervised) {
      task.state = "lost";
    } else if (failed() && task.retries_left > 0) {
      --task.retries_left;
      ++task.attempt;
    } else {
      task.state = failed() ? "failed" : "succeeded";
      task.exit_code = ending == Ending::exit_3 ? std::optional<int>(3) : std::nullopt;
      task.signal = ending == Ending::sigkill ? std::optional<int>(SIGKILL) : std::nullopt;
      if (ending == Ending::exit_0) {
        task.exit_code = 0;
      }
    }
  }
  void run(const Model& model, Sut& sut) const override;
  void show(std::ostream& os) const override
  {
    static const char* const names[] = {"exits 0", "exits 3", "is SIGKILLed"};
    os << "the command of task " << index << ' ' << names[static_cast<int>(ending)];
  }
};

void EndCommand::run(const Model& model, Sut& sut) const
{
  const ModelTask& task = model.tasks[index];
  const std::string& id = sut.ids[index];
  const json::object before = current_record(sut, id);
  const int child = number(before.at("child").at("pid"));
  if (ending == Ending::sigkill) {
    RC_ASSERT(::kill(child, SIGKILL) == 0);
  } else {
    sut.release(id, task.attempt, ending == Ending::exit_3 ? 3 : 0);
  }
  const Model after = nextState(model);
  const ModelTask& next = after.tasks[index];
  if (task.unsupervised) {
    // Nothing records the end: the next reconciling command finds it.
    RC_ASSERT(
      e2e::eventually([&] { return e2e::processes_with_environment("BGTASK_ID=" + id).empty(); }));
  } else if (next.running()) {
    // The next attempt runs once its record says so.
    RC_ASSERT(e2e::eventually([&] {
      const json::object now = current_record(sut, id);
      return now.at("retry_at").is_null() &&
             static_cast<int>(now.at("attempts").as_array().size()) == task.attempt &&
             number(now.at("child").at("pid")) != child;
    }));
  } else {
    const Result waited = sut.bg({"wait", id});
    const int expected = ending == Ending::exit_0   ? 0
                         : ending == Ending::exit_3 ? 3
                                                    : 128 + SIGKILL;
    RC_ASSERT(waited.exit_code == expected);
    wait_released(sut, id);
  }
  check_list(after, sut);
}

struct Cancel : SutCommand
{
  std::size_t index;

  explicit Cancel(const Model& model)
    : index(pick_task(model))
  {
  }
  void checkPreconditions(const Model& model) const override
  {
    RC_PRE((index < model.tasks.size() && !model.tasks[index].removed));
  }
  void apply(Model& model) const override
  {
    ModelTask& task = model.tasks[index];
    if (task.running()) {
      task.state = "cancelled";
      task.paused = false;
    }
  }
  void run(const Model& model, Sut& sut) const override
  {
    const std::string& id = sut.ids[index];
    const Result cancelled = sut.bg({"cancel", id});
    RC_ASSERT(cancelled.exit_code == 0);
    wait_released(sut, id);
    check_list(nextState(model), sut);
  }
  void show(std::ostream& os) const override { os << "cancel task " << index; }
};

// `pause` (or `resume`) of any task still there: only a running task with a
// live supervisor can be paused; `resume` of anything not paused changes
// nothing and succeeds.
struct PauseOrResume : SutCommand
{
  std::size_t index;
  bool pause = *rc::gen::arbitrary<bool>();

  explicit PauseOrResume(const Model& model)
    : index(pick_task(model))
  {
  }
  void checkPreconditions(const Model& model) const override
  {
    RC_PRE((index < model.tasks.size() && !model.tasks[index].removed));
  }
  bool accepted(const ModelTask& task) const
  {
    return !pause || (task.running() && !task.unsupervised);
  }
  void apply(Model& model) const override
  {
    ModelTask& task = model.tasks[index];
    if (accepted(task) && task.running()) {
      task.paused = pause;
    }
  }
  void run(const Model& model, Sut& sut) const override
  {
    const Result changed = sut.bg({pause ? "pause" : "resume", sut.ids[index]});
    RC_ASSERT(changed.exit_code == (accepted(model.tasks[index]) ? 0 : 1));
    check_list(nextState(model), sut);
  }
  void show(std::ostream& os) const override
  {
    os << (pause ? "pause" : "resume") << " task " << index;
  }
};

// `cleanup ID` of one task, or `cleanup --older-than 0` of all: removes what
// is finished, keeps what runs.
struct Cleanup : SutCommand
{
  std::optional<std::size_t> index;

  explicit Cleanup(const Model& model)
  {
    if (*rc::gen::arbitrary<bool>()) {
      index = pick_task(model);
    }
  }
  void checkPreconditions(const Model& model) const override
  {
    RC_PRE((!index || (*index < model.tasks.size() && !model.tasks[*index].removed)));
  }
  void apply(Model& model) const override
  {
    for (std::size_t i = 0; i < model.tasks.size(); ++i) {
      ModelTask& task = model.tasks[i];
      if ((!index || *index == i) && !task.running()) {
        task.removed = true;
      }
    }
  }
  void run(const Model& model, Sut& sut) const override
  {
    const Result cleaned =
      index ? sut.bg({"cleanup", sut.ids[*index]}) : sut.bg({"cleanup", "--older-than", "0"});
    RC_ASSERT(cleaned.exit_code == 0);
    check_list(nextState(model), sut);
  }
  void show(std::ostream& os) const override
  {
    os << "cleanup " << (index ? "task " + std::to_string(*index) : "--older-than 0");
  }
};

// SIGKILL to the supervisor of a running, unpaused task: the next
// reconciling command (the check's `list`) finds the command alive and marks
// the task unsupervised.
struct KillSupervisor : SutCommand
{
  std::size_t index;

  explicit KillSupervisor(const Model& model)
    : index(pick_task(model))
  {
  }
  void checkPreconditions(const Model& model) const override
  {
    RC_PRE(index < model.tasks.size());
    const ModelTask& task = model.tasks[index];
    RC_PRE((task.running() && !task.paused && !task.unsupervised && !task.removed));
  }
  void apply(Model& model) const override { model.tasks[index].unsupervised = true; }
  void run(const Model& model, Sut& sut) const override
  {
    const int owner = number(current_record(sut, sut.ids[index]).at("owner").at("pid"));
    RC_ASSERT(::kill(owner, SIGKILL) == 0);
    RC_ASSERT(e2e::eventually([&] { return !e2e::is_alive(owner); }));
    check_list(nextState(model), sut);
  }
  void show(std::ostream& os) const override { os << "SIGKILL the supervisor of task " << index; }
};

int from_environment(const char* name, int fallback)
{
  const char* text = std::getenv(name);
  return text != nullptr && *text != '\0' ? std::atoi(text) : fallback;
}

// RC_PARAMS' parameters (its seed, say), with this test's own bounds unless
// RC_PARAMS sets them.
rc::detail::TestParams model_test_params()
{
  rc::detail::TestParams params = rc::detail::configuration().testParams;
  const char* given = std::getenv("RC_PARAMS");
  const std::string rc_params = given != nullptr ? given : "";
  if (rc_params.find("max_success") == std::string::npos) {
    params.maxSuccess = from_environment("BGTASK_MODEL_CASES", 8);
  }
  if (rc_params.find("max_size") == std::string::npos) {
    params.maxSize = from_environment("BGTASK_MODEL_STEPS", 12);
  }
  // A failing case is shown whole: shrinking reruns real processes for minutes.
  if (rc_params.find("noshrink") == std::string::npos) {
    params.disableShrinking = true;
  }
  return params;
}

} // namespace

TEST(TaskStateModel, ListJsonAgreesWithTheModelAfterEveryStep)
{
  rc::detail::TestMetadata metadata;
  metadata.id = "TaskStateModel/ListJsonAgreesWithTheModelAfterEveryStep";
  metadata.description = metadata.id;
  const auto result = rc::detail::checkTestable(
    [] {
      Sut sut;
      rc::state::check(Model{}, sut,
                       rc::state::gen::execOneOfWithArgs<Start, EndCommand, Cancel, PauseOrResume,
                                                         Cleanup, KillSupervisor>());
    },
    metadata, model_test_params());
  if (!result.is<rc::detail::SuccessResult>()) {
    std::ostringstream message;
    rc::detail::printResultMessage(result, message);
    FAIL() << message.str();
  }
}

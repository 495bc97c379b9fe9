// The public tuning API (include/risec/tuning.h): one template's trials for a search
// engine outside risec, compiled and measured by the driver's own code (risec tune's
// compile_point and Measurer), so that a trial here is a trial of `risec tune`.
#include "driver/api_impl.h"
#include "driver/tune.h"
#include "elevate/parser.h"
#include "rise/parser.h"
#include "risec/tuning.h"

namespace risec {

struct Tuner::Impl {
  rise::Program program;
  driver::TuneConfig cfg;
  std::vector<elevate::StrategyParam> params;
  std::vector<TuneParameter> parameters;
  std::unique_ptr<driver::Measurer> measurer;

  driver::TunePoint point_of(const std::map<std::string, int64_t>& v) const {
    driver::TunePoint point;
    for (const auto& p : params) {
      auto it = v.find(p.name);
      if (it == v.end()) throw Error(ErrorKind::Usage, "no value for the parameter " + p.name);
      point.push_back(it->second);
    }
    if (v.size() != params.size())
      throw Error(ErrorKind::Usage, "values given for parameters the strategy does not declare");
    return point;
  }
};

Tuner::Tuner(const std::string& program_text, const std::string& program_name,
             const std::string& strategy, const std::string& strategy_name,
             const TunerOptions& options)
    : impl_(std::make_unique<Impl>()) {
  api::on_large_stack([&] {
    Impl& t = *impl_;
    t.program =
        rise::parse_program(std::make_shared<SourceFile>(SourceFile{program_name, program_text}));
    rise::require_definitions(t.program);
    t.cfg.program = &t.program;
    t.cfg.entry = options.entry;
    t.cfg.sizes = driver::search_sizes(t.program, options.entry, options.sizes);
    t.cfg.target = options.target;
    t.cfg.strategy = std::make_shared<SourceFile>(SourceFile{strategy_name, strategy});
    t.params = elevate::strategy_params(t.cfg.strategy);
    if (t.params.empty())
      throw Error(ErrorKind::User,
                  "the strategy declares no parameters to tune (add e.g. `param ti in [16, "
                  "32];` before its lets)",
                  Span{t.cfg.strategy, 0, 0});
    for (const auto& p : t.params) t.parameters.push_back({p.name, p.values, p.group, p.position});
    t.cfg.study_key =
        driver::study_key(program_text, strategy, t.cfg.sizes, options.target, options.entry);
    t.measurer = driver::make_measurer(t.cfg.sizes, options.seed, options.repeat);
    return 0;
  });
}

Tuner::~Tuner() = default;

const std::vector<TuneParameter>& Tuner::parameters() const {
  return impl_->parameters;
}

const std::string& Tuner::key() const {
  return impl_->cfg.study_key;
}

TrialResult Tuner::trial(const std::map<std::string, int64_t>& values) const {
  const driver::TunePoint point = impl_->point_of(values);
  driver::Trial t = api::on_large_stack(
      [&] { return driver::run_trial(impl_->cfg, impl_->params, point, *impl_->measurer); });
  TrialResult r;
  r.status = t.status == driver::Trial::Status::Measured  ? TrialResult::Status::Measured
             : t.status == driver::Trial::Status::Invalid ? TrialResult::Status::Invalid
                                                          : TrialResult::Status::Failed;
  r.time_ms = t.time_ms;
  r.error = t.error;
  return r;
}

std::string Tuner::strategy(const std::map<std::string, int64_t>& values) const {
  const driver::TunePoint point = impl_->point_of(values);
  elevate::ParamValues v;
  for (size_t i = 0; i < impl_->params.size(); ++i) v[impl_->params[i].name] = point[i];
  return elevate::substitute_params(impl_->cfg.strategy, v);
}

}  // namespace risec

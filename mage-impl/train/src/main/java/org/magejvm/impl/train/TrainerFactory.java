package org.magejvm.impl.train;

import org.magejvm.api.ConfigException;
import org.magejvm.impl.train.update.PolicyUpdater;
import org.magejvm.impl.train.update.AdamW;
import org.magejvm.impl.train.update.AdamWConfig;
import org.magejvm.impl.train.update.LossScaling;
import org.magejvm.impl.train.update.OldLogProbs;
import org.magejvm.impl.train.checkpoint.CheckpointManager;
import org.magejvm.impl.train.checkpoint.CheckpointWeights;
import org.magejvm.impl.train.supervised.SupervisedTrainer;
import org.magejvm.impl.train.supervised.SupervisedExample;
import org.magejvm.impl.train.supervised.Transcript;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.magejvm.api.ContextMode;
import org.magejvm.api.OptimizerConfig;
import org.magejvm.api.PolicyOptimizer;
import org.magejvm.api.PolicyOptimizerProvider;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.plugin.ProviderRegistry;
import org.magejvm.impl.credit.CreditConfig;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.finetune.FineTuning;
import org.magejvm.impl.llm.finetune.LoraAdapter;
import org.magejvm.impl.llm.finetune.LoraConfig;
import org.magejvm.impl.llm.finetune.PeftAdapters;
import org.magejvm.impl.llm.model.LibtorchThreads;
import org.magejvm.impl.llm.model.Qwen3Model;
import org.magejvm.impl.rollout.OpponentSampling;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.impl.rollout.Seating;
import org.magejvm.impl.rollout.Seeds;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.EnvironmentRegistry;

/**
 * Turns a {@link TrainingConfig} into the parts of a {@link MageTrainer} (the one place where a config becomes
 * rollout, credit, optimizer, AdamW, fine-tuning, update and validation settings).
 */
final class TrainerFactory {

  /** Seed stream of the LoRA adapter's initialisation. */
  static final long LORA_INIT_STREAM = 8;
  /** Seed stream of the anchor answers' rollouts. */
  static final long ANCHOR_STREAM = 16;
  /** Seed stream of the anchor answers' scripted player. */
  static final long ANCHOR_PLAYER_STREAM = 17;

  private TrainerFactory() {}

  static void configure(TrainerBuilder b, TrainingConfig c, DjlLanguagePolicy policy,
      EnvironmentRegistry registry) {
    EnvironmentProvider provider = environment(c, registry);
    RolloutConfig rollout = rollout(c, provider).optSeed(c.seed()).build();
    CreditConfig credit = c.credit(); // the section is the credit assigner's own settings
    OptimizerConfig oc = optimizerConfig(c);
    PolicyOptimizer optimizer = estimator(c, oc);
    Qwen3Model model = MageTrainer.modelOf(policy);
    requireHardware(c, model);
    if (c.threads() > 0) {
      LibtorchThreads.set(c.threads()); // the config's threads, honoured (a resized pool, not a restart)
    }
    // every pass of the policy (rollouts' prompts, scoring, the update) computes attention the configured way
    model.setAttention(c.update().attention());
    boolean kl = c.loss().klCoefficient() > 0;
    FineTuning fineTuning;
    if (c.fineTuning().lora()) {
      LoraConfig.Builder lb = LoraConfig.builder().setRank(c.fineTuning().loraRank())
          .optAlpha(c.fineTuning().loraAlpha()).optTargetModules(c.fineTuning().projections());
      if (c.fineTuning().baseModel() != null) {
        lb.optBaseModelNameOrPath(c.fineTuning().baseModel());
      }
      LoraConfig lc = lb.build();
      LoraAdapter adapter = c.fineTuning().adapter() != null
          ? PeftAdapters.load(Path.of(c.fineTuning().adapter()), model)
          : LoraAdapter.create(model, lc, Seeds.derive(c.seed(), LORA_INIT_STREAM, 0));
      b.own(adapter);
      fineTuning = FineTuning.lora(model, adapter,
          kl ? FineTuning.KlReference.BASE_WEIGHTS : FineTuning.KlReference.NONE);
      // detached before the adapter is closed (resources close in the reverse order of own())
      b.own(() -> model.setAdapter(null));
    } else {
      fineTuning = FineTuning.full(model, kl ? FineTuning.KlReference.FROZEN_COPY : FineTuning.KlReference.NONE,
          c.hardware().precision().reduced());
    }
    b.own(fineTuning);
    b.own(() -> model.weights().requireGradients(false));
    // in a reduced precision AdamW keeps FLOAT32 masters of FLOAT16 weights and the loss is scaled (also for LoRA,
    // whose FLOAT32 adapter's gradients pass through the FLOAT16 model); in float32 it is the plain optimizer
    AdamW adamw = new AdamW(fineTuning.trainableParameters(), adamWConfig(c),
        c.hardware().precision().reduced() ? LossScaling.dynamic() : null);
    b.own(adamw);
    b.setRegistry(registry)
        .setPolicy(policy)
        .setRollout(rollout)
        .setCredit(credit)
        .setOptimizer(optimizer)
        .setAdamW(adamw)
        .optFineTuning(fineTuning)
        .optUpdateSettings(updateSettings(c))
        .optOldLogProbs(c.update().oldLogProbs())
        .optValidateEvery(c.validation().every())
        .optMaxFailureShare(c.rollout().maxFailureShare())
        .optSeed(c.seed());
    if (c.checks().maxAnchorDrop() > 0) {
      b.optAnchorTurns(anchorTurns(c, provider, registry, policy));
    }
    if (c.validation().every() > 0) {
      validations(c, provider).forEach(b::addValidation);
    }
    b.fromConfig(c, baseModel -> CheckpointManager.builder()
        .setWeights(CheckpointWeights.of(fineTuning, baseModel))
        .optEvery(c.checkpoints().every())
        .optKeepLast(c.checkpoints().keep())
        .optBestMetric("val/success_rate[" + (c.rollout().episodes() - 1) + "]"));
  }

  /**
   * Refuses a policy whose model is not where the config says or not in its precision: the host loads the policy
   * ({@code Qwen3Checkpoint.Options.withDevice(hardware.djlDevice()).withDtype(hardware.precision().dataType())}),
   * the trainer only checks it.
   *
   * @param c the config
   * @param model the policy's model
   * @throws ConfigException naming {@code hardware.device} or {@code hardware.precision}, in one line
   */
  static void requireHardware(TrainingConfig c, Qwen3Model model) {
    ai.djl.Device want = c.hardware().djlDevice();
    ai.djl.Device have = model.device();
    boolean same = want.isGpu() ? have.isGpu() && have.getDeviceId() == want.getDeviceId() : !have.isGpu();
    if (!same) {
      throw new ConfigException("hardware.device", "hardware.device is " + c.hardware().device() + " but the"
          + " policy's model is on " + TrainingConfig.HardwareSettings.canonical(have) + "; load the policy on "
          + c.hardware().device() + " (Qwen3Checkpoint.Options.withDevice) or set hardware.device "
          + TrainingConfig.HardwareSettings.canonical(have));
    }
    if (model.dtype() != c.hardware().precision().dataType()) {
      String got = model.dtype().name().toLowerCase(java.util.Locale.ROOT);
      throw new ConfigException("hardware.precision", "hardware.precision is "
          + c.hardware().precision().name().toLowerCase(java.util.Locale.ROOT) + " but the policy's model is "
          + got + "; load the policy as " + c.hardware().precision().dataType() + " (Qwen3Checkpoint.Options"
          + ".withDtype) or set hardware.precision " + got);
    }
  }

  /**
   * @param registry where environments are found
   * @param id an environment id
   * @return the environment
   * @throws ConfigException naming {@code environment.id} and the known ids when there is none of that id
   */
  static EnvironmentProvider provider(EnvironmentRegistry registry, String id) {
    return registry.all().stream().filter(p -> p.id().equals(id)).findFirst()
        .orElseThrow(() -> new ConfigException("environment.id", "environment.id '" + id + "' is not a known"
            + " environment; known: " + registry.all().stream().map(EnvironmentProvider::id)
                .collect(java.util.stream.Collectors.joining(", "))));
  }

  /**
   * The config's environment, with its fixed opponent and anchor policy checked against it.
   *
   * @param c the config
   * @param registry where environments are found
   * @return the environment
   * @throws ConfigException naming the key of an environment, opponent or scripted policy that does not exist
   */
  static EnvironmentProvider environment(TrainingConfig c, EnvironmentRegistry registry) {
    EnvironmentProvider provider = provider(registry, c.environment().id());
    String opponent = c.environment().fixedOpponent();
    if (opponent != null && provider.opponents().find(opponent).isEmpty()) {
      throw new ConfigException("environment.fixed_opponent", "environment.fixed_opponent '" + opponent
          + "' is not an opponent of " + provider.id() + "; its opponents: "
          + String.join(", ", provider.opponents().ids()));
    }
    String anchors = c.checks().anchorPolicy();
    if (anchors != null && !provider.scriptedPolicies().contains(anchors)) {
      throw new ConfigException("checks.anchor_policy", "checks.anchor_policy '" + anchors + "' is not a scripted"
          + " policy of " + provider.id() + "; its scripted policies: " + String.join(", ",
              provider.scriptedPolicies()));
    }
    return provider;
  }

  /**
   * @param c the config
   * @param provider its environment
   * @return the training rollout (seed not set)
   */
  static RolloutConfig.Builder rollout(TrainingConfig c, EnvironmentProvider provider) {
    TrainingConfig.RolloutSettings r = c.rollout();
    RolloutConfig.Builder b = RolloutConfig.builder()
        .setEnvironmentId(provider.id())
        .optEnvironmentOptions(c.environment().options())
        .optTasks(r.tasks())
        .optGroupSize(r.groupSize())
        .optEpisodes(r.episodes())
        .optMaxTurns(r.maxTurns())
        .optContextMode(r.contextMode())
        .optPromptStyle(r.promptStyle())
        .optEarlyStop(r.earlyStop())
        .optSeating(provider.twoPlayer() ? r.parsedSeating() : Seating.first())
        .optOpponentSampling(r.opponentAssignment().sampling())
        .optSampling(sampling(c));
    if (c.environment().fixedOpponent() != null) {
      b.optFixedOpponent(c.environment().fixedOpponent());
    }
    if (r.stepTimeoutSeconds() > 0) {
      b.optStepTimeout(Duration.ofNanos(Math.round(r.stepTimeoutSeconds() * 1e9)));
    }
    return b;
  }

  static SamplingConfig sampling(TrainingConfig c) {
    TrainingConfig.SamplingSettings s = c.sampling();
    return SamplingConfig.builder().optTemperature(s.temperature()).optTopP(s.topP()).optTopK(s.topK())
        .optMaxNewTokens(s.maxNewTokens()).build();
  }

  static OptimizerConfig optimizerConfig(TrainingConfig c) {
    TrainingConfig.AdvantageSettings a = c.advantages();
    TrainingConfig.LossSettings l = c.loss();
    return OptimizerConfig.builder()
        .optNormalization(a.normalization())
        .optStepWeight(a.stepWeight())
        .optGrouping(a.grouping())
        .optAnchorScope(a.anchorScope())
        .optEpsilon(a.epsilon())
        .optClipRatioLow(l.clipRatioLow())
        .optClipRatioHigh(l.clipRatioHigh())
        .optDualClip(l.dualClip())
        .optEntropyCoefficient(l.entropyCoefficient())
        .optKlCoefficient(l.klCoefficient())
        .optLossAggregation(l.aggregation())
        .build();
  }

  static PolicyOptimizer estimator(TrainingConfig c, OptimizerConfig oc) {
    ProviderRegistry<PolicyOptimizerProvider> optimizers = ProviderRegistry.discover(PolicyOptimizerProvider.class);
    String id = c.advantages().estimator();
    return optimizers.find(id).orElseThrow(() -> new ConfigException("advantages.estimator",
        "advantages.estimator '" + id + "' is not an optimizer on the class path; known: "
            + optimizers.all().stream().map(PolicyOptimizerProvider::id)
                .collect(java.util.stream.Collectors.joining(", ")))).create(oc);
  }

  static AdamWConfig adamWConfig(TrainingConfig c) {
    return c.adamw(); // the section is AdamW's own settings
  }

  static PolicyUpdater.Settings updateSettings(TrainingConfig c) {
    TrainingConfig.UpdateSettings u = c.update();
    return new PolicyUpdater.Settings(u.miniBatchTurns(), u.microBatchTurns(), u.epochs(),
        u.oldLogProbs() != OldLogProbs.RECORDED, u.skipZeroAdvantage(), c.checks().maxUpdateKl(),
        c.checks().maxAnchorDrop(), u.microBatchTokens(), u.recomputeLayers(), u.recomputeHead());
  }

  /**
   * The anchor answers: {@code checks.anchor_turns} turns of the environment's scripted {@code
   * checks.anchor_policy} in the training rollout's prompts, reflections included when the rollout writes them (a
   * reflection's format is part of the answer format an update must not break), tokenized as the policy's chat
   * template renders them.
   */
  static List<PolicyUpdater.Row> anchorTurns(TrainingConfig c, EnvironmentProvider provider,
      EnvironmentRegistry registry, DjlLanguagePolicy policy) {
    int count = c.checks().anchorTurns();
    List<Transcript> transcripts;
    try {
      transcripts = Transcript.ofAllTurns(registry, count,
          round -> rollout(c, provider).optTasks(16).optGroupSize(4)
              .optSeed(Seeds.derive(c.seed(), ANCHOR_STREAM, round)).build(),
          round -> provider.scriptedPolicy(c.checks().anchorPolicy(),
              Seeds.derive(c.seed(), ANCHOR_PLAYER_STREAM, round)));
    } catch (IllegalStateException e) {
      throw new ConfigException("checks.anchor_policy", "checks.anchor_policy '" + c.checks().anchorPolicy()
          + "' played no turn on " + provider.id() + "; choose another scripted policy or set"
          + " checks.max_anchor_drop 0");
    }
    List<PolicyUpdater.Row> rows = new ArrayList<>(count);
    for (SupervisedExample e : SupervisedTrainer.tokenize(transcripts, policy.tokenizer(), policy.chatTemplate(),
        policy.templateVariables(), policy.stopTokenIds().iterator().next())) {
      rows.add(new PolicyUpdater.Row(e.promptIds(), e.responseIds(), null, 0));
    }
    return rows;
  }

  /**
   * The validation sets: the training population (one meta-episode per group, the reference's evaluation sampling,
   * the config's prompts, opponents drawn from the pool's weights whatever {@code rollout.opponent_assignment} says,
   * so that every preset is validated on the same opponents) and, for two-player games with {@code
   * validation.held_out}, each held-out validation opponent in its evaluation seat. Single-episode methods are
   * validated with the environment's number of independent attempts.
   */
  private static RolloutConfig.Builder validationSet(TrainingConfig c, EnvironmentProvider provider, int episodes,
      ContextMode context, SamplingConfig sampling) {
    return rollout(c, provider)
        .optOpponentSampling(OpponentSampling.PER_GROUP)
        .optTasks(c.validation().metaEpisodes())
        .optGroupSize(1)
        .optEpisodes(episodes)
        .optContextMode(context)
        .optEarlyStop(true)
        .optSampling(sampling);
  }

  static List<Validation> validations(TrainingConfig c, EnvironmentProvider provider) {
    int episodes = Math.max(c.rollout().episodes(), provider.defaults().episodes());
    ContextMode context = c.rollout().episodes() > 1 ? c.rollout().contextMode() : ContextMode.NONE;
    SamplingConfig sampling = SamplingConfig.evaluation(c.sampling().maxNewTokens());
    List<Validation> out = new ArrayList<>();
    out.add(new Validation("", validationSet(c, provider, episodes, context, sampling)
        .optGroupPrefix("val").build()));
    if (provider.twoPlayer() && c.validation().heldOut()) {
      for (String opponent : provider.validationOpponents()) {
        out.add(Validation.heldOut(opponent, validationSet(c, provider, episodes, context, sampling)
            .optFixedOpponent(opponent)
            .optSeating(Seating.of(provider.evaluationSeat()))
            .optGroupPrefix("val-" + opponent)
            .build()));
      }
    }
    return out;
  }
}

package org.magejvm.examples.cli;

import org.magejvm.impl.train.TrainerBuilder;
import java.nio.file.Path;
import java.util.List;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.openai.OpenAiCompletionsPolicy;
import org.magejvm.impl.openai.VllmAdapterLoader;
import org.magejvm.impl.train.LoraAdapterSync;
import org.magejvm.impl.train.MageTrainer;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * {@code --rollout-endpoint} and {@code --push-adapter}: the training rollouts of a LoRA run go through
 * OpenAI-compatible inference servers (vLLM with {@code --enable-lora}, or {@code mage serve --enable-lora}), and the
 * trained adapter is saved in PEFT layout and pushed to them before the first rollout and after every update.
 */
final class RemoteRolloutOptions {

  /** The run directory's subdirectory for pushed adapters, unless --push-dir says otherwise. */
  static final String PUSH_DIR = "pushed-adapter";

  @Option(names = "--rollout-endpoint", paramLabel = "URL",
      description = "Roll out through this OpenAI-compatible server (repeatable: a fleet, least loaded first), for"
          + " example http://127.0.0.1:8000; needs --push-adapter. The server must read --push-dir.")
  List<String> endpoints;

  @Option(names = "--push-adapter", paramLabel = "NAME",
      description = "With --rollout-endpoint and --lora-rank: the adapter name the trainer pushes after each update"
          + " (POST /v1/unload_lora_adapter, then /v1/load_lora_adapter) and the rollouts request as their model.")
  String adapterName;

  @Option(names = "--rollout-api-key", paramLabel = "KEY",
      description = "With --rollout-endpoint: the servers' API key, sent as 'Authorization: Bearer KEY' on the"
          + " rollouts and the adapter pushes (default: the environment variable " + HttpLimitOptions.API_KEY_VARIABLE
          + ", else none).")
  String apiKey;

  @Option(names = "--push-dir", paramLabel = "DIR",
      description = "With --push-adapter: where each pushed adapter is saved, a path the servers can read"
          + " (default: mage train: RUN_DIR/" + PUSH_DIR + "; mage lora: OUT-pushed).")
  Path pushDir;

  /** @return the key from --rollout-api-key or the environment variable, or null */
  private String key() {
    String k = apiKey != null ? apiKey : System.getenv(HttpLimitOptions.API_KEY_VARIABLE);
    return k == null || k.isBlank() ? null : k;
  }

  /** @return whether remote rollouts were asked for */
  boolean enabled() {
    return endpoints != null && !endpoints.isEmpty();
  }

  /**
   * Checks the options together (usage errors, exit 2).
   *
   * @param spec the command
   * @param lora whether the run trains a LoRA adapter
   * @return the loader over the endpoints, or null without remote rollouts
   */
  VllmAdapterLoader validate(CommandLine.Model.CommandSpec spec, boolean lora) {
    if (!enabled()) {
      if (adapterName != null || pushDir != null) {
        throw Limits.usage(spec, (adapterName != null ? "--push-adapter" : "--push-dir") + " needs"
            + " --rollout-endpoint URL");
      }
      return null;
    }
    if (adapterName == null) {
      throw Limits.usage(spec, "--rollout-endpoint needs --push-adapter NAME: without pushing, the servers would"
          + " roll out the initial weights for the whole run");
    }
    if (adapterName.isBlank()) {
      throw Limits.usage(spec, "--push-adapter: the name must not be blank");
    }
    if (!lora) {
      throw Limits.usage(spec, "--push-adapter needs --lora-rank: only a LoRA adapter can be pushed to running"
          + " servers (full fine-tuning would need a weight reload, which vLLM has no stable HTTP API for)");
    }
    VllmAdapterLoader.Builder b = VllmAdapterLoader.builder();
    if (key() != null) {
      b.optApiKey(key());
    }
    for (String e : endpoints) {
      try {
        b.addEndpoint(e);
      } catch (IllegalArgumentException ex) {
        throw Limits.usage(spec, "--rollout-endpoint: " + ex.getMessage());
      }
    }
    return b.build();
  }

  /**
   * Makes the rollouts of {@code trainer} go through the endpoints and pushes the adapter after each update.
   *
   * @param trainer the trainer's builder
   * @param policy the trained policy (its chat template and tokenizer format the remote prompts)
   * @param loader the loader {@link #validate} returned
   * @param defaultPushDir where pushed adapters go without --push-dir
   * @return the remote policy, for the caller to close
   */
  OpenAiCompletionsPolicy apply(TrainerBuilder trainer, DjlLanguagePolicy policy, VllmAdapterLoader loader,
      Path defaultPushDir) {
    Object lock = new Object();
    OpenAiCompletionsPolicy.Builder b = OpenAiCompletionsPolicy.builder().setModel(adapterName)
        .optPromptFormatter(p -> {
          synchronized (lock) {
            return policy.renderPrompt(p);
          }
        })
        .optTokenizer(p -> {
          synchronized (lock) {
            return policy.tokenizer().encode(p);
          }
        });
    endpoints.forEach(b::addEndpoint);
    if (key() != null) {
      b.optApiKey(key());
    }
    OpenAiCompletionsPolicy remote = b.build();
    trainer.optRolloutPolicy(remote).optPolicySync(LoraAdapterSync.builder()
        .setDirectory(pushDir != null ? pushDir : defaultPushDir)
        .setName(adapterName)
        .setPublisher(loader::replace)
        .build());
    return remote;
  }
}

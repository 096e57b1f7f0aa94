package org.magejvm.impl.train;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.Deque;
import java.util.Objects;
import java.util.function.Function;
import java.util.stream.Stream;
import org.magejvm.api.annotation.Api;
import org.magejvm.impl.llm.finetune.LoraAdapter;
import org.magejvm.impl.llm.finetune.PeftAdapters;

/**
 * The {@link PolicySync} of LoRA runs: saves the trained adapter (the fine-tuning setup's, else the one attached to
 * the trained policy's model) in PEFT layout into {@code directory/v<N>} (N the
 * iteration count) and hands that directory to a {@link Publisher} under a fixed adapter name, typically {@code
 * VllmAdapterLoader::replace} of {@code mage-openai} (unload, then load, on every server of a fleet), so requests
 * naming the adapter generate with the trainer's current weights. The servers read the directory themselves: it must
 * be visible to them under the path {@link Builder#optServerPath} gives (the same machine, or a shared file system).
 * Only the last {@link Builder#optKeep} pushed directories are kept (default 2: the one the servers hold and the one
 * before it).
 */
@Api(status = Api.Status.EXPERIMENTAL)
public final class LoraAdapterSync implements PolicySync {

  /** Loads an adapter directory under a name on the rollout servers, replacing any adapter of that name. */
  @FunctionalInterface
  public interface Publisher {
    /**
     * @param name the adapter's name (what rollout requests send as {@code model})
     * @param path the PEFT adapter directory, as the servers see it
     */
    void replace(String name, String path);
  }

  private final Path directory;
  private final String name;
  private final Publisher publisher;
  private final Function<Path, String> serverPath;
  private final int keep;
  private final Deque<Path> pushed = new ArrayDeque<>();

  private LoraAdapterSync(Builder b) {
    this.directory = b.directory;
    this.name = b.name;
    this.publisher = b.publisher;
    this.serverPath = b.serverPath;
    this.keep = b.keep;
  }

  /** @return an empty builder */
  public static Builder builder() {
    return new Builder();
  }

  /** @return the adapter's name on the servers */
  public String name() {
    return name;
  }

  @Override
  public void push(MageTrainer trainer, int version) {
    LoraAdapter adapter = trainer.fineTuning().flatMap(f -> f.adapter()).orElseGet(() -> {
      var attached = MageTrainer.modelOf(trainer.policy()).adapter().orElse(null);
      if (attached instanceof LoraAdapter) {
        return (LoraAdapter) attached;
      }
      throw new IllegalStateException("LoraAdapterSync needs a LoRA run: a FineTuning.lora setup"
          + " (optFineTuning) or a LoraAdapter attached to the trained policy's model");
    });
    Path dir = directory.resolve("v" + version);
    try {
      if (Files.exists(dir)) {
        deleteTree(dir);
      }
      Files.createDirectories(directory);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot prepare " + dir + " for the adapter: " + e.getMessage(), e);
    }
    PeftAdapters.save(adapter, dir);
    publisher.replace(name, serverPath.apply(dir));
    pushed.remove(dir);
    pushed.addLast(dir);
    while (pushed.size() > keep) {
      Path old = pushed.removeFirst();
      try {
        deleteTree(old);
      } catch (IOException e) {
        // an old adapter left on disk costs space, not correctness
      }
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) s.sorted(Comparator.reverseOrder())::iterator) {
        Files.delete(p);
      }
    }
  }

  /** Builds a {@link LoraAdapterSync}: directory, name and publisher are required. */
  public static final class Builder {
    private Path directory;
    private String name;
    private Publisher publisher;
    private Function<Path, String> serverPath = p -> p.toAbsolutePath().normalize().toString();
    private int keep = 2;

    private Builder() {}

    /**
     * @param dir where each pushed adapter is saved (as {@code v<N>})
     * @return this builder
     */
    public Builder setDirectory(Path dir) {
      this.directory = Objects.requireNonNull(dir, "directory");
      return this;
    }

    /**
     * @param n the adapter's name on the servers (the rollout policy's model name)
     * @return this builder
     */
    public Builder setName(String n) {
      this.name = Objects.requireNonNull(n, "name");
      return this;
    }

    /**
     * @param p what loads a directory on the servers, for example {@code VllmAdapterLoader::replace}
     * @return this builder
     */
    public Builder setPublisher(Publisher p) {
      this.publisher = Objects.requireNonNull(p, "publisher");
      return this;
    }

    /**
     * @param f the path the servers see for a local directory (default: its absolute path)
     * @return this builder
     */
    public Builder optServerPath(Function<Path, String> f) {
      this.serverPath = Objects.requireNonNull(f, "serverPath");
      return this;
    }

    /**
     * @param n pushed directories kept on disk (default 2)
     * @return this builder
     */
    public Builder optKeep(int n) {
      this.keep = n;
      return this;
    }

    /** @return the sync */
    public LoraAdapterSync build() {
      Objects.requireNonNull(directory, "setDirectory(...) is required");
      Objects.requireNonNull(publisher, "setPublisher(...) is required");
      if (name == null || name.isBlank()) {
        throw new IllegalStateException("setName(...) is required and must not be blank");
      }
      if (keep < 1) {
        throw new IllegalStateException("keep must be >= 1, got " + keep);
      }
      return new LoraAdapterSync(this);
    }
  }
}

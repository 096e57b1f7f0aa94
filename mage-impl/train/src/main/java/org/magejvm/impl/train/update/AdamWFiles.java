package org.magejvm.impl.train.update;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.types.DataType;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Objects;
import org.magejvm.impl.llm.checkpoint.CheckpointException;
import org.magejvm.impl.llm.safetensors.SafetensorsDtype;
import org.magejvm.impl.llm.safetensors.SafetensorsWriter;
import org.magejvm.impl.llm.safetensors.TensorInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** How {@link AdamW} reads and checks its saved state and writes its moments: the files of a checkpoint's optimizer. */
final class AdamWFiles {

  private static final Logger LOG = LoggerFactory.getLogger(AdamW.class);

  private AdamWFiles() {}

  /** What the state file says (a loss scale of 0 when it records none). */
  record SavedState(Path file, long stepCount, long skippedCount, String momentsFile, String saveId,
      AdamWConfig config, double lossScale, long scaledSteps) {}

  static SavedState readState(Path dir) {
    Objects.requireNonNull(dir, "dir");
    Path file = dir.resolve(AdamW.STATE_FILE);
    if (!Files.isRegularFile(file)) {
      throw new CheckpointException(file + ": optimizer state file does not exist");
    }
    JsonObject o;
    try {
      JsonElement root = JsonParser.parseString(Files.readString(file, StandardCharsets.UTF_8));
      if (!root.isJsonObject()) {
        throw new CheckpointException(file + ": not a JSON object");
      }
      o = root.getAsJsonObject();
    } catch (IOException e) {
      throw new CheckpointException(file + ": cannot read the file: " + e.getMessage(), e);
    } catch (JsonParseException e) {
      throw new CheckpointException(file + ": malformed JSON: " + e.getMessage(), e);
    }
    String format = string(o, "format", file);
    if (!AdamW.FORMAT.equals(format)) {
      throw new CheckpointException(file + ": format is '" + format + "', expected '" + AdamW.FORMAT + "'");
    }
    long version = integer(o, "version", file);
    if (version != AdamW.FORMAT_VERSION) {
      throw new CheckpointException(file + ": version " + version + " is not supported (this code reads version "
          + AdamW.FORMAT_VERSION + ")");
    }
    long steps = integer(o, "step_count", file);
    long skipped = integer(o, "skipped_count", file);
    if (steps < 0 || skipped < 0) {
      throw new CheckpointException(file + ": step_count and skipped_count must be >= 0, got " + steps + " and "
          + skipped);
    }
    String moments = string(o, "moments_file", file);
    if (!moments.startsWith(AdamW.MOMENTS_FILE_PREFIX) || !moments.endsWith(AdamW.MOMENTS_FILE_SUFFIX) || moments.contains("/")
        || moments.contains("\\")) {
      throw new CheckpointException(file + ": moments_file '" + moments + "' is not a moments file name of the form "
          + AdamW.MOMENTS_FILE_PREFIX + "<id>" + AdamW.MOMENTS_FILE_SUFFIX);
    }
    String saveId = string(o, "save_id", file);
    JsonElement c = o.get("config");
    if (c == null || !c.isJsonObject()) {
      throw new CheckpointException(file + ": field 'config' is missing or not an object");
    }
    JsonObject co = c.getAsJsonObject();
    AdamWConfig config;
    try {
      long warmup = integer(co, "warmup_steps", file);
      if (warmup > Integer.MAX_VALUE) {
        throw new CheckpointException(file + ": config.warmup_steps " + warmup + " is too large");
      }
      config = new AdamWConfig(number(co, "learning_rate", file), number(co, "beta1", file),
          number(co, "beta2", file), number(co, "eps", file), number(co, "weight_decay", file),
          number(co, "gradient_clip", file), (int) warmup);
    } catch (IllegalArgumentException e) {
      throw new CheckpointException(file + ": invalid config: " + e.getMessage(), e);
    }
    double scale = 0;
    long scaled = 0;
    if (o.has("loss_scale")) {
      scale = number(o, "loss_scale", file);
      scaled = integer(o, "loss_scale_applied_steps", file);
      if (!(scale >= LossScaling.MIN_SCALE && scale <= LossScaling.MAX_SCALE) || scaled < 0) {
        throw new CheckpointException(file + ": loss_scale " + scale + " or loss_scale_applied_steps " + scaled
            + " is out of range");
      }
    }
    return new SavedState(file, steps, skipped, moments, saveId, config, scale, scaled);
  }

  static JsonElement field(JsonObject o, String name, Path file) {
    JsonElement e = o.get(name);
    if (e == null || !e.isJsonPrimitive()) {
      throw new CheckpointException(file + ": field '" + name + "' is missing or not a plain value");
    }
    return e;
  }

  static String string(JsonObject o, String name, Path file) {
    JsonElement e = field(o, name, file);
    if (!e.getAsJsonPrimitive().isString()) {
      throw new CheckpointException(file + ": field '" + name + "' must be a string, got " + e);
    }
    return e.getAsString();
  }

  static double number(JsonObject o, String name, Path file) {
    JsonElement e = field(o, name, file);
    if (!e.getAsJsonPrimitive().isNumber()) {
      throw new CheckpointException(file + ": field '" + name + "' must be a number, got " + e);
    }
    return e.getAsDouble();
  }

  static long integer(JsonObject o, String name, Path file) {
    JsonElement e = field(o, name, file);
    if (!e.getAsJsonPrimitive().isNumber()) {
      throw new CheckpointException(file + ": field '" + name + "' must be an integer, got " + e);
    }
    try {
      return e.getAsBigDecimal().longValueExact();
    } catch (ArithmeticException | NumberFormatException ex) {
      throw new CheckpointException(file + ": field '" + name + "' must be an integer, got " + e, ex);
    }
  }

  static void checkTensor(TensorInfo info, String parameter, NDArray p, Path file) {
    String want = p.getDataType() == DataType.FLOAT64 ? "F64" : "F32";
    long[] shape = p.getShape().getShape();
    if (!Arrays.equals(info.shape(), shape)) {
      throw new CheckpointException(file + ": tensor '" + info.name() + "' has shape " + Arrays.toString(info.shape())
          + " but parameter '" + parameter + "' has shape " + Arrays.toString(shape));
    }
    if (!want.equals(info.dtype())) {
      throw new CheckpointException(file + ": tensor '" + info.name() + "' is " + info.dtype() + " but parameter '"
          + parameter + "' is " + p.getDataType().name() + " (its moments" + (p.getDataType() == DataType.FLOAT16
              ? " and master" : "") + " must be " + want + ")");
    }
  }

  static void deleteStaleMoments(Path dir, String keep) {
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, AdamW.MOMENTS_FILE_PREFIX + "*" + AdamW.MOMENTS_FILE_SUFFIX)) {
      for (Path f : files) {
        if (!f.getFileName().toString().equals(keep)) {
          Files.deleteIfExists(f);
        }
      }
    } catch (IOException e) {
      LOG.warn("could not delete old optimizer moments in {}: {}", dir, e.getMessage());
    }
  }

  static void addMoment(SafetensorsWriter writer, String name, NDArray moment) {
    if (moment.getDataType() == DataType.FLOAT32) {
      writer.add(name, moment, SafetensorsDtype.F32);
      return;
    }
    long n = moment.size();
    ByteBuffer le = ByteBuffer.allocate(Math.toIntExact(n * Double.BYTES)).order(ByteOrder.LITTLE_ENDIAN);
    boolean onCpu = Device.Type.CPU.equals(moment.getDevice().getDeviceType());
    NDArray cpu = onCpu ? moment : moment.toDevice(Device.cpu(), true);
    try {
      le.asDoubleBuffer().put(cpu.toByteBuffer().order(ByteOrder.nativeOrder()).asDoubleBuffer());
    } finally {
      if (cpu != moment) {
        cpu.close();
      }
    }
    writer.addRaw(name, SafetensorsDtype.F64, moment.getShape().getShape(), le.array());
  }
}

package org.magejvm.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import java.util.List;
import org.junit.jupiter.api.Test;

class LossDiagnosticsTest {

  private static final LossDiagnostics A = new LossDiagnostics(1.5, 1.25, 0.125, 0.0625, 0.25, -0.01, 0.5, 0.75, 10, 2);
  private static final LossDiagnostics B = new LossDiagnostics(-0.5, 0.25, 0.125, 0.0, 0.5, 0.02, 0.25, 0.25, 6, 1);

  @Test
  void plusAddsFieldByField() {
    LossDiagnostics sum = A.plus(B);
    assertThat(sum).isEqualTo(new LossDiagnostics(1.0, 1.5, 0.25, 0.0625, 0.75, 0.01, 0.75, 1.0, 16, 3));
    assertThat(LossDiagnostics.zero().plus(A)).isEqualTo(A);
    assertThat(A.plus(LossDiagnostics.zero())).isEqualTo(A);
  }

  @Test
  void notMeasuredStaysNotMeasured() {
    LossDiagnostics noEntropy = new LossDiagnostics(1, 1, 0, 0, 0, 0, Double.NaN, 0.5, 4, 1);
    assertThat(noEntropy.plus(A).entropy()).isNaN();
    assertThat(noEntropy.plus(A).klLoss()).isEqualTo(1.25);
  }

  @Test
  void toMapUsesStableNamesInOrder() {
    assertThat(A.toMap()).containsExactly(
        entry("actor/loss", 1.5),
        entry("actor/pg_loss", 1.25),
        entry("actor/pg_clipfrac_low", 0.125),
        entry("actor/pg_clipfrac_high", 0.0625),
        entry("actor/pg_clipfrac_dual", 0.25),
        entry("actor/ppo_kl", -0.01),
        entry("actor/entropy", 0.5),
        entry("actor/kl_loss", 0.75),
        entry("actor/response_tokens", 10.0),
        entry("actor/sequences", 2.0));
    LossDiagnostics bare = new LossDiagnostics(1, 1, 0, 0, 0, 0, Double.NaN, Double.NaN, 4, 1);
    assertThat(List.copyOf(bare.toMap().keySet())).containsExactly(LossDiagnostics.LOSS, LossDiagnostics.PG_LOSS,
        LossDiagnostics.PG_CLIPFRAC_LOW, LossDiagnostics.PG_CLIPFRAC_HIGH, LossDiagnostics.PG_CLIPFRAC_DUAL,
        LossDiagnostics.PPO_KL, LossDiagnostics.RESPONSE_TOKENS, LossDiagnostics.SEQUENCES);
    assertThatThrownBy(() -> A.toMap().put("x", 1.0)).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void countsAreChecked() {
    assertThatThrownBy(() -> new LossDiagnostics(0, 0, 0, 0, 0, 0, 0, 0, -1, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("tokens and sequences must satisfy 0 <= sequences <= tokens, got -1 and 0");
    assertThatThrownBy(() -> new LossDiagnostics(0, 0, 0, 0, 0, 0, 0, 0, 2, 3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("tokens and sequences must satisfy 0 <= sequences <= tokens, got 2 and 3");
  }
}

package org.magejvm.impl.env.kuhn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class KuhnCfrSolverTest {

  @Test
  void averagePolicyReachesTheGameValueWithLowExploitability() {
    KuhnStrategyTable avg = KuhnCfrSolver.referenceAveragePolicy();
    assertThat(KuhnAnalysis.value(avg, avg)).isCloseTo(-1.0 / 18, within(1e-3));
    double exploitability = KuhnAnalysis.exploitability(avg, avg);
    assertThat(exploitability).isPositive().isLessThan(1e-3);
    assertThat(KuhnAnalysis.nashConv(avg, avg)).isCloseTo(2 * exploitability, within(1e-15));
  }

  @Test
  void averagePolicyMatchesTheReferenceComputationToFourDecimals() {
    // spec section 9.1: OpenSpiel CFRSolver, 1000 iterations, P(BET) per information state
    // each value is checked to the precision printed there (half a unit of the last digit)
    Map<String, String> expected = new LinkedHashMap<>();
    expected.put("J", "0.194");
    expected.put("Q", "0.0075");
    expected.put("K", "0.584");
    expected.put("Jpb", "0.0003");
    expected.put("Qpb", "0.5305");
    expected.put("Kpb", "0.9994");
    expected.put("Jp", "0.333");
    expected.put("Qp", "0.0035");
    expected.put("Kp", "0.999");
    expected.put("Jb", "0.0005");
    expected.put("Qb", "0.3364");
    expected.put("Kb", "0.9995");
    KuhnStrategyTable avg = KuhnCfrSolver.referenceAveragePolicy();
    for (Map.Entry<String, String> e : expected.entrySet()) {
      int decimals = e.getValue().length() - e.getValue().indexOf('.') - 1;
      double tolerance = 0.5 * Math.pow(10, -decimals);
      assertThat(avg.betProbability(e.getKey())).as(e.getKey())
          .isCloseTo(Double.parseDouble(e.getValue()), within(tolerance));
    }
  }

  @Test
  void argmaxIsTheReferenceCfrOpponent() {
    // spec table 9.1: J, Q check and K bets; after check-bet J folds, Q and K call; as player 1 only the King bets
    // or calls
    Map<String, Double> expected = new LinkedHashMap<>();
    for (String k : KuhnStrategyTable.INFO_STATES) {
      expected.put(k, 0.0);
    }
    for (String bet : List.of("K", "Qpb", "Kpb", "Kp", "Kb")) {
      expected.put(bet, 1.0);
    }
    assertThat(KuhnCfrSolver.referenceArgmaxPolicy()).isEqualTo(KuhnStrategyTable.fromMap(expected));
    assertThat(KuhnCfrSolver.referenceArgmaxPolicy().isPure()).isTrue();
    assertThat(KuhnCfrSolver.referenceAveragePolicy().isPure()).isFalse();
  }

  @Test
  void solverStartsUniformAndIsDeterministic() {
    KuhnCfrSolver fresh = new KuhnCfrSolver();
    assertThat(fresh.iterations()).isZero();
    assertThat(fresh.currentPolicy().toMap().values()).containsOnly(0.5);
    assertThat(fresh.averagePolicy().toMap().values()).containsOnly(0.5);
    KuhnStrategyTable again = new KuhnCfrSolver().iterate(KuhnCfrSolver.REFERENCE_ITERATIONS).averagePolicy();
    assertThat(again).isEqualTo(KuhnCfrSolver.referenceAveragePolicy());
    KuhnCfrSolver stepwise = new KuhnCfrSolver();
    for (int i = 0; i < 10; i++) {
      stepwise.iterate();
    }
    assertThat(stepwise.iterations()).isEqualTo(10);
    assertThat(stepwise.averagePolicy()).isEqualTo(new KuhnCfrSolver().iterate(10).averagePolicy());
    assertThatThrownBy(() -> fresh.iterate(-1)).hasMessageContaining("-1");
  }

  @Test
  void exploitabilityFallsWithIterations() {
    KuhnCfrSolver solver = new KuhnCfrSolver();
    double after10 = exploitability(solver.iterate(10));
    double after100 = exploitability(solver.iterate(90));
    double after1000 = exploitability(solver.iterate(900));
    assertThat(after100).isLessThan(after10);
    assertThat(after1000).isLessThan(after100);
  }

  private static double exploitability(KuhnCfrSolver s) {
    KuhnStrategyTable avg = s.averagePolicy();
    return KuhnAnalysis.exploitability(avg, avg);
  }

  @Test
  void cachedSolutionIsSharedSafelyAcrossThreads() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Callable<KuhnStrategyTable>> tasks = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        tasks.add(KuhnCfrSolver::referenceAveragePolicy);
      }
      List<Future<KuhnStrategyTable>> results = pool.invokeAll(tasks);
      for (Future<KuhnStrategyTable> f : results) {
        assertThat(f.get()).isSameAs(KuhnCfrSolver.referenceAveragePolicy());
      }
    } finally {
      pool.shutdown();
      assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }
}

package org.magejvm.examples.research;

import java.util.LinkedHashMap;
import java.util.Map;
import org.magejvm.examples.cli.LabPrograms;

/** The experiments {@code mage bench NAME} runs, by name. */
public final class ResearchPrograms implements LabPrograms {

  /** Creates the list (ServiceLoader). */
  public ResearchPrograms() {}

  @Override
  public Map<String, Main> programs() {
    Map<String, Main> p = new LinkedHashMap<>();
    p.put("kuhn-adaptation", KuhnAdaptationExperiment::main);
    p.put("kuhn-advantages", KuhnAdvantageExperiment::main);
    p.put("kuhn-probe", KuhnProbe::main);
    p.put("ttt-ceilings", TicTacToeCeilingsReport::main);
    return p;
  }
}

package org.magejvm.examples;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.magejvm.api.annotation.Api;

/**
 * The module dependency rules of docs/architecture.md, checked on the main classes of every module (this module's
 * test class path holds them all). A rule that breaks fails the build.
 */
class ArchitectureTest {

  private static final String API = "org.magejvm.api..";
  private static final String SPI = "org.magejvm.spi..";
  private static final String CORE_ROLLOUT = "org.magejvm.impl.rollout..";
  private static final String CORE_CREDIT = "org.magejvm.impl.credit..";
  private static final String CORE_EVAL = "org.magejvm.impl.eval..";
  private static final String GAMES = "org.magejvm.impl.env..";
  private static final String AGENTGYM = "org.magejvm.impl.agentgym..";
  private static final String JINJA = "org.magejvm.impl.jinja..";
  private static final String LLM = "org.magejvm.impl.llm..";
  private static final String TRAIN = "org.magejvm.impl.train..";
  private static final String OPENAI = "org.magejvm.impl.openai..";
  private static final String SERVE = "org.magejvm.impl.serve..";
  private static final String HTTP = "org.magejvm.impl.http..";
  private static final String GIGPO = "org.magejvm.gigpo..";
  private static final String TESTKIT = "org.magejvm.testkit..";
  private static final String DJL = "ai.djl..";
  private static final String BENCH = "org.magejvm.examples.bench..";
  private static final String RESEARCH = "org.magejvm.examples.research..";
  private static final String HOST = "org.magejvm.examples.host";
  private static final Pattern RESEARCH_ARTIFACT = Pattern.compile("<artifactId>mage-(bench|research)</artifactId>");

  private static JavaClasses classes;

  @BeforeAll
  static void importClasses() {
    classes = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("org.magejvm");
  }

  @Test
  void theRulesSeeEveryModule() {
    // a rule over an empty set passes vacuously: make sure each module's classes were imported
    for (String pkg : new String[] {
        "org.magejvm.api", "org.magejvm.spi", "org.magejvm.impl.rollout", "org.magejvm.impl.env.kuhn",
        "org.magejvm.impl.jinja", "org.magejvm.impl.llm.model", "org.magejvm.impl.train", "org.magejvm.gigpo",
        "org.magejvm.testkit", "org.magejvm.examples.cli", "org.magejvm.impl.openai", "org.magejvm.impl.serve",
        "org.magejvm.impl.agentgym", "org.magejvm.impl.agentgym.server", "org.magejvm.impl.http"}) {
      org.assertj.core.api.Assertions.assertThat(classes.containPackage(pkg)).as(pkg).isTrue();
    }
  }

  @Test
  void apiKnowsNoImplementation() {
    noClasses().that().resideInAPackage(API)
        .should().dependOnClassesThat().resideInAnyPackage(SPI, "org.magejvm.impl..", GIGPO, TESTKIT,
            "org.magejvm.examples..")
        .check(classes);
  }

  @Test
  void spiSeesOnlyTheApi() {
    noClasses().that().resideInAPackage(SPI)
        .should().dependOnClassesThat().resideInAnyPackage("org.magejvm.impl..", GIGPO, TESTKIT, DJL,
            "org.magejvm.examples..")
        .check(classes);
  }

  @Test
  void coreAndGamesImportNoDjl() {
    noClasses().that().resideInAnyPackage(CORE_ROLLOUT, CORE_CREDIT, CORE_EVAL, GAMES)
        .should().dependOnClassesThat().resideInAnyPackage(DJL, LLM, JINJA, TRAIN, GIGPO)
        .check(classes);
  }

  @Test
  void environmentsOverHttpNeedNoDjlAndNoOtherImplementation() {
    // the agentgym module sees the api, the spi, gson and the JDK: a host that runs environments in other processes
    // pulls no libtorch, no rollout engine and no games
    noClasses().that().resideInAPackage(AGENTGYM)
        .should().dependOnClassesThat().resideInAnyPackage(DJL, LLM, JINJA, TRAIN, GIGPO, GAMES, CORE_ROLLOUT,
            CORE_CREDIT, CORE_EVAL)
        .check(classes);
  }

  @Test
  void coreDoesNotKnowTheGames() {
    noClasses().that().resideInAnyPackage(CORE_ROLLOUT, CORE_CREDIT, CORE_EVAL)
        .should().dependOnClassesThat().resideInAPackage(GAMES)
        .check(classes);
  }

  @Test
  void jinjaNeedsOnlyTheJdk() {
    noClasses().that().resideInAPackage(JINJA)
        .should().dependOnClassesThat().resideOutsideOfPackages("java..", JINJA)
        .check(classes);
  }

  @Test
  void llmImportsNothingOfCoreGamesOrTraining() {
    noClasses().that().resideInAPackage(LLM)
        .should().dependOnClassesThat().resideInAnyPackage(CORE_ROLLOUT, CORE_CREDIT, CORE_EVAL, GAMES, TRAIN,
            GIGPO, SPI, OPENAI, SERVE)
        .check(classes);
  }

  @Test
  void theRemotePolicyNeedsNoDjlAndNoOtherModule() {
    // a host that generates on an inference server pulls no libtorch: the api, Gson, SLF4J and the JDK only
    noClasses().that().resideInAPackage(OPENAI)
        .should().dependOnClassesThat().resideInAnyPackage(DJL, LLM, JINJA, CORE_ROLLOUT, CORE_CREDIT, CORE_EVAL,
            GAMES, TRAIN, GIGPO, SPI, SERVE, TESTKIT, "org.magejvm.examples..")
        .check(classes);
  }

  @Test
  void theHttpLayerKnowsNoOtherModule() {
    // the servers' HTTP layer sees Jetty, SLF4J and the JDK only, so that both servers can share it
    classes().that().resideInAPackage(HTTP)
        .should().onlyDependOnClassesThat().resideInAnyPackage(HTTP, "java..", "org.eclipse.jetty..", "org.slf4j..")
        .check(classes);
  }

  @Test
  void theServerKnowsOnlyTheApiAndTheModelModule() {
    noClasses().that().resideInAPackage(SERVE)
        .should().dependOnClassesThat().resideInAnyPackage(CORE_ROLLOUT, CORE_CREDIT, CORE_EVAL, GAMES, TRAIN,
            GIGPO, SPI, OPENAI, TESTKIT, "org.magejvm.examples..")
        .check(classes);
  }

  @Test
  void trainingNamesNeitherTheServerNorTheRemotePolicy() {
    // remote rollouts reach MageTrainer as a LanguagePolicy and a PolicySync; only the tool wires the HTTP clients
    noClasses().that().resideInAPackage(TRAIN)
        .should().dependOnClassesThat().resideInAnyPackage(OPENAI, SERVE)
        .check(classes);
  }

  @Test
  void onlyTheToolAndExamplesImportTraining() {
    noClasses().that().resideOutsideOfPackages(TRAIN, "org.magejvm.examples..")
        .should().dependOnClassesThat().resideInAPackage(TRAIN)
        .check(classes);
  }

  @Test
  void nothingOutsideTheOptimizerModuleImportsGigpo() {
    // core and training find optimizers through ServiceLoader; only the tool may name them directly
    noClasses().that().resideOutsideOfPackages(GIGPO, "org.magejvm.examples..")
        .should().dependOnClassesThat().resideInAPackage(GIGPO)
        .check(classes);
  }

  @Test
  void mainCodeNeverUsesTheTestKit() {
    noClasses().that().resideOutsideOfPackage(TESTKIT)
        .should().dependOnClassesThat().resideInAPackage(TESTKIT)
        .check(classes);
  }

  @Test
  void onlyOneClassTouchesThePyTorchEngine() {
    // DJL's engine-neutral API everywhere else; the engine's own (internal, changing) classes behind one class and
    // the classes nested in it (its handle for a loaded TorchScript module)
    noClasses().that().haveNameNotMatching("org\\.magejvm\\.impl\\.llm\\.model\\.PyTorchNative(\\$.+)?")
        .should().dependOnClassesThat().resideInAPackage("ai.djl.pytorch..")
        .check(classes);
  }

  @Test
  void everyPublicTypeOfTheApiAndTheSpiIsMarked() {
    // what a host or plugin compiles against says how settled it is; nested types share their outer type's mark.
    classes().that().resideInAnyPackage(API, SPI).and().arePublic().and().areTopLevelClasses()
        .should().beAnnotatedWith(Api.class)
        .check(classes);
  }

  @Test
  void theProductNamesNoBenchmarkOrResearchCode() {
    // mage-bench and mage-research depend on the tool, never the other way: `mage bench` and `mage experiment` find
    // their programs by class name. Their classes are not on this class path; a reference to one would still show
    // here as a dependency on its name.
    noClasses().that().resideOutsideOfPackages(BENCH, RESEARCH)
        .should().dependOnClassesThat().resideInAnyPackage(BENCH, RESEARCH)
        .check(classes);
  }

  @Test
  void mageAllAndTheToolDoNotContainTheBenchmarkOrResearchModules() throws IOException {
    // the Maven side of the rule above: no pom of mage-all's modules (nor mage-all's, nor the tool's) lists
    // mage-bench or mage-research, so neither reaches a host's class path
    Path root = Path.of("").toAbsolutePath().getParent().getParent();
    List<Path> poms = new ArrayList<>();
    for (String module : List.of("mage-impl/all", "examples/cli", "mage-api", "mage-environments-spi", "mage-gigpo")) {
      poms.add(root.resolve(module).resolve("pom.xml"));
    }
    try (Stream<Path> modules = Files.list(root.resolve("mage-impl"))) {
      modules.map(m -> m.resolve("pom.xml")).filter(Files::isRegularFile).forEach(poms::add);
    }
    String all = Files.readString(root.resolve("mage-impl/all/pom.xml"));
    org.assertj.core.api.Assertions.assertThat(all).contains("<artifactId>mage-core</artifactId>");
    for (Path pom : poms) {
      org.assertj.core.api.Assertions.assertThat(RESEARCH_ARTIFACT.matcher(Files.readString(pom)).find())
          .as(pom.toString()).isFalse();
    }
  }

  @Test
  void theExampleHostUsesOnlyApiTypes() {
    // examples/host is written as a project outside this repository would be: against the library's @Api types (any
    // status but INTERNAL; a nested type counts as marked through the type around it), the JDK, DJL and its own
    // classes. Its jar is not on this class path (its game would join every registry of these tests): the classes
    // are read from its build directory, which the test-scoped dependency on its pom makes Maven build first.
    Path hostClasses = Path.of("").toAbsolutePath().getParent().resolve("host/target/classes");
    org.assertj.core.api.Assertions.assertThat(hostClasses.resolve("org/magejvm/examples/host/HostExample.class"))
        .as("examples/host is built before this module (mvn install)").isRegularFile();
    JavaClasses host = new ClassFileImporter().importPath(hostClasses);
    classes().should(dependOnlyOnApiTypes(HOST)).check(host);
  }

  private static ArchCondition<JavaClass> dependOnlyOnApiTypes(String ownPackage) {
    return new ArchCondition<>("depend only on the JDK, DJL, their own package and @Api types of the library") {
      @Override
      public void check(JavaClass origin, ConditionEvents events) {
        for (Dependency d : origin.getDirectDependenciesFromSelf()) {
          JavaClass target = d.getTargetClass().getBaseComponentType();
          String name = target.getName();
          boolean allowed = target.isPrimitive() || name.startsWith("java.") || name.startsWith("ai.djl.")
              || target.getPackageName().equals(ownPackage) || target.getPackageName().startsWith(ownPackage + ".")
              || isMarkedApi(name);
          if (!allowed) {
            events.add(SimpleConditionEvent.violated(d, d.getDescription() + ": " + name
                + " is not an @Api type of the library"));
          }
        }
      }
    };
  }

  /** Whether a class, or the nearest type around it that carries the mark, is {@code @Api} and not INTERNAL. */
  private static boolean isMarkedApi(String className) {
    if (!className.startsWith("org.magejvm.")) {
      return false;
    }
    try {
      for (Class<?> c = Class.forName(className, false, ArchitectureTest.class.getClassLoader()); c != null;
          c = c.getEnclosingClass()) {
        Api api = c.getAnnotation(Api.class);
        if (api != null) {
          return api.status() != Api.Status.INTERNAL;
        }
      }
      return false;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }

  @Test
  void noCyclesBetweenPackages() {
    slices().matching("org.magejvm.(**)").should().beFreeOfCycles().check(classes);
  }
}

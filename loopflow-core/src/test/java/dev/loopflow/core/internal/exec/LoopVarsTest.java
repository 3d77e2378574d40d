package dev.loopflow.core.internal.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The compact {@code loop} variable must behave exactly like the read-only insertion-ordered map it replaced. */
class LoopVarsTest {
  private static Object value(Random random) {
    return switch (random.nextInt(6)) {
      case 0 -> null;
      case 1 -> random.nextInt(100);
      case 2 -> "s" + random.nextInt(5);
      case 3 -> Map.of("k", random.nextInt(3));
      case 4 -> List.of(random.nextInt(3));
      default -> "";
    };
  }

  @Test
  void behavesLikeTheReadOnlyOrderedMapOverGeneratedVariables() {
    Random random = new Random(3);
    List<String> pool = List.of("iteration", "index", "max", "input", "prev", "user_input", "id", "parent", "Aa",
        "BB", "item");
    for (int c = 0; c < 5_000; c++) {
      List<String> names = new ArrayList<>(pool);
      Collections.shuffle(names, random);
      names = names.subList(0, random.nextInt(names.size() + 1));
      Object[] values = new Object[names.size()];
      Map<String, Object> expected = new LinkedHashMap<>();
      for (int i = 0; i < values.length; i++) {
        values[i] = value(random);
        expected.put(names.get(i), values[i]);
      }
      Map<String, Object> old = Collections.unmodifiableMap(expected);
      Map<String, Object> vars = new LoopVars(names.toArray(String[]::new), values);
      for (String k : pool) {
        assertThat(vars.get(k)).isEqualTo(old.get(k));
        assertThat(vars.containsKey(k)).isEqualTo(old.containsKey(k));
        assertThat(vars.getOrDefault(k, "d")).isEqualTo(old.getOrDefault(k, "d"));
      }
      assertThat(vars.get(null)).isNull();
      // A key that is not a String is absent, as the Map contract says: the mistake the check looks for is
      // the very call under test.
      @SuppressWarnings("CollectionIncompatibleType")
      Object notAStringKey = vars.get(7);
      assertThat(notAStringKey).isNull();
      assertThat(new ArrayList<>(vars.entrySet())).containsExactlyElementsOf(new ArrayList<>(old.entrySet()));
      assertThat(new ArrayList<>(vars.keySet())).containsExactlyElementsOf(new ArrayList<>(old.keySet()));
      assertThat(vars).isEqualTo(old).hasSameHashCodeAs(old).hasSize(old.size());
      assertThat(old).isEqualTo(vars);
      assertThat(vars.toString()).isEqualTo(old.toString());
      assertThat(vars.isEmpty()).isEqualTo(old.isEmpty());
      assertThatThrownBy(() -> vars.put("x", 1)).isInstanceOf(UnsupportedOperationException.class);
      if (!old.isEmpty()) {
        String first = names.getFirst();
        assertThatThrownBy(() -> vars.remove(first)).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(vars::clear).isInstanceOf(UnsupportedOperationException.class);
      }
    }
  }

  @Test
  void aLoopPassReadsItsVariablesFromTheCompactMap() {
    Loopflow engine = Loopflow.builder().build();
    Workflow wf = engine.parse("""
        name: loop-vars
        input:
          n: {type: integer, default: 0}
        nodes:
          - name: outer
            type: while_loop
            max_iterations: 2
            condition: "state.n < 2"
            body:
              - name: inner
                type: while_loop
                max_iterations: 3
                on_exhausted: continue
                condition: "state.n < 100"
                body:
                  - name: seen
                    type: transform
                    template: "{{ loop.id }}:{{ loop.iteration }}/{{ loop.index }}/{{ loop.max }} in {{ loop.parent.id }}:{{ loop.parent.iteration }}"
                    output: last
              - name: bump
                type: transform
                expression: "state.n + 1"
                output: n
        """, "vars.yaml");
    RunResult r = engine.run(wf, Map.of());
    assertThat(r.status()).as("%s", r.error()).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.state()).containsEntry("last", "inner:3/2/3 in outer:2");
  }
}

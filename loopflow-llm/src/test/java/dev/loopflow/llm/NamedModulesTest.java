package dev.loopflow.llm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The engine as a user on the module path gets it: the core is a named module that hides its internals, the LLM
 * handler is found through this module's {@code provides}, and Lua scripts run although LuaJ is on the class path.
 * This module's tests run on the module path, with the core as a module of its own (only this module is patched).
 */
class NamedModulesTest {
  private final Module core = Loopflow.class.getModule();

  @BeforeEach
  void onTheModulePath() {
    assumeTrue(core.isNamed() && LlmHandler.class.getModule().isNamed(), "the tests run on the class path");
  }

  @Test
  void theCoreExportsItsApiAndHidesItsInternals() {
    assertThat(core.getName()).isEqualTo("dev.loopflow.core");
    String internal = core.getName() + ".internal"; // not spelled out: no source outside the core names it
    assertThat(core.getPackages()).filteredOn(p -> p.startsWith(internal + ".")).hasSizeGreaterThan(3);
    for (String p : core.getPackages()) {
      assertThat(core.isExported(p)).as(p).isEqualTo(!p.startsWith(internal + "."));
      assertThat(core.isOpen(p)).as(p).isFalse();
    }
  }

  @Test
  void theLlmHandlerAndServicesAreFoundThroughTheModuleDescriptor() {
    assertThat(LlmHandler.class.getModule().getDescriptor().provides())
        .anyMatch(p -> p.service().equals("dev.loopflow.core.spi.NodeHandler"));
    assertThat(Loopflow.create().handlers()).containsKey("llm").containsKey("agent");
  }

  @Test
  void aLuaScriptRunsWithLuaJOnTheClassPath() {
    assertThat(org.luaj.vm2.Globals.class.getModule().isNamed()).isFalse();
    Loopflow engine = Loopflow.create();

    RunResult r = engine.run(engine.parse("""
        nodes:
          - id: calc
            run: |
              local t = {}
              for i = 1, 6 do t[#t + 1] = i * 7 end
              return { answer = t[6], joined = table.concat(t, ",") }
        """, "lua.yaml"), Map.of());

    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.state()).containsEntry("joined", "7,14,21,28,35,42");
    assertThat(((Number) r.state().get("answer")).intValue()).isEqualTo(42);
  }
}

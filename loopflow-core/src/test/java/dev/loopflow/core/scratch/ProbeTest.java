package dev.loopflow.core.scratch;

import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.core.*;
import dev.loopflow.core.expr.*;
import java.nio.file.*;
import org.junit.jupiter.api.Test;

class ProbeTest {
  @Test
  void probe() throws Exception {
    for (String f : new String[] {"tab_indent", "yaml_syntax_error", "bad_indentation"}) {
      String text = Files.readString(Path.of("src/test/resources/broken/" + f + ".yaml"));
      try (JsonParser p = YAMLFactory.builder().build().createParser(text)) {
        while (p.nextToken() != null) {}
      } catch (JsonProcessingException e) {
        System.out.println("== " + f + " " + e.getClass() + " loc=" + e.getLocation());
        System.out.println("orig: " + e.getOriginalMessage());
        Throwable c = e.getCause();
        System.out.println("cause: " + c + (c == null ? "" : " " + c.getClass()));
        if (c instanceof org.yaml.snakeyaml.error.MarkedYAMLException m) {
          System.out.println("problem=" + m.getProblem() + " pm=" + m.getProblemMark() + " ctx=" + m.getContext() + " cm=" + m.getContextMark());
        }
      }
    }
    for (String t : new String[] {"{{ input.x ", "{% if x ", "{{ a == == 0 }}", "{{ a.b( }}", "{% for x in %}{% endfor %}", "{% endif %}", "{{ }}", "{% if x %}\nhello\n{{ y |nofilter }}", "line1\n{{ x ==  }}"}) {
      try {
        Expressions.template(t);
        System.out.println("OK template " + t);
      } catch (TemplateSyntaxException e) {
        System.out.println("T[" + t + "] line=" + e.line() + " -> " + e.getMessage());
      }
    }
    for (String t : new String[] {"state.count <", "a == == 0", "(a", "a b", "x |nofilter", ""}) {
      try {
        Expressions.condition(t);
        System.out.println("OK cond " + t);
      } catch (TemplateSyntaxException e) {
        System.out.println("C[" + t + "] -> " + e.getMessage());
      }
    }
  }
}

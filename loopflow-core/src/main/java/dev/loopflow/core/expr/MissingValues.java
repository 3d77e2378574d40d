package dev.loopflow.core.expr;

import com.hubspot.jinjava.Jinjava;
import com.hubspot.jinjava.JinjavaConfig;
import com.hubspot.jinjava.el.ExtendedSyntaxBuilder;
import com.hubspot.jinjava.el.TruthyTypeConverter;
import com.hubspot.jinjava.el.ext.AdditionOperator;
import com.hubspot.jinjava.el.ext.ExtendedParser;
import com.hubspot.jinjava.interpret.JinjavaInterpreter;
import com.hubspot.jinjava.lib.filter.Filter;
import java.util.List;
import java.util.Map;
import java.util.Set;
import jinjava.de.odysseus.el.ExpressionFactoryImpl;
import jinjava.de.odysseus.el.misc.NumberOperations;
import jinjava.de.odysseus.el.misc.TypeConverter;
import jinjava.de.odysseus.el.tree.TreeStore;
import jinjava.de.odysseus.el.tree.impl.Cache;
import jinjava.de.odysseus.el.tree.impl.Parser;
import jinjava.de.odysseus.el.tree.impl.ast.AstBinary;
import jinjava.de.odysseus.el.tree.impl.ast.AstNode;
import jinjava.javax.el.ExpressionFactory;

/*
 * Design notes.
 *
 * A missing value (a node that was skipped or has not run yet, a key that is not there, an input not given) is
 * null inside Jinjava. Jinjava prints a null as empty text, but on the way several of its operations turn it into
 * something else: `trim`, `string`, `tojson`, `pprint` give the text "null", `'a' + x` gives "anull", `format`
 * inserts "null", and the date filters give the current time. The rule kept here is the one users read in the
 * docs: a missing value renders as empty text, whatever expression it goes through.
 *
 *  - A filter applied to a missing value gives a missing value, so a chain of filters stays missing and
 *    `default` at its end still applies: `x.y | trim | default('z')` is 'z'. The exceptions are the filters that
 *    exist to handle or measure one, which see it as Jinja's undefined: `default`/`d` replace it; `length`,
 *    `count` and `wordcount` give 0; `int` and `float` give 0; `bool` gives false; `string` gives ''.
 *  - `format` inserts a missing argument as empty text.
 *  - `+` with text on one side and a missing value on the other joins the text with nothing (as `~` already does).
 *
 * Every filter Jinjava has is wrapped when the shared instance is built, so a filter added by a later Jinjava
 * version is covered too; MissingValuesTest renders every registered filter on a missing value.
 */
final class MissingValues {
  /** Filters called with the missing value itself; every other filter passes a missing value through. */
  private static final Set<String> SEE_MISSING = Set.of("default", "d", "length", "count", "wordcount", "int",
      "float", "bool");
  /** Filters whose missing arguments are inserted as empty text. */
  private static final Set<String> TEXT_ARGUMENTS = Set.of("format");

  private MissingValues() {}

  /** A Jinjava whose filters and {@code +} keep missing values empty. */
  static Jinjava jinjava(JinjavaConfig config) {
    Jinjava jinjava = new Jinjava(config) {
      @Override
      public ExpressionFactory getExpressionFactory() {
        return FACTORY;
      }
    };
    for (Filter f : List.copyOf(jinjava.getGlobalContext().getAllFilters())) {
      jinjava.getGlobalContext().registerFilter(new MissingAwareFilter(f));
    }
    return jinjava;
  }

  // What Jinjava builds its own factory with (JUEL's default profile: method calls and varargs on, a tree cache of
  // 1000, Jinjava's converter); only the parser differs.
  private static final ExpressionFactory FACTORY = new ExpressionFactoryImpl(new TreeStore(
      new Builder(jinjava.de.odysseus.el.tree.impl.Builder.Feature.METHOD_INVOCATIONS,
          jinjava.de.odysseus.el.tree.impl.Builder.Feature.VARARGS), new Cache(1000)), new TruthyTypeConverter() {
            // `~` joins and other coercions to text write a map or list as JSON, as printing it does.
            @Override
            protected String coerceToString(Object value) {
              return Jinja.isStructured(value) ? Jinja.structuredText(value) : super.coerceToString(value);
            }
          });

  /** An object of the engine that a lookup reached is no value: a filter sees it as missing (JinjaLimits.data). */
  private static Object engineObjectAsMissing(Object var) {
    return var == null || Jinja.isStructured(var) || JinjaLimits.data(var) != null
        || var instanceof Map.Entry<?, ?> ? var : null;
  }

  private static final class MissingAwareFilter implements Filter {
    private final Filter inner;

    MissingAwareFilter(Filter inner) {
      this.inner = inner;
    }

    @Override
    public String getName() {
      return inner.getName();
    }

    @Override
    public boolean preserveSafeString() {
      return inner.preserveSafeString();
    }

    @Override
    public Object filter(Object var, JinjavaInterpreter interpreter, String... args) {
      var = engineObjectAsMissing(var);
      if (var == null && !SEE_MISSING.contains(getName())) {
        return getName().equals("string") ? "" : null;
      }
      if (getName().equals("string") && Jinja.isStructured(var)) {
        return Jinja.structuredText(var);
      }
      return inner.filter(var, interpreter, args);
    }

    @Override
    public Object filter(Object var, JinjavaInterpreter interpreter, Object[] args, Map<String, Object> kwargs) {
      var = engineObjectAsMissing(var);
      if (var == null && !SEE_MISSING.contains(getName())) {
        return getName().equals("string") ? "" : null;
      }
      if (getName().equals("string") && Jinja.isStructured(var)) {
        return Jinja.structuredText(var);
      }
      Object[] a = args;
      if (TEXT_ARGUMENTS.contains(getName())) {
        a = args.clone();
        for (int i = 0; i < a.length; i++) {
          if (a[i] == null) {
            a[i] = "";
          }
        }
      }
      return inner.filter(var, interpreter, a, kwargs);
    }
  }

  /** {@code +}: text plus a missing value is the text, as with {@code ~}; everything else as Jinjava does it. */
  static final class Addition extends AdditionOperator {
    static final Addition OP = new Addition();

    @Override
    protected Object apply(TypeConverter converter, Object o1, Object o2) {
      if (o1 == null && o2 instanceof String) {
        return o2;
      }
      if (o2 == null && o1 instanceof String) {
        return o1;
      }
      return super.apply(converter, o1, o2);
    }
  }

  /**
   * {@code /}: as Jinjava divides, except by zero. Jinjava divides numbers as doubles, so {@code n / 0} gave
   * Infinity and {@code 0 / 0} NaN, rendered as those words: a wrong value, silently. Dividing by zero (or by a
   * missing value, which counts as zero) is an error instead, as {@code //} and {@code %} by zero already are.
   */
  static final class Division extends AstBinary.SimpleOperator {
    static final Division OP = new Division();

    @Override
    protected Object apply(TypeConverter converter, Object o1, Object o2) {
      if (o2 == null) {
        throw new ArithmeticException("/ by zero"); // EL makes missing / missing 0 without dividing
      }
      Number quotient = NumberOperations.div(converter, o1, o2);
      if (quotient instanceof Double d && !Double.isFinite(d) && converter.convert(o2, Double.class) == 0.0) {
        throw new ArithmeticException("/ by zero");
      }
      return quotient;
    }

    @Override
    public String toString() {
      return "/";
    }
  }

  /** Jinjava's expression syntax, with {@link Addition} in place of its {@code +} and {@link Division} of {@code /}. */
  static final class Builder extends ExtendedSyntaxBuilder {
    private static final long serialVersionUID = 1L;

    Builder(Feature... features) {
      super(features);
    }

    @Override
    protected Parser createParser(String expression) {
      return new ExtendedParser(this, expression) {
        @Override
        protected AstBinary createAstBinary(AstNode left, AstNode right, AstBinary.Operator operator) {
          AstBinary.Operator op = operator == AdditionOperator.OP ? Addition.OP
              : operator == AstBinary.DIV ? Division.OP : operator;
          return super.createAstBinary(left, right, op);
        }
      };
    }
  }
}

package dev.loopflow.core.expr;

import com.hubspot.jinjava.JinjavaConfig;
import com.hubspot.jinjava.el.TypeConvertingMapELResolver;
import com.hubspot.jinjava.el.ext.JinjavaBeanELResolver;
import com.hubspot.jinjava.el.ext.JinjavaListELResolver;
import com.hubspot.jinjava.interpret.CollectionTooBigException;
import com.hubspot.jinjava.interpret.JinjavaInterpreter;
import com.hubspot.jinjava.interpret.OutputTooBigException;
import com.hubspot.jinjava.interpret.TemplateError;
import com.hubspot.jinjava.lib.filter.Filter;
import com.hubspot.jinjava.lib.fn.ELFunctionDefinition;
import com.hubspot.jinjava.lib.tag.SetTag;
import com.hubspot.jinjava.tree.parse.TagToken;
import java.lang.reflect.Method;
import java.time.temporal.TemporalAccessor;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Date;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import jinjava.javax.el.ArrayELResolver;
import jinjava.javax.el.CompositeELResolver;
import jinjava.javax.el.ELContext;
import jinjava.javax.el.ELException;
import jinjava.javax.el.ELResolver;
import jinjava.javax.el.ResourceBundleELResolver;

/*
 * Design notes.
 *
 * What keeps one template from taking the JVM's memory. Jinjava bounds what it renders (maxOutputSize), the strings
 * its own operators build (~, +) and the lists and maps it creates or reads (maxListSize, maxMapSize). It does not
 * bound three things, which are guarded here, each before the allocation happens:
 *  - Java methods on values ('x'.repeat(n), '%0999999999d'.formatted(1), s.indent(n), s.replace(a, b)) and filters
 *    whose size comes from an argument (center, indent, format, batch, round, replace, regex_replace): every method
 *    and filter call passes through Bounded.invoke, which computes the size of the result from the arguments first;
 *  - range(), which Jinjava silently cuts at its limit (a wrong answer): replaced by one that fails;
 *  - values whose parts are shared: {% set l = [l, l] %}, twenty times, is small in memory but exponential as text,
 *    JSON or a copy, and Jinjava's own comparisons and conversions walk it in full. Every {% set %} and the value
 *    of every {{ expression }} template are measured written out in full (Sizer), in time proportional to their
 *    distinct parts, and fail over MAX_VALUE_NODES.
 * Every limit fails the template with a message that names it, never a truncated result.
 */
final class JinjaLimits {
  /** Longest string (in characters) a template may build or render. */
  static final int MAX_STRING = 32 * 1024 * 1024;
  /** Most items in one list or map a template may build or read. */
  static final int MAX_ITEMS = 1_000_000;
  /** Most numbers one range() may produce. */
  static final int MAX_RANGE = 100_000;
  /** Most values (items and nested items together) in the value a template yields. */
  static final int MAX_VALUE_NODES = 10_000_000;
  /** Most digits after the point that round may ask for. */
  static final int MAX_ROUND_PRECISION = 1_000;
  /** How deep the values a template builds may nest. */
  static final int MAX_NESTING = 500;
  /** How deep templates and macros may nest calls. */
  static final int MAX_DEPTH = 10;
  /**
   * How deep brackets may nest in one expression. Jinjava's expression parser looks ahead through a linked list of
   * tokens once per level, so its time grows with the square of the depth (20,000 parentheses took nine minutes), and
   * it recurses once per level; no hand-written expression comes near this.
   */
  static final int MAX_BRACKETS = 100;
  /** How deep tags ({% if %}, {% for %}, ...) may nest in one template; rendering recurses once per level. */
  static final int MAX_TAG_NESTING = 100;

  private JinjaLimits() {}

  /** The render's thread was interrupted (its node was cancelled or timed out): the render ends here. */
  static final class Stopped extends RuntimeException {
    Stopped() {
      super("the template's render was stopped: its node was cancelled or timed out", null, false, false);
    }
  }

  /** Ends the render when its thread was interrupted; the interrupt stays set for whoever waits on the node. */
  static void stopIfInterrupted() {
    if (Thread.currentThread().isInterrupted()) {
      throw new Stopped();
    }
  }

  /**
   * A template went over one of the limits above; the message names the limit. An ELException, because Jinjava
   * reports those with their message as an argument; other exceptions' messages it splices into a format string,
   * where a '%' (a format filter's argument, say) would be interpreted.
   */
  static final class LimitException extends ELException {
    LimitException(String message) {
      super(message);
    }
  }

  static JinjavaConfig.Builder apply(JinjavaConfig.Builder b) {
    return b.withMaxOutputSize(MAX_STRING)
        .withMaxStringLength(MAX_STRING)
        .withMaxListSize(MAX_ITEMS)
        .withMaxMapSize(MAX_ITEMS)
        .withRangeLimit(MAX_RANGE)
        .withMaxRenderDepth(MAX_DEPTH)
        .withMaxMacroRecursionDepth(MAX_DEPTH)
        .withElResolver(resolver());
  }

  /** Jinjava's read-only resolver chain, with the bean resolver (method and filter calls) replaced by Bounded. */
  private static ELResolver resolver() {
    CompositeELResolver r = new CompositeELResolver();
    r.add(new ArrayELResolver(true));
    r.add(new JinjavaListELResolver(true));
    r.add(new TypeConvertingMapELResolver(true));
    r.add(new ResourceBundleELResolver());
    r.add(new Bounded());
    return r;
  }

  /** Replaces Jinjava's range(), which stops at its limit without saying so, by one that fails. */
  static ELFunctionDefinition rangeFunction() {
    try {
      Method m = JinjaLimits.class.getDeclaredMethod("range", Object.class, Object[].class);
      m.setAccessible(true);
      return new ELFunctionDefinition("", "range", m);
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Python's range(stop) / range(start, stop[, step]) over whole numbers; fails past MAX_RANGE numbers. */
  static List<Integer> range(Object first, Object... more) {
    long start = 0;
    long stop;
    long step = 1;
    if (more == null || more.length == 0) {
      stop = whole(first, "range");
    } else {
      start = whole(first, "range");
      stop = whole(more[0], "range");
      if (more.length > 1) {
        step = whole(more[1], "range");
      }
    }
    if (step == 0) {
      throw new LimitException("range() step must not be zero");
    }
    double count = Math.max(0, Math.ceil(((double) stop - start) / step));
    if (count > MAX_RANGE) {
      throw new LimitException("range() would produce " + (long) count + " numbers; templates may produce at most "
          + MAX_RANGE);
    }
    List<Integer> out = new ArrayList<>((int) count);
    for (long i = start; step > 0 ? i < stop : i > stop; i += step) {
      if (i != (int) i) {
        throw new LimitException("range() numbers must lie between " + Integer.MIN_VALUE + " and "
            + Integer.MAX_VALUE + ", got " + i);
      }
      out.add((int) i);
    }
    return out;
  }

  private static long whole(Object o, String what) {
    if (o instanceof Number n) {
      return n.longValue();
    }
    try {
      return (long) Double.parseDouble(String.valueOf(o).trim());
    } catch (NumberFormatException e) {
      throw new LimitException(what + "() takes whole numbers, got '" + o + "'");
    }
  }

  /**
   * A plain copy of a template's value (see Values.plain). Parts shared inside the value are copied once and stay
   * shared, so the copy costs what the value holds in memory; the value fails when written out in full it would
   * exceed MAX_VALUE_NODES values or MAX_NESTING levels (see Sizer).
   */
  static Object plain(Object value) {
    new Sizer().size(value, 0);
    return copy(value, new IdentityHashMap<>());
  }

  private static Object copy(Object value, IdentityHashMap<Object, Object> done) {
    if (!(value instanceof Map<?, ?> || value instanceof Collection<?> || value instanceof Object[])) {
      return data(value);
    }
    Object seen = done.get(value);
    if (seen != null) {
      return seen;
    }
    if (value instanceof Map<?, ?> map) {
      Map<String, Object> out = new LinkedHashMap<>();
      done.put(value, out);
      for (Map.Entry<?, ?> e : map.entrySet()) {
        out.put(String.valueOf(e.getKey()), copy(e.getValue(), done));
      }
      return out;
    }
    Collection<?> items = value instanceof Collection<?> c ? c : Arrays.asList((Object[]) value);
    List<Object> out = new ArrayList<>(items.size());
    done.put(value, out);
    for (Object o : items) {
      out.add(copy(o, done));
    }
    return out;
  }

  /**
   * A leaf of a template's value as data: text, a number, true/false, a date as its text, or null. Anything else
   * is an object of the engine a lookup reached (Jinjava resolves a few reserved names, such as its interpreter
   * and "filter:NAME", whatever map they are looked up in, so {{ state[key] }} with a hostile key returns them):
   * it never becomes a value, and reads as missing.
   */
  static Object data(Object value) {
    if (value == null || value instanceof String || value instanceof Number || value instanceof Boolean) {
      return value;
    }
    if (value instanceof CharSequence || value instanceof Character || value instanceof TemporalAccessor
        || value instanceof Date || value instanceof com.hubspot.jinjava.objects.date.PyishDate
        || value instanceof com.hubspot.jinjava.objects.SafeString) {
      return value.toString();
    }
    return null;
  }

  /** Whether the value is data all the way down (see {@link #data}). */
  static boolean isData(Object value) {
    return isData(value, Collections.newSetFromMap(new IdentityHashMap<>()));
  }

  private static boolean isData(Object value, Set<Object> seen) {
    if (value instanceof Map<?, ?> || value instanceof Collection<?> || value instanceof Object[]) {
      if (!seen.add(value)) {
        return true;
      }
      Collection<?> items = value instanceof Map<?, ?> m ? m.values()
          : value instanceof Collection<?> c ? c : Arrays.asList((Object[]) value);
      for (Object o : items) {
        if (!isData(o, seen)) {
          return false;
        }
      }
      return true;
    }
    return value == null || data(value) != null;
  }

  /** Checks the value a {@code {% set %}} assigns, so no template variable holds a value over the limits. */
  static final class BoundedSetTag extends SetTag {
    @Override
    public void executeSet(TagToken tagToken, JinjavaInterpreter interpreter, String[] varTokens, List<?> exprVals,
        boolean allowDeferredValueOverride) {
      if (exprVals != null) { // null when the expression failed; its error is already recorded
        Sizer sizer = new Sizer();
        for (Object v : exprVals) {
          sizer.size(v, 0);
        }
      }
      super.executeSet(tagToken, interpreter, varTokens, exprVals, allowDeferredValueOverride);
    }
  }

  /**
   * Counts the values a value holds written out in full (what a copy, its text or its JSON costs), counting a shared
   * part once per place it appears, in time proportional to its distinct parts. Templates can share parts
   * ({% set l = [l, l] %}, repeated), which makes a value small in memory but exponential when written out.
   */
  private static final class Sizer {
    private final IdentityHashMap<Object, Long> sizes = new IdentityHashMap<>();

    long size(Object value, int depth) {
      Iterable<?> children;
      if (value instanceof Map<?, ?> m) {
        children = m.values();
      } else if (value instanceof Collection<?> c) {
        children = c;
      } else if (value instanceof Object[] arr) {
        children = Arrays.asList(arr);
      } else {
        return 1;
      }
      Long known = sizes.get(value);
      if (known != null) {
        return known;
      }
      if (depth >= MAX_NESTING) {
        throw new LimitException("a value in the template is nested more than " + MAX_NESTING + " levels deep");
      }
      long total = 1;
      for (Object child : children) {
        total += size(child, depth + 1);
        if (total > MAX_VALUE_NODES) {
          throw new LimitException("a value in the template holds more than " + MAX_VALUE_NODES + " values "
              + "(items and nested items, a shared part counted each time it appears)");
        }
      }
      sizes.put(value, total);
      return total;
    }
  }

  /** The message to show for a template error caused by a limit, or null when it was something else. */
  static String limitMessage(TemplateError e) {
    String m = limitMessage(e.getException());
    if (m != null) {
      return m;
    }
    if (e.getReason() == TemplateError.ErrorReason.OUTPUT_TOO_BIG) {
      return "the template's output is over the limit of " + MAX_STRING + " characters";
    }
    if (e.getReason() == TemplateError.ErrorReason.COLLECTION_TOO_BIG) {
      return "a list or map in the template is over the limit of " + MAX_ITEMS + " items";
    }
    return null;
  }

  /** The message for an exception caused by a limit (anywhere in its causes), or null. */
  static String limitMessage(Throwable thrown) {
    for (Throwable t = thrown; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof LimitException l) {
        return l.getMessage();
      }
      if (t instanceof OutputTooBigException) {
        return "the template's output is over the limit of " + MAX_STRING + " characters";
      }
      if (t instanceof CollectionTooBigException c) {
        return "a list or map in the template holds " + c.getSize() + " items, over the limit of "
            + c.getMaxSize();
      }
    }
    return null;
  }

  /**
   * Jinjava's bean resolver (read-only) with sizes checked around method and filter calls: before the call when
   * the arguments decide the size of the result, after it for everything else.
   */
  private static final class Bounded extends JinjavaBeanELResolver {
    /** A format specifier: %[index$][flags][width][.precision]conversion. */
    private static final Pattern FORMAT_SPEC =
        Pattern.compile("%(?:\\d+\\$)?[-#+ 0,(<]*(\\d+)?(?:\\.(\\d+))?[a-zA-Z%]");

    Bounded() {
      super(true);
    }

    /** The engine's own objects, which a hostile key can reach ({{ state[key] }}): nothing of them is readable. */
    private static boolean engine(Object base) {
      return base instanceof JinjavaInterpreter || base instanceof com.hubspot.jinjava.interpret.Context
          || base instanceof com.hubspot.jinjava.Jinjava || base instanceof JinjavaConfig || base instanceof ELContext
          || base instanceof Class<?> || base instanceof ClassLoader || base instanceof Thread;
    }

    @Override
    public Object getValue(ELContext context, Object base, Object property) {
      stopIfInterrupted();
      if (engine(base)) {
        context.setPropertyResolved(true);
        return null;
      }
      return super.getValue(context, base, property);
    }

    @Override
    public Object invoke(ELContext context, Object base, Object method, Class<?>[] paramTypes, Object[] params) {
      stopIfInterrupted();
      if (engine(base)) {
        context.setPropertyResolved(true);
        return null;
      }
      String name = String.valueOf(method);
      Object[] p = params == null ? new Object[0] : params;
      if (base instanceof Filter f && name.equals("filter")) {
        beforeFilter(f.getName(), p);
      } else if (base instanceof String s) {
        beforeStringMethod(s, name, p);
      } else if ((base instanceof Collection<?> || base instanceof Map<?, ?>) && name.equals("toString")) {
        // Shared parts make a structure's text exponential in its size in memory; the string filter and {{ }}
        // write it through Jinjava's length-limited writer instead.
        throw new LimitException("toString() is not available on lists and maps in templates; use {{ value }} or "
            + "the tojson filter");
      }
      Object result = super.invoke(context, base, method, paramTypes, params);
      after(result, name);
      return result;
    }

    private static void beforeStringMethod(String s, String name, Object[] p) {
      switch (name) {
        case "repeat" -> {
          if (p.length == 1) {
            check((long) s.length() * Math.max(0, whole(p[0], "repeat")), "'...'.repeat()");
          }
        }
        case "indent" -> {
          if (p.length == 1) {
            check(s.length() + lines(s) * Math.max(0, whole(p[0], "indent")), "'...'.indent()");
          }
        }
        case "formatted" -> checkFormat(s, "'...'.formatted()");
        case "replace" -> {
          if (p.length == 2 && p[0] instanceof CharSequence a && p[1] instanceof CharSequence b) {
            check(replacedLength(s, a.toString(), b.toString()), "'...'.replace()");
          }
        }
        case "replaceAll", "replaceFirst" -> {
          if (p.length == 2 && p[0] != null && p[1] != null) {
            check(regexReplacedLength(s, String.valueOf(p[0]), String.valueOf(p[1]), name.equals("replaceAll")),
                "'...'." + name + "()");
          }
        }
        default -> {
          // every other String method gives a result no longer than its inputs; after() checks it anyway
        }
      }
    }

    /** Filter calls arrive as filter(value, interpreter, positional args, named args). */
    private static void beforeFilter(String filter, Object[] p) {
      Object value = p.length > 0 ? p[0] : null;
      Object[] args = p.length > 2 && p[2] instanceof Object[] a ? a : new Object[0];
      Map<?, ?> kwargs = p.length > 3 && p[3] instanceof Map<?, ?> m ? m : Map.of();
      Object first = args.length > 0 ? args[0] : null;
      String text = value == null ? "" : String.valueOf(value instanceof CharSequence ? value : "");
      switch (filter) {
        case "center" -> {
          if (first != null) {
            check(whole(first, "center"), "the center filter's width");
          }
        }
        case "indent" -> {
          Object w = first != null ? first : kwargs.get("width");
          if (w != null) {
            check(text.length() + lines(text) * Math.max(0, whole(w, "indent")), "the indent filter");
          }
        }
        case "format" -> checkFormat(text, "the format filter");
        case "batch" -> {
          if (first != null && whole(first, "batch") > MAX_ITEMS) {
            throw new LimitException("the batch filter's size " + whole(first, "batch") + " is over the limit of "
                + MAX_ITEMS + " items");
          }
        }
        case "round" -> {
          if (first != null && Math.abs(whole(first, "round")) > MAX_ROUND_PRECISION) {
            throw new LimitException("the round filter's precision " + first + " is over the limit of "
                + MAX_ROUND_PRECISION + " digits");
          }
        }
        case "replace" -> {
          if (args.length >= 2 && args[0] != null && args[1] != null) {
            check(replacedLength(text, String.valueOf(args[0]), String.valueOf(args[1])), "the replace filter");
          }
        }
        case "regex_replace" -> {
          if (args.length >= 2 && args[0] != null && args[1] != null) {
            check(regexReplacedLength(text, String.valueOf(args[0]), String.valueOf(args[1]), true),
                "the regex_replace filter");
          }
        }
        default -> {
          // the other filters give results no bigger than a small multiple of their input; after() checks them
        }
      }
    }

    private static void after(Object result, String what) {
      if (result instanceof CharSequence cs) {
        check(cs.length(), what + "()");
      } else if (result instanceof Collection<?> c && c.size() > MAX_ITEMS) {
        throw new CollectionTooBigException(c.size(), MAX_ITEMS);
      } else if (result instanceof Map<?, ?> m && m.size() > MAX_ITEMS) {
        throw new CollectionTooBigException(m.size(), MAX_ITEMS);
      }
    }

    private static void check(long length, String what) {
      if (length > MAX_STRING) {
        throw new LimitException(what + " would build a string of " + length + " characters; templates may build "
            + "strings of at most " + MAX_STRING);
      }
    }

    /** Widths and precisions in a format string are allocations the caller chooses. */
    private static void checkFormat(String format, String what) {
      Matcher m = FORMAT_SPEC.matcher(format);
      while (m.find()) {
        for (int g = 1; g <= 2; g++) {
          String n = m.group(g);
          if (n != null && (n.length() > 9 || Long.parseLong(n) > MAX_STRING)) {
            throw new LimitException(what + ": the width or precision in '" + m.group() + "' is over the limit "
                + "of " + MAX_STRING + " characters");
          }
        }
      }
    }

    private static long lines(String s) {
      return s.isEmpty() ? 0 : s.lines().count();
    }

    private static long replacedLength(String s, String target, String replacement) {
      if (target.isEmpty()) {
        return s.length() + (long) (s.length() + 1) * replacement.length();
      }
      long count = 0;
      for (int i = s.indexOf(target); i >= 0; i = s.indexOf(target, i + target.length())) {
        count++;
      }
      return s.length() + count * (replacement.length() - target.length());
    }

    /** An upper bound: each match is replaced by the replacement's text plus, per group reference, the match. */
    private static long regexReplacedLength(String s, String regex, String replacement, boolean all) {
      Matcher m;
      try {
        m = Pattern.compile(regex).matcher(s);
      } catch (PatternSyntaxException e) {
        return s.length(); // the call itself reports the bad pattern
      }
      long refs = replacement.chars().filter(c -> c == '$').count();
      long length = s.length();
      while (m.find()) {
        length += replacement.length() + refs * (m.end() - m.start());
        if (length > MAX_STRING || !all) {
          break;
        }
        if (m.end() == m.start() && m.end() >= s.length()) {
          break;
        }
      }
      return length;
    }
  }
}

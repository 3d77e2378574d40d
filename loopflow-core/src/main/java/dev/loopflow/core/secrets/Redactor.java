package dev.loopflow.core.secrets;

import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.event.Events;
import dev.loopflow.core.model.InputSpec;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunError;
import dev.loopflow.core.run.Waiting;
import dev.loopflow.core.store.NodeExecution;
import dev.loopflow.core.store.RunRecord;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Masks credentials in everything a run writes down or hands out: the run record (including its workflow source),
 * node executions, events, and the result. The engine builds one per run ({@link #forRun}) and passes everything
 * through it before the journal, event listeners (the JSONL file, live progress) or the caller see it.
 *
 * <p>What is masked, by {@link #MASK}:
 * <ul>
 *   <li><b>by name</b>: in any map, the value of a credential-named key ({@link CredentialNames}), whatever its
 *       length, when it is a string or a number (or a list of them); also under the names of inputs declared
 *       {@code writeOnly: true} or rendered by a template written under a credential-named key in the workflow
 *       ({@code Authorization: "Bearer {{ input.t }}"} makes {@code t} one), and under those template sources
 *       themselves (the journal records rendered templates under their source text);
 *   <li><b>by value</b>: every occurrence, inside any string and any map key, of a known credential value of
 *       {@value #MIN_VALUE_LENGTH} characters or more. Known values are those of credential-named environment
 *       variables, the literals under credential-named keys in the workflow source, the credential-named and
 *       {@code writeOnly} inputs and the inputs such templates render, and, learned as the run goes, every value
 *       found under a credential-named key in anything masked (a node result such as
 *       {@code {"access_token": "..."}}). A {@code Bearer X} value also teaches {@code X};
 *   <li><b>by overlap</b>, for excerpts that cut through a credential ({@link SecretPieces}): every run of 6 or more
 *       characters that is part of a known opaque value (no whitespace, not a path or URL), wherever it stands,
 *       and at every cut mark ({@code ...}, {@code …}, {@code [cut}) the start of a known value of 4 or more
 *       characters just before it and the end of one just after it;
 *   <li><b>by shape</b>: well-known token formats ({@link TokenShapes});
 *   <li>in the workflow source, each scalar under a credential-named key is replaced where it is written, the rest
 *       of the text staying byte-identical.
 * </ul>
 *
 * <p>What must stay true: masking is a pure function of its input and of what the redactor knows, and knowledge
 * only grows, so a value masked once stays masked in everything written after; structures with nothing to mask
 * come back as the same instances. Thread-safe.
 *
 * <p>Because masking is such a function, a short text found to hold nothing to mask is remembered as clean together
 * with the knowledge it was checked against, and asked again it is answered without a scan. The verdict holds only
 * while that knowledge is current: learning a value replaces the knowledge, so every text is checked again against
 * the new value (RedactorCleanCacheTest).
 */
public final class Redactor {
  public static final String MASK = "[redacted]";
  /** Shorter values are masked only by name: masking them everywhere would hit ordinary words. */
  public static final int MIN_VALUE_LENGTH = 8;
  /** What a streamed text keeps back at least: longer than the shortest tail any token shape needs to match. */
  public static final int STREAM_HOLDBACK = 64;
  /** Learning stops here; a run that produces more credentials than this still has them masked by name. */
  private static final int MAX_VALUES = 1024;
  private static final Pattern SCHEME = Pattern.compile("(?i)(?:bearer|basic|token|bot)\\s+(\\S{8,})");
  /** An input named in a template: {@code input.NAME}, {@code inputs.NAME}, {@code state.NAME}, or with brackets. */
  private static final Pattern INPUT_REFERENCE = Pattern.compile(
      "\\b(?:input|inputs|state)(?:\\.([A-Za-z_][A-Za-z0-9_]*)|\\[\\s*['\"]([^'\"]+)['\"]\\s*])");

  /** Texts up to this long have their "nothing to mask" verdict remembered; longer ones are scanned every time. */
  static final int CLEAN_MAX_LENGTH = 256;
  private static final int CLEAN_SLOTS = 512;

  private final Set<String> keys;
  private final String source;
  private final SourceCredentials sourceCredentials;
  /** What is known, replaced by a new list (never changed in place) whenever something is learned. */
  private volatile List<String> values = List.of();
  /**
   * Texts found to hold nothing to mask, each with the knowledge it was checked against (one slot per hash). The
   * same node ids, kinds, run ids and keys reach {@link #text} many times a pass; a slot answers for its text only
   * while the knowledge is that very list, so learning anything makes every remembered verdict stale at once.
   */
  private final Clean[] clean = new Clean[CLEAN_SLOTS];

  /** A text found clean against {@code known}; immutable, so a slot can be read and replaced without a lock. */
  private record Clean(String text, List<String> known) {}

  private Redactor(Set<String> keys, String source, SourceCredentials sourceCredentials) {
    this.keys = Set.copyOf(keys);
    this.source = source;
    this.sourceCredentials = sourceCredentials;
  }

  /**
   * The redactor of one run: credential-named variables of {@code environment}, the credentials written in the
   * workflow source, and the credential-named or {@code writeOnly} inputs.
   */
  public static Redactor forRun(Map<String, String> environment, Workflow workflow, Map<String, ?> inputs) {
    return forRun(environment, workflow, workflow.source() == null ? null : SourceCredentials.scan(workflow.source()),
        inputs);
  }

  /**
   * As {@link #forRun(Map, Workflow, Map)}, with the credentials of the workflow's source already found (when it was
   * loaded); null when it has no source.
   */
  public static Redactor forRun(Map<String, String> environment, Workflow workflow, SourceCredentials found,
      Map<String, ?> inputs) {
    if (found != null && !found.isOf(workflow.source())) {
      throw new IllegalArgumentException("the credentials given were not found in this workflow's source");
    }
    Set<String> keys = new HashSet<>();
    for (InputSpec spec : workflow.inputs().values()) {
      if (spec.schema() != null && Boolean.TRUE.equals(spec.schema().get("writeOnly"))) {
        keys.add(spec.name());
      }
    }
    if (found != null) {
      keys.addAll(found.templates());
      // An input a credential template renders ("Bearer {{ input.token }}") holds a credential: known from the
      // start, it is masked in the run.started event and the state too, not only once the template has rendered.
      for (String t : found.templates()) {
        Matcher m = INPUT_REFERENCE.matcher(t);
        while (m.find()) {
          keys.add(m.group(1) != null ? m.group(1) : m.group(2));
        }
      }
    }
    Redactor r = new Redactor(keys, workflow.source(), found);
    r.learnEnvironment(environment);
    if (found != null) {
      found.literals().forEach(r::learnValue);
    }
    r.learn(inputs, false);
    return r;
  }

  /** Credential-named variables of {@code environment}, token shapes and credential-named keys. */
  public static Redactor ofEnvironment(Map<String, String> environment) {
    Redactor r = new Redactor(Set.of(), null, null);
    r.learnEnvironment(environment);
    return r;
  }

  /** The given values (and token shapes, credential-named keys). */
  public static Redactor of(Collection<String> secretValues) {
    Redactor r = new Redactor(Set.of(), null, null);
    secretValues.forEach(r::learnValue);
    return r;
  }

  private void learnEnvironment(Map<String, String> environment) {
    environment.forEach((k, v) -> {
      if (v != null && CredentialNames.isCredential(k)) {
        learnValue(v);
      }
    });
  }

  // ---------------------------------------------------------------------------------------------------------
  // Learning

  private void learn(Object value, boolean credential) {
    if (value instanceof Map<?, ?> m) {
      m.forEach((k, v) -> learn(v, isKey(String.valueOf(k))));
    } else if (value instanceof List<?> l) {
      for (Object o : l) {
        learn(o, credential && !(o instanceof Map));
      }
    } else if (credential && (value instanceof String || value instanceof Number)) {
      learnValue(String.valueOf(value));
    }
  }

  private void learnValue(String v) {
    if (v == null) {
      return;
    }
    List<String> add = new ArrayList<>(3);
    String s = v.strip();
    add.add(v);
    add.add(s);
    Matcher m = SCHEME.matcher(s);
    if (m.matches()) {
      add.add(m.group(1));
    }
    List<String> current = values;
    List<String> next = null;
    for (String a : add) {
      if (a.length() >= MIN_VALUE_LENGTH && !a.contains(MASK) && !MASK.contains(a) && !current.contains(a)
          && (next == null || !next.contains(a))) {
        if (next == null) {
          next = new ArrayList<>();
        }
        next.add(a);
      }
    }
    if (next != null) {
      addValues(next);
    }
  }

  private synchronized void addValues(List<String> more) {
    if (values.size() >= MAX_VALUES) {
      return;
    }
    List<String> v = new ArrayList<>(values);
    for (String s : more) {
      if (!v.contains(s)) {
        v.add(s);
      }
    }
    // Longest first, so that a value containing another is masked whole.
    v.sort(Comparator.comparingInt(String::length).reversed());
    values = List.copyOf(v);
  }

  private boolean isKey(String k) {
    return CredentialNames.isCredential(k) || keys.contains(k);
  }

  // ---------------------------------------------------------------------------------------------------------
  // Masking

  /** {@code s} with every known value, fragment and token shape masked. */
  public String text(String s) {
    if (s == null || s.isEmpty()) {
      return s;
    }
    List<String> known = values;
    if (s.length() > CLEAN_MAX_LENGTH) {
      return maskText(s, known);
    }
    int slot = slot(s);
    Clean c = clean[slot];
    if (c != null && c.known == known && (c.text == s || c.text.equals(s))) {
      return s;
    }
    String out = maskText(s, known);
    if (out == s) {
      clean[slot] = new Clean(s, known);
    }
    return out;
  }

  /** Whether {@code s} is remembered as holding nothing to mask under what is known now. */
  boolean knownClean(String s) {
    Clean c = clean[slot(s)];
    return c != null && c.known == values && c.text.equals(s);
  }

  private static int slot(String s) {
    int h = s.hashCode();
    return (h ^ (h >>> 16)) & (CLEAN_SLOTS - 1);
  }

  /** The pieces index of the knowledge it was built for; rebuilt when the knowledge changes. */
  private volatile SecretPieces pieces = new SecretPieces(List.of());

  /** {@code s} masked against {@code known}; the same instance when there is nothing to mask. */
  private String maskText(String s, List<String> known) {
    String out = s;
    // By index: known is a random-access list, and this runs for every text of every event.
    for (int i = 0; i < known.size(); i++) {
      String v = known.get(i);
      if (out.contains(v)) {
        out = out.replace(v, MASK);
      }
    }
    SecretPieces p = pieces;
    if (p.known != known) {
      p = new SecretPieces(known);
      pieces = p;
    }
    out = p.mask(out, MASK);
    return TokenShapes.mask(out);
  }

  /** A masker for one text that arrives in pieces (a streamed model reply); see {@link Stream}. */
  public Stream stream() {
    return new Stream();
  }

  /**
   * Masks a text that arrives in pieces, so that a credential split across pieces is masked as it is in the whole
   * text. {@link #append} collects pieces; {@link #take} hands out the masked start of what it has that is safe to
   * hand out now, {@link #finish} the masked rest. The text kept back is at least the last
   * {@value #STREAM_HOLDBACK} characters, and at least as many as the longest known credential has: a credential
   * may be arriving there. A cut is made only where masking the two sides apart gives what masking them together
   * gives, so no credential that the text so far shows is cut in two. Not thread-safe: one per text.
   */
  public final class Stream {
    private final StringBuilder pending = new StringBuilder();

    private Stream() {}

    public void append(String piece) {
      if (piece != null) {
        pending.append(piece);
      }
    }

    /** Characters received and not handed out yet. */
    public int pending() {
      return pending.length();
    }

    /** The masked text that can be handed out now; empty when everything must wait for more. */
    public String take() {
      List<String> known = values;
      int hold = Math.max(STREAM_HOLDBACK, known.isEmpty() ? 0 : known.get(0).length());
      if (pending.length() <= hold) {
        return "";
      }
      String all = pending.toString();
      String whole = text(all);
      // Further back each time: a credential the cut falls in is at most the hold long, or reaches the end.
      for (int i = 0, cut = all.length() - hold; i < 4 && cut > 0; i++, cut -= hold) {
        int at = Character.isLowSurrogate(all.charAt(cut)) ? cut - 1 : cut;
        String head = text(all.substring(0, at));
        if (whole.equals(head + text(all.substring(at)))) {
          pending.delete(0, at);
          return head;
        }
      }
      return "";
    }

    /** The masked rest: the text has ended. */
    public String finish() {
      String rest = text(pending.toString());
      pending.setLength(0);
      return rest == null ? "" : rest;
    }
  }

  /**
   * A copy of {@code value} (strings, numbers, booleans, maps and lists as JSON holds them) with credentials masked
   * in every string and map key; parts with nothing to mask are shared, and a value with nothing to mask is
   * returned as is. Credentials found by name are learned first, so they are masked by value everywhere in it.
   */
  public Object value(Object value) {
    // One walk both learns and masks: it visits what learn() visits, in the same order. When it learned nothing,
    // everything was known from the start and its answer is the one learning first gives; otherwise the value is
    // masked again, now knowing all it holds.
    List<String> before = values;
    Object out = mask(value, false, true);
    return values == before ? out : mask(value, false, false);
  }

  @SuppressWarnings("unchecked")
  public <K, V> Map<K, V> map(Map<K, V> m) {
    return m == null ? null : (Map<K, V>) value(m);
  }

  /** {@code learning}: also learn the values found under credential names, as {@link #learn} does. */
  private Object mask(Object value, boolean credential, boolean learning) {
    if (credential && (value instanceof String || value instanceof Number)) {
      if (learning) {
        learnValue(String.valueOf(value));
      }
      if (!(value instanceof String s && s.isEmpty())) {
        return MASK;
      }
    }
    if (value instanceof String s) {
      return text(s);
    }
    if (value instanceof Map<?, ?> m) {
      return maskMap(m, learning);
    }
    if (value instanceof List<?> l) {
      List<Object> out = null;
      for (int i = 0; i < l.size(); i++) {
        Object v = l.get(i);
        Object r = mask(v, credential && !(v instanceof Map), learning);
        if (r != v && out == null) {
          out = new ArrayList<>(l.subList(0, i));
        }
        if (out != null) {
          out.add(r);
        }
      }
      return out == null ? value : out;
    }
    return value;
  }

  private Object maskMap(Map<?, ?> m, boolean learning) {
    Map<String, Object> out = null;
    int i = 0;
    for (Map.Entry<?, ?> e : m.entrySet()) {
      String k = String.valueOf(e.getKey());
      String key = text(k);
      Object v = e.getValue();
      Object r = mask(v, isKey(k), learning);
      if ((r != v || !key.equals(k) || !(e.getKey() instanceof String)) && out == null) {
        out = new LinkedHashMap<>();
        int j = 0;
        for (Map.Entry<?, ?> before : m.entrySet()) {
          if (j++ == i) {
            break;
          }
          out.put(String.valueOf(before.getKey()), before.getValue());
        }
      }
      if (out != null) {
        String unique = key;
        for (int n = 2; !key.equals(k) && out.containsKey(unique); n++) {
          unique = key + " (" + n + ")"; // two keys masked alike: keep both entries
        }
        out.put(unique, r);
      }
      i++;
    }
    return out == null ? m : out;
  }

  /**
   * The workflow source with credentials masked: scalars under credential-named keys where they are written, then
   * known values and token shapes in the whole text. Everything else stays byte-identical.
   */
  public String source(String yaml) {
    if (yaml == null) {
      return null;
    }
    SourceCredentials found = yaml.equals(source) && sourceCredentials != null ? sourceCredentials
        : SourceCredentials.scan(yaml);
    found.literals().forEach(this::learnValue); // the same credential written elsewhere in the text
    return text(found.mask());
  }

  public RunError error(RunError e) {
    if (e == null) {
      return null;
    }
    return new RunError(e.errorCode(), text(e.message()), e.node(), e.path(), map(e.details()));
  }

  /** The record as it may be journaled. Identity fields (ids, file, directory) are kept: resume needs them. */
  public RunRecord record(RunRecord r) {
    Waiting w = r.waiting();
    if (w != null) {
      w = new Waiting(w.kind(), w.node(), w.path(), w.loop(), w.iteration(), text(w.message()),
          w.deadline(), w.onTimeout(), w.schema() == null ? null : map(w.schema()));
    }
    return r.toBuilder().source(source(r.source())).inputs(map(r.inputs())).options(map(r.options()))
        .output(value(r.output())).error(error(r.error())).waiting(w).state(map(r.state())).nodes(map(r.nodes()))
        .build();
  }

  public NodeExecution execution(NodeExecution e) {
    return new NodeExecution(e.runId(), e.position(), e.kind(), e.status(), e.attempts(), e.startedAt(),
        e.finishedAt(), map(e.input()), map(e.result()), e.usage(), e.errorCode(), text(e.errorMessage()),
        map(e.statePatch()), map(e.sessions()));
  }

  /**
   * The event with credentials masked in all its strings; the same instance when there is nothing to mask. Every
   * event of a run passes here, so the common case (nothing to mask) is decided from the event's own text fields,
   * without building its JSON form; an event that needs masking is rebuilt through that form, where every string
   * is masked. RedactorTest checks, for every event type and every text field, that a credential there is seen.
   */
  public Event event(Event e) {
    if (!needsMasking(e)) {
      return e;
    }
    Map<String, Object> m = Events.toMap(e);
    if (m.get("loops") instanceof List<?> frames) {
      // As JSON has them, so that loop ids are masked too (fromMap reads frames in either form).
      List<Map<String, Object>> plain = new ArrayList<>();
      for (Object f : frames) {
        NodePosition.LoopFrame frame = (NodePosition.LoopFrame) f;
        plain.add(Map.of("loopId", frame.loopId(), "iteration", frame.iteration()));
      }
      m.put("loops", plain);
    }
    // Field by field: the event's own field names are not credentials (a numeric field must stay a number), while
    // every string in its values is masked.
    Map<String, Object> masked = new LinkedHashMap<>();
    m.forEach((k, v) -> masked.put(k, value(v)));
    return Events.fromMap(masked);
  }

  private boolean needsMasking(Event e) {
    // The events of every loop pass first, by their class: cheaper than the switch's search through all types.
    if (e instanceof Event.NodeStarted x) {
      return dirtyIn(x);
    }
    if (e instanceof Event.NodeCompleted x) {
      return dirtyIn(x);
    }
    if (e instanceof Event.LoopIteration x) {
      return dirtyIn(x);
    }
    return switch (e) {
      case Event.RunStarted x -> dirty(x.runId(), x.workflow()) || value(x.inputs()) != x.inputs();
      case Event.RunFinished x -> dirty(x.runId(), x.status(), x.errorCode(), x.message());
      case Event.NodeStarted x -> dirtyIn(x);
      case Event.NodeCompleted x -> dirtyIn(x);
      case Event.NodeFailed x -> dirty(x.node(), x.runId(), x.kind(), x.errorCode(), x.message());
      case Event.NodeSkipped x -> dirty(x.node(), x.runId(), x.kind(), x.reason());
      case Event.NodeCancelled x -> dirty(x.node(), x.runId(), x.kind());
      case Event.NodeRetrying x -> dirty(x.node(), x.runId(), x.kind(), x.message());
      case Event.RouterSelected x -> dirty(x.node(), x.runId(), x.branch());
      case Event.LlmCalled x -> dirty(x.node(), x.runId(), x.provider(), x.model(), x.requestModel(),
          x.finishReason());
      case Event.LoopStarted x -> dirty(x.node(), x.runId(), x.construct());
      case Event.LoopIteration x -> dirtyIn(x);
      case Event.LoopIterate x -> dirty(x.node(), x.runId(), x.edgeFrom(), x.edgeTo());
      case Event.LoopCompleted x -> dirty(x.node(), x.runId(), x.construct(), x.exitReason());
      case Event.RunPaused x -> dirty(x.node(), x.runId(), x.message());
      // Rare events with free-form content (an answer, an exception's text): always masked through the full form.
      case Event.RunResumed x -> true;
      case Event.ListenerFailed x -> true;
      // A step is recorded for every model call (its reservation and its outcome): decided from its fields, with
      // the step's map walked as value() walks it (which learns what it holds under credential names, as the full
      // form would), so only a step that has something to mask is rebuilt.
      case Event.NodeStep x -> dirty(x.node(), x.runId(), x.execution()) || value(x.step()) != x.step();
      case Event.NodeStreaming x -> dirty(x.node(), x.runId(), x.nodeId(), x.tokens());
      case Event.RestartRequested x -> true;
      case Event.RestartAccepted x -> dirty(x.runId(), x.requesterStageId(), x.targetStageId(), x.reason(),
          x.topic());
      case Event.RestartRejected x -> dirty(x.runId(), x.requesterStageId(), x.targetStageId(), x.reason(),
          x.errorCode(), x.message(), x.topic());
      case Event.StageValidationRetry x -> dirty(x.node(), x.runId(), x.sessionId(), x.error());
    };
  }

  private boolean dirtyIn(Event.NodeStarted x) {
    return dirty(x.node(), x.runId(), x.kind());
  }

  private boolean dirtyIn(Event.NodeCompleted x) {
    return dirty(x.node(), x.runId(), x.kind(), x.outputPreview());
  }

  private boolean dirtyIn(Event.LoopIteration x) {
    return dirty(x.node(), x.runId(), x.construct(), x.inputPreview());
  }

  private boolean dirty(NodePosition p, String... texts) {
    if (p != null) {
      if (!text(p.nodeId()).equals(p.nodeId())) {
        return true;
      }
      List<NodePosition.LoopFrame> loops = p.loops();
      for (int i = 0; i < loops.size(); i++) {
        String id = loops.get(i).loopId();
        if (!text(id).equals(id)) {
          return true;
        }
      }
    }
    return dirty(texts);
  }

  private boolean dirty(String... texts) {
    for (String t : texts) {
      if (t != null && !text(t).equals(t)) {
        return true;
      }
    }
    return false;
  }
}

package dev.loopflow.core.secrets;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The workflow source as journaled: each credential written in it is replaced where it is written and nothing
 * else changes, so the text stays readable and byte-identical elsewhere.
 */
class SourceMaskingTest {
  static Stream<Arguments> sources() {
    return Stream.of(
        Arguments.of("flow mapping, double quotes",
            "nodes:\n  - id: h\n    type: http\n    url: https://x.invalid\n"
                + "    headers: {Authorization: \"Bearer AbCdEf0123456789\", Accept: \"*/*\"}\n",
            "\"Bearer AbCdEf0123456789\"", "\"[redacted]\"", "AbCdEf0123456789"),
        Arguments.of("block mapping, plain scalar",
            "nodes:\n  - id: t\n    type: transform\n    value:\n      api_key: plainKeyValue42\n      other: 1\n",
            "plainKeyValue42", "\"[redacted]\"", "plainKeyValue42"),
        Arguments.of("single quotes with a doubled quote",
            "nodes:\n  - id: t\n    type: transform\n    value: {password: 'it''s-a-long-one'}\n",
            "'it''s-a-long-one'", "'[redacted]'", "s-a-long-one"),
        Arguments.of("double quotes with escapes",
            "nodes:\n  - id: t\n    type: transform\n    value: {secret: \"a\\\"b\\u0041cdefgh\"}\n",
            "\"a\\\"b\\u0041cdefgh\"", "\"[redacted]\"", "cdefgh"),
        Arguments.of("short password",
            "nodes:\n  - id: t\n    type: transform\n    value: {password: abc}\n",
            "abc}", "\"[redacted]\"}", "password: abc"),
        Arguments.of("a number as password",
            "nodes:\n  - id: t\n    type: transform\n    value: {password: 98765432}\n",
            "98765432", "\"[redacted]\"", "98765432"),
        Arguments.of("shell env map",
            "nodes:\n  - id: s\n    bash: echo hi\n    env:\n      SERVICE_TOKEN: \"tok-0000-1111-2222\"\n"
                + "      MODE: x\n",
            "\"tok-0000-1111-2222\"", "\"[redacted]\"", "tok-0000-1111-2222"),
        Arguments.of("block scalar",
            "nodes:\n  - id: t\n    type: transform\n    value:\n      private_key: |\n        line-one-of-key\n"
                + "        line-two-of-key\n      other: visible\n",
            "|\n        line-one-of-key\n        line-two-of-key", "\"[redacted]\"", "line-"),
        Arguments.of("windows line endings",
            "nodes:\r\n  - id: t\r\n    type: transform\r\n    value: {api_key: crlfKeyValue99}\r\n",
            "crlfKeyValue99", "\"[redacted]\"", "crlfKeyValue99"),
        Arguments.of("wide characters before the value on its line",
            "nodes:\n  - id: t\n    type: transform\n"
                + "    value: {note: \"\uD83D\uDE00\u00e9\", token: wideKeyValue77}\n",
            "wideKeyValue77", "\"[redacted]\"", "wideKeyValue77"),
        Arguments.of("a line separator inside an earlier string",
            "nodes:\n  - id: t\n    type: transform\n    value: {note: \"a\u2028b\"}\n  - id: u\n    type: transform\n"
                + "    value: {api_key: afterLsValue55}\n",
            "afterLsValue55", "\"[redacted]\"", "afterLsValue55"),
        Arguments.of("a list of secrets",
            "nodes:\n  - id: t\n    type: transform\n    value:\n      secrets: [first-secret-1, second-secret-2]\n",
            "[first-secret-1, second-secret-2]", "[\"[redacted]\", \"[redacted]\"]", "-secret-"),
        Arguments.of("a tagged scalar is masked to the end of its line",
            "nodes:\n  - id: t\n    type: transform\n    value:\n      api_key: !!str taggedKeyValue1 # note\n",
            "!!str taggedKeyValue1 # note", "\"[redacted]\"", "taggedKeyValue1"),
        Arguments.of("the same token elsewhere in the text is masked too",
            "nodes:\n  - id: s\n    bash: \"curl -H 'X: repeatedKey-0001' x\"\n"
                + "    env: {API_KEY: \"repeatedKey-0001\"}\n",
            "repeatedKey-0001", "[redacted]", "repeatedKey-0001"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("sources")
  void credentialsInTheSourceAreMaskedWhereTheyAreWritten_bugSourceStoredRaw(String name, String yaml,
      String written, String replacement, String leak) {
    String masked = Redactor.of(List.of()).source(yaml);

    assertThat(masked).doesNotContain(leak).isEqualTo(yaml.replace(written, replacement));
  }

  @org.junit.jupiter.api.Test
  void templatesUnderCredentialKeysStayReadable() {
    String yaml = "nodes:\n  - id: h\n    type: http\n    url: https://x.invalid\n"
        + "    headers: {Authorization: \"Bearer {{ input.token }}\"}\n";
    assertThat(Redactor.of(List.of()).source(yaml)).isEqualTo(yaml);
  }

  @org.junit.jupiter.api.Test
  void textThatIsNotYamlIsStillMaskedByValueAndShape() {
    Redactor r = Redactor.of(List.of("known-value-123"));
    assertThat(r.source("{ not: [yaml known-value-123 sk-abcdefghijklmnopqrstu"))
        .isEqualTo("{ not: [yaml [redacted] [redacted]");
  }
}

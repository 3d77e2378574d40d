package dev.loopflow.core.secrets;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class TokenShapesTest {
  static Stream<Arguments> shapes() {
    return Stream.of(
        Arguments.of("key sk-proj-Abc123def456ghi789jkl012 end", "key [redacted] end"),
        Arguments.of("sk-ant-api03-AAAAbbbbCCCCdddd1234_-xyz", "[redacted]"),
        Arguments.of("using sk_live_4eC39HqLyjWDarjtT1zdp7dc now", "using [redacted] now"),
        Arguments.of("rk_test_51Habcdefghijklmnop", "[redacted]"),
        Arguments.of("ghp_0123456789abcdefghijABCDEFGHIJ012345", "[redacted]"),
        Arguments.of("x=gho_0123456789abcdefghijABCDEFGHIJ012345;", "x=[redacted];"),
        Arguments.of("github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "[redacted]"),
        Arguments.of("slack xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "slack [redacted]"),
        Arguments.of("xoxp-1234-5678-abcdef", "[redacted]"),
        Arguments.of("aws AKIAIOSFODNN7EXAMPLE key", "aws [redacted] key"),
        Arguments.of("ASIAY34FZKBOKMUTVV7A", "[redacted]"),
        Arguments.of("AIzaSyA1234567890abcdefghijklmnopqrstuv", "[redacted]"),
        Arguments.of("jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            "jwt [redacted]"),
        Arguments.of("-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\nabc\n-----END RSA PRIVATE KEY-----\nafter",
            "[redacted]\nafter"),
        Arguments.of("cut -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA", "cut [redacted]"),
        Arguments.of("Authorization: Bearer abcdefghijklmnop", "Authorization: Bearer [redacted]"),
        Arguments.of("-H 'authorization: Basic dXNlcjpwYXNzd29yZA=='", "-H 'authorization: Basic [redacted]'"),
        Arguments.of("{\"Authorization\":\"Token abcdefgh12\"}", "{\"Authorization\":\"Token [redacted]\"}"),
        Arguments.of("sent bearer 0123456789abcdefXYZ to it", "sent bearer [redacted] to it"),
        Arguments.of("{\"api_key\": \"abcd1234efgh\"}", "{\"api_key\": \"[redacted]\"}"),
        Arguments.of("OPENAI_API_KEY=abcdefgh1234 make", "OPENAI_API_KEY=[redacted] make"),
        Arguments.of("client_secret: hunter2hunter2", "client_secret: [redacted]"),
        Arguments.of("DB_PASSWORD='correct horse'", "DB_PASSWORD='correct horse'"),
        Arguments.of("DB_PASSWORD='correcthorsebattery'", "DB_PASSWORD='[redacted]'"),
        Arguments.of("postgresql://app:s3cr3t@db:5432/x", "postgresql://app:[redacted]@db:5432/x"),
        Arguments.of("GET https://api.example.com/v1?q=1&token=abc123&x=2",
            "GET https://api.example.com/v1?q=1&token=[redacted]&x=2"),
        Arguments.of("https://x.blob.core.windows.net/c?sv=2020&sig=AbC%2Bd",
            "https://x.blob.core.windows.net/c?sv=2020&sig=[redacted]"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("shapes")
  void wellKnownTokenShapesAreMaskedWhereverTheyAppear(String text, String masked) {
    assertThat(TokenShapes.mask(text)).isEqualTo(masked);
    assertThat(TokenShapes.mask(masked)).as("masking twice changes nothing").isEqualTo(masked);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {
      "a plain sentence about tokens and keys",
      "max_tokens: 4096, input_tokens: 12",
      "550e8400-e29b-41d4-a716-446655440000",
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
      "commit 6a5ee4a1b2c3d4e5f60718293a4b5c6d7e8f9012",
      "task-1234567890abcdefghijklmnop",
      "the risk-assessment-for-the-quarter-is-done",
      "the bearer of bad news",
      "Bearer tokens are explained in RFC 6750",
      "Authorization required",
      "password: {{ input.pw }}",
      "api_key: $OPENAI_API_KEY",
      "api_key=${{ secrets.KEY }}",
      "password: [redacted]",
      "https://example.com/path?page=2&sort=asc",
      "https://user@example.com/",
      "aGVsbG8gd29ybGQgdGhpcyBpcyBiYXNlNjQ=",
      "ghp_short",
      "AKIA123",
      "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkq\n-----END PUBLIC KEY-----",
      "{\"token_count\": 17, \"next\": null}"})
  void ordinaryTextIsLeftAlone(String text) {
    assertThat(TokenShapes.mask(text)).isEqualTo(text);
  }
}

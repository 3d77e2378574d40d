package dev.loopflow.core.secrets;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CredentialNamesTest {
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"Authorization", "authorization", "Proxy-Authorization", "x-api-key", "X-Api-Key",
      "x-goog-api-key", "api_key", "apiKey", "APIKEY", "apikey", "password", "PASSWORD", "db_password", "passwd",
      "passphrase", "secret", "client_secret", "clientSecret", "token", "access_token", "accessToken",
      "refresh_token", "id_token", "session-token", "cookie", "Set-Cookie", "private_key", "credentials",
      "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GITHUB_TOKEN", "GH_TOKEN", "HF_TOKEN", "LOOPFLOW_TOKEN",
      "AWS_SECRET_ACCESS_KEY", "STRIPE_KEY", "DB_PASS", "GH_AUTH", "MY_SECRET_THING", "SLACK_BOT_TOKEN"})
  void namesThatHoldCredentials(String name) {
    assertThat(CredentialNames.isCredential(name)).isTrue();
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"max_tokens", "input_tokens", "output_tokens", "tokens", "TOKENIZERS_PARALLELISM",
      "XAUTHORITY", "SSH_AUTH_SOCK", "author", "secretary", "keyboard", "key", "monkey", "primary_key_count",
      "PWD", "OLDPWD", "PATH", "HOME", "status", "output", "stdout", "node", "path", "message", "AWS_ACCESS_KEY_ID",
      "SSH_KEY_PATH", "bypass", "passes", "authored_by"})
  void namesThatDoNot(String name) {
    assertThat(CredentialNames.isCredential(name)).isFalse();
  }
}

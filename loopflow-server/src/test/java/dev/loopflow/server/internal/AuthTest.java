package dev.loopflow.server.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AuthTest {
  @Test
  void onlyTheExactTokenPasses() {
    Auth a = new Auth("test-token-3f9a1c");
    assertThat(a.refusal("Bearer test-token-3f9a1c")).isNull();
    assertThat(a.refusal("bearer test-token-3f9a1c")).isNull();
    assertThat(a.refusal("Bearer TEST-TOKEN-3F9A1C")).isNotNull();
    assertThat(a.refusal("Bearer test-token-3f9a1")).isNotNull();
    assertThat(a.refusal("Bearer ")).isNotNull();
    assertThat(a.refusal(null)).isNotNull();
  }
}

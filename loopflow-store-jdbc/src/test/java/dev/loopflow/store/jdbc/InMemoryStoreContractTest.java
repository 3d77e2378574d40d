package dev.loopflow.store.jdbc;

import dev.loopflow.core.store.RunStore;
import dev.loopflow.testkit.RunStoreContract;

class InMemoryStoreContractTest extends RunStoreContract {
  @Override
  protected RunStore open() {
    return RunStore.inMemory();
  }
}

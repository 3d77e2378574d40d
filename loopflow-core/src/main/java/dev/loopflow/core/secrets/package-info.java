/**
 * Keeping credentials out of everything loopflow writes down or hands out: the {@link
 * dev.loopflow.core.secrets.Redactor} that masks them in journals, events and results (whole, by shape, and the
 * pieces an excerpt keeps of one: {@code SecretPieces}), the store URLs printed without
 * their passwords ({@link dev.loopflow.core.secrets.StoreUrls}), the rule that says which
 * names hold credentials ({@link dev.loopflow.core.secrets.CredentialNames}), and files created readable by their
 * owner only ({@link dev.loopflow.core.secrets.PrivateFiles}).
 */
package dev.loopflow.core.secrets;

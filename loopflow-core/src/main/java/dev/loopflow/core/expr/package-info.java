/**
 * Templates and conditions. Both are compiled once, when a workflow loads, into immutable objects that are
 * evaluated against a read-only scope of root names ({@code input}, {@code state}, {@code loop}, node ids).
 * Jinja is the language (via Jinjava, configured so that a template can neither mutate what it reads nor
 * re-evaluate a value it inserts); conditions may also be written as a structured mapping ({@code equals},
 * {@code and}, {@code var}, ...), which compiles to the same {@link dev.loopflow.core.expr.Condition} type.
 */
package dev.loopflow.core.expr;

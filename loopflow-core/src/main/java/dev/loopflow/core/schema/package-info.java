/**
 * What the workflow format accepts, described once: {@link dev.loopflow.core.schema.FieldSpec} (one field: its
 * name, type, whether it is required, its allowed values and range, a description) and
 * {@link dev.loopflow.core.schema.NodeKindSpec} (the fields of one node kind). The loader's own field tables are
 * written in this model and its lists of accepted names are read from them, so what the loader accepts and what is
 * described cannot drift apart. {@link dev.loopflow.core.schema.WorkflowSchema} turns the description into a JSON
 * Schema for editors and the server; a form that edits a node can be generated from the same records.
 */
package dev.loopflow.core.schema;

/**
 * The verbs conformance suite: driver-agnostic JUnit 5 test classes written once against the
 * {@code org.jrdma.ib.core} API. A driver module runs them by extending each suite
 * ({@link org.jrdma.verbs.conformance.SendRecvSuite}, {@link org.jrdma.verbs.conformance.RdmaSuite}, ...)
 * in its own test sources and implementing {@code newTestBed()} with a
 * {@link org.jrdma.verbs.conformance.VerbsTestBed} built on its devices.
 * <p>What the suites check is the IBTA / Linux verbs behaviour a ULP relies on: bytes arrive
 * exactly, completion statuses, opcodes, byte_len, immediate data, src_qp, completion flags, QP
 * state after errors, post-time checks with the bad work request named, events.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.1.0")
package org.jrdma.verbs.conformance;

/**
 * The software verbs engine (Linux {@code sw/rdmavt} and the shared parts of {@code sw/rxe}): PD,
 * MR and MW with rxe's keys, CQ rings, SRQs, QPs with their send and receive queues, and the checks
 * every soft driver makes before a byte moves. A library for drivers (hw-loopback, hw-rxe), not for
 * ULPs: ULPs use {@code org.jrdma.ib.core}.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("2.3.0")
package org.jrdma.sw.rdmavt;

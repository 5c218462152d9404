package org.jrdma.ib.core;

/** What every verbs resource shares: its device, its owner (for {@code rdma resource}), its life. */
public interface VerbsObject {
    IbDevice device();

    /** The client that owns this resource (inherited from the PD for MRs, QPs, SRQs, MWs, AHs). */
    IbClient owner();

    /** The restrack id: PD/CQ/SRQ number, QPN, or MR/MW key index. */
    int id();

    /** False once destroyed, by its owner or by ib-core when the device went away. */
    boolean isValid();
}

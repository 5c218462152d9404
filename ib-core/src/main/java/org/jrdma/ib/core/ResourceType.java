package org.jrdma.ib.core;

/** {@code enum rdma_restrack_type}, the kinds {@code rdma resource} lists. */
public enum ResourceType {
    PD, CQ, QP, SRQ, MR, MW, AH
}

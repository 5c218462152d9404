package org.jrdma.ib.core;

/** {@code enum ib_sig_type}: whether every send completes to the CQ or only those flagged SIGNALED. */
public enum SignalType {
    ALL_WR, REQ_WR
}
